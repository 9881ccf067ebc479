"""Package schedules on a federation: JPR, CBS, METL and given orders (the GA's decoder).

slowdown-guided-ga-federation, Sects. 3-4. A workload is cut into packages
(:data:`schedlab.federation.jobs.PACKAGE_READING`); how a package follows the previous one is the
reading ``FederationOptions.package_start``: "carry" (default) -- released when the previous
package's last job has started, on the platform as that package left it (:class:`Carry`); "barrier"
-- on the empty platform when the previous one has finished. Per package:

- ``jpr``: jobs in submit order (FCFS, no backfilling), each on the most powerful free nodes;
- ``cbs``: jobs in submit order, Chunk-Big-Small allocation;
- ``metl``: METL's own loop (smallest execution-time loss first), Algorithm 1 allocation;
- an explicit order (``ga-random`` / ``ga-metl``): jobs strictly in that order, Algorithm 1.

The makespan of a package is the last finish of its jobs - its release (max_i F_i - min_j I_j,
Sect. 3, under "barrier"); the workload's is ``FederationOptions.makespan``: max F - min I over all
its jobs (default) or the sum over the packages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkloadError
from .jobs import FederatedJobs, packages
from .kernel import build_after, makespan_after, makespans_in_orders, metl_after
from .layout import JobArrays
from .model import METHODS, FederationOptions, FederationOptionError, job_arrays, opts_array, platform_arrays
from .platform import Platform

__all__ = ["Carry", "FederatedSchedule", "PackageProblem", "carry_over", "schedule_package", "schedule_workload"]


@dataclass(frozen=True, eq=False)
class Carry:
    """The jobs of earlier packages still running when a package is released (package_start "carry"):
    the jobs, their finish from the release, their nodes per group of the kernels (R x G), and the
    release time on the workload's clock."""

    jobs: FederatedJobs
    finish: np.ndarray
    cnt: np.ndarray
    release: float


@dataclass(frozen=True, eq=False)
class PackageProblem:
    """One package ready for the kernels (the GA's executor payload): jobs, platform, options, and
    the jobs carried over from the previous packages (None: an empty platform at the release)."""

    jobs: FederatedJobs
    platform: Platform
    options: FederationOptions
    method: str = "ga-metl"
    carry: Carry | None = None

    def __post_init__(self) -> None:
        self.jobs.check_fits(self.platform)
        object.__setattr__(self, "PA", platform_arrays(self.platform))
        object.__setattr__(self, "opts", opts_array(self.method, self.options))
        self._set_carry(self.carry)

    def _set_carry(self, carry: Carry | None) -> None:
        JA = job_arrays(self.jobs)
        if carry is None:
            cf, cc = np.zeros(0), np.zeros((0, self.PA.g_power.size), dtype=np.int64)
        else:  # the carried jobs are rows J.. of the job arrays
            JA = JobArrays(*(np.concatenate([a, b]) for a, b in zip(JA, job_arrays(carry.jobs))))
            cf, cc = np.ascontiguousarray(carry.finish, dtype=np.float64), np.ascontiguousarray(carry.cnt, dtype=np.int64)
        object.__setattr__(self, "carry", carry)
        object.__setattr__(self, "JA", JA)
        object.__setattr__(self, "CF", cf)
        object.__setattr__(self, "CC", cc)

    def with_carry(self, carry: Carry | None) -> "PackageProblem":
        """The same package released on the platform ``carry`` describes (platform arrays reused)."""
        if carry is self.carry:
            return self
        other = object.__new__(PackageProblem)
        for key in ("jobs", "platform", "options", "method", "PA", "opts"):
            object.__setattr__(other, key, getattr(self, key))
        other._set_carry(carry)
        return other

    def __len__(self) -> int:
        return len(self.jobs)

    def makespan(self, order: np.ndarray) -> float:
        """Makespan of the package when its jobs start strictly in ``order`` (the fitness): the last
        finish of its jobs from its release."""
        return float(makespan_after(np.ascontiguousarray(order, dtype=np.int64), self.JA, self.PA, self.opts,
                                    self.CF, self.CC))

    def makespans(self, X: np.ndarray) -> np.ndarray:
        """:meth:`makespan` of every row of X (one compiled call)."""
        return makespans_in_orders(np.ascontiguousarray(X, dtype=np.int64), self.JA, self.PA, self.opts, self.CF, self.CC)

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
            return metl_after(self.JA, self.PA, self.opts, self.CF, self.CC)
        if order is None:
            order = np.arange(len(self.jobs), dtype=np.int64)
        order = np.ascontiguousarray(order, dtype=np.int64)
        if order.shape != (len(self.jobs),) or not np.array_equal(np.sort(order), np.arange(len(self.jobs))):
            raise FederationOptionError(f"an order must be a permutation of the package's {len(self.jobs)} jobs")
        return build_after(order, self.JA, self.PA, self.opts, self.CF, self.CC)

    def metl_order(self) -> np.ndarray:
        """METL's start order (the GA-METL seed)."""
        seq = metl_after(self.JA, self.PA, self.opts, self.CF, self.CC)[6][:len(self.jobs)]
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
        """The workload's makespan under ``options.makespan``: max F - min I over all jobs
        ("workload") or the sum of the package makespans ("package-sum")."""
        if self.options.makespan == "package-sum" or self.start.size == 0:
            return float(self.package_makespan.sum())
        return float(self.finish.max() - self.start.min())


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
    options.check_packages(len(slices))
    if options.package_start == "carry":
        return _schedule_chain(jobs, platform, method, int(package_size), options, slices, orders)
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


