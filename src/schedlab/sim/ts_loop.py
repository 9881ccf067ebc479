"""The compiled event loop of the time-sharing engine (SCOJO-PECT): :func:`_run`.

It follows the rules and the event order stated once, in the docstring of
:mod:`schedlab.sim.timeshare` (rule 5: finishes, then arrivals, then a slice boundary, then one
pass). Its parts live beside it: node sets and queues in :mod:`.ts_nodes`, shares, cycles and slice
switches in :mod:`.ts_slices`, EASY and smart backfilling in :mod:`.ts_backfill`, group plans in
:mod:`.ts_plans`, the plan record in :mod:`.ts_record`; every numbered slot it reads has its name
in :mod:`.ts_layout`.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_backfill import _backfill
from .ts_layout import (DONE, FAULT_LEFT, FAULT_SILENT, GP_GROUPS, G_BL_GROUPS, G_DYNAMIC_BACKFILL, G_FAULT,
                        G_PLAN_NODES, MODE_BOTTOMLINE, MODE_GROUPS, MODE_PLAIN, PREEMPTED, ST_LEN, WAITING)
from .ts_nodes import _compact, _grow, _launch, _nodes_free, _record, _vacate
from .ts_plans import _current_plan, _plan_pass, _release_plan
from .ts_record import _log_launches, _new_record, _record_arrays, _record_plan
from .ts_slices import _mark_suspensions, _new_cycle, _pause, _suspend_marked


@njit
def _run(submit, est, p, w, cls, m, share_table, order, cycle, min_slice, overhead, smart, suspend_all, mode, gp, gg):
    """Simulate the jobs (submit order; classes ``cls``, progress needed ``p``) on m nodes; mode and
    ``gp``/``gg`` as :mod:`.ts_layout`. Returns the node sets, first starts, finishes, preemption
    counts, the execution intervals, the slices, the overheads, the counters and the plan record."""
    n = submit.shape[0]
    off = np.zeros(n + 1, np.int64)
    for j in range(n):
        off[j + 1] = off[j] + w[j]
    nodes = np.full(off[n], -1, np.int64)
    status = np.zeros(n, np.int64)
    done = np.zeros(n, np.float64)
    seg = np.zeros(n, np.float64)  # start of the current run segment
    last = np.zeros(n, np.float64)  # last start or resume (a pause does not count)
    first = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    npre = np.zeros(n, np.int64)
    node_run = np.full(m, -1, np.int64)
    held = np.full((3, m), -1, np.int64)
    free_elig = np.full(3, m, np.int64)
    wq = np.empty((3, n), np.int64)
    wq_n = np.zeros(3, np.int64)
    pq = np.empty((3, n), np.int64)
    pq_n = np.zeros(3, np.int64)
    run = np.empty(m, np.int64)
    run_n = 0
    n_run_cls = np.zeros(3, np.int64)
    iv_job = np.empty(2 * n + 16, np.int64)
    iv_s = np.empty(2 * n + 16, np.float64)
    iv_e = np.empty(2 * n + 16, np.float64)
    niv = 0
    sl_cls = np.empty(64, np.int64)
    sl_b = np.empty(64, np.float64)
    sl_e = np.empty(64, np.float64)
    nsl = 0
    ov = np.empty(64, np.float64)
    nov = 0
    cyc_cls = np.empty(3, np.int64)
    cyc_len = np.empty(3, np.float64)
    cyc_n = 0
    cyc_pos = 0
    cur = -1
    s_begin = 0.0
    s_end = 0.0
    pending = False
    work = np.zeros(3, np.bool_)
    mark = np.zeros(n, np.bool_)
    tmp = np.empty(m, np.int64)
    ends = np.empty(m, np.float64)
    wid = np.empty(m, np.int64)
    # group plans (MODE_GROUPS: the thesis' optimiser, MODE_BOTTOMLINE: the bottom line)
    inplan = np.zeros(n, np.bool_)
    plan = np.empty((3, 64), np.int64)
    plan_n = np.zeros(3, np.int64)
    vs = np.empty(64, np.float64)
    wait0 = np.zeros(n, np.float64)
    stats = np.zeros(ST_LEN, np.int64)
    maxwait = 0.0
    bfs = np.empty(m + 1, np.int64)
    fault = np.zeros(2, np.int64)
    fault[FAULT_LEFT] = int(gg[G_FAULT]) if gg.shape[0] > G_FAULT else 0
    # the optimiser, or the bottom line on the thesis' groups
    keep_plan = mode == MODE_GROUPS or gg[G_BL_GROUPS] > 0
    arr_t = np.full(3, -1.0)  # last arrival time per class
    form_t = np.zeros(3)  # formation time of each class's current group
    gjob = np.full(3, -1, np.int64)  # its group-finish job (6.3.3)
    sl_first = False  # the next pass is the first of its slice
    fault[FAULT_SILENT] = fault[FAULT_LEFT] > 0
    rec, log, rcnt = _new_record()  # the plans committed to and the launch log of every pass
    rel_t = np.empty(m + n + 1, np.float64)
    rel_w = np.empty(m + n + 1, np.int64)
    pT = np.empty(4 * m + n + 300, np.float64)
    pF = np.empty(4 * m + n + 300, np.int64)
    i = 0
    while True:
        # ------------------------------------------------------------ next event time
        t = np.inf
        if i < n:
            t = submit[i]
        for r in range(run_n):
            j = run[r]
            f = seg[j] + (p[j] - done[j])
            if f < t:
                t = f
        if cur >= 0:
            if pending and s_begin < t:
                t = s_begin
            if s_end < t:
                t = s_end
        if t == np.inf:
            break
        # ------------------------------------------------------------ 1. finishes
        r = 0
        while r < run_n:
            j = run[r]
            if seg[j] + (p[j] - done[j]) <= t:
                if t > seg[j] or p[j] == 0.0:
                    iv_job, iv_s, iv_e, niv = _record(iv_job, iv_s, iv_e, niv, j, seg[j], t)
                _vacate(j, cls[j], False, nodes, off, w, node_run, held, free_elig)
                status[j] = DONE
                finish[j] = t
                n_run_cls[cls[j]] -= 1
                run_n -= 1
                run[r] = run[run_n]
            else:
                r += 1
        # ------------------------------------------------------------ 2. arrivals
        while i < n and submit[i] <= t:
            k = cls[i]
            wq[k, wq_n[k]] = i
            wq_n[k] += 1
            status[i] = WAITING
            arr_t[k] = t
            i += 1
        # ------------------------------------------------------------ 3. cycle / slice boundary
        for k in range(3):
            work[k] = wq_n[k] + pq_n[k] + n_run_cls[k] > 0
        if cur < 0:
            cyc_n = _new_cycle(t, work, share_table, order, cycle, min_slice, cyc_cls, cyc_len)
            if cyc_n > 0:
                cyc_pos = 0
                cur = cyc_cls[0]
                s_begin = t
                s_end = t + cyc_len[0]
                pending = False
                sl_cls, sl_b, sl_e, nsl = _record(sl_cls, sl_b, sl_e, nsl, cur, s_begin, s_end)
                sl_first = True
        elif t >= s_end:
            c = cur
            cyc_pos += 1
            while cyc_pos < cyc_n and not work[cyc_cls[cyc_pos]]:
                cyc_pos += 1
            if cyc_pos >= cyc_n:
                cyc_n = _new_cycle(t, work, share_table, order, cycle, min_slice, cyc_cls, cyc_len)
                cyc_pos = 0
            if cyc_n == 0:
                cur = -1
                continue
            nx = cyc_cls[cyc_pos]
            lam = cyc_len[cyc_pos]
            pay = False
            if nx != c:
                _mark_suspensions(c, nx, suspend_all, run, run_n, cls, off, w, nodes, held, wq, wq_n, free_elig, last,
                                  mark, tmp)
                run_n, ns, iv_job, iv_s, iv_e, niv = _suspend_marked(t, run, run_n, mark, tmp, cls, seg, done, status,
                                                                     npre, pq, pq_n, n_run_cls, nodes, off, w,
                                                                     node_run, held, free_elig, iv_job, iv_s, iv_e, niv)
                pay = overhead > 0.0 and (ns > 0 or pq_n[nx] > 0)
            if pay:
                iv_job, iv_s, iv_e, niv = _pause(t, overhead, run, run_n, seg, done, iv_job, iv_s, iv_e, niv)
                ov = _grow(ov, nov)
                ov[nov] = t
                nov += 1
                s_begin = t + overhead
                pending = True
            else:
                s_begin = t
                pending = False
            s_end = s_begin + lam
            cur = nx
            sl_cls, sl_b, sl_e, nsl = _record(sl_cls, sl_b, sl_e, nsl, cur, s_begin, s_end)
            sl_first = True
        # ------------------------------------------------------------ 4. scheduling pass
        if cur < 0 or t < s_begin:
            continue
        pending = False
        c = cur
        run0 = run_n
        first_pass = sl_first
        sl_first = False
        # (a) resume preempted c-jobs on their nodes
        for q in range(pq_n[c]):
            j = pq[c, q]
            if status[j] == PREEMPTED and _nodes_free(j, nodes, off, w, node_run):
                run_n = _launch(j, c, t, False, nodes, off, w, node_run, held, free_elig, status, seg, last, first,
                                run, run_n, n_run_cls)
        normal = True
        if mode != MODE_PLAIN and gp[c, GP_GROUPS] > 0:
            pn = _current_plan(c, t, s_end, first_pass, keep_plan, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n,
                               pq, pq_n, run, run_n, status, inplan, plan, plan_n, wait0, rel_t, rel_w, pT, pF, stats,
                               maxwait, gjob, arr_t, form_t, free_elig)
            if pn > 0:  # the pass with a plan replaces steps (b)-(d)
                normal = False
                run_n, nb = _plan_pass(c, t, s_end, pn, smart, gg[G_DYNAMIC_BACKFILL] > 0, gg[G_PLAN_NODES] > 0,
                                       submit, est, done, w, cls, m, nodes, off, node_run, held, free_elig, status,
                                       seg, last, first, run, run_n, n_run_cls, wq, wq_n, pq, pq_n, inplan, plan, vs,
                                       rel_t, rel_w, pT, pF, stats, bfs, fault)
                rec = _record_plan(rec, rcnt, t, c, plan, pn, vs, bfs, nb)  # rule 6 of validate_ts replays it
                _release_plan(c, pn, plan, inplan, status, keep_plan)
        # (b) FIFO starts of waiting c-jobs
        q = 0
        while normal and q < wq_n[c]:
            j = wq[c, q]
            if status[j] != WAITING:
                q += 1
                continue
            if w[j] > free_elig[c]:
                break
            run_n = _launch(j, c, t, True, nodes, off, w, node_run, held, free_elig, status, seg, last, first,
                            run, run_n, n_run_cls)
            q += 1
        # (c) EASY reservation of the first waiting c-job h that does not fit: shadow time from the running
        # jobs' estimated ends, counting only their nodes not held by preempted c-jobs (inf, m when they
        # never free enough); then backfill. (c) and (d) stay in the loop's body, not in functions: as
        # functions (numba inline="always" or not) the loop ran 6 % slower on a 10,000-job Lublin workload.
        shadow = np.inf
        extra = m
        if normal and q < wq_n[c]:
            h = wq[c, q]
            avail = free_elig[c]
            for r in range(run_n):
                j = run[r]
                ends[r] = seg[j] + (est[j] - done[j])
                cnt = 0
                for qq in range(off[j], off[j] + w[j]):
                    if held[c, nodes[qq]] == -1:
                        cnt += 1
                wid[r] = cnt
            ordr = np.argsort(ends[:run_n])
            for a in range(run_n):
                avail += wid[ordr[a]]
                if avail >= w[h]:
                    shadow = ends[ordr[a]]
                    break
            if shadow < np.inf:
                extra = free_elig[c] - w[h]
                for r in range(run_n):
                    if ends[r] <= shadow:
                        extra += wid[r]
            run_n, extra = _backfill(wq[c], wq_n[c], q + 1, c, True, t, shadow, extra, est, done, nodes, off, w,
                                     node_run, held, free_elig, status, seg, last, first, run, run_n, n_run_cls, inplan)
        # (d) smart backfilling: the other classes' preempted jobs on their own nodes, then their waiting
        # jobs, short first, each within the slice class's reservation
        if smart and normal:
            for fresh in (False, True):
                for k in range(3):
                    if k == c:
                        continue
                    queue, qn = (wq[k], wq_n[k]) if fresh else (pq[k], pq_n[k])
                    run_n, extra = _backfill(queue, qn, 0, k, fresh, t, shadow, extra, est, done, nodes, off, w,
                                             node_run, held, free_elig, status, seg, last, first, run, run_n, n_run_cls,
                                             inplan)
        if mode != MODE_PLAIN:
            log = _log_launches(log, rcnt, run, run0, run_n, t)
        if mode == MODE_BOTTOMLINE:  # dynB: the largest wait of a started job
            for r in range(run_n):
                j = run[r]
                if first[j] == t:
                    maxwait = max(maxwait, t - submit[j])
        # compact the queues
        for k in range(3):
            wq_n[k] = _compact(wq[k], wq_n[k], status, WAITING)
            pq_n[k] = _compact(pq[k], pq_n[k], status, PREEMPTED)
    return (off, nodes, first, finish, npre, iv_job[:niv].copy(), iv_s[:niv].copy(), iv_e[:niv].copy(),
            sl_cls[:nsl].copy(), sl_b[:nsl].copy(), sl_e[:nsl].copy(), ov[:nov].copy(), stats,
            _record_arrays(rec, log, rcnt))
