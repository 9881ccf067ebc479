"""Per-pass kernels: queue maintenance, queue orders and the four dispatch rules.

Every function works on the ``Jobs``/``Site``/``GreedyParams`` bundles of :mod:`.state` and the
current time ``now``. Contracts (what a multi-site or fuzzy-rule engine may rely on):

- :func:`release_finished` (J, S, now): end every running job with finish <= now, free its
  processors; marks the conservative profile dirty when a job ended before its estimated end.
- :func:`enqueue` (J, S, j): job j joins the waiting queue at its place in the site's static order.
- :func:`schedule_pass` (J, S, G, dispatch, order, now) -> started: ONE scheduling pass with the
  given dispatch rule and queue order *codes* (they may differ from pass to pass: the queue is
  re-sorted and the conservative profile rebuilt when they change). Started jobs get
  ``S.start/S.finish``; zero-length jobs are released at the end of the pass.
- the rules ``fcfs_pass``/``list_pass``/``easy_pass``/``conservative_pass`` (J, S, view, now):
  start jobs of ``view`` (waiting jobs in queue order) with :func:`start_job`; they do not
  compact the queue (``schedule_pass`` does).

Semantics: genetic-fuzzy-rule-based-scheduling Section 2.1 and greedy-es-sorting-criteria
Sections II-A, III-A; see :mod:`schedlab.sim.engine` for the event loop.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .heap import heap_pop, heap_push, heap_remove
from .profile import build_profile, drop_past, reserve
from .state import (
    CONSERVATIVE, DIRTY, EASY, EST_N, FCFS, FIN_N, FREE, KILL, LASTDISP, LIST, NQ, O_GREEDY, QORDER, SEG,
)


# ---------------------------------------------------------------------------- running set
@njit
def start_job(J, S, j, now):
    """Start job j now: processors, finish time, the two heaps, and the pass mark."""
    S.start[j] = now
    S.finish[j] = now + J.proc[j]
    S.estend[j] = now + J.est[j]
    S.ctr[FREE] -= J.width[j]
    S.ctr[FIN_N] = heap_push(S.fin_heap, S.fin_pos, S.ctr[FIN_N], S.finish, j)
    S.ctr[EST_N] = heap_push(S.est_heap, S.est_pos, S.ctr[EST_N], S.estend, j)
    S.mark[j] = 1


@njit
def release_finished(J, S, now):
    """End every running job whose finish is <= now; returns how many ended."""
    count = 0
    while S.ctr[FIN_N] > 0 and S.finish[S.fin_heap[0]] <= now:
        j, nfin = heap_pop(S.fin_heap, S.fin_pos, S.ctr[FIN_N], S.finish)
        S.ctr[FIN_N] = nfin
        S.ctr[EST_N] = heap_remove(S.est_heap, S.est_pos, S.ctr[EST_N], S.estend, j)
        S.ctr[FREE] += J.width[j]
        if S.finish[j] != S.estend[j]:
            S.ctr[DIRTY] = 1  # ended before its estimate: reservations change
        count += 1
    return count


# ---------------------------------------------------------------------------- queue
@njit(inline="always")
def _before(key, a, b):
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit
def enqueue(J, S, j):
    """Job j joins the queue at its place in the static order ``S.ctr[QORDER]`` (binary search)."""
    nq = S.ctr[NQ]
    key = J.keys[S.ctr[QORDER]]
    lo, hi = 0, nq
    while lo < hi:
        mid = (lo + hi) >> 1
        if _before(key, S.queue[mid], j):
            lo = mid + 1
        else:
            hi = mid
    for i in range(nq, lo, -1):
        S.queue[i] = S.queue[i - 1]
    S.queue[lo] = j
    S.ctr[NQ] = nq + 1
    S.resv[j] = np.nan
    if lo < nq:
        S.ctr[DIRTY] = 1  # placed before waiting jobs: their reservations may move


@njit
def resort_queue(J, S, order):
    """Re-sort the waiting queue by static order ``order`` (when the order changes per pass)."""
    nq = S.ctr[NQ]
    q = S.queue[:nq].copy()
    q = q[np.argsort(q, kind="mergesort")]  # ties by job number
    k = np.empty(nq, dtype=np.float64)
    for i in range(nq):
        k[i] = J.keys[order, q[i]]
    perm = np.argsort(k, kind="mergesort")
    for i in range(nq):
        S.queue[i] = q[perm[i]]
    S.ctr[QORDER] = order
    S.ctr[DIRTY] = 1


@njit
def greedy_value(J, G, c, j, now):
    """Criterion f1..f4 of class c for job j at time now (greedy-es-sorting-criteria, III-A)."""
    g = J.group[j]
    gi = g - 1 if 1 <= g <= 5 else 4  # group 0 (unassigned) uses group 5's parameters
    wait = now - J.submit[j]
    p = J.est[j]
    m = J.width[j]
    kind = G.kind[c]
    a = G.a[c]
    b = G.b[c]
    K = G.K[c, gi]
    w = G.w[c, gi]
    if kind == 1:
        return w * (K + a * wait / p + b * p / m)
    if kind == 2:
        return K + a * wait + b * p * m
    if kind == 3:
        return w * (K + a * wait / (p * m))
    return w * (K + a * wait + b * p / m)


@njit
def greedy_view(J, S, G, now):
    """The waiting queue sorted by decreasing criterion value at ``now`` (ties: submit order)."""
    nq = S.ctr[NQ]
    seg = S.ctr[SEG]
    while seg + 1 < G.seg_t.shape[0] and G.seg_t[seg + 1] <= now:
        seg += 1
    S.ctr[SEG] = seg
    c = G.seg_c[seg]
    vals = S.vals[:nq]
    for i in range(nq):
        vals[i] = -greedy_value(J, G, c, S.queue[i], now)
    perm = np.argsort(vals, kind="mergesort")  # the queue is in submit order: stable = ties by it
    view = S.ordered[:nq]
    for i in range(nq):
        view[i] = S.queue[perm[i]]
    return view


# ---------------------------------------------------------------------------- dispatch rules
@njit
def fcfs_pass(J, S, view, now):
    """FCFS: start the head while it fits; nothing else."""
    i = 0
    while i < view.shape[0] and J.width[view[i]] <= S.ctr[FREE]:
        start_job(J, S, view[i], now)
        i += 1
    return i


@njit
def list_pass(J, S, view, now):
    """List scheduling: start every job, in queue order, that fits now."""
    started = 0
    for i in range(view.shape[0]):
        j = view[i]
        if J.width[j] <= S.ctr[FREE]:
            start_job(J, S, j, now)
            started += 1
    return started


@njit
def head_reservation(J, S, need, now):
    """(shadow, extra): earliest time ``need`` processors are free by the running jobs' estimated
    ends (max(start + \\bar p, now)), and the processors left spare then."""
    avail = S.ctr[FREE]
    if avail >= need:
        return now, avail - need
    an = heap_push(S.aux, S.aux_pos, 0, S.estend, S.est_heap[0])
    shadow = np.inf
    found = False
    while an > 0:  # best-first walk of the estimated-end heap: visits O(jobs needed)
        j, an = heap_pop(S.aux, S.aux_pos, an, S.estend)
        e = max(S.estend[j], now)
        if found and e > shadow:
            break
        avail += J.width[j]
        if not found and avail >= need:
            found = True
            shadow = e
        p = S.est_pos[j]
        for c in (2 * p + 1, 2 * p + 2):
            if c < S.ctr[EST_N]:
                an = heap_push(S.aux, S.aux_pos, an, S.estend, S.est_heap[c])
    return shadow, avail - need


@njit
def easy_pass(J, S, view, now):
    """EASY: start the head while it fits; then backfill later jobs that fit now and end (by
    their estimate) by the head's reservation or use only the processors it leaves spare."""
    nq = view.shape[0]
    i = 0
    while i < nq and J.width[view[i]] <= S.ctr[FREE]:
        start_job(J, S, view[i], now)
        i += 1
    if i >= nq:
        return i
    started = i
    shadow, extra = head_reservation(J, S, J.width[view[i]], now)
    for k in range(i + 1, nq):
        j = view[k]
        w = J.width[j]
        if w <= S.ctr[FREE]:
            if now + J.est[j] <= shadow:
                start_job(J, S, j, now)
                started += 1
            elif w <= extra:
                start_job(J, S, j, now)
                extra -= w
                started += 1
    return started


