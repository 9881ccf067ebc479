"""--policy slurm on nodes with CPUs, memory and GPUs (issue 47 item 2; docs/slurm-policy-spec.md
section 10): hand-worked schedules, each computed in its docstring, the slurm.conf lines read and
refused, and the compiled kernels against the naive reference (tests/support/resource_naive.py) on
random small resource workloads. Every schedule goes through the CPU validator and the node
validator (:func:`schedlab.sim.validate.validate_node_allocation`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.resource_naive import checked_nodes as checked, naive_node_fcfs
from test_slurm_policy import jobs as skip_jobs
from test_slurm_skip import NODES, cases as skip_cases

from schedlab.errors import WorkloadError
from schedlab.sim.model import NodeMachine
from schedlab.sim.validate import validate_node_allocation, validate_schedule
from schedlab.slurm.conf import SlurmConfError, finish_partitions, parse_conf
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm
from schedlab.workload.model import Workload
from schedlab.workload.resources import Resources

NODES_ONE_CPU = NODES[1]  # six one-CPU nodes a..f, partition short on e, f
assert NODES_ONE_CPU[1].startswith("NodeName=a,b,c,d,e,f CPUs=1\n")

#: the main scheduler runs at each submission and end (no tick, no batch_sched_delay), kills are
#: exact: the hand-worked times need no controller phase
NOW = dict(sched_on_submit="immediate", sched_on_end="immediate", kill_check="exact")


def jobs(rows, procs, **resources):
    """rows: (submit, cpus, runtime s, limit min); resource columns as lists (req_gpus: GPUs)."""
    r = np.array(rows, dtype=float)
    n = len(rows)
    gpus = resources.pop("req_gpus", None)
    gres = {"gpu": gpus} if gpus is not None else {}
    for name in [k for k in resources if k.startswith("gpu_")]:
        gres["gpu:" + name[4:]] = resources.pop(name)
    w = Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=r[:, 1].astype(int),
             runtime=r[:, 2], estimate=r[:, 3] * 60, queue=np.full(n, -1), unix_group=np.ones(n, int),
             user=np.arange(n), status=np.ones(n, int)), machine_procs=procs, name="case")
    return w.replace(resources=Resources.build(n, **resources, req_gres=gres or None))


def run(w, conf, **options):
    """simulate_slurm, checked by the CPU validator; the schedule (:func:`checked` adds the node validator)."""
    s = simulate_slurm(w, w.machine_procs, SlurmPolicy(parse_conf(conf, "t.conf"), SlurmOptions(**{**NOW, **options})))
    validate_schedule(s)
    return s


def nodes_of(s, job):
    """Node names of job index ``job``."""
    a = s.slurm.allocation
    return [s.slurm.nodes.nodes[v].name for v in a.node[a.job == job]]


# ------------------------------------------------------------------ hand-worked schedules
def test_a_gpu_job_is_held_while_cpus_are_free():
    """Node g1: 8 CPUs, 2 GPUs; sched/builtin (the main scheduler alone). Job 1 (t=0, 2 CPUs,
    2 GPUs, 100 s) starts at 0. Job 2 (t=0, 2 CPUs, 1 GPU, 50 s): 6 CPUs are free but 0 GPUs, so it
    waits for job 1's end and runs 100..150. (CPU-only, as before: it started at 0.)"""
    conf = "SchedulerType=sched/builtin\nNodeName=g1 CPUs=8 Gres=gpu:2\n"
    w = jobs([(0, 2, 100, 10), (0, 2, 50, 10)], 8, req_gpus=[2, 1])
    s = run(w, conf)
    assert list(s.start) == [0, 100] and list(s.finish) == [100, 150]
    assert list(checked(s, w).slurm.allocation.gpus) == [2, 1]


