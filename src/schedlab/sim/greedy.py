"""The dynamic greedy queue order of greedy-es-sorting-criteria (Section III-A) and its fast path.

Every criterion f1..f4 is linear in the system time t for a fixed job j of user group i: with
r = r_j, p = \\bar p_j (estimate), m = m_j and the class's parameters a, b, w_i, K_i,

    f_k(j, t) = alpha_j * t + beta_j, where
    f1: alpha = w a / p        beta = w (K - a r / p + b p / m)
    f2: alpha = a              beta = K - a r + b p m
    f3: alpha = w a / (p m)    beta = w (K - a r / (p m))
    f4: alpha = w a            beta = w (K - a r + b p / m)

This is the definition the engine, the reference simulator (tests/support/naive.py) and the validator
share, term for term, so that all three round alike. The queue is sorted by decreasing value
v = alpha t + beta, ties by decreasing beta, then by submit order (job number).

Fast path (Greedy = dynamic order + FCFS): FCFS only ever needs the queue's best job. For f2 and
f4, alpha depends on the user group alone, so within one group the order by beta never changes
over time: one binary heap per user group (keyed by -beta) holds the waiting jobs, arrivals are
pushed in O(log n), and a pass compares the five heap tops at time t. The heaps are rebuilt when
the time-of-week class changes (about 600 times a year) or after a pass of another rule. For f1
and f3 (alpha varies per job) a pass scans the queue for its best job.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .heap import heap_pop, heap_push
from .sort import _lt, sort_jobs
from .ops import queue
from .running import start_job
from .state import (
    AUX_P, C_A, C_B, C_K, C_KIND, C_W, EST, FREE, GCLASS, GH0, GN0, GPOS, GROUP, GSYNC, INORD, MARK, NBETA, NORD, NQ, ORDERED,
    SEG, SUBMIT, VALS, WIDTH,
)


@njit(inline="always")
def greedy_coeffs(J, G, c, j):
    """(alpha, beta) of job j under the criterion of time-of-week class c (see module docstring)."""
    g = J.i[GROUP, j]
    gi = g - 1 if 1 <= g <= 5 else 4  # group 0 (unassigned) uses group 5's parameters
    r = J.f[SUBMIT, j]
    p = J.f[EST, j]
    m = np.float64(J.i[WIDTH, j])
    P = G.p
    kind = P[c, C_KIND]
    a = P[c, C_A]
    b = P[c, C_B]
    K = P[c, C_K + gi]
    w = P[c, C_W + gi]
    if kind == 1:
        return w * a / p, w * (K - a * r / p + b * p / m)
    if kind == 2:
        return a, K - a * r + b * p * m
    if kind == 3:
        return w * a / (p * m), w * (K - a * r / (p * m))
    return w * a, w * (K - a * r + b * p / m)


@njit(inline="always")
def _before(v1, b1, j1, v2, b2, j2):
    """True when (value v1, beta b1, job j1) comes before (v2, b2, j2) in the greedy queue."""
    return v1 > v2 or (v1 == v2 and (b1 > b2 or (b1 == b2 and j1 < j2)))


@njit
def current_class(S, G, now):
    """Time-of-week class at ``now`` (advances the site's segment pointer; time only grows)."""
    seg = S.ctr[SEG]
    while seg + 1 < G.seg_t.shape[0] and G.seg_t[seg + 1] <= now:
        seg += 1
    S.ctr[SEG] = seg
    return G.seg_c[seg]


@njit(_nrt=False)  # no reference counting: borrowed arrays, sorts in place (allocates nothing)
def greedy_view(J, S, G, now):
    """Sort the waiting queue by decreasing criterion value at ``now`` (ties: beta, submit order)
    into ``S.i[ORDERED, :nq]`` (returned as a slice by the caller: a kernel compiled without
    reference counting may not return a new view); :func:`settle_view` from the last pass's order."""
    ctr, SI, SF = S.ctr, S.i, S.f
    nq = ctr[NQ]
    c = current_class(S, G, now)
    val, beta = SF[VALS], SF[NBETA]
    q = queue(S)
    for i in range(nq):
        j = q[i]
        al, be = greedy_coeffs(J, G, c, j)
        val[j] = al * now + be
        beta[j] = be
    settle_view(S, val, beta, -1.0)  # value, then beta, decreasing; then job


@njit(inline="always")
def settle_view(S, k1, k2, s):
    """``S.i[ORDERED, :nq]``: the waiting jobs sorted by (s k1[j], s k2[j], j) (the keys of every
    waiting job set), for the dynamic orders (greedy's and a user's, :mod:`.user`).

    Starts from the last pass's order (waiting jobs only, new arrivals appended; ``INORD`` marks
    the jobs in it, ``_compact`` clears it for started ones) and insertion-sorts it: between passes
    few pairs change places (none for greedy f2), so this is ~linear; far from sorted (e.g. a new
    time-of-week class), it sorts outright."""
    ctr, SI = S.ctr, S.i
    nq = ctr[NQ]
    view = SI[ORDERED]
    k = 0
    for i in range(ctr[NORD]):  # still waiting from the last order (started jobs left INORD)
        j = view[i]
        if SI[INORD, j] == 1:
            view[k] = j
            k += 1
    q = queue(S)
    for i in range(nq):  # new arrivals, in submit order
        j = q[i]
        if SI[INORD, j] == 0:
            SI[INORD, j] = 1
            view[k] = j
            k += 1
    ctr[NORD] = nq
    shifts = 0
    for i in range(1, nq):  # insertion sort
        j = view[i]
        h = i - 1
        while h >= 0 and _lt(k1, k2, s, j, view[h]):
            view[h + 1] = view[h]
            h -= 1
        view[h + 1] = j
        shifts += i - 1 - h
        if shifts > 16 * nq + 256:  # far from sorted: sort outright
            sort_jobs(view, nq, k1, k2, s, SI[AUX_P])
            break


# ---------------------------------------------------------------------------- fast FCFS path
@njit
def _sync_heaps(J, S, G, c):
    """Bring the group heaps up to date with the queue: rebuild, or push the new arrivals."""
    ctr, SI, SF = S.ctr, S.i, S.f
    nq = ctr[NQ]
    q = queue(S)
    first = ctr[GSYNC]
    if first < 0 or ctr[GCLASS] != c:
        for g in range(5):
            ctr[GN0 + g] = 0
        first = 0
        ctr[GCLASS] = c
    for i in range(first, nq):
        j = q[i]
        if SI[MARK, j] != 0:  # started earlier, not yet dropped from the queue
            continue
        g = J.i[GROUP, j]
        gi = g - 1 if 1 <= g <= 5 else 4
        SF[NBETA, j] = -greedy_coeffs(J, G, c, j)[1]
        ctr[GN0 + gi] = heap_push(SI, SF, GH0 + gi, GPOS, NBETA, ctr[GN0 + gi], j)
    ctr[GSYNC] = nq


@njit
def _best_by_heaps(J, S, G, c, now):
    """(job, group index) of the best waiting job: the best of the five group-heap tops."""
    ctr, SI = S.ctr, S.i
    best, best_g = -1, -1
    bv, bb = 0.0, 0.0
    for g in range(5):
        if ctr[GN0 + g] == 0:
            continue
        j = SI[GH0 + g, 0]
        al, be = greedy_coeffs(J, G, c, j)
        v = al * now + be
        if best < 0 or _before(v, be, j, bv, bb, best):
            best, best_g, bv, bb = j, g, v, be
    return best, best_g


@njit
def _best_by_scan(J, S, G, c, now):
    """The best waiting job not started in this pass (f1, f3: alpha differs from job to job)."""
    SI = S.i
    best = -1
    bv, bb = 0.0, 0.0
    q = queue(S)
    for i in range(q.shape[0]):
        j = q[i]
        if SI[MARK, j] != 0:
            continue
        al, be = greedy_coeffs(J, G, c, j)
        v = al * now + be
        if best < 0 or _before(v, be, j, bv, bb, best):
            best, bv, bb = j, v, be
    return best


@njit
def greedy_fcfs_pass(J, S, G, now):
    """Greedy: start the best waiting job while it fits (FCFS on the greedy order); #started.

    Same schedule as FCFS over :func:`greedy_view`, without sorting the queue.
    """
    ctr, SI, SF = S.ctr, S.i, S.f
    c = current_class(S, G, now)
    kind = G.p[c, C_KIND]
    started = 0
    if kind == 2 or kind == 4:
        _sync_heaps(J, S, G, c)
        while True:
            j, g = _best_by_heaps(J, S, G, c, now)
            if j < 0 or J.i[WIDTH, j] > ctr[FREE]:
                break
            ctr[GN0 + g] = heap_pop(SI, SF, GH0 + g, GPOS, NBETA, ctr[GN0 + g])[1]
            start_job(J.f, J.i, ctr, SI, SF, j, now)
            started += 1
    else:
        ctr[GSYNC] = -1
        while True:
            j = _best_by_scan(J, S, G, c, now)
            if j < 0 or J.i[WIDTH, j] > ctr[FREE]:
                break
            start_job(J.f, J.i, ctr, SI, SF, j, now)
            started += 1
    return started
