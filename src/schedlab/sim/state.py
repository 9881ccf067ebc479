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
    list sorted by estimated end start + \\bar p_j (EST_H), ENDLOG (the jobs the last release of finished jobs ended), ORDERED (the greedy-sorted queue of the last pass) with INORD
    (1: the job is in it), AUX_H/AUX_P (scratch);
    ``f`` float64 rows START, FINISH, ESTEND, RESV (conservative reservation, NaN = none yet), VALS;
    ``prof_t``/``prof_f``: the conservative availability profile (:mod:`.profile`).
    Matrices rather than one array per field because every array argument of a compiled call
    costs time in the hot loop.

``GreedyParams`` (read-only): ``p`` criterion kind/a/b/w/K per time-of-week class and the class
    segments ``seg_t``/``seg_c`` of :func:`schedlab.workload.time_of_week_segments`.

A multi-site (grid) loop creates one ``Site`` per machine with :func:`new_site`, feeds arrivals to
the site it picks with :func:`schedlab.sim.ops.enqueue`, and calls
:func:`schedlab.sim.dispatch.schedule_pass` per site; a fuzzy rule base passes a different
``dispatch``/``order`` code to each pass.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..strategy import registry

# dispatch rule and queue order codes: positions in the registry (schedlab.strategy.registry)
FCFS, LIST, EASY, CONSERVATIVE = (registry.rule_code(r) for r in ("fcfs", "list", "easy", "conservative"))
DISPATCH_CODES = {r.name: code for code, r in enumerate(registry.DISPATCH)}
O_SUBMIT, O_PROCS, O_ESTIMATE, O_GROUP = (registry.order_code(o) for o in ("submit", "procs", "estimate", "group"))
O_GREEDY = registry.GREEDY_CODE  # the dynamic order of greedy-es-sorting-criteria
ORDER_CODES = {o.name: code for code, o in enumerate(registry.ORDERS) if o.key is not None}
# greedy criterion codes
CRITERION_CODES = {"f1": 1, "f2": 2, "f3": 3, "f4": 4}
N_GROUPS = 5  # user groups with their own greedy parameters (greedy-es-sorting-criteria Table II)
#: reservations conservative remembers within a pass to bound later searches (Site.x[SEEN]); a
#: speed knob only (the same schedules for any value, golden conservative 153/153). Median of 3, quiet
#: machine, RICC jobs 280,000-320,000 / whole CEA-Curie: 16: 4.27 / 3.63 s, 8: 4.31 / 3.47 s,
#: 4: 4.11 / 3.32 s, 2: 4.06 / 3.37 s, 32: 4.43 / 4.06 s.
N_SEEN = 4

