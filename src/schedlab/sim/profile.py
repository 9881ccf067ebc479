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
  bound on the start), :func:`_fits`, and :func:`_staircase` / :func:`_may_start` (the profile's
  running minimum, to ask in O(log) whether a job could start now before this pass booked anything).

Structure: two flat sorted arrays (times, free counts); a search walks from the first step and
a booking shifts the later steps. Issue 10 asked for a structure of ~log cost; blocked arrays
(blocks of 16-64 steps with lazy addends and per-block min/max, commit 05720ba) measured slower
than these flat arrays on RICC and CEA-Curie, but that version passed the whole site bundle to
every non-inlined call, which alone cost 2x here; it deserves a second measurement with the
wrappers below before it is written off.
Hot loops (:func:`schedlab.sim.dispatch._reserve_from`) take ``ctr``, ``prof_t`` and ``prof_f`` out
of the bundle once and call the array kernels ``_reserve`` / ``_fits`` / ``_staircase`` /
``_may_start`` directly. Those kernels are compiled without numba's reference counting
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
def _lower(t, p, x):
    """First step k < p with t[k] >= x, or p (np.searchsorted on a slice would make a view,
    whose reference counting costs more than this search)."""
    lo, hi = 0, p
    while lo < hi:
        mid = (lo + hi) >> 1
        if t[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _fits(t, f, p, s, e, w):
    lo = _lower(t, p, s)
    while lo < p and t[lo] < e:
        if f[lo] < w:
            return False
        lo += 1
    return True


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
        while f[k] < w:
            k += 1
        e = t[k] + d
        l = k + 1
        ok = True
        while l < p and t[l] < e:
            if f[l] < w:
                ok = False
                break
            l += 1
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
            t[i] = t[i - 1]
            f[i] = f[i - 1]
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
    for i in range(k, l):
        f[i] -= w
    return s


@njit(inline="always")
def reserve(S, w, d):
    """Book ``w`` processors at the earliest start for ``d`` seconds; returns the start."""
    return _reserve(S.ctr, S.prof_t, S.prof_f, w, d)


@njit
def _staircase(t, f, p):
    """The profile's running minimum (g(w) = first time fewer than w are free) as the steps where
    it drops, copied to the upper half of the arrays; returns how many (fewer levels than steps)."""
    base = t.shape[0] // 2
    nl = 0
    for l in range(p):
        if nl == 0 or f[l] < f[base + nl - 1]:
            t[base + nl] = t[l]
            f[base + nl] = f[l]
            nl += 1
    return nl


@njit(_nrt=False)  # no reference counting: a kernel on borrowed arrays
def _may_start(t, f, p, nl, w, now, d, booked):
    """Whether ``w`` processors fit during [now, now + d): by the staircase (``nl`` levels, made
    before this pass's bookings; a necessary condition, O(log)), then, when blocks were
    ``booked`` since, exactly."""
    if w > f[0]:  # free now (the profile's first step)
        return False
    base = t.shape[0] // 2
    lo, hi = base, base + nl  # first level with fewer than w free (levels strictly decrease)
    while lo < hi:
        mid = (lo + hi) >> 1
        if f[mid] >= w:
            lo = mid + 1
        else:
            hi = mid
    if lo < base + nl and now + d > t[lo]:
        return False
    return not booked or _fits(t, f, p, now, now + d, w)
