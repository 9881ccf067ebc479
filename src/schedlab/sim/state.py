"""The engine's state as a few matrices grouped in namedtuples (no per-job Python objects).

Three bundles travel through every kernel (STUMPY style, instead of 26 positional arguments):

``Jobs`` (read-only, shared by all sites of a grid), columns = job number 0..n-1 in submit order:
    ``f`` float64 rows SUBMIT r_j, EST = user estimate \\bar p_j, PROC = processing time p_j
    (min(runtime, estimate) when killing, else runtime) and KEY0 + order: the static sort key of
    each static queue order (ties by job number = submit order, then trace order);
    ``i`` int64 rows WIDTH m_j and GROUP (user group 0..5).

``Site`` (mutable, one per machine; a grid loop makes one per site over the same ``Jobs``):
    ``ctr`` int64 counters (slots below: queue length, free processors, heap sizes, ...) and
    ``x`` float64 scalars (the cached EASY reservation);
    ``i`` int64 rows: QUEUE (waiting jobs sorted by the static order ``ctr[QORDER]``), MARK (started
    in this pass), the running jobs as an indexed heap by actual finish (FIN_H/FIN_P) and as a
    list sorted by estimated end start + \\bar p_j (EST_H; EST_P unused), ORDERED (the greedy-sorted queue of the last pass) with INORD
    (1: the job is in it), AUX_H/AUX_P (scratch);
    ``f`` float64 rows START, FINISH, ESTEND, RESV (conservative reservation, NaN = none yet), VALS;
    ``prof_t``/``prof_f``: the conservative availability profile (:mod:`.profile`).
    Matrices rather than one array per field because every array argument of a compiled call
    costs time in the hot loop.

``GreedyParams`` (read-only): ``p`` criterion kind/a/b/w/K per time-of-week class and the class
    segments ``seg_t``/``seg_c`` of :func:`schedlab.workload.time_of_week_segments`.

A multi-site (grid) loop creates one ``Site`` per machine with :func:`new_site`, feeds arrivals to
the site it picks with :func:`schedlab.sim.dispatch.enqueue`, and calls
:func:`schedlab.sim.dispatch.schedule_pass` per site; a fuzzy rule base passes a different
``dispatch``/``order`` code to each pass.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# dispatch rule codes (genetic-fuzzy-rule-based-scheduling, Section 2.1)
FCFS, LIST, EASY, CONSERVATIVE = 0, 1, 2, 3
DISPATCH_CODES = {"fcfs": FCFS, "list": LIST, "easy": EASY, "conservative": CONSERVATIVE}
# queue order codes (Section 4); GREEDY is the dynamic order of greedy-es-sorting-criteria
O_SUBMIT, O_PROCS, O_ESTIMATE, O_GROUP, O_GREEDY = 0, 1, 2, 3, 4
ORDER_CODES = {"submit": O_SUBMIT, "procs": O_PROCS, "estimate": O_ESTIMATE, "group": O_GROUP}
# greedy criterion codes
CRITERION_CODES = {"f1": 1, "f2": 2, "f3": 3, "f4": 4}

# slots of Site.ctr
NQ = 0  # waiting jobs in queue[:NQ]
FREE = 1  # free processors now
FIN_N = 2  # size of the finish heap (= running jobs)
EST_N = 3  # size of the estimated-end heap (= running jobs)
PROF_N = 4  # steps in the conservative profile
DIRTY = 5  # 1: the conservative profile must be rebuilt before use
M = 6  # machine size m
KILL = 7  # 1: jobs are killed at their estimate
QORDER = 8  # static order the queue array is sorted by
LASTDISP = 9  # dispatch code of the previous pass (-1 before the first)
SEG = 10  # index of the current time-of-week segment
VERSION = 11  # bumped whenever a job starts or ends (the running set changed)
CACHE_HEAD = 12  # EASY: head job whose reservation is cached in Site.x[SHADOW], Site.x[EXTRA]
CACHE_VERSION = 13  # EASY: VERSION at which that reservation was left
NORD = 14  # length of the last greedy order in Site.i[ORDERED]
GSYNC = 15  # greedy FCFS: queue[:GSYNC] are in the group heaps GH0..GH4 (-1: heaps must be rebuilt)
GCLASS = 16  # greedy FCFS: time-of-week class the heap keys were computed for
GN0 = 17  # greedy FCFS: sizes of the five group heaps in slots GN0..GN0+4
DEAD = 22  # greedy FCFS: started jobs still in queue[:NQ] (MARK = 1), dropped in bulk later
N_CTR = 23
# slots of Site.x (float scalars)
SHADOW, EXTRA = 0, 1

# rows of Jobs.f / Jobs.i
SUBMIT, EST, PROC, KEY0 = 0, 1, 2, 3  # KEY0 + order code: static sort key of that order
WIDTH, GROUP = 0, 1
# rows of Site.i / Site.f
QUEUE, MARK, FIN_H, FIN_P, EST_H, EST_P, ORDERED, AUX_H, AUX_P, INORD = range(10)
GH0 = 10  # rows GH0..GH0+4: one heap of waiting jobs per user group (greedy FCFS, :mod:`.greedy`)
GPOS = 15  # each waiting job's slot in its group heap
N_SI = 16
START, FINISH, ESTEND, RESV, VALS, NBETA = range(6)

Jobs = namedtuple("Jobs", "f i")
Site = namedtuple("Site", "ctr x i f prof_t prof_f")
GreedyParams = namedtuple("GreedyParams", "p seg_t seg_c")
# columns of GreedyParams.p (one row per time-of-week class)
C_KIND, C_A, C_B, C_W, C_K = 0, 1, 2, 3, 8  # w_i at C_W + i - 1, K_i at C_K + i - 1


def make_jobs(submit, est, proc, width, group) -> Jobs:
    """The ``Jobs`` bundle of jobs already sorted by submit time (stable)."""
    n = len(submit)
    f = np.empty((KEY0 + 4, n), dtype=np.float64)
    f[SUBMIT], f[EST], f[PROC] = submit, est, proc
    f[KEY0 + O_SUBMIT] = np.arange(n)
    f[KEY0 + O_PROCS] = width
    f[KEY0 + O_ESTIMATE] = est
    f[KEY0 + O_GROUP] = np.where((group >= 1) & (group <= 5), group, 6)  # group 0 (unassigned) last
    i = np.empty((2, n), dtype=np.int64)
    i[WIDTH], i[GROUP] = width, group
    return Jobs(f, i)


def new_site(n: int, procs: int, kill: bool, order: int = O_SUBMIT) -> Site:
    """An empty machine of ``procs`` processors able to hold all ``n`` jobs."""
    ctr = np.zeros(N_CTR, dtype=np.int64)
    ctr[FREE] = procs
    ctr[M] = procs
    ctr[KILL] = int(bool(kill))
    ctr[QORDER] = order if order != O_GREEDY else O_SUBMIT
    ctr[LASTDISP] = -1
    ctr[DIRTY] = 1
    si = np.full((N_SI, n), -1, dtype=np.int64)
    si[MARK] = 0
    si[INORD] = 0
    sf = np.full((6, n), np.nan, dtype=np.float64)
    cap = 2 * n + 2
    ctr[CACHE_HEAD] = -1
    ctr[GSYNC] = -1
    return Site(ctr, np.zeros(2), si, sf, np.zeros(cap, dtype=np.float64), np.zeros(cap, dtype=np.int64))


def greedy_params(order, seg_t=None, seg_c=None) -> GreedyParams:
    """Criterion parameters per time-of-week class (3 rows) of a ``Greedy`` order, or dummies."""
    p = np.zeros((3, 13))
    p[:, C_W:C_W + 5] = 1.0
    if order is not None:
        for c, crit in enumerate(order.per_class()):
            p[c, C_KIND] = CRITERION_CODES[crit.kind]
            p[c, C_A], p[c, C_B] = crit.a, crit.b
            p[c, C_W:C_W + 5] = crit.w
            p[c, C_K:C_K + 5] = crit.K
    if seg_t is None:
        seg_t = np.array([-np.inf])
        seg_c = np.zeros(1, dtype=np.int64)
    return GreedyParams(p, np.ascontiguousarray(seg_t, dtype=np.float64), np.ascontiguousarray(seg_c, dtype=np.int64))
