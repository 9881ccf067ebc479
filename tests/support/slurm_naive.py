"""Slow reference of the ``--policy slurm`` loop: the kernels of schedlab.slurm (ops, backfill,
kernel) as they were before the speed work of issue 37 (commit 806ee68), run as plain Python,
every due backfill pass whole (no pass skipped or resumed, no kept queue order or profile).
tests/test_slurm_skip.py compares the compiled loop's starts with these on random small cases.
"""

from __future__ import annotations

import numpy as np

from schedlab.slurm.layout import (F_LIMIT, F_RUNTIME, F_STATIC, F_SUBMIT, I_ACCT, I_AOFF, I_CPUS, I_PART,
                                   KILL_PERIOD, O_ACCRUE_AT_END, O_BACKFILL, O_BF_COUNT_POPPED,
                                   O_BF_TOUCH_EXCLUSIVE, O_DECAY_EXACT, O_FAIR_TREE, O_FLOOR_PRIO,
                                   O_KILL_PERIODIC, O_MAIN_FULL, O_RESERVE_FIRST_ONLY, O_STOP_PARTITION_ONLY,
                                   O_SUBMIT_IMMEDIATE, O_WILLRUN_EXACT, P_BATCH_DELAY, P_BF_INTERVAL, P_BF_MAX_TEST,
                                   P_BF_RES, P_BF_WINDOW, P_CALC, P_DAMP, P_DEPTH, P_HALF_LIFE, P_KILL_WAIT,
                                   P_MAX_AGE, P_OVER_TIME, P_SCHED_INTERVAL, P_T0, P_W_AGE, P_W_FS, P_BF_PHASE,
                                   P_NODE_SPACE, P_BF_FIRST, P_TICK, O_END_IMMEDIATE, O_RESV_ROUNDED)
from schedlab.slurm.layout import O_ASSOC_LIMIT_STOP, O_BF_IDLE_PASSES, O_BF_PASS_UPDATES, O_CHARGE_AT_END, O_USAGE_TIME_T, P_BF_TICK, P_CALC0
from schedlab.slurm.limits import KIND_POST, KIND_PRE, KIND_SUBMIT, L_CAP, L_CODE, L_KIND
from schedlab.slurm.policy import prepare

#: the association/QOS limits of the run under way (the counters prepare() builds, schedlab.slurm.limits):
#: here each count is summed afresh over the running (and, for submissions, pending) jobs, none kept
LIMITS: dict = {}


def _limit_hold(j, jobs, submit):
    """The first counter of job j whose cap its amount passes, the amounts of ``jobs`` (the running
    jobs; with ``submit`` the pending and running ones, and only the submission counters) summed
    afresh; -1 when none holds it."""
    LJ, LA, LC = LIMITS["LJ"], LIMITS["LA"], LIMITS["LC"]
    for kind in ([KIND_SUBMIT] if submit else [KIND_PRE, KIND_POST]):  # pre-select limits before post-select ones
        for m in range(LJ.shape[0]):
            c = LJ[m, j]
            if c < 0 or LC[L_KIND, c] != kind:
                continue
            used = sum(LA[m2, r] for r in jobs for m2 in range(LJ.shape[0]) if LJ[m2, r] == c)
            if used + LA[m, j] > LC[L_CAP, c]:
                return c
    return -1


def starts(workload, procs, policy):
    """(start, started_by) in trace order, as simulate_slurm returns them."""
    a = prepare(workload, procs, policy)
    n = len(workload)
    LIMITS.update(LJ=a["LJ"], LA=a["LA"], LC=a["LC"], why=np.zeros(n, dtype=np.int64))
    start, finish, by = np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=np.int64)
    slurm_loop(a["JF"], a["JI"], a["P"], a["O"], a["node_cpus"], a["part_nodes"], a["tier"], a["shares"],
               a["alloc"], start, finish, by)
    out_s, out_by = np.empty(n), np.empty(n, dtype=np.int64)
    out_s[a["perm"]], out_by[a["perm"]] = start, by
    LIMITS["why_trace"] = np.empty(n, dtype=np.int64)
    LIMITS["why_trace"][a["perm"]] = LIMITS["why"]
    return out_s, out_by


