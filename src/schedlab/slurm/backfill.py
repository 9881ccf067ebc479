"""The backfill scheduler of ``--policy slurm`` (Slurm's backfill.c as docs/slurm-policy-spec.md reads
it): reservations from the running jobs' expected ends in batches, a pass over the queue in
priority order up to bf_max_job_test, and the tests that let a pass be skipped or resumed when it
provably starts nothing (:func:`_nothing_fits`). Called by the loop in :mod:`schedlab.slurm.kernel`."""

from __future__ import annotations

import numpy as np

from .._config import njit
from .layout import (F_LIMIT, I_AOFF, I_CPUS, I_PART, O_BF_COUNT_POPPED, O_BF_TOUCH_EXCLUSIVE, O_RESERVE_FIRST_ONLY,
                     O_RESV_ROUNDED, O_WILLRUN_EXACT, P_BF_MAX_TEST, P_BF_PHASE, P_BF_RES, P_BF_WINDOW, P_KILL_WAIT,
                     P_NODE_SPACE, P_OVER_TIME)
from .nodespace import (ONE, ZERO, _held_direct, _nwords, _planes_extend, _planes_now, _planes_of, _slot_add,
                        _slot_grown, lowbit, popcount)
from ..sim.profile import _lower
from .ops import NO_NRT, _remove, _start
from .limits import _bf_held, _take
from .layout import O_ASSOC_LIMIT_STOP


@njit
def _batches(now, run, nrun, expend, exact, late, p, part_nodes, JI, anode, alen):
    """Running jobs by expected end and the will-run
    batches over them: batch b frees the jobs ``byend[:bcount[b]]`` at ``btime[b]``. Batches
    (will_run_batching='doubling-30s'): the jobs ending within 30 s of the batch's first end, then
    60 s, 120 s, ... (job_test.c _will_run_test; only jobs on a node of partition p count, as it
    skips jobs on none of the job's nodes; its test after 200 removals is not modelled); 'exact': one batch per end time;
    'barrier-30s' (``exact`` = 2 + the Unix start mod 30, see :func:`_barrier_batches`). A job past
    its limit is expected to end KillWait (+ OverTimeLimit) after it, and never before now + 1
    (_guess_job_end). Returns (byend as job numbers, btime, bcount, nb)."""
    mine = np.empty(nrun, dtype=np.int64)  # the running jobs on a node of partition p
    m = 0
    for q in range(nrun):
        jj = run[q]
        o = JI[I_AOFF, jj]
        for z in range(alen[jj]):
            if part_nodes[p, anode[o + z]]:
                mine[m] = jj
                m += 1
                break
    nrun = m
    ends = np.empty(nrun)
    for q in range(nrun):
        e = expend[mine[q]]
        if e <= now:  # past its limit (the kill check comes every 30 s): job_test.c _guess_job_end
            e += late  # KillWait + OverTimeLimit
        ends[q] = max(e, now + 1.0)
    idx = np.argsort(ends, kind="mergesort")
    byend = np.empty(nrun, dtype=np.int64)
    for q in range(nrun):
        byend[q] = mine[idx[q]]
    btime = np.empty(nrun + 1)
    bcount = np.empty(nrun + 1, dtype=np.int64)
    if exact >= 2:
        return byend, btime, bcount, _barrier_batches(ends, idx, nrun, exact - 2, btime, bcount)
    nb = 0
    q = 0
    window = 30.0
    while q < nrun:
        if exact:
            t_lim = ends[idx[q]]
        else:
            t_lim = ends[idx[q]] + window
            window *= 2.0
        while q < nrun and ends[idx[q]] <= t_lim:
            q += 1
        btime[nb] = ends[idx[q - 1]]
        bcount[nb] = q
        nb += 1
    return byend, btime, bcount, nb


@njit
def _barrier_batches(ends, idx, nrun, phase, btime, bcount):
    """The will-run batches as job_test.c ``_will_run_test`` (22.05) forms them
    (will_run_batching='barrier-30s'): the first expected end is aligned to the next 30-s barrier
    of Unix time (``delta = end_time % time_window; end_time += time_window - delta``, so an end on a
    barrier moves a whole 30 s), and that barrier stays the base of every batch; a batch removes
    the next job whatever its end, then each job ending by base + window (window 30 s); after each
    batch the window doubles, and keeps doubling until the next job ends within it (the
    ``do ... while`` after the removals). Each batch is tried at its last job's end. ``phase``:
    the trace's Unix start mod 30 (times are seconds after it). Fills ``btime``/``bcount``;
    returns the number of batches."""
    nb = 0
    if nrun == 0:
        return 0
    first = ends[idx[0]] + phase
    base = np.floor(first / 30.0) * 30.0 + 30.0 - phase
    window = 30.0
    q = 0
    while q < nrun:
        q += 1  # list_next: the batch's first job is removed before any test
        while q < nrun and ends[idx[q]] <= base + window:
            q += 1
        btime[nb] = ends[idx[q - 1]]
        bcount[nb] = q
        nb += 1
        window *= 2.0
        while q < nrun and ends[idx[q]] > base + window:
            window *= 2.0
    return nb


