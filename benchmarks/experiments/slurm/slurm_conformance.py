"""--policy slurm against a real slurmctld (issue 37, item 3): job lists run on the harness
(schedlab.slurm.harness, one 4-CPU node on 127.0.0.1) and through the simulator with the same
slurm.conf; writes a report of the starts that match within the backfill interval.

Cases: the three of the marked tests (schedlab.slurm.conformance, asserted by tests/test_slurm_harness.py
and tests/test_slurm_policy.py: backfill and the stop rule, whole-node reservations, size and partition weights) and ``--random``
seeded job lists of ``--jobs`` jobs (1-4 CPUs, 2-12 s, limits of 1-2 minutes, three partitions,
two accounts, submissions in the first 10 s) under the first cases' slurm.conf. A start matches when the simulated one is within
``max(bf_interval, 1) + 1`` s of the real one (the spec's tolerance, section 7). A job that is
off in absolute time but within the tolerance counted from the previous start (in the real
order) is explained as the real Slurm's lag (0-1 s after each submission and job end) adding up
along a chain of jobs waiting for each other; any other mismatch is listed as "unexplained"::

    python benchmarks/experiments/slurm/slurm_conformance.py --random 2 --jobs 8 --out docs/results/slurm-conformance.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def random_case(seed: int, n: int):
    from schedlab.slurm.harness import SlurmJob

    rng = random.Random(seed)
    return [SlurmJob(cpus=rng.randint(1, 4), runtime=rng.randint(2, 12), limit=rng.randint(1, 2),
                     submit=float(rng.randint(0, 10)), partition=rng.choice(["batch", "short", "long"]),
                     account=rng.choice(["physics", "chem"])) for _ in range(n)]


def cases(n_random: int, n_jobs: int, seed: int):
    """(name, jobs, conf for the harness, conf for the simulator)."""
    from schedlab.slurm.conformance import BACKFILL_CASE, CONF, NODE_CASE, PRIO_CONF, prio_case

    node = "NodeName=sl1 CPUs=4\n"  # the harness drops (and lists) node lines; the simulator reads them
    out = [("backfill and stop rule (spec section 7)", BACKFILL_CASE, CONF, CONF + node),
           ("whole-node reservation (spec section 7)", NODE_CASE, CONF, CONF + node),
           ("size and partition weights", prio_case(), PRIO_CONF, PRIO_CONF)]
    for k in range(n_random):  # the first cases' configuration: FIFO-like multifactor, backfill every second
        out.append((f"random, seed {seed + k}", random_case(seed + k, n_jobs), CONF, CONF + node))
    return out


# ---------------------------------------------------------------- issue 44: 16-CPU cases with slurmdbd
BASE44 = """SchedulerType=sched/backfill
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityMaxAge=0-0:02
PartitionName=batch Default=YES MaxTime=10 State=UP
"""
NODE16 = "NodeName=sl1 CPUs=16\n"
#: the harness ran slurmdbd, so the simulator reads the age and fair-share weights as live
DBD_LINE = "AccountingStorageType=accounting_storage/slurmdbd\n"  # the simulator's node (the harness has its own, and drops this line)
TIERS = """PartitionName=low Default=YES MaxTime=10 PriorityTier=1 PriorityJobFactor=1 State=UP
PartitionName=mid MaxTime=10 PriorityTier=1 PriorityJobFactor=10 State=UP
PartitionName=high MaxTime=10 PriorityTier=2 PriorityJobFactor=1 State=UP
"""
#: (name, slurm.conf excerpt, partitions, seed): the settings issue 44 names, each in a case of 32 jobs
SETTINGS44 = [
    ("favour small, bursts behind a wide job", BASE44 + "SchedulerParameters=bf_interval=5\nPriorityFavorSmall=YES\n"
     "PriorityWeightJobSize=1000\n", ("batch",), 11),
    ("small bf_max_job_test and bf_window", BASE44 + "SchedulerParameters=bf_interval=5,bf_max_job_test=3,bf_window=2\n"
     "PriorityWeightJobSize=1000\n", ("batch",), 12),
    ("age over job size, slurmdbd", BASE44 + "SchedulerParameters=bf_interval=5\nPriorityWeightAge=1000\n"
     "PriorityWeightJobSize=100\n", ("batch",), 13),
    ("site defaults bf_interval=30, bf_continue", BASE44 + "SchedulerParameters=bf_continue\n"
     "PriorityWeightAge=100\nPriorityWeightJobSize=100\n", ("batch",), 14),
    ("site defaults bf_interval=30, bf_continue, second list", BASE44 + "SchedulerParameters=bf_continue\n"
     "PriorityWeightAge=100\nPriorityWeightJobSize=100\n", ("batch",), 15),
    ("three partitions, tiers and job factors", BASE44.replace("PartitionName=batch Default=YES MaxTime=10 State=UP\n", TIERS)
     + "SchedulerParameters=bf_interval=5\nPriorityWeightPartition=1000\nPriorityWeightJobSize=100\n",
     ("low", "mid", "high"), 16),
    ("fair-share between two accounts, slurmdbd", BASE44 + "SchedulerParameters=bf_interval=5\nPriorityWeightFairshare=1000\n"
     "PriorityWeightJobSize=100\n", ("batch",), 17),
    ("age and favour small, bf_interval=30, bf_max_job_test=5", BASE44 + "SchedulerParameters=bf_continue,bf_max_job_test=5\n"
     "PriorityFavorSmall=YES\nPriorityWeightAge=1000\nPriorityWeightJobSize=500\n", ("batch",), 18),
]


def case44(seed: int, partitions, n: int = 32):
    """A wide job first, then bursts of small and medium jobs (1-16 CPUs of 16, 3-20 s, limits 1-2 min)
    in the first 20 s, on ``partitions``, two accounts."""
    from schedlab.slurm.harness import SlurmJob

    rng = random.Random(seed)
    jobs = [SlurmJob(cpus=rng.randint(12, 16), runtime=rng.randint(10, 20), limit=1, submit=0.0,
                     partition=partitions[0], account="physics")]
    for _ in range(n - 1):
        wide = rng.random() < 0.15
        jobs.append(SlurmJob(cpus=rng.randint(8, 16) if wide else rng.randint(1, 6), runtime=rng.randint(3, 20),
                             limit=rng.randint(1, 2), submit=float(rng.choice([1, 2, 2, 5, 8, 8, 8, 12, 15, 20])),
                             partition=rng.choice(partitions), account=rng.choice(["physics", "chem"])))
    return jobs


def record44(folder: str, only: str = "") -> int:
    """Run every SETTINGS44 case on a fresh 16-CPU harness with slurmdbd (controller settled before
    the first submission), and save each (schedlab.slurm.harness.save_case) in ``folder``."""
    from schedlab.slurm.harness import SlurmCluster, dbd_unavailable, save_case

    reason = dbd_unavailable()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so a stopped recording shuts its cluster down
    Path(folder).mkdir(parents=True, exist_ok=True)
    for k, (name, conf, parts, seed) in enumerate(SETTINGS44):
        if only and str(k) not in only.split(","):
            continue
        jobs = case44(seed, parts)
        with SlurmCluster(conf=conf, cpus=16, dbd=True, start_timeout=120) as cluster:
            time.sleep(SETTLE)
            result = cluster.run(jobs)
        save_case(Path(folder) / f"case{k}.json", name, jobs, DBD_LINE + conf + NODE16, result, cpus=16)
        print(f"case {k} ({name}) recorded", flush=True)
    return 0


# ---------------------------------------------------------------- issue 47: resource cases (GPUs, memory, limits)
#: the harness' node for the resource cases, as the simulator reads it (the harness writes its own
#: node line from ``NODE47``): 16 CPUs, 64,000 MB, 4 GPUs as GRES, memory consumable
NODE47 = dict(cpus=16, memory=64000, gpus=4, select_params="CR_CPU_Memory")
SIM_NODE47 = ("SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU_Memory\nGresTypes=gpu\n"
              "NodeName=sl1 CPUs=16 RealMemory=64000 Gres=gpu:4\n")
BASE47 = BASE44 + "SchedulerParameters=bf_interval=5\nPriorityWeightJobSize=100\nDefMemPerCPU=2000\n"
#: local users the limit cases submit as (``sbatch --uid``); created with useradd when missing
USERS47 = ("sl47a", "sl47b", "sl47c")
#: (name, slurm.conf excerpt, job kind, seed, sacctmgr steps): the behaviours issue 47 item 5 names
SETTINGS47 = [
    ("GPU jobs held while CPUs are free", BASE47, "gpu", 21, ()),
    ("memory-bound node (CR_CPU_Memory, DefMemPerCPU=2000)", BASE47, "mem", 22, ()),
    ("exclusive jobs beside shared ones", BASE47, "excl", 23, ()),
    ("users at QOS MaxJobsPerUser=2", BASE47, "users", 24, (("modify", "qos", "normal", "set", "MaxJobsPerUser=2"),)),
    ("account at GrpTRES cpu=8", BASE47, "grp", 25, (("modify", "account", "physics", "set", "GrpTRES=cpu=8"),)),
    ("backfill around a GPU reservation", BASE47, "bfgpu", 26, ()),
]


def case47(seed: int, kind: str, n: int = 28):
    """A job list of ``n`` short jobs (3-20 s, limits of 1-2 min, submitted in the first 20 s) on the
    16-CPU, 64 GB, 4-GPU node, shaped by ``kind``: 'gpu' (a third ask for 1-4 GPUs with few CPUs),
    'mem' (most ask for 8-32 GB), 'excl' (a fifth --exclusive), 'users' and 'grp' (three users, two
    accounts, CPU jobs), 'bfgpu' (GPU jobs, a 4-GPU job among them, small CPU and memory jobs)."""
    from schedlab.slurm.harness import SlurmJob

    rng = random.Random(seed)
    jobs = []
    for k in range(n):
        submit = 0.0 if k == 0 else float(rng.choice([1, 2, 2, 5, 8, 8, 8, 12, 15, 20]))
        runtime, limit = rng.randint(3, 20), rng.randint(1, 2)
        cpus, extra = rng.randint(1, 6), {}
        user = rng.choice(USERS47)
        account = rng.choice(["physics", "chem"])
        if kind == "gpu" and (k == 0 or rng.random() < 0.4):
            cpus, extra = rng.randint(1, 4), dict(gpus=rng.randint(1, 4))
        elif kind == "mem" and rng.random() < 0.7:
            cpus, extra = rng.randint(1, 4), dict(mem=rng.choice([8000, 12000, 16000, 24000, 32000]))
        elif kind == "excl" and (k == 0 or rng.random() < 0.2):
            cpus, extra = rng.randint(1, 4), dict(exclusive=True)
        elif kind == "users":
            user = USERS47[0] if rng.random() < 0.5 else user  # one user submits half the jobs
            cpus = rng.randint(1, 4)
        elif kind == "grp":
            account = "physics" if rng.random() < 0.6 else "chem"
        elif kind == "bfgpu":
            r = rng.random()
            if k == 0 or r < 0.3:
                cpus, extra = rng.randint(1, 4), dict(gpus=rng.choice([1, 2, 2, 4]))
            elif r < 0.5:
                cpus, extra = rng.randint(1, 2), dict(mem=rng.choice([4000, 8000, 16000]))
            else:
                cpus = rng.randint(1, 3)
        jobs.append(SlurmJob(cpus=cpus, runtime=runtime, limit=limit, submit=submit, account=account,
                             user=user, **extra))
    return jobs


def record47(folder: str, only: str = "") -> int:
    """Run every SETTINGS47 case on a fresh harness node of NODE47 with slurmdbd, the users of
    USERS47 (created with useradd when missing) and the case's sacctmgr limits, and save each
    (schedlab.slurm.harness.save_case, with the sacctmgr QOS and association dumps) in ``folder``."""
    import pwd
    import subprocess

    from schedlab.slurm.harness import SlurmCluster, dbd_unavailable, save_case

    reason = dbd_unavailable()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    for user in USERS47:
        try:
            pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", user], check=True)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    Path(folder).mkdir(parents=True, exist_ok=True)
    for k, (name, conf, kind, seed, steps) in enumerate(SETTINGS47):
        if only and str(k) not in only.split(","):
            continue
        jobs = case47(seed, kind)
        with SlurmCluster(conf=conf, dbd=True, start_timeout=120, users=USERS47, sacctmgr=steps, **NODE47) as cluster:
            time.sleep(SETTLE)
            result = cluster.run(jobs)
        save_case(Path(folder) / f"case{k}.json", name, jobs, DBD_LINE + conf + SIM_NODE47, result, cpus=NODE47["cpus"])
        print(f"case {k} ({name}) recorded", flush=True)
    return 0


def recorded_paths(folder: str) -> list[Path]:
    """The recorded cases (case*.json) of ``folder`` in case order; [] after an ``error:`` line when none."""
    paths = sorted(Path(folder).glob("case*.json"), key=lambda q: int(q.stem[4:]))
    if not paths:
        print(f"error: {folder}: no recorded cases (case*.json)", file=sys.stderr)
    return paths


#: the readings scored for the resource cases: (label, limits read, memory and GPUs modelled, named
#: options, --exclusive read from AllocTRES); the first is Slurm's, the second the reading before this
#: stop (issue 47, item 5), the others each switch one thing off (a mismatch is explained by the first
#: under which it matches)
VARIANTS47 = [
    ("Slurm's readings", True, True, "", True),
    ("before item 5 (will-run batches as on the CPU path, whole-node jobs unread)", True, True,
     "resource_will_run=as-cpu", False),
    ("whole-node jobs' size from the node (exclusive_size=node, as after Slurm's first recalculation)", True, True,
     "exclusive_size=node", True),
    ("issue 44 behaviour 1 off: main run at once after a job end (sched_on_end=immediate)", True, True,
     "sched_on_end=immediate", True),
    ("issue 44 behaviour 3 off: cycles not anchored at the controller's start (controller_start=settled)", True, True,
     "controller_start=settled", True),
    ("off: will-run batches on the 30-s Unix barrier (resource_will_run=as-cpu)", True, True, "resource_will_run=as-cpu", True),
    ("off: whole-node jobs read from AllocTRES", True, True, "", False),
    ("off: limits (no --slurm-qos/--slurm-assoc)", False, True, "", True),
    ("off: memory and GPUs (CR_CPU, no Gres)", True, False, "", True),
    ("CPUs only, no limits (before issue 47)", False, False, "resource_will_run=as-cpu", False),
]


#: what the resource cases show and where the remaining mismatches come from (issue 47, item 5); the
#: figures are those of the tables below, input ``ctld-ms``
ANALYSIS47 = """## Summary (input `--runtimes ctld-ms`, the reading the CPU-only cases reach 87 % with)

