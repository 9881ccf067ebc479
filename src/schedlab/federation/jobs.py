"""Rigid parallel jobs with communication attributes, and their packages.

slowdown-guided-ga-federation, Sect. 4 (HPC2N traces) and method-notes topic 6: job j has t_j
tasks (one per node; t_j = SWF processors), a base time Tb_j (SWF runtime, the runtime on
reference nodes without contention), a communication fraction sigma_j in [0, 1] and a per-task
inter-cluster bandwidth demand PTBW_j. SWF traces have no sigma/PTBW: they are drawn per seed
(:data:`COMM_READING`) or given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WorkloadError
from .platform import Platform

__all__ = ["COMM_READING", "PACKAGE_CARRY_READING", "PACKAGE_READING", "FederatedJobs", "packages"]

#: method-notes topic 6, step 6 of the slowdown model
COMM_READING = (
    "method-notes topic 6: \"[DEF] Per-job σ_j and PTBW_j are not in SWF traces: draw σ_j ~ U(0.1, 0.5) "
    "and PTBW_j ~ U(1, 10) (units of MBW), fixed per seed; MBW_k default 100\""
)

#: method-notes topic 6, Unknowns: how packages are released
PACKAGE_READING = (
    "method-notes topic 6: \"all jobs of a package available at package start; packages processed "
    "back-to-back on the same platform; report makespan per package and summed\" -- read as: the "
    "packages are consecutive runs of N jobs in submit order; package p starts on the empty platform "
    "when package p-1 has finished (a barrier), so the summed makespan is the whole schedule's length"
)

#: the same notes under FederationOptions.package_start "carry" (the default)
PACKAGE_CARRY_READING = (
    "method-notes topic 6: \"all jobs of a package available at package start; packages processed "
    "back-to-back on the same platform\" -- read as: the packages are consecutive runs of N jobs in submit "
    "order; package p is released when the last job of package p-1 has started, on the platform as p-1 left "
    "it (its running jobs keep their nodes and link load); makespan = max F - min I over the workload (Sect. 3)"
)


@dataclass(frozen=True, eq=False)
class FederatedJobs:
    """Jobs as numpy columns: ``id``, ``submit``, ``tasks`` t_j, ``base`` Tb_j, ``sigma`` sigma_j, ``ptbw`` PTBW_j."""

    id: np.ndarray
    submit: np.ndarray
    tasks: np.ndarray
    base: np.ndarray
    sigma: np.ndarray
    ptbw: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        cols = {}
        for col, dt in (("id", np.int64), ("submit", np.float64), ("tasks", np.int64), ("base", np.float64),
                        ("sigma", np.float64), ("ptbw", np.float64)):
            arr = np.ascontiguousarray(getattr(self, col), dtype=dt)
            arr.setflags(write=False)
            cols[col] = arr
        n = cols["id"].size
        if any(a.shape != (n,) for a in cols.values()):
            raise WorkloadError(f"{self.name or 'jobs'}: every job column must be 1-d of the same length")
        bad = np.flatnonzero(cols["tasks"] < 1)
        if bad.size:
            raise WorkloadError(f"{self.name}: job {cols['id'][bad[0]]} has {cols['tasks'][bad[0]]} tasks (needs >= 1)")
        bad = np.flatnonzero(~np.isfinite(cols["base"]) | (cols["base"] < 0))
        if bad.size:
            raise WorkloadError(f"{self.name}: job {cols['id'][bad[0]]} has base time {cols['base'][bad[0]]} (needs >= 0)")
        bad = np.flatnonzero(~((cols["sigma"] >= 0) & (cols["sigma"] <= 1)))
        if bad.size:
            raise WorkloadError(f"{self.name}: job {cols['id'][bad[0]]} has communication fraction {cols['sigma'][bad[0]]} outside [0, 1]")
        bad = np.flatnonzero(~np.isfinite(cols["ptbw"]) | (cols["ptbw"] < 0))
        if bad.size:
            raise WorkloadError(f"{self.name}: job {cols['id'][bad[0]]} has bandwidth demand {cols['ptbw'][bad[0]]} (needs >= 0)")
        for col, arr in cols.items():
            object.__setattr__(self, col, arr)

    def __len__(self) -> int:
        return int(self.id.size)

    @classmethod
    def from_workload(
        cls,
        workload,
        *,
        seed: int = 0,
        sigma_range: tuple[float, float] = (0.1, 0.5),
        ptbw_range: tuple[float, float] = (1.0, 10.0),
        sigma: np.ndarray | None = None,
        ptbw: np.ndarray | None = None,
    ) -> "FederatedJobs":
        """Jobs of a (clean) Workload: t_j = procs, Tb_j = runtime; sigma_j, PTBW_j given or drawn.

        Drawn values (:data:`COMM_READING`): sigma_j ~ U(sigma_range), PTBW_j ~ U(ptbw_range), from
        ``np.random.default_rng([seed, 6])`` in the workload's job order, sigma first then PTBW, so
        the same seed and workload always give the same jobs.
        """
        n = len(workload)
        for label, (lo, hi), lim in (("sigma range", sigma_range, 1.0), ("PTBW range", ptbw_range, np.inf)):
            if not (0 <= lo <= hi <= lim):
                raise WorkloadError(f"{label} ({lo}, {hi}) must satisfy 0 <= low <= high" + (" <= 1" if lim == 1 else ""))
        rng = np.random.default_rng([int(seed), 6])
        drawn_sigma = rng.uniform(sigma_range[0], sigma_range[1], n)
        drawn_ptbw = rng.uniform(ptbw_range[0], ptbw_range[1], n)
        return cls(
            id=workload.id,
            submit=workload.submit,
            tasks=workload.procs,
            base=workload.runtime,
            sigma=drawn_sigma if sigma is None else sigma,
            ptbw=drawn_ptbw if ptbw is None else ptbw,
            name=getattr(workload, "name", ""),
        )

    def take(self, idx: np.ndarray | slice) -> "FederatedJobs":
        return FederatedJobs(self.id[idx], self.submit[idx], self.tasks[idx], self.base[idx], self.sigma[idx],
                             self.ptbw[idx], self.name)

    def check_fits(self, platform: Platform) -> None:
        """A job wider than the federation can never run: WorkloadError naming it."""
        wide = np.flatnonzero(self.tasks > platform.n_nodes)
        if wide.size:
            j = wide[0]
            raise WorkloadError(
                f"{self.name or 'workload'}: job {self.id[j]} needs {self.tasks[j]} nodes but the federation "
                f"{platform.name!r} has {platform.n_nodes} ({wide.size} such job(s)); use a larger platform"
            )


def packages(n_jobs: int, package_size: int) -> list[slice]:
    """Consecutive packages of ``package_size`` jobs in submit order (the last may be smaller), :data:`PACKAGE_READING`."""
    if int(package_size) != package_size or package_size < 1:
        raise WorkloadError(f"package size must be a positive whole number, got {package_size}")
    return [slice(a, min(a + package_size, n_jobs)) for a in range(0, n_jobs, package_size)]
