"""Per-pass kernels: queue maintenance, queue orders and the four dispatch rules.

Every function works on the ``Jobs``/``Site``/``GreedyParams`` bundles of :mod:`.state` and the
current time ``now``. Contracts (what a multi-site or fuzzy-rule engine may rely on):

- :func:`release_finished` (J, S, now): end every running job with finish <= now, free its
  processors; marks the conservative profile dirty when a job ended before its estimated end.
- :func:`enqueue` (J, S, j): job j joins the waiting queue at its place in the site's static order.
- :func:`schedule_pass` (J, S, G, dispatch, order, now) -> started: ONE scheduling pass (callers
  skip it when the queue is empty, as :func:`schedlab.sim.loop.site_loop` does) with the
  given dispatch rule and queue order *codes* (they may differ from pass to pass: the queue is
  re-sorted and the conservative profile rebuilt when they change). Started jobs get
  start/finish in ``S.f``.
- the rules ``fcfs_pass``/``list_pass``/``easy_pass``/``conservative_pass`` (J, S, view, now):
  start jobs of ``view`` (waiting jobs in queue order) with :func:`start_job`; they do not
  compact the queue (``schedule_pass`` does).
- a user's dynamic order and a user's rule (codes past the built-in ones) come compiled in ``G``,
  a ``UserPolicy`` (:mod:`.user`); for ``G`` None or the greedy parameters those branches are
  pruned or constant at compile time.

Semantics: genetic-fuzzy-rule-based-scheduling Section 2.1 and greedy-es-sorting-criteria
Sections II-A, III-A; see :mod:`schedlab.sim.engine` for the event loop.
"""

from __future__ import annotations

import numpy as np

import warnings

from numba import literal_unroll
from numba.core.errors import NumbaExperimentalFeatureWarning

from .._config import njit
from ..strategy import registry
from .greedy import greedy_fcfs_pass, greedy_view
from .user import dynamic_code, user_rule_pass, user_view
from .sort import sort_jobs
from . import profile
from .ops import enqueue, queue, release_finished, start_job  # noqa: F401  (part of this module's contract)
from .state import (
    PROF_N,
    AUX_H, AUX_P, RANK0, CACHE_HEAD, CACHE_VERSION, N_SEEN, SEEN, DIRTY, EST, EST_H, EST_N, ESTEND, EXTRA,
    FCFS, DEAD, GSYNC, FREE, INORD, KEY0, KILL, ORDERED, LASTDISP, LASTORDER, MARK, NLOG, NQ, O_GREEDY, QHEAD, QORDER, RESV, SHADOW, UERR, VERSION, WIDTH,
)


# ---------------------------------------------------------------------------- queue
@njit(_nrt=False)  # no reference counting: sorts in place, in scratch rows (allocates nothing)
def resort_queue(J, S, order):
    """Re-sort the waiting queue by static order ``order`` (when the order changes per pass), key
    then job number: by each job's integer rank in that order when the bundle has them
    (``make_jobs(ranks=True)``: a sort of contiguous integers), else by the keys (a sort that
    reads each job's key). Both sort in place in scratch rows (:func:`schedlab.sim.sort.sort_jobs`)
    and give the same order; ranks are the faster path on switching loops (median of 3, CTC-1024:
    the trained iterative-CTC base, 15,000 order switches, 3.37 s with ranks against 4.16 s by
    keys; symbiotic-CTC 2.54 s against 2.62 s)."""
    nq = S.ctr[NQ]
    q = queue(S)
    if nq > 0 and J.i[RANK0 + 2 * order, 0] >= 0:
        r = S.i[AUX_H]
        for i in range(nq):
            r[i] = J.i[RANK0 + 2 * order, q[i]]
        sort_jobs(r, nq, None, None, 1.0, S.i[AUX_P])
        for i in range(nq):
            q[i] = J.i[RANK0 + 2 * order + 1, r[i]]
    else:
        key = J.f[KEY0 + order]
        sort_jobs(q, nq, key, key, 1.0, S.i[AUX_P])
    S.ctr[QORDER] = order
    S.ctr[DIRTY] = 1


