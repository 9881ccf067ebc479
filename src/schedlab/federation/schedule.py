"""Package schedules on a federation: JPR, CBS, METL and given orders (the GA's decoder).

slowdown-guided-ga-federation, Sects. 3-4. A workload is cut into packages
(:data:`schedlab.federation.jobs.PACKAGE_READING`); each package is scheduled on the empty
platform, starting when the previous one has finished. Per package:

- ``jpr``: jobs in submit order (FCFS, no backfilling), each on the most powerful free nodes;
- ``cbs``: jobs in submit order, Chunk-Big-Small allocation;
- ``metl``: METL's own loop (smallest execution-time loss first), Algorithm 1 allocation;
- an explicit order (``ga-random`` / ``ga-metl``): jobs strictly in that order, Algorithm 1.

The makespan of a package is max_i F_i - min_j I_j (Sect. 3); the workload's is their sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkloadError
from .jobs import FederatedJobs, packages
from .kernel import build_in_order, build_metl
from .model import METHODS, FederationOptions, FederationOptionError, job_arrays, opts_array, platform_arrays
from .platform import Platform

__all__ = ["FederatedSchedule", "PackageProblem", "schedule_package", "schedule_workload"]


@dataclass(frozen=True, eq=False)
class PackageProblem:
    """One package ready for the kernels (the GA's executor payload): jobs, platform, options."""

    jobs: FederatedJobs
    platform: Platform
    options: FederationOptions
    method: str = "ga-metl"

    def __post_init__(self) -> None:
        self.jobs.check_fits(self.platform)
        object.__setattr__(self, "JA", job_arrays(self.jobs))
        object.__setattr__(self, "PA", platform_arrays(self.platform))
        object.__setattr__(self, "opts", opts_array(self.method, self.options))

    def __len__(self) -> int:
        return len(self.jobs)

    def makespan(self, order: np.ndarray) -> float:
        """Makespan of the package when its jobs start strictly in ``order`` (the fitness)."""
        from .kernel import makespan_in_order

        return float(makespan_in_order(np.ascontiguousarray(order, dtype=np.int64), self.JA, self.PA, self.opts))

    def build(self, order: np.ndarray | None = None):
        """Kernel output tuple for ``order`` (or for the method's own order: submit order / METL)."""
        try:
            return self._build(order)
        except ValueError as exc:
            if isinstance(exc, FederationOptionError):
                raise
            raise FederationOptionError(
                f"{self.jobs.name or 'package'}: a job can never start under {self.method} on {self.platform.name!r} "
                f"({exc}; e.g. CBS taken literally needs a 75 % chunk in one cluster)") from None

    def _build(self, order: np.ndarray | None):
        if self.method == "metl" and order is None:
            return build_metl(self.JA, self.PA, self.opts)
        if order is None:
            order = np.arange(len(self.jobs), dtype=np.int64)
        order = np.ascontiguousarray(order, dtype=np.int64)
        if order.shape != (len(self.jobs),) or not np.array_equal(np.sort(order), np.arange(len(self.jobs))):
            raise FederationOptionError(f"an order must be a permutation of the package's {len(self.jobs)} jobs")
        return build_in_order(order, self.JA, self.PA, self.opts)

    def metl_order(self) -> np.ndarray:
        """METL's start order (the GA-METL seed)."""
        seq = build_metl(self.JA, self.PA, self.opts)[6]
        return np.argsort(seq, kind="stable").astype(np.int64)


@dataclass(frozen=True, eq=False)
class FederatedSchedule:
    """A federated schedule of a whole workload (arrays in job order; times from the first start).

    ``tasks_node[alloc_ptr[j]:alloc_ptr[j+1]]`` are the nodes of job j's tasks and
    ``tasks_start`` their start times; ``seq`` is the global start order; ``sp`` the slowdown
    SP_j at start; ``package`` the package index of each job.
    """

    jobs: FederatedJobs
    platform: Platform
    options: FederationOptions
    method: str
    package_size: int
    package: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    sp: np.ndarray
    alloc_ptr: np.ndarray
    tasks_node: np.ndarray
    tasks_start: np.ndarray
    seq: np.ndarray
    package_makespan: np.ndarray
    orders: tuple[np.ndarray, ...] = field(default=())

    @property
    def makespan(self) -> float:
        """Summed makespan over the packages (= the schedule's length, packages being back to back)."""
        return float(self.package_makespan.sum())


def schedule_package(problem: PackageProblem, order: np.ndarray | None = None):
    """Kernel output of one package (see :meth:`PackageProblem.build`)."""
    return problem.build(order)


def schedule_workload(
    jobs: FederatedJobs,
    platform: Platform,
    method: str,
    package_size: int,
    *,
    options: FederationOptions | None = None,
    orders: Sequence[np.ndarray] | None = None,
) -> FederatedSchedule:
    """Schedule every package of ``jobs`` with ``method``; GA methods need their ``orders`` (one per package)."""
    options = options or FederationOptions()
    if method not in METHODS:
        raise FederationOptionError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if len(jobs) == 0:
        raise WorkloadError(f"{jobs.name or 'workload'}: no jobs to schedule")
    jobs.check_fits(platform)
    slices = packages(len(jobs), package_size)
    if method.startswith("ga") and (orders is None or len(orders) != len(slices)):
        raise FederationOptionError(f"{method} needs one order per package ({len(slices)})")
    n = len(jobs)
    alloc_ptr = np.zeros(n + 1, dtype=np.int64)
    alloc_ptr[1:] = np.cumsum(jobs.tasks)
    start, finish, sp = np.empty(n), np.empty(n), np.empty(n)
    seq = np.empty(n, dtype=np.int64)
    pkg = np.empty(n, dtype=np.int64)
    nodes = np.empty(alloc_ptr[-1], dtype=np.int64)
    mk = np.empty(len(slices))
    used_orders = []
    offset, seq_offset = 0.0, 0
    for p, sl in enumerate(slices):
        prob = PackageProblem(jobs.take(sl), platform, options, method)
        order = None if orders is None else np.asarray(orders[p], dtype=np.int64)
        s, f, spj, _jk, aptr, anodes, sq = prob.build(order)
        mk[p] = (f.max() - s.min()) if s.size else 0.0
        start[sl], finish[sl], sp[sl] = s + offset, f + offset, spj
        seq[sl] = sq + seq_offset
        pkg[sl] = p
        nodes[alloc_ptr[sl.start]:alloc_ptr[sl.stop]] = anodes
        used_orders.append(np.argsort(sq, kind="stable") if order is None else order)
        offset += mk[p]
        seq_offset += s.size
    tasks_start = np.repeat(start, jobs.tasks)
    return FederatedSchedule(jobs, platform, options, method, int(package_size), pkg, start, finish, sp,
                             alloc_ptr, nodes, tasks_start, seq, mk, tuple(used_orders))
