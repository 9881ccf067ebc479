"""SCOJO-PECT: coarse-grain time sharing with preemption to disk and smart backfilling.

Its own compiled event loop (DESIGN.md "Time sharing"): jobs hold node *sets* (node identities
are tracked because a preempted job resumes on exactly its nodes) and their execution is a list
of intervals. The rigid engine is not used. Sources: the SCOJO-PECT thesis (Kanavallil 2008,
Sections 4, 5.1.4-5.1.5, 6.2 "normal SCOJO-PECT" branch, 6.6, Table 4) and method-notes topic 5,
whose defaults are followed where the thesis is silent. Every reading is a field of
:class:`ScojoConfig` whose docstring quotes the text it reads.

Rules of the engine (the plain-Python reference tests/scojo_naive.py implements the same list):

1. Classes by estimate: short < ``short_bound`` (600 s) <= medium < ``long_bound`` (10,800 s) <= long.
   A job runs for p = min(runtime, estimate) seconds of progress in total (killed at its estimate).
2. Cycle (share controller): at a cycle start the classes with work (waiting, preempted or running
   jobs) get one slice each in ``order`` (L, S, M); slice length max(min_slice, share_c / sum of
   the active classes' shares * cycle). A cycle starts when the previous one is used up, or at an
   arrival when the machine has no work at all (then no slice runs; nothing is shared).
3. Slice boundary at T from class c to the next class n with work (a class whose work vanished is
   skipped): running class-c jobs are suspended (``suspend``), and a running job of a third class
   if its nodes are held by preempted n-jobs; then, while the first waiting n-job does not fit on
   the free nodes not held by preempted n-jobs, running third-class jobs are suspended, latest
   (re)started first. Suspended jobs keep their nodes in their class's preempted queue (appended
   in job order). If anything was suspended or a preempted n-job waits to resume, the switch costs
   ``overhead`` s: every job pauses in [T, T + overhead) and the slice runs
   [T + overhead, T + overhead + length); else it runs [T, T + length). If n == c nothing happens.
4. Scheduling pass (at every event inside a slice, after all finishes and all arrivals of that
   time; none during a switch overhead): (a) resume preempted c-jobs in queue order whose nodes
   are all free; (b) start waiting c-jobs FIFO while the first fits on free nodes not held by
   preempted c-jobs (lowest node numbers first); (c) EASY backfilling within c: the first waiting
   c-job that does not fit gets a reservation (shadow time from running jobs' estimated ends,
   extra nodes); later waiting c-jobs start if they fit now and end by the shadow time or use
   only extra nodes; (d) smart backfilling (``smart_backfill``): preempted jobs of the other
   classes (short, medium, long) whose nodes are all free, then waiting jobs of the other classes
   on free nodes not held by preempted jobs of their own class, each only if it respects c's
   reservation like a step-(c) backfill.
5. Events at one time: finishes, then arrivals, then a slice boundary, then one pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._config import njit
from ..errors import StrategyError
from ..workload.model import Workload
from .groupsearch import (EPS, earliest, evaluate, group_finish, lsf_order, occupy, optimise_group, profile_build,
                          tree_search)
from .model import Machine
from .scojo_opt import GG_LEN, BottomLineConfig, GroupConfig

SHORT, MEDIUM, LONG = 0, 1, 2
CLASS_NAMES = ("short", "medium", "long")
_LETTER = {"S": SHORT, "M": MEDIUM, "L": LONG}
FUTURE, WAITING, RUNNING, PREEMPTED, DONE = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class ScojoConfig:
    """SCOJO-PECT parameters and the readings taken where the sources are ambiguous."""

    shares: tuple[float, float, float] = (0.73, 0.265, 0.005)
    """Shares of the long, medium and short classes (sum 1). Thesis Table 4: "Workload share
    allocated for long jobs 73%", "... for medium jobs 26.5%"; short gets the rest (0.5 %)."""
    cycle: float = 3600.0
    """Cycle length C in seconds: slice_c = share_c * C. Not in the thesis; method-notes topic 5:
    "cycle length C = 3600 s [DEF]" ("limiting the time slices to be typically in the minute (or
    hour) range", thesis Section 4)."""
    min_slice: float = 60.0
    """Minimum slice length in seconds. Method-notes topic 5: "minimum slice length 60 s [DEF,
    avoids slices shorter than the switch overhead]"."""
    overhead: float = 60.0
    """Switch overhead in seconds. Thesis Table 4: "Slices switching overhead 60 sec". Reading
    (method-notes topic 5, step 3a): "whole machine pauses 60 s at every boundary where any job is
    suspended or resumed"; the pause comes before the slice's own length."""
    smart_backfill: bool = True
    """Smart backfilling (thesis Section 4): "tries to backfill preempted and waiting jobs of other
    slice types into the current slice"; preempted queues before waiting queues, each "sorted by
    increasing runtime class" (Figure 6)."""
    order: str = "LSM"
    """Cyclic slice order. Method-notes topic 5: "Slice order seen in the thesis example: medium ->
    long -> short -> medium ..., i.e. the cyclic order L, S, M"."""
    suspend: str = "all"
    """Which running jobs of the outgoing class are suspended at its slice end. ``"all"``
    (method-notes topic 5 step 6: "suspend every running job of class c"); ``"needed"`` treats
    them like smart-backfilled jobs, suspended only when the incoming class needs their nodes
    (thesis Section 6.6.1: a job "continues executing ... in the next long slice as nodes remain
    free")."""
    short_bound: float = 600.0
    """Short jobs: estimate < this. Thesis Table 4: "Classification of short jobs runtime < 10 min"."""
    long_bound: float = 10800.0
    """Long jobs: estimate >= this. Thesis Table 4: "Classification of long jobs runtime >= 3 hours"
    (its medium row "60 sec <= runtime < 3 hours" is read with 600 s, method-notes topic 5)."""
    optimizer: GroupConfig | BottomLineConfig | None = None
    """None: plain SCOJO-PECT. :class:`~schedlab.sim.scojo_opt.GroupConfig`: the thesis' group
    optimiser (Sections 6-7, "scojo-opt"); :class:`~schedlab.sim.scojo_opt.BottomLineConfig`: the
    search-based bottom line of Section 9.5 (method-notes topic 4) in the same engine."""
    share_schedule: tuple[tuple[float, float, float], ...] | None = field(default=None)
    """Optional time-of-day shares: 24 rows (long, medium, short), row h used by cycles starting
    in hour h of the day (trace time 0 = midnight). Thesis Section 4: shares "can be explicitly
    controlled by setting the machine share distributions per job class for different times of
    the day". Off by default (the thesis' experiments use one vector)."""

    def __post_init__(self) -> None:
        _check_shares(self.shares, "shares")
        for name in ("cycle", "min_slice"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise StrategyError(f"SCOJO-PECT {name} must be a positive number of seconds, got {v!r}")
        if not (math.isfinite(self.overhead) and self.overhead >= 0):
            raise StrategyError(f"SCOJO-PECT overhead must be >= 0 seconds, got {self.overhead!r}")
        if sorted(self.order) != ["L", "M", "S"]:
            raise StrategyError(f"SCOJO-PECT order must be a permutation of L, S, M, got {self.order!r}")
        if self.suspend not in ("all", "needed"):
            raise StrategyError(f"SCOJO-PECT suspend must be 'all' or 'needed', got {self.suspend!r}")
        if not 0 < self.short_bound <= self.long_bound:
            raise StrategyError(f"SCOJO-PECT class bounds need 0 < short_bound <= long_bound, got "
                                f"{self.short_bound}, {self.long_bound}")
        if self.share_schedule is not None:
            if len(self.share_schedule) != 24:
                raise StrategyError(f"share_schedule needs 24 rows (one per hour), got {len(self.share_schedule)}")
            for h, row in enumerate(self.share_schedule):
                _check_shares(row, f"share_schedule hour {h}")

    @property
    def label(self) -> str:
        name = "scojo" if self.optimizer is None else self.optimizer.label
        return name if self.smart_backfill else f"{name} (no smart backfill)"

    def share_table(self) -> np.ndarray:
        """(24, 3) shares indexed [hour, class] with classes short, medium, long."""
        rows = self.share_schedule or (self.shares,) * 24
        return np.array([[r[2], r[1], r[0]] for r in rows], dtype=np.float64)

    def classify(self, estimate: np.ndarray) -> np.ndarray:
        """Class of each job (0 short, 1 medium, 2 long) by its estimate."""
        return np.searchsorted(np.array([self.short_bound, self.long_bound]), estimate, side="right").astype(np.int64)


def _check_shares(shares, what: str) -> None:
    try:
        vals = [float(s) for s in shares]
    except (TypeError, ValueError):
        raise StrategyError(f"SCOJO-PECT {what} must be three numbers (long, medium, short), got {shares!r}") from None
    if len(vals) != 3 or any(not math.isfinite(v) or v < 0 for v in vals):
        raise StrategyError(f"SCOJO-PECT {what} must be three numbers >= 0 (long, medium, short), got {shares!r}")
    if abs(sum(vals) - 1.0) > 1e-6:
        raise StrategyError(f"SCOJO-PECT {what} must sum to 1, got {', '.join(map(str, vals))} (sum {sum(vals):g})")


# ------------------------------------------------------------------------------------------ kernel
@njit
def _grow(a, need):
    """``a`` if index ``need`` fits, else a copy of twice the size."""
    if need < a.shape[0]:
        return a
    b = np.empty(max(2 * a.shape[0], need + 16), a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _occupy(j, cls_j, nodes, off, w, node_run, held, free_elig):
    """Start or resume job j on its node set (resume: clears its hold)."""
    for q in range(off[j], off[j] + w[j]):
        x = nodes[q]
        node_run[x] = j
        for k in range(3):
            if held[k, x] == -1:
                free_elig[k] -= 1
        if held[cls_j, x] == j:
            held[cls_j, x] = -1


@njit
def _vacate(j, cls_j, hold, nodes, off, w, node_run, held, free_elig):
    """Finish (hold False) or suspend (hold True: the job keeps its nodes) job j."""
    for q in range(off[j], off[j] + w[j]):
        x = nodes[q]
        node_run[x] = -1
        if hold:
            held[cls_j, x] = j
        for k in range(3):
            if held[k, x] == -1:
                free_elig[k] += 1


@njit
def _pick_nodes(j, k, nodes, off, w, node_run, held):
    """Job j (class k) takes the lowest-numbered free nodes not held by preempted k-jobs."""
    q = off[j]
    end = off[j] + w[j]
    x = 0
    while q < end:
        if node_run[x] == -1 and held[k, x] == -1:
            nodes[q] = x
            q += 1
        x += 1


@njit
def _pick_unheld(j, nodes, off, w, node_run, held):
    """Job j takes the lowest-numbered free nodes that no preempted job holds; how many it found
    (fewer than its width: the node list is incomplete and the job must not start)."""
    q = off[j]
    end = off[j] + w[j]
    for x in range(node_run.shape[0]):
        if q == end:
            break
        if node_run[x] == -1 and held[0, x] == -1 and held[1, x] == -1 and held[2, x] == -1:
            nodes[q] = x
            q += 1
    return q - off[j]


@njit
def _nodes_free(j, nodes, off, w, node_run):
    for q in range(off[j], off[j] + w[j]):
        if node_run[nodes[q]] != -1:
            return False
    return True


@njit
def _launch(j, k, t, fresh, nodes, off, w, node_run, held, free_elig, status, seg, last, first, run, run_n, n_run_cls):
    """Start (``fresh``: on the lowest eligible nodes) or resume job j of class k at t; new run_n."""
    if fresh:
        _pick_nodes(j, k, nodes, off, w, node_run, held)
        first[j] = t
    _occupy(j, k, nodes, off, w, node_run, held, free_elig)
    status[j] = RUNNING
    seg[j] = t
    last[j] = t
    run[run_n] = j
    n_run_cls[k] += 1
    return run_n + 1


@njit
def _backfill(queue, qn, q0, k, fresh, t, shadow, extra, est, done, nodes, off, w, node_run, held, free_elig, status,
              seg, last, first, run, run_n, n_run_cls, inplan):
    """Backfill from ``queue[q0:qn]`` (waiting jobs if ``fresh``, else preempted ones on their own
    nodes) of class k, in queue order, respecting the reservation (shadow, extra); (run_n, extra)."""
    for qq in range(q0, qn):
        j = queue[qq]
        if fresh:
            if status[j] != WAITING or w[j] > free_elig[k] or inplan[j]:
                continue
        elif status[j] != PREEMPTED or not _nodes_free(j, nodes, off, w, node_run):
            continue
        before = t + (est[j] - done[j]) <= shadow
        if before or w[j] <= extra:
            if not before:
                extra -= w[j]
            run_n = _launch(j, k, t, fresh, nodes, off, w, node_run, held, free_elig, status, seg, last, first,
                            run, run_n, n_run_cls)
    return run_n, extra


@njit
def _compact(queue, qn, status, keep):
    """Drop the jobs of ``queue[:qn]`` whose status is not ``keep`` (order kept); the new length."""
    a = 0
    for qq in range(qn):
        if status[queue[qq]] == keep:
            queue[a] = queue[qq]
            a += 1
    return a


@njit
def _record(iv_job, iv_s, iv_e, niv, j, a, b):
    """Append the interval [a, b) of job j (arrays grown as needed)."""
    iv_job = _grow(iv_job, niv)
    iv_s = _grow(iv_s, niv)
    iv_e = _grow(iv_e, niv)
    iv_job[niv] = j
    iv_s[niv] = a
    iv_e[niv] = b
    return iv_job, iv_s, iv_e, niv + 1


@njit
def _new_cycle(t, work, share_table, order, cycle, min_slice, cyc_cls, cyc_len):
    """Slices of a new cycle starting at t for the classes with work; returns their number."""
    hour = int(t // 3600.0) % 24
    total = 0.0
    for k in range(3):
        if work[k]:
            total += share_table[hour, k]
    cn = 0
    for o in range(3):
        k = order[o]
        if work[k]:
            lam = share_table[hour, k] / total * cycle if total > 0.0 else 0.0
            cyc_cls[cn] = k
            cyc_len[cn] = max(min_slice, lam)
            cn += 1
    return cn



# ------------------------------------------------------------------ group plans (issue 13)
#: engine counters returned with the schedule (``TimeShared.search_stats``)
ST_GROUPS_M, ST_GROUPS_L, ST_EXPLORED, ST_PRUNED, ST_SCHEDULES, ST_DELAYS, ST_GROUPED, ST_SEARCHES = 1, 2, 3, 4, 5, 6, 7, 8


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
    if ``search`` and pn >= 2, the best order found by DDS/LDS within the budget (gg[4]) is written
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
        kept = tree_search(g, pn, w, est, wait0, inv_share, gg[8], True, bound, T, F, P, int(gg[6]), int(gg[4]),
                           False, 0.0, te, ta, to, stats[ST_EXPLORED:ST_EXPLORED + 3], rec)
        stats[ST_SEARCHES] += 1
        if kept > 0:
            g[:pn] = to[0, :pn]


@njit
def _form_group(c, t, s_end, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n, pq, pq_n, run, run_n, status,
                inplan, plan, wait0, rel_t, rel_w, T, F, stats, maxwait, gjob):
    """Thesis 6.1 / 7.2 group formation for class c and its plan (6.3, 6.5); the plan's length. The
    readings of GroupConfig (issue 33 item 2): gg[12] criteria on the group (else the queue), gg[13]
    run-time rule, gg[14] "more than" the minimum, gg[15] which jobs (submit, LSF, long-wide first);
    gg[19] the bottom line's search instead of the optimiser's (scope "group"). ``gjob[c]`` gets the
    group-finish job (6.3.3: the kept plan job whose planned end is nearest the group finish; -1
    without the finish rule)."""
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
    take = int(gg[15])
    if take == 1:  # LSF: the search's heuristic order (5.1.2)
        o = cand[:nw].copy()
        lsf_order(o, nw, est, wait0, gp[c, 0], cand)
    elif take == 2:  # long-wide jobs first, then arrival order
        o = cand[:nw].copy()
        a = 0
        for pas in range(2):
            for q in range(nw):
                j = o[q]
                wide = w[j] >= gp[c, 1] * m and est[j] >= gp[c, 2]
                if wide == (pas == 0):
                    cand[a] = j
                    a += 1
    ng = min(nw, int(gp[c, 18]))
    ns = ng if gg[12] > 0 else nw  # the jobs the criteria see: the candidate group or the queue
    sw = 0
    work = 0.0
    rsum = 0.0
    for a in range(ns):
        j = cand[a]
        sw += w[j]
        work += w[j] * est[j]
        rsum += est[j]
    few = ns <= gp[c, 17] if gg[14] > 0 else ns < gp[c, 17]
    rule = int(gg[13])
    if rule == 0:
        short = work / m <= gp[c, 20] * gp[c, 21]
    elif rule == 1:
        short = work / m <= gp[c, 20] * (rsum / ns)
    else:
        gsum = 0.0
        for a in range(ng):
            gsum += est[cand[a]]
        short = gsum / ng >= gp[c, 20] * gp[c, 21]
    if few or sw <= gp[c, 19] * m or short:
        return 0
    g = cand[:ng].copy()
    P, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t, rel_w, T, F)
    out = np.empty(ng, np.int64)
    if gg[19] > 0:  # the bottom line on the same group
        _bl_search(g, ng, t, gp[c, 23], gg, gg[7] if gg[7] >= 0 else maxwait, w, est, wait0, T, F, P, stats, True)
        out[:] = g
    else:
        optimise_group(g, ng, w, est, wait0, gp[c, 23], m, T, F, P, gp[c, :17], stats[ST_EXPLORED:ST_EXPLORED + 3],
                       out)
        stats[ST_SEARCHES] += 1
    cap = P + 2 * ng + 4
    Tw = np.empty(cap, np.float64)
    Fw = np.empty(cap, np.int64)
    vs = np.empty(ng, np.float64)
    evaluate(out, ng, w, est, wait0, gp[c, 23], gp[c, 0], False, 0.0, T, F, P, Tw, Fw, vs)
    keep = ng
    gjob[c] = -1
    if gg[9] > 0:  # group finish (Fig. 8): plan jobs starting at or after it leave the plan
        v = np.zeros(nr + ng, np.float64)
        e = np.empty(nr + ng, np.float64)
        wd = np.empty(nr + ng, np.int64)
        e[:nr] = rel_t[:nr]
        wd[:nr] = rel_w[:nr]
        for a in range(ng):
            v[nr + a] = vs[a]
            e[nr + a] = vs[a] + est[out[a]]
            wd[nr + a] = w[out[a]]
        fin = group_finish(v, e, wd, nr + ng, m, gg[1], gg[2])
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
    stats[c] += 1
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
    returns (run_n, nb). ``fault[0] = k > 0`` (tests only) lets the k-th plan backfill of a
    class-c job that does not fit ignore the plan, once; ``fault[1]`` stops the counter (a wrong
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
        if not ok and fault[0] > 0:  # fault injection (tests only): the k-th conflict ignores the plan
            fault[0] -= 1
            ok = fault[0] == 0
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
        if s > vs[a] + 1e-6 and fault[1] == 0:
            stats[ST_DELAYS] += 1
    return run_n, nb


@njit
def _bottomline_plan(c, t, gp, gg, m, submit, est, w, wq, wq_n, status, inplan, plan, wait0, free_elig, maxwait,
                     T, F, P, stats):
    """Method-notes topic 4 steps 1-7: LXF order of the waiting c-jobs (at most gg[5]), the best
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
    _bl_search(cand, nw, t, gp[c, 23], gg, 0.0, w, est, wait0, T, F, P, stats, False)  # LXF order only
    pn = min(nw, int(gg[5]))
    g = cand[:pn].copy()
    fits = False
    for a in range(pn):
        fits = fits or w[g[a]] <= free_elig[c]
    _bl_search(g, pn, t, gp[c, 23], gg, gg[7] if gg[7] >= 0 else maxwait, w, est, wait0, T, F, P, stats, fits)
    for a in range(pn):
        plan[c, a] = g[a]
        inplan[g[a]] = True
    return pn


@njit
def _run(submit, est, p, w, cls, m, share_table, order, cycle, min_slice, overhead, smart, suspend_all, mode, gp, gg):
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
    # group plans (mode 1: the thesis' optimiser, 2: the bottom line; 0: plain SCOJO-PECT)
    inplan = np.zeros(n, np.bool_)
    plan = np.empty((3, 64), np.int64)
    plan_n = np.zeros(3, np.int64)
    vs = np.empty(64, np.float64)
    wait0 = np.zeros(n, np.float64)
    stats = np.zeros(10, np.int64)
    maxwait = 0.0
    bfs = np.empty(m + 1, np.int64)
    fault = np.zeros(2, np.int64)
    fault[0] = int(gg[GG_LEN]) if gg.shape[0] > GG_LEN else 0
    keep_plan = mode == 1 or gg[19] > 0  # the optimiser, or the bottom line on the thesis' groups
    arr_t = np.full(3, -1.0)  # last arrival time per class
    form_t = np.zeros(3)  # formation time of each class's current group
    gjob = np.full(3, -1, np.int64)  # its group-finish job (6.3.3)
    sl_first = False  # the next pass is the first of its slice
    fault[1] = fault[0] > 0
    # plan records (pass id, time, class; plan jobs with their virtual starts; backfilled jobs) and
    # the launch log (job, time, pass id) of every pass
    npass = 0
    rc_pid = np.empty(64, np.int64)
    rc_t = np.empty(64, np.float64)
    rc_c = np.empty(64, np.int64)
    nrc = 0
    rc_poff = np.zeros(65, np.int64)  # rc_poff[k], rc_boff[k]: entries before record k
    rc_boff = np.zeros(65, np.int64)
    pj_j = np.empty(256, np.int64)
    pj_v = np.empty(256, np.float64)
    npj = 0
    bj = np.empty(64, np.int64)
    nbj = 0
    lg_j = np.empty(64, np.int64)
    lg_t = np.empty(64, np.float64)
    lg_p = np.empty(64, np.int64)
    nlg = 0
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
                # mark the jobs to suspend
                for r in range(run_n):
                    j = run[r]
                    if cls[j] == c and suspend_all:
                        mark[j] = True
                    elif cls[j] != nx:
                        for q in range(off[j], off[j] + w[j]):
                            if held[nx, nodes[q]] >= 0:
                                mark[j] = True
                                break
                if wq_n[nx] > 0:
                    h = wq[nx, 0]
                    avail = free_elig[nx]
                    nc = 0
                    for r in range(run_n):
                        j = run[r]
                        if mark[j]:
                            for q in range(off[j], off[j] + w[j]):
                                if held[nx, nodes[q]] == -1:
                                    avail += 1
                        elif cls[j] != nx:
                            tmp[nc] = j
                            nc += 1
                    if w[h] > avail and nc > 0:
                        cand = np.sort(tmp[:nc])[::-1]  # job descending, then stable by last descending
                        keys = np.empty(nc, np.float64)
                        for a in range(nc):
                            keys[a] = -last[cand[a]]
                        ordc = np.argsort(keys, kind="mergesort")
                        for a in range(nc):
                            j = cand[ordc[a]]
                            mark[j] = True
                            for q in range(off[j], off[j] + w[j]):
                                if held[nx, nodes[q]] == -1:
                                    avail += 1
                            if w[h] <= avail:
                                break
                ns = 0
                for r in range(run_n):
                    if mark[run[r]]:
                        tmp[ns] = run[r]
                        ns += 1
                sus = np.sort(tmp[:ns])
                for a in range(ns):
                    j = sus[a]
                    mark[j] = False
                    if t > seg[j]:
                        iv_job, iv_s, iv_e, niv = _record(iv_job, iv_s, iv_e, niv, j, seg[j], t)
                        done[j] += t - seg[j]
                    _vacate(j, cls[j], True, nodes, off, w, node_run, held, free_elig)
                    status[j] = PREEMPTED
                    pq[cls[j], pq_n[cls[j]]] = j
                    pq_n[cls[j]] += 1
                    npre[j] += 1
                    n_run_cls[cls[j]] -= 1
                    for r in range(run_n):
                        if run[r] == j:
                            run_n -= 1
                            run[r] = run[run_n]
                            break
                pay = overhead > 0.0 and (ns > 0 or pq_n[nx] > 0)
            if pay:
                for r in range(run_n):
                    j = run[r]
                    if t > seg[j]:
                        iv_job, iv_s, iv_e, niv = _record(iv_job, iv_s, iv_e, niv, j, seg[j], t)
                        done[j] += t - seg[j]
                    seg[j] = t + overhead
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
        if mode > 0 and gp[c, 22] > 0:
            pn = 0
            if keep_plan:
                if gg[17] > 0 and gjob[c] >= 0 and status[gjob[c]] == DONE:  # group_end "finish"
                    gjob[c] = -1
                    for a in range(plan_n[c]):
                        inplan[plan[c, a]] = False
                    plan_n[c] = 0
                pn = _plan_left(c, plan, plan_n, status)
                if pn > 0 and gg[16] > 0:  # join: the class's arrivals since the group formed
                    for q in range(wq_n[c]):
                        j = wq[c, q]
                        if pn < gp[c, 18] and status[j] == WAITING and not inplan[j] and submit[j] > form_t[c]:
                            plan[c, pn] = j
                            inplan[j] = True
                            pn += 1
                            stats[ST_GROUPED] += 1
                for k in (c, 3 - c):  # form_class "both": the other groupable class too
                    if k != c and (gg[11] == 0 or _plan_left(k, plan, plan_n, status) > 0):
                        continue
                    if k == c and pn > 0:
                        continue
                    if (gg[10] == 1 and arr_t[k] != t) or (gg[10] == 2 and not first_pass):
                        continue
                    pk = _form_group(k, t, s_end, gp, gg, m, submit, est, done, seg, w, cls, wq, wq_n, pq, pq_n,
                                     run, run_n, status, inplan, plan, wait0, rel_t, rel_w, pT, pF, stats, maxwait,
                                     gjob)
                    plan_n[k] = pk
                    form_t[k] = t
                    if k == c:
                        pn = pk
                plan_n[c] = pn
            else:
                P0, nr = _base_profile(c, t, s_end, run, run_n, pq, pq_n, status, cls, est, done, seg, w, m, rel_t,
                                       rel_w, pT, pF)
                pn = _bottomline_plan(c, t, gp, gg, m, submit, est, w, wq, wq_n, status, inplan, plan, wait0,
                                      free_elig, maxwait, pT, pF, P0, stats)
            if pn > 0:
                normal = False
                run_n, nb = _plan_pass(c, t, s_end, pn, smart, gg[3] > 0, gg[18] > 0, submit, est, done, w, cls, m,
                                       nodes, off, node_run, held, free_elig, status, seg, last, first, run, run_n,
                                       n_run_cls, wq, wq_n, pq, pq_n, inplan, plan, vs, rel_t, rel_w, pT, pF, stats,
                                       bfs, fault)
                # the plan committed to in this pass (rule 6 of validate_ts replays it)
                rc_pid = _grow(rc_pid, nrc)
                rc_t = _grow(rc_t, nrc)
                rc_c = _grow(rc_c, nrc)
                rc_pid[nrc] = npass
                rc_t[nrc] = t
                rc_c[nrc] = c
                nrc += 1
                for a in range(pn):
                    pj_v = _grow(pj_v, npj)
                    pj_j = _grow(pj_j, npj)
                    pj_j[npj] = plan[c, a]
                    pj_v[npj] = vs[a]
                    npj += 1
                for a in range(nb):
                    bj = _grow(bj, nbj)
                    bj[nbj] = bfs[a]
                    nbj += 1
                rc_poff = _grow(rc_poff, nrc)
                rc_boff = _grow(rc_boff, nrc)
                rc_poff[nrc] = npj
                rc_boff[nrc] = nbj
                if not keep_plan:
                    for a in range(pn):
                        inplan[plan[c, a]] = False
                else:
                    for a in range(pn):
                        if status[plan[c, a]] != WAITING:
                            inplan[plan[c, a]] = False
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
        # (c) EASY reservation of the first waiting c-job that does not fit, and backfill
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
        # (d) smart backfilling: preempted, then waiting jobs of the other classes, short first
        if smart and normal:
            for fresh in (False, True):
                for k in range(3):
                    if k == c:
                        continue
                    queue, qn = (wq[k], wq_n[k]) if fresh else (pq[k], pq_n[k])
                    run_n, extra = _backfill(queue, qn, 0, k, fresh, t, shadow, extra, est, done, nodes, off, w,
                                             node_run, held, free_elig, status, seg, last, first, run, run_n, n_run_cls,
                                             inplan)
        if mode > 0:  # launch log of this pass: no job leaves run[] during a pass
            for r in range(run0, run_n):
                lg_j = _grow(lg_j, nlg)
                lg_t = _grow(lg_t, nlg)
                lg_p = _grow(lg_p, nlg)
                lg_j[nlg] = run[r]
                lg_t[nlg] = t
                lg_p[nlg] = npass
                nlg += 1
            npass += 1
        if mode == 2:  # dynB: the largest wait of a started job
            for r in range(run_n):
                j = run[r]
                if first[j] == t:
                    maxwait = max(maxwait, t - submit[j])
        # compact the queues
        for k in range(3):
            wq_n[k] = _compact(wq[k], wq_n[k], status, WAITING)
            pq_n[k] = _compact(pq[k], pq_n[k], status, PREEMPTED)
    plans = (rc_pid[:nrc].copy(), rc_t[:nrc].copy(), rc_c[:nrc].copy(), rc_poff[:nrc + 1].copy(), pj_j[:npj].copy(),
             pj_v[:npj].copy(), rc_boff[:nrc + 1].copy(), bj[:nbj].copy(), lg_j[:nlg].copy(), lg_t[:nlg].copy(),
             lg_p[:nlg].copy())
    return (off, nodes, first, finish, npre, iv_job[:niv].copy(), iv_s[:niv].copy(), iv_e[:niv].copy(),
            sl_cls[:nsl].copy(), sl_b[:nsl].copy(), sl_e[:nsl].copy(), ov[:nov].copy(), stats, plans)


# ------------------------------------------------------------------------------------------ API
@dataclass(frozen=True, eq=False)
class PlanLog:
    """What the group optimiser committed to, for the validator's independent replay (rule 6 of
    :mod:`schedlab.sim.validate_ts`). Job numbers are trace indices of the workload.

    Record k is a scheduling pass (its ``pass_id``, time ``time[k]``, slice class ``cls[k]``) in which
    a plan existed (thesis Fig. 6 "inGroup" branch, or a bottom-line pass): its plan jobs
    ``plan_job[plan_off[k]:plan_off[k+1]]`` in plan order with their virtual starts
    ``plan_start[...]`` (seconds of the class's virtual time after ``time[k]``, thesis 6.3.1) as
    recalculated at the start of the pass, before any backfill, and the jobs backfilled in the pass
    ``bf_job[bf_off[k]:bf_off[k+1]]`` (plan backfilling of other waiting jobs of the class, smart and
    dynamic backfilling of other classes). The launch log names every start or resume of every
    pass: job ``launch_job[i]`` at ``launch_time[i]`` in pass ``launch_pass[i]`` (pass ids count
    all passes, so several passes at one time are ordered)."""

    pass_id: np.ndarray
    time: np.ndarray
    cls: np.ndarray
    plan_off: np.ndarray
    plan_job: np.ndarray
    plan_start: np.ndarray
    bf_off: np.ndarray
    bf_job: np.ndarray
    launch_job: np.ndarray
    launch_time: np.ndarray
    launch_pass: np.ndarray

    @property
    def passes(self) -> int:
        return int(self.pass_id.shape[0])

    def nbytes(self) -> int:
        return sum(int(getattr(self, f).nbytes) for f in self.__dataclass_fields__)


@dataclass(frozen=True, eq=False)
class TimeShared:
    """The interval representation of a time-shared schedule (trace order of the workload).

    Job j holds the node set ``node_ids[node_off[j]:node_off[j+1]]`` whenever it runs (it resumes
    on exactly these nodes); its execution is the intervals ``k`` with ``iv_job[k] == j``
    (``iv_start[k]``, ``iv_end[k]``), sorted by job, then time. ``preemptions[j]`` counts its
    suspensions to disk, ``job_class[j]`` is 0 short, 1 medium, 2 long. ``slices`` are the
    (class, begin, end) slices run; ``overheads`` the start times of switch overheads of
    ``overhead`` seconds (no job makes progress then).
    """

    node_off: np.ndarray
    node_ids: np.ndarray
    iv_job: np.ndarray
    iv_start: np.ndarray
    iv_end: np.ndarray
    preemptions: np.ndarray
    job_class: np.ndarray
    slice_class: np.ndarray
    slice_begin: np.ndarray
    slice_end: np.ndarray
    overheads: np.ndarray
    overhead: float
    config: ScojoConfig
    search_stats: dict | None = None
    """With an optimiser (issue 13): groups formed per class, jobs planned, searches, explored and
    pruned search nodes, schedules generated and ``plan_delays`` (passes in which a backfill made a
    plan job start later in the recalculated plan; always 0 unless the engine is wrong; the
    validator's rule 6 replays :attr:`plans` instead of trusting it)."""
    plans: PlanLog | None = None
    """With an optimiser: the plans committed to and the backfills of each pass (validator rule 6)."""

    def nodes_of(self, j: int) -> np.ndarray:
        return self.node_ids[self.node_off[j]: self.node_off[j + 1]]

    def executed(self) -> np.ndarray:
        """Seconds of progress of every job (sum of its interval lengths)."""
        n = self.node_off.shape[0] - 1
        return np.bincount(self.iv_job, weights=self.iv_end - self.iv_start, minlength=n)


def simulate_scojo(workload: Workload, machine: Machine | int, config: ScojoConfig | None = None, *, kill: bool = True,
                   _inject_plan_fault: int = 0):
    """Simulate SCOJO-PECT on ``workload``; a :class:`~schedlab.sim.model.Schedule` whose
    ``timeshare`` holds the intervals. ``start`` is each job's first start, ``finish`` its completion.
    ``_inject_plan_fault = k > 0`` (tests of the validator only) makes the k-th plan backfill that
    conflicts with the plan ignore it and silences the engine's own ``plan_delays`` counter."""
    from .engine import check_workload
    from .model import Schedule

    if not isinstance(machine, Machine):
        machine = Machine(machine)
    config = config or ScojoConfig()
    check_workload(workload, machine)
    n = len(workload)
    perm = np.argsort(workload.submit, kind="stable")
    submit = np.ascontiguousarray(workload.submit[perm], dtype=np.float64)
    est = np.ascontiguousarray(workload.estimate[perm], dtype=np.float64)
    runtime = workload.runtime[perm]
    p = np.ascontiguousarray(np.minimum(runtime, est) if kill else runtime, dtype=np.float64)
    w = np.ascontiguousarray(workload.procs[perm], dtype=np.int64)
    cls_sorted = config.classify(est)
    order = np.array([_LETTER[ch] for ch in config.order], dtype=np.int64)
    if config.optimizer is None:
        mode, gp, gg = 0, np.zeros((3, 24)), np.zeros(GG_LEN)
    else:
        mode = 1 if isinstance(config.optimizer, GroupConfig) else 2
        gp, gg = config.optimizer.arrays(config.shares)
    gg = np.append(gg, float(int(_inject_plan_fault)))
    out = _run(submit, est, p, w, cls_sorted, int(machine.procs), config.share_table(), order,
               float(config.cycle), float(config.min_slice), float(config.overhead), bool(config.smart_backfill),
               config.suspend == "all", mode, gp, gg)
    off, nodes, first, fin, npre, iv_job, iv_s, iv_e, sl_c, sl_b, sl_e, ov, st, pl = out
    stats = None
    plans = None
    if mode:
        explored, pruned = int(st[ST_EXPLORED]), int(st[ST_PRUNED])
        stats = {"groups": int(st[ST_GROUPS_M] + st[ST_GROUPS_L]), "groups_medium": int(st[ST_GROUPS_M]),
                 "groups_long": int(st[ST_GROUPS_L]), "grouped_jobs": int(st[ST_GROUPED]),
                 "searches": int(st[ST_SEARCHES]), "explored_nodes": explored, "pruned_nodes": pruned,
                 "pruned_share": pruned / explored if explored else 0.0, "schedules": int(st[ST_SCHEDULES]),
                 "plan_delays": int(st[ST_DELAYS])}
        pid, pt, pc, poff, pjob, pv, boff, bjob, ljob, lt, lp = pl
        i32 = np.int32  # job numbers and pass ids fit; halves the record
        plans = PlanLog(pid.astype(i32), pt, pc.astype(np.int8), poff, perm[pjob].astype(i32), pv, boff,
                        perm[bjob].astype(i32), perm[ljob].astype(i32), lt, lp.astype(i32))
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)  # sorted index of each trace job
    start = first[inv]
    finish = fin[inv]
    width = workload.procs.astype(np.int64)
    node_off = np.zeros(n + 1, np.int64)
    np.cumsum(width, out=node_off[1:])
    node_ids = np.concatenate([nodes[off[s]: off[s + 1]] for s in inv]) if n else np.zeros(0, np.int64)
    job = perm[iv_job]  # trace index of each interval
    o = np.lexsort((iv_s, job))
    ts = TimeShared(node_off, node_ids, job[o], iv_s[o], iv_e[o], npre[inv], cls_sorted[inv], sl_c, sl_b, sl_e, ov,
                    float(config.overhead), config, stats, plans)
    return Schedule(workload, machine, None, start, finish, killed=bool(kill), timeshare=ts)
