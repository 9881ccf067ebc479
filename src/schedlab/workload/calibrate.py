"""Load calibration of a scaled trace (method-notes topic 1, step 5): raise f_adj until EASY hits a UTIL.

Ernemann et al. scaled with factors *above* the exact ratio f = m'/m; the notes reconstruct how:
start with f_adj = f, simulate EASY (jobs killed at their estimate) on the scaled trace, and update
f_adj <- f_adj * UTIL_target / UTIL_measured (never below f), re-deriving q (the copy probability
that keeps the published job count) at every step, until UTIL is within ``tol`` points of the
target. For CTC scaled to 1024 the target is the published 66.99 % (greedy-es-sorting-criteria,
Table III); for other traces, the UTIL of EASY on the original trace and machine.

The search is workload arithmetic; measuring a UTIL needs a schedule, which ``workload/`` does not
know (DESIGN.md). So the measurement comes in as ``utilisation``, a function Workload -> UTIL % of
EASY on the workload's own machine: :func:`schedlab.optimize.calibrate.easy_util`, which the callers
above the simulator hand down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import WorkloadError
from .model import Workload
from .scale import SCALED_TARGET_PROCS, known_trace, scale

__all__ = ["CTC_1024_EASY_UTIL", "Calibration", "Utilisation", "load_target", "scale_to_util", "rescale"]

#: EASY UTIL (%) on the published CTC trace scaled to 1024 processors (Franke et al. 2007, Table III)
CTC_1024_EASY_UTIL = 66.99

#: UTIL (%) of EASY backfilling on a workload's own machine, jobs killed at their estimate
Utilisation = Callable[[Workload], float]


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


def load_target(workload: Workload, procs: int, utilisation: Utilisation) -> float:
    """The UTIL a scaled trace is calibrated to: the published 66.99 % for CTC on 1024 processors,
    else EASY's UTIL on the original trace and machine (method-notes topic 1, step 5)."""
    if known_trace(workload.name or "") == "CTC" and procs == SCALED_TARGET_PROCS:
        return CTC_1024_EASY_UTIL
    return utilisation(workload)


def scale_to_util(
    workload: Workload, procs: int, target_util: float, *, utilisation: Utilisation, seed: int = 0, tol: float = 0.05,
    max_steps: int = 8,
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
        util = utilisation(scaled)
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


def rescale(workload: Workload, scale_to: int | None, calibrate_load: bool = False, *,
            utilisation: Utilisation | None = None) -> Workload:
    """The trace options ``--scale-to`` / ``--calibrate-load`` applied to a cleaned workload.

    No ``scale_to``: the workload as it is. ``scale_to`` alone: :func:`schedlab.workload.scale` at the
    exact ratio f = m'/m. With ``calibrate_load``: :func:`scale_to_util` towards :func:`load_target`,
    measured by ``utilisation`` (required then).
    """
    if scale_to is None:
        return workload
    if calibrate_load:
        if utilisation is None:
            raise WorkloadError("--calibrate-load simulates EASY on the scaled trace: pass utilisation= "
                                "(schedlab.optimize.calibrate.easy_util)")
        return scale_to_util(workload, scale_to, load_target(workload, scale_to, utilisation), utilisation=utilisation)[0]
    return scale(workload, scale_to)