# ---------------------------------------------------------------------------- the layout, declared once
#: every slot of every bundle: (name, width, meaning); indices are derived below, in this order
LAYOUT: dict[str, tuple[tuple[str, int, str], ...]] = {
    "Site.ctr": (
        ("NQ", 1, "waiting jobs in queue[:NQ] (a greedy pass leaves DEAD started ones in it)"),
        ("QHEAD", 1, "queue[i] is Site.i[QUEUE, QHEAD + i] (ops.queue): removing a prefix moves the head"),
        ("FREE", 1, "free processors now"),
        ("FIN_N", 1, "size of the finish heap (= running jobs)"),
        ("EST_N", 1, "size of the estimated-end list (= running jobs)"),
        ("PROF_N", 1, "steps in the conservative profile (:mod:`.profile`)"),
        ("DIRTY", 1, "1: the conservative profile must be rebuilt before use"),
        ("M", 1, "machine size m"),
        ("KILL", 1, "1: jobs are killed at their estimate"),
        ("QORDER", 1, "static order the queue array is sorted by"),
        ("LASTDISP", 1, "dispatch code of the previous pass (-1 before the first)"),
        ("LASTORDER", 1, "order code of the previous pass (-1 before the first)"),
        ("SEG", 1, "index of the current time-of-week segment"),
        ("VERSION", 1, "bumped whenever a job starts or ends (the running set changed)"),
        ("CACHE_HEAD", 1, "EASY: head job whose reservation is cached in Site.x[SHADOW], Site.x[EXTRA]"),
        ("CACHE_VERSION", 1, "EASY: VERSION at which that reservation was left"),
        ("NORD", 1, "length of the last greedy order in Site.i[ORDERED]"),
        ("GSYNC", 1, "greedy FCFS: queue[:GSYNC] are in the group heaps (-1: heaps must be rebuilt)"),
        ("GCLASS", 1, "greedy FCFS: time-of-week class the heap keys were computed for"),
        ("GN0", N_GROUPS, "greedy FCFS: sizes of the group heaps, one per user group"),
        ("DEAD", 1, "greedy FCFS: started jobs still in queue[:NQ] (MARK = 1), dropped in bulk later"),
        ("NLOG", 1, "jobs started since the current pass began, listed in Site.i[STARTLOG]"),
        ("UERR", 1, "a user's code failed (:mod:`.user`): 1 a dynamic key gave a non-finite value, 2 a user rule "
                    "started a job wider than the free processors, 3 a user rule raised; no pass starts anything after (0: none)"),
        ("UJOB", 1, "the job of that failure"),
    ),
    "Site.x": (
        ("SHADOW", 1, "EASY: cached head reservation time"),
        ("EXTRA", 1, "EASY: processors the cached reservation leaves spare"),
        ("SEEN", 3 * N_SEEN, "conservative: the last N_SEEN reservations of the pass, widths / lengths / starts"),
        ("UAT", 1, "the time of a user code failure (ctr[UERR])"),
        ("UVAL", 1, "its value: the key's, or the free processors"),
    ),
    "Site.i": (
        ("QUEUE", 1, "waiting jobs sorted by the static order ctr[QORDER], from ctr[QHEAD] (ops.queue)"),
        ("MARK", 1, "1: started in this pass (or a greedy pass, not yet dropped from the queue)"),
        ("FIN_H", 1, "running jobs as an indexed heap by actual finish"),
        ("FIN_P", 1, "each job's slot in FIN_H"),
        ("EST_H", 1, "running jobs sorted by estimated end start + estimate"),
        ("ENDLOG", 1, "jobs the last release_finished call ended, in end order (it returns how many)"),
        ("ORDERED", 1, "the greedy-sorted queue of the last pass"),
        ("AUX_H", 1, "scratch"),
        ("AUX_P", 1, "scratch"),
        ("INORD", 1, "1: the job is in ORDERED"),
        ("GH0", N_GROUPS, "greedy FCFS: one heap of waiting jobs per user group"),
        ("GPOS", 1, "each waiting job's slot in its group heap"),
        ("STARTLOG", 1, "jobs started since the current pass began, in start order (ctr[NLOG] of them)"),
        ("UI", 4, "a user rule's arguments (:mod:`.user`): the waiting jobs' widths and groups in queue order, the "
                  "running jobs' widths by estimated end, the start flags"),
    ),
    "Site.f": (
        ("START", 1, "start time (NaN: not started)"),
        ("FINISH", 1, "finish time"),
        ("ESTEND", 1, "estimated end start + estimate"),
        ("RESV", 1, "conservative reservation (NaN: none yet)"),
        ("VALS", 1, "greedy criterion value at the last pass"),
        ("NBETA", 1, "greedy beta (negated in the group heaps)"),
        ("UF", 4, "a user's dynamic key of each waiting job (by job); a user rule's arguments: the waiting jobs' "
                  "estimates and waits in queue order, the running jobs' estimated ends"),
    ),
    "Jobs.f": (
        ("SUBMIT", 1, "submit time r_j"),
        ("EST", 1, "user estimate \\bar p_j"),
        ("PROC", 1, "processing time p_j"),
        ("KEY0", len(registry.ORDERS), "static sort key of each static queue order (KEY0 + order code; greedy's row "
                                       "unused); LAST: make_jobs adds one row per user order (codes after greedy)"),
    ),
    "Jobs.i": (
        ("WIDTH", 1, "processors m_j"),
        ("GROUP", 1, "user group 0..5"),
        ("RANK0", 2 * len(registry.ORDERS), "each job's rank in static order code (key, then job number) at "
                                            "RANK0 + 2 code, the job of each rank at RANK0 + 2 code + 1; LAST: "
                                            "make_jobs adds two rows per user order"),
    ),
    "GreedyParams.p": (
        ("C_KIND", 1, "criterion code 1..4"),
        ("C_A", 1, "a"),
        ("C_B", 1, "b"),
        ("C_W", N_GROUPS, "w_i of user group i at C_W + i - 1"),
        ("C_K", N_GROUPS, "K_i of user group i at C_K + i - 1"),
    ),
}
#: number of slots of each bundle's matrix (the size new_site/make_jobs/greedy_params allocate)
SIZES: dict[str, int] = {}