def test_a_memory_bound_node_and_def_mem_per_cpu():
    """Node n1: 8 CPUs, 16000 MB, CR_CPU_Memory, DefMemPerCPU=5000; sched/builtin. Job 1 (t=0,
    2 CPUs, 12000 MB, 100 s) starts at 0. Job 2 (t=0, 2 CPUs, 8000 MB, 50 s): 6 CPUs free but
    16000 - 12000 = 4000 MB < 8000: it waits for job 1 and starts at 100. Job 3 (t=0, 2 CPUs, no
    memory request: DefMemPerCPU x 2 = 10000 MB) is behind it (FIFO stop rule) and at 100 finds
    16000 - 8000 = 8000 MB < 10000: it starts when job 2 ends, at 150, and ends at 160."""
    conf = "SchedulerType=sched/builtin\nSelectTypeParameters=CR_CPU_Memory\nDefMemPerCPU=5000\n" \
           "NodeName=n1 CPUs=8 RealMemory=16000\n"
    w = jobs([(0, 2, 100, 10), (0, 2, 50, 10), (0, 2, 10, 10)], 8, req_mem=[12000.0, 8000.0, -1.0])
    s = run(w, conf)
    assert list(s.start) == [0, 100, 150] and list(s.finish) == [100, 150, 160]
    assert list(checked(s, w).slurm.allocation.mem) == [12000.0, 8000.0, 10000.0]


def test_an_exclusive_partition_gives_whole_nodes():
    """Nodes n1, n2 of 4 CPUs in a partition OverSubscribe=EXCLUSIVE; sched/builtin. Jobs 1 and 2
    (t=0, 1 CPU, 100 s and 200 s) take n1 and n2 whole; job 3 (t=0, 1 CPU, 10 s) waits though 6
    CPUs are free, until job 1 ends at 100, and runs on n1 100..110. (As before: all three at 0.)"""
    conf = "SchedulerType=sched/builtin\nNodeName=n[1-2] CPUs=4\nPartitionName=whole Nodes=n[1-2] Default=YES " \
           "OverSubscribe=EXCLUSIVE\n"
    w = jobs([(0, 1, 100, 10), (0, 1, 200, 10), (0, 1, 10, 10)], 8)
    s = run(w, conf)
    assert list(s.start) == [0, 0, 100]
    assert [nodes_of(checked(s, w), j) for j in range(3)] == [["n1"], ["n2"], ["n1"]]
    assert s.slurm.exclusive.all()


def test_backfill_respects_a_gpu_reservation():
    """Node g1: 8 CPUs, 2 GPUs; sched/backfill, bf_resolution=60; all four jobs submitted at 0 in
    this order, equal priority. The main scheduler at 0 starts job 1 (2 CPUs, 2 GPUs, 100 s, limit
    2 min); job 2 (2 CPUs, 2 GPUs, limit 10 min) does not fit, and the partition stops. The backfill
    pass at 0: job 2 cannot start; job 1 is expected to end at 120, so job 2 reserves node g1
    (whole: backfill.c's node_space holds node bitmaps) over [120, 720]. Job 3 (2 CPUs, no GPU,
    100 s, limit 5 min) fits in the free CPUs but its window [0, 300] meets the reservation on the
    only node: it cannot start (its own reservation comes after job 2's, at 720). Job 4 (2 CPUs,
    30 s, limit 1 min): [0, 60] ends before 120, it starts at 0. At 100 job 1 ends; the main
    scheduler (which reads no backfill reservation) starts job 2 and job 3 at 100.
    (CPU-only, as before: all four at 0, 8 CPUs.)"""
    conf = "SchedulerParameters=bf_resolution=60\nNodeName=g1 CPUs=8 Gres=gpu:2\n"
    w = jobs([(0, 2, 100, 2), (0, 2, 50, 10), (0, 2, 100, 5), (0, 2, 30, 1)], 8, req_gpus=[2, 2, 0, 0])
    s = run(w, conf)
    assert list(s.start) == [0, 100, 100, 0]
    assert list(s.slurm.started_by) == [1, 1, 1, 2]
    checked(s, w)


