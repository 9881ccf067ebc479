"""Static workload partitions of a grid: every job assigned to one site, each site then runs EASY alone.

nsga2-grid-performance-bounds, Section 4.1 (encoding, veto) and eq. (2)-(4) (objectives AWRT_k,
search-space limit). A partition is an integer vector ``genes`` over the merged trace (ordered by
submit time): ``genes[j]`` = the site that executes job j. A job wider than its assigned site is
vetoed back to its origin. Evaluation runs the compiled grid loop with exchange ``none`` on the
re-assigned trace, without building Workload objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WorkloadError
from .kernel import EXCHANGES, NONE, grid_kernel
from .sim import GridSchedule, GridTrace

#: AWRT_k above this bound (seconds) make a partition infeasible (eq. (4))
AWRT_LIMIT = 100_000.0


@dataclass(frozen=True, eq=False)
class PartitionProblem:
    """The plain arrays one partition evaluation needs (the Executor payload: small, picklable)."""

    submit: np.ndarray
    run: np.ndarray
    est: np.ndarray
    procs: np.ndarray
    origin: np.ndarray
    site_procs: np.ndarray
    limit: float = AWRT_LIMIT

    @classmethod
    def from_trace(cls, trace: GridTrace, limit: float = AWRT_LIMIT) -> "PartitionProblem":
        w = trace.workload
        return cls(
            submit=np.ascontiguousarray(w.submit, dtype=np.float64),
            run=np.ascontiguousarray(trace.run, dtype=np.float64),
            est=np.ascontiguousarray(w.estimate, dtype=np.float64),
            procs=np.ascontiguousarray(w.procs, dtype=np.int64),
            origin=np.ascontiguousarray(trace.origin, dtype=np.int64),
            site_procs=np.ascontiguousarray(trace.site_procs, dtype=np.int64),
            limit=float(limit),
        )

    @property
    def n_jobs(self) -> int:
        return int(self.submit.shape[0])

    @property
    def n_sites(self) -> int:
        return int(self.site_procs.shape[0])

    def veto(self, genes: np.ndarray) -> np.ndarray:
        """The assignment actually simulated: jobs wider than their assigned site go to their origin.

        ``genes``: one site per job, or a matrix with one partition per row (an NSGA-II population)."""
        genes = np.asarray(genes, dtype=np.int64)
        if genes.ndim not in (1, 2) or genes.shape[-1] != self.n_jobs:
            raise WorkloadError(f"a partition needs one site per job ({self.n_jobs}), got shape {genes.shape}")
        if genes.size and (genes.min() < 0 or genes.max() >= self.n_sites):
            raise WorkloadError(f"partition sites must lie in 0..{self.n_sites - 1}")
        too_wide = self.procs > self.site_procs[genes]
        return np.where(too_wide, self.origin, genes)

    def evaluate_raw(self, genes: np.ndarray) -> tuple[np.ndarray, bool]:
        """(AWRT_k per site, aborted): exact AWRT_k, or lower bounds when the limit stopped the run.

        A site without jobs has AWRT 0. The simulation stops as soon as a site's running lower
        bound sum_{started} p m (C - r) / sum_{all its jobs} p m exceeds ``limit``.
        """
        assigned = self.veto(genes)
        _s, _site, awrt, aborted = grid_kernel(
            self.submit, self.run, self.est, self.procs, assigned, self.site_procs, NONE, self.limit
        )
        return np.where(np.isnan(awrt), 0.0, awrt), bool(aborted)

    def evaluate(self, genes: np.ndarray) -> np.ndarray:
        """AWRT_k of each site (eq. (2)) for partition ``genes``; inf when infeasible (eq. (4)).

        Infeasible = some AWRT_k exceeds ``limit``: the paper assigns such individuals an infinite
        value; every site is then reported as inf.
        """
        awrt, aborted = self.evaluate_raw(genes)
        if aborted or np.any(awrt > self.limit):
            return np.full(self.n_sites, np.inf)
        return awrt

    def realised(self, exchange: str, reading=None) -> np.ndarray:
        """The partition a dynamic exchange policy realises: every job on the site where it ran
        (``reading``: :class:`schedlab.grid.readings.Reading`, default the recommended one)."""
        _start, site, _awrt, _ab = grid_kernel(
            self.submit, self.run, self.est, self.procs, self.origin, self.site_procs, EXCHANGES[exchange], np.inf,
            reading=reading,
        )
        return site.astype(np.int8)

    def schedule(self, genes: np.ndarray, trace: GridTrace) -> GridSchedule:
        """The full schedule of a partition (for validation and reports), without the limit."""
        assigned = self.veto(genes)
        start, site, _awrt, _ab = grid_kernel(
            self.submit, self.run, self.est, self.procs, assigned, self.site_procs, NONE, np.inf
        )
        return GridSchedule(trace=trace, exchange="partition", start=start, site=site)


def evaluate_partition(payload: PartitionProblem, genes: np.ndarray) -> tuple[np.ndarray, bool]:
    """Executor task: ``payload.evaluate_raw(genes)`` (a picklable top-level function)."""
    return payload.evaluate_raw(genes)


def split_trace(trace: GridTrace, genes: np.ndarray) -> list:
    """The per-site workloads a partition induces (after the veto), each in merged-trace order."""
    problem = PartitionProblem.from_trace(trace)
    assigned = problem.veto(genes)
    return [trace.workload.take(assigned == k).replace(name=trace.names[k]) for k in range(len(trace.names))]
