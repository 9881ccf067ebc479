"""The validator of preemptive (time-shared) schedules, written independently of the engine.

:func:`schedlab.sim.validate.validate_schedule` hands a schedule with ``timeshare`` intervals to
:func:`validate_timeshared` (one entry point for the tests). Rules (issue 12, Build 4):

1. every job runs: at least one interval; intervals of a job in time order and disjoint; its
   ``start`` is its first interval's start (never before submit), ``finish`` its last's end;
2. total run time of every job = min(runtime, estimate) (runtime when jobs are not killed);
3. every job's node set has ``procs`` distinct nodes of the machine; a job runs on that one set in
   every interval, so a resumed job is on exactly its original nodes (the representation has no
   other node set to move to) and no node is double-booked at any instant (event sweep);
4. no progress during a switch overhead: no interval overlaps [b, b + overhead) of an overhead b;
5. a job never first starts on a node held by a preempted job of its own class (at a job's first
   start no same-class job with an interval ended earlier and a later one still to come sits on
   its nodes) -- which contains "a job of class c started in a c-slice only on nodes not held by
   c's preempted jobs";
6. with a group optimiser (issue 13, ``scojo-opt`` and ``scojo-bottomline``): no backfill delayed a
   planned job, checked by replaying the plans, not by trusting the engine. The engine exports
   (:class:`~schedlab.sim.timeshare.PlanLog`) for every scheduling pass in which a plan exists the
   planned jobs in plan order with their virtual starts as recalculated at the start of the pass
   (thesis 6.3.2), the jobs backfilled in the pass, and a log of every start and resume of every
   pass. The validator
   (a) matches the launch log to the intervals: every interval begins with a logged launch, except
       a pause (the job's previous interval ended at the start of a switch overhead and this one
       begins when it ends); each plan pass of class c lies in a slice of class c;
   (b) rebuilds the state at each plan pass from the intervals alone: running jobs and their
       progress, preempted jobs of the slice's class, the jobs started in this pass (several passes
       at one time are ordered by the log's pass ids). A job started in the pass must be a planned
       job, a recorded backfill, or a resumed preempted job of the slice's class (resumed before
       the plan is recalculated); a recorded backfill must start in the pass; a planned job must
       not have started before the pass;
   (c) recalculates the plan before the backfills on the virtual profile of the class (thesis
       6.3.1: running jobs until their estimated end, other classes' jobs at most until the slice
       end, preempted jobs of the class for their remaining estimate; each planned job in plan
       order at its earliest fit) and requires the recorded virtual starts (so a promise is
       derived from the schedule, not taken from the engine); a planned job started in the pass
       must have been due (virtual start 0);
   (d) adds the pass's backfills (and the planned jobs it started) and recalculates the plan of the
       planned jobs still waiting: none may start later than promised (a start no later with a
       fixed estimate is a finish no later).
   (e) follows each plan from pass to pass within one slice of its class: when the next pass's plan
       is the same plan (the same jobs in the same order, less those started since), no job ended
       before its estimate in between and no planned job was due and left waiting, no planned job
       may be promised a later start than before (less the time gone by). This sees a pass with a
       plan that the record left out, if its backfills moved the plan.
   Which events may move a plan later. The promise binds the pass it is made in: thesis 6.3.2,
   "Recalculation is done at each point of time do update the schedule times of the jobs in the
   plan. These jobs are virtually scheduled again with the currently running jobs in the machine.
   ... This is essential as the smart backfilling can cause some jobs to finish early which in
   turn would affect the schedule times", so each later event re-plans from the running jobs,
   and earlier backfills count there as running jobs; what a backfill must respect is the plan of
   its own pass, thesis 6.6.1: "Conflict resolution with the plan has to be checked before
   starting the jobs so that jobs to be scheduled from the plan remains undisturbed", and 5.1.4:
   "A job is conservatively backfilled if the job can be scheduled without delaying any other job
   in the queue". Between passes a plan may legitimately move later through: the class's slice
   ending (virtual time only runs in its slices; the next slice re-plans after suspensions and
   resumes), a job finishing before its estimate (re-placement in plan order can move a later
   planned job either way), a due planned job not fitting on the nodes not held by preempted jobs
   of its class (the profile counts processors, not node identities), and, without killing at the
   estimate, a job running past its estimate. Thesis 6.6.3 ("backfilled into the plan without
   altering other jobs except the ones scheduled after them") is read as conservative (5.1.4):
   plan backfilling delays no planned job. Force shifting (thesis 6.5, 7.3) acts inside the search:
   the force-shifted order is the committed plan and is checked like any other.
   Trusted from the engine: the plan order (what the search chose) and that every pass with a plan
   is recorded (an unrecorded pass is only seen through (e)). A resume exactly at the end of a switch overhead of a job suspended at its start
   looks like a pause; if the log omitted such a backfill, (c) counts the job as running before
   the pass and rejects the record unless the job cannot affect the plan. The engine's own count
   (``search_stats["plan_delays"]``) must also be 0, as a cross-check only.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .invalid import ScheduleInvalid
from .validate_plans import _check_plans


@njit
def _sweep(times, kinds, order, ivs, iv_job, node_off, node_ids, cls, first_iv, last_iv, m):
    """Occupancy sweep over events in ``order`` (time, then kind: 0 ends, 1 zero-length intervals,
    2 resumes, 3 first starts); returns (code, job, node, time) of the first violation, or code 0.
    A zero-length interval needs its nodes free at its time but does not occupy them (its finish
    is an event at the same time, as in the rigid engine)."""
    occ = np.full(m, -1, np.int64)
    held = np.full((3, m), -1, np.int64)
    for a in range(order.shape[0]):
        e = order[a]
        k = ivs[e]
        j = iv_job[k]
        kind = kinds[e]
        for q in range(node_off[j], node_off[j + 1]):
            x = node_ids[q]
            if kind == 0:  # end of an interval
                if occ[x] != j:
                    return 1, j, x, times[e]
                occ[x] = -1
                if k != last_iv[j]:
                    held[cls[j], x] = j
            else:
                if occ[x] != -1:
                    return 2, j, x, times[e]
                if (kind == 3 or (kind == 1 and k == first_iv[j])) and held[cls[j], x] != -1:
                    return 3, j, x, times[e]
                if held[cls[j], x] == j:
                    held[cls[j], x] = -1
                if kind != 1:
                    occ[x] = j
    return 0, -1, -1, 0.0


def validate_timeshared(schedule) -> None:
    """Raise :class:`~schedlab.sim.invalid.ScheduleInvalid` unless every rule above holds."""
    ts = schedule.timeshare
    w = schedule.workload
    n = len(w)
    m = int(schedule.machine.procs)
    ids = w.id
    start = np.asarray(schedule.start, np.float64)
    finish = np.asarray(schedule.finish, np.float64)
    job, s, e = ts.iv_job, ts.iv_start, ts.iv_end
    if start.shape != (n,) or finish.shape != (n,):
        raise ScheduleInvalid(f"schedule has {start.shape} starts and {finish.shape} finishes for {n} jobs")
    # rule 1
    if job.size and (job.min() < 0 or job.max() >= n):
        raise ScheduleInvalid("an interval names a job outside the workload")
    if np.any(e < s) or not np.all(np.isfinite(s)) or not np.all(np.isfinite(e)):
        raise ScheduleInvalid(f"interval of job {ids[job[np.flatnonzero(~(e >= s))[0]]]} ends before it starts")
    key = np.lexsort((s, job))
    if not np.array_equal(key, np.arange(job.size)):
        raise ScheduleInvalid("intervals are not sorted by job, then start time")
    count = np.bincount(job, minlength=n)
    if np.any(count == 0):
        raise ScheduleInvalid(f"job {ids[np.flatnonzero(count == 0)[0]]} never runs")
    first_iv = np.zeros(n, np.int64)
    np.cumsum(count[:-1], out=first_iv[1:])
    last_iv = first_iv + count - 1
    same = job[1:] == job[:-1]
    bad = np.flatnonzero(same & (s[1:] < e[:-1]))
    if bad.size:
        raise ScheduleInvalid(f"job {ids[job[bad[0]]]} has overlapping intervals at {s[bad[0] + 1]}")
    if not np.array_equal(start, s[first_iv]):
        j = np.flatnonzero(start != s[first_iv])[0]
        raise ScheduleInvalid(f"job {ids[j]} starts at {start[j]}, not at its first interval {s[first_iv[j]]}")
    if not np.array_equal(finish, e[last_iv]):
        j = np.flatnonzero(finish != e[last_iv])[0]
        raise ScheduleInvalid(f"job {ids[j]} finishes at {finish[j]}, not at its last interval's end {e[last_iv[j]]}")
    bad = np.flatnonzero(start < w.submit)
    if bad.size:
        raise ScheduleInvalid(f"job {ids[bad[0]]} starts at {start[bad[0]]} before its submit time {w.submit[bad[0]]}")
    # rule 2
    p = np.minimum(w.runtime, w.estimate) if schedule.killed else w.runtime
    ran = np.bincount(job, weights=e - s, minlength=n)
    bad = np.flatnonzero(~np.isclose(ran, p, rtol=1e-12, atol=1e-6))
    if bad.size:
        raise ScheduleInvalid(f"job {ids[bad[0]]} ran {ran[bad[0]]} s in total, not min(runtime, estimate) = {p[bad[0]]}")
    # rule 3: node sets
    width = w.procs.astype(np.int64)
    if not np.array_equal(np.diff(ts.node_off), width):
        raise ScheduleInvalid("node sets do not have procs nodes per job")
    nodes = ts.node_ids
    if nodes.size and (nodes.min() < 0 or nodes.max() >= m):
        raise ScheduleInvalid(f"a node set names a node outside 0..{m - 1}")
    owner = np.repeat(np.arange(n), width)
    pairs = np.unique(owner * m + nodes)
    if pairs.size != nodes.size:
        raise ScheduleInvalid("a job's node set names one node twice")
    # rule 4: switch overheads
    ov = np.sort(np.asarray(ts.overheads, np.float64))
    if ov.size and ts.overhead > 0:
        # the last overhead starting before an interval's end must end by the interval's start
        k = np.searchsorted(ov, e, side="left") - 1
        hit = (k >= 0) & (e > s) & (ov[np.maximum(k, 0)] + ts.overhead > s)
        kz = np.searchsorted(ov, s, side="left") - 1  # zero-length intervals strictly inside one
        hit |= (e == s) & (kz >= 0) & (ov[np.maximum(kz, 0)] + ts.overhead > s)
        if hit.any():
            i = np.flatnonzero(hit)[0]
            raise ScheduleInvalid(f"job {ids[job[i]]} progresses in [{s[i]}, {e[i]}) during a switch overhead")
    # rules 3 and 5: sweep
    nv = job.size
    idx = np.arange(nv)
    first_mask = np.zeros(nv, bool)
    first_mask[first_iv] = True
    pos = e > s
    times = np.concatenate([s, e[pos]])
    kinds = np.concatenate([np.where(~pos, 1, np.where(first_mask, 3, 2)), np.zeros(pos.sum(), np.int64)]).astype(np.int64)
    ivs = np.concatenate([idx, idx[pos]]).astype(np.int64)
    code, j, x, t = _sweep(times, kinds, np.lexsort((kinds, times)), ivs, job.astype(np.int64), ts.node_off.astype(np.int64),
                           nodes.astype(np.int64), ts.job_class.astype(np.int64), first_iv, last_iv, m)
    if code == 1:
        raise ScheduleInvalid(f"job {ids[j]} ends on node {x} at {t} but does not hold it")
    if code == 2:
        raise ScheduleInvalid(f"node {x} double-booked at {t}: job {ids[j]} starts on it while another runs")
    if code == 3:
        raise ScheduleInvalid(f"job {ids[j]} starts at {t} on node {x}, held by a preempted job of its class")
    # rule 6
    if getattr(ts.config, "optimizer", None) is not None or getattr(ts, "plans", None) is not None:
        _check_plans(schedule, first_iv, last_iv)
    stats = getattr(ts, "search_stats", None)  # the engine's own count: a cross-check only
    if stats is not None and stats.get("plan_delays", 0) != 0:
        raise ScheduleInvalid(f"the engine counts {stats['plan_delays']} scheduling passes in which a backfill delayed "
                              "a planned job")
