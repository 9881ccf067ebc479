"""The resource validator (schedlab.sim.validate.validate_node_allocation) and the naive reference of
jobs on nodes (tests/resource_naive.py): hand-worked cases, each worked out in its docstring, and
hypothesis cases of random allocations against a brute-force check at every instant."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from support.resource_naive import naive_node_fcfs
from schedlab.sim.model import Node, NodeAllocation, NodeMachine
from schedlab.sim.validate import ScheduleInvalid, validate_node_allocation
from schedlab.workload import Workload
from schedlab.workload.resources import Resources


def _jobs(rows, **resources):
    """Jobs (submit, procs, runtime) with resource columns given as lists."""
    submit, procs, runtime = (list(c) for c in zip(*rows))
    gpus = resources.pop("req_gpus", None)
    w = Workload.from_columns({"submit": submit, "procs": procs, "runtime": runtime, "estimate": runtime})
    res = Resources.build(len(w), **resources, req_gres={"gpu": gpus} if gpus is not None else None)
    return w.replace(resources=res)


def test_a_memory_bound_node():
    """Node n0: 8 CPUs, 16000 MB. Job 1 (t=0, 2 CPUs, 12000 MB, 100 s); job 2 (t=10, 2 CPUs, 8000 MB, 50 s).
    At t=10, 6 CPUs are free but 16000 - 12000 = 4000 MB < 8000 MB: job 2 waits for job 1's end and
    runs from 100 to 150. Started at 10 (the CPU-only view), node n0 holds 12000 + 8000 = 20000 MB of 16000."""
    m = NodeMachine((Node("n0", 8, 16000.0),))
    w = _jobs([(0, 2, 100), (10, 2, 50)], req_mem=[12000.0, 8000.0])
    start, finish, alloc = naive_node_fcfs(w, m)
    assert list(start) == [0, 100] and list(finish) == [100, 150]
    validate_node_allocation(m, alloc, start, finish, workload=w)
    with pytest.raises(ScheduleInvalid, match=r"^job 2 starts at 10 on node n0 with 20000 MB of its 16000 MB memory in use$"):
        validate_node_allocation(m, alloc, [0, 10], [100, 60], workload=w)


def test_a_gpu_job_held_while_cpus_are_free():
    """Node g0: 16 CPUs, 4 GPUs. Job 1 (t=0, 4 CPUs, 4 GPUs, 100 s) takes every GPU; job 2 (t=5, 1 CPU,
    1 GPU, 10 s) finds 12 CPUs free and no GPU: it starts at 100, when job 1 ends (release first)."""
    m = NodeMachine((Node("g0", 16, 0.0, 4),))
    w = _jobs([(0, 4, 100), (5, 1, 10)], req_gpus=[4, 1])
    start, finish, alloc = naive_node_fcfs(w, m)
    assert list(start) == [0, 100]
    validate_node_allocation(m, alloc, start, finish, workload=w)


def test_a_gpu_over_allocation_is_caught():
    """Node g0 has 4 GPUs: job 1 holds 3 from 0 to 100, job 2 takes 2 at 50: 5 of 4 in use at 50."""
    m = NodeMachine((Node("g0", 16, 64000.0, 4),))
    alloc = NodeAllocation.from_rows([(0, 0, 4, 1000, 3), (1, 0, 4, 1000, 2)])
    with pytest.raises(ScheduleInvalid, match=r"^job 1 starts at 50 on node g0 with 5 of its 4 GPUs in use$"):
        validate_node_allocation(m, alloc, [0, 50], [100, 80])
    validate_node_allocation(m, alloc, [0, 100], [100, 130])  # after job 0 released them: fine


def test_zero_length_job_needs_its_resources_free_and_release_comes_first():
    """Node n0: 4 CPUs. Job 0 holds 4 from 0 to 10; a zero-length job 1 at 10 fits (job 0 released at 10),
    at 5 it does not: 5 CPUs of 4."""
    m = NodeMachine.uniform(1, 4)
    alloc = NodeAllocation.from_rows([(0, 0, 4, 0, 0), (1, 0, 1, 0, 0)])
    validate_node_allocation(m, alloc, [0, 10], [10, 10])
    with pytest.raises(ScheduleInvalid, match=r"job 1 starts at 5 on node n0 with 5 of its 4 CPUs in use"):
        validate_node_allocation(m, alloc, [0, 5], [10, 5])


def test_a_zero_length_job_and_a_job_starting_at_its_instant_share_the_node_as_the_cpu_validator_reads_it():
    """Node n0: 4 CPUs. Zero-length job 0 at 10 on 4 CPUs, job 1 on 4 CPUs from 10 to 20: the engines (and
    the naive references) start job 0, end it, then start job 1 at 10, and the processor validator
    accepts that; the node validator did not (8 of 4 CPUs), failing the naive reference's random schedules.
    A job running across 10 still counts: job 1 from 5 to 15 beside zero-length job 0 at 10 is 8 of 4.
    (Job numbers are row indexes: no workload is given to the node validator.)"""
    from schedlab import simulate
    from schedlab.sim.model import Machine
    from schedlab.sim.validate import validate_schedule
    from schedlab.strategy import Strategy

    m = NodeMachine.uniform(1, 4)
    alloc = NodeAllocation.from_rows([(0, 0, 4, 0, 0), (1, 0, 4, 0, 0)])
    validate_node_allocation(m, alloc, [10, 10], [10, 20])
    w = _jobs([(10, 4, 0), (10, 4, 10)])
    w = w.replace(estimate=np.array([10.0, 10.0]))  # an estimate is positive; job 1 ran 0 s of it
    s = simulate(w, Machine(4), Strategy("fcfs"))
    np.testing.assert_array_equal(s.start, [10, 10])
    validate_schedule(s)
    validate_node_allocation(m, alloc, s.start, s.start + w.runtime)
    with pytest.raises(ScheduleInvalid, match=r"^job 0 starts at 10 on node n0 with 8 of its 4 CPUs in use$"):
        validate_node_allocation(m, alloc, [10, 5], [10, 15])


def test_totals_partitions_and_exclusive():
    """Two nodes of 4 CPUs, 8000 MB, 2 GPUs; n0 in 'cpu', n1 in 'gpu'."""
    m = NodeMachine((Node("n0", 4, 8000.0, 2, ("cpu",)), Node("n1", 4, 8000.0, 2, ("gpu",))))
    w = _jobs([(0, 4, 10), (0, 2, 10)], req_mem=[6000.0, -1.0], req_gpus=[0, 1], exclusive=[1, 0])
    # job 1 (4 CPUs, 6000 MB) gets 3000 MB on each of two nodes but only 2 + 1 CPUs: 3 of its 4
    short = NodeAllocation.from_rows([(0, 0, 2, 3000, 0), (0, 1, 1, 3000, 0), (1, 1, 2, 0, 1)])
    with pytest.raises(ScheduleInvalid, match=r"^job 1 gets 3 CPUs on its nodes, not its 4 processors$"):
        validate_node_allocation(m, short, [0, 20], [10, 30], workload=w)
    less_mem = NodeAllocation.from_rows([(0, 0, 4, 5000, 0), (1, 1, 2, 0, 1)])
    with pytest.raises(ScheduleInvalid, match=r"^job 1 gets 5000 MB memory on its nodes, less than the 6000 MB it requested$"):
        validate_node_allocation(m, less_mem, [0, 20], [10, 30], workload=w)
    no_gpu = NodeAllocation.from_rows([(0, 0, 4, 6000, 0), (1, 1, 2, 0, 0)])
    with pytest.raises(ScheduleInvalid, match=r"^job 2 gets 0 GPUs on its nodes, less than the 1 it requested$"):
        validate_node_allocation(m, no_gpu, [0, 20], [10, 30], workload=w)
    good = NodeAllocation.from_rows([(0, 0, 4, 6000, 0), (1, 1, 2, 0, 1)])
    validate_node_allocation(m, good, [0, 0], [10, 10], workload=w, partitions=["cpu", "gpu"])
    with pytest.raises(ScheduleInvalid, match=r"^job 2 of partition cpu runs on node n1, which is in gpu$"):
        validate_node_allocation(m, good, [0, 0], [10, 10], workload=w, partitions=["cpu", "cpu"])
    beside = NodeAllocation.from_rows([(0, 0, 4, 6000, 0), (1, 0, 2, 0, 1)])  # 6 CPUs: the capacity check first
    with pytest.raises(ScheduleInvalid, match="6 of its 4 CPUs"):
        validate_node_allocation(m, beside, [0, 5], [10, 15], workload=w)
    m8 = NodeMachine((Node("n0", 8, 8000.0, 2, ("cpu",)), Node("n1", 4, 8000.0, 2, ("gpu",))))
    with pytest.raises(ScheduleInvalid, match=r"^job 2 runs on node n0 at 5 beside exclusive job 1$"):
        validate_node_allocation(m8, beside, [0, 5], [10, 15], workload=w)
    validate_node_allocation(m8, beside, [0, 10], [10, 20], workload=w)  # after it: fine


def test_bad_rows_are_named():
    m = NodeMachine.uniform(2, 4)
    with pytest.raises(ScheduleInvalid, match="node index 2, not one of the machine's 2"):
        validate_node_allocation(m, NodeAllocation.from_rows([(0, 2, 1, 0, 0)]), [0], [1])
    with pytest.raises(ScheduleInvalid, match=r"job 0 gets 0 CPUs on node n1 \(at least 1\)"):
        validate_node_allocation(m, NodeAllocation.from_rows([(0, 1, 0, 0, 0)]), [0], [1])
    with pytest.raises(ScheduleInvalid, match="names job index 3, not one of the 1 jobs"):
        validate_node_allocation(m, NodeAllocation.from_rows([(3, 1, 1, 0, 0)]), [0], [1])


def _brute_force_over(machine, rows, start, finish) -> bool:
    """Whether some node is over a resource at some instant: the sums at every start instant over the
    jobs running then (start <= t < finish), and for each zero-length job starting at t, its rows beside
    the jobs running across t (start < t < finish), as the processor validator reads zero-length jobs."""
    def over(on, nd):
        return sum(r[2] for r in on) > nd.cpus or sum(r[3] for r in on) > nd.mem or sum(r[4] for r in on) > nd.gpus

    for t in set(start):
        for x, nd in enumerate(machine.nodes):
            here = [r for r in rows if r[1] == x]
            if over([r for r in here if start[r[0]] <= t < finish[r[0]]], nd):
                return True
            across = [r for r in here if start[r[0]] < t < finish[r[0]]]
            for z in {r[0] for r in here if start[r[0]] == t == finish[r[0]]}:
                if over(across + [r for r in here if r[0] == z], nd):
                    return True
    return False


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_validator_agrees_with_brute_force(data):
    nodes = data.draw(st.integers(1, 3))
    m = NodeMachine.uniform(nodes, data.draw(st.integers(1, 4)), mem=float(data.draw(st.integers(0, 3)) * 1000),
                            gpus=data.draw(st.integers(0, 2)))
    n = data.draw(st.integers(1, 5))
    start = [float(data.draw(st.integers(0, 6))) for _ in range(n)]
    finish = [s + data.draw(st.integers(0, 4)) for s in start]
    rows = [(j, data.draw(st.integers(0, nodes - 1)), data.draw(st.integers(1, 3)), float(data.draw(st.integers(0, 2)) * 1000),
             data.draw(st.integers(0, 2))) for j in range(n) for _ in range(data.draw(st.integers(1, 2)))]
    over = _brute_force_over(m, rows, start, finish)
    try:
        validate_node_allocation(m, NodeAllocation.from_rows(rows), start, finish)
        assert not over
    except ScheduleInvalid:
        assert over


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_naive_reference_schedules_validate(data):
    """The naive reference's schedules of random jobs on two node types pass the validator."""
    m = NodeMachine.uniform(2, 8, mem=16000.0, partitions=("cpu",)) + NodeMachine.uniform(1, 8, mem=32000.0, gpus=4, partitions=("gpu",), prefix="g")
    n = data.draw(st.integers(1, 8))
    gpu = [data.draw(st.booleans()) for _ in range(n)]
    rows = [(data.draw(st.integers(0, 50)), data.draw(st.sampled_from([1, 2, 4, 8])), data.draw(st.integers(0, 30))) for _ in range(n)]
    w = _jobs(rows, req_mem=[float(data.draw(st.integers(0, 16)) * 1000) for _ in range(n)],
              req_gpus=[data.draw(st.integers(0, 4)) if g else 0 for g in gpu])
    parts = ["gpu" if g else "cpu" for g in gpu]
    start, finish, alloc = naive_node_fcfs(w, m, parts)
    validate_node_allocation(m, alloc, start, finish, workload=w, partitions=parts)
    assert np.all(start >= w.submit)
