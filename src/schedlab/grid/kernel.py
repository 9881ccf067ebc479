"""Compiled event loop of a grid of K independent EASY sites with job exchange (none, POOL, RQ).

nsga2-grid-performance-bounds, Sections 3 and 5.3. Every site k is one single-site engine state
(:func:`schedlab.sim.state.new_site`, m_k processors) over the shared ``Jobs`` bundle, and runs
the engine's own EASY pass (:func:`schedlab.sim.dispatch.schedule_pass`) on its own queue; each
job arrives at its origin site. Jobs are killed at their estimate: p_j = min(runtime, estimate).

Event semantics are the single-site engine's: at one timestamp all finishes are processed (every
site), then all arrivals, then one scheduling round over the sites in index order 0..K-1; a job
of length 0 holds its processors during the pass that starts it, and its finish is an event at
the same timestamp (another round follows).

One scheduling round, by exchange policy:

- ``NONE`` (0): every site with a finish or an arrival at this instant runs one EASY pass on its
  queue (a pass on an unchanged site starts nothing, so this equals simulating each site alone).
- ``POOL`` (1), Grimme et al. as read in Section 5.3: every site runs its EASY pass; then each
  job that arrived at this instant and is still waiting is published to the central pool (pool
  order = submit order) while it stays in its origin's queue; then every site k in order walks
  the pool and starts each pooled job of another origin that fits k's free processors now and
  does not delay k's own head reservation (it ends, by its estimate, no later than the head's
  shadow time, or it uses only the head's extra processors, which it then consumes; a site with
  an empty queue takes anything that fits). A started pooled job leaves the pool and its origin's
  queue.
- ``RQ`` (2), the request heuristic, Section 5.3: for each site k in order: EASY pass; then with
  a virtual budget b = free processors of k, iterate over the other sites' queues (site order,
  queue order) and move every job with m_j <= b to the end of k's queue (b -= m_j; the real free
  count is untouched); if any job moved, EASY runs again on k. A moved job belongs to k's queue
  from then on (it may be requested away again by another site later).

``limit`` (policy NONE only): the loop stops early once a site's lower bound of AWRT_k,
sum_{started} p m (C - r) / sum_{all jobs of k} p m, exceeds ``limit`` (checked about 64 times per run, every n/32 events).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from ..sim.dispatch import enqueue, head_reservation, release_finished, schedule_pass, start_job
from ..sim.state import (
    EASY, EST, FIN_H, FIN_N, FINISH, FREE, GSYNC, MARK, NQ, O_SUBMIT, PROC, QUEUE, RESV, START, SUBMIT, WIDTH,
    greedy_params, make_jobs, new_site,
)

NONE, POOL, RQ = 0, 1, 2
EXCHANGES: dict[str, int] = {"none": NONE, "pool": POOL, "rq": RQ}


# the few engine-state fields the grid loop reads (layout of schedlab.sim.state)
@njit(inline="always")
def _width(J, j):
    return J.i[WIDTH, j]


@njit(inline="always")
def _est(J, j):
    return J.f[EST, j]


@njit(inline="always")
def _start_of(S, j):
    return S.f[START, j]


@njit
def _dequeue(S, j):
    """Remove waiting job j from site S's queue (keeping the order of the others)."""
    S.ctr[GSYNC] = -1  # the greedy heaps (single-site fast path) no longer match the queue
    nq = S.ctr[NQ]
    k = 0
    for i in range(nq):
        q = S.i[QUEUE, i]
        if q != j:
            S.i[QUEUE, k] = q
            k += 1
    S.ctr[NQ] = k


@njit
def _append(S, j):
    """Job j joins the END of site S's queue (RQ). Later arrivals still go behind it: they have
    the highest job number so far, so the engine's ``enqueue`` places them last."""
    S.i[QUEUE, S.ctr[NQ]] = j
    S.ctr[NQ] += 1
    S.f[RESV, j] = np.nan