@njit
def _freed_totals(p, part_nodes, byend, bcount, nb, JI, anode, acnt, alen):
    """CPUs of partition p's nodes freed by each batch prefix: out[b] for batches [0, b]."""
    out = np.zeros(nb)
    acc = 0.0
    q = 0
    for b in range(nb):
        while q < bcount[b]:
            jj = byend[q]
            o = JI[I_AOFF, jj]
            for z in range(alen[jj]):
                if part_nodes[p, anode[o + z]]:
                    acc += acnt[o + z]
            q += 1
        out[b] = acc
    return out


@njit(inline="always")
def _cpus_outside(fp, b, mask, NPL, W_):
    """The free CPUs after batch prefix b (``fp[b]``: bit planes, :mod:`.nodespace`) on the nodes
    not in ``mask`` (the planes indexed here, not sliced by the caller: a view per candidate time
    cost a reference count update)."""
    avail = 0
    for k in range(NPL):
        for w in range(W_):
            avail += popcount(fp[b, k, w] & ~mask[w]) << k
    return avail


@njit(inline="always")
def _held_rounded(s_r, e_r, nres, RF, RB, held):
    """OR into ``held`` the nodes of the reservations _test_resv_overlap finds overlapping
    [s_r, e_r) (bounds already floored to bf_resolution): ``end > s_r and begin < e_r``.
    ``RB[q]``: reservation q's nodes as a bitmap."""
    rb, re = RF[0], RF[1]
    for q in range(nres):
        if re[q] > s_r and rb[q] < e_r:
            for w in range(held.shape[0]):
                held[w] |= RB[q, w]


@njit(inline="always")
def _cand_now(now, b_end, excl, nres, RF, RB, pmask, candh):
    """The nodes that are not candidates from tau = now into ``candh``: those whose first
    reservation ending after now (``first_rb``) begins by b_end = now + L (before, bf_touch=
    'exclusive'); returns the earliest first reservation of a node of the partition (``pmask``)
    beginning after b_end (inf: none).

    From the reservations rather than node by node (the same sets): a node's first_rb is the
    least begin of the reservations on it ending after now, so it begins by b_end exactly when
    one of those reservations does, and ``candh`` is the OR of their bitmaps (bits off the
    partition are never read: the callers mask with the partition's free-CPU planes). The least
    first_rb after b_end among the partition's nodes is the least begin of a reservation (ending
    after now, beginning after b_end) holding a partition node not in ``candh``: that node's
    first_rb is at most this begin and after b_end; and the reservation giving a node its
    first_rb holds that node."""
    rb, re = RF[0], RF[1]
    W_ = candh.shape[0]
    for w in range(W_):
        candh[w] = ZERO
    for q in range(nres):
        if re[q] > now and (rb[q] <= b_end if not excl else rb[q] < b_end):
            for w in range(W_):
                candh[w] |= RB[q, w]
    nxt = np.inf
    for q in range(nres):
        if re[q] > now and rb[q] < nxt and not (rb[q] <= b_end if not excl else rb[q] < b_end):
            for w in range(W_):
                if RB[q, w] & pmask[w] & ~candh[w] != ZERO:
                    nxt = rb[q]
                    break
    return nxt


@njit(inline="always")
def _held_at(t, L, excl, direct, nempty, nres, RF, RI, rnodes, S, xs, SB, suf, agg, held, ia, wa, wm, wb):
    """``held``: the nodes the pass's reservations hold over [t, t + L] (``direct``: tested one by
    one, L <= 0; else the OR of the slots from the one holding t (wa) to the last beginning by
    t + L (wb; before t + L, exclusive), and the empty reservations one by one). Both ends only
    move forward with t, so the window's OR is kept as a queue: each slot is ORed in at most
    twice per walk. The window's state (ia: the last slot beginning by t; suf[wa] the OR of
    [wa, wm), agg of [wm, wb]) is any earlier t's, or (-1, 0, 0, -1) with agg zero for none:
    ``held`` depends on t alone, so a walk may skip times. Returns (ia, wa, wm, wb)."""
    W_ = held.shape[0]
    if direct:
        for w in range(W_):
            held[w] = ZERO
        _held_direct(t, L, excl, nres, RF, RI, rnodes, False, held)
        return ia, wa, wm, wb
    while ia + 1 < S and xs[ia + 1] <= t:
        ia += 1
    na = max(ia, 0)
    if na > wb:  # the window moved past all its slots
        wa, wm, wb = na, na, na - 1
        for w in range(W_):
            agg[w] = ZERO
    elif na > wa:
        wa = na
        if wa >= wm:  # the front is used up: the back becomes the front
            for w in range(W_):
                suf[wb, w] = SB[wb, w]
            for s_ in range(wb - 1, wa - 1, -1):
                for w in range(W_):
                    suf[s_, w] = SB[s_, w] | suf[s_ + 1, w]
            wm = wb + 1
            for w in range(W_):
                agg[w] = ZERO
    while wb + 1 < S and (xs[wb + 1] < t + L if excl else xs[wb + 1] <= t + L):
        wb += 1
        for w in range(W_):
            agg[w] |= SB[wb, w]
    if wa < wm:
        for w in range(W_):
            held[w] = suf[wa, w] | agg[w]
    else:
        for w in range(W_):
            held[w] = agg[w]
    if nempty > 0:
        _held_direct(t, L, excl, nres, RF, RI, rnodes, True, held)
    return ia, wa, wm, wb