def _fs_factors(usage, shares, fs, fair_tree, damp):
    """Fair-share factor per account (a flat tree: every account a child of root, one leaf each).

    classic (classic_fair_share.shtml): F = 2^(-(UE/S)/d), UE = the account's normalised usage
    (a child of root: its effective usage is its own); S its normalised shares (0 shares: F = 0).
    Fair Tree (fair_tree.shtml): LF = S/U ("infinity if the association has no usage"); accounts
    ranked by LF, equal LF the same rank, the highest rank / count = 1.0."""
    A = usage.shape[0]
    total = usage.sum()
    if not fair_tree:
        for a in range(A):
            s = shares[a]
            if s <= 0.0:
                fs[a] = 0.0
            else:
                ue = usage[a] / total if total > 0.0 else 0.0
                fs[a] = 2.0 ** (-(ue / s) / damp)
        return
    lf = np.empty(A)
    for a in range(A):
        u = usage[a] / total if total > 0.0 else 0.0
        lf[a] = np.inf if u <= 0.0 else shares[a] / u
    order = np.argsort(-lf, kind="mergesort")
    rank = A
    for k in range(A):
        a = order[k]
        if k > 0 and lf[a] != lf[order[k - 1]]:
            rank = A - k
        fs[a] = rank / A


def _priority(j, now, JF, JI, P, O, fs):
    """Job_priority (priority_multifactor.shtml) = static part (size, partition, QOS: fixed per job)
    + PriorityWeightAge * age + PriorityWeightFairshare * fair-share; a sum below 1 is 1, and with
    priority_rounding='floor-int' it is truncated to an integer (_get_priority_internal). The age
    is counted in whole seconds, as Slurm counts it: ``diff = start_time - accrue_time`` of two
    time_t (priority_multifactor.c _set_priority_factors), so a job submitted at 5.9 s is 79 s
    old at 84.3 s, not 78.4 s (it matters once times carry fractions: slurmctld's millisecond
    log, a controller started mid-second)."""
    p = JF[F_STATIC, j]
    if P[P_W_AGE] > 0.0:
        age = np.floor(now) - np.floor(JF[F_SUBMIT, j])  # time_t seconds: start_time - accrue_time
        if P[P_MAX_AGE] > 0.0:
            p += P[P_W_AGE] * min(max(age, 0.0), P[P_MAX_AGE]) / P[P_MAX_AGE]
    if P[P_W_FS] > 0.0:
        p += P[P_W_FS] * fs[JI[I_ACCT, j]]
    if p < 1.0:
        p = 1.0
    if O[O_FLOOR_PRIO]:
        p = np.floor(p)
    return p


def _order(pend, npend, prio, tier, JI):
    """The queue order of both schedulers (sort_job_queue2): higher PriorityTier, higher priority,
    earlier submit, smaller job number. ``pend[:npend]`` is kept in job-number order, so a stable
    sort by (tier, priority) gives the rest."""
    key = np.empty(npend)
    for k in range(npend):
        j = pend[k]
        key[k] = -(tier[JI[I_PART, j]] * 8589934592.0 + prio[j])
    idx = np.argsort(key, kind="mergesort")
    out = np.empty(npend, dtype=np.int64)
    for k in range(npend):
        out[k] = pend[idx[k]]
    return out


def _start(j, now, allowed, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish, expend, run, nrun):
    """Start job j now on the lowest-numbered ``allowed`` nodes with free CPUs (CR_CPU: a job may
    take CPUs of several nodes); its finish is start + runtime, or its kill time when its runtime
    passes its limit (+ OverTimeLimit). Returns the new number of running jobs."""
    need = JI[I_CPUS, j]
    off = JI[I_AOFF, j]
    k = 0
    for v in range(free.shape[0]):
        if need == 0:
            break
        if allowed[v] and free[v] > 0:
            take = min(free[v], need)
            free[v] -= take
            need -= take
            anode[off + k] = v
            acnt[off + k] = take
            k += 1
    alen[j] = k
    start[j] = now
    lim = JF[F_LIMIT, j]
    run_t = JF[F_RUNTIME, j]
    over = lim + P[P_OVER_TIME]
    if run_t > over:
        if O[O_KILL_PERIODIC]:
            t0 = P[P_T0]
            kill = t0 + np.ceil((now + over - t0) / KILL_PERIOD) * KILL_PERIOD
            finish[j] = min(kill, now + run_t)  # it may complete before the check comes
        else:
            finish[j] = now + over
    else:
        finish[j] = now + run_t
    expend[j] = now + lim
    run[nrun] = j
    return nrun + 1