def test_best_fit_picks_the_fullest_node_and_typed_gpus_their_nodes():
    """Nodes a1 (8 CPUs), a2 (8 CPUs), both 2 GPUs of type a100, and v1 (8 CPUs, 2 GPUs of type
    v100); sched/builtin. Job 1 (t=0, 6 CPUs, 100 s) takes a1: the usable nodes a1, a2, v1 are one
    run of consecutive nodes, and a one-node job gets its node with the fewest free CPUs, the first
    of the equals (job_test.c _eval_nodes). Job 2 (t=0, 2 CPUs): a1 has 2 free, the fewest: a1.
    Job 3 (t=0, 1 CPU, 1 GPU of type v100) can only go to v1. With node_choice=lowest-first job 2
    would go to a1 as well (the lowest-numbered usable), so job 4 (t=0, 1 CPU) tells them apart:
    best-fit gives it v1 (7 free, fewer than a2's 8), lowest-first a2."""
    conf = "SchedulerType=sched/builtin\nNodeName=a[1-2] CPUs=8 Gres=gpu:a100:2\nNodeName=v1 CPUs=8 Gres=gpu:v100:2\n"
    w = jobs([(0, 6, 100, 10), (0, 2, 100, 10), (0, 1, 100, 10), (0, 1, 100, 10)], 24, gpu_v100=[0, 0, 1, 0])
    s = checked(run(w, conf), w)
    assert [nodes_of(s, j) for j in range(4)] == [["a1"], ["a1"], ["v1"], ["v1"]]
    s = checked(run(w, conf, node_choice="lowest-first"), w)
    assert [nodes_of(s, j) for j in range(4)] == [["a1"], ["a1"], ["v1"], ["a2"]]


def test_partitions_over_different_nodes():
    """Partition cpu = c1 (4 CPUs, no GPU), gpu = g1 (4 CPUs, 1 GPU). Job 1 (gpu, 1 GPU, 100 s) on g1
    at 0; job 2 (gpu, 1 GPU) waits for it (100); job 3 (cpu, 4 CPUs) starts at 0 on c1."""
    conf = "NodeName=c1 CPUs=4\nNodeName=g1 CPUs=4 Gres=gpu:1\nPartitionName=cpu Nodes=c1 Default=YES\n" \
           "PartitionName=gpu Nodes=g1\n"
    w = jobs([(0, 1, 100, 10), (0, 1, 10, 10), (0, 4, 10, 10)], 8, req_gpus=[1, 1, 0])
    w = w.replace(queue=np.array([2, 2, 1]), header=(" SchedlabQueues: cpu=1 gpu=2",))
    s = run(w, conf)
    assert list(s.start) == [0, 100, 0]
    assert [nodes_of(checked(s, w), j) for j in range(3)] == [["g1"], ["g1"], ["c1"]]


# ------------------------------------------------------------------ slurm.conf: read, refused
def test_conf_reads_nodes_memory_gpus_and_partition_settings():
    conf = parse_conf("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerNode=4000\n"
                      "NodeName=g[1-2] CPUs=32 RealMemory=192000 Gres=gpu:a100:4(S:0-1) ThreadsPerCore=1\n"
                      "PartitionName=gpu Nodes=g[1-2] OverSubscribe=EXCLUSIVE DefMemPerCPU=2000\n", "s.conf")
    assert (conf.node_mem, conf.node_gpus, conf.node_gpu_type) == ([192000.0] * 2, [4, 4], ["a100"] * 2)
    assert conf.select_params == "CR_CORE_MEMORY" and conf.def_mem_per_node == 4000 and conf.ignored == []