@njit
def _rows_grown(A, n):
    """``A`` with room for at least n rows (``A[:A.shape[0]]`` kept; doubling)."""
    if n <= A.shape[0]:
        return A
    B = np.empty((max(n, 2 * A.shape[0]), A.shape[1]), dtype=A.dtype)
    B[:A.shape[0]] = A
    return B


@njit(**NO_NRT)
def _add_reservation(q, now, RF, RI, rnodes, first_rb, unres, top, ntop, part_nodes):
    """Reservation q (the q reservations before it added) into the nodes' earliest reservation
    (one ending after now), the partitions' counts of unreserved nodes and latest earliest
    reservation of their reserved nodes (``top``, held by ``ntop`` nodes), and the order by end (a
    later one after an equal one)."""
    rb, re, roff, rlen, ord_re = RF[0], RF[1], RI[0], RI[1], RI[2]
    for z in range(roff[q], roff[q] + rlen[q]):
        v = rnodes[z]
        old = first_rb[v]
        if re[q] > now and rb[q] < old:
            first_rb[v] = rb[q]
            for p in range(part_nodes.shape[0]):
                if not part_nodes[p, v]:
                    continue
                if old == np.inf:
                    unres[p] -= 1
                elif old == top[p]:
                    ntop[p] -= 1
                    if ntop[p] == 0:  # the latest one moved earlier: find the new latest
                        top[p] = -np.inf
                        for u in range(first_rb.shape[0]):
                            if part_nodes[p, u] and first_rb[u] < np.inf:
                                if first_rb[u] > top[p]:
                                    top[p] = first_rb[u]
                                    ntop[p] = 1
                                elif first_rb[u] == top[p]:
                                    ntop[p] += 1
                        continue
                if rb[q] > top[p]:
                    top[p] = rb[q]
                    ntop[p] = 1
                elif rb[q] == top[p]:
                    ntop[p] += 1
    k = q
    while k > 0 and re[ord_re[k - 1]] > re[q]:
        ord_re[k] = ord_re[k - 1]
        k -= 1
    ord_re[k] = q


@njit(**NO_NRT)
def _free_first_rb(fl, nfl, first_rb, free, frb, fcum):
    """The first reservations of the nodes with free CPUs (``fl[:nfl]``), latest first, into
    ``frb[:nfl]``, and in ``fcum[z]`` the free CPUs of the nodes ``frb[:z + 1]`` stands for."""
    for z in range(nfl):
        v = fl[z]
        x, c = first_rb[v], free[v]
        y = z
        while y > 0 and frb[y - 1] < x:
            frb[y] = frb[y - 1]
            fcum[y] = fcum[y - 1]
            y -= 1
        frb[y] = x
        fcum[y] = c
    for z in range(1, nfl):
        fcum[z] += fcum[z - 1]


@njit(**NO_NRT)
def _can_start_from(k, order, now, excl, part_free, frb, fcum, nfl, JF, JI):
    """The first queue position >= k whose job could still start in this pass, or -1: it fits in
    its partition's free CPUs and in the free CPUs of nodes (of any partition: an upper bound)
    whose first reservation begins after now + its limit (at or after, bf_touch='exclusive')."""
    for k2 in range(k, order.shape[0]):
        j = order[k2]
        need = JI[I_CPUS, j]
        if need > part_free[JI[I_PART, j]]:
            continue
        b_end = now + JF[F_LIMIT, j]
        got = 0
        for z in range(nfl):
            if frb[z] > b_end if not excl else frb[z] >= b_end:
                got = fcum[z]
            else:
                break
        if got >= need:
            return k2
    return -1


@njit(**NO_NRT)
def _space_add(nse, nrec, b, e, res, win_end):
    """Slurm's node_space record count after a reservation [b, e) (backfill.c _add_reservation): a
    reservation occupies at least one bf_resolution slot (e >= b + res); a record is split at b and
    at e when they lie before the window's end and no record ends there yet. ``nse[:nrec]``: the
    records' ends, sorted. Returns the new count."""
    e = max(e, b + res)
    for x in (b, e):
        if x >= win_end:
            continue
        lo = _lower(nse, nrec, x)
        if nse[lo] == x:
            continue
        for z in range(nrec, lo, -1):
            nse[z] = nse[z - 1]
        nse[lo] = x
        nrec += 1
    return nrec


