"""Group plans of the time-sharing engine (issue 13): the thesis' group optimiser and the bottom
line inside SCOJO-PECT (the event order and the plain engine's rules are stated once, in the
docstring of :mod:`schedlab.sim.timeshare`; the options are :mod:`schedlab.sim.scojo_opt`, the
searches :mod:`schedlab.sim.groupsearch`, the slots of ``gp``/``gg``/``stats``
:mod:`schedlab.sim.ts_layout`).

At a pass of a medium or long slice (:func:`_current_plan`) the class keeps its plan (the jobs of
its group not yet started), ends it (group finish), lets arrivals join it, or forms a new group
(:func:`_form_group`, thesis 6.1 / 7.2), or, for the bottom line, searches the waiting queue anew
(:func:`_bottomline_plan`). A pass with a plan (:func:`_plan_pass`, thesis Fig. 6 "inGroup"
branch) replaces steps (b)-(d) of the plain pass.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .groupsearch import (EPS, earliest, evaluate, group_finish, lsf_order, occupy, optimise_group, profile_build,
                          tree_search)
from .ts_layout import (DONE, FAULT_LEFT, FAULT_SILENT, FORM_AT_SLICE_START, FORM_AT_SUBMIT, GP_AVG_RUNTIME,
                        GP_GROUP_MAX, GP_GROUP_MIN, GP_INV_SHARE, GP_LAMBDA, GP_SIZE_FACTOR, G_BL_BUDGET, G_BL_GROUPS,
                        G_BL_MAX_JOBS, G_BL_SEARCH, G_BL_TAU, G_BL_WAIT_BOUND, G_CRITERIA_SCOPE, G_FINISH_DELTA,
                        G_FINISH_MIN_UTIL, G_FINISH_RULE, G_FORM_AT, G_FORM_CLASS, G_GROUP_END, G_JOIN, G_MIN_RULE,
                        G_RUNTIME_RULE, G_TAKE, LONG, MEDIUM, PREEMPTED, P_TAU, P_WIDE_FRACTION, P_WIDE_RUNTIME,
                        RUNTIME_WORK_CONSTANT, RUNTIME_WORK_MEAN, SEARCH_LEN, ST_DELAYS, ST_EXPLORED, ST_GROUPED,
                        ST_GROUPS, ST_SEARCHES, ST_SEARCH_END, TAKE_LSF, TAKE_WIDE_FIRST, WAITING)
from .ts_nodes import _launch, _nodes_free, _pick_unheld


@njit
def _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F):
    """Virtual profile of class c at t (thesis 6.3.1, "a copy of running queues"): running c-jobs
    until their estimated ends, jobs of other classes until their end or the slice end (they are
    suspended then), preempted c-jobs on their held nodes until their remaining time."""
    nr = 0
    for r in range(run_n):
        j = run[r]
        rem = est[j] - done[j] - max(0.0, t - seg[j])
        if cls[j] != c:
            rem = min(rem, s_end - t)
        rel_t[nr] = max(rem, 0.0)
        rel_w[nr] = w[j]
        nr += 1
    for q in range(pq_n[c]):
        j = pq[c, q]
        if status[j] == PREEMPTED:
            rel_t[nr] = est[j] - done[j]
            rel_w[nr] = w[j]
            nr += 1
    return profile_build(m, rel_t, rel_w, nr, T, F), nr


@njit
def _plan_left(c, plan, plan_n, status):
    """Keep the jobs of class c's plan that have not started (in plan order); how many."""
    pn = 0
    for a in range(plan_n[c]):
        j = plan[c, a]
        if status[j] == WAITING:
            plan[c, pn] = j
            pn += 1
    plan_n[c] = pn
    return pn


@njit
def _bl_search(g, pn, t, inv_share, gg, bound, w, est, wait0, T, F, P, stats, search):
    """The bottom line's decision (method-notes topic 4 steps 2-7) on the jobs ``g[:pn]``: sorted in
    place by LXF (largest expansion factor first, ties by earlier submission, i.e. position in g), then,
    if ``search`` and pn >= 2, the best order found by DDS/LDS within the budget (gg[G_BL_BUDGET]) is written
    back into g."""
    key = np.empty(pn, np.float64)
    for a in range(pn):
        r = max(est[g[a]], 1.0)
        key[a] = -(wait0[g[a]] + r) / r
    o = np.argsort(key, kind="mergesort")
    g[:pn] = g[o]
    if search and pn >= 2:
        te = np.empty(1, np.float64)
        ta = np.empty(1, np.float64)
        to = np.empty((1, pn), np.int64)
        rec = np.empty((0, pn), np.int64)
        kept = tree_search(g, pn, w, est, wait0, inv_share, gg[G_BL_TAU], True, bound, T, F, P, int(gg[G_BL_SEARCH]),
                           int(gg[G_BL_BUDGET]), False, 0.0, te, ta, to, stats[ST_EXPLORED:ST_SEARCH_END], rec)
        stats[ST_SEARCHES] += 1
        if kept > 0:
            g[:pn] = to[0, :pn]


