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


def physical_memory() -> int | None:
    """This machine's memory in bytes (None where the system does not tell)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def check_memory(setting: str, nbytes: float, what: str) -> None:
    """Refuse a population whose arrays (about ``nbytes``) exceed this machine's memory: numpy would
    otherwise stop the run with a MemoryError after the run folder was made. ``setting`` names the
    flags and values, e.g. ``"--pop 1000000000"``."""
    total = physical_memory()
    if total is not None and nbytes > total:
        raise RunError(f"{setting}: {what} would need about {nbytes / 2**30:,.0f} GiB, more than this machine's "
                       f"{total / 2**30:,.0f} GiB; give a smaller value")
