"""The hand-worked conformance cases of ``--policy slurm`` against the real slurmctld, and their
simulator side (issue 37, item 3; docs/slurm-policy-spec.md section 7).

Each case is a job list for :class:`schedlab.slurm.harness.SlurmCluster` (one 4-CPU node) and the
slurm.conf both sides run it under. :func:`simulate_case` runs the same list through
``--policy slurm`` (validated); :func:`compare` sets the real starts beside the simulated ones.
The marked tests (tests/test_slurm_harness.py, tests/test_slurm_policy.py,
tests/test_slurm_tuned_apply.py) assert what the spec says of each case; the experiments
benchmarks/experiments/slurm/slurm_conformance.py and slurm_tuned_apply.py run them for the
published reports. :data:`SPEED_CONF` is the configuration of the spec's speed figures.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..sim.validate import validate_schedule
from ..workload.model import Workload
from ..workload.swf import write_swf
from .conf import parse_conf
from .harness import SlurmHarnessError, SlurmJob
from .policy import SlurmOptions, SlurmPolicy, simulate_slurm


# A 4-CPU node, FIFO-like priority (multifactor with every weight 0: equal priorities are ordered
# by submit time, then job id), backfill every second at 1-second resolution; three partitions on
# the one node. The claims checked are those of docs/slurm-policy-spec.md, sections 4 and 5.
CONF = """
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
PriorityType=priority/multifactor
PartitionName=batch Default=YES MaxTime=10 State=UP
PartitionName=short MaxTime=2 State=UP
PartitionName=long MaxTime=10 State=UP
"""
BACKFILL_CASE = [
    SlurmJob(cpus=3, runtime=20, limit=2, account="physics"),  # A: starts at once
    SlurmJob(cpus=4, runtime=6, limit=1, account="chem"),  # B: wide, blocked behind A; reserved at A's limit
    SlurmJob(cpus=1, runtime=6, limit=1, partition="short", account="physics"),  # C: ends by its limit before B's reservation
    SlurmJob(cpus=1, runtime=6, limit=3, partition="long", account="chem"),  # D: its limit would delay B
    SlurmJob(cpus=2, runtime=4, limit=1, partition="short", account="physics", submit=8),  # E: 1 CPU free, needs 2
]
NODE_CASE = [
    SlurmJob(cpus=2, runtime=12, limit=2),  # G: starts at once
    SlurmJob(cpus=3, runtime=3, limit=1),  # H: 2 CPUs free, needs 3: reserved at G's limit
    SlurmJob(cpus=1, runtime=3, limit=3),  # F: fits beside G now and beside H then (2+1, 3+1 CPUs), but its
]  # limit overlaps H's reservation, which holds the whole node

#: the start tolerance of every case here: max(bf_interval, 1 s) + 1 s with bf_interval=1 (spec section 7)
CASE_TOL = 2.0


# multifactor on the harness (spec section 7, second case): size weight 100, partition weight 50,
# PriorityJobFactor 1 (batch) and 4 (high) on one 4-CPU node: priorities 4 CPUs batch 100 + 12 = 112,
# 2 CPUs high 75 + 50 = 125, 1 CPU batch 62 + 12 = 75. Worked by hand: the 2-CPU job starts first
# (0-10); the 4-CPU job is blocked (the stop rule holds the 1-CPU job back) and reserved at the
# 2-CPU job's limit end, which the 1-CPU job's limit touches: no backfill; the 4-CPU job runs
# 10-20, then the second 4-CPU job (submitted at 5, 112 > 75) 20-30, the 1-CPU job last, 30-35.
PRIO_CONF = """
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
PriorityType=priority/multifactor
PriorityWeightJobSize=100
PriorityWeightPartition=50
NodeName=sl1 CPUs=4
PartitionName=batch Default=YES MaxTime=10 PriorityJobFactor=1 State=UP
PartitionName=high MaxTime=10 PriorityJobFactor=4 State=UP
"""


def prio_case() -> list[SlurmJob]:
    """The jobs of the multifactor case above (PRIO_CONF)."""
    return [SlurmJob(cpus=4, runtime=10, limit=1), SlurmJob(cpus=2, runtime=10, limit=1, partition="high"),
            SlurmJob(cpus=1, runtime=5, limit=1), SlurmJob(cpus=4, runtime=10, limit=1, submit=5)]


# ------------------------------------------------------------------ simulator side
def simulate_case(case, conf, cpus=4, options=None):
    """The harness' job list through --policy slurm with the same slurm.conf (partitions by name);
    ``options``: a SlurmOptions (e.g. the case's anchors, issue 44), else the defaults."""
    s = simulate_slurm(case_workload(case, cpus), cpus, SlurmPolicy(parse_conf(conf, "case.conf"), options or SlurmOptions()))
    validate_schedule(s)
    return s


def case_workload(case, cpus=4):
    """The harness' job list as a workload: partitions by name (queues numbered in name order, a
    ``SchedlabQueues:`` header), accounts as user groups numbered in name order, limits as estimates."""
    names = sorted({j.partition or "batch" for j in case})
    number = {p: k + 1 for k, p in enumerate(names)}
    accounts = {a: k + 1 for k, a in enumerate(sorted({j.account or "" for j in case}))}
    return Workload.from_columns(
        dict(id=np.arange(1, len(case) + 1), submit=np.array([j.submit for j in case], float),
             procs=np.array([j.cpus for j in case]), req_procs=np.array([j.cpus for j in case]),
             runtime=np.array([j.runtime for j in case], float), estimate=np.array([j.limit * 60.0 for j in case]),
             queue=np.array([number[j.partition or "batch"] for j in case]),
             unix_group=np.array([accounts[j.account or ""] for j in case]), user=np.zeros(len(case), int),
             status=np.ones(len(case), int)),
        machine_procs=cpus, header=(" SchedlabQueues: " + " ".join(f"{p}={k}" for p, k in number.items()),), name="case")


def compare(real, sim, tol):
    """(absolute, relative, same_order): the jobs whose simulated start is off the real one by more
    than ``tol`` s; the jobs whose start, counted from the previous start in the real order, is off
    by more than ``tol``; whether the start order (by start time, ties by job) agrees. The relative
    figure takes out the real Slurm's own lag, 0-1 s after each job end (the epilog-complete message
    precedes the main scheduler's run), which adds up along a chain of blocked jobs."""
    r = np.asarray(real.start, float) - float(np.min(real.submit))
    s = np.asarray(sim.start, float) - float(np.min(sim.workload.submit))
    absolute = [(i, float(r[i]), float(s[i])) for i in range(len(s)) if abs(r[i] - s[i]) > tol]
    order = np.lexsort((np.arange(len(r)), np.round(r)))
    same_order = bool(np.array_equal(order, np.lexsort((np.arange(len(s)), s))))
    dr, ds = np.diff(np.concatenate([[0.0], r[order]])), np.diff(np.concatenate([[0.0], s[order]]))
    relative = [(int(order[k]), float(dr[k]), float(ds[k])) for k in range(len(order)) if abs(dr[k] - ds[k]) > tol]
    return absolute, relative, same_order


#: how a recorded case's jobs are timed for the simulator (``--runtimes`` of
#: benchmarks/experiments/slurm/slurm_conformance.py --score44; issue 44, item 6). Default 'sacct'.
RUNTIMES = {
    "sacct": "each job's submit and run time as sacct and jobcomp print them, whole seconds (the run time "
             "is Elapsed = floor(end) - floor(start)): what a site's accounting log gives; the real starts "
             "compared with are sacct's",
    "ctld-ms": "each job's submit and the time it held its CPUs, to the millisecond, from slurmctld's own log "
               "(schedlab.slurm.harness.parse_ctld_log: the submit RPC line; the Allocate/Started line to the "
               "'_job_complete ... done' line, by which select_g_job_fini has given the CPUs back): the "
               "run time includes the launch and teardown around the sleep and the sub-second phase a whole-"
               "second record drops; the real starts compared with are the log's Allocate/Started lines",
}


def recorded_case(jobs: list[SlurmJob], result, runtimes: str = "sacct", source: str = "case"):
    """(jobs, real) of a recorded case under the input reading ``runtimes`` (:data:`RUNTIMES`):
    ``jobs`` with the submit and run times the real Slurm recorded, and ``result`` with its submit,
    start and end in the same reading (what :func:`compare` sets the simulated starts beside)."""
    from dataclasses import replace

    if runtimes not in RUNTIMES:
        raise SlurmHarnessError(f"{source}: unknown runtimes reading {runtimes!r} (one of {', '.join(RUNTIMES)})")
    real = result
    if runtimes == "ctld-ms":
        if result.ctld_start is None:
            raise SlurmHarnessError(f"{source}: recorded without slurmctld's millisecond times (no ctld_* keys); "
                                    "re-record it with --record44 or use --runtimes sacct")
        times = np.stack([result.ctld_submit, result.ctld_start, result.ctld_end])
        if np.isnan(times).any():
            k = int(np.argwhere(np.isnan(times).any(axis=0))[0, 0])
            raise SlurmHarnessError(f"{source}: job {k} (JobId={int(result.job_id[k])}) lacks a submit, start or end "
                                    "line in slurmctld's log; use --runtimes sacct")
        real = replace(result, submit=result.ctld_submit, start=result.ctld_start, end=result.ctld_end)
    return [replace(j, submit=float(real.submit[i]), runtime=float(real.end[i] - real.start[i]))
            for i, j in enumerate(jobs)], real


#: Slurm's readings that are not the policy's defaults (each moves whole-second results, so flipping its
#: default is the maintainers' call): a recorded case is simulated with them unless ``options`` says otherwise
RECORDED_READINGS = {"bf_pass_updates": "estimates", "bf_idle_passes": "run"}


def simulate_recorded(jobs: list[SlurmJob], result, conf: str, cpus: int, options: str = ""):
    """``jobs`` (as :func:`recorded_case` times them) through --policy slurm with the recorded run's
    anchors (unix_start = its first submission's epoch second, controller_start from slurmctld's
    log, decay_start from its decay thread's first line where recorded), :data:`RECORDED_READINGS`, and the
    named options ``options`` (NAME=VALUE,...) over them; validated."""
    from .policy import parse_option_pairs

    opts = {**RECORDED_READINGS, **parse_option_pairs(options)}
    opts.setdefault("unix_start", str(result.origin))
    if result.controller_start == result.controller_start:  # (nan: not logged)
        opts.setdefault("controller_start", f"{result.controller_start:.3f}")
    if result.decay_start == result.decay_start:
        opts.setdefault("decay_start", f"{result.decay_start:.3f}")
    return simulate_case(jobs, conf, cpus=cpus, options=SlurmOptions(**opts))


def case_tolerance(conf: str) -> float:
    """The issue-44 start tolerance of a recorded case: max(bf_interval, 5) s of its slurm.conf."""
    return float(max(parse_conf(conf, "case.conf").sched["bf_interval"], 5))


def same_order_ms(real, sim) -> bool:
    """Whether the simulated start order is the real one read to the millisecond (slurmctld's log),
    jobs the simulator starts at the same instant taken in either order (it has no order among
    them); real starts in the same millisecond are ordered by job as the simulator's ties are."""
    r = np.asarray(real.start, float)
    s = np.asarray(sim.start, float)
    idx = np.arange(len(s))
    return bool(np.array_equal(np.lexsort((idx, r)), np.lexsort((idx, r, s))))


def end_to_start_lags(submit, start, end, window: float = 5.0) -> np.ndarray:
    """For each job that waited (started over 1 s after its submission) and has a job end at most
    ``window`` s before its start: the time from the latest such end to its start (the controller's
    lag from a freed node to the next start; whole seconds on sacct times, ms on the log's)."""
    submit, start, end = (np.asarray(x, float) for x in (submit, start, end))
    out = []
    for i in range(len(start)):
        ends = end[(end <= start[i]) & (end >= start[i] - window)]
        if start[i] > submit[i] + 1 and ends.size:
            out.append(float(start[i] - ends.max()))
    return np.array(out)


def start_order(sim) -> list[int]:
    """Job numbers (1-based, as in the table) in simulated start order, ties by job."""
    return [int(k) + 1 for k in np.lexsort((np.arange(len(sim.start)), sim.start))]


# ------------------------------------------------------------------ the tuned-fragment case (slurm_tuned_apply)
#: the site's default: multifactor with every weight 0 (first come, first served), backfill every second;
#: the high partition carries a larger PriorityJobFactor, which only matters once its weight is set
TUNED_CASE_CONF = """SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
PriorityType=priority/multifactor
NodeName=sl1 CPUs=4
PartitionName=batch Default=YES MaxTime=10 PriorityJobFactor=1 State=UP
PartitionName=high MaxTime=10 PriorityJobFactor=4 State=UP
"""


def tuned_case() -> list[SlurmJob]:
    """12 jobs on the 4-CPU node in the first 6 s: account g2's wide batch jobs come first and hold
    the node, account g1's small jobs (mostly in ``high``) queue behind them, so the order of the
    queue decides g1's waits."""
    rows = [  # cpus, runtime s, submit s, partition, account
        (4, 10, 0, "batch", "g2"), (4, 10, 1, "batch", "g2"), (3, 8, 1, "batch", "g2"),
        (2, 6, 2, "high", "g1"), (1, 5, 2, "high", "g1"), (4, 8, 3, "batch", "g2"),
        (2, 6, 3, "high", "g1"), (1, 5, 4, "batch", "g1"), (2, 8, 4, "batch", "g2"),
        (4, 4, 5, "high", "g1"), (1, 6, 5, "batch", "g2"), (2, 4, 6, "high", "g1"),
    ]
    return [SlurmJob(cpus=c, runtime=r, limit=1, submit=float(s), partition=p, account=a) for c, r, s, p, a in rows]


def tuned_case_users(jobs) -> list[int]:
    """Account g2's jobs are one user's (72 % of the CPU time: user group 1, over 8 %); each of g1's
    jobs is a user of its own (2.3-7.3 % each: user group 2), so the objective's user groups (Table II
    shares, schedlab.workload.groups) are the two accounts."""
    return [1 if job.account == "g2" else 2 + k for k, job in enumerate(jobs)]


def write_case_trace(jobs, path: Path) -> Path:
    """The job list as SWF, users as :func:`tuned_case_users` (the trace's reader assigns the user groups)."""
    return write_swf(case_workload(jobs).replace(user=np.array(tuned_case_users(jobs))), path)


# ------------------------------------------------------------------ the speed figures' configuration
#: the configuration of docs/slurm-policy-spec.md's speed figures (with ``queue_map=default``, one
#: partition): multifactor priority with age, fair-share and size weights (live: slurmdbd), backfill
#: every 30 s over two days, 500 jobs tested per pass. benchmarks/speed/bench_slurm.py times it;
#: tests/test_slurm_skip.py checks on it that skipped passes keep every start of a real trace.
SPEED_CONF = """AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=100
PriorityMaxAge=1-0
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=30,bf_window=2880,bf_max_job_test=500
"""


# ------------------------------------------------------------------ issue 47: resource cases read from sacct
def sacct_case(result, runtimes: str = "sacct", source: str = "case", *, exclusive_from_log: bool = True):
    """(workload, index, real) of a recorded resource case (issue 47, item 5): the case's own sacct
    lines read back as ``workload convert --from sacct`` reads them (:func:`~schedlab.workload.sacct.parse_sacct`:
    CPUs, memory, GPUs, user, account, QOS), timed in the input reading ``runtimes`` (:data:`RUNTIMES`;
    'ctld-ms' puts the log's millisecond submit and held time in place of sacct's whole seconds);
    ``index[i]`` is the row of ``result``'s job ``i`` in the workload; ``real`` as :func:`recorded_case` gives it.
    ``exclusive_from_log=False``: whole-node jobs read as unknown, as the reader did before issue 47's harness."""
    import tempfile
    from dataclasses import replace

    from ..workload.sacct import parse_sacct

    if not result.sacct:
        raise SlurmHarnessError(f"{source}: recorded without slurmdbd (no sacct lines)")
    _, real = recorded_case([SlurmJob(cpus=1, runtime=0, limit=1)] * len(result.job_id), result, runtimes, source)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{Path(source).stem}.sacct"
        path.write_text(result.sacct)
        w, _ = parse_sacct(path)
    where = {int(j): k for k, j in enumerate(w.id)}
    missing = [int(j) for j in result.job_id if int(j) not in where]
    if missing or w.unix_start != result.origin:
        raise SlurmHarnessError(f"{source}: the sacct lines do not hold every job (missing {missing[:3]}) "
                                f"or start at another second ({w.unix_start} vs {result.origin})")
    index = np.array([where[int(j)] for j in result.job_id])
    submit, runtime = w.submit.astype(float).copy(), w.runtime.astype(float).copy()
    submit[index] = real.submit
    runtime[index] = real.end - real.start
    w = w.replace(submit=submit, runtime=runtime)
    if not exclusive_from_log and w.resources is not None:
        w = w.replace(resources=replace(w.resources, exclusive=np.full(len(w), -1)))
    return w, index, real


def write_dumps(result, folder: Path) -> tuple[Path | None, Path | None]:
    """The recorded ``sacctmgr -P show qos`` / ``show assoc`` dumps as files in ``folder`` (None: not recorded)."""
    out = []
    for name, text in (("qos.txt", result.qos_dump), ("assoc.txt", result.assoc_dump)):
        if text.strip():
            (folder / name).write_text(text)
            out.append(folder / name)
        else:
            out.append(None)
    return out[0], out[1]


def simulate_sacct_case(result, conf: str, runtimes: str = "sacct", options: str = "", *, limits: bool = True,
                        source: str = "case", exclusive_from_log: bool = True):
    """(schedule, sim_start, real) of a recorded resource case: :func:`sacct_case`'s workload through
    --policy slurm under ``conf`` with the case's anchors (as :func:`simulate_recorded`), its QOS and
    association dumps as ``--slurm-qos``/``--slurm-assoc`` (``limits=False``: without them), named
    ``options`` over them; validated (CPUs; and the node validator on a run that models resources).
    ``sim_start[i]`` is the simulated start of ``result``'s job ``i``."""
    import tempfile

    from ..sim.validate import validate_node_allocation
    from .limits import load_limits
    from .conf import read_qos
    from .policy import parse_option_pairs

    w, index, real = sacct_case(result, runtimes, source, exclusive_from_log=exclusive_from_log)
    opts = parse_option_pairs(options)
    opts.setdefault("unix_start", str(result.origin))
    if result.controller_start == result.controller_start:
        opts.setdefault("controller_start", f"{result.controller_start:.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        qos, assoc = write_dumps(result, Path(tmp)) if limits else (None, None)
        policy = SlurmPolicy(parse_conf(conf, source), SlurmOptions(**opts),
                             qos_priority=read_qos(qos) if qos is not None else None,
                             limits=load_limits(qos, assoc) if qos is not None or assoc is not None else None)
    cpus = int(np.sum(policy.conf.node_cpus)) if policy.conf.node_cpus else int(w.machine_procs or 1)
    s = simulate_slurm(w, cpus, policy)
    validate_schedule(s)
    run = s.slurm
    if run.allocation is not None:
        validate_node_allocation(run.nodes, run.allocation, s.start, s.finish, workload=w, partitions=run.partition,
                                 exclusive=run.exclusive)
    return s, np.asarray(s.start, float)[index], real
