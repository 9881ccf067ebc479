"""The real-Slurm harness with resources (issue 47, item 5): GPUs as GRES, memory under
CR_CPU_Memory, whole-node jobs and association/QOS limits on slurmctld 22.05, recorded in
tests/data/slurm47res (``slurm_conformance.py --record47``) and re-checked here offline; and the
readings of the source the recordings showed the policy lacked, each hand-worked.

No real Slurm is needed: the recordings carry slurmctld's log lines, sacct's lines and the
sacctmgr dumps of each run.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from schedlab.sim.validate import validate_schedule
from schedlab.slurm.backfill import _batches
from schedlab.slurm.conf import parse_conf
from schedlab.slurm.harness import SlurmJob, load_case
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm, will_run_mode
from schedlab.workload.model import Workload
from schedlab.workload.resources import Resources, resources_of
from schedlab.workload.sacct import parse_sacct
from support.resource_naive import checked_nodes

DATA = Path(__file__).parent / "data" / "slurm47res"
CASES = sorted(DATA.glob("case*.json"), key=lambda q: int(q.stem[4:]))
REPORT = Path(__file__).parents[1] / "docs" / "results" / "slurm-conformance-47-resources.md"


# ------------------------------------------------------------------ the harness' job options
def test_a_resource_job_is_submitted_with_its_memory_gpus_exclusive_and_user():
    args = SlurmJob(cpus=2, runtime=5, limit=1, mem=8000, gpus=3, exclusive=True, user="sl47a").sbatch_args("j0")
    assert args[-2:] == ["--wrap", "sleep 5"]
    assert {"--mem=8000", "--gres=gpu:3", "--exclusive"} <= set(args)
    assert args[args.index("--uid") + 1] == "sl47a"
    plain = SlurmJob(cpus=2, runtime=5, limit=1).sbatch_args("j1")
    assert not [a for a in plain if a.startswith(("--mem", "--gres", "--exclusive", "--uid"))]


# ------------------------------------------------------------------ will-run batches (job_test.c)
def _batch(ends, phase):
    """_batches over running jobs 0..n-1 with expected ``ends`` at now = 0 on one partition."""
    n = len(ends)
    run = np.arange(n, dtype=np.int64)
    JI = np.zeros((4, n), dtype=np.int64)
    JI[3] = np.arange(n)  # I_AOFF: each job's allocation entry
    anode = np.zeros(n, dtype=np.int64)
    alen = np.ones(n, dtype=np.int64)
    byend, btime, bcount, nb = _batches(0.0, run, n, np.array(ends, float), 2 + phase, 0.0, 0,
                                        np.ones((1, 1), dtype=np.uint8), JI, anode, alen)
    return btime[:nb].tolist(), bcount[:nb].tolist()


def test_will_run_batches_start_at_the_next_30s_barrier_of_unix_time():
    # job_test.c _will_run_test (22.05): delta = end_time % 30; end_time += 30 - delta (the first end
    # moved to the next barrier, a whole 30 s when it is on one); a batch removes the next job, then
    # each ending by end_time + time_window; the window doubles (at least once) until the next end is
    # within it. Worked by hand, Unix start a multiple of 30 (phase 0): ends 90, 146, 200, 400:
    # barrier 90 -> 120; batch 1 takes 90 and 146 (<= 150) and is tried at 146; window 60: 200 >
    # 180, so 120: 200 <= 240, batch 2 = {200}; window 240: 400 > 360, so 480: batch 3 = {400}.
    assert _batch([90, 146, 200, 400], 0) == ([146.0, 200.0, 400.0], [2, 3, 4])
    # the same ends on a trace whose Unix start is 7 s past a barrier: 90 is 97 in Unix time, its
    # barrier 120 is trace time 113, and 146 > 113 + 30: it is a batch of its own
    assert _batch([90, 146, 200, 400], 7)[0] == [90.0, 146.0, 200.0, 400.0]
    # ('doubling-30s', the reading before: each batch from its own first end: 90 + 30 < 146)
    assert will_run_mode(SlurmOptions(), 1796195437, True) == 2 + 1796195437 % 30
    assert will_run_mode(SlurmOptions(), 1796195437, False) == 0  # a CPU-only run keeps its reading
    assert will_run_mode(SlurmOptions(will_run_batching="exact", resource_will_run="as-cpu"), 0, True) == 1
    assert will_run_mode(SlurmOptions(will_run_batching="barrier-30s"), 45, False) == 2 + 15


GPU_CONF = """SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
PriorityType=priority/multifactor
SelectTypeParameters=CR_CPU
GresTypes=gpu
NodeName=g1 CPUs=16 Gres=gpu:4
PartitionName=batch Default=YES Nodes=g1 MaxTime=10 State=UP
"""


def _workload(rows, **resources):
    """rows: (submit, cpus, runtime s, limit min[, requested cpus]); one node of 16 CPUs."""
    n = len(rows)
    r = np.array([row[:4] for row in rows], dtype=float)
    req = np.array([row[4] if len(row) > 4 else row[1] for row in rows])
    w = Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=req,
             runtime=r[:, 2], estimate=r[:, 3] * 60, queue=np.full(n, -1), unix_group=np.ones(n, int),
             user=np.arange(n), status=np.ones(n, int)), machine_procs=16, name="case")
    gpus = resources.pop("req_gpus", None)
    return w.replace(resources=Resources.build(n, **resources, req_gres={"gpu": gpus} if gpus else None))


def _run(w, conf, **options):
    opts = dict(sched_on_submit="immediate", sched_on_end="immediate", kill_check="exact", unix_start="0",
                controller_start="0", **options)
    s = simulate_slurm(w, 16, SlurmPolicy(parse_conf(conf, "t.conf"), SlurmOptions(**opts)))
    validate_schedule(s)
    return checked_nodes(s, w)


def test_a_small_gpu_job_backfills_before_a_reservation_the_barrier_batch_puts_later():
    """One node, 16 CPUs, 4 GPUs; Unix start 0 (barriers at trace times 0, 30, 60, ...).
    A (1 CPU, 1 GPU, limit 1 min) and B (1 CPU, 2 GPUs, limit 2 min) start at 0, running 60 and 120 s.
    C (1 CPU, 2 GPUs, limit 1) comes at 1: 1 GPU free, blocked. D (1 CPU, 1 GPU, limit 1, 10 s) at 2.
    Backfill at 2 (bf_interval 1): C's will-run removes A and B in one batch (A's end 60 is on a
    barrier: 60 + 30 = 90, and B's 120 <= 90 + 30), so C is reserved over [120, 180] and D, ending
    by 62, starts at 2 on the GPU left. (Under 'doubling-30s' A alone is a batch, 60 + 30 < 120: C
    is reserved from 60, the node is held whole from then, D's [2, 62] overlaps it; C takes the two
    GPUs free at 60 and D waits until C's 30 s end at 90.) C starts at 60 when A ends (D is gone by
    12): starts [0, 0, 60, 2]."""
    w = _workload([(0, 1, 60, 1), (0, 1, 120, 2), (1, 1, 30, 1), (2, 1, 10, 1)], req_gpus=[1, 2, 2, 1])
    assert _run(w, GPU_CONF).start.tolist() == [0.0, 0.0, 60.0, 2.0]
    assert _run(w, GPU_CONF, resource_will_run="as-cpu").start.tolist() == [0.0, 0.0, 60.0, 90.0]


# ------------------------------------------------------------------ whole-node jobs
SACCT = """JobIDRaw|JobID|User|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|ReqCPUS|State|NNodes|ReqMem|ReqTRES|AllocTRES
1|1|u|a|batch|normal|2026-12-02T10:15:51|2026-12-02T10:15:52|2026-12-02T10:16:04|00:00:12|00:01:00|16|4|COMPLETED|1|8000M|billing=4,cpu=4,mem=8000M,node=1|billing=16,cpu=16,gres/gpu=4,mem=32000M,node=1
2|2|u|a|batch|normal|2026-12-02T10:15:52|2026-12-02T10:15:53|2026-12-02T10:16:05|00:00:12|00:01:00|2|2|COMPLETED|1|4000M|billing=2,cpu=2,gres/gpu=2,mem=4000M,node=1|billing=2,cpu=2,gres/gpu=2,mem=4000M,node=1
3|3|u|a|batch|normal|2026-12-02T10:15:52|2026-12-02T10:15:53|2026-12-02T10:16:05|00:00:12|00:01:00|2|1|COMPLETED|1|2000M|billing=1,cpu=1,mem=2000M,node=1|billing=2,cpu=2,mem=2000M,node=1
"""


def test_sacct_reads_a_job_given_gres_it_did_not_ask_for_as_a_whole_node_job(tmp_path):
    # the harness' --exclusive job: ReqTRES cpu=4, AllocTRES cpu=16,gres/gpu=4 (every GPU of the node,
    # which cons_tres gives beyond a request only with the node whole); job 2 got the GPUs it asked
    # for; job 3 got a CPU more than it asked (a whole core) and no GRES: unknown, as before
    (tmp_path / "x.sacct").write_text(SACCT)
    w, _ = parse_sacct(tmp_path / "x.sacct")
    assert resources_of(w).exclusive.tolist() == [1, -1, -1]
    assert w.procs.tolist() == [16, 2, 2] and w.req_procs.tolist() == [4, 2, 1]


BUILTIN = """SchedulerType=sched/builtin
PriorityType=priority/multifactor
PriorityWeightJobSize=100
NodeName=n1 CPUs=16
PartitionName=batch Default=YES Nodes=n1 MaxTime=10 State=UP
"""


def test_a_whole_node_jobs_size_factor_reads_the_cpus_it_asked_for():
    """priority_multifactor.c: a pending job's size is its requested CPUs (total_cpus is 0 until it
    is allocated). One node of 16 CPUs, weight 100, favour large: (1/1 + cpus/16)/2 x 100. X (16
    CPUs) runs 0-100. E (--exclusive, asked 4 CPUs, held all 16: sacct's AllocCPUS) comes at 1:
    (1 + 4/16)/2 x 100 = 62.5 -> 62 (the harness logged InitPrio=62 for such a job); S (6 CPUs) at 2:
    (1 + 6/16)/2 x 100 = 68.75 -> 68. sched/builtin starts S first at 100 (E needs the node idle),
    then E at 110: starts [0, 110, 100]. (Read from the 16 CPUs E held, E's 100 would go first:
    [0, 100, 110]: exclusive_size='node', which Slurm reaches only after backfill has placed E and
    priorities are recalculated.)"""
    w = _workload([(0, 16, 100, 2), (1, 16, 10, 1, 4), (2, 6, 10, 1)], exclusive=[-1, 1, -1])
    assert _run(w, BUILTIN).start.tolist() == [0.0, 110.0, 100.0]
    assert _run(w, BUILTIN, exclusive_size="node").start.tolist() == [0.0, 100.0, 110.0]


def test_a_whole_node_job_asking_for_memory_validates_on_nodes_without_memory():
    # CR_CPU (memory not consumable): the nodes have no memory to give, so a job's memory request
    # cannot be held against them (the validator used to refuse its 0 MB: "less than the 8000 MB it
    # requested"); the exclusive job still takes the whole node: [0, 10]
    w = _workload([(0, 4, 10, 1), (1, 2, 10, 1)], exclusive=[1, -1], req_mem=[8000.0, -1.0])
    assert _run(w, BUILTIN).start.tolist() == [0.0, 10.0]


# ------------------------------------------------------------------ the committed recordings
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_a_recording_reads_back_the_resources_its_jobs_asked_for(path):
    # each job's sbatch options against what `workload convert --from sacct` reads from the run's own
    # sacct lines: GPUs from ReqTRES gres/gpu (AccountingStorageTRES=gres/gpu), memory from ReqMem
    # (the job's total: --mem, else its CPUs x DefMemPerCPU 2000), the user; every --exclusive job
    # (and only those) read as whole-node from AllocTRES (all 4 GPUs); the sacctmgr dumps are the
    # run's limits
    from schedlab.slurm.conformance import sacct_case

    name, jobs, conf, result, cpus = load_case(path)
    w, index, _ = sacct_case(result, "ctld-ms", path.name)
    res = resources_of(w)
    for i, job in enumerate(jobs):
        k = index[i]
        assert max(res.req_gpus[k], 0) == job.gpus, (i, job)  # (-1: a log without any gres/gpu)
        assert res.req_mem[k] == (job.mem if job.mem is not None else 2000 * job.cpus), (i, job)
        assert (res.exclusive[k] == 1) == job.exclusive, (i, job)
        assert w.req_procs[k] == job.cpus
    assert re.search(r"^NodeName=sl1 .*CPUs=16 RealMemory=64000 Gres=gpu:4 ", result.conf, re.M)
    assert "AccountingStorageTRES=gres/gpu" in result.conf and "SelectTypeParameters=CR_CPU_Memory" in result.conf
    assert result.qos_dump.startswith("Name|") and result.assoc_dump.startswith("Cluster|")
    if "MaxJobsPerUser" in name:
        assert "|2|" in result.qos_dump.splitlines()[1]
    if "GrpTRES" in name:
        assert "schedlab|physics|||1|||cpu=8|" in result.assoc_dump


def _reported(reading: str) -> dict[str, list[int]]:
    """The committed report's rows under ``reading``: label -> per-case starts within the tolerance."""
    text = REPORT.read_text()
    section = text[text.index(f"## Input `--runtimes {reading}`"):]
    section = section[:section.index("###")]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(CASES) + 2 and re.match(r"\d+/\d+$", cells[1]):
            out[cells[0]] = [int(c.split("/")[0]) for c in cells[1:1 + len(CASES)]]
    return out


def _score(reading: str, options: str = "", *, limits=True, resources=True, exclusive=True):
    """Per committed case: the starts within the tolerance (simulated vs slurmctld's), offline."""
    import sys

    from schedlab.slurm.conformance import case_tolerance, simulate_sacct_case

    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks" / "experiments" / "slurm"))
    from slurm_conformance import cpu_only_conf

    out = []
    for path in CASES:
        _, jobs, conf, result, _ = load_case(path)
        _, sim, real = simulate_sacct_case(result, conf if resources else cpu_only_conf(conf), reading, options,
                                           limits=limits, source=path.name, exclusive_from_log=exclusive)
        out.append(int(np.sum(np.abs(sim - real.start) <= case_tolerance(conf))))
    return out


def test_the_resource_cases_match_the_real_controller_as_the_report_says():
    # issue 47, item 5: the committed recordings re-scored here give the committed report's figures
    # (docs/results/slurm-conformance-47-resources.md, `--score47 tests/data/slurm47res`), input read
    # to the millisecond from slurmctld's log; the readings of this stop match more starts than the
    # reading before it, and modelling memory, GPUs and limits more than the CPU-only reading before
    # issue 47. (The share is below the >= 90 % of the CPU-only cases: the report names the causes.)
    rows = _reported("ctld-ms")
    now = _score("ctld-ms")
    before = _score("ctld-ms", "resource_will_run=as-cpu", exclusive=False)
    cpu_only = _score("ctld-ms", "resource_will_run=as-cpu", limits=False, resources=False, exclusive=False)
    assert now == rows["Slurm's readings"]
    assert before == rows["before item 5 (will-run batches as on the CPU path, whole-node jobs unread)"]
    assert cpu_only == rows["CPUs only, no limits (before issue 47)"]
    assert sum(now) > sum(before) > sum(cpu_only)
    assert all(a >= b for a, b in zip(now, before))
