"""The trace's clock: simulation time t <-> local wall-clock time in the trace's time zone."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import WorkloadError
from .model import Workload

__all__ = ["trace_zone", "trace_epoch"]


def trace_zone(workload: Workload) -> ZoneInfo:
    """The IANA zone of the trace (its TimeZoneString); UTC when unknown."""
    name = workload.timezone or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise WorkloadError(f"{workload.name or 'the trace'}: unknown time zone {name!r}") from None


def trace_epoch(workload: Workload) -> int:
    """The epoch second that simulation time 0 stands for (UnixStartTime; 0 when unknown)."""
    return int(workload.unix_start) if workload.unix_start is not None else 0