# ---------------------------------------------------------------------------- dispatch rules
@njit(inline="always")
def fcfs_pass(J, S, view, now):
    """FCFS: start the head while it fits; nothing else."""
    JF, JI, ctr, SI, SF = J.f, J.i, S.ctr, S.i, S.f
    i = 0
    while i < view.shape[0] and JI[WIDTH, view[i]] <= ctr[FREE]:
        start_job(JF, JI, ctr, SI, SF, view[i], now)
        i += 1
    return i


@njit(inline="always")
def list_pass(J, S, view, now):
    """List scheduling: start every job, in queue order, that fits now."""
    JF, JI, ctr, SI, SF = J.f, J.i, S.ctr, S.i, S.f
    started = 0
    for i in range(view.shape[0]):
        j = view[i]
        if JI[WIDTH, j] <= ctr[FREE]:
            start_job(JF, JI, ctr, SI, SF, j, now)
            started += 1
    return started


@njit(inline="always")
def head_reservation(J, S, need, now):
    """(shadow, extra): earliest time ``need`` processors are free by the running jobs' estimated
    ends (max(start + \\bar p, now)), and the processors left spare then."""
    ctr, SI, SF = S.ctr, S.i, S.f
    avail = ctr[FREE]
    if avail >= need:
        return now, avail - need
    shadow = np.inf
    found = False
    for k in range(ctr[EST_N]):  # running jobs in order of estimated end
        j = SI[EST_H, k]
        e = max(SF[ESTEND, j], now)
        if found and e > shadow:
            break
        avail += J.i[WIDTH, j]
        if not found and avail >= need:
            found = True
            shadow = e
    return shadow, avail - need


@njit(_nrt=False)  # a call of its own without reference counting: inlined into the loops, its
def easy_pass(J, S, view, now):  # bundle reads cost atomic increfs per pass (CTC-1024: 0.237 -> 0.197 s)
    """EASY: start the head while it fits; then backfill later jobs that fit now and end (by
    their estimate) by the head's reservation or use only the processors it leaves spare."""
    JF, JI, ctr, SI, SF = J.f, J.i, S.ctr, S.i, S.f
    nq = view.shape[0]
    i = 0
    while i < nq and JI[WIDTH, view[i]] <= ctr[FREE]:
        start_job(JF, JI, ctr, SI, SF, view[i], now)
        i += 1
    if i >= nq:
        return i
    started = i
    if ctr[FREE] == 0:  # nothing can backfill (the scan below would find no job that fits)
        return started
    head = view[i]
    first = i + 1  # the first later job that fits now: none means no backfill, no reservation needed
    while first < nq and JI[WIDTH, view[first]] > ctr[FREE]:
        first += 1
    if first >= nq:
        return started
    if ctr[KILL] == 1 and ctr[CACHE_HEAD] == head and ctr[CACHE_VERSION] == ctr[VERSION]:
        # only arrivals since the last pass: same running set, same head, same reservation
        # (and the spare count it left); without killing, estimated ends move with now
        shadow, extra = S.x[SHADOW], S.x[EXTRA]
    else:
        shadow, extra = head_reservation(J, S, JI[WIDTH, head], now)
    for k in range(first, nq):
        if ctr[FREE] == 0:
            break
        j = view[k]
        w = JI[WIDTH, j]
        if w <= ctr[FREE]:
            if now + JF[EST, j] <= shadow:
                start_job(JF, JI, ctr, SI, SF, j, now)
                started += 1
            elif w <= extra:
                start_job(JF, JI, ctr, SI, SF, j, now)
                extra -= w
                started += 1
    S.x[SHADOW], S.x[EXTRA] = shadow, extra
    ctr[CACHE_HEAD], ctr[CACHE_VERSION] = head, ctr[VERSION]
    return started


