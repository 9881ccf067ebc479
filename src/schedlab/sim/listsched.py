"""Offline, clairvoyant list scheduler: a priority order of jobs -> a feasible rigid schedule.

The decoder of the offline Pareto bound (greedy-es-sorting-criteria Section V-C, "an approximate
Pareto front of feasible schedules that was generated offline from the workload traces"): the
jobs are taken in priority order and each is placed at the earliest time t >= its submit time
at which its processors are free for its whole processing time p_j, given the jobs placed
before it (and never moving them). It knows every p_j in advance (offline), so it needs no
estimates and no reservations: the schedule is feasible by construction (never more than m
processors, no start before submit). A zero-length job needs its processors free at its start
(the shared validator's rule 4), so it holds them for the instant [t, next float after t): a job
placed later cannot cover t with them. p_j is the time the job actually runs in the online
schedules it is compared with: ``min(runtime, estimate)`` (jobs killed at their estimate,
``killed=True``, the simulator's default) or ``runtime``.

Every order gives a feasible schedule and every feasible schedule without idle gaps that
could be closed by moving a job earlier (an "active" schedule) is the result of some order
(sort its jobs by start time), so a search over orders covers the schedules worth having.

The free-processor profile is a step function kept in two arrays (breakpoints, free processors
from each breakpoint on, the last step free to infinity). Steps before the earliest submit time
among the jobs still to be placed can never be used again and are dropped from the front, so a
near-submit order keeps the profile as short as an online simulator's.
"""

from __future__ import annotations

import numpy as np

from .._config import njit


@njit
def _insert(T, F, size, idx, t, f):
    for x in range(size, idx, -1):
        T[x] = T[x - 1]
        F[x] = F[x - 1]
    T[idx] = t
    F[idx] = f
    return size + 1


@njit
def list_schedule_kernel(order, submit, p, width, m):
    """Start times (indexed by job) of the list schedule of ``order`` (see module docstring)."""
    n = order.size
    start = np.empty(n, dtype=np.float64)
    if n == 0:
        return start
    sufmin = np.empty(n + 1, dtype=np.float64)
    sufmin[n] = np.inf
    for i in range(n - 1, -1, -1):
        s = submit[order[i]]
        sufmin[i] = s if s < sufmin[i + 1] else sufmin[i + 1]
    cap = 2 * n + 2
    T = np.empty(cap, dtype=np.float64)
    F = np.empty(cap, dtype=np.int64)
    T[0] = sufmin[0]
    F[0] = m
    head = 0
    size = 1
    for i in range(n):
        j = order[i]
        s = submit[j]
        w = width[j]
        d = p[j]
        while head + 1 < size and T[head + 1] <= sufmin[i]:
            head += 1
        # k: the step containing s (last breakpoint <= s)
        lo = head
        hi = size - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if T[mid] <= s:
                lo = mid
            else:
                hi = mid - 1
        k = lo
        t = s if s > T[k] else T[k]
        while True:
            q = k
            ok = True
            while q < size and (q == k or T[q] < t + d):
                if F[q] < w:
                    ok = False
                    break
                q += 1
            if ok:
                break
            k = q + 1  # the step after the one without room: its start is the next candidate
            t = T[k]
        start[j] = t
        if w == 0:
            continue
        # split at t (inside step k) and at t + d, then take w processors in between; a zero-length
        # job holds its processors for the instant t (up to the next float), as the validator wants
        if T[k] < t:
            size = _insert(T, F, size, k + 1, t, F[k])
            k += 1
        e = t + d if d > 0.0 else np.nextafter(t, np.inf)
        q = k
        while q + 1 < size and T[q + 1] <= e:
            q += 1
        if T[q] < e:
            size = _insert(T, F, size, q + 1, e, F[q])
        q = k
        while q < size and T[q] < e:
            F[q] -= w
            q += 1
    return start


def processing_times(workload, *, killed: bool = True) -> np.ndarray:
    """p_j: ``min(runtime, estimate)`` (killed at the estimate, when one is known) or ``runtime``."""
    runtime = np.asarray(workload.runtime, dtype=np.float64)
    if not killed:
        return runtime
    estimate = np.asarray(workload.estimate, dtype=np.float64)
    return np.where(estimate >= 0, np.minimum(runtime, estimate), runtime)


def list_schedule(workload, machine, order, *, killed: bool = True):
    """The :class:`~schedlab.sim.model.Schedule` that placing ``workload``'s jobs in ``order``
    (job indices, a permutation) at their earliest feasible times gives; ``strategy`` None."""
    from .model import Schedule

    order = np.asarray(order, dtype=np.int64)
    n = len(workload)
    if order.shape != (n,) or (n and not np.array_equal(np.sort(order), np.arange(n))):
        raise ValueError(f"order must be a permutation of the {n} jobs")
    p = processing_times(workload, killed=killed)
    start = list_schedule_kernel(order, np.asarray(workload.submit, dtype=np.float64), p,
                                 np.asarray(workload.procs, dtype=np.int64), int(machine.procs))
    return Schedule(workload, machine, None, start, start + p, killed=killed)
