"""Serialisable strategy descriptions (dispatch rule + queue order)."""

from . import registry
from .registry import register_order, register_rule
from .model import (
    BOUNDS,
    CRITERIA,
    DISPATCH_RULES,
    STATIC_ORDERS,
    TIME_OF_WEEK_CLASSES,
    Criterion,
    Greedy,
    Strategy,
)

__all__ = [
    "BOUNDS",
    "CRITERIA",
    "DISPATCH_RULES",
    "STATIC_ORDERS",
    "TIME_OF_WEEK_CLASSES",
    "Criterion",
    "Greedy",
    "Strategy",
    "register_order",
    "register_rule",
    "registry",
]