@njit
def _started(sites, j):
    for S in sites:
        if not np.isnan(_start_of(S, j)):
            return True
    return False


@njit
def _over_limit(J, sites, origin, weight, limit):
    """True when some site's AWRT lower bound (started jobs only) exceeds ``limit``."""
    K = len(sites)
    num = np.zeros(K)
    for j in range(J.f.shape[1]):
        k = origin[j]
        s = _start_of(sites[k], j)
        if not np.isnan(s):
            num[k] += J.f[PROC, j] * _width(J, j) * (s + J.f[PROC, j] - J.f[SUBMIT, j])
    for k in range(K):
        if num[k] > limit * weight[k]:
            return True
    return False


@njit
def _pool_round(J, sites, G, origin, pool, plen, first, last, now):
    """POOL: local EASY passes, publish this instant's unstarted arrivals, then pool passes."""
    K = len(sites)
    for k in range(K):
        schedule_pass(J, sites[k], G, EASY, O_SUBMIT, now)
    for j in range(first, last):
        if not _started(sites, j):
            pool[plen] = j
            plen += 1
    for k in range(K):
        S = sites[k]
        if S.ctr[FREE] == 0 or plen == 0:
            continue
        blocked = S.ctr[NQ] > 0
        shadow = np.inf
        extra = 0
        if blocked:
            shadow, extra = head_reservation(J, S, _width(J, S.i[QUEUE, 0]), now)
        keep = 0
        for idx in range(plen):
            j = pool[idx]
            if _started(sites, j):
                continue
            w = _width(J, j)
            if origin[j] != k and w <= S.ctr[FREE]:
                ok = False
                if not blocked or now + _est(J, j) <= shadow:
                    ok = True
                elif w <= extra:
                    ok = True
                    extra -= w
                if ok:
                    start_job(J.f, J.i, S.ctr, S.i, S.f, j, now)
                    S.i[MARK, j] = 0
                    _dequeue(sites[origin[j]], j)
                    continue
            pool[keep] = j
            keep += 1
        plen = keep
    return plen


@njit
def _rq_round(J, sites, G, now):
    """RQ: per site, EASY pass, request remote jobs that fit a virtual budget, EASY again."""
    K = len(sites)
    for k in range(K):
        S = sites[k]
        schedule_pass(J, S, G, EASY, O_SUBMIT, now)
        budget = S.ctr[FREE]
        moved = False
        for other in range(K):
            if other == k or budget == 0:
                continue
            R = sites[other]
            keep = 0
            for i in range(R.ctr[NQ]):
                j = R.i[QUEUE, i]
                if _width(J, j) <= budget:
                    _append(S, j)
                    budget -= _width(J, j)
                    moved = True
                else:
                    R.i[QUEUE, keep] = j
                    keep += 1
            R.ctr[NQ] = keep
        if moved:
            schedule_pass(J, S, G, EASY, O_SUBMIT, now)