def _chain(jobs: FederatedJobs, platform: Platform, options: FederationOptions, method: str,
           orders: Sequence[np.ndarray]):
    """Kernel output of the first packages (``orders``, one per package) as one strict-order chain:
    what package_start "carry" makes of them (each released at the last start of the one before)."""
    n0 = sum(len(o) for o in orders)
    offsets = np.cumsum([0] + [len(o) for o in orders[:-1]])
    full = np.concatenate([np.asarray(o, dtype=np.int64) + off for o, off in zip(orders, offsets)])
    return PackageProblem(jobs.take(slice(0, n0)), platform, options, method).build(full)


def carry_over(jobs: FederatedJobs, platform: Platform, options: FederationOptions, method: str,
               orders: Sequence[np.ndarray]) -> Carry | None:
    """The platform the packages ``orders`` (the first ones of ``jobs``) leave to the next package
    under package_start "carry": its release is the last start of the previous package, and the
    jobs still running then keep their nodes until their finish. None before the first package."""
    if not orders:
        return None
    s, f, _sp, _jk, aptr, anodes, _seq = _chain(jobs, platform, options, method, orders)
    release = float(s[len(s) - len(orders[-1]):].max())
    running = np.flatnonzero(f > release)
    node_group = platform_arrays(platform).node_group
    G = int(node_group.max()) + 1
    cnt = np.array([np.bincount(node_group[anodes[aptr[j]:aptr[j + 1]]], minlength=G) for j in running],
                   dtype=np.int64).reshape(running.size, G)
    return Carry(jobs.take(running), f[running] - release, cnt, release)


def _schedule_chain(jobs: FederatedJobs, platform: Platform, method: str, package_size: int,
                    options: FederationOptions, slices: list[slice], orders: Sequence[np.ndarray] | None
                    ) -> FederatedSchedule:
    """schedule_workload under package_start "carry": every package's order (given, submit order, or
    METL's on the platform the packages before it leave), then the whole workload as one chain."""
    used: list[np.ndarray] = []
    for p, sl in enumerate(slices):
        if orders is not None:
            used.append(np.asarray(orders[p], dtype=np.int64))
        elif method == "metl":
            carry = carry_over(jobs, platform, options, method, used)
            used.append(PackageProblem(jobs.take(sl), platform, options, method, carry).metl_order())
        else:
            used.append(np.arange(sl.stop - sl.start, dtype=np.int64))
    s, f, spj, _jk, aptr, anodes, sq = _chain(jobs, platform, options, method, used)
    pkg = np.empty(len(jobs), dtype=np.int64)
    mk = np.empty(len(slices))
    release = 0.0
    for p, sl in enumerate(slices):
        pkg[sl] = p
        mk[p] = f[sl].max() - release
        release = float(s[sl].max())
    return FederatedSchedule(jobs, platform, options, method, package_size, pkg, s, f, spj, aptr, anodes,
                             np.repeat(s, jobs.tasks), sq, mk, tuple(used))