def _derive_slots() -> dict[str, int]:
    """Slot index of every name: consecutive in declaration order, each taking its width."""
    index: dict[str, int] = {}
    for bundle, rows in LAYOUT.items():
        at = 0
        for name, width, _ in rows:
            if name in index or not name.isidentifier() or width < 1:
                raise AssertionError(f"state layout: bad or duplicate slot {name!r} in {bundle}")
            index[name] = at
            at += width
        SIZES[bundle] = at
    return index


SLOTS = _derive_slots()
globals().update(SLOTS)
N_CTR, N_X, N_SI, N_SF = SIZES["Site.ctr"], SIZES["Site.x"], SIZES["Site.i"], SIZES["Site.f"]

N_JF, N_JI, N_GP = SIZES["Jobs.f"], SIZES["Jobs.i"], SIZES["GreedyParams.p"]


def _self_check() -> None:
    """At import: no two slots of a bundle overlap, every slot lies inside its matrix, and the
    codes that index slot ranges stay inside them."""
    for bundle, rows in LAYOUT.items():
        taken: set[int] = set()
        for name, width, _ in rows:
            cells = set(range(SLOTS[name], SLOTS[name] + width))
            if cells & taken or max(cells) >= SIZES[bundle]:
                raise AssertionError(f"state layout: slot {name} of {bundle} collides or overflows")
            taken |= cells
    if (max(ORDER_CODES.values()) >= SIZES["Jobs.f"] - SLOTS["KEY0"] or O_GREEDY in ORDER_CODES.values()
            or LAYOUT["Jobs.f"][-1][0] != "KEY0" or LAYOUT["Jobs.i"][-1][0] != "RANK0"):
        raise AssertionError("state layout: static order codes must index KEY0 + code (the last rows of Jobs.f, "
                             "RANK0 + 2 code those of Jobs.i: user orders add rows); greedy has no static key")


_self_check()
# names for readers and linters (the values come from LAYOUT above)
NQ: int
QHEAD: int
FREE: int
FIN_N: int
EST_N: int
PROF_N: int
DIRTY: int
M: int
KILL: int
QORDER: int
LASTDISP: int
LASTORDER: int
SEG: int
VERSION: int
CACHE_HEAD: int
CACHE_VERSION: int
NORD: int
GSYNC: int
GCLASS: int
GN0: int
DEAD: int
NLOG: int
UERR: int
UJOB: int
SHADOW: int
EXTRA: int
SEEN: int
UAT: int
UVAL: int
QUEUE: int
MARK: int
FIN_H: int
FIN_P: int
EST_H: int
ENDLOG: int
ORDERED: int
AUX_H: int
AUX_P: int
INORD: int
GH0: int
GPOS: int
STARTLOG: int
UI: int
START: int
FINISH: int
ESTEND: int
RESV: int
VALS: int
NBETA: int
UF: int
SUBMIT: int
EST: int
PROC: int
KEY0: int
WIDTH: int
GROUP: int
RANK0: int
C_KIND: int
C_A: int
C_B: int
C_W: int
C_K: int

Jobs = namedtuple("Jobs", "f i")
Site = namedtuple("Site", "ctr x i f prof_t prof_f")
GreedyParams = namedtuple("GreedyParams", "p seg_t seg_c")
#: a run with a user's dynamic queue order or dispatch rule (:mod:`.user`): the greedy parameters
#: (for a greedy order under a user rule; neutral otherwise), the compiled key and rule (numba
#: cfuncs of :mod:`schedlab.strategy.user_code`'s signatures; placeholders where the run has none:
#: one compiled engine serves every user function), ``dyn``, the dynamic order's code (-1: none),
#: and ``uses``, the rule's inputs the engine fills (bits USE_WIDTH.., :data:`RULE_INPUTS`)
UserPolicy = namedtuple("UserPolicy", "p seg_t seg_c key rule dyn uses")
#: a user rule's inputs copied only when its function takes them: name -> bit of ``UserPolicy.uses``
RULE_INPUTS = {"width": 1, "estimate": 2, "wait": 4, "group": 8, "run_end": 16, "run_width": 16}
USE_WIDTH, USE_EST, USE_WAIT, USE_GROUP, USE_RUN = 1, 2, 4, 8, 16


