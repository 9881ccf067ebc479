"""Compiled event loop of a grid of K independent EASY sites with job exchange (none, POOL, RQ).

nsga2-grid-performance-bounds, Sections 3 and 5.3. Every site k has ``site_procs[k]`` identical
processors and runs EASY on its own queue (submit order); each job arrives at its origin site.
Jobs are killed at their estimate: ``run`` is the processing time min(p_j, estimate_j).

Event semantics (as in the single-site engine): at one timestamp all finishes are processed,
then all arrivals, then one scheduling round over the sites in index order 0..K-1.

One scheduling round, by exchange policy:

- ``NONE`` (0): every site whose state changed runs one EASY pass on its own queue.
- ``POOL`` (1), Grimme et al. as read in Section 5.3: every site runs its EASY pass; then each
  job that arrived at this instant and is still waiting is published to the central pool (pool
  order = submit order) while it stays in its origin's queue; then every site k with free
  processors walks the pool in order and starts each pooled job of another origin that fits
  its free processors now and does not delay k's own EASY head reservation (it ends by the
  head's shadow time or uses only the head's extra processors). A pooled job leaves the pool
  and its origin queue when any site starts it.
- ``RQ`` (2), the request heuristic, Section 5.3: for each site k in order: EASY pass; then with
  a virtual budget b = free processors of k, iterate over the other sites' queues (site order,
  queue order) and move every job with procs <= b to the end of k's queue (b -= procs; the
  real free count is untouched); if any job moved, EASY runs again on k. A moved job belongs
  to k's queue from then on (it may be requested away again later).

EASY pass (Lifka; Section 4.6): start queue heads while they fit; for a blocked head compute its
shadow time (earliest estimated end at which enough processors are free, with all running jobs
ending at that same instant counted) and the extra processors left then; then in queue order
backfill each job that fits now and either ends (by its estimate) no later than the shadow
time, or uses at most the extra processors (extra -= procs in that case).

``limit`` (policy NONE only): abort as soon as a site's running lower bound of AWRT_k,
sum_{finished so far} p m (C - r) / sum_{all jobs of k} p m, exceeds ``limit`` (Section 4.5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE, POOL, RQ = 0, 1, 2
EXCHANGES: dict[str, int] = {"none": NONE, "pool": POOL, "rq": RQ}


@njit(cache=True)
def _heap_push(hkey, hjob, size, key, job):
    i = size
    hkey[i] = key
    hjob[i] = job
    while i > 0:
        parent = (i - 1) // 2
        if hkey[parent] < hkey[i] or (hkey[parent] == hkey[i] and hjob[parent] < hjob[i]):
            break
        hkey[parent], hkey[i] = hkey[i], hkey[parent]
        hjob[parent], hjob[i] = hjob[i], hjob[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _heap_pop(hkey, hjob, size):
    job = hjob[0]
    size -= 1
    hkey[0] = hkey[size]
    hjob[0] = hjob[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        right = left + 1
        if right < size and (hkey[right] < hkey[left] or (hkey[right] == hkey[left] and hjob[right] < hjob[left])):
            child = right
        if hkey[i] < hkey[child] or (hkey[i] == hkey[child] and hjob[i] <= hjob[child]):
            break
        hkey[child], hkey[i] = hkey[i], hkey[child]
        hjob[child], hjob[i] = hjob[i], hjob[child]
        i = child
    return job, size


@njit(cache=True)
def _compact(queue, qlen, k, start, qsite):
    """Drop from queue k every job started meanwhile or moved to another queue."""
    n = 0
    for idx in range(qlen[k]):
        j = queue[k, idx]
        if start[j] < 0.0 and qsite[j] == k:
            queue[k, n] = j
            n += 1
    qlen[k] = n


@njit(cache=True)
def _shadow(k, need, t, free, running, rlen, start, est, procs):
    """(shadow time, extra processors) of a head needing ``need`` processors on site k."""
    r = rlen[k]
    ends = np.empty(r)
    widths = np.empty(r, dtype=np.int64)
    for idx in range(r):
        j = running[k, idx]
        ends[idx] = start[j] + est[j]
        widths[idx] = procs[j]
    order = np.argsort(ends, kind="mergesort")
    avail = free[k]
    for pos in range(r):
        o = order[pos]
        avail += widths[o]
        if avail >= need and (pos + 1 == r or ends[order[pos + 1]] > ends[o]):
            return max(ends[o], t), avail - need
    return np.inf, 0  # unreachable for jobs no wider than the site


@njit(cache=True)
def _easy_pass(k, t, st):
    """One EASY pass on site k's queue; returns (head blocked?, shadow, extra) afterwards."""
    (queue, qlen, qsite, start, site, run, est, procs, submit, free, running, rlen, rpos,
     hkey, hjob, hsize, num, weight, limit, aborted) = st
    _compact(queue, qlen, k, start, qsite)
    h = 0
    while h < qlen[k] and procs[queue[k, h]] <= free[k]:
        _start(queue[k, h], k, t, st)
        h += 1
    blocked = h < qlen[k]
    shadow = np.inf
    extra = 0
    if blocked:
        shadow, extra = _shadow(k, procs[queue[k, h]], t, free, running, rlen, start, est, procs)
        for idx in range(h + 1, qlen[k]):
            if free[k] == 0:
                break
            j = queue[k, idx]
            if procs[j] <= free[k]:
                if t + est[j] <= shadow:
                    _start(j, k, t, st)
                elif procs[j] <= extra:
                    _start(j, k, t, st)
                    extra -= procs[j]
    _compact(queue, qlen, k, start, qsite)
    return blocked, shadow, extra