@pytest.mark.parametrize("text, message", [
    ("SelectTypeParameters=CR_Socket_Memory\n", "s.conf:1: SelectTypeParameters: 'CR_Socket_Memory' is not modelled"),
    ("SelectType=select/linear\n", "s.conf:1: SelectType: select/linear is not modelled"),
    ("NodeName=g1 CPUs=4 Gres=gpu:a100:2,gpu:v100:2\n", "s.conf:1: Gres: GPUs of several types on one node"),
    ("NodeName=g1 CPUs=4 Gres=gpu:two\n", "s.conf:1: Gres: cannot read 'gpu:two': the GPU count is not a whole number"),
    ("NodeName=g1 CPUs=4 RealMemory=lots\n", "s.conf:1: RealMemory: not a whole number: 'lots'"),
    ("NodeName=g1 CPUs=4\nPartitionName=p Nodes=g1 OverSubscribe=FORCE:4\n", "s.conf:2: OverSubscribe: FORCE:4 is not modelled"),
])
def test_conf_refuses_what_it_cannot_model_in_one_line(text, message):
    with pytest.raises(SlurmConfError) as err:
        finish_partitions(parse_conf(text, "s.conf"), None, 1)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_cr_core_on_nodes_of_several_threads_and_a_job_no_node_holds_are_errors():
    w = jobs([(0, 1, 10, 10)], 8, req_mem=[4000.0])
    conf = "SelectTypeParameters=CR_Core_Memory\nNodeName=n1 CPUs=8 ThreadsPerCore=2 RealMemory=8000\n"
    with pytest.raises(WorkloadError, match=r"^t.conf:1: SelectTypeParameters=CR_CORE_MEMORY on node n1 of ThreadsPerCore=2"):
        run(w, conf)
    w = jobs([(0, 1, 10, 10)], 8, req_mem=[9000.0])
    with pytest.raises(WorkloadError, match=r"job 1 needs 1 node\(s\) with 1 CPUs, 9000 MB each; partition batch of t.conf has 0"):
        run(w, "SelectTypeParameters=CR_CPU_Memory\nNodeName=n1 CPUs=8 RealMemory=8000\n")


def test_a_conf_without_memory_or_gpus_is_the_cpu_only_path():
    """CR_CPU, no Gres, no exclusive partition: no allocation is made (the kernels' CPU path), and a
    trace's memory requests change nothing."""
    w = jobs([(0, 2, 100, 10), (0, 2, 50, 10)], 4, req_mem=[12000.0, 8000.0])
    conf = "SchedulerType=sched/builtin\nNodeName=n1 CPUs=4 RealMemory=16000\n"
    s = simulate_slurm(w, 4, SlurmPolicy(parse_conf(conf, "t.conf"), SlurmOptions(**NOW)))
    assert s.slurm.allocation is None and list(s.start) == [0, 0]


# ------------------------------------------------------------------ against the naive reference
@st.composite
def small_cases(draw):
    """2-3 nodes of 2-8 CPUs, 8000-16000 MB, 0-2 GPUs; 1-8 jobs of one node each, 1..4 CPUs,
    0..8000 MB, 0..2 GPUs, fitting the largest node; distinct submit times, runtimes under the limit."""
    nn = draw(st.integers(2, 3))
    cpus = [draw(st.integers(2, 8)) for _ in range(nn)]
    mem = [float(draw(st.sampled_from([8000, 16000]))) for _ in range(nn)]
    gpus = [draw(st.integers(0, 2)) for _ in range(nn)]
    n = draw(st.integers(1, 8))
    rows, rm, rg = [], [], []
    t = 0
    for _ in range(n):
        t += draw(st.integers(1, 50))
        c = draw(st.integers(1, max(cpus)))
        g = draw(st.integers(0, max(gpus)))
        ok = [v for v in range(nn) if cpus[v] >= c and gpus[v] >= g]
        if not ok:
            g = 0
            ok = [v for v in range(nn) if cpus[v] >= c]
        m = float(draw(st.integers(0, 8)) * 1000)
        rows.append((t, c, draw(st.integers(1, 200)), 10))
        rm.append(m if m > 0 else 1000.0)
        rg.append(g)
    return cpus, mem, gpus, rows, rm, rg


