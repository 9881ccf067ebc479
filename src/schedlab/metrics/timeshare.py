"""Metrics of time-shared (SCOJO-PECT) schedules, also defined for rigid ones so both compare.

A job's execution is a list of intervals; its response C - r includes every suspended period;
p is the time it actually ran (the sum of its intervals; finish - start for a rigid schedule).
Thesis Section 5.1.5: "Bounded Slowdown = Ceil(Max(Response time/Max(Runtime,BOUND)),1) where,
Response time is the sum of partial response times of a job (in case of preemption)" with BOUND
600 s (Section 7.4); the ceiling is not applied (method-notes topic 5 [DEF]).
Runtime classes (thesis Table 4): short < 600 s <= medium < 10,800 s <= long, by the job's run
time p; width classes: narrow <= 10 %, medium <= 50 %, wide > 50 % of the machine.
"""

from __future__ import annotations

import numpy as np

#: bounded-slowdown bound of the thesis (Section 7.4: "The value of BOUND was set to 600 seconds")
BSLD_BOUND = 600.0
RUNTIME_CLASSES = ("short", "medium", "long")
WIDTH_CLASSES = ("narrow", "medium", "wide")


def runtime_class(p: np.ndarray, short_bound: float = 600.0, long_bound: float = 10800.0) -> np.ndarray:
    """0 short (p < 600 s), 1 medium, 2 long (p >= 10,800 s)."""
    return np.searchsorted(np.array([short_bound, long_bound]), np.asarray(p, float), side="right")


def width_class(procs: np.ndarray, machine: int) -> np.ndarray:
    """0 narrow (<= 10 % of the machine), 1 medium (<= 50 %), 2 wide (> 50 %)."""
    frac = np.asarray(procs, float) / float(machine)
    return np.where(frac <= 0.10, 0, np.where(frac <= 0.50, 1, 2))


def bounded_slowdown(schedule, bound: float = BSLD_BOUND) -> np.ndarray:
    """max(1, (C - r) / max(p, bound)) per job, response including suspended time."""
    p = np.asarray(schedule.processing, float)
    response = np.asarray(schedule.finish, float) - schedule.workload.submit
    return np.maximum(1.0, response / np.maximum(p, bound))


def _mean(x: np.ndarray) -> float | None:
    return float(x.mean()) if x.size else None


def timeshare_metrics(schedule, *, bound: float = BSLD_BOUND) -> dict:
    """The time-sharing keys of ``--json``: ``bsld`` per runtime class, ``bsld_by_class_width``
    (runtime class x width class; None where no job), ``jobs_by_class_width``, mean response and
    wait per runtime class, ``preemptions`` (suspensions to disk), ``slices`` and ``switches``
    (overheads paid); a rigid schedule has 0 preemptions and no slices."""
    w = schedule.workload
    p = np.asarray(schedule.processing, float)
    bsld = bounded_slowdown(schedule, bound)
    rc = runtime_class(p)
    wc = width_class(w.procs, schedule.machine.procs)
    response = np.asarray(schedule.finish, float) - w.submit
    wait = np.asarray(schedule.start, float) - w.submit
    out: dict = {
        "bsld_bound": float(bound),
        "bsld": {name: _mean(bsld[rc == c]) for c, name in enumerate(RUNTIME_CLASSES)},
        "bsld_by_class_width": {
            name: {wname: _mean(bsld[(rc == c) & (wc == k)]) for k, wname in enumerate(WIDTH_CLASSES)}
            for c, name in enumerate(RUNTIME_CLASSES)
        },
        "jobs_by_class_width": {
            name: {wname: int(((rc == c) & (wc == k)).sum()) for k, wname in enumerate(WIDTH_CLASSES)}
            for c, name in enumerate(RUNTIME_CLASSES)
        },
        "response_by_class": {name: _mean(response[rc == c]) for c, name in enumerate(RUNTIME_CLASSES)},
        "wait_by_class": {name: _mean(wait[rc == c]) for c, name in enumerate(RUNTIME_CLASSES)},
    }
    ts = getattr(schedule, "timeshare", None)
    out["preemptions"] = int(ts.preemptions.sum()) if ts is not None else 0
    out["slices"] = int(ts.slice_class.size) if ts is not None else 0
    out["switches"] = int(ts.overheads.size) if ts is not None else 0
    return out