@njit
def _form_group(c, t, s_end, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n, pq, pq_n, run, run_n, status,
                inplan, plan, wait0, rel_t, rel_w, T, F, stats, maxwait, gjob):
    """Thesis 6.1 / 7.2 group formation for class c and its plan (6.3, 6.5); the plan's length. The
    readings of GroupConfig (issue 33 item 2): gg[G_CRITERIA_SCOPE] criteria on the group (else the
    queue), gg[G_RUNTIME_RULE] run-time rule, gg[G_MIN_RULE] "more than" the minimum, gg[G_TAKE] which
    jobs (submit, LSF, long-wide first); gg[G_BL_GROUPS] the bottom line's search instead of the
    optimiser's (scope "group"). ``gjob[c]`` gets the group-finish job (6.3.3: the kept plan job whose
    planned end is nearest the group finish; -1 without the finish rule)."""
    nw = 0
    cand = np.empty(wq_n[c], np.int64)
    for q in range(wq_n[c]):
        j = wq[c, q]
        if status[j] == WAITING and not inplan[j]:
            cand[nw] = j
            wait0[j] = t - submit[j]
            nw += 1
    if nw == 0:
        return 0
    take = int(gg[G_TAKE])
    if take == TAKE_LSF:  # LSF: the search's heuristic order (5.1.2)
        o = cand[:nw].copy()
        lsf_order(o, nw, est, wait0, gp[c, P_TAU], cand)
    elif take == TAKE_WIDE_FIRST:  # long-wide jobs first, then arrival order
        o = cand[:nw].copy()
        a = 0
        for pas in range(2):
            for q in range(nw):
                j = o[q]
                wide = w[j] >= gp[c, P_WIDE_FRACTION] * m and est[j] >= gp[c, P_WIDE_RUNTIME]
                if wide == (pas == 0):
                    cand[a] = j
                    a += 1
    ng = min(nw, int(gp[c, GP_GROUP_MAX]))
    ns = ng if gg[G_CRITERIA_SCOPE] > 0 else nw  # the jobs the criteria see: the candidate group or the queue
    sw = 0
    work = 0.0
    rsum = 0.0
    for a in range(ns):
        j = cand[a]
        sw += w[j]
        work += w[j] * est[j]
        rsum += est[j]
    few = ns <= gp[c, GP_GROUP_MIN] if gg[G_MIN_RULE] > 0 else ns < gp[c, GP_GROUP_MIN]
    rule = int(gg[G_RUNTIME_RULE])
    if rule == RUNTIME_WORK_CONSTANT:
        short = work / m <= gp[c, GP_LAMBDA] * gp[c, GP_AVG_RUNTIME]
    elif rule == RUNTIME_WORK_MEAN:
        short = work / m <= gp[c, GP_LAMBDA] * (rsum / ns)
    else:
        gsum = 0.0
        for a in range(ng):
            gsum += est[cand[a]]
        short = gsum / ng >= gp[c, GP_LAMBDA] * gp[c, GP_AVG_RUNTIME]
    if few or sw <= gp[c, GP_SIZE_FACTOR] * m or short:
        return 0
    g = cand[:ng].copy()
    P, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F)
    out = np.empty(ng, np.int64)
    if gg[G_BL_GROUPS] > 0:  # the bottom line on the same group
        bound = gg[G_BL_WAIT_BOUND] if gg[G_BL_WAIT_BOUND] >= 0 else maxwait
        _bl_search(g, ng, t, gp[c, GP_INV_SHARE], gg, bound, w, est, wait0, T, F, P, stats, True)
        out[:] = g
    else:
        optimise_group(g, ng, w, est, wait0, gp[c, GP_INV_SHARE], m, T, F, P, gp[c, :SEARCH_LEN],
                       stats[ST_EXPLORED:ST_SEARCH_END], out)
        stats[ST_SEARCHES] += 1
    cap = P + 2 * ng + 4
    Tw = np.empty(cap, np.float64)
    Fw = np.empty(cap, np.int64)
    vs = np.empty(ng, np.float64)
    evaluate(out, ng, w, est, wait0, gp[c, GP_INV_SHARE], gp[c, P_TAU], False, 0.0, T, F, P, Tw, Fw, vs)
    keep = ng
    gjob[c] = -1
    if gg[G_FINISH_RULE] > 0:  # group finish (Fig. 8): plan jobs starting at or after it leave the plan
        v = np.zeros(nr + ng, np.float64)
        e = np.empty(nr + ng, np.float64)
        wd = np.empty(nr + ng, np.int64)
        e[:nr] = rel_t[:nr]
        wd[:nr] = rel_w[:nr]
        for a in range(ng):
            v[nr + a] = vs[a]
            e[nr + a] = vs[a] + est[out[a]]
            wd[nr + a] = w[out[a]]
        fin = group_finish(v, e, wd, nr + ng, m, gg[G_FINISH_DELTA], gg[G_FINISH_MIN_UTIL])
        keep = 0
        near = np.inf
        for a in range(ng):
            if vs[a] < fin - EPS or a == 0:
                out[keep] = out[a]
                keep += 1
                if abs(vs[a] + est[out[a]] - fin) < near:
                    near = abs(vs[a] + est[out[a]] - fin)
                    gjob[c] = out[a]
    for a in range(keep):
        plan[c, a] = out[a]
        inplan[out[a]] = True
    stats[ST_GROUPS + c] += 1
    stats[ST_GROUPED] += keep
    return keep