@njit
def _grid_loop(J, sites, G, origin, policy, limit, weight):
    """The event loop; returns True when stopped early by ``limit``."""
    n = J.f.shape[1]
    K = len(sites)
    dirty = np.zeros(K, dtype=np.bool_)
    pool = np.empty(max(n, 1), dtype=np.int64)
    plen = 0
    check_every = max(n // 32, 1)  # events (<= 2n): about 64 checks per run
    events = 0
    next_check = check_every
    i = 0
    while True:
        now = np.inf
        if i < n:
            now = J.f[SUBMIT, i]
        for S in sites:
            if S.ctr[FIN_N] > 0:
                t = S.f[FINISH, S.i[FIN_H, 0]]
                if t < now:
                    now = t
        if now == np.inf:
            return False
        for k in range(K):
            if release_finished(J, sites[k], now) > 0:
                dirty[k] = True
        first = i
        while i < n and J.f[SUBMIT, i] <= now:
            k = origin[i]
            enqueue(J, sites[k], i)
            dirty[k] = True
            i += 1
        if policy == NONE:
            for k in range(K):
                if dirty[k]:
                    schedule_pass(J, sites[k], G, EASY, O_SUBMIT, now)
                    dirty[k] = False
            events += 1
            if limit < np.inf and events >= next_check:
                next_check += check_every
                if _over_limit(J, sites, origin, weight, limit):
                    return True
        elif policy == POOL:
            plen = _pool_round(J, sites, G, origin, pool, plen, first, i, now)
        else:
            _rq_round(J, sites, G, now)


@njit
def _site_alone(J, S, G, origin, k, limit, weight):
    """Exchange NONE for one site: the single-site event loop over the jobs with origin k.

    Returns True when stopped early because the AWRT lower bound of k exceeded ``limit``.
    """
    n = J.f.shape[1]
    check_every = max(n // 32, 1)
    next_check = check_every
    events = 0
    i = 0
    while i < n and origin[i] != k:
        i += 1
    while i < n or S.ctr[FIN_N] > 0:
        now = np.inf
        if i < n:
            now = J.f[SUBMIT, i]
        if S.ctr[FIN_N] > 0:
            t = S.f[FINISH, S.i[FIN_H, 0]]
            if t < now:
                now = t
        release_finished(J, S, now)
        while i < n and J.f[SUBMIT, i] <= now:
            if origin[i] == k:
                enqueue(J, S, i)
            i += 1
        while i < n and origin[i] != k:
            i += 1
        schedule_pass(J, S, G, EASY, O_SUBMIT, now)
        events += 1
        if limit < np.inf and events >= next_check:
            next_check += check_every
            num = 0.0
            for j in range(n):
                s = S.f[START, j]
                if not np.isnan(s):
                    num += J.f[PROC, j] * J.i[WIDTH, j] * (s + J.f[PROC, j] - J.f[SUBMIT, j])
            if num > limit * weight:
                return True
    return False


def grid_kernel(submit, run, est, procs, origin, site_procs, policy, limit):
    """Simulate the grid; returns (start, site, awrt[K], aborted).

    Jobs must be sorted by submit time (ties: site, then trace order); ``run`` = p_j.
    ``awrt[k]`` is AWRT_k over the jobs executed at k (nan for a site without weight); when
    ``aborted`` (policy NONE with finite ``limit``) it holds lower bounds from the started jobs.
    """
    n = submit.shape[0]
    origin = np.ascontiguousarray(origin, dtype=np.int64)
    J = make_jobs(submit, est, run, procs, np.zeros(n, dtype=np.int64))
    G = greedy_params(None)
    sites = tuple(new_site(n, int(m), True, O_SUBMIT) for m in site_procs)
    proc = np.asarray(run, dtype=np.float64)
    area = proc * np.asarray(procs, dtype=np.float64)
    K = len(sites)
    weight = np.bincount(origin, weights=area, minlength=K).astype(np.float64)
    if policy == NONE:  # sites are independent: one single-site loop each
        aborted = False
        for k, S in enumerate(sites):
            if weight[k] > 0 or np.any(origin == k):
                aborted = bool(_site_alone(J, S, G, origin, k, float(limit), weight[k]))
                if aborted:
                    break
    else:
        aborted = bool(_grid_loop(J, sites, G, origin, int(policy), np.inf, weight))
    start = np.full(n, np.nan)
    site = np.full(n, -1, dtype=np.int64)
    for k, S in enumerate(sites):
        s = S.f[START]
        done = ~np.isnan(s)
        start[done] = s[done]
        site[done] = k
    awrt = np.full(K, np.nan)
    ok = site >= 0
    num = np.bincount(site[ok], weights=area[ok] * (start[ok] + proc[ok] - submit[ok]), minlength=K)
    den = weight if aborted else np.bincount(site[ok], weights=area[ok], minlength=K)
    pos = den > 0
    awrt[pos] = num[pos] / den[pos]
    return start, site, awrt, aborted