@settings(max_examples=examples(60), deadline=None)
@given(small_cases())
def test_compiled_kernels_match_the_naive_reference_on_random_resource_workloads(case):
    """Under sched/builtin with every submission and end scheduled at once, the main scheduler is
    strict FCFS (the first job that does not fit stops the partition), and one-node jobs go to a
    node that holds them: the start times are those of the naive strict-FCFS reference, whatever
    node each gets (node_choice=lowest-first, first fit as the reference, gives its nodes too)."""
    cpus, mem, gpus, rows, rm, rg = case
    lines = [f"NodeName=n{v} CPUs={cpus[v]} RealMemory={int(mem[v])}" + (f" Gres=gpu:{gpus[v]}" if gpus[v] else "")
             for v in range(len(cpus))]
    if not any(gpus):
        lines.append("PartitionName=batch Nodes=ALL OverSubscribe=NO Default=YES")
    conf = "SchedulerType=sched/builtin\nSelectTypeParameters=CR_CPU_Memory\n" + "\n".join(lines) + "\n"
    w = jobs(rows, sum(cpus), req_mem=rm, req_gpus=rg, req_nodes=[1] * len(rows))
    s = checked(run(w, conf, node_choice="lowest-first"), w)
    machine = NodeMachine(tuple(s.slurm.nodes.nodes))
    start, finish, alloc = naive_node_fcfs(w, machine)
    validate_node_allocation(machine, alloc, start, finish, workload=w)
    np.testing.assert_array_equal(s.start, start)
    np.testing.assert_array_equal(s.slurm.allocation.node, alloc.node[np.argsort(alloc.job, kind="stable")])
    checked(run(w, conf), w)  # best-fit (the default) places jobs elsewhere, and may start them earlier: validated only


# ------------------------------------------------------------------ against the CPU-only kernels
@settings(max_examples=examples(150), deadline=None)
@given(case=skip_cases(nodes=(NODES_ONE_CPU,)))
def test_the_resource_path_keeps_the_cpu_only_starts_on_one_cpu_nodes(case):
    """On nodes of one CPU whose GPUs no job asks for, the resource path (forced by ``Gres=gpu:1``:
    select.py's main-scheduler fit and _backfill_res) must start every job when the CPU-only
    kernels (tests/test_slurm_skip.py's random cases: two partitions, age and fair-share, short
    windows, jobs past their limit, both bf_touch readings, ...) do: a c-CPU job takes c nodes
    either way, and both reserve the lowest-numbered nodes free at its start. The options where
    the resource path reads Slurm more simply (docs/slurm-policy-spec.md section 14) are set to
    that reading for both: resv_overlap=exact, node_space_limit=none, node_choice=lowest-first; and
    resource_will_run=as-cpu, so that both read the drawn will_run_batching."""
    rows, procs, conf, options = case
    # (zero-length jobs made positive: the node validator holds a zero-length job's CPUs at its
    # instant, so a job started at that same instant on its node is refused there, not by the CPU validator)
    rows = [(s, c, r if r > 0 else 1.0, lim, q, a) for s, c, r, lim, q, a in rows]
    options = replace(options, resv_overlap="exact", node_space_limit="none", node_choice="lowest-first",
                      resource_will_run="as-cpu")
    w = skip_jobs(rows, procs)
    cpu = simulate_slurm(w, procs, SlurmPolicy(parse_conf(conf, "t.conf"), options))
    assert cpu.slurm.allocation is None
    gpu_conf = conf.replace("NodeName=a,b,c,d,e,f CPUs=1", "NodeName=a,b,c,d,e,f CPUs=1 Gres=gpu:1")
    res = simulate_slurm(w, procs, SlurmPolicy(parse_conf(gpu_conf, "t.conf"), options))
    validate_schedule(res)
    checked(res, w)
    np.testing.assert_array_equal(res.start, cpu.start)
    np.testing.assert_array_equal(res.slurm.started_by, cpu.slurm.started_by)
