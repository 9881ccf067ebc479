"""Cleaning a trace for simulation, counting every job removed or changed and why.

Policy (each job is counted under the *first* rule that removes it, in this order):

==========================  =======================================================================
reason                      rule
==========================  =======================================================================
``cancelled``               status 5 (cancelled) and runtime <= 0: the job never ran (MANIFEST:
                            SDSC-SP2/BLUE/DS store such jobs with runtime and/or procs -1)
``runtime``                 runtime (field 4) missing (-1) or <= 0 (any other status)
``procs``                   width <= 0, where width is allocated processors (field 5), falling back
                            to requested processors (field 8) when field 5 is missing (<= 0)
``too_wide``                width > machine size m
``missing_estimate``        requested time (field 9) <= 0, with ``missing_estimate="drop"`` only
==========================  =======================================================================

Changed but kept: ``estimate_filled`` (field 9 <= 0 with the default ``missing_estimate="runtime"``:
the estimate becomes the actual runtime, so the job is exactly estimated), ``procs_from_requested``
(field 5 missing, field 8 used), ``runtime_above_estimate`` (runtime > estimate: kept unchanged, the
engine kills such jobs at their estimate, p_j = min(p_j, estimate), as in nsga2-grid-performance-bounds
Sect. 2), and ``unsorted`` (adjacent submit-time inversions in the input, e.g. 808 in LLNL-Thunder; the
result is stably sorted by submit).
After cleaning, ``procs`` holds the width, ``runtime > 0``, ``estimate > 0`` and
``1 <= procs <= machine_procs`` for every job.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..errors import WorkloadError
from .model import Workload
from .swf import set_header_value

__all__ = ["MAX_PROCS", "CleanReport", "check_machine_size", "clean", "job_width", "require_machine", "too_wide_jobs"]

MISSING_ESTIMATE_POLICIES = ("runtime", "drop")

#: The largest machine size schedlab simulates (``--procs``, ``--scale-to``, a header's MaxProcs):
#: 2^31 - 1 = 2,147,483,647 processors, 200 times the largest machine of the TOP500 lists (Sunway
#: TaihuLight, 10.6 M cores). Below it every processor count is an exact int64 and float64 (so
#: printed exactly) and a sum of widths over up to 2^32 jobs stays within int64; a size above it is a
#: typo, refused in one line instead of overflowing the engine's int64 counters (issue 43, item 8).
MAX_PROCS = 2**31 - 1


def check_machine_size(option: str, value: int) -> None:
    """Refuse a machine size below 1 or above :data:`MAX_PROCS`, naming ``option`` (one line)."""
    if int(value) != value or value < 1:
        raise WorkloadError(f"{option} must be a positive whole number, got {value}")
    if value > MAX_PROCS:
        raise WorkloadError(f"{option} {value} is above the largest machine schedlab simulates ({MAX_PROCS:,} processors)")


@dataclass(frozen=True)
class CleanReport:
    """How many jobs :func:`clean` removed or changed, by reason (see the module docstring)."""

    jobs_in: int
    machine_procs: int
    cancelled: int
    runtime: int
    procs: int
    too_wide: int
    missing_estimate: int
    estimate_filled: int
    procs_from_requested: int
    runtime_above_estimate: int
    unsorted: int
    jobs_out: int

    REMOVED = ("cancelled", "runtime", "procs", "too_wide", "missing_estimate")
    LABELS = {
        "jobs_in": "jobs read",
        "machine_procs": "machine size m",
        "cancelled": "removed: cancelled before start (status 5, runtime <= 0)",
        "runtime": "removed: runtime missing or <= 0",
        "procs": "removed: processors <= 0 (field 5, else field 8)",
        "too_wide": "removed: wider than the machine",
        "missing_estimate": "removed: no estimate (field 9 <= 0)",
        "estimate_filled": "kept: no estimate, set to runtime",
        "procs_from_requested": "kept: processors taken from field 8",
        "runtime_above_estimate": "kept: runtime > estimate (killed at estimate)",
        "unsorted": "submit-order inversions (sorted)",
        "jobs_out": "jobs kept",
    }

    @property
    def removed(self) -> int:
        return sum(getattr(self, k) for k in self.REMOVED)

    def as_dict(self) -> dict[str, int]:
        """The counts by reason, as plain ints."""
        return {k: int(v) for k, v in asdict(self).items()}

    def rows(self) -> list[tuple[str, int]]:
        return [(self.LABELS[k], v) for k, v in self.as_dict().items()]

    def to_table(self, title: str = "cleaning"):
        """A Rich table of the counts."""
        from rich.table import Table

        table = Table(title=title)
        table.add_column("reason")
        table.add_column("jobs", justify="right")
        for label, value in self.rows():
            table.add_row(label, f"{value:,}")
        return table

    def __str__(self) -> str:
        width = max(len(label) for label, _ in self.rows())
        return "\n".join(f"{label:<{width}}  {value:>9,}" for label, value in self.rows())


def require_machine(workload: Workload, procs: int | None) -> int:
    """The machine size to use: ``procs`` if given, else the header's; a clear error if neither."""
    m = procs if procs is not None else workload.machine_procs
    if m is None:
        raise WorkloadError(f"{workload.name or 'the trace'} has no MaxProcs/MaxNodes header; pass --procs")
    if int(m) <= 0:
        raise WorkloadError(f"machine size must be positive, got {m}")
    check_machine_size("--procs" if procs is not None else f"{workload.name or 'the trace'}: MaxProcs of the header", int(m))
    return int(m)