@njit
def _plan_pass(c, t, s_end, pn, smart, dyn, unheld, submit, est, done, w, cls, m, nodes, off, node_run, held, free_elig,
               status, seg, last, first, run, run_n, n_run_cls, wq, wq_n, pq, pq_n, inplan, plan, vs, rel_t, rel_w,
               T, F, stats, bf, fault):
    """A pass of a slice of class c that has a plan (thesis Fig. 6, "inGroup" branch): recalculate
    the plan (6.3.2), start its jobs due now, backfill other waiting c-jobs and (smart or dynamic
    backfilling) jobs of other classes only where they delay no plan job (6.6); then recompute the
    plan and count a delayed plan job in ``stats[ST_DELAYS]`` (must stay 0). The plan's virtual
    starts before the backfills are left in ``vs[:pn]``, the backfilled jobs in ``bf[:nb]``;
    returns (run_n, nb). ``fault[FAULT_LEFT] = k > 0`` (tests only) lets the k-th plan backfill of a
    class-c job that does not fit ignore the plan, once; ``fault[FAULT_SILENT]`` stops the counter (a wrong
    engine whose own check is wrong too: only the validator's replay can see it)."""
    P, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F)
    for a in range(pn):
        j = plan[c, a]
        s = earliest(T, F, P, w[j], est[j])
        P = occupy(T, F, P, s, s + est[j], w[j])
        vs[a] = s
    nb = 0
    for a in range(pn):
        if vs[a] <= EPS:
            j = plan[c, a]
            if w[j] > free_elig[c]:
                break
            if unheld:  # plan_nodes "any_held": only nodes no preempted job holds
                if _pick_unheld(j, nodes, off, w, node_run, held) < w[j]:
                    break
                first[j] = t
            run_n = _launch(j, c, t, not unheld, nodes, off, w, node_run, held, free_elig, status, seg, last, first,
                            run, run_n, n_run_cls)
    for q in range(wq_n[c]):  # plan backfilling of the class's other waiting jobs
        j = wq[c, q]
        if status[j] != WAITING or inplan[j] or w[j] > free_elig[c]:
            continue
        ok = earliest(T, F, P, w[j], est[j]) <= EPS
        if not ok and fault[FAULT_LEFT] > 0:  # fault injection (tests only): the k-th conflict ignores the plan
            fault[FAULT_LEFT] -= 1
            ok = fault[FAULT_LEFT] == 0
        if ok:
            P = occupy(T, F, P, 0.0, est[j], w[j])
            run_n = _launch(j, c, t, True, nodes, off, w, node_run, held, free_elig, status, seg, last, first, run,
                            run_n, n_run_cls)
            bf[nb] = j
            nb += 1
    if smart or dyn:  # other classes until the slice end, without conflict with the plan
        for fresh in (False, True):
            if not smart and not fresh:
                continue
            for k in range(3):
                if k == c:
                    continue
                qn = wq_n[k] if fresh else pq_n[k]
                for qq in range(qn):
                    j = wq[k, qq] if fresh else pq[k, qq]
                    if fresh:
                        if status[j] != WAITING or inplan[j] or w[j] > free_elig[k]:
                            continue
                        if not smart and submit[j] != t:
                            continue
                    elif status[j] != PREEMPTED or not _nodes_free(j, nodes, off, w, node_run):
                        continue
                    d = min(est[j] - done[j], s_end - t)
                    if earliest(T, F, P, w[j], d) <= EPS:
                        P = occupy(T, F, P, 0.0, d, w[j])
                        run_n = _launch(j, k, t, fresh, nodes, off, w, node_run, held, free_elig, status, seg, last,
                                        first, run, run_n, n_run_cls)
                        bf[nb] = j
                        nb += 1
    P, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F)
    for a in range(pn):
        j = plan[c, a]
        if status[j] != WAITING:
            continue
        s = earliest(T, F, P, w[j], est[j])
        P = occupy(T, F, P, s, s + est[j], w[j])
        if s > vs[a] + 1e-6 and fault[FAULT_SILENT] == 0:
            stats[ST_DELAYS] += 1
    return run_n, nb


