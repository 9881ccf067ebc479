"""Load calibration of a scaled trace (method-notes topic 1, step 5): raise f_adj until EASY hits a UTIL.

Ernemann et al. scaled with factors *above* the exact ratio f = m'/m; the notes reconstruct how:
start with f_adj = f, simulate EASY (jobs killed at their estimate) on the scaled trace, and update
f_adj <- f_adj * UTIL_target / UTIL_measured (never below f), re-deriving q (the copy probability
that keeps the published job count) at every step, until UTIL is within ``tol`` points of the
target. For CTC scaled to 1024 the target is the published 66.99 % (greedy-es-sorting-criteria,
Table III); for other traces, the UTIL of EASY on the original trace and machine.

This lives in ``sim`` because it needs the simulator; :func:`schedlab.workload.scale` stays free of
schedules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import WorkloadError
from ..workload import Workload, scale
from ..sim.engine import simulate
from ..sim.model import Machine

#: EASY UTIL (%) on the published CTC trace scaled to 1024 processors (Franke et al. 2007, Table III)
CTC_1024_EASY_UTIL = 66.99


@dataclass
class Calibration:
    """What :func:`scale_to_util` did: one (f_adj, job count, EASY UTIL) row per try; ``chosen``
    indexes the try whose trace was returned (the closest to the target)."""

    target_util: float
    f: float
    steps: list[dict] = field(default_factory=list)
    chosen: int = 0

    @property
    def f_adj(self) -> float:
        return self.steps[self.chosen]["f_adj"]

    @property
    def util(self) -> float:
        return self.steps[self.chosen]["UTIL"]


def easy_util(workload: Workload) -> float:
    """UTIL (%) of EASY backfilling on the workload's own machine, jobs killed at their estimate."""
    from ..metrics import compute_metrics
    from ..strategy import Strategy

    return float(compute_metrics(simulate(workload, Machine(workload.machine_procs), Strategy("easy")))["UTIL"])


def load_target(workload: Workload, procs: int) -> float:
    """The UTIL a scaled trace is calibrated to: the published 66.99 % for CTC on 1024 processors,
    else EASY's UTIL on the original trace and machine (method-notes topic 1, step 5)."""
    from ..workload.scale import SCALED_TARGET_PROCS, known_trace

    if known_trace(workload.name or "") == "CTC" and procs == SCALED_TARGET_PROCS:
        return CTC_1024_EASY_UTIL
    return easy_util(workload)


def scale_to_util(
    workload: Workload, procs: int, target_util: float, *, seed: int = 0, tol: float = 0.05, max_steps: int = 8
) -> tuple[Workload, Calibration]:
    """The trace scaled to ``procs`` processors with f_adj calibrated so EASY's UTIL ~ ``target_util``.

    Returns the scaled workload of the closest try and the record of every try. Stops when UTIL is
    within ``tol`` points, when f_adj would have to drop below f (the trace is already too loaded
    at the exact ratio; f_adj = f is kept), or after ``max_steps`` tries (the closest try wins).
    """
    if not 0 < target_util <= 100:
        raise WorkloadError(f"target utilisation must lie in (0, 100] %, got {target_util}")
    m = workload.machine_procs
    if not m:
        raise WorkloadError(f"{workload.name or 'the trace'}: machine size unknown; give --procs")
    f = procs / m
    cal = Calibration(target_util=float(target_util), f=f)
    f_adj, best = f, None
    for _ in range(max_steps):
        scaled = scale(workload, procs, f_adj=f_adj, seed=seed)
        util = easy_util(scaled)
        cal.steps.append({"f_adj": f_adj, "jobs": len(scaled), "UTIL": util})
        if best is None or abs(util - target_util) < abs(cal.util - target_util):
            best, cal.chosen = scaled, len(cal.steps) - 1
        if abs(util - target_util) <= tol:
            break
        nxt = max(f, f_adj * target_util / util)
        if nxt == f_adj:
            break
        f_adj = nxt
    return best, cal


def rescale_workload(workload: Workload, scale_to: int | None, calibrate_load: bool = False) -> Workload:
    """The shared trace options ``--scale-to`` / ``--calibrate-load`` applied to a cleaned workload.

    No ``scale_to``: the workload as it is. ``scale_to`` alone: :func:`schedlab.workload.scale` at the
    exact ratio f = m'/m. With ``calibrate_load``: :func:`scale_to_util` towards :func:`load_target`.
    (The one implementation behind TraceOptions.rescale, evolve's training traces and federation jobs.)
    """
    if scale_to is None:
        return workload
    if calibrate_load:
        return scale_to_util(workload, scale_to, load_target(workload, scale_to))[0]
    return scale(workload, scale_to)