def _charge(j, t_from, t_to, JI, usage, start, whole=False):
    """Usage (allocated CPUs * seconds, priority_multifactor.shtml) of job j over [t_from, t_to]; ``whole``:
    on time_t seconds (usage_clock='time_t': every bound floored)."""
    if whole:
        t_from, t_to, s = np.floor(t_from), np.floor(t_to), np.floor(start[j])
    else:
        s = start[j]
    a = max(t_from, s)
    if t_to > a:
        usage[JI[I_ACCT, j]] += JI[I_CPUS, j] * (t_to - a)


def _remove(arr, n, j):
    """Remove j from arr[:n] keeping order; returns n - 1 (n when absent)."""
    p = 0
    while p < n and arr[p] != j:
        p += 1
    if p == n:
        return n
    for q in range(p, n - 1):
        arr[q] = arr[q + 1]
    return n - 1


def _batches(now, run, nrun, expend, exact, late, p, part_nodes, JI, anode, alen):
    """Running jobs by expected end and the will-run
    batches over them: batch b frees the jobs ``byend[:bcount[b]]`` at ``btime[b]``. Batches
    (will_run_batching='doubling-30s'): the jobs ending within 30 s of the batch's first end, then
    60 s, 120 s, ... (job_test.c _will_run_test; only jobs on a node of partition p count, as it
    skips jobs on none of the job's nodes; its test after 200 removals is not modelled); 'exact': one batch per end time. A job past
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


def _add_reservation(q, now, RF, RI, rnodes, first_rb, unres, part_nodes):
    """Reservation q (the q reservations before it added) into the nodes' earliest reservation
    (one ending after now), the partitions' counts of unreserved nodes, and the orders by end and
    by begin (a later one after an equal one)."""
    rb, re, roff, rlen, by_rb, ord_re = RF[0], RF[1], RI[0], RI[1], RI[2], RI[3]
    for z in range(roff[q], roff[q] + rlen[q]):
        v = rnodes[z]
        if re[q] > now and rb[q] < first_rb[v]:
            if first_rb[v] == np.inf:
                for p in range(part_nodes.shape[0]):
                    unres[p] -= part_nodes[p, v]
            first_rb[v] = rb[q]
    k = q
    while k > 0 and re[ord_re[k - 1]] > re[q]:
        ord_re[k] = ord_re[k - 1]
        k -= 1
    ord_re[k] = q
    k = q
    while k > 0 and rb[by_rb[k - 1]] > rb[q]:
        by_rb[k] = by_rb[k - 1]
        k -= 1
    by_rb[k] = q


def _backfill(now, order, k0, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
              anode, acnt, alen, start, finish, expend, run, nrun, by, RF, RI, rnodes, CK, CKF):
    """One backfill pass (backfill.c _attempt_backfill; docs/slurm-policy-spec.md section 5): the
    queue in order, at most bf_max_job_test jobs tested; a job that fits now on nodes free of every
    reservation overlapping [now, now + limit] starts; else its earliest start is found (running
    jobs removed by expected end, in will-run batches; later map slices tried) and, within
    bf_window, its selected nodes are reserved whole from floor(start/res)*res to
    floor((start + limit)/res)*res. ``order`` is the queue in :func:`_order`'s order. Returns
    (npend, nrun, horizon, reach).

    The reservations (``RF``: begin, end; ``RI``: offset and count in ``rnodes``, the order by
    begin and by end) and, for each queue position k <= ``reach``, the state before job k
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
    answers the question "reserved during [now, end]"; the walk over later times updates its
    counts as reservations enter and leave instead of recounting (a month of CTC-SP2: 11 s -> 1.7 s,
    the same starts)."""
    if npend == 0:
        return npend, nrun, np.inf, 0
    N = free.shape[0]
    NP = part_nodes.shape[0]
    res = P[P_BF_RES]
    ph = P[P_BF_PHASE]
    win_end = np.floor((now + ph + P[P_BF_WINDOW]) / res) * res - ph
    # Slurm's node_space records, literally: [begin, end) pairs in time order (_add_reservation's splits)
    records = [[np.floor((now + ph) / res) * res - ph, win_end]]
    max_test = P[P_BF_MAX_TEST]
    excl = O[O_BF_TOUCH_EXCLUSIVE]
    rb, re = RF[0], RF[1]
    roff, rlen = RI[0], RI[1]
    by_rb, ord_re = RI[2], RI[3]  # the reservations by begin, by end
    first_rb = np.full(N, np.inf)  # each node's earliest reservation that ends after now
    held = np.zeros(N, dtype=np.int64)  # a walk's count of reservations holding each node
    cand = np.zeros(N, dtype=np.uint8)
    free_t = np.empty(N, dtype=np.int64)
    part_free = np.zeros(NP)
    unres = np.zeros(NP, dtype=np.int64)  # each partition's nodes without a reservation
    for p in range(NP):
        for v in range(N):
            if part_nodes[p, v]:
                part_free[p] += free[v]
                unres[p] += 1
    fl = np.empty(N, dtype=np.int64)  # the nodes with free CPUs now
    nfl = 0
    for v in range(N):
        if free[v] > 0:
            fl[nfl] = v
            nfl += 1
    late = P[P_KILL_WAIT] + P[P_OVER_TIME]
    W = P[P_BF_WINDOW]
    nres, tested, used = (CK[0, k0], CK[1, k0], CK[2, k0]) if k0 > 0 else (0, 0, 0)
    horizon = CKF[k0] if k0 > 0 else np.inf
    for q in range(nres):  # the reservations of the jobs before k0, made again
        _add_reservation(q, now, RF, RI, rnodes, first_rb, unres, part_nodes)
    for q in range(nrun):  # each running job's expected end stays what _batches reads now
        e = expend[run[q]]
        horizon = min(horizon, e - 1.0 if e > now else e + late - 1.0)
    # per partition, built when a job of it first needs them: the will-run batches and the CPUs
    # of the partition each batch prefix frees
    cap_run = nrun + 1
    pb_end = np.empty((NP, cap_run), dtype=np.int64)
    pb_time = np.empty((NP, cap_run))
    pb_count = np.empty((NP, cap_run), dtype=np.int64)
    pb_n = np.zeros(NP, dtype=np.int64)
    freed = np.zeros((NP, cap_run))
    have = np.zeros(NP, dtype=np.uint8)
    K_ = order.shape[0]
    reach = K_
    for k in range(k0, K_ + 1):
        CK[0, k], CK[1, k], CK[2, k], CKF[k] = nres, tested, used, horizon
        if k == K_:
            break
        if tested >= max_test:
            reach = k
            break
        j = order[k]
        p = JI[I_PART, j]
        need = JI[I_CPUS, j]
        L = JF[F_LIMIT, j]
        b_end = now + L
        c = _limit_hold(j, run[:nrun], False)
        hold = c >= 0
        if hold:
            if not O[O_ASSOC_LIMIT_STOP]:
                if LIMITS["LC"][L_KIND, c] == KIND_POST or O[O_BF_COUNT_POPPED]:
                    tested += 1
                continue
        # candidate nodes: the partition's, free of reservations beginning by b_end; only those
        # with free CPUs matter for starting now (_start passes over the others)
        count = 0
        last_rb = np.inf  # the partition's latest first reservation
        if unres[p] == 0:
            last_rb = -np.inf
            for v in range(N):
                if part_nodes[p, v]:
                    if first_rb[v] > last_rb:
                        last_rb = first_rb[v]
                    if first_rb[v] > b_end if not excl else first_rb[v] >= b_end:
                        count += 1
        else:
            count = unres[p]
        avail = 0
        for z in range(nfl):
            v = fl[z]
            c = part_nodes[p, v] and (first_rb[v] > b_end if not excl else first_rb[v] >= b_end)
            cand[v] = c
            if c:
                avail += free[v]
        if count == 0:
            if O[O_BF_COUNT_POPPED]:
                tested += 1
            continue
        tested += 1
        horizon = min(horizon, last_rb - L)  # the job keeps a candidate node (and its test)
        if avail >= need and not hold:
            nrun = _start(j, now, cand, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish, expend, run, nrun)
            by[j] = 2
            npend = _remove(pend, npend, j)
            for q in range(NP):
                part_free[q] = 0.0
                for v in range(N):
                    if part_nodes[q, v]:
                        part_free[q] += free[v]
            nfl = 0
            for v in range(N):
                if free[v] > 0:
                    fl[nfl] = v
                    nfl += 1
            if nrun + 1 > cap_run:
                cap_run = nrun + 1 + int(max_test)
                pb_end = np.empty((NP, cap_run), dtype=np.int64)
                pb_time = np.empty((NP, cap_run))
                pb_count = np.empty((NP, cap_run), dtype=np.int64)
                freed = np.zeros((NP, cap_run))
            have[:] = 0
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
            have[p] = 1
        byend, btime, bcount, nb = pb_end[p], pb_time[p], pb_count[p], pb_n[p]
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
            t_min = btime[lo]
        else:
            t_min = now
        # candidate times from t_min on: batch times and reservation ends (kept sorted), merged
        b = lo
        r = 0
        while r < nres and (re[ord_re[r]] < t_min or re[ord_re[r]] <= now):
            r += 1
        # the walk keeps, for the current time t: free_t (free + the batches ended by t), each
        # node's count of reservations overlapping [t, t + L] (those beginning by t + L enter, those
        # ending by t leave: both only grow with t) and the CPUs free on the partition's unheld nodes.
        # A reservation [rb, re) overlaps when its first slice begins at or before t + L
        # (bf_touch='inclusive', _attempt_backfill's `begin_time <= end_time`; 'exclusive': before)
        # and it ends after t.
        if t_min > win_end:
            horizon = min(horizon, t_min - W)  # until the window reaches t_min
            continue  # it cannot start within the window: no reservation (see below)
        applied = 0
        avail = int(part_free[p])
        for v in range(N):
            free_t[v] = free[v]
            held[v] = 0
        pe = 0  # reservations by_rb[:pe] have entered
        pl = 0  # reservations ord_re[:pl] have left
        t_found = np.inf
        bi = lo  # (now itself failed above)
        rounded = O[O_RESV_ROUNDED]

        def holding(a, z):  # the nodes of the reservations whose slices meet [a, z] (the candidate loop)
            return {int(rnodes[i]) for q in range(nres) if (rb[q] < z if excl else rb[q] <= z) and re[q] > a
                    for i in range(roff[q], roff[q] + rlen[q])}

        if rounded:  # TRY_LATER from tau = now; the candidates hold until a reservation begins by now + L
            tau_held = holding(now, now + L)
            horizon = min(horizon, min([rb[q] for q in range(nres) if rb[q] > now + L], default=np.inf) - L)
        while True:
            tb = btime[bi] if bi < nb else np.inf
            tr = re[ord_re[r]] if r < nres else np.inf
            if tb == np.inf and tr == np.inf:
                break
            at_end = tb > tr
            if tb <= tr:
                t = tb
                bi += 1
            else:
                t = tr
                r += 1
            if rounded and at_end:
                tau_held = holding(t, t + L)  # later_start: tried again from this reservation's end
            if t > win_end:
                horizon = min(horizon, t - W)  # until the window reaches t
                break  # a later start makes no reservation: the walk can stop
            while b < nb and btime[b] <= t:
                b += 1
            while applied < (bcount[b - 1] if b > 0 else 0):
                jj = byend[applied]
                o = JI[I_AOFF, jj]
                for z in range(alen[jj]):
                    v = anode[o + z]
                    free_t[v] += acnt[o + z]
                    if part_nodes[p, v] and held[v] == 0:
                        avail += acnt[o + z]
                applied += 1
            while pe < nres and (rb[by_rb[pe]] < t + L if excl else rb[by_rb[pe]] <= t + L):
                q0 = by_rb[pe]
                for q in range(roff[q0], roff[q0] + rlen[q0]):
                    v = rnodes[q]
                    if held[v] == 0 and part_nodes[p, v]:
                        avail -= free_t[v]
                    held[v] += 1
                pe += 1
            while pl < nres and re[ord_re[pl]] <= t:
                q0 = ord_re[pl]
                for q in range(roff[q0], roff[q0] + rlen[q0]):
                    v = rnodes[q]
                    held[v] -= 1
                    if held[v] == 0 and part_nodes[p, v]:
                        avail += free_t[v]
                pl += 1
            if rounded and not at_end:
                part = [v for v in range(N) if part_nodes[p, v]]
                if sum(free_t[v] for v in part if v not in tau_held) < need:
                    continue  # will-run from tau does not give t
                s_r = np.floor((t + ph) / res) * res - ph
                e_r = np.floor((t + ph + L) / res) * res - ph
                over = {int(rnodes[i]) for q in range(nres) if re[q] > s_r and rb[q] < e_r
                        for i in range(roff[q], roff[q] + rlen[q])}
                ok = [v for v in part if v not in tau_held and v not in over]
                if sum(free_t[v] for v in ok) >= need:
                    t_found = t
                    for v in range(N):
                        cand[v] = v in ok
                    break
                tau_held = {v for v in range(N) if held[v] > 0}  # overlap: tried again from t
            if avail >= need:
                t_found = t
                for v in range(N):
                    cand[v] = part_nodes[p, v] and held[v] == 0
                break
        if t_found > win_end or t_found == np.inf:
            continue  # "Starts too far in the future to worry about"
        if len(records) >= P[P_NODE_SPACE]:
            reach = k
            break  # "table size limit of %u reached"
        # reserve the selected nodes whole
        rb[nres] = np.floor((t_found + ph) / res) * res - ph
        re[nres] = np.floor((t_found + ph + L) / res) * res - ph
        _split(records, rb[nres], re[nres], res)
        horizon = min(horizon, re[nres])  # until its end is skipped as past
        roff[nres] = used
        got = 0
        cnt = 0
        for v in range(N):
            if got >= need:
                break
            if cand[v] and free_t[v] > 0:
                got += free_t[v]
                rnodes[used + cnt] = v
                cnt += 1
        rlen[nres] = cnt
        used += cnt
        _add_reservation(nres, now, RF, RI, rnodes, first_rb, unres, part_nodes)
        nres += 1
    return npend, nrun, horizon, reach


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


def _main(now, full, pend, npend, prio, tier, part_nodes, free, node_cpus, JF, JI, P, O,
          anode, acnt, alen, start, finish, expend, run, nrun, by):
    """The main scheduler (job_scheduler.c _schedule): the queue in order; a job that fits on the
    CPUs still free starts; the first job of a partition that does not fit marks the partition
    failed: later jobs of it are skipped, and (stop_scope='partition-and-nodes') its nodes are
    taken from every later job. Event-driven runs test at most default_queue_depth jobs
    (depth counted before the failed-partition skip), periodic ones all. Returns (npend, nrun)."""
    if npend == 0:
        return npend, nrun
    order = _order(pend, npend, prio, tier, JI)
    P_ = part_nodes.shape[0]
    N = free.shape[0]
    failed = np.zeros(P_, dtype=np.uint8)
    blocked = np.zeros(N, dtype=np.uint8)
    allowed = np.empty(N, dtype=np.uint8)
    depth = 0
    limit = np.inf if (full or O[O_MAIN_FULL]) else P[P_DEPTH]
    for k in range(order.shape[0]):
        j = order[k]
        if depth > limit:
            break
        depth += 1
        p = JI[I_PART, j]
        if failed[p]:
            continue
        avail = 0
        for v in range(N):
            ok = part_nodes[p, v] and not blocked[v]
            allowed[v] = ok
            if ok:
                avail += free[v]
        c = _limit_hold(j, run[:nrun], False)
        if c >= 0:
            LIMITS["why"][j] = LIMITS["LC"][L_CODE, c]
            if not (O[O_ASSOC_LIMIT_STOP] and LIMITS["LC"][L_KIND, c] == KIND_POST):
                continue
            avail = -1
        if avail >= JI[I_CPUS, j]:
            nrun = _start(j, now, allowed, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish, expend, run, nrun)
            by[j] = 1
            npend = _remove(pend, npend, j)
        else:
            failed[p] = 1
            if not O[O_STOP_PARTITION_ONLY]:
                for v in range(N):
                    if part_nodes[p, v]:
                        blocked[v] = 1
    return npend, nrun




def _recalc(now, last, usage, shares, fs, pend, npend, prio, run, nrun, JF, JI, P, O, start):
    """The decay thread's pass (_decay_thread): usage decayed by D^elapsed (decay_factor), running
    jobs charged for the slice since the last pass (usage_accrual='per-calc-period'), fair-share
    factors and the priorities of pending jobs recomputed. Returns 1 when a priority changed."""
    hl = P[P_HALF_LIFE]
    whole = bool(O[O_USAGE_TIME_T])
    dt = np.floor(now) - np.floor(last) if whole else now - last
    if hl > 0.0 and dt > 0.0:
        if O[O_DECAY_EXACT]:
            d = 2.0 ** (-dt / hl)
        else:
            d = (1.0 - 0.693 / hl) ** dt
        for a in range(usage.shape[0]):
            usage[a] *= d
    if not O[O_ACCRUE_AT_END]:
        for q in range(nrun):
            _charge(run[q], last, now, JI, usage, start, whole)
    _fs_factors(usage, shares, fs, O[O_FAIR_TREE], P[P_DAMP])
    changed = 0
    for k in range(npend):
        j = pend[k]
        p = _priority(j, now, JF, JI, P, O, fs)
        if p != prio[j]:
            changed = 1
            prio[j] = p
    return changed


def _split(records, b, e, res):
    """backfill.c _add_reservation's record splits, step by step: a record is split at the begin
    (the first record ending after it; none when a record ends exactly there) and at the end (at
    least one resolution after the begin) inside the record holding it."""
    b = max(b, records[0][0])
    e = max(e, b + res)
    for j, (rb_, re_) in enumerate(records):
        if re_ > b:
            records[j] = [rb_, b]
            records.insert(j + 1, [b, re_])
            j += 1
            break
        if re_ == b:
            j += 1
            break
    else:
        return
    while j < len(records):
        rb_, re_ = records[j]
        if e < re_:
            records[j] = [rb_, e]
            records.insert(j + 1, [e, re_])
            return
        if e == re_:
            return
        j += 1


def slurm_loop(JF, JI, P, O, node_cpus, part_nodes, tier, shares, alloc_size, start, finish, by):
    """Simulate the jobs (sorted by submit) under the policy; fills ``start``/``finish`` and ``by``
    (1: started by the main scheduler, 2: by backfill). Order of work at one time: the decay pass
    (when due), job ends (each runs the main scheduler at once), submissions (each asks for a main
    run at the next tick at least batch_sched_delay after the last event-driven run, or at once
    with sched_on_submit='immediate'), due main runs, the periodic full-depth main run, then a due
    backfill pass (bf_interval after the last pass, and only when something changed since).

    Every due backfill pass runs whole, from the first queue position."""
    n = JF.shape[1]
    N = node_cpus.shape[0]
    free = node_cpus.copy()
    A = shares.shape[0]
    usage = np.zeros(A)
    fs = np.ones(A)
    _fs_factors(usage, shares, fs, O[O_FAIR_TREE], P[P_DAMP])
    pend = np.empty(n, dtype=np.int64)
    npend = 0
    run = np.empty(max(n, 1), dtype=np.int64)
    nrun = 0
    prio = np.zeros(n)
    expend = np.zeros(n)
    anode = np.empty(alloc_size, dtype=np.int64)
    acnt = np.empty(alloc_size, dtype=np.int64)
    alen = np.zeros(n, dtype=np.int64)
    t0 = P[P_T0]
    calc = P[P_CALC]
    last_calc = P[P_CALC0]  # the decay thread's start (SlurmOptions.decay_start)
    next_calc = last_calc + calc
    next_periodic = t0 + P[P_SCHED_INTERVAL]
    submit_run = np.inf
    last_event_run = -np.inf
    bf_on = O[O_BACKFILL] and P[P_BF_INTERVAL] > 0
    last_bf = P[P_BF_FIRST] - P[P_BF_INTERVAL]
    tick = P[P_TICK]
    ph = 0.0 if np.isnan(tick) else tick
    end_now = O[O_END_IMMEDIATE]
    if not np.isnan(tick):
        last_event_run = t0  # last_sched_time starts at the controller's start

    bf_tick = P[P_BF_TICK]  # the backfill thread's re-checks

    def on_tick(t):
        return t if np.isnan(bf_tick) else bf_tick + np.ceil(t - bf_tick)

    changed_at = np.inf  # first change since the last backfill pass
    if O[O_BF_IDLE_PASSES] and not np.isnan(P[P_BF_TICK]):
        changed_at = P[P_BF_FIRST] - P[P_BF_INTERVAL]
    main_changed = True  # something changed since the last full main run
    i = 0
    need_prio = P[P_W_AGE] > 0.0 or P[P_W_FS] > 0.0
    RF = np.empty((2, n + 1))
    RI = np.empty((4, n + 1), dtype=np.int64)
    rnodes = np.empty(max(alloc_size, 1), dtype=np.int64)
    CK = np.zeros((3, n + 1), dtype=np.int64)
    CKF = np.empty(n + 1)
    while i < n or nrun > 0 or npend > 0:
        now = np.inf
        if i < n:
            now = JF[F_SUBMIT, i]
        for q in range(nrun):
            if finish[run[q]] < now:
                now = finish[run[q]]
        now = min(now, submit_run)
        if npend > 0:
            if main_changed:
                now = min(now, next_periodic)
            if bf_on and changed_at < np.inf:
                now = min(now, max(last_bf + P[P_BF_INTERVAL], on_tick(changed_at)))
            if need_prio:
                now = min(now, next_calc)
        if now == np.inf:
            break  # nothing can happen any more (cannot occur: every job fits its partition)
        if O[O_BF_IDLE_PASSES] and bf_on and npend == 0 and changed_at < np.inf:
            due = max(last_bf + P[P_BF_INTERVAL], on_tick(changed_at))
            if due < now:
                last_bf = due
                changed_at = np.inf
        if not end_now and next_periodic < now:  # every full run sets last_sched_time
            g = next_periodic + np.floor((now - next_periodic) / P[P_SCHED_INTERVAL]) * P[P_SCHED_INTERVAL]
            if g < now:
                last_event_run = max(last_event_run, g)
                next_periodic = g + P[P_SCHED_INTERVAL]
        # the decay pass at the last grid point <= now
        if need_prio and next_calc <= now:
            g = next_calc + np.floor((now - next_calc) / calc) * calc
            if _recalc(g, last_calc, usage, shares, fs, pend, npend, prio, run, nrun, JF, JI, P, O, start):
                main_changed = True
                if changed_at == np.inf:
                    changed_at = g
            last_calc = g
            next_calc = g + calc
        # job ends
        ended = False
        q = 0
        while q < nrun:
            j = run[q]
            if finish[j] <= now:
                o = JI[I_AOFF, j]
                for z in range(alen[j]):
                    free[anode[o + z]] += acnt[o + z]
                if need_prio and O[O_CHARGE_AT_END]:
                    _charge(j, -np.inf if O[O_ACCRUE_AT_END] else last_calc, finish[j], JI, usage, start,
                            bool(O[O_USAGE_TIME_T]))
                run[q] = run[nrun - 1]
                nrun -= 1
                ended = True
            else:
                q += 1
        # submissions
        while i < n and JF[F_SUBMIT, i] <= now:
            c = _limit_hold(i, list(pend[:npend]) + list(run[:nrun]), True)
            if c >= 0:
                LIMITS["why"][i] = -(c + 1)
                return npend
            pend[npend] = i
            npend += 1
            prio[i] = _priority(i, JF[F_SUBMIT, i], JF, JI, P, O, fs)
            if O[O_SUBMIT_IMMEDIATE]:
                submit_run = now
            else:
                submit_run = min(submit_run, max(ph + np.ceil(JF[F_SUBMIT, i] - ph), last_event_run + P[P_BATCH_DELAY]))
            i += 1
            main_changed = True
            if changed_at == np.inf:
                changed_at = now
        before = nrun
        if ended:
            main_changed = True
            if changed_at == np.inf:
                changed_at = now
            if end_now:
                npend, nrun = _main(now, False, pend, npend, prio, tier, part_nodes, free, node_cpus, JF, JI, P, O,
                                    anode, acnt, alen, start, finish, expend, run, nrun, by)
                last_event_run = now
            else:
                submit_run = min(submit_run, max(ph + np.ceil(now - ph), last_event_run + P[P_BATCH_DELAY]))
        full_due = next_periodic <= now
        if submit_run <= now and (end_now or not full_due):
            submit_run = np.inf
            npend, nrun = _main(now, False, pend, npend, prio, tier, part_nodes, free, node_cpus, JF, JI, P, O,
                                anode, acnt, alen, start, finish, expend, run, nrun, by)
            last_event_run = now
        if full_due:
            next_periodic += (np.floor((now - next_periodic) / P[P_SCHED_INTERVAL]) + 1) * P[P_SCHED_INTERVAL]
            if not end_now and submit_run < np.inf:
                submit_run = np.inf
                main_changed = True
            if main_changed and npend > 0:
                npend, nrun = _main(now, True, pend, npend, prio, tier, part_nodes, free, node_cpus, JF, JI, P, O,
                                    anode, acnt, alen, start, finish, expend, run, nrun, by)
                main_changed = False  # a full run left nothing it could start; only a change can
            if not end_now:
                last_event_run = now
        if nrun > before:
            if changed_at == np.inf:
                changed_at = now  # a start is a job update: backfill has work (_more_work)
        if bf_on and changed_at < np.inf and now >= last_bf + P[P_BF_INTERVAL] and now >= on_tick(changed_at):
            order = _order(pend, npend, prio, tier, JI)
            npend, nrun, _, _ = _backfill(now, order, 0, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
                                          anode, acnt, alen, start, finish, expend, run, nrun, by, RF, RI, rnodes, CK, CKF)
            last_bf = now
            changed_at = now if (O[O_BF_PASS_UPDATES] and npend > 0) else np.inf
    return npend
