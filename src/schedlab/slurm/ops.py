"""The operations of the ``--policy slurm`` state (:mod:`schedlab.slurm.kernel`): the fair-share and
multifactor priority (:func:`_fs_factors`, :func:`_priority`), the queue order (:func:`_order`; kept
between changes of priority with :func:`_insert` and :func:`_compact`),
starting a job on nodes (:func:`_start`), charging its usage (:func:`_charge`) and removing a job
from a list (:func:`_remove`). Both schedulers (the main pass and backfill) change the state only
through these."""

from __future__ import annotations

import numpy as np

from .._config import njit
from .layout import (F_LIMIT, F_RUNTIME, F_STATIC, F_SUBMIT, I_ACCT, I_AOFF, I_CPUS, I_PART, KILL_PERIOD,
                     O_FLOOR_PRIO, O_KILL_PERIODIC, P_MAX_AGE, P_OVER_TIME, P_T0, P_W_AGE, P_W_FS)

#: numba flags of the kernels that only read and write arrays their caller owns (none made, none
#: returned): compiled without numba's reference counting (NRT), whose atomic count updates on
#: each array argument cost far more than these small bodies (a job's priority: about 50 ns a
#: call with them, a few ns without; inline="always" keeps them). A kernel that makes an array
#: needs NRT.
NO_NRT = {"_nrt": False}


@njit
def _fs_factors(usage, shares, fs, fair_tree, damp):
    """Fair-share factor per account (a flat tree: every account a child of root, one leaf each).

    classic (classic_fair_share.shtml): F = 2^(-(UE/S)/d), UE = the account's normalised usage
    (a child of root: its effective usage is its own); S its normalised shares (0 shares: F = 0).
    Fair Tree (fair_tree.shtml): LF = S/U ("infinity if the association has no usage"); accounts
    ranked by LF, equal LF the same rank, the highest rank / count = 1.0."""
    A = usage.shape[0]
    total = usage.sum()
    if not fair_tree:
        for a in range(A):
            s = shares[a]
            if s <= 0.0:
                fs[a] = 0.0
            else:
                ue = usage[a] / total if total > 0.0 else 0.0
                fs[a] = 2.0 ** (-(ue / s) / damp)
        return
    lf = np.empty(A)
    for a in range(A):
        u = usage[a] / total if total > 0.0 else 0.0
        lf[a] = np.inf if u <= 0.0 else shares[a] / u
    order = np.argsort(-lf, kind="mergesort")
    rank = A
    for k in range(A):
        a = order[k]
        if k > 0 and lf[a] != lf[order[k - 1]]:
            rank = A - k
        fs[a] = rank / A


@njit(**NO_NRT)
def _priority(j, now, JF, JI, P, O, fs):
    """Job_priority (priority_multifactor.shtml) = static part (size, partition, QOS: fixed per job)
    + PriorityWeightAge * age + PriorityWeightFairshare * fair-share; a sum below 1 is 1, and with
    priority_rounding='floor-int' it is truncated to an integer (_get_priority_internal). The age
    is counted in whole seconds, as Slurm counts it: ``diff = start_time - accrue_time`` of two
    time_t (priority_multifactor.c _set_priority_factors), so a job submitted at 5.9 s is 79 s
    old at 84.3 s, not 78.4 s (it matters once times carry fractions: slurmctld's millisecond
    log, a controller started mid-second)."""
    p = JF[F_STATIC, j]
    if P[P_W_AGE] > 0.0:
        age = np.floor(now) - np.floor(JF[F_SUBMIT, j])  # time_t seconds: start_time - accrue_time
        if P[P_MAX_AGE] > 0.0:
            p += P[P_W_AGE] * min(max(age, 0.0), P[P_MAX_AGE]) / P[P_MAX_AGE]
    if P[P_W_FS] > 0.0:
        p += P[P_W_FS] * fs[JI[I_ACCT, j]]
    if p < 1.0:
        p = 1.0
    if O[O_FLOOR_PRIO]:
        p = np.floor(p)
    return p


