"""Metrics of a schedule (UTIL, AWRT, AWRT_i, wait, slowdown, ...) and objective expressions."""

from .basic import GROUPS, METRIC_HELP, METRIC_NAMES, Metrics, compute_metrics, user_awrt
from .objective import DEFAULT_OBJECTIVE, Objective

__all__ = ["DEFAULT_OBJECTIVE", "GROUPS", "METRIC_HELP", "METRIC_NAMES", "Metrics", "Objective", "compute_metrics", "user_awrt"]
