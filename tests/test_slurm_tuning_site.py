"""`evolve slurm` tunes partition settings and QOS limits (issue 47 item 4; schedlab.slurm.tuning
site_knobs): a tuned value reaches the simulation (hand-worked schedules that must change), the
fragment, sacctmgr.sh and qos.tuned.txt round-trip through the slurm.conf and QOS readers to the same
schedule, the bounds keep every job runnable, and a short run on a generated GPU-cluster workload
writes them. Every schedule goes through the shared validator."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.sim.validate import validate_schedule
from schedlab.slurm.conf import finish_partitions, parse_conf, read_qos
from schedlab.slurm.limits import read_qos_limits
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm
from schedlab.slurm.tuning import (SiteBounds, SlurmEncoding, TuningError, apply_limits, current_values, fragment_text,
                                   knobs, merge_fragment, qos_dump_text, qos_priorities, sacctmgr_text, site_knobs,
                                   with_group_qos)
from schedlab.workload.model import Workload

#: the main scheduler at every submission and end (no batch delay), kills at the limit exactly
NOW = dict(sched_on_submit="immediate", sched_on_end="immediate", kill_check="exact", account_from="group")
TWO_PARTS = ("SchedulerType=sched/builtin\nNodeName=n1 CPUs=2\n"
             "PartitionName=a Nodes=n1 Default=YES MaxTime=60\nPartitionName=b Nodes=n1 MaxTime=60\n")


def trace(rows, procs=2) -> Workload:
    """rows: (submit, cpus, runtime s, queue 1 = a / 2 = b, user, user group); limits 10 min."""
    r = np.array(rows, dtype=float)
    n = len(rows)
    return Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=r[:, 1].astype(int),
             runtime=r[:, 2], estimate=np.full(n, 600.0), queue=r[:, 3].astype(int), user=r[:, 4].astype(int),
             group=r[:, 5].astype(int), unix_group=r[:, 5].astype(int), status=np.ones(n, int)),
        machine_procs=procs, name="case", header=(" SchedlabQueues: a=1 b=2",))


def site(conf_text: str, w: Workload):
    """(base policy, its site knobs, the current values of SPACE and of every site knob)."""
    from schedlab.slurm.tuning import SPACE

    conf = parse_conf(conf_text, "site.conf")
    base = SlurmPolicy(conf, SlurmOptions(**NOW), label="current slurm")
    extra = site_knobs(conf, SiteBounds.of(conf, [w]))
    values = current_values(conf, site=extra)
    assert set(values) == {k.name for k in (*SPACE, *extra)}
    return base, extra, values


def tuned(base, values):
    from schedlab.optimize.evolve_slurm import tuned_policy

    return tuned_policy(base, values)


def run(policy, w):
    s = simulate_slurm(w, w.machine_procs, policy)
    validate_schedule(s)
    return s


def test_a_tuned_max_jobs_per_user_holds_the_users_second_job():
    """One node of 2 CPUs; user 1 of group 1 (QOS ug1) submits two 1-CPU jobs of 100 s at 0. Without a
    limit (the site's current: none, -1) both start at 0. With ug1:MaxJobsPU = 1 the second is held
    (QOSMaxJobsPerUserLimit) while a CPU is free, and starts when the first ends: 0, 100."""
    w = with_group_qos(trace([(0, 1, 100, 1, 1, 1), (0, 1, 100, 1, 1, 1)]))
    base, _, values = site(TWO_PARTS, w)
    assert values["ug1:MaxJobsPU"] == -1
    assert run(tuned(base, values), w).start.tolist() == [0, 0]
    s = run(tuned(base, dict(values, **{"ug1:MaxJobsPU": 1})), w)
    assert s.start.tolist() == [0, 100]
    assert s.slurm.pending_reason == ("", "QOSMaxJobsPerUserLimit")


def test_a_tuned_grp_tres_cpu_holds_a_group_while_cpus_are_free():
    """One node of 4 CPUs (one partition); group 1's jobs 1 and 2 (2 CPUs, 100 s, users 1 and 2) and
    group 2's job 3 (2 CPUs, 50 s, user 3), all at 0. ug1:GrpTRES=cpu = 2 (the largest job, its lower
    bound): job 1 starts, job 2 would make group 1's 4 CPUs > 2: held (QOSGrpCpuLimit), job 3 starts.
    At 50 job 3 ends (2 CPUs free), job 2 still held; at 100 job 1 ends, job 2 starts. Starts 0, 100, 0
    (no limit: jobs 1 and 2 fill the node at 0 and job 3 waits for job 1: 0, 0, 100)."""
    conf = "SchedulerType=sched/builtin\nNodeName=n1 CPUs=4\nPartitionName=a Nodes=n1 Default=YES MaxTime=60\n"
    w = with_group_qos(trace([(0, 2, 100, 1, 1, 1), (0, 2, 100, 1, 2, 1), (0, 2, 50, 1, 3, 2)], procs=4))
    base, extra, values = site(conf, w)
    k = {x.name: x for x in extra}["ug1:GrpTRES=cpu"]
    assert (k.low, k.high) == (2, 4)
    assert run(tuned(base, values), w).start.tolist() == [0, 0, 100]
    s = run(tuned(base, dict(values, **{"ug1:GrpTRES=cpu": 2})), w)
    assert s.start.tolist() == [0, 100, 0]
    assert s.slurm.pending_reason == ("", "QOSGrpCpuLimit", "")


def test_a_tuned_priority_tier_puts_the_other_partitions_job_first():
    """Partitions a and b share node n1 (2 CPUs). Job 1 (a, 2 CPUs, 50 s) at 0 fills it; jobs 2 (a) and
    3 (b), 2 CPUs and 100 s each, wait from 10. Equal tiers and no priority weights: job 2 (older id)
    takes the node at 50, job 3 at 150. With b:PriorityTier = 2 (> a's 1) job 3 goes first: 50, then
    job 2 at 150 (job_scheduler.c sorts by partition tier before priority)."""
    w = with_group_qos(trace([(0, 2, 50, 1, 1, 1), (10, 2, 100, 1, 2, 1), (10, 2, 100, 2, 3, 1)]))
    base, _, values = site(TWO_PARTS, w)
    assert (values["a:PriorityTier"], values["b:PriorityTier"]) == (1, 1)
    assert run(tuned(base, values), w).start.tolist() == [0, 50, 150]
    assert run(tuned(base, dict(values, **{"b:PriorityTier": 2})), w).start.tolist() == [0, 150, 50]


def test_the_fragment_sacctmgr_script_and_qos_dump_round_trip_to_the_same_schedule(tmp_path):
    """Tuned b:PriorityTier=2, a:MaxTime=1440 min, a:PriorityJobFactor=7, ug1:MaxJobsPU=1 and
    ug1:GrpTRES=cpu=-1 (no limit) over a site whose QOS dump gives ug1 GrpTRES=cpu=2 and priority 5:
    the fragment carries both PartitionName lines with the tuned keys (the site's other keys kept);
    merged into the site's slurm.conf and read back, the partitions have the tuned settings; sacctmgr.sh
    sets the limits (-1 clears); qos.tuned.txt, read by --slurm-qos's readers, gives the tuned limits
    and priorities; the site's files with them simulate to the tuned policy's schedule."""
    from schedlab.slurm.limits import load_limits

    w = with_group_qos(trace([(0, 2, 50, 1, 1, 1), (10, 1, 100, 1, 2, 1), (10, 1, 100, 2, 2, 1), (10, 2, 100, 2, 3, 1)]))
    dump = tmp_path / "qos.txt"
    dump.write_text("Name|Priority|GrpTRES|MaxJobsPU\nug1|5|cpu=2|\nnormal|0||\n")
    base, extra, _ = site(TWO_PARTS, w)
    base = SlurmPolicy(base.conf, base.options, qos_priority=read_qos(dump), limits=load_limits(dump))
    chosen = knobs("b:PriorityTier,a:MaxTime,a:PriorityJobFactor,ug1:MaxJobsPU,ug1:GrpTRES=cpu", extra)
    current = current_values(base.conf, base.qos_priority, site=chosen, limits=base.limits)
    assert current["ug1:GrpTRES=cpu"] == 2 and current["ug1:MaxJobsPU"] == -1 and current["ug1"] == 5
    values = dict(current, **{"b:PriorityTier": 2, "a:MaxTime": 1440, "a:PriorityJobFactor": 7, "ug1:MaxJobsPU": 1,
                              "ug1:GrpTRES=cpu": -1})
    fragment = fragment_text(values, TWO_PARTS)
    assert "PartitionName=a Nodes=n1 Default=YES PriorityJobFactor=7 MaxTime=1-00:00:00\n" in fragment
    assert "PartitionName=b Nodes=n1 MaxTime=60 PriorityTier=2\n" in fragment
    conf = parse_conf(merge_fragment(TWO_PARTS, fragment), "merged")
    finish_partitions(conf, None, 1)  # (as a run resolves the PartitionName lines against the nodes)
    parts = {p.name: p for p in conf.partitions}
    assert (parts["a"].max_time, parts["a"].job_factor, parts["a"].tier) == (86400.0, 7, 1)
    assert (parts["b"].max_time, parts["b"].tier) == (3600.0, 2)
    script = sacctmgr_text(values)
    assert "sacctmgr -i modify qos where name=ug1 set MaxJobsPU=1 GrpTRES=cpu=-1\n" in script
    assert "name=ug2 set MaxJobsPU" not in script  # (only the tuned QOS)
    tuned_limits = apply_limits(base.limits, values)
    text = qos_dump_text({**base.qos_priority, **qos_priorities(values)}, tuned_limits)
    (tmp_path / "qos.tuned.txt").write_text(text)
    back = read_qos_limits(tmp_path / "qos.tuned.txt")
    assert back["ug1"].max_jobs == 1 and back["ug1"].grp_tres == {}
    assert {q: L for q, L in back.items() if L.any()} == {q: L for q, L in tuned_limits.qos.items() if L.any()}
    assert read_qos(tmp_path / "qos.tuned.txt")["ug1"] == 5
    from_files = SlurmPolicy(conf, base.options, qos_priority=read_qos(tmp_path / "qos.tuned.txt"),
                             limits=load_limits(tmp_path / "qos.tuned.txt"))
    want = run(tuned(base, values), w)
    got = run(from_files, w)
    assert got.start.tolist() == want.start.tolist()
    # (hand-worked: job 1 fills n1 to 50; b's tier 2 puts jobs 3 (b, 1 CPU, user 2) and 4 (b, 2 CPUs) first:
    # at 50 job 3 starts, job 4 does not fit and stops partition b; job 2 (a, user 2) is held by MaxJobsPU=1
    # (user 2 runs job 3); at 150 job 3 ends: job 4 (tier 2) first, job 2 at 250)
    assert want.start.tolist() == [0, 250, 50, 150]


def test_the_bounds_keep_every_job_runnable_and_names_are_checked():
    """The largest job (2 CPUs here) is every CPU limit's lower bound, the machine's CPUs (4) its upper;
    MaxTime's lower bound is the longest job's limit or runtime (700 s -> 12 min); a GPU limit exists
    only on a machine with GPUs; the upper bound decodes to -1 (no limit); an unknown name lists the
    site's knobs."""
    conf = parse_conf("NodeName=n1 CPUs=4\nPartitionName=a Nodes=n1 Default=YES MaxTime=60\n", "s.conf")
    w = trace([(0, 2, 700, 1, 1, 1), (0, 1, 10, 1, 1, 1)], procs=4)
    bounds = SiteBounds.of(conf, [w])
    assert (bounds.cpus, bounds.gpus, bounds.largest_cpus, bounds.longest_minutes) == (4, 0, 2, 12)
    extra = {k.name: k for k in site_knobs(conf, bounds)}
    assert extra["a:MaxTime"].low == 12 and "ug1:GrpTRES=gres/gpu" not in extra
    k = extra["ug1:MaxTRESPU=cpu"]
    enc = SlurmEncoding((k,), ())
    assert enc.decode(enc.upper)[k.name] == -1 and enc.decode(enc.lower)[k.name] == 2
    assert enc.decode(enc.encode({k.name: -1})) == {k.name: -1}
    with pytest.raises(TuningError, match="unknown parameter 'c:MaxTime'.*of this site: .*a:MaxTime"):
        knobs("c:MaxTime", tuple(extra.values()))
    assert knobs("a:MaxTime") == ()  # (the form is checked before the site is read)


def test_a_short_evolve_slurm_run_on_the_gpu_cluster_workload_writes_the_tuned_limits(tmp_path):
    """`evolve slurm` on a generated gpu-cluster workload (300 jobs) searching the GPU partition's tier
    and ug1/ug2's QOS limits: the run's fragment carries the PartitionName lines, sacctmgr.sh the QOS
    limit lines, qos.tuned.txt the same limits as best.json, and config.json the knobs' bounds."""
    import json

    from schedlab.cli.main import main
    from schedlab.optimize.evolve_slurm import SlurmTuneConfig, evolve_slurm

    swf, conf = tmp_path / "gpu.swf", tmp_path / "gpu.conf"
    assert main(["workload", "generate", "gpu-cluster", "--jobs", "300", "--seed", "3", "-o", str(swf),
                 "--slurm-conf-out", str(conf)]) == 0
    params = "gpu:PriorityTier,ug1:MaxJobsPU,ug1:GrpTRES=gres/gpu,ug2:GrpTRES=cpu"
    cfg = SlurmTuneConfig(traces=(str(swf),), slurm_conf=str(conf), params=params, generations=1, mu=2, lam=2, seed=4)
    result = evolve_slurm(cfg, tmp_path / "run", workers=1)
    out = result.run_dir
    assert "PartitionName=gpu" in (out / "slurm.conf.fragment").read_text()
    limits = read_qos_limits(out / "qos.tuned.txt")
    v = result.values
    assert limits.get("ug1") is not None and limits["ug1"].max_jobs == (None if v["ug1:MaxJobsPU"] < 0 else v["ug1:MaxJobsPU"])
    assert "sacctmgr -i modify qos where name=ug1 set MaxJobsPU=" in (out / "sacctmgr.sh").read_text()
    space = {row[0]: row[1:] for row in json.loads((out / "config.json").read_text())["space"]}
    assert space["ug1:GrpTRES=gres/gpu"][1] == 16 and "ug3:MaxJobsPU" not in space
    # report.md: the utilisation per resource of the current and tuned configurations, as simulated
    from schedlab.metrics.resources import resource_utilisation
    from schedlab.optimize.evolve_slurm import prepare, tuned_policy

    setup = prepare(cfg)
    (w,), (m,) = setup.payload.training.workloads, setup.payload.training.machines
    s = run(tuned_policy(setup.base, v), w)
    util = resource_utilisation(s)
    assert set(util) == {"CPU_UTIL", "GPU_UTIL", "MEM_UTIL"}
    row = f"| {w.name} | tuned | {util['CPU_UTIL']:.2f} | {util['GPU_UTIL']:.2f} | {util['MEM_UTIL']:.2f} |"
    assert row in (out / "report.md").read_text()