def job_width(workload: Workload) -> np.ndarray:
    """Processors of each job: allocated (field 5), else requested (field 8) when field 5 <= 0."""
    return np.where(workload.procs > 0, workload.procs, workload.req_procs)


def too_wide_jobs(workload: Workload, m: int) -> np.ndarray:
    """Indices (file order) of the jobs :func:`clean` removes as ``too_wide`` on ``m`` processors:
    width > m among the jobs no earlier rule removes (runtime > 0; width > 0 follows from width > m)."""
    return np.flatnonzero((workload.runtime > 0) & (job_width(workload) > m))


def clean(workload: Workload, *, procs: int | None = None, missing_estimate: str = "runtime") -> tuple[Workload, CleanReport]:
    """Remove jobs that cannot be simulated, fill missing estimates, sort by submit; count why.

    The rules and their order are in the module docstring; ``procs`` overrides the machine size
    (the papers run CTC-SP2 on 430 processors although its header says 338). The default estimate
    policy ``"runtime"`` keeps jobs without a requested time and uses their runtime as estimate;
    ``"drop"`` removes them.
    """
    if missing_estimate not in MISSING_ESTIMATE_POLICIES:
        raise WorkloadError(f"missing_estimate must be one of {MISSING_ESTIMATE_POLICIES}, got {missing_estimate!r}")
    m = require_machine(workload, procs)
    w = workload
    width = job_width(w)
    runtime_ok = w.runtime > 0
    removed = np.zeros(len(w), dtype=bool)
    counts: dict[str, int] = {}

    def rule(name: str, mask: np.ndarray) -> None:
        hit = mask & ~removed
        counts[name] = int(hit.sum())
        removed[hit] = True

    rule("cancelled", (w.status == 5) & ~runtime_ok)
    rule("runtime", ~runtime_ok)
    rule("procs", width <= 0)
    rule("too_wide", width > m)  # = too_wide_jobs(w, m) after the rules above
    no_estimate = w.estimate <= 0
    rule("missing_estimate", no_estimate if missing_estimate == "drop" else np.zeros(len(w), dtype=bool))
    keep = ~removed
    estimate = np.where(no_estimate, w.runtime, w.estimate)
    estimate_filled = int((no_estimate & keep).sum())
    from_requested = int(((w.procs <= 0) & keep).sum())
    above = int(((w.runtime > w.estimate) & ~no_estimate & keep).sum())

    unsorted = int(np.count_nonzero(w.submit[1:] < w.submit[:-1]))
    out = w.replace(procs=width, estimate=estimate).take(keep)
    out = out.sorted_by_submit()
    header = out.header if m == workload.machine_procs else set_header_value(out.header, "MaxProcs", m)
    out = out.replace(machine_procs=m, header=header)
    report = CleanReport(
        jobs_in=len(w),
        machine_procs=m,
        estimate_filled=estimate_filled,
        procs_from_requested=from_requested,
        runtime_above_estimate=above,
        unsorted=unsorted,
        jobs_out=len(out),
        **counts,
    )
    return out, report