@njit
def conservative_pass(J, S, view, now):
    """Conservative backfilling: every waiting job, in queue order, holds a reservation at its
    earliest start that delays no earlier one; jobs reserved at ``now`` start."""
    nq = view.shape[0]
    if S.ctr[KILL] == 0 and S.ctr[EST_N] > 0 and S.estend[S.est_heap[0]] < now:
        S.ctr[DIRTY] = 1  # a job overran its estimate: its estimated end moves with now
    if S.ctr[DIRTY] == 0:
        for i in range(nq):
            if S.resv[view[i]] < now:
                S.ctr[DIRTY] = 1
                break
    if S.ctr[DIRTY] != 0:
        build_profile(J, S, now)
        for i in range(nq):
            j = view[i]
            S.resv[j] = reserve(S, J.width[j], J.est[j])
        S.ctr[DIRTY] = 0
    else:
        drop_past(S, now)
        for i in range(nq):
            j = view[i]
            if np.isnan(S.resv[j]):
                S.resv[j] = reserve(S, J.width[j], J.est[j])
    started = 0
    for i in range(nq):
        j = view[i]
        if S.resv[j] == now:
            if J.width[j] <= S.ctr[FREE]:
                start_job(J, S, j, now)
                started += 1
            else:
                S.ctr[DIRTY] = 1  # only when an overrun job holds the processors (no killing)
    return started


# ---------------------------------------------------------------------------- one pass
@njit
def schedule_pass(J, S, G, dispatch, order, now):
    """One scheduling pass at ``now`` with dispatch rule and queue order codes; returns #started."""
    nq = S.ctr[NQ]
    if dispatch != S.ctr[LASTDISP]:
        S.ctr[DIRTY] = 1
        S.ctr[LASTDISP] = dispatch
    if nq == 0:
        return 0
    if order == O_GREEDY:
        if S.ctr[QORDER] != 0:
            resort_queue(J, S, 0)
        view = greedy_view(J, S, G, now)
        S.ctr[DIRTY] = 1
    else:
        if S.ctr[QORDER] != order:
            resort_queue(J, S, order)
        view = S.queue[:nq]
    if dispatch == FCFS:
        started = fcfs_pass(J, S, view, now)
    elif dispatch == LIST:
        started = list_pass(J, S, view, now)
    elif dispatch == EASY:
        started = easy_pass(J, S, view, now)
    else:
        started = conservative_pass(J, S, view, now)
    if started > 0:
        k = 0
        for i in range(nq):
            j = S.queue[i]
            if S.mark[j] != 0:
                S.mark[j] = 0
            else:
                S.queue[k] = j
                k += 1
        S.ctr[NQ] = k
        release_finished(J, S, now)  # zero-length jobs end at the end of the pass
    return started