@njit
def _order(pend, npend, prio, tier, JI):
    """The queue order of both schedulers (sort_job_queue2): higher PriorityTier, higher priority,
    earlier submit, smaller job number. ``pend[:npend]`` is kept in job-number order, so a stable
    sort by (tier, priority) gives the rest."""
    key = np.empty(npend)
    for k in range(npend):
        key[k] = _key(pend[k], prio, tier, JI)
    idx = np.argsort(key, kind="mergesort")
    out = np.empty(npend, dtype=np.int64)
    for k in range(npend):
        out[k] = pend[idx[k]]
    return out


@njit(**NO_NRT)
def _key(j, prio, tier, JI):
    """A job's place in :func:`_order`: the lower key first (ties: the smaller job number)."""
    return -(tier[JI[I_PART, j]] * 8589934592.0 + prio[j])


@njit(**NO_NRT)
def _insert(qord, nq, j, prio, tier, JI):
    """Put job j into ``qord[:nq]`` (the queue in :func:`_order`'s order) where :func:`_order` would
    put it, j being a larger job number than all there; returns nq + 1."""
    kj = _key(j, prio, tier, JI)
    lo, hi = 0, nq
    while lo < hi:  # the first position whose key is above kj
        mid = (lo + hi) >> 1
        if _key(qord[mid], prio, tier, JI) <= kj:
            lo = mid + 1
        else:
            hi = mid
    for k in range(nq, lo, -1):
        qord[k] = qord[k - 1]
    qord[lo] = j
    return nq + 1


@njit(**NO_NRT)
def _compact(qord, nq, by):
    """Drop the started jobs (``by`` set) from ``qord[:nq]`` keeping the order; returns their new count."""
    m = 0
    for k in range(nq):
        j = qord[k]
        if by[j] == 0:
            qord[m] = j
            m += 1
    return m


@njit(**NO_NRT)
def _start(j, now, allowed, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish, expend, run, nrun):
    """Start job j now on the lowest-numbered ``allowed`` nodes with free CPUs (CR_CPU: a job may
    take CPUs of several nodes); its finish is start + runtime, or its kill time when its runtime
    passes its limit (+ OverTimeLimit). Returns the new number of running jobs."""
    need = JI[I_CPUS, j]
    off = JI[I_AOFF, j]
    k = 0
    for v in range(free.shape[0]):
        if need == 0:
            break
        if allowed[v] and free[v] > 0:
            take = min(free[v], need)
            free[v] -= take
            need -= take
            anode[off + k] = v
            acnt[off + k] = take
            k += 1
    alen[j] = k
    return _begin(j, now, JF, P, O, start, finish, expend, run, nrun)


@njit(**NO_NRT)
def _begin(j, now, JF, P, O, start, finish, expend, run, nrun):
    """Job j starts now (its nodes already taken): its finish is start + runtime, or its kill time
    when its runtime passes its limit (+ OverTimeLimit). Returns the new number of running jobs."""
    start[j] = now
    lim = JF[F_LIMIT, j]
    run_t = JF[F_RUNTIME, j]
    over = lim + P[P_OVER_TIME]
    if run_t > over:
        if O[O_KILL_PERIODIC]:
            t0 = P[P_T0]
            kill = t0 + np.ceil((now + over - t0) / KILL_PERIOD) * KILL_PERIOD
            finish[j] = min(kill, now + run_t)  # it may complete before the check comes
        else:
            finish[j] = now + over
    else:
        finish[j] = now + run_t
    expend[j] = now + lim
    run[nrun] = j
    return nrun + 1


@njit(**NO_NRT)
def _charge(j, t_from, t_to, JI, usage, start, whole=False):
    """Usage (allocated CPUs * seconds, priority_multifactor.shtml) of job j over [t_from, t_to];
    ``whole`` (usage_clock='time_t'): each bound and the job's start floored to its second, as
    _apply_new_usage subtracts time_t's (SlurmOptions.usage_clock)."""
    if whole:
        t_from, t_to = np.floor(t_from), np.floor(t_to)
        a = max(t_from, np.floor(start[j]))
    else:
        a = max(t_from, start[j])
    if t_to > a:
        usage[JI[I_ACCT, j]] += JI[I_CPUS, j] * (t_to - a)


@njit(**NO_NRT)
def _remove(arr, n, j):
    """Remove j from arr[:n] keeping order; returns n - 1 (n when absent)."""
    p = 0
    while p < n and arr[p] != j:
        p += 1
    if p == n:
        return n
    for q in range(p, n - 1):
        arr[q] = arr[q + 1]
    return n - 1
