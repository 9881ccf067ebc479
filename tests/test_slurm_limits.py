"""Association and QOS limits of ``--policy slurm`` (issue 47 item 3; schedlab.slurm.limits): the
sacctmgr dumps read, jobs held with Slurm's pending reasons while others start, assoc_limit_stop,
MaxSubmitJobs and MaxWall, each schedule worked by hand in its docstring and put through the shared
validator; and the compiled loop against the plain reference (tests/support/slurm_naive.py) with
random limits.

Timing of every case: no priority weights, so the queue is in submit order, then job number; one
partition; the controller "settled" (slurm_loop): the main scheduler runs at a submission or a job end
when the last event-driven run was at least batch_sched_delay (3 s) before, so here at the event's own
time, and every sched_interval (60 s) over the whole queue.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import SchedlabError, WorkloadError
from schedlab.sim.validate import validate_schedule
from schedlab.slurm.conf import SlurmConfError, parse_conf
from schedlab.slurm.limits import Assoc, Limits, SiteLimits, read_assoc, read_qos_limits, reason_names
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, load_policy, simulate_slurm
from schedlab.workload.model import Workload

from support import slurm_naive
from support.examples import examples
from support.resource_naive import checked_nodes
from test_slurm_skip import cases

NODE2 = "NodeName=n1 CPUs=2\nPartitionName=batch Default=YES MaxTime=60\n"
NODE4 = "NodeName=n1 CPUs=4\nPartitionName=batch Default=YES MaxTime=60\n"
ASSOC_HEAD = "Cluster|Account|User|Partition|Share|GrpJobs|GrpTRES|MaxJobs|MaxSubmit|MaxWall|Def QOS\n"


def jobs(rows, procs, users=("alice", "bob"), accounts=("physics", "chem")):
    """rows: (submit, cpus, runtime s, limit min (-1: none, listed as a converted log lists it, the
    estimate its runtime as cleaning makes it), user 1.., account 1..)"""
    r = np.array(rows, dtype=float)
    n = len(rows)
    return Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=r[:, 1].astype(int),
             runtime=r[:, 2], estimate=np.where(r[:, 3] > 0, r[:, 3] * 60, r[:, 2]), queue=np.ones(n, int),
             user=r[:, 4].astype(int), unix_group=r[:, 5].astype(int), status=np.ones(n, int)),
        machine_procs=procs, name="case",
        header=(" SchedlabUsers: " + " ".join(f"{u}={k + 1}" for k, u in enumerate(users)),
                " SchedlabAccounts: " + " ".join(f"{a}={k + 1}" for k, a in enumerate(accounts)))
        + tuple(f" SchedlabNoLimit: {k + 1}" for k in range(n) if r[k, 3] <= 0))


def run(tmp_path, rows, conf, procs, qos=None, assoc=None, options=None, users=("alice", "bob")):
    """The validated schedule of ``rows`` under the slurm.conf text ``conf`` and the sacctmgr dump texts."""
    files = {}
    for name, text in (("site.conf", conf), ("qos.txt", qos), ("assoc.txt", assoc)):
        if text is not None:
            files[name] = tmp_path / name
            files[name].write_text(text)
    policy = load_policy(files["site.conf"], qos=files.get("qos.txt"), options=options,
                         **({"assoc": files["assoc.txt"]} if "assoc.txt" in files else {}))
    s = simulate_slurm(jobs(rows, procs, users=users), procs, policy)
    validate_schedule(s)
    return s


# ------------------------------------------------------------------ holding jobs, others start
def test_a_user_held_at_max_jobs_per_user_while_a_lower_priority_users_job_starts(tmp_path):
    """QOS normal MaxJobsPU=1, one node of 2 CPUs. At 0: job 1 (alice, 1 CPU, 100 s), job 2 (alice, 1 CPU,
    50 s), job 3 (bob, 1 CPU, 50 s), in that priority order. The main run at 0 starts 1; 2 is held
    (alice has 1 job running, the limit is 1: QOSMaxJobsPerUserLimit; job_scheduler.c skips it without
    failing the partition); 3, lower in the queue, starts on the CPU left. Job 3's end at 50 frees a
    CPU, but alice still has job 1 running; job 1's end at 100 lets 2 start. Starts 0, 100, 0.
    Without the limit (the old code): 1 and 2 at 0, 3 at 50."""
    rows = [(0, 1, 100, 5, 1, 1), (0, 1, 50, 5, 1, 1), (0, 1, 50, 5, 2, 2)]
    s = run(tmp_path, rows, NODE2, 2, qos="Name|Priority|MaxJobsPU\nnormal|0|1\n")
    assert s.start.tolist() == [0, 100, 0]
    assert s.slurm.pending_reason == ("", "QOSMaxJobsPerUserLimit", "")
    assert any("QOSMaxJobsPerUserLimit 1" in line for line in s.slurm.notes)
    # the same with backfill off: the limit is the main scheduler's
    s = run(tmp_path, rows, "SchedulerType=sched/builtin\n" + NODE2, 2, qos="Name|Priority|MaxJobsPU\nnormal|0|1\n")
    assert s.start.tolist() == [0, 100, 0]




def assoc_row(account, user="", grp_tres="", max_jobs=""):
    """One ``sacctmgr -P show assoc`` line under ASSOC_HEAD."""
    return "|".join(["c", account, user, "", "1", "", grp_tres, max_jobs, "", "", ""]) + "\n"


ASSOC_CPU2 = ASSOC_HEAD + "".join([assoc_row("root"), assoc_row("physics", grp_tres="cpu=2"), assoc_row("physics", "alice"),
                                   assoc_row("chem"), assoc_row("chem", "bob")])


def test_grp_tres_cpu_holds_a_job_while_cpus_are_free(tmp_path):
    """Account physics GrpTRES=cpu=2; one node of 4 CPUs. At 0: job 1 (alice/physics, 2 CPUs, 100 s, limit
    2 min), job 2 (alice/physics, 1 CPU, 30 s), job 3 (bob/chem, 1 CPU, 30 s). The main run at 0 starts 1
    (physics uses 2 CPUs); 2 would make 3 > 2: held (AssocGrpCpuLimit) though 2 CPUs are free; 3 starts,
    and a CPU stays free until 100, when job 1 ends and 2 starts. Starts 0, 100, 0 (the old code: 0, 0, 0)."""
    rows = [(0, 2, 100, 2, 1, 1), (0, 1, 30, 1, 1, 1), (0, 1, 30, 1, 2, 2)]
    s = run(tmp_path, rows, NODE4, 4, assoc=ASSOC_CPU2)
    assert s.start.tolist() == [0, 100, 0]
    assert s.slurm.pending_reason == ("", "AssocGrpCpuLimit", "")
    assert s.slurm.started_by.tolist() == [1, 1, 1]


def test_assoc_limit_stop_stops_the_partition_behind_a_held_job(tmp_path):
    """The case above with SchedulerParameters=assoc_limit_stop. Backfill off: the main run at 0 starts 1;
    2 is held by a TRES limit (post-select: ESLURM_ACCOUNTING_POLICY), and with assoc_limit_stop
    job_scheduler.c sets fail_by_part: job 3 is not tried at 0, nor at the periodic run at 60; at 100 job
    1 ends and 2 and 3 start. Starts 0, 100, 100.
    Backfill on: the main run is the same; the backfill pass at 0 does not skip the held job 2 (backfill.c
    tests it and reserves for it; read here as the reservation of a job that cannot start now: the node
    from job 1's expected end, 0 + 2 min = 120, to 120 + 1 min); job 3 (limit 1 min, ends by 60 < 120)
    fits before it and backfill starts it at 0. Starts 0, 100, 0, started by main, main, backfill."""
    rows = [(0, 2, 100, 2, 1, 1), (0, 1, 30, 1, 1, 1), (0, 1, 30, 1, 2, 2)]
    stop = "SchedulerParameters=assoc_limit_stop\n"
    s = run(tmp_path, rows, "SchedulerType=sched/builtin\n" + stop + NODE4, 4, assoc=ASSOC_CPU2)
    assert s.start.tolist() == [0, 100, 100]
    s = run(tmp_path, rows, stop + NODE4, 4, assoc=ASSOC_CPU2)
    assert s.start.tolist() == [0, 100, 0]
    assert s.slurm.started_by.tolist() == [1, 1, 2]


def test_a_pre_select_limit_is_found_before_a_tres_limit(tmp_path):
    """alice's association MaxJobs=1 (pre-select) and QOS normal GrpTRES=cpu=3 (post-select), with
    assoc_limit_stop and backfill off; one node of 4 CPUs. At 0: job 1 (alice, 2 CPUs, 100 s), job 2
    (alice, 2 CPUs, 30 s), job 3 (bob, 1 CPU, 30 s). Job 2 passes both limits (alice has 1 job running;
    2 + 2 CPUs > 3). Slurm checks every pre-select limit first (_schedule: acct_policy_job_runnable_pre_select
    before select_nodes), so job 2 is skipped with AssocMaxJobsLimit and does not stop the partition: job 3
    starts at 0 (2 + 1 = 3 CPUs in QOS normal). At 100 job 1 ends and 2 starts. Starts 0, 100, 0. Had the
    TRES limit been found first, assoc_limit_stop would fail the partition and 3 would wait until 100."""
    rows = [(0, 2, 100, 5, 1, 1), (0, 2, 30, 5, 1, 1), (0, 1, 30, 5, 2, 2)]
    assoc = ASSOC_HEAD + assoc_row("physics") + assoc_row("physics", "alice", max_jobs="1") + assoc_row("chem") + \
        assoc_row("chem", "bob")
    s = run(tmp_path, rows, "SchedulerType=sched/builtin\nSchedulerParameters=assoc_limit_stop\n" + NODE4, 4,
            qos="Name|Priority|GrpTRES\nnormal|0|cpu=3\n", assoc=assoc)
    assert s.start.tolist() == [0, 100, 0]
    assert s.slurm.pending_reason == ("", "AssocMaxJobsLimit", "")


def test_a_held_job_gets_no_backfill_reservation(tmp_path):
    """QOS normal MaxJobsPU=1; nodes a and b of 2 CPUs. At 0, in priority order: job 1 (bob, 2 CPUs, 100 s,
    limit 2 min), job 2 (alice, 1 CPU, 100 s, limit 2 min), job 3 (alice, 2 CPUs, 10 s, limit 1 min), job 4
    (carol, 2 CPUs, 10 s, limit 1 min), job 5 (dave, 1 CPU, 300 s, limit 10 min).
    The main run at 0 starts 1 on a and 2 on b; 3 is held (alice has 2 running: QOSMaxJobsPerUserLimit,
    skipped); 4 does not fit (1 CPU free): the partition fails, 5 is not tried. The backfill pass at 0
    gives the held job 3 no reservation (backfill.c: pre_select fails -> continue); 4 is reserved on a
    from the running jobs' expected end 120 to 180; 5 (0..600) may not use a, and b is free of
    reservations with 1 CPU: backfill starts 5 at 0 on b. At 100 jobs 1 and 2 end: 3 starts on a; 4 needs
    2 CPUs, b has 1: it starts when 3 ends, 110. Starts 0, 0, 100, 110, 0 (5 by backfill).
    The old code reserves a for job 3 and b for job 4 from 120, so 5 waits: 0, 0, 100, 100, 110."""
    conf = "NodeName=a,b CPUs=2\nPartitionName=batch Nodes=a,b Default=YES MaxTime=60\n"
    rows = [(0, 2, 100, 2, 2, 1), (0, 1, 100, 2, 1, 1), (0, 2, 10, 1, 1, 1), (0, 2, 10, 1, 3, 2), (0, 1, 300, 10, 4, 2)]
    s = run(tmp_path, rows, conf, 4, qos="Name|Priority|MaxJobsPU\nnormal|0|1\n", users=("alice", "bob", "carol", "dave"))
    assert s.start.tolist() == [0, 0, 100, 110, 0]
    assert s.slurm.started_by.tolist() == [1, 1, 1, 1, 2]
    assert s.slurm.pending_reason == ("", "", "QOSMaxJobsPerUserLimit", "", "")


def test_gpu_and_memory_limits_read_the_jobs_requests(tmp_path):
    """QOS normal GrpTRES=gres/gpu=2 and MaxTRESPU=mem=8000 (MB); one node of 4 CPUs; the requests from the
    workload's resource table. At 0: job 1 (alice, 1 CPU, 100 s, 2 GPUs), job 2 (bob, 1 CPU, 30 s, 1 GPU),
    job 3 (bob, 1 CPU, 30 s, 4000 MB), job 4 (bob, 1 CPU, 30 s, 6000 MB). The main run at 0 starts 1 (the
    QOS's 2 GPUs in use); 2 would make 3 GPUs: held (QOSGrpGRES) while 3 CPUs are free; 3 starts (bob's
    memory 4000 MB); 4 would make bob's 10000 MB > 8000: held (QOSMaxMemoryPerUser). At 30 job 3 ends: 4
    starts (6000 MB); at 100 job 1 ends: 2 starts. Starts 0, 100, 0, 30 (the old code: all at 0)."""
    from schedlab.workload.resources import Resources

    rows = [(0, 1, 100, 5, 1, 1), (0, 1, 30, 5, 2, 2), (0, 1, 30, 5, 2, 2), (0, 1, 30, 5, 2, 2)]
    w = jobs(rows, 4)
    w = w.replace(resources=Resources.build(4, req_mem=[-1, -1, 4000, 6000], req_gres={"gpu": [2, 1, 0, 0]}))
    conf, qos = tmp_path / "site.conf", tmp_path / "qos.txt"
    conf.write_text(NODE4)
    qos.write_text("Name|Priority|GrpTRES|MaxTRESPU\nnormal|0|gres/gpu=2|mem=8000M\n")
    s = simulate_slurm(w, 4, load_policy(conf, qos=qos))
    validate_schedule(s)
    assert s.start.tolist() == [0, 100, 0, 30]
    assert s.slurm.pending_reason == ("", "QOSGrpGRES", "", "QOSMaxMemoryPerUser")


def test_limits_hold_jobs_on_the_resource_path_in_the_main_scheduler_and_backfill(tmp_path):
    """The resource path (nodes with memory and GPUs, docs/slurm-policy-spec.md section 14): QOS normal
    GrpTRES=gres/gpu=3; nodes g1, g2 of 4 CPUs, 8000 MB (CR_CPU_Memory, DefMemPerCPU=1000) and 4 GPUs each.
    At 0, in priority order: job 1 (alice, 1 CPU, 2 GPUs, 100 s, limit 2 min), job 2 (bob, 1 CPU, 2 GPUs,
    30 s, limit 1 min), job 3 (carol, 1 CPU, 100 s, limit 2 min), job 4 (dave, 8 CPUs: 2 nodes of 4, 30 s,
    limit 1 min), job 5 (erin, 1 CPU, 1 GPU, 30 s, limit 1 min), job 6 (frank, 1 CPU, 1 GPU, 30 s, limit 1 min).

    Main run at 0: 1 starts (the QOS's GPUs 2 of 3); 2 would make 4 > 3: held (QOSGrpGRES) while 6 GPUs are
    free, skipped without failing the partition; 3 starts (no GPU); 4 needs both nodes whole (1 and 3 hold
    CPUs of one): the partition fails, 5 and 6 are not tried. Backfill at 0: 2 is held (no reservation); 4 is
    reserved on both nodes from the running jobs' expected end, 0 + 2 min = 120, to 180; 5 (0..60, before
    120) fits: backfill starts it (GPUs 3 of 3); 6 would make 4 > 3: held though its node has room.
    At 30 job 5 ends (GPUs 2): the main run holds 2 (2 + 2 > 3) and stops at 4; the backfill pass at 30
    starts 6 (2 + 1 = 3; 30..90 ends before 4's reservation at 120). At 100 jobs 1 and 3 end (job 6 ended at
    60; GPUs 0): 2 starts on one node, so 4 (both nodes whole) waits for its end at 130.
    Starts 0, 100, 0, 130, 0, 30, by main, main, main, main, backfill, backfill; the pending reason
    QOSGrpGRES for job 2 (job 6's hold was backfill's; the reason is the main scheduler's). Without the limits on this
    path (the hooks missing from _backfill_res and the resource branch of _main): 2, 5 and 6 start at 0."""
    from schedlab.workload.resources import Resources

    rows = [(0, 1, 100, 2, 1, 1), (0, 1, 30, 1, 2, 1), (0, 1, 100, 2, 3, 1), (0, 8, 30, 1, 4, 1), (0, 1, 30, 1, 5, 1),
            (0, 1, 30, 1, 6, 1)]
    w = jobs(rows, 8, users=("alice", "bob", "carol", "dave", "erin", "frank"))
    w = w.replace(resources=Resources.build(6, req_gres={"gpu": [2, 2, 0, 0, 1, 1]}))
    conf, qos = tmp_path / "site.conf", tmp_path / "qos.txt"
    conf.write_text("SelectTypeParameters=CR_CPU_Memory\nDefMemPerCPU=1000\n"
                    "NodeName=g1,g2 CPUs=4 RealMemory=8000 Gres=gpu:4\n"
                    "PartitionName=batch Nodes=g1,g2 Default=YES MaxTime=60\n")
    qos.write_text("Name|Priority|GrpTRES\nnormal|0|gres/gpu=3\n")
    s = simulate_slurm(w, 8, load_policy(conf, qos=qos))
    validate_schedule(s)
    checked_nodes(s, w)
    assert s.start.tolist() == [0, 100, 0, 130, 0, 30]
    assert s.slurm.started_by.tolist() == [1, 1, 1, 1, 2, 2]
    # (job 6 was held by backfill only: the main scheduler, whose reason is kept, never reached it)
    assert s.slurm.pending_reason == ("", "QOSGrpGRES", "", "", "", "")


def test_a_mem_limit_counts_the_default_memory_the_job_is_given(tmp_path):
    """Slurm counts a job's memory after DefMemPerCPU (job_mgr.c ``_validate_job_desc`` sets
    ``pn_min_memory`` to the default, ``job_get_tres_mem`` makes it the job's mem TRES), not the trace's
    request. One node of 8 CPUs and 16000 MB, CR_CPU_Memory, DefMemPerCPU=2000; QOS normal
    MaxTRESPU=mem=6000; no job asks for memory. At 0: job 1 (alice, 2 CPUs, 100 s) gets 2 x 2000 = 4000 MB
    and starts; job 2 (alice, 2 CPUs, 30 s) would make alice's 8000 MB > 6000: held (QOSMaxMemoryPerUser)
    while 6 CPUs and 12000 MB are free; job 3 (bob, 2 CPUs, 30 s, 4000 MB) starts. At 100 job 1 ends and
    job 2 starts. Starts 0, 100, 0 (the old code counted the missing request as 0 MB: all at 0)."""
    conf = ("SelectTypeParameters=CR_CPU_Memory\nDefMemPerCPU=2000\nNodeName=n1 CPUs=8 RealMemory=16000\n"
            "PartitionName=batch Nodes=n1 Default=YES MaxTime=60\n")
    s = run(tmp_path, [(0, 2, 100, 5, 1, 1), (0, 2, 30, 5, 1, 1), (0, 2, 30, 5, 2, 2)], conf, 8,
            qos="Name|Priority|MaxTRESPU\nnormal|0|mem=6000M\n")
    r = checked_nodes(s).slurm
    assert s.start.tolist() == [0, 100, 0]
    assert r.pending_reason == ("", "QOSMaxMemoryPerUser", "")


def test_a_mem_limit_counts_a_whole_node_for_a_job_without_a_default(tmp_path):
    """CR_CPU_Memory without DefMemPerCPU/DefMemPerNode: a job without a memory request gets its node's
    whole memory, and Slurm counts it so (``job_get_tres_mem``: ``pn_min_memory`` 0 -> ``_mem_per_node_part``,
    the partition's first node's RealMemory, x its nodes). Nodes n1, n2 of 4 CPUs and 16000 MB; QOS normal
    GrpTRES=mem=20000. At 0: job 1 (alice, 1 CPU, 100 s) takes n1's 16000 MB and starts; job 2 (bob, 1 CPU,
    30 s) would make 32000 > 20000: held (QOSGrpMemLimit) while n2 is idle. At 100 job 1 ends, job 2 starts.
    Starts 0, 100 (the old code: 0 MB each, both at 0 on the two nodes)."""
    conf = ("SelectTypeParameters=CR_CPU_Memory\nNodeName=n1,n2 CPUs=4 RealMemory=16000\n"
            "PartitionName=batch Nodes=n1,n2 Default=YES MaxTime=60\n")
    s = run(tmp_path, [(0, 1, 100, 5, 1, 1), (0, 1, 30, 5, 2, 2)], conf, 8,
            qos="Name|Priority|GrpTRES\nnormal|0|mem=20000M\n")
    r = checked_nodes(s).slurm
    assert s.start.tolist() == [0, 100]
    assert r.pending_reason == ("", "QOSGrpMemLimit")


# ------------------------------------------------------------------ MaxSubmitJobs, MaxWall
def test_max_submit_jobs_rejects_the_submission_over_it(tmp_path):
    """QOS normal MaxSubmitPU=2; one node of 2 CPUs, jobs of 2 CPUs (one runs at a time). Slurm counts a user's jobs
    from submission to end and rejects a submission that would pass the limit (acct_policy.c
    _qos_policy_validate: "Job violates accounting/QOS policy"); a replayed trace cannot show a job Slurm
    rejected, so the run stops with an error naming it. Jobs 1, 2 at 0 and 3 at 10 (alice, 100 s each): at
    10 alice has job 1 running and 2 pending: job 3 is rejected. With job 3 at 150 (job 1 ended at 100,
    2 running) it is accepted: starts 0, 100, 200."""
    qos = "Name|Priority|MaxSubmitPU\nnormal|0|2\n"
    with pytest.raises(WorkloadError, match=r"job 3 \(user 1\) submitted at 10 s would be rejected by Slurm "
                                            r"\(QOSMaxSubmitJobPerUserLimit: 2 of its jobs"):
        run(tmp_path, [(0, 2, 100, 5, 1, 1), (0, 2, 100, 5, 1, 1), (10, 2, 100, 5, 1, 1)], NODE2, 2, qos=qos)
    s = run(tmp_path, [(0, 2, 100, 5, 1, 1), (0, 2, 100, 5, 1, 1), (150, 2, 100, 5, 1, 1)], NODE2, 2, qos=qos)
    assert s.start.tolist() == [0, 100, 200]


def test_max_wall_is_the_limit_of_jobs_without_one_and_an_error_over_it(tmp_path):
    """QOS normal MaxWall=00:10:00, partition MaxTime 60 min, one node of 2 CPUs. Job 1 (1 CPU, runs 1000 s,
    limit 30 min) is over MaxWall: Slurm (no DenyOnLimit) accepts it and holds it for good
    (QOSMaxWallDurationPerJobLimit): an error naming it, or with over_max_wall=clamp its limit is 10 min.
    Job 2 (1 CPU, runs 2000 s, no limit) gets min(MaxTime, MaxWall) = 10 min (acct_policy.c _set_time_limit).
    Both start at 0 and are killed at the first 30-s check at or after 600 s: 600. (The old code: job 1
    ends at 1000, job 2 at 2000, under the partition's MaxTime.)"""
    qos = "Name|Priority|MaxWall\nnormal|0|00:10:00\n"
    rows = [(0, 1, 1000, 30, 1, 1), (0, 1, 2000, -1, 2, 2)]
    with pytest.raises(WorkloadError, match=r"job 1's limit 30 min is over QOS normal's MaxWall 10 min.*"
                                            r"QOSMaxWallDurationPerJobLimit.*over_max_wall=clamp"):
        run(tmp_path, rows, NODE2, 2, qos=qos)
    s = run(tmp_path, rows, NODE2, 2, qos=qos, options="over_max_wall=clamp")
    assert s.start.tolist() == [0, 0]
    assert s.finish.tolist() == [600, 600]


def test_a_job_alone_over_a_group_limit_is_an_error_naming_it(tmp_path):
    """GrpTRES cpu=2 on physics and a 3-CPU physics job: it could never start (Slurm holds it for good)."""
    with pytest.raises(WorkloadError, match=r"job 1 alone is over a limit \(AssocGrpCpuLimit: it needs 3, the limit is 2\)"):
        run(tmp_path, [(0, 3, 10, 1, 1, 1)], NODE4, 4, assoc=ASSOC_CPU2)


# ------------------------------------------------------------------ reading the dumps
def test_the_dumps_are_read_by_column_and_a_bad_line_names_file_and_line(tmp_path):
    """A ``sacctmgr -P show qos`` dump as 22.05 prints it (more columns than read) and ``show assoc``."""
    q = tmp_path / "qos.txt"
    q.write_text("Name|Priority|GraceTime|GrpTRES|GrpJobs|MaxTRES|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU\n"
                 "normal|10|00:00:00|cpu=16,mem=64G,gres/gpu=4|20|cpu=8|1-00:00:00|cpu=12|8|50\n"
                 "\n"
                 "long|0|00:00:00|||||||\n")
    got = read_qos_limits(q)
    assert got["normal"] == Limits(grp_jobs=20, grp_tres={"cpu": 16, "mem": 65536.0, "gres/gpu": 4}, max_jobs=8,
                                   max_submit=50, max_tres_pu={"cpu": 12}, max_tres={"cpu": 8}, max_wall=86400)
    assert not got["long"].any()
    a = tmp_path / "assoc.txt"
    a.write_text(ASSOC_CPU2)
    rows = read_assoc(a).assoc
    assert [(r.account, r.user, r.limits.grp_tres) for r in rows] == [
        ("physics", "", {"cpu": 2}), ("physics", "alice", {}), ("chem", "", {}), ("chem", "bob", {})]
    for text, problem in (("normal|0|abc\n", "qos.txt:2: cannot read maxjobspu: not a whole number >= 0: 'abc'"),
                          ("normal|0\n", "qos.txt:2: expected 3 '|'-separated fields, found 2")):
        q.write_text("Name|Priority|MaxJobsPU\n" + text)
        with pytest.raises(SlurmConfError) as err:
            read_qos_limits(q)
        assert str(err.value) == f"{q.parent}/{problem}"
    q.write_text("Name|GrpTRES\nnormal|cpu\n")
    with pytest.raises(SlurmConfError, match=r"qos.txt:2: cannot read grptres: TRES item 'cpu' is not name=value"):
        read_qos_limits(q)
    a.write_text("User|GrpTRES\nalice|cpu=1\n")
    with pytest.raises(SlurmConfError, match=r"assoc.txt:1: header lacks account \(use sacctmgr -P show assoc\)"):
        read_assoc(a)


def test_cli_names_the_limit_that_held_jobs(tmp_path, capsys):
    """``simulate --policy slurm --slurm-assoc``: the note line counts the jobs a limit held (the first case
    of test_grp_tres_cpu_holds_a_job_while_cpus_are_free), a bad dump is one line naming file and line."""
    from conftest import one_line_error

    from schedlab.cli.main import main
    from schedlab.workload.swf import write_swf

    trace = tmp_path / "t.swf"
    write_swf(jobs([(0, 2, 100, 2, 1, 1), (0, 1, 30, 1, 1, 1), (0, 1, 30, 1, 2, 2)], 4), trace)
    conf, assoc = tmp_path / "site.conf", tmp_path / "assoc.txt"
    conf.write_text(NODE4)
    assoc.write_text(ASSOC_CPU2)
    args = ["simulate", str(trace), "--procs", "4", "--policy", "slurm", "--slurm-conf", str(conf), "--slurm-assoc", str(assoc)]
    code = main(args + ["--schedule-out", str(tmp_path / "jobs.csv")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert ("note: 1 job waited on an association or QOS limit (the last reason each was held with): "
            "AssocGrpCpuLimit 1") in err
    import pandas as pd

    table = pd.read_csv(tmp_path / "jobs.csv", keep_default_na=False)
    assert table["pending_reason"].tolist() == ["", "AssocGrpCpuLimit", ""]
    assert table["start"].tolist() == [0, 100, 0]
    assoc.write_text(ASSOC_HEAD + assoc_row("physics", grp_tres="cpu=x"))
    one_line_error(main(args), capsys.readouterr().err, f"{assoc}:2: cannot read grptres: TRES cpu='x' is not a count")


# ------------------------------------------------------------------ against the plain reference
@st.composite
def limited_cases(draw):
    """Random small cases (test_slurm_skip.cases: two partitions, backfill settings, priorities) with
    random QOS and account limits on jobs of three users in three accounts, assoc_limit_stop or not."""
    rows, procs, conf, options = draw(cases(njobs=(2, 20)))
    users = [draw(st.integers(1, 3)) for _ in rows]
    rows = [r[:5] + (u,) + r[5:] for r, u in zip(rows, users)]  # (submit, cpus, runtime, limit min, queue, user, account)
    if draw(st.booleans()):
        conf += "SchedulerParameters=assoc_limit_stop\n"
    widest = max(r[1] for r in rows)
    qos = Limits(grp_jobs=draw(st.sampled_from([None, 1, 2, 3])), max_jobs=draw(st.sampled_from([None, 1, 2])),
                 grp_tres={"cpu": draw(st.integers(widest, widest + 4))} if draw(st.booleans()) else {})
    accounts = {}
    for a in ("1", "2", "3"):
        accounts[a] = Limits(grp_jobs=draw(st.sampled_from([None, 1, 2])),
                             grp_tres={"cpu": draw(st.integers(widest, widest + 3))} if draw(st.booleans()) else {},
                             max_jobs=draw(st.sampled_from([None, 1])))
    limits = SiteLimits(qos={"normal": qos}, assoc=tuple(Assoc(a, "", "", "", L) for a, L in accounts.items()))
    return rows, procs, conf, options, limits


@settings(max_examples=examples(150), deadline=None)
@given(case=limited_cases())
def test_limits_keep_the_starts_and_reasons_of_the_plain_reference(case):
    """The compiled loop (counters kept by start and end, passes skipped and resumed) against the plain
    reference, which sums each limit's use afresh over the running jobs at every test."""
    rows, procs, conf, options, limits = case
    r = np.array(rows, dtype=float)
    n = len(rows)
    w = Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=r[:, 1].astype(int),
             runtime=r[:, 2], estimate=r[:, 3] * 60, queue=r[:, 4].astype(int), user=r[:, 5].astype(int),
             unix_group=r[:, 6].astype(int), status=np.ones(n, int)),
        machine_procs=procs, header=(" SchedlabQueues: batch=1 short=2",), name="case")
    policy = SlurmPolicy(parse_conf(conf, "t.conf"), options, limits=limits)
    fast = simulate_slurm(w, procs, policy)
    validate_schedule(fast)
    start, by = slurm_naive.starts(w, procs, policy)
    np.testing.assert_array_equal(fast.start, start)
    np.testing.assert_array_equal(fast.slurm.started_by, by)
    assert fast.slurm.pending_reason == reason_names(slurm_naive.LIMITS["why_trace"])


def test_no_limits_changes_nothing(tmp_path):
    """A QOS dump with priorities only (no limit column) gives the schedule of no dump at all."""
    rows = [(0, 1, 100, 5, 1, 1), (0, 1, 50, 5, 1, 1), (0, 1, 50, 5, 2, 2)]
    with_qos = run(tmp_path, rows, NODE2, 2, qos="Name|Priority\nnormal|0\n")
    plain = simulate_slurm(jobs(rows, 2), 2, SlurmPolicy(parse_conf(NODE2, "t.conf")))
    assert with_qos.start.tolist() == plain.start.tolist() == [0, 0, 50]
    assert with_qos.slurm.pending_reason == ("", "", "")
    assert isinstance(WorkloadError("x"), SchedlabError)
