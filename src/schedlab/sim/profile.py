"""The availability profile of conservative backfilling (Mu'alem & Feitelson 2001).

A profile is a step function of free processors: ``prof_f[k]`` processors are free during
``[prof_t[k], prof_t[k+1])`` and ``prof_f[P-1]`` after ``prof_t[P-1]`` (P = ``ctr[PROF_N]``;
the last step is the empty machine, so every job of width <= m fits there). It is built from the
running jobs' estimated ends and then holds one block per reservation (genetic-fuzzy-rule-based-
scheduling, Section 2.1: each waiting job in queue order is reserved at its earliest start that
delays no earlier reservation).
"""

from __future__ import annotations


from .._config import njit
from .state import EST_H, EST_N, ESTEND, FREE, PROF_N, WIDTH


@njit
def build_profile(J, S, now):
    """Profile of the running jobs only: free now, then + m_j at each max(start + \\bar p_j, now)."""
    ne = S.ctr[EST_N]
    running = S.i[EST_H, :ne]  # sorted by estimated end
    S.prof_t[0] = now
    S.prof_f[0] = S.ctr[FREE]
    p = 1
    for k in range(ne):
        j = running[k]
        t = max(S.f[ESTEND, j], now)
        if t == S.prof_t[p - 1]:
            S.prof_f[p - 1] += J.i[WIDTH, j]
        else:
            S.prof_t[p] = t
            S.prof_f[p] = S.prof_f[p - 1] + J.i[WIDTH, j]
            p += 1
    S.ctr[PROF_N] = p


@njit
def drop_past(S, now):
    """Forget the steps before ``now`` (the step covering ``now`` starts at ``now``)."""
    p = S.ctr[PROF_N]
    k = 0
    while k + 1 < p and S.prof_t[k + 1] <= now:
        k += 1
    if k > 0:
        for i in range(k, p):
            S.prof_t[i - k] = S.prof_t[i]
            S.prof_f[i - k] = S.prof_f[i]
        S.ctr[PROF_N] = p - k
    S.prof_t[0] = now


@njit
def reserve(ctr, t, f, width, duration):
    """Earliest start s with >= width free during [s, s + duration) in the profile ``t``/``f``
    (size ``ctr[PROF_N]``); book it; return s."""
    p = ctr[PROF_N]
    k = 0
    while True:
        while f[k] < width:
            k += 1
        s = t[k]
        e = s + duration
        l = k + 1
        ok = True
        while l < p and t[l] < e:
            if f[l] < width:
                ok = False
                break
            l += 1
        if ok:
            break
        k = l
    # l is the first step at or after e (or p): split there so that [s, e) is whole steps
    if l == p or t[l] != e:
        for i in range(p, l, -1):
            t[i] = t[i - 1]
            f[i] = f[i - 1]
        t[l] = e
        f[l] = f[l - 1]
        ctr[PROF_N] = p + 1
    for i in range(k, l):
        f[i] -= width
    return s