_NSEEN = N_SEEN  # reservations remembered by _reserve_from to bound later searches (Site.x[SEEN])
#: ... and scanned only on profiles longer than this: shorter walks cost less than the scan
#: (conservative, median of 5: CTC-SP2 0.288 s scanning always, 0.268 s from 96 steps, 0.269 s
#: never; SDSC-BLUE 1.157 / 1.030 / 1.043 s; CEA-Curie 6.0 s from 48 to 160 steps, 6.5 s never)
_SEEN_FROM = 96


@njit(inline="always")
def _back_to_fit(JF, JI, view, lo, last, pt, pf, p, nl, sc, now):
    """From ``view[last]`` back to ``view[lo]``: the position of the last job that fits now on the
    profile (``lo - 1`` if none), with the staircase state (``nl``, ``sc``) it leaves."""
    while last >= lo:
        k = view[last]
        if JI[WIDTH, k] <= pf[0]:
            ok, nl, sc = profile._stair(pt, pf, p, nl, sc, JI[WIDTH, k], now + JF[EST, k])
            if ok:
                break
        last -= 1
    return last, nl, sc


@njit(_nrt=False)  # no reference counting: works on borrowed arrays, allocates nothing
def _reserve_from(J, S, view, first, now, rebuilt):
    """Reserve ``view[first:]`` in queue order on the profile, stopping as soon as no job left
    can start at ``now``; returns the position reached (jobs from there on stay unreserved).

    Reservations only take processors away, so a job that does not fit at ``now`` in the
    profile before ``view[first]`` is reserved never starts in this pass; the later ones after
    the last job that may still start need no reservation now (the next pass places them on
    the same profile, or rebuilds it). Saves the O(queue x profile) walk on long queues.

    ``rebuilt``: the profile was rebuilt for this pass, so jobs behind the position reached may
    still hold reservations of the old one (they are cleared); otherwise the jobs from ``first``
    on hold none already (unreserved jobs form a suffix of the queue).
    """
    JF, JI, SF = J.f, J.i, S.f
    ctr, pt, pf = S.ctr, S.prof_t, S.prof_f  # once: taking arrays out of a bundle costs refcounts
    nq = view.shape[0]
    # the last job that may start now, found from the back; the staircase (profile._stair) state
    last, nl, sc = _back_to_fit(JF, JI, view, first, nq - 1, pt, pf, ctr[PROF_N], 0, 0, now)
    i = first
    seen = S.x  # SEEN: the last _NSEEN jobs reserved in this pass, width / length / start
    nh = 0
    while i <= last:
        j = view[i]
        w, d = JI[WIDTH, j], JF[EST, j]
        lb = now  # no start before lb fits: one reserved since was as narrow and as short and
        if ctr[PROF_N] > _SEEN_FROM:  # did not fit before its start (the profile only fills)
            for h in range(min(nh, _NSEEN)):  # branch-free: a max the compiler vectorizes
                ok = (seen[SEEN + h] <= w) & (seen[SEEN + _NSEEN + h] <= d)
                lb = max(lb, seen[SEEN + 2 * _NSEEN + h] if ok else lb)
        s = profile._reserve(ctr, pt, pf, w, d, lb)
        h = SEEN + nh % _NSEEN
        seen[h], seen[h + _NSEEN], seen[h + 2 * _NSEEN] = w, d, s
        nh += 1
        SF[RESV, j] = s
        i += 1
        if last >= i:
            nl, sc = profile._stair_cut(pt, ctr[PROF_N], nl, sc, s)  # the booking changed steps from s on
            if s < now + JF[EST, view[last]]:  # this block overlaps its window:
                if not profile._fits(pt, pf, ctr[PROF_N], s, min(s + JF[EST, j], now + JF[EST, view[last]]),
                                    JI[WIDTH, view[last]]):  # only its steps changed
                    last, nl, sc = _back_to_fit(JF, JI, view, i, last - 1, pt, pf, ctr[PROF_N], nl, sc, now)
    if rebuilt:  # reservations of the last profile may remain behind i (without a rebuild the
        for h in range(i, nq):  # jobs from first on were unreserved already)
            SF[RESV, view[h]] = np.nan
    return i


