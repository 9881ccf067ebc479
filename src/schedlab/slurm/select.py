"""Nodes with CPUs, memory and GPUs for ``--policy slurm`` (issue 47; docs/slurm-policy-spec.md
section 14): which nodes can hold a job's share (:func:`_node_ok`), the select plugin's node choice
(:func:`_select`, job_test.c ``_eval_nodes``), starting a job on them (:func:`_start_on`) and the
backfill pass over every resource (:func:`_backfill_res`). Used by :mod:`schedlab.slurm.kernel`
only when a run models resources (``O_RESOURCES``); the CPU-only path never calls them.

A job (row j of ``JR``) asks for ``R_NODES`` nodes, each holding ``R_CPN`` of its CPUs (its CPUs
split evenly, the first ones one more when they do not divide), ``R_MEM`` MB (-1: the node's whole
memory, Slurm's ``--mem=0`` and a CR_*_Memory job without DefMemPerCPU/DefMemPerNode) and
``R_GPN`` GPUs (of type ``R_GTYPE``, -1 any); ``R_EXCL`` jobs take whole idle nodes. Free
resources per node: ``free`` (CPUs, int64) and ``FR`` (rows ``X_MEM``, ``X_GPU``); what each
allocation entry took: ``acnt`` (CPUs) and ``AR`` (rows ``X_MEM``, ``X_GPU``).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .backfill import _batches
from .layout import (C_GPU, C_GTYPE, C_MEM, F_LIMIT, I_AOFF, I_CPUS, I_PART, O_ASSOC_LIMIT_STOP, O_BEST_FIT,
                     O_BF_COUNT_POPPED,
                     O_BF_TOUCH_EXCLUSIVE,
                     O_RESERVE_FIRST_ONLY, O_WILLRUN_EXACT, P_BF_MAX_TEST, P_BF_PHASE, P_BF_RES, P_BF_WINDOW,
                     P_KILL_WAIT, P_OVER_TIME, R_CPN, R_EXCL, R_GPN, R_GTYPE, R_MEM, R_NODES, X_CPUS, X_GPU, X_MEM, X_NODE,
                     X_OGPU, X_OMEM)
from .limits import _bf_held, _take
from .nodespace import ONE, _held_direct, _nwords
from .ops import NO_NRT, _begin, _remove


@njit(**NO_NRT)
def _node_ok(j, v, fc, FR, node_cpus, JR, NR):
    """Node v holds job j's share with ``fc`` CPUs and ``FR`` memory/GPUs free: CPUs, memory and GPUs
    (of its type) each enough; an exclusive job needs the node idle (all its CPUs free)."""
    g = JR[R_GPN, j]
    if g > 0 and JR[R_GTYPE, j] >= 0 and NR[C_GTYPE, v] != JR[R_GTYPE, j]:
        return False
    mem = JR[R_MEM, j]
    if JR[R_EXCL, j]:
        if fc[v] != node_cpus[v]:
            return False
        return node_cpus[v] >= JR[R_CPN, j] and NR[C_MEM, v] >= mem and NR[C_GPU, v] >= g
    if mem < 0.0:
        mem = NR[C_MEM, v]
    return fc[v] >= JR[R_CPN, j] and FR[X_MEM, v] >= mem and FR[X_GPU, v] >= g


@njit(**NO_NRT)
def _select(j, allowed, fc, FR, node_cpus, JR, NR, best_fit, use, out):
    """Job j's nodes among the ``allowed`` ones that hold its share (:func:`_node_ok`), into
    ``out[:k]``; returns k (``R_NODES``), or 0 when fewer nodes hold it. ``use``: scratch.

    best_fit (SlurmOptions.node_choice='best-fit', job_test.c ``_eval_nodes`` with equal node
    weights and no required nodes): the usable nodes form sets of consecutive node numbers; the set
    taken is the first that is sufficient (as many nodes as still needed) with the fewest free
    CPUs, else (none sufficient) the one with the most; a job needing one more node takes the
    set's node with the fewest free CPUs (the first such), else the set's nodes from its first on;
    the set is then used up and the choice repeats until the job has its nodes. Without best_fit
    ('lowest-first'): the lowest-numbered usable nodes."""
    N = fc.shape[0]
    k = int(JR[R_NODES, j])
    nuse = 0
    for v in range(N):
        ok = allowed[v] and _node_ok(j, v, fc, FR, node_cpus, JR, NR)
        use[v] = ok
        nuse += ok
    if nuse < k:
        return 0
    if not best_fit:
        m = 0
        for v in range(N):
            if use[v]:
                out[m] = v
                m += 1
                if m == k:
                    break
        return k
    rem = k
    m = 0
    while rem > 0:
        bs, bn, bc, bsuff = -1, 0, 0, False
        v = 0
        while v < N:  # the runs of usable nodes
            if not use[v]:
                v += 1
                continue
            s = v
            cnt, cpus = 0, 0
            while v < N and use[v]:
                cnt += 1
                cpus += fc[v]
                v += 1
            suff = cnt >= rem
            if bn == 0 or (suff and not bsuff) or (suff and cpus < bc) or (not suff and cpus > bc):
                bs, bn, bc, bsuff = s, cnt, cpus, suff
        if bn == 0:
            return 0  # (cannot happen: nuse >= k)
        if rem == 1:
            pick, size = -1, 0
            for v in range(bs, bs + bn):
                if pick < 0 or fc[v] < size:
                    pick, size = v, fc[v]
            out[m] = pick
            m += 1
            rem -= 1
        else:
            for v in range(bs, bs + bn):
                if rem == 0:
                    break
                out[m] = v
                m += 1
                rem -= 1
        for v in range(bs, bs + bn):
            use[v] = 0
    return k


@njit(**NO_NRT)
def _start_on(j, now, nodes, free, FR, node_cpus, JF, JI, JR, NR, AR, P, O, anode, acnt, alen, start, finish,
              expend, run, nrun):
    """Start job j now on ``nodes[:R_NODES]`` (from :func:`_select`): on each its share of CPUs
    (the first nodes one more when they do not divide), memory and GPUs; an exclusive job takes
    all of each node. Returns the new number of running jobs."""
    k = int(JR[R_NODES, j])
    c = JI[I_CPUS, j]
    base = c // k
    extra = c - base * k
    off = JI[I_AOFF, j]
    for z in range(k):
        v = nodes[z]
        sc = base + (1 if z < extra else 0)
        sm = JR[R_MEM, j] if JR[R_MEM, j] >= 0.0 else NR[C_MEM, v]
        sg = JR[R_GPN, j]
        AR[X_NODE, off + z] = v
        AR[X_CPUS, off + z] = sc
        AR[X_OMEM, off + z] = sm
        AR[X_OGPU, off + z] = sg
        if JR[R_EXCL, j]:
            tc, tm, tg = free[v], FR[X_MEM, v], FR[X_GPU, v]
        else:
            tc, tm, tg = sc, sm, sg
        free[v] -= tc
        FR[X_MEM, v] -= tm
        FR[X_GPU, v] -= tg
        anode[off + z] = v
        acnt[off + z] = tc
        AR[X_MEM, off + z] = tm
        AR[X_GPU, off + z] = tg
    alen[j] = k
    return _begin(j, now, JF, P, O, start, finish, expend, run, nrun)


@njit(**NO_NRT)
def _release(j, free, FR, JI, AR, anode, acnt, alen):
    """Job j's CPUs, memory and GPUs back to its nodes."""
    o = JI[I_AOFF, j]
    for z in range(alen[j]):
        v = anode[o + z]
        free[v] += acnt[o + z]
        FR[X_MEM, v] += AR[X_MEM, o + z]
        FR[X_GPU, v] += AR[X_GPU, o + z]


