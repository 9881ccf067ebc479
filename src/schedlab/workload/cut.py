"""Cutting a trace to its first N calendar months (nsga2-grid-performance-bounds Sect. 5: 11 months)."""

from __future__ import annotations

import calendar
import math
import warnings
from datetime import datetime

import numpy as np

from ..errors import TraceNote, WorkloadError
from .model import Workload
from .swf import set_header_value
from .timezone import trace_epoch, trace_zone

__all__ = ["add_months", "cut_months", "cut_window", "split_months", "window_label"]


def add_months(start: datetime, months: int) -> datetime:
    """The same local wall-clock time ``months`` calendar months later (day clamped to month end)."""
    total = start.month - 1 + months
    year, month = start.year + total // 12, total % 12 + 1
    day = min(start.day, calendar.monthrange(year, month)[1])
    return start.replace(year=year, month=month, day=day)


def _window_start(w: Workload) -> datetime:
    """Local wall-clock time at which month 1 of sorted ``w`` begins (see :func:`cut_months`)."""
    origin = min(0, math.floor(float(w.submit[0])))
    return datetime.fromtimestamp(trace_epoch(w) + origin, tz=trace_zone(w))


def _window_end(w: Workload, months: int | None) -> float:
    """Simulation time at which the first ``months`` calendar months of sorted ``w`` end (see cut_months);
    ``None`` or ``0``: the end / the start of month 1."""
    if months is None:
        return math.inf
    try:
        return add_months(_window_start(w), int(months)).timestamp() - trace_epoch(w)
    except (ValueError, OverflowError):  # past year 9999: the window holds every job of the trace
        return math.inf


def _positive_months(months: int | None, name: str = "months") -> None:
    if months is not None and (int(months) != months or months <= 0):
        raise WorkloadError(f"{name} must be a positive integer, got {months}")


def _rebased(workload: Workload, out: Workload) -> Workload:
    """``out`` (jobs of ``workload``) with submit times shifted so the first is in [0, 1)."""
    epoch = trace_epoch(workload)
    shift = math.floor(float(out.submit[0])) if len(out) else 0
    header = out.header
    unix_start = None if workload.unix_start is None else epoch + shift
    if unix_start is not None and any(h.strip().startswith("UnixStartTime") for h in header):
        header = set_header_value(header, "UnixStartTime", unix_start)
    return out.replace(submit=out.submit - np.float64(shift), unix_start=unix_start, header=header)


def _window(w: Workload, skip: int, months: int | None) -> tuple[float, float]:
    """(start, end) in simulation time of sorted ``w`` of calendar months ``skip``+1 .. ``months``."""
    start = _window_end(w, skip) if skip else -math.inf
    return start, _window_end(w, months)


def cut_window(workload: Workload, skip: int, months: int | None = None, *, note: bool = True) -> Workload:
    """The jobs submitted in calendar months ``skip``+1 .. ``months`` (``None``: to the end), rebased.

    The one calendar of every verb: months are counted from the trace's start exactly as
    :func:`cut_months` counts them (``cut_window(w, 0, n)`` is ``cut_months(w, n)``), whatever
    window is asked for, so months 1-K and months K+1-N of a trace are the same dates in a split
    (``--split-months``) as in ``--months``. Submit times are rebased as :func:`cut_months` does.
    """
    _positive_months(months)
    if int(skip) != skip or skip < 0 or (months is not None and skip >= months):
        raise WorkloadError(f"a window of months {skip + 1}-{months} is empty")
    if len(workload) == 0:
        return workload
    w = workload.sorted_by_submit()
    label = window_label(w, int(skip), months)
    if note and months is not None and label.endswith(PAST_END):
        warnings.warn(TraceNote(f"{workload.name or 'the trace'}: months {skip + 1}-{months} reach past its last job; "
                                f"the window kept is {label.removesuffix(PAST_END)}, to the end of the trace"), stacklevel=3)
    start, end = _window(w, int(skip), months)
    return _rebased(workload, w.take((w.submit >= start) & (w.submit < end))).replace(window=label)


#: the end of a :func:`window_label` whose months reach past the trace's last job
PAST_END = ", end of trace"


def window_label(workload: Workload, skip: int = 0, months: int | None = None) -> str:
    """The dates calendar months ``skip``+1 .. ``months`` of ``workload`` (uncut) span, as a person reads them.

    ``1996-09-23 14:00 – 1996-11-23 14:00`` (local time of the trace's zone, end exclusive; dates alone
    when both bounds fall at midnight) for a trace with a Unix start, else trace-relative days
    (``days 0 – 61``). A window reaching past the trace's last job ends at that job's submit
    (``... – 1997-08-29 10:12, end of trace``): the label states the span the jobs can fill, never
    months the trace does not have.
    """
    if len(workload) == 0:
        return "no jobs"
    w = workload.sorted_by_submit()
    start, end = _window(w, int(skip), months)
    if skip == 0:
        start = float(min(0, math.floor(float(w.submit[0]))))
    last = float(w.submit[-1])
    past = end > last
    if past:
        end = last
    tail = PAST_END if past else ""
    if workload.unix_start is None:
        return f"days {start / 86400:g} – {end / 86400:.4g}{tail}"
    zone, epoch = trace_zone(w), trace_epoch(w)
    a, b = (datetime.fromtimestamp(epoch + t, tz=zone) for t in (start, end))
    midnight = all((d.hour, d.minute, d.second) == (0, 0, 0) for d in (a, b)) and not past
    fmt = "%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M"
    return f"{a.strftime(fmt)} – {b.strftime(fmt)}{tail}"


def split_months(workload: Workload, months: int, total: int | None = None) -> tuple[Workload, Workload]:
    """(calendar months 1 .. ``months``, months ``months``+1 .. ``total``) of ``workload``, each
    :func:`cut_window` (``total`` None: to the end of the trace).

    Both parts are windows of the one calendar of :func:`cut_months`, counted from the trace's
    start, not from the first job of an earlier cut: the first part is ``cut_months(workload,
    months)`` exactly, the job set ``--months months`` gives. The second starts on an empty
    machine (jobs still running at the boundary belong to the first part). Columns such as
    ``group`` are kept as they are; :func:`schedlab.workload.spec.split_trace` groups each part on
    its own jobs (:data:`schedlab.workload.spec.GROUPS_PER_WINDOW`).
    """
    _positive_months(months)
    _positive_months(total, "total months")
    if total is not None and total <= months:
        raise WorkloadError(f"a split at month {months} leaves no test months within {total} months")
    if len(workload) == 0:
        return workload, workload
    # a training window past the last job leaves the test part empty: split_trace's error says so
    return cut_window(workload, 0, months, note=False), cut_window(workload, months, total)


def cut_months(workload: Workload, months: int) -> Workload:
    """The jobs submitted in the first ``months`` calendar months, submit times rebased to 0.

    The window starts at the trace's start, simulation time 0 (the header's UnixStartTime, the
    log's StartTime), read as local time in the trace's time zone (zoneinfo, so DST is respected),
    and ends at the same local wall-clock time ``months`` months later (exclusive); a trace whose
    first job is submitted before 0 starts at that job instead. The kept submit times are then
    shifted so the first job is at 0 (in [0, 1) for fractional submits) and ``unix_start`` (and
    the header's UnixStartTime) moves by the same amount. Starting at the log's start rather than
    at the first (valid) job reproduces the 11-month job counts of nsga2-grid-performance-bounds
    Table 1 for the SDSC traces (see tests/test_real_traces.py).
    """
    if months is None:
        raise WorkloadError("months must be a positive integer, got None")
    return cut_window(workload, 0, months)
