"""The availability profile of conservative backfilling (Mu'alem & Feitelson 2001), one module.

A profile is a step function of free processors: ``prof_f[k]`` processors are free during
``[prof_t[k], prof_t[k+1])`` and ``prof_f[P-1]`` after ``prof_t[P-1]`` (P = ``ctr[PROF_N]``;
the last step is the empty machine, so every job of width <= m fits there). It is built from the
running jobs' estimated ends and then holds one block per reservation (genetic-fuzzy-rule-based-
scheduling, Section 2.1: each waiting job in queue order is reserved at its earliest start that
delays no earlier reservation).

API (compiled; ``S`` is the site bundle of :mod:`.state`; nothing else reads the arrays):

- :func:`rebuild` (J, S, now): the profile of the running jobs only;
- :func:`drop_past` (S, now): forget the steps before ``now``;
- :func:`free_now` (S): processors free at the first step (now);
- :func:`fits` (S, s, e, w): ``w`` processors free throughout [s, e) (s a step's time);
- :func:`earliest` (S, w, d): earliest s with ``w`` free during [s, s + d);
- :func:`book` (S, s, e, w) / :func:`release` (S, s, e, w): take / give back ``w`` processors
  during [s, e); :func:`reserve` (S, w, d) = earliest + book;
- array kernels for the hot loop of :func:`schedlab.sim.dispatch._reserve_from`, on
  (``ctr``,) ``prof_t``, ``prof_f`` taken out of the bundle once: :func:`_reserve` (with a lower
  bound on the start), :func:`_fits`, and :func:`_stair` / :func:`_stair_cut` (the profile's
  running minimum from now, scanned lazily and cut back after each booking, to ask exactly whether
  a job could start now).

Structure: two flat sorted arrays (times, free counts); a search walks from the first step and
a booking shifts the later steps. Issue 10 asked for a structure of ~log cost; blocked arrays
(blocks of 16-64 steps with lazy addends and per-block min/max, commit 05720ba) measured slower
than these flat arrays on RICC and CEA-Curie, but that version passed the whole site bundle to
every non-inlined call, which alone cost 2x here; it deserves a second measurement with the
wrappers below before it is written off. What a log structure could buy, counted on RICC's
busiest stretch (jobs 280,000-320,000, 8,192 processors): 10.6 M reservations for 40,000 jobs
(each waiting job is placed again at every rebuild, ~265 times), each walking ~200 steps and
booking ~200 at about 1 ns a step. A tree's O(log P) operation at pointer-chasing cost would
save little there; the lever is the number of re-reservations (the rebuild semantics), not the
search. Those semantics are the paper's: "the expected completion time of almost all jobs within
the waiting queue must be determined each time the scheduling process is initiated" (genetic-
fuzzy-rule-based-scheduling, Section 2.1), and the golden file pins the schedules they give.
Window checks run 16 steps at a time (:func:`_window`); with that, whole RICC takes 56 s instead
of 82 s (``benchmarks/speed/bench_revs.py cbb92ab 042df5c``, one run each, quiet machine).
Hot loops (:func:`schedlab.sim.dispatch._reserve_from`) take ``ctr``, ``prof_t`` and ``prof_f`` out
of the bundle once and call the array kernels ``_reserve`` / ``_fits`` / ``_stair`` /
``_stair_cut`` directly. Those kernels are compiled without numba's reference counting
(``_nrt=False``: they only read and write borrowed arrays). Measured with perf on CTC scaled to
1024 processors: 42 % of a conservative run was atomic incref/decref of the profile arrays at
every kernel call (inlined kernels too: their loops keep numba from pruning the pairs);
without them the run takes 1.27 s instead of 2.11 s, with the same schedule.
The upper half of the arrays is scratch for the staircase: the profile never holds more than
n + 1 steps (now, one per running job, one per reservation) and the arrays hold 2n + 2.
"""

from __future__ import annotations

import numpy as np

from .._config import njit

# The API takes the site bundle; each call is a thin inlined wrapper around an array kernel: a
# compiled call that passes the whole bundle costs more than a short search (measured: 2x on
# conservative RICC), one that passes the two profile arrays does not.
from .state import EST_H, EST_N, ESTEND, FREE, PROF_N, WIDTH

# The walks index with np.uint64(i): numba wraps a signed index that may be negative (a shift and
# a mask per access), which kept the booking loop from being vectorized; the indices here are
# never negative. Same schedules, 37 % less time on RICC's busiest stretch (jobs 280,000-320,000,
# 18.4 -> 11.5 s on a loaded machine, the staircase already in).


@njit
def rebuild(J, S, now):
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


