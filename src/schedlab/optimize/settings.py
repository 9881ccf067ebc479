"""Checks shared by the settings of every optimizer verb (``evolve greedy``, ``rules evolve``,
``bound``, ``grid pareto``, ``federation run``): each runs when the settings are built, so before
anything is read, compiled or written, and its one-line error names the command-line flag."""

from __future__ import annotations

from ..errors import RunError


def check_whole(flag: str, value, minimum: int = 1) -> None:
    """Refuse ``value`` unless it is a whole number of at least ``minimum``."""
    if int(value) != value or value < minimum:
        what = "a positive whole number" if minimum == 1 else f"a whole number >= {minimum}"
        raise RunError(f"{flag} must be {what}, got {value}")


def check_seed(value, flag: str = "--seed") -> None:
    """A seed numpy's generators take: a whole number >= 0."""
    check_whole(flag, value, 0)
