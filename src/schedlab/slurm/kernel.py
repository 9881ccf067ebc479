"""The compiled loop of ``--policy slurm`` (kernels only; the driver is :mod:`schedlab.slurm.policy`).

Why a loop of its own rather than :func:`schedlab.sim.loop.site_loop`: Slurm's schedulers are
time-driven (the main scheduler every ``sched_interval`` and ``batch_sched_delay`` after a
submission, backfill ``bf_interval`` after its last pass, priorities every
``PriorityCalcPeriod``), they see CPUs on *nodes* (a backfill reservation takes whole nodes, the
stop rule takes a partition's nodes) and partitions, none of which the site state of
:mod:`schedlab.sim.state` holds (one pool of m processors, one queue in a static order). The state
changes still go through a few operations, as in :mod:`schedlab.sim.ops`: :func:`_start`
(allocate CPUs on nodes, record the finish), :func:`_end` (free them, charge usage) and
:func:`_recalc` (decay usage, recompute priorities); the two passes only decide.

Everything is in numpy arrays indexed by job number (jobs sorted by submit time, ties in trace
order); rows of ``JF``/``JI`` and slots of ``P``/``O`` are named in :mod:`schedlab.slurm.layout`,
the state operations are in :mod:`schedlab.slurm.ops`, the backfill pass in :mod:`schedlab.slurm.backfill`.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .backfill import _backfill, _nothing_fits, _pass_scratch
from .layout import (F_SUBMIT, I_AOFF, I_CPUS, I_PART, O_ACCRUE_AT_END, O_BACKFILL, O_BEST_FIT, O_DECAY_EXACT,
                     O_END_IMMEDIATE, O_RESOURCES,
                     O_FAIR_TREE, O_MAIN_FULL, O_STOP_PARTITION_ONLY, O_SUBMIT_IMMEDIATE, P_BATCH_DELAY, P_BF_FIRST,
                     P_BF_INTERVAL, P_BF_TICK, P_CALC, P_CALC0, P_DAMP, P_DEPTH, P_HALF_LIFE, P_SCHED_INTERVAL, P_T0, P_TICK, P_W_AGE,
                     P_W_FS)
from .ops import NO_NRT, _charge, _compact, _fs_factors, _insert, _order, _priority, _remove, _start
from .limits import KIND_POST, L_CODE, L_KIND, _held, _take
from .layout import O_ASSOC_LIMIT_STOP, O_BF_IDLE_PASSES, O_BF_PASS_UPDATES, O_CHARGE_AT_END, O_USAGE_TIME_T
from .select import _backfill_res, _release, _select, _start_on


@njit(**NO_NRT)
def _main(now, full, order, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
          anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked, allowed, RES, LJ, LA, LC, why):
    """The main scheduler (job_scheduler.c _schedule): the queue in order (``order``, as
    :func:`_order` gives it); a job that fits on the
    CPUs still free starts; the first job of a partition that does not fit marks the partition
    failed: later jobs of it are skipped, and (stop_scope='partition-and-nodes') its nodes are
    taken from every later job. Event-driven runs test at most default_queue_depth jobs
    (depth counted before the failed-partition skip), periodic ones all; once every partition
    failed nothing else can start. ``failed``, ``blocked``, ``allowed``: scratch. A job an
    association/QOS limit holds (:mod:`.limits`) is skipped, its reason in ``why``; with
    assoc_limit_stop a TRES limit fails its partition. Returns (npend, nrun)."""
    if npend == 0:
        return npend, nrun
    P_ = part_nodes.shape[0]
    N = free.shape[0]
    failed[:] = 0
    blocked[:] = 0
    nfailed = 0
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
        c = _held(j, LJ, LA, LC, False)
        if c >= 0:
            why[j] = int(LC[L_CODE, c])
            if not (O[O_ASSOC_LIMIT_STOP] and LC[L_KIND, c] == KIND_POST):
                continue  # (job_scheduler.c: pre_select -> continue; ESLURM_ACCOUNTING_POLICY -> no fail_by_part)
            fits = False  # assoc_limit_stop: "potentially starve this job", its partition fails
        else:
            for v in range(N):
                ok = part_nodes[p, v] and not blocked[v]
                allowed[v] = ok
                if ok:
                    avail += free[v]
            if O[O_RESOURCES]:
                JR, NR, FR, AR, use, chosen = RES
                fits = _select(j, allowed, free, FR, node_cpus, JR, NR, O[O_BEST_FIT], use, chosen) > 0
                if fits:
                    nrun = _start_on(j, now, chosen, free, FR, node_cpus, JF, JI, JR, NR, AR, P, O, anode, acnt, alen,
                                     start, finish, expend, run, nrun)
            else:
                fits = avail >= JI[I_CPUS, j]
                if fits:
                    nrun = _start(j, now, allowed, free, node_cpus, JF, JI, P, O, anode, acnt, alen, start, finish,
                                  expend, run, nrun)
        if fits:
            _take(j, LJ, LA, LC, 1.0, 0)
            by[j] = 1
            npend = _remove(pend, npend, j)
        else:
            failed[p] = 1
            nfailed += 1
            if nfailed == P_:
                break
            if not O[O_STOP_PARTITION_ONLY]:
                for v in range(N):
                    if part_nodes[p, v]:
                        blocked[v] = 1
    return npend, nrun




@njit(**NO_NRT)
def _main_kept(now, full, qord, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
               anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked, allowed, RES, LJ, LA, LC, why):
    """:func:`_main` on the kept queue order ``qord[:npend]``, then the started jobs dropped from it."""
    before = npend
    npend, nrun = _main(now, full, qord[:npend], pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
                        anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked, allowed, RES,
                        LJ, LA, LC, why)
    if npend < before:
        _compact(qord, before, by)
    return npend, nrun


@njit
def _recalc(now, last, usage, shares, fs, pend, npend, prio, run, nrun, JF, JI, P, O, start):
    """The decay thread's pass (_decay_thread): usage decayed by D^elapsed (decay_factor), running
    jobs charged for the slice since the last pass (usage_accrual='per-calc-period'), fair-share
    factors and the priorities of pending jobs recomputed. Returns 1 when a priority changed."""
    hl = P[P_HALF_LIFE]
    whole = O[O_USAGE_TIME_T] != 0
    dt = np.floor(now) - np.floor(last) if whole else now - last  # run_delta = difftime(start_time, g_last_ran)
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


@njit(**NO_NRT)
def _on_tick(t, tick):
    """The first one-second tick of the controller at or after ``t`` (ticks at ``tick`` + whole
    seconds); ``t`` itself when ``tick`` is nan (a settled controller whose phase is not known)."""
    if np.isnan(tick):
        return t
    return tick + np.ceil(t - tick)


@njit
def slurm_loop(JF, JI, P, O, node_cpus, part_nodes, tier, shares, alloc_size, start, finish, by, RES3, LJ, LA, LC, why,
               skip=True):
    """Simulate the jobs (sorted by submit) under the policy; fills ``start``/``finish`` and ``by``
    (1: started by the main scheduler, 2: by backfill), and ``why`` (the last limit that held each
    job, :mod:`.limits`; a submission over MaxSubmitJobs stops the run with why = -(counter + 1)). Order of work at one time: the decay pass
    (when due), job ends (each runs the main scheduler at once), submissions (each asks for a main
    run at the next tick at least batch_sched_delay after the last event-driven run, or at once
    with sched_on_submit='immediate'), due main runs, the periodic full-depth main run, then a due
    backfill pass (bf_interval after the last pass, and only when something changed since).

    A due backfill pass that provably starts nothing is not run, only recorded as run (its only
    effect: the time of the next one): when no pending job fits in its partition's free CPUs
    (:func:`_nothing_fits`), or when no job was submitted, ended or started since the last pass
    that ran, that pass started nothing, the queue order is the same and the time is before that
    pass's horizon (:func:`_backfill`). A pass after submissions alone resumes that pass at the
    first queue position where the orders differ, and a pass ends where no later job can start
    (:func:`_backfill`'s ``trim``). ``skip=False`` runs every pass whole (the reference the tests
    compare with).

    ``RES3`` = (JR, NR, AR): the jobs' and nodes' resources and the allocations' memory and GPUs
    (:mod:`.select`), read only with ``O_RESOURCES`` (else empty arrays): the main scheduler and
    backfill then place jobs by CPUs, memory and GPUs (:func:`_backfill_res`: a pass is skipped only
    when :func:`_nothing_fits`, never resumed)."""
    n = JF.shape[1]
    N = node_cpus.shape[0]
    free = node_cpus.copy()
    res_on = O[O_RESOURCES]
    JR, NR, AR = RES3
    FR = np.zeros((2, N))
    if res_on:
        FR[0] = NR[0]
        FR[1] = NR[1]
    RES = (JR, NR, FR, AR, np.empty(N, dtype=np.uint8), np.empty(N, dtype=np.int64))
    A = shares.shape[0]
    usage = np.zeros(A)
    fs = np.ones(A)
    _fs_factors(usage, shares, fs, O[O_FAIR_TREE], P[P_DAMP])
    pend = np.empty(n, dtype=np.int64)
    npend = 0
    run = np.empty(max(n, 1), dtype=np.int64)
    nrun = 0
    prio = np.zeros(n)
    qord = np.empty(n, dtype=np.int64)  # pend[:npend] in _order's order, kept between priority changes
    failed = np.empty(part_nodes.shape[0], dtype=np.uint8)  # the main scheduler's scratch
    blocked = np.empty(N, dtype=np.uint8)
    allowed = np.empty(N, dtype=np.uint8)
    expend = np.zeros(n)
    anode = np.empty(alloc_size, dtype=np.int64)
    acnt = np.empty(alloc_size, dtype=np.int64)
    alen = np.zeros(n, dtype=np.int64)
    t0 = P[P_T0]
    calc = P[P_CALC]
    last_calc = P[P_CALC0]  # _decay_thread: its first pass at its start, then every PriorityCalcPeriod
    next_calc = last_calc + calc
    next_periodic = t0 + P[P_SCHED_INTERVAL]
    submit_run = np.inf
    last_event_run = -np.inf
    bf_on = O[O_BACKFILL] and P[P_BF_INTERVAL] > 0
    last_bf = P[P_BF_FIRST] - P[P_BF_INTERVAL]  # backfill_agent sleeps bf_interval after the controller starts
    tick = P[P_TICK]  # the background loop's one-second ticks (nan: none)
    bf_tick = P[P_BF_TICK]  # ... and the backfill thread's
    ph = 0.0 if np.isnan(tick) else tick
    end_now = O[O_END_IMMEDIATE]
    if not np.isnan(tick):
        last_event_run = t0  # last_sched_time starts at the controller's start
    changed_at = np.inf  # first change since the last backfill pass
    if O[O_BF_IDLE_PASSES] and not np.isnan(bf_tick):
        changed_at = P[P_BF_FIRST] - P[P_BF_INTERVAL]  # the node's registration after the controller's start
    main_changed = True  # something changed since the last full main run
    i = 0
    need_prio = P[P_W_AGE] > 0.0 or P[P_W_FS] > 0.0
    version = 0  # counts submissions, ends and starts: the state a backfill pass reads
    cert_version = -1  # the version at the last pass that ran and started nothing ...
    cert_horizon = -np.inf  # ... its horizon ...
    cert_order = np.empty(n, dtype=np.int64)  # ... and its queue order
    cert_n = 0
    cert_reach = 0  # ... and how far its state per queue position is kept (_backfill)
    moved = 0  # counts ends and starts: with version, tells a pass that may resume (submissions only)
    cert_moved = -1
    RF = np.empty((2, n + 1))
    RI = np.empty((3, n + 1), dtype=np.int64)
    rnodes = np.empty(max(alloc_size, 1), dtype=np.int64)
    CK = np.zeros((3, n + 1), dtype=np.int64)
    CKF = np.empty(n + 1)
    BS = _pass_scratch(node_cpus, part_nodes.shape[0])
    while i < n or nrun > 0 or npend > 0:
        now = np.inf
        if i < n:
            now = JF[F_SUBMIT, i]
        for q in range(nrun):
            if finish[run[q]] < now:
                now = finish[run[q]]
        now = min(now, submit_run)  # (with nothing pending a request still runs: last_sched_time moves)
        if npend > 0:
            if main_changed:
                now = min(now, next_periodic)
            if bf_on and changed_at < np.inf:
                now = min(now, max(last_bf + P[P_BF_INTERVAL], _on_tick(changed_at, bf_tick)))
            if need_prio:
                now = min(now, next_calc)
        if now == np.inf:
            break  # nothing can happen any more (cannot occur: every job fits its partition)
        if O[O_BF_IDLE_PASSES] and bf_on and npend == 0 and changed_at < np.inf:
            due = max(last_bf + P[P_BF_INTERVAL], _on_tick(changed_at, bf_tick))
            if due < now:  # a due pass with no job pending still runs ("no jobs to backfill") and sets
                last_bf = due  # last_backfill_time
                changed_at = np.inf
        if not end_now and next_periodic < now:
            # full runs before now that the loop passed over (nothing had changed: they start
            # nothing) still set last_sched_time
            g = next_periodic + np.floor((now - next_periodic) / P[P_SCHED_INTERVAL]) * P[P_SCHED_INTERVAL]
            if g < now:
                last_event_run = max(last_event_run, g)
                next_periodic = g + P[P_SCHED_INTERVAL]
        # the decay pass at the last grid point <= now
        if need_prio and next_calc <= now:
            g = next_calc + np.floor((now - next_calc) / calc) * calc
            if _recalc(g, last_calc, usage, shares, fs, pend, npend, prio, run, nrun, JF, JI, P, O, start):
                qord[:npend] = _order(pend, npend, prio, tier, JI)
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
                if res_on:
                    _release(j, free, FR, JI, AR, anode, acnt, alen)
                else:
                    o = JI[I_AOFF, j]
                    for z in range(alen[j]):
                        free[anode[o + z]] += acnt[o + z]
                if need_prio and O[O_CHARGE_AT_END]:  # (else the slice since the last decay pass is never charged)
                    _charge(j, -np.inf if O[O_ACCRUE_AT_END] else last_calc, finish[j], JI, usage, start,
                            O[O_USAGE_TIME_T] != 0)
                _take(j, LJ, LA, LC, -1.0, 2)
                run[q] = run[nrun - 1]
                nrun -= 1
                ended = True
                version += 1
                moved += 1
            else:
                q += 1
        # submissions
        while i < n and JF[F_SUBMIT, i] <= now:
            c = _held(i, LJ, LA, LC, True)
            if c >= 0:  # acct_policy_validate: the submission is rejected (limits.rejected_by_limit)
                why[i] = -(c + 1)
                return npend
            _take(i, LJ, LA, LC, 1.0, 1)
            pend[npend] = i
            npend += 1
            prio[i] = _priority(i, JF[F_SUBMIT, i], JF, JI, P, O, fs)
            _insert(qord, npend - 1, i, prio, tier, JI)
            if O[O_SUBMIT_IMMEDIATE]:
                submit_run = now
            else:
                submit_run = min(submit_run, max(ph + np.ceil(JF[F_SUBMIT, i] - ph), last_event_run + P[P_BATCH_DELAY]))
            i += 1
            version += 1
            main_changed = True
            if changed_at == np.inf:
                changed_at = now
        before = nrun
        if ended:
            main_changed = True
            if changed_at == np.inf:
                changed_at = now
            if end_now:  # sched_on_end='immediate': the epilog-complete path, schedule() at the end
                npend, nrun = _main_kept(now, False, qord, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
                                         anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked,
                                         allowed, RES, LJ, LA, LC, why)
                last_event_run = now
            else:  # the agent's queue_job_scheduler(): a request the background loop serves
                submit_run = min(submit_run, max(ph + np.ceil(now - ph), last_event_run + P[P_BATCH_DELAY]))
        full_due = next_periodic <= now
        if submit_run <= now and not (full_due and not end_now):  # (a due full run takes the requests)
            submit_run = np.inf
            npend, nrun = _main_kept(now, False, qord, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
                                     anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked, allowed,
                                     RES, LJ, LA, LC, why)
            last_event_run = now
        if full_due:
            next_periodic += (np.floor((now - next_periodic) / P[P_SCHED_INTERVAL]) + 1) * P[P_SCHED_INTERVAL]
            if not end_now and submit_run < np.inf:
                submit_run = np.inf  # the full run clears the requests (job_sched_cnt = 0)
                main_changed = True
            if main_changed and npend > 0:
                npend, nrun = _main_kept(now, True, qord, pend, npend, part_nodes, free, node_cpus, JF, JI, P, O,
                                         anode, acnt, alen, start, finish, expend, run, nrun, by, failed, blocked, allowed,
                                         RES, LJ, LA, LC, why)
                main_changed = False  # a full run left nothing it could start; only a change can
            if not end_now:
                last_event_run = now  # last_sched_time is set by every run of the background loop
        if nrun > before:
            version += 1
            moved += 1
            if changed_at == np.inf:
                changed_at = now  # a start is a job update: backfill has work (_more_work)
        if bf_on and changed_at < np.inf and now >= last_bf + P[P_BF_INTERVAL] and now >= _on_tick(changed_at, bf_tick):
            if res_on:
                # (run when some pending job fits its partition's free CPUs: else none can start)
                if not (skip and _nothing_fits(pend, npend, part_nodes, free, JI)):
                    before = nrun
                    npend, nrun = _backfill_res(now, qord[:npend], pend, npend, part_nodes, free, FR, node_cpus, JF, JI,
                                                JR, NR, AR, P, O, anode, acnt, alen, start, finish, expend, run, nrun,
                                                by, RF, RI, rnodes, LJ, LA, LC)
                    if nrun > before:
                        _compact(qord, npend + nrun - before, by)
                        version += 1
                        moved += 1
            elif not (skip and _nothing_fits(pend, npend, part_nodes, free, JI)):
                order = qord[:npend]
                same = skip and cert_version == version and now < cert_horizon and cert_n == npend
                k = 0
                while same and k < npend:
                    same = order[k] == cert_order[k]
                    k += 1
                if not same:
                    k0 = 0
                    if skip and cert_moved == moved and now < cert_horizon:
                        top = min(npend, cert_n, cert_reach)
                        while k0 < top and order[k0] == cert_order[k0]:
                            k0 += 1
                    before = nrun
                    npend, nrun, horizon, reach = _backfill(now, order, k0, pend, npend, part_nodes, free, node_cpus,
                                                            JF, JI, P, O, anode, acnt, alen, start, finish, expend,
                                                            run, nrun, by, RF, RI, rnodes, CK, CKF, LJ, LA, LC,
                                                            BS, skip)
                    if nrun > before:
                        _compact(qord, order.shape[0], by)
                        version += 1
                        moved += 1
                    else:
                        cert_version = version
                        cert_moved = moved
                        cert_horizon = horizon
                        cert_n = npend
                        cert_reach = reach
                        cert_order[:npend] = order
            last_bf = now
            # a pass re-estimates the start of every job it tests (_clear_job_estimates, then start_res >
            # start_time: last_job_update = now), so with jobs pending the next pass has work (_more_work)
            changed_at = now if (O[O_BF_PASS_UPDATES] and npend > 0) else np.inf
    return npend