**117 of 168 starts (70 %) match, below the >= 90 % the issue asks.** The behaviours the cases were
built for match: GPU jobs held while CPUs are free (case0, 28/28), users at QOS MaxJobsPerUser=2
(case3, 28/28) and backfill around a GPU job's reservation (case5, 27/28). Without the memory and GPU
model (CR_CPU, no Gres) these give 14, 28 and 19; without the limits case3 and case4 give 4 and 2; the
reading before issue 47 (CPUs only, no limits) gives 51/168 (30 %; the issue's own try: 22 %).

Fixed in this step, each from the source at slurm-22-05-8-1 (before -> after in the first two rows):
- will-run batches (`job_test.c _will_run_test`): the first expected end is moved up to the next 30-s
  barrier of Unix time and that barrier stays the base of every batch; the resource path grouped each
  batch from its own first end. In case0 a GPU job ending at 10:12:30 and two ending at 10:13:26 are
  one batch, so the job waiting for GPUs is reserved from 10:13:26 and three jobs ending by 10:13:00
  backfill, as slurmctld started them: case0 25 -> 28 (`resource_will_run`, default `barrier-30s`).
- whole-node jobs: sacct records no `--exclusive`, but an exclusive job's AllocTRES holds every GPU
  of the node beyond its ReqTRES (`cpu=4` -> `cpu=16,gres/gpu=4`): read as exclusive; its job-size
  factor reads the CPUs it asked for (InitPrio=62 for a 4-CPU `--exclusive` job, not 100): case2 7 -> 10.

Remaining mismatches (the mismatch lists below name, per job, the reading under which it matches):
- case1, memory-bound (9/28): the node holds two or three of these jobs at a time, so they start as a
  chain, each when one ends. slurmctld started the next job sometimes 25 ms after an end (JobId=8 done
  51.813, JobId=11 allocated 51.838: schedule() from the epilog-complete RPC) and sometimes 1-2 s
  later (JobId=11 done 06.931, JobId=20 allocated 08.796). The simulator's reading of issue 44
  (behaviour 1, `sched_on_end=tick-after-batch-delay`) waits up to batch_sched_delay (3 s) and runs
  late; `sched_on_end=immediate` runs early (16/28), by up to a second per link. Counted from the
  previous start 19 of 28 match: ten of the 19 mismatches are that drift along the chain. Not a
  resource behaviour: the end-to-next-start delay of issue 44's follow-up.
- case2, exclusive (10/28): a pending exclusive job's size factor changes while it waits.
  `priority_multifactor.c` reads `total_cpus` once set, and a successful will-run test by backfill sets
  it to the whole node's CPUs (`cons_common/job_test.c _job_test`, `whole_node == 1`); from the next
  recalculation (PriorityCalcPeriod=1 min) the job has the 16-CPU size: the exclusive JobIds 6, 22, 24
  and 28 (2, 2, 1 and 4 CPUs asked) started one after the other before the 4-CPU shared jobs
  submitted before them. schedlab's size factor is one value per job: `exclusive_size=request`
  (default, as at submission: 10/28) or `node` (as after the switch: 7/28). Modelling the switch needs
  each job's first successful backfill test and a recalculation of the static priority: not built.
- case4, GrpTRES cpu=8 (15/28): the jobs held at AssocGrpCpuLimit start in Slurm's order once CPUs
  of the account free, but which job gets the freed CPUs depends on whether the main scheduler or a
  backfill pass comes first. slurmctld's backfill passes fall on a 5-s grid from the controller's
  start (every logged pass of the six cases is at 0.00-0.04 s past it, or 1-3 s when a pass was
  skipped), as if its first pass ran at the controller's start + bf_interval with nothing pending;
  the simulator's first pass comes at the first tick after a submission, a second or more off that
  grid. Taking the first pass at the controller's start + bf_interval (a trial, not kept) gives case4
  28/28 but case5 12/28 and case0 25/28 (115 in all): another effect is tied to it, so it needs its
  own issue (issue 44's backfill timing), with slurmctld's backfill debug log to see every pass.

Input `sacct` (whole seconds, 62 %): each run time is Elapsed, the floor of the end minus the floor
of the start, about 0.5 s shorter than the time the job held its resources; on a node kept full by
GPUs or memory the jobs run as chains and the shortfall adds up (case0: up to 13 s early).
"""


def cpu_only_conf(conf: str) -> str:
    """``conf`` with memory and GPUs not consumable: CR_CPU, the node line without Gres/RealMemory."""
    return (conf.replace("SelectTypeParameters=CR_CPU_Memory", "SelectTypeParameters=CR_CPU")
            .replace(" RealMemory=64000", "").replace(" Gres=gpu:4", ""))


def score47(folder: str, out: str, argv, runtimes: str = "sacct,ctld-ms", options: str = "") -> int:
    """Score the recorded issue-47 resource cases in ``folder`` (offline): each case's own sacct lines
    read back as `workload convert --from sacct` reads them, its sacctmgr QOS/association dumps as
    --slurm-qos/--slurm-assoc, timed in each reading of ``runtimes``; a start matches within
    max(bf_interval, 5) s of the real one (the issue-44 measure). Each VARIANTS47 reading beside
    Slurm's; per-job errors; every mismatch listed with the reading under which it matches."""
    import numpy as np

    from schedlab.errors import SchedlabError
    from schedlab.slurm.conformance import RUNTIMES, case_tolerance, end_to_start_lags, simulate_sacct_case
    from schedlab.slurm.harness import load_case

    paths, readings = recorded_paths(folder), [r.strip() for r in runtimes.split(",") if r.strip()]
    if not paths:
        return 2
    try:
        loaded = [load_case(q) for q in paths]
        body, lines = [], []
        for rd in readings:
            table = {v[0]: [] for v in VARIANTS47}
            errs_all, rel_all, lags, sim_lags = [], [], [], []
            lines = []
            for (name, jobs, conf, result, cpus), path in zip(loaded, paths):
                tol = case_tolerance(conf)
                off = {}
                for label, lim, res, opts, excl in VARIANTS47:
                    more = ",".join(filter(None, [options, opts]))
                    sched, sim, real = simulate_sacct_case(result, conf if res else cpu_only_conf(conf), rd, more,
                                                           limits=lim, source=str(path), exclusive_from_log=excl)
                    err = sim - np.asarray(real.start, float)
                    if label == VARIANTS47[0][0]:
                        where = {int(j): k for k, j in enumerate(sched.workload.id)}
                        fin = np.asarray(sched.finish, float)[[where[int(j)] for j in result.job_id]]
                        lags += end_to_start_lags(real.submit, real.start, real.end).tolist()
                        sim_lags += end_to_start_lags(real.submit, sim, fin).tolist()
                    off[label] = {int(j) for j in np.flatnonzero(np.abs(err) > tol)}
                    table[label].append((len(jobs) - len(off[label]), len(jobs), err))
                main = VARIANTS47[0][0]
                err = table[main][-1][2]
                errs_all.append(err)
                r0 = np.asarray(real.start, float) - float(np.min(real.submit))
                s0 = r0 + err
                # counted from the previous start in the real order (takes out the chain of the real
                # controller's end-to-start delays, as the CPU cases' reports do)
                order = np.lexsort((np.arange(len(r0)), r0))
                dr, ds = np.diff(np.concatenate([[0.0], r0[order]])), np.diff(np.concatenate([[0.0], s0[order]]))
                rel_off = {int(order[k]) for k in range(len(order)) if abs(dr[k] - ds[k]) > tol}
                rel_all.append((len(jobs) - len(rel_off), len(jobs)))
                lines.append(f"\n### {path.name}: {name} (tolerance {tol:g} s)\n")
                lines.append(f"real starts: {[round(float(x), 1) for x in r0]}  ")
                lines.append(f"simulated:   {[round(float(x), 1) for x in s0]}\n")
                lines.append(f"per-job error (simulated - real): mean {err.mean():+.2f} s, mean absolute "
                             f"{np.abs(err).mean():.2f} s, max absolute {np.abs(err).max():.2f} s\n")
                for j in sorted(off[main]):
                    other = [v[0] for v in VARIANTS47[2:] if j not in off[v[0]]]
                    why = (f"matches under '{other[0]}'" if other else
                           "lag: within the tolerance counted from the previous start (the controller's delays from a "
                           "job's end to the next start, adding up along a chain)" if j not in rel_off else
                           "unexplained by these readings")
                    lines.append(f"- job {j} (JobId={int(result.job_id[j])}, {_describe(jobs[j])}): real {r0[j]:.3f} s, "
                                 f"simulated {s0[j]:.3f} s, error {err[j]:+.3f} s: {why}")
                if not off[main]:
                    lines.append("- every start within the tolerance")
            rows = ["| reading | " + " | ".join(f"case{q.stem[4:]}" for q in paths) + " | all |",
                    "|" + "---|" * (len(paths) + 2)]
            for label, cells in table.items():
                hit, n = sum(c[0] for c in cells), sum(c[1] for c in cells)
                rows.append(f"| {label} | " + " | ".join(f"{c[0]}/{c[1]}" for c in cells) + f" | {hit}/{n} ({hit / n:.0%}) |")
            e = np.concatenate(errs_all)
            rh, rn = sum(c[0] for c in rel_all), sum(c[1] for c in rel_all)
            la, sl = np.array(lags), np.array(sim_lags)
            body += [f"## Input `--runtimes {rd}`: starts within the tolerance per case", "", f"{RUNTIMES[rd]}.", "", *rows, "",
                     f"Per-job error with Slurm's readings (simulated - real start, {e.size} jobs): mean {e.mean():+.2f} s, "
                     f"median {np.median(e):+.2f} s, mean absolute {np.abs(e).mean():.2f} s, 90th percentile of the "
                     f"absolute {np.percentile(np.abs(e), 90):.2f} s, max absolute {np.abs(e).max():.2f} s.", "",
                     f"Counted from the previous start in the real order: {rh} of {rn} ({rh / rn:.0%}) within the tolerance "
                     "(per case: " + ", ".join(f"{a}/{b}" for a, b in rel_all) + ").", "",
                     "The controller's lag from a job's end to a start that followed it (the latest end at most 5 s before "
                     "a waiting job's start): " + (f"real mean {la.mean():.3f} s, median {np.median(la):.3f} s over {la.size} "
                     f"starts; simulated mean {sl.mean():.3f} s, median {np.median(sl):.3f} s over {sl.size}."
                     if la.size and sl.size else "none found."), "",
                     f"### Mismatches and per-job errors (`--runtimes {rd}`, Slurm's readings)", *lines, ""]
    except SchedlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cmd = " ".join(["python", "benchmarks/experiments/slurm/slurm_conformance.py", *argv])
    names = [f"- case{q.stem[4:]}: {c[0]} ({len(c[1])} jobs)" for q, c in zip(paths, loaded)]
    text = "\n".join([
        "# --policy slurm against a real slurmctld 22.05 with slurmdbd (issue 47): resource cases", "",
        f"Written by `{cmd}` on {dt.date.today().isoformat()} from the recordings in `{folder}` "
        "(re-scored offline; recorded by `--record47`).",
        "One node of 16 CPUs, 64,000 MB and 4 GPUs (GRES on placeholder device files), CR_CPU_Memory,",
        "DefMemPerCPU=2000, slurmdbd with AccountingStorageEnforce=associations,limits,qos. Each case's jobs are",
        "read back from its own `sacct` lines as `workload convert --from sacct` reads them (CPUs, ReqMem,",
        "ReqTRES gres/gpu, user, account, QOS), with the `sacctmgr -P show qos` / `show assoc` dumps the run",
        "had as `--slurm-qos` / `--slurm-assoc`, the case's anchors and slurm.conf; a start matches when it is",
        "within max(bf_interval, 5) s of the real one (the measure of the CPU-only cases, issue 44).", "",
        "Recorded by `python benchmarks/experiments/slurm/slurm_conformance.py --record47 DIR` (about 3 min a case;",
        "the committed files were recorded into a temporary folder and copied).", "",
        "Cases:", *names, "", ANALYSIS47, *body,
    ])
    return publish(out, text)


def _describe(job) -> str:
    """A job's request, as sbatch was given it."""
    parts = [f"{job.cpus} CPUs"]
    if job.mem is not None:
        parts.append(f"{job.mem} MB")
    if job.gpus:
        parts.append(f"{job.gpus} GPUs")
    if job.exclusive:
        parts.append("exclusive")
    if job.user:
        parts.append(f"user {job.user}")
    return ", ".join(parts)


#: each issue-44 behaviour switched back to the reading before it (the "before" of the before/after table)
BEHAVIOURS44 = {
    "1 main run after a job end waits for the tick": "sched_on_end=immediate",
    "2 bf_resolution on Unix time": "bf_resolution_on=trace",
    "3 cycles anchored at the controller's start": "controller_start=settled",
    "4 future reservations (_test_resv_overlap)": "resv_overlap=exact",
    "5 node_space table of bf_node_space_size": "node_space_limit=none",
    "6 priorities on the decay thread's own grid": "decay_start=controller",
    "7 fair-share usage on time_t seconds": "usage_clock=exact",
    "8 main scheduler's ticks from after the priority plugin's start": "loop_start=controller",
    "9 a backfill pass re-estimates pending jobs (next pass due)": "bf_pass_updates=none",
    "10 a job's end charges no usage without AccountingStorageEnforce=limits": "usage_at_end=always",
    "11 a backfill pass falls due with no job pending": "bf_idle_passes=skip",
}
#: sub-second shifts tried for item 6: each submission moved this far within its recorded second
SUBSECOND = (0.25, 0.5, 0.75)
#: ... and each run time lengthened this much within the seconds its record floors
SUBSECOND_RUN = (0.5, 0.9)


def same_order_up_to_ties(real, sim) -> bool:
    """Whether the simulated start order is the real one, jobs the real Slurm started in the same
    whole second taken in either order (its records cannot order them)."""
    import numpy as np

    r = np.floor(np.asarray(real.start, float))
    s = np.asarray(sim.start, float)
    return bool(np.array_equal(np.lexsort((s, r)), np.lexsort((np.arange(len(s)), s))))


def score44(folder: str, out: str, argv, runtimes: str = "sacct") -> int:
    """Score every recorded case in ``folder`` (offline) under each input reading in ``runtimes``
    (comma-separated names of schedlab.slurm.conformance.RUNTIMES; 'sacct': each job with the
    submit and run time the real Slurm recorded in whole seconds, its sacct/jobcomp record;
    'ctld-ms': to the millisecond from slurmctld's log, the time the job held its CPUs), the case's
    anchors (unix_start = the first submission's epoch second, controller_start and decay_start from
    slurmctld's log); a start matches within max(bf_interval, 5) s of the real start in the same reading. Then
    each behaviour switched off, all of them off; for the whole-second reading the sub-second
    shifts (item 6). The mismatches are listed for the last reading."""
    import numpy as np

    from dataclasses import replace as _replace

    from schedlab.slurm.conformance import (RECORDED_READINGS, RUNTIMES, case_tolerance, compare, end_to_start_lags,
                                            recorded_case, same_order_ms, simulate_recorded)
    from schedlab.slurm.harness import SlurmHarnessError, load_case

    paths, readings = recorded_paths(folder), [r.strip() for r in runtimes.split(",") if r.strip()]
    if not paths:
        return 2
    try:
        loaded = [load_case(q) for q in paths]
        inputs = {rd: [recorded_case(c[1], c[3], rd, source=str(q)) for c, q in zip(loaded, paths)] for rd in readings}
    except SlurmHarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def sim(rec, result, conf, cpus, text="", shift=0.0, longer=0.0):
        if shift or longer:
            rec = [_replace(j, submit=j.submit + shift, runtime=j.runtime + longer) for j in rec]
        return simulate_recorded(rec, result, conf, cpus, text)

    variants = {"Slurm's readings (all on)": "", **{f"off: {k}": v for k, v in BEHAVIOURS44.items()},
                "all off (the readings before issue 44)": ",".join(BEHAVIOURS44.values())}
    sections = []
    for rd in readings:
        table = {v: [] for v in variants}
        lines = []
        tot = {"n": 0, "sub_explained": 0, "miss": 0, "rel": 0, "lag": 0, "run_explained": 0, "vs_sacct": 0,
               "lags": [], "sim_lags": []}
        for (name, jobs, conf, result, cpus), path, (rec, real) in zip(loaded, paths, inputs[rd]):
            tol = case_tolerance(conf)
            missed = {}  # per reading, the jobs off by more than the tolerance
            for label, text in variants.items():
                sv = sim(rec, result, conf, cpus, text)
                a, _, o = compare(real, sv, tol)
                table[label].append((len(jobs) - len(a), len(jobs), o, same_order_up_to_ties(real, sv), same_order_ms(real, sv)))
                missed[text] = {j for j, _, _ in a}
            base = sim(rec, result, conf, cpus)
            a, rel, o = compare(real, base, tol)
            off, off_rel = {j for j, _, _ in a}, {j for j, _, _ in rel}
            tot["rel"] += len(jobs) - len(rel)
            tot["lag"] += len(off - off_rel)
            # the same simulated starts against sacct's whole-second starts (one reference for every reading)
            tot["vs_sacct"] += int(np.sum(np.abs(base.start - result.start) <= tol))
            tot["lags"] += end_to_start_lags(real.submit, real.start, real.end).tolist()
            tot["sim_lags"] += end_to_start_lags(base.workload.submit, base.start, base.finish).tolist()
            rescued, longer = set(), set()
            if rd == "sacct":
                # item 6: a mismatch that some sub-second placement of the submissions matches
                for sh in SUBSECOND:
                    a2, _, _ = compare(real, sim(rec, result, conf, cpus, shift=sh), tol)
                    rescued |= off - {j for j, _, _ in a2}
                # ... and those some sub-second placement of the ends matches: each job running this much
                # longer than its whole-second record (a start and an end each floored)
                for extra in SUBSECOND_RUN:
                    a2, _, _ = compare(real, sim(rec, result, conf, cpus, longer=extra), tol)
                    longer |= off - {j for j, _, _ in a2}
            tot["run_explained"] += len(longer)
            tot["n"] += len(jobs)
            tot["miss"] += len(off)
            tot["sub_explained"] += len(rescued)
            r0 = real.start - real.submit.min()
            s0 = base.start - base.workload.submit.min()
            lines.append(f"\n### {path.name}: {name} (tolerance {tol:g} s)\n")
            lines.append(f"real starts: {[int(x) if rd == 'sacct' else round(float(x), 1) for x in r0]}  ")
            lines.append(f"simulated:   {[int(round(x)) if rd == 'sacct' else round(float(x), 1) for x in s0]}\n")
            for j, r, sv in a:
                why = ("sub-second order (a shifted submission matches)" if j in rescued else
                       "lag: within the tolerance counted from the previous start (the real controller's delay "
                       "from a job's end to the next start, adding up along a chain)" if j not in off_rel else "unexplained")
                for label, text in BEHAVIOURS44.items():
                    if j not in missed[text]:
                        why = f"matches with behaviour {label.split()[0]} off (its reading here is off)"
                        break
                lines.append(f"- job {j}: real {r:.3f} s, simulated {sv:.3f} s, error {sv - r:+.3f} s: {why}")
            if not a:
                lines.append("- every start within the tolerance")
        sections.append((rd, table, lines, tot))

    cmd = " ".join(["python", "benchmarks/experiments/slurm/slurm_conformance.py", *argv])
    names = [f"- case{q.stem[4:]}: {c[0]} ({len(c[1])} jobs)" for q, c in zip(paths, loaded)]
    body = []
    for rd, table, lines, tot in sections:
        header = ("| reading | " + " | ".join(f"case{q.stem[4:]}" for q in paths)
                  + " | all | same order | same order, ties in a real second either way | same order as the log's ms, "
                  "simulated ties either way |")
        rows = [header, "|" + "---|" * (len(paths) + 5)]
        for label, cells in table.items():
            hit = sum(c[0] for c in cells)
            n = sum(c[1] for c in cells)
            rows.append(f"| {label} | " + " | ".join(f"{c[0]}/{c[1]}{'' if c[2] else ' (order differs)'}" for c in cells)
                        + f" | {hit}/{n} ({hit / n:.0%}) | {sum(c[2] for c in cells)} of {len(cells)} | "
                        f"{sum(c[3] for c in cells)} of {len(cells)} | "
                        + (f"{sum(c[4] for c in cells)} of {len(cells)} |" if rd != "sacct" else "n/a (whole seconds) |"))
        lags, sim_lags = np.array(tot["lags"]), np.array(tot["sim_lags"])
        body += [
            f"## Input `--runtimes {rd}`: matches per case, and each behaviour switched off", "",
            f"{RUNTIMES[rd]}.", "", *rows, "",
            f"With Slurm's readings, the same simulated starts against sacct's whole-second starts: {tot['vs_sacct']} of "
            f"{tot['n']} ({tot['vs_sacct'] / tot['n']:.0%}) within the tolerance.", "",
            "The controller's lag from a job's end to a start that followed it (the latest end at most 5 s before "
            "a waiting job's start): "
            + (f"real mean {lags.mean():.3f} s, median {np.median(lags):.3f} s, max {lags.max():.3f} s over {lags.size} "
               f"starts; simulated mean {sim_lags.mean():.3f} s, median {np.median(sim_lags):.3f} s, max "
               f"{sim_lags.max():.3f} s over {sim_lags.size}." if lags.size and sim_lags.size else "none found."), "",
            f"Counted from the previous start: {tot['rel']} of {tot['n']} jobs ({tot['rel'] / tot['n']:.0%}) within the "
            f"tolerance in the real order; of the {tot['miss']} absolute mismatches, {tot['lag']} are such chain lag.", "",
        ]
        if rd == "sacct":
            body += [
                "Sub-second order (item 6): each submission moved by "
                f"{', '.join(f'{x:g}' for x in SUBSECOND)} s within its recorded second: "
                f"{tot['sub_explained']} of the {tot['miss']} mismatches (of {tot['n']} jobs) match under some such shift; "
                f"each job run {' or '.join(f'{x:g}' for x in SUBSECOND_RUN)} s longer than its whole-second record (its "
                f"start and end both floored): {tot['run_explained']} of the {tot['miss']} match under one of these.", "",
            ]
    rd, _, lines, _ = sections[-1]
    text = "\n".join([
        "# --policy slurm against a real slurmctld 22.05 with slurmdbd (issue 44): 16-CPU cases", "",
        f"Written by `{cmd}` on {dt.date.today().isoformat()} from the recordings in `{folder}` "
        "(re-scored offline; recorded by `--record44`).",
        "Each job is simulated with the submit time and run time the real Slurm recorded (the input reading",
        "named in each section), the case's anchors (its first submission's epoch second, slurmctld's start from",
        "its log, and its decay thread's start where the recording has it), and the case's slurm.conf; a start matches",
        "when it is within max(bf_interval, 5) s of the real one.",
        "\"Slurm's readings\" are the policy's defaults plus `schedlab.slurm.conformance.RECORDED_READINGS` "
        f"({', '.join(f'{k}={v}' for k, v in RECORDED_READINGS.items())}): Slurm's reading of those two options, not yet "
        "the defaults (docs/slurm-policy-spec.md section 8 says why).", "",
        "Cases:", *names, "", *body,
        f"## Mismatches (input `--runtimes {rd}`, Slurm's readings)", *lines, "",
    ])
    return publish(out, text)


#: seconds between the node's becoming idle and the first submission ("controller settled")
SETTLE = 5.0


LAG = ("**lag**: the real Slurm starts a job 0-1 s after a submission (its background tick) and 0-1 s after "
       "the job it waited for ends (the epilog-complete message comes before the main scheduler runs), and "
       "a sleep of S s ends a little after S s; the simulator has none of these, so along a chain of jobs "
       "waiting for each other the real starts fall behind by up to about a second per link")


def explain(job: int, real: float, sim: float, relative_off: set[int]) -> str:
    """'lag' (LAG) when the real start is the later one and the job is within the tolerance counted
    from the previous start; else 'unexplained'."""
    return "lag" if real > sim and job not in relative_off else "unexplained"


def publish(out: str, text: str) -> int:
    """Write the report ``text`` to ``out`` (its folder made), print it, and return exit status 0."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    print(text)
    return 0


def no_slurm() -> bool:
    """True (after a one-line ``error:`` on stderr) when the real Slurm cannot run here."""
    from schedlab.slurm.harness import slurm_unavailable

    reason = slurm_unavailable()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
    return bool(reason)


def mismatch_lines(absolute, relative, first: int = 0) -> list[str]:
    """The report's lines for :func:`test_slurm_policy.compare`'s mismatches, each explained (jobs
    numbered from ``first``)."""
    off_abs, off_rel = {j for j, _, _ in absolute}, {j for j, _, _ in relative}
    lines = [f"- job {j + first}: real {r:g} s, simulated {s:g} s: {explain(j, r, s, off_rel)}" for j, r, s in absolute]
    lines += [f"- job {j + first}: start after the previous one real {r:g} s, simulated {s:g} s: unexplained"
              for j, r, s in relative if j not in off_abs]
    return lines or ["- every start within the tolerance"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=2, help="number of random job lists besides the three fixed cases")
    ap.add_argument("--jobs", type=int, default=8, help="jobs per random list")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "slurm-conformance.md"))
    ap.add_argument("--anchors", action="store_true", help="simulate each case with the anchors the harness recorded "
                    "(controller_start from slurmctld's log, unix_start = the first submission's epoch second; issue 44)")
    ap.add_argument("--slurm-option", default="", help="more named options for the simulator (NAME=VALUE,...)")
    ap.add_argument("--recorded", action="store_true", help="simulate each job with the submit time and run time the real "
                    "Slurm recorded (whole seconds; a sleep of S s runs a little longer), as a site's log gives them")
    ap.add_argument("--variants", default="", help="also score these option sets on the same real runs, ';' between "
                    "sets (e.g. 'sched_on_end=immediate;node_space_limit=none'), each with --anchors if given")
    ap.add_argument("--record44", default="", help="record the issue-44 cases (16 CPUs, slurmdbd) into this folder and stop")
    ap.add_argument("--record47", default="", help="record the issue-47 resource cases (GPUs, memory, exclusive, "
                    "limits; slurmdbd) into this folder and stop")
    ap.add_argument("--only", default="", help="with --record44/--record47: case numbers to record, comma-separated")
    ap.add_argument("--score44", default="", help="score the recorded issue-44 cases in this folder (offline) into --out")
    ap.add_argument("--runtimes", default="sacct", help="with --score44: the input readings to score, comma-separated: "
                    "'sacct' (whole seconds, as a site's log gives them; default) and/or 'ctld-ms' (to the millisecond "
                    "from slurmctld's log, the time each job held its CPUs; schedlab.slurm.conformance.RUNTIMES)")
    ap.add_argument("--score47", default="", help="score the recorded issue-47 resource cases in this folder "
                    "(offline) into --out, under the readings of --runtimes (default here: sacct,ctld-ms)")
    args = ap.parse_args(argv)
    if args.score47:
        return score47(args.score47, args.out, argv if argv is not None else sys.argv[1:],
                       args.runtimes if "--runtimes" in (argv if argv is not None else sys.argv) else "sacct,ctld-ms",
                       args.slurm_option)
    if args.score44:
        return score44(args.score44, args.out, argv if argv is not None else sys.argv[1:], args.runtimes)
    if args.record44:
        return record44(args.record44, args.only)
    if args.record47:
        return record47(args.record47, args.only)
    from schedlab.slurm.conformance import compare, simulate_case
    from schedlab.slurm.harness import SlurmCluster

    if no_slurm():
        return 2
    t0 = time.monotonic()
    rows, lines = [], []
    total = matched = matched_rel = orders = 0
    todo = cases(args.random, args.jobs, args.seed)
    real = {}
    for conf in dict.fromkeys(c[2] for c in todo):  # one cluster per configuration
        with SlurmCluster(conf=conf, cpus=4) as cluster:
            for name, jobs, harness_conf, _ in todo:
                if harness_conf == conf:
                    real[name] = cluster.run(jobs)
    from dataclasses import replace as _replace

    from schedlab.slurm.policy import SlurmOptions, parse_option_pairs

    if args.recorded:  # the jobs as the real Slurm recorded them (its log's submit and elapsed times)
        todo = [(name, [_replace(j, submit=float(real[name].submit[i]), runtime=float(real[name].end[i] - real[name].start[i]))
                        for i, j in enumerate(jobs)], hc, sc) for name, jobs, hc, sc in todo]

    for name, jobs, _, sim_conf in todo:
        opts = parse_option_pairs(args.slurm_option)
        if args.anchors:
            opts.setdefault("unix_start", str(real[name].origin))
            if real[name].controller_start == real[name].controller_start:  # (nan: not logged)
                opts.setdefault("controller_start", f"{real[name].controller_start:.3f}")
        sim = simulate_case(jobs, sim_conf, options=SlurmOptions(**opts))
        tol = 2.0  # max(bf_interval, 1) + 1 with bf_interval=1 in every case
        absolute, relative, same_order = compare(real[name], sim, tol)
        n = len(jobs)
        total += n
        matched += n - len(absolute)
        matched_rel += n - len(relative)
        orders += same_order
        rows.append(f"| {name} | {n} | {n - len(absolute)} | {n - len(relative)} | {'yes' if same_order else 'no'} |")
        lines.append(f"\n### {name}\n\nreal starts: {[int(x) for x in real[name].start - real[name].submit.min()]}; "
                     f"simulated: {[int(x) for x in sim.start - sim.workload.submit.min()]}\n")
        lines += mismatch_lines(absolute, relative)
    variant_rows = []
    for text_opts in filter(None, (v.strip() for v in args.variants.split(";"))):
        hit = hit_rel = same = 0
        for name, jobs, _, sim_conf in todo:
            opts = parse_option_pairs(text_opts)
            if args.anchors:
                opts.setdefault("unix_start", str(real[name].origin))
                if real[name].controller_start == real[name].controller_start:
                    opts.setdefault("controller_start", f"{real[name].controller_start:.3f}")
            a, r, o = compare(real[name], simulate_case(jobs, sim_conf, options=SlurmOptions(**opts)), 2.0)
            hit, hit_rel, same = hit + len(jobs) - len(a), hit_rel + len(jobs) - len(r), same + o
        variant_rows.append(f"| `{text_opts}` | {hit} ({hit / total:.0%}) | {hit_rel} ({hit_rel / total:.0%}) | "
                            f"{same} of {len(todo)} |")
    if variant_rows:
        variant_rows = ["", "The same real runs against other readings (simulator options):", "",
                        "| options | match (absolute) | match (from previous) | same start order |", "|---|---|---|---|",
                        *variant_rows]
    minutes = (time.monotonic() - t0) / 60
    cmd = " ".join(["python", "benchmarks/experiments/slurm/slurm_conformance.py", *(argv if argv is not None else sys.argv[1:])])
    text = "\n".join([
        "# --policy slurm against a real slurmctld (Slurm 22.05, one 4-CPU node on 127.0.0.1)",
        "",
        f"Written by `{cmd}` on {dt.date.today().isoformat()} ({minutes:.1f} min; a shared 2-core machine).",
        "A start matches when the simulated one is within max(bf_interval, 1) + 1 = 2 s of the real one",
        "(times from the first submission); 'from previous' compares each job's start counted from the",
        "previous start in the real order, which takes out the real Slurm's own lags.",
        "",
        LAG + ".",
        "",
        "| case | jobs | match (absolute) | match (from previous) | same start order |",
        "|---|---|---|---|---|",
        *rows,
        f"| **all** | {total} | {matched} ({matched / total:.0%}) | {matched_rel} ({matched_rel / total:.0%}) | "
        f"{orders} of {len(todo)} |",
        *variant_rows,
        "",
        "## Mismatches",
        *lines,
        "",
    ])
    return publish(args.out, text)


if __name__ == "__main__":
    sys.exit(main())