@njit(_nrt=False)  # no reference counting: works on borrowed arrays, allocates nothing
def conservative_pass(J, S, view, now):
    """Conservative backfilling: every waiting job, in queue order, holds a reservation at its
    earliest start that delays no earlier one; jobs reserved at ``now`` start.

    The profile is kept from pass to pass; reservations are made in queue order only as far as
    some later job may still start now (:func:`_reserve_from`), and the next pass continues from
    there on the same profile. It is rebuilt (every reservation recomputed in queue order) when a
    job ended before its estimated end, a job joined ahead of waiting jobs (non-submit static
    orders: the newcomer comes first in queue order, so later reservations may move back), the
    order is dynamic (greedy), the dispatch rule changed, or, without killing, a job
    overran its estimate (its estimated end is taken as ``now``).
    """
    JF, JI, ctr, SI, SF = J.f, J.i, S.ctr, S.i, S.f
    nq = view.shape[0]
    if ctr[KILL] == 0 and ctr[EST_N] > 0 and SF[ESTEND, SI[EST_H, 0]] < now:
        ctr[DIRTY] = 1  # a job overran its estimate: its estimated end moves with now
    first = nq  # first unreserved queue position (unreserved jobs form a suffix of the queue)
    if ctr[DIRTY] == 0:
        for i in range(nq):
            r = SF[RESV, view[i]]
            if r < now:
                ctr[DIRTY] = 1
                break
            if np.isnan(r):  # the rest is unreserved too
                first = i
                break
    if ctr[DIRTY] != 0:
        profile.rebuild(J, S, now)
        ctr[DIRTY] = 0
        reached = _reserve_from(J, S, view, 0, now, True)
    else:
        profile.drop_past(S, now)
        reached = _reserve_from(J, S, view, first, now, False) if first < nq else nq
    started = 0
    for i in range(reached):  # only reserved jobs may start
        j = view[i]
        if SF[RESV, j] == now:
            if JI[WIDTH, j] <= ctr[FREE]:
                start_job(JF, JI, ctr, SI, SF, j, now)
                started += 1
            else:
                ctr[DIRTY] = 1  # only when an overrun job holds the processors (no killing)
    return started


# ---------------------------------------------------------------------------- the rule table
def rule_kernels() -> tuple:
    """The compiled pass kernel of every registry row, in code order."""
    return tuple(registry.resolve(r.kernel) for r in registry.DISPATCH)


warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning, message="First-class function type")


@njit(inline="always")
def run_rule(J, S, view, now, dispatch):
    """The pass kernel of rule code ``dispatch`` (unrolled at compile time over the registry's
    kernels, :data:`RULE_KERNELS`: a compiled if-chain, one row per rule)."""
    started = 0
    code = 0
    for kernel in literal_unroll(RULE_KERNELS):
        if code == dispatch:
            started = kernel(J, S, view, now)
        code += 1
    return started