@njit
def _backfill_res(now, order, pend, npend, part_nodes, free, FR, node_cpus, JF, JI, JR, NR, AR, P, O,
                  anode, acnt, alen, start, finish, expend, run, nrun, by, RF, RI, rnodes, LJ, LA, LC):
    """One backfill pass over every resource (backfill.c _attempt_backfill as section 5 of the spec
    reads it, with the overlap reading resv_overlap='exact'): the queue in order, at most
    bf_max_job_test jobs (a job none of whose partition's nodes is free of reservations over its
    window is passed over, as in :func:`~schedlab.slurm.backfill._backfill`); a job starts now when :func:`_select` finds its nodes among its
    partition's nodes that no reservation holds over [now, now + limit]; else its earliest start
    T is the first will-run batch end or reservation end at which the nodes free of reservations
    over [T, T + limit] hold it with what is free once the batches ended by T are gone, and (T
    within bf_window) the nodes chosen there are reserved *whole* over [T, T + limit], rounded to
    bf_resolution: backfill.c's node_space map holds node bitmaps only (``_add_reservation``
    removes the reserved nodes from each slot's ``avail_bitmap``), so a later job may use a
    reserved node's spare CPUs, memory or GPUs only if it ends before the reservation begins.
    A job an association/QOS limit holds (:mod:`.limits`) is passed over as in
    :func:`~schedlab.slurm.backfill._backfill`: without a reservation, or (assoc_limit_stop, a TRES
    limit) not started but reserved. Returns (npend, nrun)."""
    N = free.shape[0]
    W_ = _nwords(N)
    res = P[P_BF_RES]
    ph = P[P_BF_PHASE]
    win_end = np.floor((now + ph + P[P_BF_WINDOW]) / res) * res - ph
    max_test = P[P_BF_MAX_TEST]
    excl = O[O_BF_TOUCH_EXCLUSIVE]
    late = P[P_KILL_WAIT] + P[P_OVER_TIME]
    best = O[O_BEST_FIT]
    rb, re, roff, rlen = RF[0], RF[1], RI[0], RI[1]
    held = np.zeros(W_, dtype=np.uint64)
    allowed = np.empty(N, dtype=np.uint8)
    use = np.empty(N, dtype=np.uint8)
    chosen = np.empty(N, dtype=np.int64)
    fc = np.empty(N, dtype=np.int64)
    fr = np.empty((2, N))
    ends = np.empty(order.shape[0] + 1)
    nres, used, tested = 0, 0, 0
    for k in range(order.shape[0]):
        if tested >= max_test:
            break
        j = order[k]
        lim = _bf_held(j, LJ, LA, LC, O[O_ASSOC_LIMIT_STOP], O[O_BF_COUNT_POPPED])
        if lim == 1 or lim == 2:  # (as in backfill.py: no reservation; the pending reason is the main scheduler's)
            tested += lim - 1
            continue
        hold = lim == 3
        p = JI[I_PART, j]
        L = JF[F_LIMIT, j]
        held[:] = 0
        _held_direct(now, L, excl, nres, RF, RI, rnodes, False, held)
        cand = 0
        for v in range(N):
            allowed[v] = part_nodes[p, v] and not ((held[v >> 6] >> np.uint64(v & 63)) & ONE)
            cand += allowed[v]
        if cand == 0:  # no node of its partition free of reservations over its window (as _backfill)
            if O[O_BF_COUNT_POPPED]:
                tested += 1
            continue
        tested += 1
        if not hold and _select(j, allowed, free, FR, node_cpus, JR, NR, best, use, chosen) > 0:
            nrun = _start_on(j, now, chosen, free, FR, node_cpus, JF, JI, JR, NR, AR, P, O, anode, acnt, alen, start,
                             finish, expend, run, nrun)
            _take(j, LJ, LA, LC, 1.0, 0)
            by[j] = 2
            npend = _remove(pend, npend, j)
            continue
        if O[O_RESERVE_FIRST_ONLY] and nres > 0:
            continue
        byend, btime, bcount, nb = _batches(now, run, nrun, expend, O[O_WILLRUN_EXACT], late, p, part_nodes, JI,
                                            anode, alen)
        fc[:] = free
        fr[:] = FR
        ne = 0
        for q in range(nres):
            if re[q] > now:
                ends[ne] = re[q]
                ne += 1
        ends[:ne].sort()
        b, r, q = 0, 0, 0
        t_found = np.inf
        while b < nb or r < ne:
            t = btime[b] if (b < nb and (r >= ne or btime[b] <= ends[r])) else ends[r]
            if t > win_end:
                break  # "Starts too far in the future to worry about"
            while b < nb and btime[b] <= t:
                while q < bcount[b]:
                    _release(byend[q], fc, fr, JI, AR, anode, acnt, alen)  # (on the will-run copies)
                    q += 1
                b += 1
            while r < ne and ends[r] <= t:
                r += 1
            held[:] = 0
            _held_direct(t, L, excl, nres, RF, RI, rnodes, False, held)
            for v in range(N):
                allowed[v] = part_nodes[p, v] and not ((held[v >> 6] >> np.uint64(v & 63)) & ONE)
            if _select(j, allowed, fc, fr, node_cpus, JR, NR, best, use, chosen) > 0:
                t_found = t
                break
        if t_found == np.inf:
            continue
        m = int(JR[R_NODES, j])
        rb[nres] = np.floor((t_found + ph) / res) * res - ph
        re[nres] = np.floor((t_found + ph + L) / res) * res - ph
        roff[nres] = used
        rlen[nres] = m
        for z in range(m):
            rnodes[used + z] = chosen[z]
        used += m
        nres += 1
    return npend, nrun