@njit(cache=True)
def _start(j, k, t, st):
    (queue, qlen, qsite, start, site, run, est, procs, submit, free, running, rlen, rpos,
     hkey, hjob, hsize, num, weight, limit, aborted) = st
    start[j] = t
    site[j] = k
    free[k] -= procs[j]
    running[k, rlen[k]] = j
    rpos[j] = rlen[k]
    rlen[k] += 1
    hsize[0] = _heap_push(hkey, hjob, hsize[0], t + run[j], j)
    num[k] += run[j] * procs[j] * (t + run[j] - submit[j])
    if num[k] > limit * weight[k]:
        aborted[0] = True


@njit(cache=True)
def grid_kernel(submit, run, est, procs, origin, site_procs, policy, limit):
    """Simulate the grid; returns (start, site, awrt_lower_bound_or_awrt[K], aborted).

    Jobs must be sorted by submit time (ties: site, then trace order). ``awrt`` is AWRT_k over
    the jobs executed at k (nan for a site without weight); when ``aborted`` it holds the
    lower bounds reached at the abort.
    """
    n = submit.shape[0]
    K = site_procs.shape[0]
    start = np.full(n, -1.0)
    site = np.full(n, -1, dtype=np.int64)
    queue = np.empty((K, max(n, 1)), dtype=np.int64)
    qlen = np.zeros(K, dtype=np.int64)
    qsite = origin.copy()
    free = site_procs.copy()
    running = np.empty((K, max(site_procs.max(), 1)), dtype=np.int64)
    rlen = np.zeros(K, dtype=np.int64)
    rpos = np.zeros(n, dtype=np.int64)
    hkey = np.empty(max(n, 1))
    hjob = np.empty(max(n, 1), dtype=np.int64)
    hsize = np.zeros(1, dtype=np.int64)
    num = np.zeros(K)
    weight = np.zeros(K)
    for j in range(n):
        weight[origin[j]] += run[j] * procs[j]
    if policy != NONE:
        limit = np.inf
    aborted = np.zeros(1, dtype=np.bool_)
    st = (queue, qlen, qsite, start, site, run, est, procs, submit, free, running, rlen, rpos,
          hkey, hjob, hsize, num, weight, limit, aborted)
    pool = np.empty(max(n, 1), dtype=np.int64)
    plen = 0
    dirty = np.zeros(K, dtype=np.bool_)
    blocked = np.zeros(K, dtype=np.bool_)
    shadow = np.zeros(K)
    extra = np.zeros(K, dtype=np.int64)
    i = 0
    while i < n or hsize[0] > 0:
        if hsize[0] > 0 and (i >= n or hkey[0] <= submit[i]):
            t = hkey[0]
        else:
            t = submit[i]
        while hsize[0] > 0 and hkey[0] <= t:
            j, hsize[0] = _heap_pop(hkey, hjob, hsize[0])
            k = site[j]
            free[k] += procs[j]
            last = running[k, rlen[k] - 1]
            running[k, rpos[j]] = last
            rpos[last] = rpos[j]
            rlen[k] -= 1
            dirty[k] = True
        first = i
        while i < n and submit[i] <= t:
            k = origin[i]
            queue[k, qlen[k]] = i
            qlen[k] += 1
            dirty[k] = True
            i += 1
        if policy == NONE:
            for k in range(K):
                if dirty[k]:
                    _easy_pass(k, t, st)
                    dirty[k] = False
            if aborted[0]:
                break
        elif policy == POOL:
            for k in range(K):
                blocked[k], shadow[k], extra[k] = _easy_pass(k, t, st)
            for j in range(first, i):
                if start[j] < 0.0:
                    pool[plen] = j
                    plen += 1
            for k in range(K):
                if free[k] == 0:
                    continue
                keep = 0
                for idx in range(plen):
                    j = pool[idx]
                    if start[j] >= 0.0:
                        continue
                    if origin[j] != k and procs[j] <= free[k]:
                        if not blocked[k] or t + est[j] <= shadow[k]:
                            _start(j, k, t, st)
                            continue
                        if procs[j] <= extra[k]:
                            _start(j, k, t, st)
                            extra[k] -= procs[j]
                            continue
                    pool[keep] = j
                    keep += 1
                plen = keep
        else:  # RQ
            for k in range(K):
                _easy_pass(k, t, st)
                budget = free[k]
                moved = False
                for other in range(K):
                    if other == k or budget == 0:
                        continue
                    _compact(queue, qlen, other, start, qsite)
                    for idx in range(qlen[other]):
                        j = queue[other, idx]
                        if procs[j] <= budget:
                            qsite[j] = k
                            queue[k, qlen[k]] = j
                            qlen[k] += 1
                            budget -= procs[j]
                            moved = True
                            if budget == 0:
                                break
                    _compact(queue, qlen, other, start, qsite)
                if moved:
                    _easy_pass(k, t, st)
    awrt = np.full(K, np.nan)
    if aborted[0]:
        for k in range(K):
            if weight[k] > 0.0:
                awrt[k] = num[k] / weight[k]
        return start, site, awrt, True
    done = np.zeros(K)
    for j in range(n):
        done[site[j]] += run[j] * procs[j]
    for k in range(K):
        if done[k] > 0.0:
            awrt[k] = num[k] / done[k]
    return start, site, awrt, False