@njit
def _bottomline_plan(c, t, gp, gg, m, submit, est, w, wq, wq_n, status, inplan, plan, wait0, free_elig, maxwait,
                     T, F, P, stats):
    """Method-notes topic 4 steps 1-7: LXF order of the waiting c-jobs (at most gg[G_BL_MAX_JOBS]), the best
    ordering by (excessive wait, bounded slowdown) found by DDS/LDS within the budget; the plan of
    this pass only. Returns its length."""
    nw = 0
    for q in range(wq_n[c]):
        if status[wq[c, q]] == WAITING:
            nw += 1
    if nw == 0:
        return 0
    cand = np.empty(nw, np.int64)
    a = 0
    for q in range(wq_n[c]):
        j = wq[c, q]
        if status[j] == WAITING:
            cand[a] = j
            wait0[j] = t - submit[j]
            a += 1
    _bl_search(cand, nw, t, gp[c, GP_INV_SHARE], gg, 0.0, w, est, wait0, T, F, P, stats, False)  # LXF order only
    pn = min(nw, int(gg[G_BL_MAX_JOBS]))
    g = cand[:pn].copy()
    fits = False
    for a in range(pn):
        fits = fits or w[g[a]] <= free_elig[c]
    bound = gg[G_BL_WAIT_BOUND] if gg[G_BL_WAIT_BOUND] >= 0 else maxwait
    _bl_search(g, pn, t, gp[c, GP_INV_SHARE], gg, bound, w, est, wait0, T, F, P, stats, fits)
    for a in range(pn):
        plan[c, a] = g[a]
        inplan[g[a]] = True
    return pn


@njit
def _current_plan(c, t, s_end, first_pass, keep_plan, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n, pq, pq_n,
                  run, run_n, status, inplan, plan, plan_n, wait0, rel_t, rel_w, T, F, stats, maxwait, gjob, arr_t,
                  form_t, free_elig):
    """The plan of class c for this pass; its length (0: the plain pass runs). With a kept plan
    (``keep_plan``: the optimiser, or the bottom line on the thesis' groups): the group ends when its
    group-finish job has terminated (group_end "finish"), arrivals since the group formed join it
    (``join``), and a class without a plan left forms a new group when the form_at reading allows it
    (form_class "both": the other groupable class too). Otherwise the bottom line searches the
    class's waiting queue anew."""
    if not keep_plan:
        P0, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F)
        return _bottomline_plan(c, t, gp, gg, m, submit, est, w, wq, wq_n, status, inplan, plan, wait0, free_elig,
                                maxwait, T, F, P0, stats)
    if gg[G_GROUP_END] > 0 and gjob[c] >= 0 and status[gjob[c]] == DONE:  # group_end "finish"
        gjob[c] = -1
        for a in range(plan_n[c]):
            inplan[plan[c, a]] = False
        plan_n[c] = 0
    pn = _plan_left(c, plan, plan_n, status)
    if pn > 0 and gg[G_JOIN] > 0:  # join: the class's arrivals since the group formed
        for q in range(wq_n[c]):
            j = wq[c, q]
            if pn < gp[c, GP_GROUP_MAX] and status[j] == WAITING and not inplan[j] and submit[j] > form_t[c]:
                plan[c, pn] = j
                inplan[j] = True
                pn += 1
                stats[ST_GROUPED] += 1
    for k in (c, MEDIUM + LONG - c):  # form_class "both": the other groupable class too
        if k != c and (gg[G_FORM_CLASS] == 0 or _plan_left(k, plan, plan_n, status) > 0):
            continue
        if k == c and pn > 0:
            continue
        if (gg[G_FORM_AT] == FORM_AT_SUBMIT and arr_t[k] != t) or (gg[G_FORM_AT] == FORM_AT_SLICE_START
                                                                    and not first_pass):
            continue
        pk = _form_group(k, t, s_end, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n, pq, pq_n, run, run_n, status,
                         inplan, plan, wait0, rel_t, rel_w, T, F, stats, maxwait, gjob)
        plan_n[k] = pk
        form_t[k] = t
        if k == c:
            pn = pk
    plan_n[c] = pn
    return pn


@njit
def _release_plan(c, pn, plan, inplan, status, keep_plan):
    """After a pass with a plan: its started jobs leave the plan; without ``keep_plan`` (the bottom
    line's plan of this pass only) all its jobs do."""
    for a in range(pn):
        if not keep_plan or status[plan[c, a]] != WAITING:
            inplan[plan[c, a]] = False