# ---------------------------------------------------------------------------- one pass
@njit(inline="always")
def schedule_pass(J, S, G, dispatch, order, now):
    """One scheduling pass at ``now`` with dispatch rule and queue order codes; returns #started.

    ``G`` is None when no pass takes the greedy order (static orders only): numba then prunes the
    greedy branches at compile time, and that specialization never compiles the greedy kernels
    (about a fifth of the engine's compile time). A loop that may pass the greedy order code must
    hold a ``G`` of a greedy strategy (as the rule base does)."""
    ctr = S.ctr
    nq = ctr[NQ]
    ctr[NLOG] = 0  # the start log lists this pass's starts (outside a pass starts <= n jobs)
    if dispatch != ctr[LASTDISP] or order != ctr[LASTORDER]:
        ctr[DIRTY] = 1  # reservations were made by another rule or in another order
        ctr[LASTDISP] = dispatch
        ctr[LASTORDER] = order
    if nq == 0 or ctr[UERR] != 0:  # a user's key or rule failed (.user): nothing starts any more
        return 0
    if G is not None:  # pruned at compile time when G is None: static orders only
        if order == O_GREEDY and dispatch == FCFS:  # Greedy: the best job only, no sort (.greedy)
            if ctr[QORDER] != 0:
                _compact(S, ctr[DEAD])
                resort_queue(J, S, 0)
            started = greedy_fcfs_pass(J, S, G, now)
            ctr[DEAD] += started  # started jobs stay in the queue, marked, until half of it is dead:
            if 2 * ctr[DEAD] > ctr[NQ]:  # dropping them costs O(queue), amortised O(1) per job
                _compact(S, ctr[DEAD])
            return started
    _compact(S, ctr[DEAD])  # what a greedy pass left behind
    nq = ctr[NQ]
    ctr[GSYNC] = -1  # the greedy heaps miss what this pass changes
    view = queue(S)
    if G is not None and order == O_GREEDY:
        if ctr[QORDER] != 0:
            resort_queue(J, S, 0)
        greedy_view(J, S, G, now)
        view = S.i[ORDERED, :nq]
        ctr[DIRTY] = 1
    elif G is not None and order == dynamic_code(G):  # a user's dynamic order (.user; -1 unless G is one)
        user_view(J, S, G, now)
        if ctr[UERR] != 0:
            return 0
        view = S.i[ORDERED, :nq]
        ctr[DIRTY] = 1
    elif ctr[QORDER] != order:
        resort_queue(J, S, order)
    if G is not None and dispatch >= N_RULES:  # a user's rule (.user): its kernel comes in G
        started = user_rule_pass(J, S, G, view, now)
    else:
        started = run_rule(J, S, view, now, dispatch)
    _compact(S, started)
    return started


@njit(inline="always")
def _compact(S, started):
    """Drop the ``started`` (marked) jobs from the waiting queue, keeping the others' order
    (exactly ``started`` jobs of the queue are marked).

    Greedy passes leave their started jobs marked in the queue (``DEAD``); every synced greedy
    heap entry lies before them, so the heaps' sync point moves back by as many.
    """
    if started == 0:
        return
    if S.ctr[DEAD] > 0:
        if S.ctr[GSYNC] >= 0:
            S.ctr[GSYNC] -= S.ctr[DEAD]
        S.ctr[DEAD] = 0
    q, mark = queue(S), S.i[MARK]
    nq = q.shape[0]
    i = 0
    found = 0
    while i < nq and found < started:  # ``started`` jobs are marked: find the last one
        if mark[q[i]] != 0:
            found += 1
        i += 1
    gap = found  # q[:i] holds i - gap waiting jobs among the started ones
    if i - gap < nq - i:  # fewer waiting jobs before the last started one than after it: they
        k = i  # move to the end of q[:i] and the head moves past the started ones (FCFS starts
        for h in range(i - 1, -1, -1):  # a prefix: nothing shifts)
            j = q[h]
            if mark[j] != 0:
                mark[j] = 0
                S.i[INORD, j] = 0
            else:
                k -= 1
                q[k] = j
        S.ctr[QHEAD] += gap
    else:
        k = 0
        for h in range(i):
            j = q[h]
            if mark[j] != 0:
                mark[j] = 0
                S.i[INORD, j] = 0
            else:
                q[k] = j
                k += 1
        for h in range(i, nq):  # no test per job
            q[h - gap] = q[h]
    S.ctr[NQ] = nq - gap


#: the kernel of each dispatch code (registry order); resolved at import, after the kernels above
RULE_KERNELS = rule_kernels()
#: codes from here on are a user's rules (registry.USER_RULES), whose kernel a UserPolicy ``G`` holds
N_RULES = len(RULE_KERNELS)