@njit(inline="always")
def free_now(S):
    """Processors free at the profile's first step (now)."""
    return S.prof_f[0]


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _lower(t, p, x, lo=0):
    """First index k in [lo, p) with t[k] >= x, or p (np.searchsorted on a slice would make a
    view, whose reference counting costs more than this search). The steps from 0, or the
    staircase levels in the upper half from its base (:func:`_stair_cut`)."""
    hi = p
    while lo < hi:
        mid = (lo + hi) >> 1
        if t[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


#: steps checked at once by :func:`_window` (a branch-free minimum the compiler vectorizes) while
#: a whole chunk lies inside the window. RICC's busiest stretch (jobs 280,000-320,000, median of
#: 5): 6.7 s stepwise, 5.0 s with chunks of 8, 4.9 s of 16, 5.4 s of 32.
_CHUNK = 16


@njit(inline="always")
def _window(t, f, p, l, e, w):
    """(ok, l): whether every step from ``l`` that starts before ``e`` has >= w free; if so the
    first step at or after ``e`` (or p), else the first step with fewer."""
    while l + _CHUNK <= p and t[np.uint64(l + _CHUNK - 1)] < e:  # whole chunks inside the window
        m = f[np.uint64(l)]
        for q in range(1, _CHUNK):
            m = min(m, f[np.uint64(l + q)])
        if m < w:
            break
        l += _CHUNK
    while l < p and t[np.uint64(l)] < e:
        if f[np.uint64(l)] < w:
            return False, l
        l += 1
    return True, l


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _fits(t, f, p, s, e, w):
    return _window(t, f, p, _lower(t, p, s), e, w)[0]


@njit(inline="always")
def fits(S, s, e, w):
    """True when ``w`` processors are free during [s, e), s a step of the profile.

    With s = now it asks whether a job fits now: the profile's first step always starts at ``now``
    (:func:`rebuild` / :func:`drop_past` set it, and bookings only split later steps).
    """
    return _fits(S.prof_t, S.prof_f, S.ctr[PROF_N], s, e, w)


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _find(t, f, p, w, d, k=0):
    """(k, l): the earliest step k (from ``k`` on) with >= w free during [t[k], t[k] + d) and the
    first step l at or after its end (or p)."""
    while True:
        while f[np.uint64(k)] < w:
            k += 1
        ok, l = _window(t, f, p, k + 1, t[np.uint64(k)] + d, w)
        if ok:
            return k, l
        k = l


@njit(inline="always")
def earliest(S, w, d):
    """Earliest start s with >= w processors free during [s, s + d)."""
    return S.prof_t[_find(S.prof_t, S.prof_f, S.ctr[PROF_N], w, d)[0]]


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _split(ctr, t, f, l, e):
    """Make e a step: l is the first step at or after e (or P); returns e's step."""
    p = ctr[PROF_N]
    if l == p or t[l] != e:
        for i in range(p, l, -1):
            u, v = np.uint64(i), np.uint64(i - 1)
            t[u] = t[v]
            f[u] = f[v]
        t[l] = e
        f[l] = f[l - 1]
        ctr[PROF_N] = p + 1
    return l


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _add(ctr, t, f, s, e, delta):
    """Add delta to the free count during [s, e) (s >= now), splitting steps at s and e."""
    if e <= s:
        return
    k = _split(ctr, t, f, _lower(t, ctr[PROF_N], s), s)
    l = _split(ctr, t, f, _lower(t, ctr[PROF_N], e), e)
    for i in range(k, l):
        f[i] += delta


@njit(inline="always")
def book(S, s, e, w):
    """Take ``w`` processors during [s, e)."""
    _add(S.ctr, S.prof_t, S.prof_f, s, e, -w)


@njit(inline="always")
def release(S, s, e, w):
    """Give ``w`` processors back during [s, e) (a booking cancelled; steps are not merged)."""
    _add(S.ctr, S.prof_t, S.prof_f, s, e, w)


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _reserve(ctr, t, f, w, d, lb=-np.inf):
    """:func:`reserve` on the arrays; ``lb``: a time before which the job is known not to fit
    (the search starts at the first step from there)."""
    k = 0
    if lb > t[0]:
        k = _lower(t, ctr[PROF_N], lb)
    k, l = _find(t, f, ctr[PROF_N], w, d, k)
    s = t[k]
    l = _split(ctr, t, f, l, s + d)  # l is the first step at or after the end: split there
    for i in range(np.uint64(k), np.uint64(l)):
        f[i] -= w
    return s


@njit(inline="always")
def reserve(S, w, d):
    """Book ``w`` processors at the earliest start for ``d`` seconds; returns the start."""
    return _reserve(S.ctr, S.prof_t, S.prof_f, w, d)


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _stair(t, f, p, nl, sc, w, until):
    """Whether ``w`` processors are free during [now, until) (``now`` = the first step), exactly,
    through the profile's running minimum from now (the "staircase": the steps where it drops),
    kept in the upper half of the arrays and scanned only as far as questions need it.

    ``nl`` levels are built from steps before ``sc`` (the next step to scan). Returns
    ``(fits, nl, sc)``: the caller keeps the state across questions; after a booking from ``s``
    on, :func:`_stair_cut` drops what it changed. A question costs O(log levels) when the built
    part answers it, and otherwise extends the scan (each step is scanned once per booking), in
    place of a walk over the whole window per question.
    """
    base = t.shape[0] // 2
    lo, hi = base, base + nl  # first built level with fewer than w free (levels strictly decrease)
    while lo < hi:
        mid = (lo + hi) >> 1
        if f[mid] >= w:
            lo = mid + 1
        else:
            hi = mid
    if lo < base + nl:
        return until <= t[lo], nl, sc
    while sc < p and t[sc] < until:
        v = f[sc]
        if nl == 0 or v < f[base + nl - 1]:
            t[base + nl] = t[sc]
            f[base + nl] = v
            nl += 1
            if v < w:
                return False, nl, sc + 1
        sc += 1
    return True, nl, sc


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _stair_cut(t, p, nl, sc, s):
    """The staircase state after a booking from ``s`` on (steps before ``s`` keep their counts
    and indices: bookings split steps only at and after ``s``): levels before ``s`` and the scan
    resumed from ``s``'s step."""
    base = t.shape[0] // 2
    return _lower(t, base + nl, s, base) - base, min(sc, _lower(t, p, s))