@njit(**NO_NRT)
def _walk(now, L, need, b_end, excl, rounded, res, ph, win_end, W, horizon, lo, r, p, nres, nempty, S, pb_time, pb_end,
          pb_count, pb_n, fmade, fplanes, ncpu, part_nodes, JI, anode, acnt, alen, RF, RI, rnodes, RB, pmask, xs, SB, suf,
          agg, held, held2, candh):
    """A job's earliest-start walk in :func:`_backfill` (its comment there says what it reads):
    from batch ``lo`` and reservation end ``ord_re[r]`` on, the first candidate time T at which
    the job (``need`` CPUs for L seconds, partition p) fits; ``held`` then holds the nodes it may
    not take at T. Returns (T or inf, the batch prefix at T, horizon). A function of its own
    without numba's reference counting: its helpers are inlined and pass arrays at every
    candidate time, which in :func:`_backfill` (an allocating kernel) cost a count update for
    each array at each time."""
    fp = fplanes[p]
    btime, byend, bcount, nb = pb_time[p], pb_end[p], pb_count[p], pb_n[p]
    rb, re, ord_re = RF[0], RF[1], RI[2]
    W_ = held.shape[0]
    NPL = fp.shape[1]
    b = lo
    wa, wm, wb = 0, 0, -1  # the window's slots (:func:`_held_at`)
    ia = -1
    for w in range(W_):
        agg[w] = ZERO
    held_t = np.nan  # the time ``held`` was made for: made only when read (it depends on t alone)
    direct = L <= 0.0  # (a zero limit: no slot range; tested reservation by reservation)
    t_found = np.inf
    t_last = np.nan
    bi = lo  # (now itself failed above)
    use2 = False  # the nodes were chosen outside held (held2: candidates from tau, no rounded overlap)
    # (tau = now: its candidates are made when first needed)
    cand_made = False
    while True:
        tb = btime[bi] if bi < nb else np.inf
        tr = re[ord_re[r]] if r < nres else np.inf
        if tb == np.inf and tr == np.inf:
            break
        at_end = False  # t is a reservation end: Slurm's later_start, the loop tries again from it
        if tb <= tr:
            t = tb
            bi += 1
        else:
            t = tr
            r += 1
            at_end = True
        if t == t_last:
            if not (rounded and at_end):
                continue  # (reservation ends shared, a batch at one: the same reading as at t_last)
            # a reservation end at a batch time just tested from an earlier tau: the loop tries
            # again from tau = t (below: held at t is its candidates' complement)
        else:
            t_last = t
            if t > win_end:
                horizon = min(horizon, t - W)  # until the window reaches t
                break  # a later start makes no reservation: the walk can stop
            while b < nb and btime[b] <= t:
                b += 1
            if b > fmade[p]:
                _planes_extend(p, part_nodes, byend, bcount, fmade[p], b, JI, anode, acnt, alen, fp, ncpu[p])
                fmade[p] = b
            if rounded and not at_end:
                if not cand_made:
                    # tau = now: the candidates are the nodes whose first reservation (ending after
                    # now) begins after now + L; they stay so until now + L reaches the earliest
                    # such begin (the horizon) or the walk passes tau on
                    nxt = _cand_now(now, b_end, excl, nres, RF, RB, pmask[p], candh)
                    horizon = min(horizon, nxt - L)
                    cand_made = True
                # will-run from tau on its candidates: T = t when they hold the job at t; kept
                # unless a slice overlaps the rounded [floor(t), floor(t + L)) on the nodes chosen
                if _cpus_outside(fp, b, candh, NPL, W_) < need:
                    continue  # the candidates from tau cannot hold it at t (held at t not read)
                s_r = np.floor((t + ph) / res) * res - ph
                e_r = np.floor((t + ph + L) / res) * res - ph
                for w in range(W_):
                    held2[w] = candh[w]
                _held_rounded(s_r, e_r, nres, RF, RB, held2)
                if _cpus_outside(fp, b, held2, NPL, W_) >= need:
                    t_found = t
                    use2 = True
                    break
        # the held nodes at t (:func:`_held_at`; at a time read before, already made)
        if held_t != t:
            ia, wa, wm, wb = _held_at(t, L, excl, direct, nempty, nres, RF, RI, rnodes, S, xs, SB, suf, agg, held,
                                      ia, wa, wm, wb)
            held_t = t
        if rounded:
            # a reservation end is a later_start, and an overlap tries again: from tau = t,
            # whose candidates are the nodes held (over [t, t + L]) leaves out
            for w in range(W_):
                candh[w] = held[w]
            cand_made = True
        if _cpus_outside(fp, b, held, NPL, W_) >= need:
            t_found = t
            break
    if use2:
        for w in range(W_):
            held[w] = held2[w]
    return t_found, b, horizon


