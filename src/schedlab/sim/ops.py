"""The engine's operations on a site: the only way any event loop changes a ``Site``.

Every loop (the single-site engine, the grid, and the coming time-sharing and rule-based loops)
changes a site's queue and running set through these kernels alone, so the caches that
depend on them stay right:

- ``ctr[DIRTY]``: the conservative profile (reservations) must be rebuilt;
- ``ctr[GSYNC]``: how much of the queue the greedy group heaps hold (-1: rebuild them);
- ``ctr[CACHE_HEAD]``/``ctr[CACHE_VERSION]`` (EASY's cached head reservation) follow
  ``ctr[VERSION]``, which every start and end bumps;
- ``ctr[DEAD]``: started jobs a greedy pass left (marked) in the queue: :func:`waiting` counts
  the queue without them.

Operations:

- :func:`enqueue` (J, S, j): job j joins the queue at its place in the static order ``ctr[QORDER]``;
- :func:`append` (S, j): job j joins the END of the queue whatever the order (the grid's RQ
  exchange hands requested jobs over this way);
- :func:`remove` (S, j): waiting job j leaves the queue (it moves to another site or starts there);
- :func:`start_now` (J, S, j, now): start job j at ``now`` outside a pass (a grid site takes a
  pooled job); inside a pass the rules use ``start_job`` (:mod:`.running`);
- :func:`release_finished` (J, S, now): end every running job with finish <= now;
- :func:`waiting` (S): number of waiting jobs; :func:`next_finish` (S): the next finish time;
- :func:`queue` (S): the queue itself, a view from its head.

The queue lives in row QUEUE from ``ctr[QHEAD]`` on, so that an insertion shifts whichever side
of its place is shorter and a pass that starts a prefix of the queue (FCFS, and EASY mostly)
drops it by moving the head instead of shifting every job behind it: with the 13,600 waiting
jobs of the symbiotic CTC base, those shifts were most of its 2.5 s.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .running import release_finished, start_job  # noqa: F401  (part of this module's contract)
from .state import DEAD, DIRTY, FIN_H, FIN_N, FINISH, GSYNC, INORD, KEY0, MARK, NQ, QHEAD, QORDER, QUEUE, RESV


@njit(inline="always")
def waiting(S):
    """Waiting jobs: the queue's length without the started jobs a greedy pass left in it."""
    return S.ctr[NQ] - S.ctr[DEAD]


@njit(inline="always")
def next_finish(S):
    """Time of the site's next finish (inf when nothing runs)."""
    if S.ctr[FIN_N] == 0:
        return np.inf
    return S.f[FINISH, S.i[FIN_H, 0]]


@njit(inline="always")
def queue(S):
    """The waiting queue: ``ctr[NQ]`` job numbers from its head (a view of row QUEUE)."""
    h = S.ctr[QHEAD]
    return S.i[QUEUE, h:h + S.ctr[NQ]]


@njit(inline="always")
def _room_behind(S):
    """The head of row QUEUE where one more job fits behind the queue: the queue moves to the
    row's start when it ends at the row's end (rare: only a site that got jobs back that it had
    given away, in a grid, enqueues more than n times)."""
    ctr, row = S.ctr, S.i[QUEUE]
    h, nq = ctr[QHEAD], ctr[NQ]
    if nq == 0:
        h = 0
    elif h + nq >= row.shape[0]:
        for i in range(nq):
            row[i] = row[h + i]
        h = 0
    ctr[QHEAD] = h
    return h


@njit(inline="always")
def enqueue(J, S, j):
    """Job j joins the queue at its place in the static order ``S.ctr[QORDER]`` (binary search);
    the shorter side of its place shifts by one."""
    ctr, row = S.ctr, S.i[QUEUE]
    nq = ctr[NQ]
    h = ctr[QHEAD]
    key = J.f[KEY0 + ctr[QORDER]]
    lo, hi = 0, nq
    kj = key[j]
    while lo < hi:
        mid = (lo + hi) >> 1
        other = row[h + mid]
        if key[other] < kj or (key[other] == kj and other < j):
            lo = mid + 1
        else:
            hi = mid
    if h > 0 and lo < nq - lo:  # fewer jobs before its place: they shift towards the row's start
        for i in range(h - 1, h + lo - 1):
            row[i] = row[i + 1]
        h -= 1
        ctr[QHEAD] = h
    else:
        h = _room_behind(S)
        for i in range(h + nq, h + lo, -1):
            row[i] = row[i - 1]
    row[h + lo] = j
    ctr[NQ] = nq + 1
    S.f[RESV, j] = np.nan
    if lo < nq:
        ctr[DIRTY] = 1  # placed before waiting jobs: their reservations may move
        ctr[GSYNC] = -1  # and the greedy heaps no longer know which queue entries are new


@njit(inline="always")
def append(S, j):
    """Job j joins the END of the queue (whatever the static order; later arrivals still go
    behind it when they have the highest key). Behind every waiting job, it moves no reservation."""
    S.i[QUEUE, _room_behind(S) + S.ctr[NQ]] = j
    S.ctr[NQ] += 1
    S.f[RESV, j] = np.nan
    S.i[MARK, j] = 0
    S.i[INORD, j] = 0


@njit
def remove(S, j):
    """Waiting job j leaves the queue (keeping the others' order; the shorter side shifts)."""
    ctr, q = S.ctr, queue(S)
    nq = q.shape[0]
    p = 0
    while p < nq and q[p] != j:
        p += 1
    if p < nq:
        if p < nq - 1 - p:  # fewer jobs before it: they shift one towards the tail, the head moves
            for i in range(p, 0, -1):
                q[i] = q[i - 1]
            ctr[QHEAD] += 1
        else:
            for i in range(p, nq - 1):
                q[i] = q[i + 1]
        ctr[NQ] = nq - 1
    if not np.isnan(S.f[RESV, j]):
        ctr[DIRTY] = 1  # its reservation is booked in the profile: later ones may move earlier
    S.f[RESV, j] = np.nan
    S.i[INORD, j] = 0  # no longer in the greedy order of the last pass
    ctr[GSYNC] = -1  # the greedy heaps may hold it


@njit
def start_now(J, S, j, now):
    """Start job j at ``now`` on site S outside a pass (it is in no queue of S: ``remove`` it from
    its queue first). The profile does not hold it, so the site's reservations are rebuilt."""
    start_job(J.f, J.i, S.ctr, S.i, S.f, j, now)
    S.i[MARK, j] = 0
    S.ctr[DIRTY] = 1
