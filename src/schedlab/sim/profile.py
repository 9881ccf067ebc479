"""The availability profile of conservative backfilling (Mu'alem & Feitelson 2001), one module.

A profile is a step function of free processors over time: a list of steps (t_k, f_k), f_k
processors free during [t_k, t_{k+1}), the last step the empty machine (every job of width <= m
fits there). It is built from the running jobs' estimated ends and then holds one block per
reservation (genetic-fuzzy-rule-based-scheduling, Section 2.1: each waiting job in queue order is
reserved at its earliest start that delays no earlier reservation).

API (all compiled; ``S`` is the site bundle, :mod:`.state`):

- :func:`rebuild` (J, S, now): the profile of the running jobs only;
- :func:`drop_past` (S, now): forget the steps before ``now``;
- :func:`free_now` (S): processors free at the first step (now);
- :func:`fits` (S, s, e, w): ``w`` processors free throughout [s, e) (s >= now);
- :func:`earliest` (S, w, d): earliest s with ``w`` free during [s, s + d);
- :func:`book` (S, s, e, w) / :func:`release` (S, s, e, w): take / give back ``w`` processors
  during [s, e);
- :func:`staircase` (S) and :func:`may_start` (...): the profile's running minimum, to ask in
  O(log) whether a job could start now before this pass booked anything.

Structure: blocked arrays. The steps live in blocks of at most ``BC`` steps (``prof_t``/
``prof_f`` hold block b's steps at ``b * BC + i``); ``prof_b`` holds per block its count, a
lazy addend to its free values and its min and max free (with the addend), plus the blocks in
time order (row P_SEQ) and a pool of unused blocks. A search skips whole blocks by their min or
max and a booking adds to whole blocks lazily, so earliest start, fit test and booking cost
O(P / BC + BC + log P) for P steps instead of O(P) (RICC: thousands of steps).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .state import (
    BC, EST_H, EST_N, ESTEND, FREE, P_ADD, P_CNT, P_MAX, P_MIN, P_POOL, P_SEQ, PROF_NB, PROF_POOL, WIDTH,
)

FILL = BC // 2  # steps per block when (re)built: room to insert before a block splits


# ---------------------------------------------------------------------------- blocks
@njit(inline="always")
def _val(S, b, o):
    return S.prof_f[b * BC + o] + S.prof_b[P_ADD, b]


@njit
def _refresh(S, b):
    """Recompute block b's min and max (with its addend)."""
    base = b * BC
    lo = S.prof_f[base]
    hi = lo
    for i in range(1, S.prof_b[P_CNT, b]):
        v = S.prof_f[base + i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    S.prof_b[P_MIN, b] = lo + S.prof_b[P_ADD, b]
    S.prof_b[P_MAX, b] = hi + S.prof_b[P_ADD, b]


@njit(inline="always")
def _new_block(S):
    S.ctr[PROF_POOL] -= 1
    b = S.prof_b[P_POOL, S.ctr[PROF_POOL]]
    S.prof_b[P_CNT, b] = 0
    S.prof_b[P_ADD, b] = 0
    return b


@njit(inline="always")
def _free_block(S, b):
    S.prof_b[P_POOL, S.ctr[PROF_POOL]] = b
    S.ctr[PROF_POOL] += 1


@njit
def _reset(S):
    """No steps: the profile's blocks go back to the pool (which new_site fills once)."""
    for q in range(S.ctr[PROF_NB]):
        _free_block(S, S.prof_b[P_SEQ, q])
    S.ctr[PROF_NB] = 0


@njit
def _push(S, t, f):
    """Append step (t, f) at the end of the profile (building)."""
    nb = S.ctr[PROF_NB]
    if nb == 0 or S.prof_b[P_CNT, S.prof_b[P_SEQ, nb - 1]] >= FILL:
        b = _new_block(S)
        S.prof_b[P_SEQ, nb] = b
        S.ctr[PROF_NB] = nb + 1
        S.prof_b[P_MIN, b] = f
        S.prof_b[P_MAX, b] = f
    else:
        b = S.prof_b[P_SEQ, nb - 1]
    c = S.prof_b[P_CNT, b]
    S.prof_t[b * BC + c] = t
    S.prof_f[b * BC + c] = f  # P_ADD is 0 while building
    S.prof_b[P_CNT, b] = c + 1
    if f < S.prof_b[P_MIN, b]:
        S.prof_b[P_MIN, b] = f
    if f > S.prof_b[P_MAX, b]:
        S.prof_b[P_MAX, b] = f


@njit
def _locate(S, t):
    """(q, o): the step covering time t (the last with time <= t; t >= the first step's time)."""
    seq = S.prof_b[P_SEQ]
    lo, hi = 0, S.ctr[PROF_NB] - 1  # last block whose first time <= t
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if S.prof_t[seq[mid] * BC] <= t:
            lo = mid
        else:
            hi = mid - 1
    b = seq[lo]
    base = b * BC
    a, z = 0, S.prof_b[P_CNT, b] - 1
    while a < z:
        mid = (a + z + 1) >> 1
        if S.prof_t[base + mid] <= t:
            a = mid
        else:
            z = mid - 1
    return lo, a


@njit
def _first_at_least(S, q, o, w):
    """First position at or after (q, o) with >= w free (the last step always qualifies)."""
    nb = S.ctr[PROF_NB]
    while q < nb:
        b = S.prof_b[P_SEQ, q]
        if S.prof_b[P_MAX, b] >= w:
            need = w - S.prof_b[P_ADD, b]
            base = b * BC
            for i in range(o, S.prof_b[P_CNT, b]):
                if S.prof_f[base + i] >= need:
                    return q, i
        q += 1
        o = 0
    return -1, -1


@njit
def _first_below(S, q, o, w, e):
    """First position at or after (q, o) with time < e and fewer than w free; (-1, o') if none."""
    nb = S.ctr[PROF_NB]
    while q < nb:
        b = S.prof_b[P_SEQ, q]
        base = b * BC
        cnt = S.prof_b[P_CNT, b]
        if S.prof_t[base + o] >= e:
            return -1, 0
        if S.prof_b[P_MIN, b] < w:
            need = w - S.prof_b[P_ADD, b]
            for i in range(o, cnt):
                if S.prof_t[base + i] >= e:
                    return -1, 0
                if S.prof_f[base + i] < need:
                    return q, i
        q += 1
        o = 0
    return -1, 0


@njit
def _insert(S, q, o, t, f):
    """Insert step (t, f) before position (q, o) of block SEQ[q] (o may be its count: append);
    returns the new step's position. A full block splits in two."""
    b = S.prof_b[P_SEQ, q]
    cnt = S.prof_b[P_CNT, b]
    if cnt == BC:  # split: the upper half moves to a new block after b
        nb = _new_block(S)
        half = BC // 2
        for i in range(half, BC):
            S.prof_t[nb * BC + i - half] = S.prof_t[b * BC + i]
            S.prof_f[nb * BC + i - half] = S.prof_f[b * BC + i]
        S.prof_b[P_CNT, nb] = BC - half
        S.prof_b[P_ADD, nb] = S.prof_b[P_ADD, b]
        S.prof_b[P_CNT, b] = half
        _refresh(S, b)
        _refresh(S, nb)
        n = S.ctr[PROF_NB]
        for k in range(n, q + 1, -1):
            S.prof_b[P_SEQ, k] = S.prof_b[P_SEQ, k - 1]
        S.prof_b[P_SEQ, q + 1] = nb
        S.ctr[PROF_NB] = n + 1
        if o >= half:
            q += 1
            o -= half
            b = nb
        cnt = S.prof_b[P_CNT, b]
    base = b * BC
    for i in range(cnt, o, -1):
        S.prof_t[base + i] = S.prof_t[base + i - 1]
        S.prof_f[base + i] = S.prof_f[base + i - 1]
    S.prof_t[base + o] = t
    S.prof_f[base + o] = f - S.prof_b[P_ADD, b]
    S.prof_b[P_CNT, b] = cnt + 1
    if f < S.prof_b[P_MIN, b]:
        S.prof_b[P_MIN, b] = f
    if f > S.prof_b[P_MAX, b]:
        S.prof_b[P_MAX, b] = f
    return q, o


@njit
def _split_at(S, e):
    """Position of the step starting at time e, inserting one (with the free count of the step
    covering e) when none starts there; e is after the first step's time."""
    q, o = _locate(S, e)
    b = S.prof_b[P_SEQ, q]
    if S.prof_t[b * BC + o] == e:
        return q, o
    return _insert(S, q, o + 1, e, _val(S, b, o))  # right after the step covering e, in its block


@njit
def _add(S, q1, o1, q2, o2, delta):
    """Add delta to the free count of the steps from (q1, o1) up to, not including, (q2, o2)."""
    if q1 == q2:
        b = S.prof_b[P_SEQ, q1]
        for i in range(o1, o2):
            S.prof_f[b * BC + i] += delta
        if o2 > o1:
            _refresh(S, b)
        return
    b = S.prof_b[P_SEQ, q1]
    for i in range(o1, S.prof_b[P_CNT, b]):
        S.prof_f[b * BC + i] += delta
    _refresh(S, b)
    for q in range(q1 + 1, q2):
        b = S.prof_b[P_SEQ, q]
        S.prof_b[P_ADD, b] += delta
        S.prof_b[P_MIN, b] += delta
        S.prof_b[P_MAX, b] += delta
    if q2 < S.ctr[PROF_NB] and o2 > 0:
        b = S.prof_b[P_SEQ, q2]
        for i in range(o2):
            S.prof_f[b * BC + i] += delta
        _refresh(S, b)


# ---------------------------------------------------------------------------- API
@njit
def rebuild(J, S, now):
    """Profile of the running jobs only: free now, then + m_j at each max(start + \\bar p_j, now)."""
    _reset(S)
    ne = S.ctr[EST_N]
    running = S.i[EST_H, :ne]  # sorted by estimated end
    t_last = now
    f_last = S.ctr[FREE]
    for k in range(ne):
        j = running[k]
        t = max(S.f[ESTEND, j], now)
        if t != t_last:
            _push(S, t_last, f_last)
            t_last = t
        f_last += J.i[WIDTH, j]
    _push(S, t_last, f_last)


@njit
def drop_past(S, now):
    """Forget the steps before ``now`` (the step covering ``now`` then starts at ``now``)."""
    q, o = _locate(S, now)
    if q > 0:
        for k in range(q):
            _free_block(S, S.prof_b[P_SEQ, k])
        n = S.ctr[PROF_NB]
        for k in range(q, n):
            S.prof_b[P_SEQ, k - q] = S.prof_b[P_SEQ, k]
        S.ctr[PROF_NB] = n - q
    b = S.prof_b[P_SEQ, 0]
    if o > 0:
        base = b * BC
        cnt = S.prof_b[P_CNT, b]
        for i in range(o, cnt):
            S.prof_t[base + i - o] = S.prof_t[base + i]
            S.prof_f[base + i - o] = S.prof_f[base + i]
        S.prof_b[P_CNT, b] = cnt - o
        _refresh(S, b)
    S.prof_t[b * BC] = now


@njit(inline="always")
def free_now(S):
    """Processors free at the profile's first step (now)."""
    return _val(S, S.prof_b[P_SEQ, 0], 0)


@njit
def fits(S, s, e, w):
    """True when ``w`` processors are free throughout [s, e) (s at or after the first step)."""
    q, o = _locate(S, s)
    return _first_below(S, q, o, w, e)[0] < 0


@njit
def earliest(S, w, d):
    """Earliest start s with >= w processors free during [s, s + d)."""
    q, o = 0, 0
    while True:
        q, o = _first_at_least(S, q, o, w)
        b = S.prof_b[P_SEQ, q]
        s = S.prof_t[b * BC + o]
        bq, bo = _first_below(S, q, o, w, s + d)
        if bq < 0:
            return s
        q, o = bq, bo


@njit
def book(S, s, e, w):
    """Take ``w`` processors during [s, e); s is the time of a step (as :func:`earliest` gives)."""
    if e <= s:
        return
    q2, o2 = _split_at(S, e)
    q1, o1 = _locate(S, s)
    _add(S, q1, o1, q2, o2, -w)


@njit
def release(S, s, e, w):
    """Give ``w`` processors back during [s, e) (a booking cancelled; steps are not merged)."""
    if e <= s:
        return
    _split_at(S, s)
    q2, o2 = _split_at(S, e)
    q1, o1 = _locate(S, s)  # after the split at e, which may have moved s's step to a new block
    _add(S, q1, o1, q2, o2, w)


@njit
def reserve(S, w, d):
    """Book ``w`` processors at the earliest start for ``d`` seconds; returns the start."""
    s = earliest(S, w, d)
    book(S, s, s + d, w)
    return s


@njit
def staircase(S):
    """The profile's running minimum (g(w) = first time fewer than w are free) as the steps where
    it drops, in the scratch region after the blocks; returns how many."""
    base = S.prof_b.shape[1] * BC
    nl = 0
    for q in range(S.ctr[PROF_NB]):
        b = S.prof_b[P_SEQ, q]
        if nl > 0 and S.prof_b[P_MIN, b] >= S.prof_f[base + nl - 1]:
            continue  # no new level in this block
        for i in range(S.prof_b[P_CNT, b]):
            v = _val(S, b, i)
            if nl == 0 or v < S.prof_f[base + nl - 1]:
                S.prof_t[base + nl] = S.prof_t[b * BC + i]
                S.prof_f[base + nl] = v
                nl += 1
    return nl


@njit
def may_start(S, nl, w, now, d, booked):
    """Whether ``w`` processors fit during [now, now + d): by the staircase (``nl`` levels, made
    before this pass's bookings; a necessary condition, O(log)), then, when blocks were
    ``booked`` since, exactly."""
    if w > free_now(S):
        return False
    base = S.prof_b.shape[1] * BC
    lo, hi = base, base + nl  # first level with fewer than w free (levels strictly decrease)
    while lo < hi:
        mid = (lo + hi) >> 1
        if S.prof_f[mid] >= w:
            lo = mid + 1
        else:
            hi = mid
    if lo < base + nl and now + d > S.prof_t[lo]:
        return False
    return not booked or fits(S, now, now + d, w)