def stable_order(key: np.ndarray) -> np.ndarray:
    """The jobs sorted by (key, job): ``np.lexsort((arange(n), key))``, without its merge sort
    where the keys allow. Keys already in order (the submit order) give ``arange``; integral keys
    spanning fewer than 65,536 values (processors, estimates in seconds up to 18 h, user groups)
    sort as uint16, which numpy's stable sort does by radix. On CTC-SP2 scaled to 1024
    (136,004 jobs) the four orders' ranks cost 10 ms this way against 48 ms by merge sort (one
    EASY simulation takes 120 ms); a rule base pays them at every evaluation."""
    n = key.shape[0]
    if n == 0 or np.all(key[1:] >= key[:-1]):
        return np.arange(n)
    lo = key.min()
    if np.isfinite(lo) and key.max() - lo < 65536 and np.array_equal(key, np.floor(key)):
        return np.argsort((key - lo).astype(np.uint16), kind="stable")
    return np.argsort(key, kind="stable")


def make_jobs(submit, est, proc, width, group, *, ranks=False) -> Jobs:
    """The ``Jobs`` bundle of jobs already sorted by submit time (stable).

    One key row per queue order registered now (built in, then user orders of
    :func:`schedlab.strategy.register_order`, after greedy's unused row). ``ranks``: also each
    job's rank in every static order (True) or in the static orders whose codes it lists (rows
    RANK0 + 2 code / + 1; -1 without), which :func:`schedlab.sim.dispatch.resort_queue`
    uses when a loop switches orders on long queues (a rule base; an order without ranks is
    re-sorted by its keys, the same order more slowly). Off by default: one sort per order costs
    more than a whole FCFS run spends re-sorting, which it never does (measured: +18 % on CTC-SP2)."""
    n = len(submit)
    orders = registry.all_orders()
    f = np.empty((KEY0 + len(orders), n), dtype=np.float64)
    f[SUBMIT], f[EST], f[PROC] = submit, est, proc
    width, est, group = np.asarray(width), np.asarray(est), np.asarray(group)
    jobs = np.arange(n)
    for code, row in enumerate(orders):  # each static order's key (registry rows)
        f[KEY0 + code] = registry.order_keys(row, width, est, group, jobs, f[SUBMIT]) if row.key is not None else jobs
    i = np.empty((RANK0 + 2 * len(orders), n), dtype=np.int64)
    i[WIDTH], i[GROUP] = width, group
    i[RANK0:] = -1
    if ranks is not False:
        static = [code for code, row in enumerate(orders) if row.key is not None]
        for code in static if ranks is True else ranks:  # re-sorts by one integer per job
            by_rank = stable_order(f[KEY0 + code])
            i[RANK0 + 2 * code + 1] = by_rank
            i[RANK0 + 2 * code, by_rank] = jobs
    return Jobs(f, i)


def new_site(n: int, procs: int, kill: bool, order: int = O_SUBMIT) -> Site:
    """An empty machine of ``procs`` processors able to hold all ``n`` jobs."""
    ctr = np.zeros(N_CTR, dtype=np.int64)
    ctr[FREE] = procs
    ctr[M] = procs
    ctr[KILL] = int(bool(kill))
    ctr[QORDER] = order if order != O_GREEDY else O_SUBMIT
    ctr[LASTDISP] = -1
    ctr[LASTORDER] = -1
    ctr[DIRTY] = 1
    si = np.full((N_SI, n), -1, dtype=np.int64)
    si[MARK] = 0
    si[INORD] = 0
    sf = np.full((N_SF, n), np.nan, dtype=np.float64)
    ctr[CACHE_HEAD] = -1
    ctr[GSYNC] = -1
    cap = 2 * n + 2  # the profile (<= n + 1 steps) and its staircase scratch (:mod:`.profile`)
    return Site(ctr, np.zeros(N_X), si, sf, np.zeros(cap, dtype=np.float64), np.zeros(cap, dtype=np.int64))


def greedy_params(order, seg_t=None, seg_c=None) -> GreedyParams:
    """Criterion parameters per time-of-week class (3 rows) of a ``Greedy`` order (a static order
    has none: the engine gets ``G = None``, see :func:`schedlab.sim.dispatch.schedule_pass`)."""
    p = np.zeros((3, N_GP))
    p[:, C_W:C_W + N_GROUPS] = 1.0
    for c, crit in enumerate(order.per_class()):
        p[c, C_KIND] = CRITERION_CODES[crit.kind]
        p[c, C_A], p[c, C_B] = crit.a, crit.b
        p[c, C_W:C_W + N_GROUPS] = crit.w
        p[c, C_K:C_K + N_GROUPS] = crit.K
    if seg_t is None:
        seg_t = np.array([-np.inf])
        seg_c = np.zeros(1, dtype=np.int64)
    return GreedyParams(p, np.ascontiguousarray(seg_t, dtype=np.float64), np.ascontiguousarray(seg_c, dtype=np.int64))
