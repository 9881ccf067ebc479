"""The running set of a site: starting a job and ending the finished ones.

Shared by the dispatch rules (:mod:`.dispatch`), the greedy queue (:mod:`.greedy`) and the grid
loop (:mod:`schedlab.grid.kernel`); see :mod:`.state` for the arrays they touch.
"""

from __future__ import annotations

from .._config import njit
from .heap import heap_pop, heap_push, sorted_insert, sorted_remove
from .state import (
    DIRTY, ENDLOG, EST, EST_H, EST_N, ESTEND, FIN_H, FIN_N, FIN_P, FINISH, FREE, MARK, NLOG, PROC, START, STARTLOG, VERSION, WIDTH,
)


@njit(inline="always")
def start_job(JF, JI, ctr, SI, SF, j, now):
    """Start job j now: processors, finish time, the two heaps, the pass mark and the start log
    (a loop that needs the jobs a pass started reads ``SI[STARTLOG, :ctr[NLOG]]`` after it)."""
    SF[START, j] = now
    SF[FINISH, j] = now + JF[PROC, j]
    SF[ESTEND, j] = now + JF[EST, j]
    ctr[FREE] -= JI[WIDTH, j]
    ctr[FIN_N] = heap_push(SI, SF, FIN_H, FIN_P, FINISH, ctr[FIN_N], j)
    ctr[EST_N] = sorted_insert(SI, SF, EST_H, ESTEND, ctr[EST_N], j)
    SI[MARK, j] = 1
    SI[STARTLOG, ctr[NLOG]] = j
    ctr[NLOG] += 1
    ctr[VERSION] += 1


@njit(inline="always")
def release_finished(J, S, now):
    """End every running job whose finish is <= now; returns how many ended, listed in
    ``S.i[ENDLOG, :count]`` in the order they ended (finish time, then job number)."""
    ctr, SI, SF = S.ctr, S.i, S.f
    count = 0
    while ctr[FIN_N] > 0 and SF[FINISH, SI[FIN_H, 0]] <= now:
        j, nfin = heap_pop(SI, SF, FIN_H, FIN_P, FINISH, ctr[FIN_N])
        ctr[FIN_N] = nfin
        ctr[EST_N] = sorted_remove(SI, SF, EST_H, ESTEND, ctr[EST_N], j)
        ctr[FREE] += J.i[WIDTH, j]
        ctr[VERSION] += 1
        if SF[FINISH, j] != SF[ESTEND, j]:
            ctr[DIRTY] = 1  # ended before its estimate: reservations change
        SI[ENDLOG, count] = j
        count += 1
    return count
