"""Hand-worked federation cases: the slowdown model, Algorithm 1, JPR, CBS and METL on tiny platforms.

Every expected number is worked out in the comment above it; every schedule goes through the
federated validator.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.federation import FederatedJobs, FederationOptions, Platform, schedule_workload, validate_federated
from schedlab.federation.validate import FederatedScheduleInvalid


def platform(*clusters, bandwidth=None, normalize=False):
    """clusters: (nodes, power) per cluster; bandwidth: one value or a list."""
    K = len(clusters)
    bw = [bandwidth] * K if not isinstance(bandwidth, list) else bandwidth
    return Platform(
        cluster_names=tuple(f"c{k + 1}" for k in range(K)),
        node_cluster=np.concatenate([np.full(n, k) for k, (n, _) in enumerate(clusters)]),
        node_power=np.concatenate([np.full(n, float(p)) for n, p in clusters]),
        bandwidth=np.asarray(bw, dtype=float),
        normalize_power=normalize,
    )


def jobs(*rows):
    """rows: (tasks, base, sigma, ptbw) in submit order."""
    a = np.array(rows, dtype=float)
    n = len(rows)
    return FederatedJobs(np.arange(1, n + 1), np.zeros(n), a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3], "hand")


def run(js, pf, method, order=None, **opts):
    s = schedule_workload(js, pf, method, len(js), options=FederationOptions(**opts),
                          orders=None if order is None else [np.asarray(order)])
    validate_federated(s)
    return s


def clusters_of(s, pf, j):
    nodes = s.tasks_node[s.alloc_ptr[j]:s.alloc_ptr[j + 1]]
    return np.bincount(pf.node_cluster[nodes], minlength=pf.n_clusters).tolist()


def test_one_job_in_one_cluster():
    # one cluster of power 0.8 (not normalized): SPcpu = 1/0.8 = 1.25, no co-allocation so SPcom = 1;
    # SP = (1 - 0.5) 1.25 + 0.5 * 1 = 1.125; runtime = 100 * 1.125 = 112.5
    pf = platform((4, 0.8), bandwidth=10.0)
    s = run(jobs((4, 100, 0.5, 50.0)), pf, "jpr")
    assert s.sp[0] == pytest.approx(1.125)
    assert s.finish[0] - s.start[0] == pytest.approx(112.5)
    assert s.makespan == pytest.approx(112.5)


def test_normalized_power_makes_the_fastest_node_the_reference():
    # same platform with normalize_power: Gamma = 0.8 / 0.8 = 1, so SP = 1 and the runtime is the base time
    pf = platform((4, 0.8), bandwidth=10.0, normalize=True)
    assert run(jobs((4, 100, 0.5, 50.0)), pf, "jpr").makespan == pytest.approx(100.0)


def test_job_split_over_two_clusters_with_a_saturated_link():
    # c1: 2 nodes of power 1, c2: 4 nodes of power 0.5, links of 10. One job, 3 tasks, sigma 0.25,
    # PTBW 10, base 100. JPR takes the 3 most powerful free nodes: 2 in c1 + 1 in c2 (co-allocated).
    # Loads: c1 2*10 = 20 -> 20/10 = 2 (saturated), c2 1*10 = 10 -> 1. SPcom = 2, SPcpu = 1/0.5 = 2.
    # SP = 0.75*2 + 0.25*2 = 2.0 -> runtime 200.
    pf = platform((2, 1.0), (4, 0.5), bandwidth=10.0)
    js = jobs((3, 100, 0.25, 10.0))
    s = run(js, pf, "jpr")
    assert clusters_of(s, pf, 0) == [2, 1]
    assert s.sp[0] == pytest.approx(2.0)
    assert s.makespan == pytest.approx(200.0)
    # a wider link (bandwidth 40) is not saturated: loads 20/40, 10/40 -> SPcom = 1; SP = 0.75*2 + 0.25 = 1.75
    s = run(js, platform((2, 1.0), (4, 0.5), bandwidth=40.0), "jpr")
    assert s.makespan == pytest.approx(175.0)


def test_algorithm1_swaps_fast_nodes_for_equally_effective_slower_ones():
    # Same platform and job. Algorithm 1 first takes 2 c1 + 1 c2 (min power 0.5); 3 free c2 nodes have
    # power >= 0.5, so both c1 tasks move to c2: the job sits in c2 alone, same SPcpu = 2, no link use:
    # SP = 0.75*2 + 0.25*1 = 1.75 -> 175. The fast c1 nodes stay free: a second 2-task job (base 100,
    # sigma 0) starts on them at time 0 with SP 1 -> makespan 175 (JPR: the second job finds only 3
    # slow nodes, runs 100 * 2 = 200 on c2 from 0, makespan max(200, 200) = 200).
    pf = platform((2, 1.0), (4, 0.5), bandwidth=10.0)
    js = jobs((3, 100, 0.25, 10.0), (2, 100, 0.0, 0.0))
    s = run(js, pf, "ga-metl", order=[0, 1])
    assert clusters_of(s, pf, 0) == [0, 3]
    assert clusters_of(s, pf, 1) == [2, 0]
    assert s.sp.tolist() == pytest.approx([1.75, 1.0])
    assert s.makespan == pytest.approx(175.0)
    j = run(js, pf, "jpr")
    assert clusters_of(j, pf, 1) == [0, 2]
    assert j.makespan == pytest.approx(200.0)


def test_contention_from_a_running_job_static_and_dynamic():
    # Three clusters of 2 nodes (power 1), links of 10. Both jobs start at 0 in order.
    # job0: 3 tasks, PTBW 4, sigma 0.5, base 1000: c1 2 + c2 1 (ties: more free, then lower id).
    #   Loads c1 8 (0.8), c2 4 -> SPcom 1, SP0 = 1 (static: fixed) -> finish 1000.
    # job1: 3 tasks, PTBW 8, sigma 0.5, base 100: free c2 1, c3 2 -> c3 2 + c2 1 (more free first).
    #   Loads c2 4 + 8 = 12 (1.2), c3 16 (1.6) -> SPcom 1.6, SP1 = 0.5 + 0.8 = 1.3 -> finish 130.
    # Dynamic: while job1 runs, job0's SPcom = max(c1 0.8 -> 1, c2 1.2) = 1.2, SP0 = 1.1; job1 keeps 1.3,
    #   finishes at 130; job0 did 130/1.1 s of work, then runs at rate 1: finish 130 + 1000 - 130/1.1.
    pf = platform((2, 1.0), (2, 1.0), (2, 1.0), bandwidth=10.0)
    js = jobs((3, 1000, 0.5, 4.0), (3, 100, 0.5, 8.0))
    s = run(js, pf, "jpr")
    assert clusters_of(s, pf, 0) == [2, 1, 0] and clusters_of(s, pf, 1) == [0, 1, 2]
    assert s.finish.tolist() == pytest.approx([1000.0, 130.0])
    d = run(js, pf, "jpr", dynamic=True)
    assert d.finish.tolist() == pytest.approx([130.0 + 1000.0 - 130.0 / 1.1, 130.0])
    assert d.makespan == pytest.approx(130.0 + 1000.0 - 130.0 / 1.1)


def test_jpr_fcfs_waits_for_the_head_job():
    # c1: 2 nodes power 1, c2: 2 nodes power 0.5, no communication. Jobs (tasks, base): (2, 100), (2, 100), (3, 10).
    # JPR: job0 on c1 [0, 100]; job1 on c2 at SP 2 [0, 200]; job2 needs 3 nodes: at 100 only 2 are free,
    # at 200 all 4: c1 2 + c2 1, SP 2 -> [200, 220]. Makespan 220.
    pf = platform((2, 1.0), (2, 0.5), bandwidth=1000.0)
    s = run(jobs((2, 100, 0, 0), (2, 100, 0, 0), (3, 10, 0, 0)), pf, "jpr")
    assert s.start.tolist() == pytest.approx([0.0, 0.0, 200.0])
    assert s.finish.tolist() == pytest.approx([100.0, 200.0, 220.0])
    assert s.makespan == pytest.approx(220.0)


def test_metl_starts_the_job_with_the_smallest_time_loss():
    # c1: 2 nodes power 1, c2: 2 nodes power 0.5. job0: 3 tasks, base 10; job1: 1 task, base 100 (no comm).
    # JPR (submit order): job0 on c1 2 + c2 1, SP 2 -> [0, 20]; job1 on the last c2 node, SP 2 -> [0, 200]: 200.
    # METL at 0: job0 (Alg. 1: c1 1 + c2 2, SP 2) loses 10*2 - 10 = 10; job1 (on c1, SP 1) loses 0 -> job1
    # first on c1 [0, 100]; then job0 on c1 1 + c2 2, SP 2 -> [0, 20]. Makespan 100.
    pf = platform((2, 1.0), (2, 0.5), bandwidth=1000.0)
    js = jobs((3, 10, 0, 0), (1, 100, 0, 0))
    assert run(js, pf, "jpr").makespan == pytest.approx(200.0)
    m = run(js, pf, "metl")
    assert m.seq.tolist() == [1, 0]
    assert m.finish.tolist() == pytest.approx([20.0, 100.0])
    assert m.makespan == pytest.approx(100.0)
    assert m.orders[0].tolist() == [1, 0]


def test_cbs_keeps_a_job_in_one_cluster_when_one_holds_it():
    # c1: 2 nodes power 1, c2: 4 nodes power 0.5, links 10; job: 3 tasks, sigma 0.5, PTBW 10, base 100.
    # JPR: c1 2 + c2 1, loads 20/10 = 2 and 10/10 = 1 -> SP = 0.5*2 + 0.5*2 = 2 -> 200.
    # CBS: c2 holds all 3 tasks -> no link use, SP = 0.5*2 + 0.5*1 = 1.5 -> 150.
    pf = platform((2, 1.0), (4, 0.5), bandwidth=10.0)
    js = jobs((3, 100, 0.5, 10.0))
    assert run(js, pf, "jpr").makespan == pytest.approx(200.0)
    c = run(js, pf, "cbs")
    assert clusters_of(c, pf, 0) == [0, 3]
    assert c.makespan == pytest.approx(150.0)


def test_cbs_big_chunk_and_small_chunks():
    # c1: 4 nodes, c2: 2, c3: 2 (power 1), links 10. job: 6 tasks, sigma 0.5, PTBW 5, base 100.
    # No cluster holds 6; ceil(0.75*6) = 5 > 4 = largest cluster, so (cap reading) the chunk must be 4:
    # c1 4 + small chunk c2 2 (c2, c3 tie at 2 free -> lower id). Loads c1 20 -> 2, c2 10 -> 1.
    # SP = 0.5*1 + 0.5*2 = 1.5 -> 150.
    pf = platform((4, 1.0), (2, 1.0), (2, 1.0), bandwidth=10.0)
    js = jobs((6, 100, 0.5, 5.0))
    c = run(js, pf, "cbs")
    assert clusters_of(c, pf, 0) == [4, 2, 0]
    assert c.makespan == pytest.approx(150.0)
    # taken literally (no cap) the job can never get its 75 % chunk
    with pytest.raises(ValueError):
        run(js, pf, "cbs", cbs_cap_chunk=False)


def test_cbs_waits_for_a_75_percent_chunk():
    # c1: 6 nodes, c2: 4 nodes (power 1), links 100, no comm. job0 (2 tasks, base 100) and job1 (2, 50) each fit
    # in either cluster with equal min-power -> lower id: both on c1 from 0. job2 (6 tasks, base 10): no
    # cluster holds 6 and none has ceil(0.75*6) = 5 free (c1 2, c2 4), so it waits; at 50 c1 has 4: still
    # not 5; at 100 c1 holds the whole job: [100, 110]. JPR instead starts job2 at 0 on the 6 free nodes.
    pf = platform((6, 1.0), (4, 1.0), bandwidth=100.0)
    js = jobs((2, 100, 0, 0), (2, 50, 0, 0), (6, 10, 0, 0))
    s = run(js, pf, "cbs", cbs_cap_chunk=False)
    assert s.start.tolist() == pytest.approx([0.0, 0.0, 100.0])
    assert clusters_of(s, pf, 2) == [6, 0]
    assert s.makespan == pytest.approx(110.0)
    assert run(js, pf, "jpr").start.tolist() == pytest.approx([0.0, 0.0, 0.0])


def test_packages_run_back_to_back():
    # two packages of one job each, reading "barrier": the second starts when the first has finished
    pf = platform((2, 1.0), bandwidth=10.0)
    s = schedule_workload(jobs((2, 100, 0, 0), (1, 30, 0, 0)), pf, "jpr", 1,
                          options=FederationOptions(package_start="barrier"))
    validate_federated(s)
    assert s.start.tolist() == [0.0, 100.0]
    assert s.package_makespan.tolist() == [100.0, 30.0] and s.makespan == 130.0


def test_validator_catches_broken_schedules():
    pf = platform((2, 1.0), (4, 0.5), bandwidth=10.0)
    s = run(jobs((3, 100, 0.25, 10.0), (2, 100, 0.0, 0.0)), pf, "ga-metl", order=[0, 1])
    import dataclasses

    def broken(**kw):
        return dataclasses.replace(s, **kw)

    f = s.finish.copy()
    f[0] += 1.0
    with pytest.raises(FederatedScheduleInvalid, match="rule 5"):
        validate_federated(broken(finish=f, package_makespan=np.array([f.max()])))
    nodes = s.tasks_node.copy()
    nodes[3] = nodes[0]  # job1's first task on job0's node
    with pytest.raises(FederatedScheduleInvalid, match="rule [24]"):
        validate_federated(broken(tasks_node=nodes))
    ts = s.tasks_start.copy()
    ts[1] += 5
    with pytest.raises(FederatedScheduleInvalid, match="rule 3"):
        validate_federated(broken(tasks_start=ts))
    with pytest.raises(FederatedScheduleInvalid, match="rule 6"):
        validate_federated(broken(package_makespan=np.array([1.0])))
    # job1 declared first in the order but starting after job0 (times otherwise consistent with the model)
    start, finish = s.start + np.array([0.0, 10.0]), s.finish + np.array([0.0, 10.0])
    late = broken(orders=(np.array([1, 0]),), start=start, finish=finish, tasks_start=np.repeat(start, s.jobs.tasks),
                  package_makespan=np.array([finish.max()]))
    with pytest.raises(FederatedScheduleInvalid, match="rule 7"):
        validate_federated(late)
    validate_federated(broken(start=start, finish=finish, tasks_start=np.repeat(start, s.jobs.tasks),
                              package_makespan=np.array([finish.max()])))  # in order [0, 1] it is legal