@njit
def _pass_scratch(node_cpus, NP):
    """The scratch of :func:`_backfill` (sizes: nodes, partitions, bitmap words; the slot map and
    reservation bitmaps 64 rows, which a pass with more grows for itself), made once per run;
    every pass sets what it reads."""
    N = node_cpus.shape[0]
    W_ = _nwords(N)
    return (np.empty(N), np.empty(N, dtype=np.uint8), np.empty(W_, dtype=np.uint64), np.empty(W_, dtype=np.uint64),
            np.empty(NP), np.empty(NP, dtype=np.int64), np.empty(NP), np.empty(NP, dtype=np.int64),
            np.empty((NP, W_), dtype=np.uint64), np.empty(N, dtype=np.int64), np.empty(W_, dtype=np.uint64),
            np.empty(W_, dtype=np.uint64), np.empty((NP, N), dtype=np.int64), np.empty(NP, dtype=np.uint8),
            np.empty(NP, dtype=np.int64), np.empty(NP, dtype=np.int64), np.empty(N), np.empty(N, dtype=np.int64),
            np.empty(64), np.empty((64, W_), dtype=np.uint64), np.empty((64, W_), dtype=np.uint64),
            np.empty((64, W_), dtype=np.uint64))


@njit
def _backfill(now, order, k0, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
              anode, acnt, alen, start, finish, expend, run, nrun, by, RF, RI, rnodes, CK, CKF, LJ, LA, LC, BS,
              trim=False):
    """One backfill pass (backfill.c _attempt_backfill; docs/slurm-policy-spec.md section 5): the
    queue in order, at most bf_max_job_test jobs tested; a job that fits now on nodes free of every
    reservation overlapping [now, now + limit] starts; else its earliest start is found (running
    jobs removed by expected end, in will-run batches; later map slices tried) and, within
    bf_window, its selected nodes are reserved whole from floor(start/res)*res to
    floor((start + limit)/res)*res. ``order`` is the queue in :func:`_order`'s order; with
    ``trim`` the pass ends at the first position from which no job can start (the comment at the
    loop). A job an association/QOS limit holds (:mod:`.limits`) is skipped without a reservation;
    with assoc_limit_stop it is not started but reserved (the pending reason shown is set by the
    main scheduler only, which tests the same jobs whether passes are skipped or not). Returns
    (npend, nrun, horizon, reach). ``BS``: the pass's fixed-size scratch (:func:`_pass_scratch`).

    The reservations (``RF``: begin, end; ``RI``: offset and count in ``rnodes``, the order by
    end) and, for each queue position k <= ``reach``, the state before job k
    (``CK``: reservations made, jobs tested, ``rnodes`` used; ``CKF``: the horizon so far) stay
    in the caller's arrays, so that a pass may resume at position ``k0`` of the last pass that
    started nothing: when no job ended or started since, the time is before that pass's horizon
    and its first k0 jobs are this pass's first k0 (the same jobs tested in the same state make
    the same reservations; a job submitted since changes only what follows it).

    ``horizon`` (meaningful when the pass started nothing): a pass at any later time t < horizon
    with the same running and pending jobs in the same order starts nothing either, so
    :func:`slurm_loop` may skip it. The pass reads ``now`` only in: the expected ends of running
    jobs (max(end, now + 1), and end + KillWait past the limit), each tested job's candidate nodes
    (no reservation beginning by now + limit: a later pass has fewer, so a job that did not start
    does not start, and a job keeps a candidate while now + limit < its partition's latest first
    reservation), the reservation ends skipped as past, and bf_window's end (a job whose earliest
    start lay beyond it could get a reservation later). Everything else (batch times, reservation
    begins and ends, the walk) is absolute time; so, job by job, the same reservations follow, and
    the horizon is the earliest time any of these readings could change.

    Speed without changing the outcome: the CPUs a partition has free (now, and after each batch
    of ends) are totals kept per pass, so a time at which even the reservation-free nodes could
    not hold the job is passed over without looking at nodes; a node's earliest reservation
    answers the question "reserved during [now, end]"; the walk over later times reads node
    availability as bit-words (:mod:`.nodespace`: Slurm's node_space_map, time slots of node
    bitmaps), O(slots x words) per walk rather than a step per reserved node (the CTC-SP2 year's
    walks: 3.98 s -> 1.02 s, the same starts; docs/slurm-policy-spec.md, Speed)."""
    if npend == 0:
        return npend, nrun, np.inf, 0
    N = free.shape[0]
    NP = part_nodes.shape[0]
    res = P[P_BF_RES]
    ph = P[P_BF_PHASE]  # bf_resolution rounds Unix time: trace time + ph is a multiple of res at a boundary
    win_end = np.floor((now + ph + P[P_BF_WINDOW]) / res) * res - ph
    space = P[P_NODE_SPACE]
    # the node_space map's records (bf_node_space_size): their ends, sorted, from the window's end
    # (backfill.c _add_reservation splits a record at a reservation's begin and at its end unless a
    # record already ends there; a begin at the map's start still splits, leaving an empty record).
    # Counted only once the table could be full (1 + 2 reservations >= bf_node_space_size): the
    # count is the distinct bounds before the window's end, whatever the order they came in.
    nse = np.empty(1)
    nrec = -1  # (not counted yet)
    max_test = P[P_BF_MAX_TEST]
    excl = O[O_BF_TOUCH_EXCLUSIVE]
    rb, re = RF[0], RF[1]
    roff, rlen = RI[0], RI[1]
    ord_re = RI[2]  # the reservations by end
    # the fixed-size scratch, made once per run (about 20 allocations per pass were an eighth of the run)
    (first_rb, cand, held, agg, part_free, unres, top, ntop, pbits, fl, candh, held2, ncpu, have, pb_n, fmade, frb,
     fcum, xs, SB, suf, RB) = BS
    first_rb[:] = np.inf  # each node's earliest reservation that ends after now
    cand[:] = 0
    # the walk's bitmaps (nodespace): the slot map of the reservations with rb < re, and
    # scratch for one window (held nodes, a reservation's nodes, the window's OR over slots)
    W_ = _nwords(N)
    NPL = _planes_of(node_cpus)
    # xs, SB: the slot map (rows from S on are written before they are read); suf: the window's
    # suffix ORs; RB: each reservation's nodes as a bitmap (all grown here when full, this pass only)
    S = 0
    nempty = 0  # reservations with rb == re (no slot holds them)
    # part_free, unres: each partition's free CPUs and nodes without a reservation; top: its latest
    # first_rb of a reserved node, and ntop: how many nodes have it; pbits: its nodes as a bitmap
    top[:] = -np.inf
    ntop[:] = 0
    pbits[:] = ZERO
    # (array elements indexed, not row views: a view in this kernel costs two reference count
    # updates; sums kept in locals, not in the array, which a loop-carried store would serialise)
    for p in range(NP):
        pf = 0.0
        nu = 0
        for v in range(N):
            if part_nodes[p, v]:
                pf += free[v]
                nu += 1
                pbits[p, v >> 6] |= ONE << np.uint64(v & 63)
        part_free[p] = pf
        unres[p] = nu
    # fl: the nodes with free CPUs now
    nfl = 0
    for v in range(N):
        if free[v] > 0:
            fl[nfl] = v
            nfl += 1
    late = P[P_KILL_WAIT] + P[P_OVER_TIME]
    W = P[P_BF_WINDOW]
    rounded = O[O_RESV_ROUNDED]  # the TRY_LATER loop with _test_resv_overlap (SlurmOptions.resv_overlap)
    # candh: nodes held over [tau, tau + L]: not candidates from tau
    nres, tested, used = (CK[0, k0], CK[1, k0], CK[2, k0]) if k0 > 0 else (0, 0, 0)
    if nres + 1 > RB.shape[0]:
        RB = _rows_grown(RB, nres + 1)
    horizon = CKF[k0] if k0 > 0 else np.inf
    for q in range(nres):  # the reservations of the jobs before k0, made again
        _add_reservation(q, now, RF, RI, rnodes, first_rb, unres, top, ntop, part_nodes)
        for w in range(W_):
            RB[q, w] = ZERO
        for z in range(roff[q], roff[q] + rlen[q]):
            v = rnodes[z]
            RB[q, v >> 6] |= ONE << np.uint64(v & 63)
        if rb[q] < re[q]:
            if S + 2 > xs.shape[0]:
                xs, SB = _slot_grown(xs, SB, S)
            S = _slot_add(xs, SB, S, rb[q], re[q], RB, q)
        else:
            nempty += 1
    for q in range(nrun):  # each running job's expected end stays what _batches reads now
        e = expend[run[q]]
        horizon = min(horizon, e - 1.0 if e > now else e + late - 1.0)
    # per partition, built when a job of it first needs them: the will-run batches and the CPUs
    # of the partition each batch prefix frees
    cap_run = nrun + 1
    pb_end = np.empty((NP, cap_run), dtype=np.int64)
    pb_time = np.empty((NP, cap_run))
    pb_count = np.empty((NP, cap_run), dtype=np.int64)
    pb_n[:] = 0
    freed = np.zeros((NP, cap_run))
    fplanes = np.empty((NP, cap_run, NPL, W_), dtype=np.uint64)  # the free CPUs per batch prefix ...
    fmade[:] = 0  # ... made up to this prefix (ncpu: and each node's free CPUs there)
    have[:] = 0
    K_ = order.shape[0]
    # trim: the pass ends where no later job can start: none fits in its partition's CPUs free now
    # on nodes free of reservations beginning by now + its limit (:func:`_can_start_from`). A pass
    # starts a job only on CPUs free now, which only shrink during it while reservations only add,
    # and a job's reservation changes only what follows it: the jobs before keep their outcome.
    # With the same jobs running (the only way a skipped or resumed pass reuses this one) and a
    # later time before the horizon (no reservation ended), the same holds then: the horizon and
    # kept states stay valid.
    # frb: the free nodes' first reservations, latest first, and fcum: the CPUs of the nodes up to each
    wit = -1  # a position >= k whose job may still start ...
    stale = True  # ... to be found again (after a start or a reservation on a free node)
    reach = K_
    for k in range(k0, K_ + 1):
        CK[0, k], CK[1, k], CK[2, k], CKF[k] = nres, tested, used, horizon
        if k == K_:
            break
        if trim and (stale or wit < k):
            if stale:
                _free_first_rb(fl, nfl, first_rb, free, frb, fcum)
                stale = False
            wit = _can_start_from(k, order, now, excl, part_free, frb, fcum, nfl, JF, JI)
            if wit < 0:
                reach = k
                break
        if tested >= max_test:
            reach = k
            break
        j = order[k]
        pos = k  # (k is reused below for bit planes)
        p = JI[I_PART, j]
        lim = _bf_held(j, LJ, LA, LC, O[O_ASSOC_LIMIT_STOP], O[O_BF_COUNT_POPPED])
        # (the pending reason is the main scheduler's: a skipped or trimmed pass must not change it)
        if lim == 1 or lim == 2:
            tested += lim - 1  # backfill.c: pre_select -> continue; post_select -> no reservation
            continue
        hold = lim == 3
        need = JI[I_CPUS, j]
        L = JF[F_LIMIT, j]
        b_end = now + L
        # candidate nodes: the partition's, free of reservations beginning by b_end; only those
        # with free CPUs matter for starting now (_start passes over the others)
        # (some node is a candidate when the latest first reservation begins after b_end)
        last_rb = np.inf if unres[p] > 0 else top[p]  # the partition's latest first reservation
        count = last_rb > b_end if not excl else last_rb >= b_end
        if not count:
            if O[O_BF_COUNT_POPPED]:
                tested += 1
            continue
        tested += 1
        horizon = min(horizon, last_rb - L)  # the job keeps a candidate node (and its test)
        avail = 0
        if need <= part_free[p]:  # (else not even all the partition's free CPUs hold it)
            for z in range(nfl):
                v = fl[z]
                c = part_nodes[p, v] and (first_rb[v] > b_end if not excl else first_rb[v] >= b_end)
                cand[v] = c
                if c:
                    avail += free[v]
        if avail >= need and not hold:
            nrun = _start(j, now, cand, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish, expend, run, nrun)
            _take(j, LJ, LA, LC, 1.0, 0)
            by[j] = 2
            npend = _remove(pend, npend, j)
            for q in range(NP):
                pf = 0.0
                for v in range(N):
                    if part_nodes[q, v]:
                        pf += free[v]
                part_free[q] = pf
            nfl = 0
            for v in range(N):
                if free[v] > 0:
                    fl[nfl] = v
                    nfl += 1
            if nrun + 1 > cap_run:
                # doubling: growing by bf_max_job_test (up to 10^6) zero-filled megabytes at each pass's first start
                cap_run = 2 * (nrun + 1)
                pb_end = np.empty((NP, cap_run), dtype=np.int64)
                pb_time = np.empty((NP, cap_run))
                pb_count = np.empty((NP, cap_run), dtype=np.int64)
                freed = np.zeros((NP, cap_run))
                fplanes = np.empty((NP, cap_run, NPL, W_), dtype=np.uint64)
            have[:] = 0
            stale = True
            continue
        if O[O_RESERVE_FIRST_ONLY] and nres > 0:
            continue
        if not have[p]:
            e_, t_, c_, n_ = _batches(now, run, nrun, expend, O[O_WILLRUN_EXACT], late, p, part_nodes, JI, anode, alen)
            pb_end[p, :e_.shape[0]] = e_
            pb_time[p, :n_] = t_[:n_]
            pb_count[p, :n_] = c_[:n_]
            pb_n[p] = n_
            freed[p, :n_] = _freed_totals(p, part_nodes, e_, c_, n_, JI, anode, acnt, alen)
            _planes_now(p, part_nodes, free, fplanes[p], ncpu[p])
            fmade[p] = 0
            have[p] = 1
        nb = pb_n[p]
        # the first batch after which the partition's CPUs (reservations aside) could hold the job:
        # no earlier time can work, and the totals only grow (binary search)
        base = part_free[p]
        lo, hi = 0, nb
        if base < need:
            while lo < hi:
                mid = (lo + hi) >> 1
                if base + freed[p, mid] >= need:
                    hi = mid
                else:
                    lo = mid + 1
            if lo == nb:
                horizon = now
                continue  # cannot happen: the partition holds the job once all running jobs end
            t_min = pb_time[p, lo]
        else:
            t_min = now
        # candidate times from t_min on: batch times and reservation ends (kept sorted), merged
        b = lo
        r, hi = 0, nres  # the first reservation end >= t_min and > now (binary search)
        while r < hi:
            mid = (r + hi) >> 1
            if re[ord_re[mid]] < t_min or re[ord_re[mid]] <= now:
                r = mid + 1
            else:
                hi = mid
        # the walk reads, at each candidate time t, the partition's free CPUs after the batches
        # ended by t (bit planes, made as far as walks reach) on the nodes no reservation holds
        # over [t, t + L] (:mod:`.nodespace`): a reservation [rb, re) holds when its first slice
        # begins at or before t + L (bf_touch='inclusive', _attempt_backfill's `begin_time <=
        # end_time`; 'exclusive': before) and it ends after t.
        if t_min > win_end:
            horizon = min(horizon, t_min - W)  # until the window reaches t_min
            continue  # it cannot start within the window: no reservation (see below)
        if suf.shape[0] < S:
            suf = np.empty((xs.shape[0], W_), dtype=np.uint64)
        t_found, b, horizon = _walk(now, L, need, b_end, excl, rounded, res, ph, win_end, W, horizon, lo, r, p, nres,
                                    nempty, S, pb_time, pb_end, pb_count, pb_n, fmade, fplanes, ncpu, part_nodes, JI,
                                    anode, acnt, alen, RF, RI, rnodes, RB, pbits, xs, SB, suf, agg, held, held2, candh)
        if t_found <= win_end and t_found < np.inf:
            # reserve the selected nodes whole: the partition's unheld nodes with CPUs free at
            # t_found, lowest-numbered first
            rb[nres] = np.floor((t_found + ph) / res) * res - ph
            re[nres] = np.floor((t_found + ph + L) / res) * res - ph
            horizon = min(horizon, re[nres])  # until its end is skipped as past
            roff[nres] = used
            got = 0
            cnt = 0
            if nres + 1 > RB.shape[0]:
                RB = _rows_grown(RB, nres + 1)
            for w in range(W_):
                RB[nres, w] = ZERO
            for w in range(W_):
                if got >= need:
                    break
                m = ZERO
                for k in range(NPL):
                    m |= fplanes[p, b, k, w]
                m &= ~held[w]
                while m != ZERO and got < need:
                    bit = lowbit(m)
                    m &= m - ONE
                    c = 0
                    for k in range(NPL):
                        c += int((fplanes[p, b, k, w] >> np.uint64(bit)) & ONE) << k
                    got += c
                    rnodes[used + cnt] = (w << 6) + bit
                    RB[nres, w] |= ONE << np.uint64(bit)
                    cnt += 1
            rlen[nres] = cnt
            used += cnt
        if t_found > win_end or t_found == np.inf:
            continue  # "Starts too far in the future to worry about"
        if nrec < 0 and 1 + 2 * nres >= space:
            nse = np.empty(2 * (order.shape[0] + 1) + 1)
            nse[0] = win_end
            nrec = 1
            for q in range(nres):
                nrec = _space_add(nse, nrec, rb[q], re[q], res, win_end)
        if nrec >= space:  # "table size limit of %u reached": the pass ends
            used -= cnt
            reach = pos
            break
        if nrec >= 0:
            nrec = _space_add(nse, nrec, rb[nres], re[nres], res, win_end)
        if space < np.inf and max(re[nres], rb[nres] + res) >= win_end:
            x = rb[nres] if rb[nres] >= win_end else max(re[nres], rb[nres] + res)
            horizon = min(horizon, x - W)  # a bound counts once the window reaches it
        _add_reservation(nres, now, RF, RI, rnodes, first_rb, unres, top, ntop, part_nodes)
        if rb[nres] < re[nres]:
            if S + 2 > xs.shape[0]:
                xs, SB = _slot_grown(xs, SB, S)
            S = _slot_add(xs, SB, S, rb[nres], re[nres], RB, nres)
        else:
            nempty += 1
        nres += 1
        for z in range(used - cnt, used):
            if free[rnodes[z]] > 0:
                stale = True
    return npend, nrun, horizon, reach


@njit
def _nothing_fits(pend, npend, part_nodes, free, JI):
    """True when no pending job fits in the CPUs its partition has free now: a backfill pass
    (which starts a job only on free CPUs of its partition) would start nothing."""
    NP = part_nodes.shape[0]
    smallest = np.full(NP, np.iinfo(np.int64).max)
    for k in range(npend):
        j = pend[k]
        p = JI[I_PART, j]
        smallest[p] = min(smallest[p], JI[I_CPUS, j])
    for p in range(NP):
        if smallest[p] == np.iinfo(np.int64).max:
            continue
        avail = 0
        for v in range(free.shape[0]):
            if part_nodes[p, v]:
                avail += free[v]
        if avail >= smallest[p]:
            return False
    return True
