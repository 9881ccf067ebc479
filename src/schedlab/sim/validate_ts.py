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
6. with a group optimiser (issue 13): no planned job was delayed. The engine recomputes every
   plan after the pass's backfills (plan, smart and dynamic backfilling; force-shifted orders are
   plans too) from scratch and counts a plan job whose virtual start moved later
   (``search_stats["plan_delays"]``); that count must be 0.
"""

from __future__ import annotations

import numpy as np

from .._config import njit


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
    """Raise ``ScheduleInvalid`` (from :mod:`schedlab.sim.validate`) unless every rule above holds."""
    from .validate import ScheduleInvalid

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
    stats = getattr(ts, "search_stats", None)
    if stats is not None and stats.get("plan_delays", 0) != 0:
        raise ScheduleInvalid(f"a backfill delayed a planned job in {stats['plan_delays']} scheduling passes")
