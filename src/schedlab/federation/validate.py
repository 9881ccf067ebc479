"""The validator of federated schedules (the test oracle; plain numpy, no kernel code imported).

Rules (issue 14, Build 6, and the model of method-notes topic 6):

1. every job is scheduled exactly once: finite start and finish, finish >= start;
2. each task on one node: job j holds exactly t_j distinct, existing nodes;
3. a job's tasks start together: every task's start equals the job's start;
4. no node double-booked: the [start, finish) intervals of the jobs on a node do not overlap;
5. runtimes equal the model's prediction, recomputed here from the schedule alone:
   static model: finish_j - start_j = Tb_j SP_j with SP_j from the nodes and from the link loads
   of the jobs started before j (start sequence) and still running at start_j, j's own load
   included; dynamic model: replaying the schedule, every job receives exactly Tb_j units of
   progress at rate 1/SP_j(t) between its start and finish;
6. packages follow the reading ``options.package_start``: "barrier" -- package p starts when
   package p-1 has finished, and its makespan is max finish - min start of its jobs; "carry" --
   no job of package p starts before its release, the last start of package p-1, and its makespan
   is max finish of its jobs - the release (rule 5 then counts the link load of every running job,
   whatever its package);
7. jobs of a strict-order method (jpr, cbs, the GAs) start in their order (never before an
   earlier job of the order); the start sequence ``seq`` is ordered by start time.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FederatedScheduleInvalid", "validate_federated", "model_slowdown"]


class FederatedScheduleInvalid(AssertionError):
    """A federated schedule that breaks a rule; the message names the job and the rule."""


def _close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def model_slowdown(nodes: np.ndarray, sigma: float, ptbw: float, platform, other_load: np.ndarray) -> float:
    """SP of a job on ``nodes`` with the link loads ``other_load`` of the other co-allocated jobs (topic 6, steps 1-4)."""
    clusters = platform.node_cluster[nodes]
    spcpu = float(np.max(1.0 / platform.node_power[nodes]))
    used = np.unique(clusters)
    spcom = 1.0
    if used.size >= 2:
        tk = np.bincount(clusters, minlength=platform.n_clusters)
        load = other_load + tk * ptbw
        spcom = max(1.0, float(np.max(load[used] / platform.bandwidth[used])))
    return (1.0 - sigma) * spcpu + sigma * spcom


def validate_federated(schedule, *, rtol: float = 1e-9) -> None:
    """Raise :class:`FederatedScheduleInvalid` unless ``schedule`` obeys every rule above."""
    jobs, platform = schedule.jobs, schedule.platform
    n = len(jobs)
    ids = jobs.id
    start, finish = np.asarray(schedule.start, float), np.asarray(schedule.finish, float)
    if start.shape != (n,) or finish.shape != (n,):
        raise FederatedScheduleInvalid(f"{start.shape} starts / {finish.shape} finishes for {n} jobs")
    bad = np.flatnonzero(~np.isfinite(start) | ~np.isfinite(finish) | (finish < start))
    if bad.size:
        j = bad[0]
        raise FederatedScheduleInvalid(f"rule 1: job {ids[j]} not scheduled exactly once ({start[j]}, {finish[j]})")
    ptr, nodes = schedule.alloc_ptr, schedule.tasks_node
    if ptr.shape != (n + 1,) or ptr[0] != 0 or nodes.shape != (ptr[-1],):
        raise FederatedScheduleInvalid("rule 2: allocation arrays do not cover the jobs")
    # rules 2 and 3
    K = platform.n_clusters
    job_clusters = np.zeros((n, K), dtype=np.int64)
    for j in range(n):
        nd = nodes[ptr[j]:ptr[j + 1]]
        if nd.size != jobs.tasks[j]:
            raise FederatedScheduleInvalid(f"rule 2: job {ids[j]} has {nd.size} task placements for {jobs.tasks[j]} tasks")
        if nd.size and (nd.min() < 0 or nd.max() >= platform.n_nodes):
            raise FederatedScheduleInvalid(f"rule 2: job {ids[j]} placed on a node that does not exist")
        if np.unique(nd).size != nd.size:
            raise FederatedScheduleInvalid(f"rule 2: job {ids[j]} has two tasks on one node")
        ts = schedule.tasks_start[ptr[j]:ptr[j + 1]]
        if np.any(ts != start[j]):
            raise FederatedScheduleInvalid(f"rule 3: tasks of job {ids[j]} do not start together")
        job_clusters[j] = np.bincount(platform.node_cluster[nd], minlength=K)
    # rule 4: per node, intervals sorted by start (zero-length jobs need the node free at their start)
    job_of_task = np.repeat(np.arange(n), np.diff(ptr))
    o = np.lexsort((finish[job_of_task], start[job_of_task], nodes))
    nd, js = nodes[o], job_of_task[o]
    same = nd[1:] == nd[:-1]
    clash = np.flatnonzero(same & (start[js[1:]] < finish[js[:-1]]))
    if clash.size:
        a, b = js[clash[0]], js[clash[0] + 1]
        raise FederatedScheduleInvalid(f"rule 4: node {nd[clash[0]]} double-booked by jobs {ids[a]} and {ids[b]}")
    # rules 5-7 per package
    carry = getattr(schedule.options, "package_start", "barrier") == "carry"
    offset = 0.0  # barrier: the end of the previous package; carry: its last start (the release)
    for p in range(int(schedule.package.max()) + 1 if n else 0):
        members = np.flatnonzero(schedule.package == p)
        s0 = start[members].min()
        if carry and s0 < offset and not _close(s0, offset, rtol):
            raise FederatedScheduleInvalid(f"rule 6: package {p} starts at {s0}, before its release at {offset}")
        if not carry and not _close(s0, offset, rtol):
            raise FederatedScheduleInvalid(f"rule 6: package {p} starts at {s0}, the previous one ended at {offset}")
        mk = finish[members].max() - (offset if carry else s0)
        if not _close(mk, schedule.package_makespan[p], rtol):
            raise FederatedScheduleInvalid(f"rule 6: package {p} makespan {schedule.package_makespan[p]} != {mk}")
        offset = start[members].max() if carry else s0 + mk
        if not carry:
            _check_model(schedule, members, job_clusters, rtol)
        if schedule.method in ("jpr", "cbs", "ga-random", "ga-metl") and schedule.orders:
            order = members[np.asarray(schedule.orders[p], dtype=np.int64)]
            back = np.flatnonzero(np.diff(start[order]) < 0)
            if back.size:
                j = order[back[0] + 1]
                raise FederatedScheduleInvalid(f"rule 7: job {ids[j]} starts before the job before it in the order")
        sq = members[np.argsort(schedule.seq[members], kind="stable")]
        if np.any(np.diff(start[sq]) < 0):
            raise FederatedScheduleInvalid(f"rule 7: start sequence of package {p} is not ordered by start time")
    if carry and n:
        _check_model(schedule, np.arange(n), job_clusters, rtol)


def _check_model(schedule, members: np.ndarray, job_clusters: np.ndarray, rtol: float) -> None:
    jobs, platform = schedule.jobs, schedule.platform
    start, finish, ptr, nodes = schedule.start, schedule.finish, schedule.alloc_ptr, schedule.tasks_node
    co = (job_clusters[members] > 0).sum(axis=1) >= 2
    seq = schedule.seq[members]
    load_of = job_clusters[members] * jobs.ptbw[members][:, None] * co[:, None]
    for a, j in enumerate(members):
        running = (seq < seq[a]) & (finish[members] > start[j])
        other = load_of[running].sum(axis=0) if running.any() else np.zeros(platform.n_clusters)
        sp = model_slowdown(nodes[ptr[j]:ptr[j + 1]], jobs.sigma[j], jobs.ptbw[j], platform, other)
        if not _close(sp, schedule.sp[j], rtol):
            raise FederatedScheduleInvalid(f"rule 5: job {jobs.id[j]} has SP {schedule.sp[j]} at start, the model gives {sp}")
        if not schedule.options.dynamic and not _close(finish[j] - start[j], jobs.base[j] * sp, rtol):
            raise FederatedScheduleInvalid(
                f"rule 5: job {jobs.id[j]} runs {finish[j] - start[j]} s, the model predicts {jobs.base[j] * sp} s")
    if schedule.options.dynamic:
        _check_dynamic(schedule, members, job_clusters, co, max(rtol, 1e-7))


def _check_dynamic(schedule, members, job_clusters, co, rtol) -> None:
    """Replay: between consecutive event times the running set and thus every job's rate is fixed."""
    jobs, platform = schedule.jobs, schedule.platform
    s, f = schedule.start[members], schedule.finish[members]
    tk = job_clusters[members]
    ptbw, sigma, base = jobs.ptbw[members], jobs.sigma[members], jobs.base[members]
    spcpu = np.array([np.max(1.0 / platform.node_power[schedule.tasks_node[schedule.alloc_ptr[j]:schedule.alloc_ptr[j + 1]]])
                      for j in members])
    used = tk > 0
    progress = np.zeros(members.size)
    times = np.unique(np.concatenate([s, f]))
    for ta, tb in zip(times[:-1], times[1:]):
        run = (s <= ta) & (f >= tb)
        if not run.any():
            continue
        load = (tk[run & co] * ptbw[run & co][:, None]).sum(axis=0)
        sat = np.maximum(1.0, load / platform.bandwidth)
        spcom = np.where(co[run], np.max(np.where(used[run], sat[None, :], 1.0), axis=1), 1.0)
        sp = (1.0 - sigma[run]) * spcpu[run] + sigma[run] * spcom
        progress[run] += (tb - ta) / sp
    bad = np.flatnonzero(np.abs(progress - base) > rtol * np.maximum(1.0, base))
    if bad.size:
        j = members[bad[0]]
        raise FederatedScheduleInvalid(
            f"rule 5: job {jobs.id[j]} receives {progress[bad[0]]} s of progress in the dynamic model, needs {jobs.base[j]}")
