"""When slurmctld re-prioritises pending jobs (issue 44, cases 2 and 6 of tests/data/slurm44ms): only the
decay thread's passes change a pending job's priority after its submission, on a PriorityCalcPeriod grid
that starts with the thread (``decay_start``), and the usage fair-share ranks is counted on time_t
seconds (``usage_clock``). Small cases worked by hand; every schedule goes through the shared validator
(schedlab.slurm.conformance.simulate_case)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedlab.errors import StrategyError
from schedlab.slurm.conformance import simulate_case
from schedlab.slurm.harness import SlurmCluster, SlurmJob, SlurmResult, load_case, save_case
from schedlab.slurm.policy import SlurmOptions, check_options

# sched/builtin (no backfill: the main scheduler alone decides), one 4-CPU node, age over job size
AGE_CONF = """AccountingStorageType=accounting_storage/slurmdbd
SchedulerType=sched/builtin
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityMaxAge=0-0:10
PriorityWeightAge=1000
PriorityWeightJobSize=100
PartitionName=batch Default=YES MaxTime=10 State=UP
NodeName=n1 CPUs=4
"""
# Z holds the node 0..70; X (3 CPUs, submitted at 40) and Y (4 CPUs, at 50) cannot both start after it
AGE_JOBS = [SlurmJob(cpus=4, runtime=70, limit=2, submit=0.0), SlurmJob(cpus=3, runtime=10, limit=1, submit=40.0),
            SlurmJob(cpus=4, runtime=10, limit=1, submit=50.0)]


def _age_case(decay_start: str):
    # (loop_start='controller': the main scheduler's clocks stay at the controller's start, 0 s, whatever
    # decay_start says, so that only the decay grid moves)
    return simulate_case(AGE_JOBS, AGE_CONF, cpus=4, options=SlurmOptions(controller_start="0", decay_start=decay_start,
                                                                          loop_start="controller"))


def test_a_pending_jobs_priority_changes_only_at_the_decay_threads_passes():
    # Worked by hand. Job size (favour large, one node of 4 CPUs): X (1/1 + 3/4)/2 * 100 = 87.5,
    # Y (1/1 + 4/4)/2 * 100 = 100. At submission (priority_p_set) a job has no accrue_time yet: age 0,
    # so X = 87, Y = 100, and so they stay until the decay thread's next pass.
    # - thread started with the controller (0 s): passes at 60, 120. At 60 X is 20 s old:
    #   87.5 + 1000 * 20 / 600 = 120.8 -> 120; Y 10 s: 100 + 16.7 -> 116. When Z ends (70 s) X leads
    #   and starts; Y needs the whole node and waits for X.
    # - thread started at 45 s: passes at 45 (X 5 s old: 87.5 + 8.3 -> 95, Y not submitted) and 105.
    #   At 70 s Y (100) leads X (95): Y starts, X waits for Y.
    early = _age_case("0")
    assert early.start[1] < early.start[2]
    assert early.start[2] >= early.finish[1]
    late = _age_case("45")
    assert late.start[2] < late.start[1]
    assert late.start[1] >= late.finish[2]
    # the default ('controller') is the controller's start: the grid of the first reading
    default = simulate_case(AGE_JOBS, AGE_CONF, cpus=4, options=SlurmOptions(controller_start="0", loop_start="controller"))
    np.testing.assert_array_equal(default.start, early.start)


def test_decay_start_takes_a_number_of_seconds_or_its_named_default():
    check_options(SlurmOptions(decay_start="-5.34"))
    with pytest.raises(StrategyError, match="decay_start"):
        check_options(SlurmOptions(decay_start="soon"))


# fair-share (Fair Tree, equal shares) alone; accounts numbered a=1, b=2, c=3 (simulate_case: name order)
FS_CONF = """AccountingStorageType=accounting_storage/slurmdbd
SchedulerType=sched/builtin
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityWeightFairshare=1000
PartitionName=batch Default=YES MaxTime=10 State=UP
NodeName=n1 CPUs=4
"""


def _whole_node(*rows):
    """Jobs of the node's 4 CPUs: (runtime s, limit min, submit s, account) each."""
    return [SlurmJob(cpus=4, runtime=r, limit=lim, submit=sub, account=a) for r, lim, sub, a in rows]


FS_JOBS = _whole_node((10.9, 1, 0.0, "a"), (10.2, 1, 0.0, "b"), (100, 2, 0.0, "c"), (5, 1, 1.0, "a"), (5, 1, 2.0, "b"))


def test_fair_share_usage_is_counted_on_whole_seconds():
    # Worked by hand. With the controller's ticks on whole seconds every start is on a whole second
    # (main runs on the 1-s ticks, the node taken whole by each job): a1, b1, c1 run one after the
    # other, a1 for 10.9 s, b1 for 10.2 s, c1 (account c) 100 s. The decay passes at 60 and 120 s
    # rank the accounts by usage; a2 and b2 wait for c1's end (> 120 s).
    # - 'exact': a used 4 * 10.9 = 43.6 CPU-s, b 4 * 10.2 = 40.8: b ranks above a, b2 starts first;
    # - 'time_t' (Slurm: run_delta = difftime(end_period, start_period) of time_t's): a used
    #   4 * (floor(s + 10.9) - s) = 40 and b 4 * (floor(s' + 10.2) - s') = 40, both decayed alike:
    #   a tie, the same rank, the same priority, and a2 (submitted first) starts first.
    # (AccountingStorageEnforce=limits: each end charges its usage, test_a_jobs_end_charges_... below)
    opts, conf = dict(controller_start="0"), FS_CONF + "AccountingStorageEnforce=limits\n"
    exact = simulate_case(FS_JOBS, conf, cpus=4, options=SlurmOptions(usage_clock="exact", **opts))
    whole = simulate_case(FS_JOBS, conf, cpus=4, options=SlurmOptions(**opts))
    for s in (exact, whole):
        assert np.all(s.start == np.floor(s.start))  # (the premise: starts on whole seconds)
        assert s.start[0] < s.start[1] < s.start[2] and min(s.start[3], s.start[4]) >= 120.0
    assert exact.start[4] < exact.start[3]
    assert whole.start[3] < whole.start[4]


def test_the_charge_of_one_slice_floors_each_bound():
    # a 3-CPU job started at 2.7 s, charged from the pass at 60.4 s to its end at 71.9 s:
    # exact 3 * (71.9 - 60.4) = 34.5; time_t 3 * (71 - 60) = 33; from before its start: 3 * (71 - 2) = 207
    from schedlab.slurm import layout as L
    from schedlab.slurm.ops import _charge
    from support.slurm_naive import _charge as naive_charge

    JI = np.zeros((L.N_JI, 1), dtype=np.int64)
    JI[L.I_CPUS, 0] = 3
    start = np.array([2.7])
    for charge in (_charge, naive_charge):
        for whole, t_from, want in ((False, 60.4, 34.5), (True, 60.4, 33.0), (True, -np.inf, 207.0)):
            usage = np.zeros(1)
            charge(0, t_from, 71.9, JI, usage, start, whole)
            assert usage[0] == pytest.approx(want)


LOG = """\
[2026-12-02T10:09:36.388] Running as primary controller
[2026-12-02T10:09:36.569] error: No fed_mgr state file (/tmp/x/state/fed_mgr_state) to recover
[2026-12-02T10:09:36.660] priority/multifactor: _read_last_decay_ran: No last decay (/tmp/x/state/priority_last_decay_ran) to recover
[2026-12-02T10:10:36.660] priority/multifactor: _decay_thread: PRIO: Decay factor over 60 seconds goes from 0.999998854166667 -> 0.999931252323842
"""


def test_the_harness_reads_the_decay_threads_start_from_slurmctlds_log(tmp_path):
    # the lines a real slurmctld 22.05 wrote (DebugFlags=Priority: the pass a minute after the thread's
    # line, to the millisecond); a cluster's folder holding that log, not started
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "slurmctld.log").write_text(LOG)
    cluster = SlurmCluster()
    cluster.folder = tmp_path
    ctl = cluster.controller_epoch()
    from schedlab.slurm.harness import DECAY_LINE

    decay = cluster.controller_epoch(DECAY_LINE)
    assert decay - ctl == pytest.approx(0.272, abs=1e-6)
    pass_at = cluster.controller_epoch("Decay factor over 60 seconds")
    assert pass_at - decay == pytest.approx(60.0, abs=1e-6)  # the grid starts with the thread


def test_a_case_keeps_the_decay_threads_start_and_an_older_case_loads_without_it(tmp_path):
    jobs = [SlurmJob(cpus=1, runtime=1, limit=1)]
    result = SlurmResult(job_id=np.array([1]), submit=np.zeros(1), start=np.ones(1), end=np.full(1, 2.0),
                         state=("COMPLETED",), partition=("batch",), account=("",), origin=1796206182, conf="",
                         ignored=(), controller_start=-5.612, decay_start=-5.34)
    path = tmp_path / "case.json"
    save_case(path, "one", jobs, "", result, cpus=1)
    assert load_case(path)[3].decay_start == pytest.approx(-5.34)
    d = json.loads(path.read_text())
    del d["decay_start"]
    path.write_text(json.dumps(d))
    assert np.isnan(load_case(path)[3].decay_start)


BF_CONF = """SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5
PartitionName=batch Default=YES MaxTime=10 State=UP
NodeName=n1 CPUs=4
"""
# A and B fill the node; W (the whole node) waits at the top, S (2 CPUs, 1 min) behind it can only be
# backfilled (the main scheduler stops at W) once B ends
BF_JOBS = [SlurmJob(cpus=2, runtime=100, limit=2, submit=0.0), SlurmJob(cpus=2, runtime=19.5, limit=1, submit=0.0),
           SlurmJob(cpus=4, runtime=10, limit=1, submit=1.0), SlurmJob(cpus=2, runtime=5, limit=1, submit=1.0)]


def test_a_backfill_pass_with_jobs_pending_makes_the_next_one_due():
    # Worked by hand, the controller started at 0 s (ticks on whole seconds, backfill's first pass at
    # 0 + bf_interval = 5 s). A and B start at the main run of 3 s (batch_sched_delay after the
    # controller's start); B ends at 3 + 19.5 = 22.5 s; S fits B's 2 CPUs until W's reservation (A's and
    # B's limits, after 120 s), and only backfill starts it.
    # - 'estimates' (Slurm): every pass re-estimates W's and S's starts (last_job_update), so passes
    #   run at 5, 10, 15, 20, 25 s: S starts at 25 s;
    # - 'none': nothing changes after the pass at 5 s until B's end, the thread re-checks each second
    #   and passes at the first one after it: S starts at 23 s.
    opts = dict(controller_start="0")
    grid = simulate_case(BF_JOBS, BF_CONF, cpus=4, options=SlurmOptions(bf_pass_updates="estimates", **opts))
    idle = simulate_case(BF_JOBS, BF_CONF, cpus=4, options=SlurmOptions(**opts))  # (the default, for now)
    for s in (grid, idle):
        np.testing.assert_array_equal(s.start[:2], [3.0, 3.0])
        assert s.slurm.started_by[3] == 2  # (backfill)
    assert grid.start[3] == 25.0
    assert idle.start[3] == 23.0


def test_the_main_schedulers_ticks_start_after_the_priority_plugin():
    # controller.c: "Running as primary controller" (here 0.4 s), priority_g_init() starts the decay
    # thread (0.7 s), then _slurmctld_background(): last_sched_time = its start, ticks every second from
    # there. A job submitted at 1.0 s on an idle node starts at the first tick batch_sched_delay (3 s)
    # after the loop's start: 0.7 + 3 = 3.7 s ('after-priority-init'), 0.4 + 3 = 3.4 s ('controller').
    conf = "SchedulerType=sched/builtin\nPartitionName=batch Default=YES MaxTime=10 State=UP\nNodeName=n1 CPUs=4\n"
    jobs = [SlurmJob(cpus=1, runtime=5, limit=1, submit=1.0)]
    opts = dict(controller_start="0.4", decay_start="0.7")
    assert simulate_case(jobs, conf, cpus=4, options=SlurmOptions(**opts)).start[0] == pytest.approx(3.7)
    before = simulate_case(jobs, conf, cpus=4, options=SlurmOptions(loop_start="controller", **opts))
    assert before.start[0] == pytest.approx(3.4)


END_JOBS = _whole_node((30, 1, 0.0, "a"), (40, 1, 0.0, "b"), (5, 1, 1.0, "a"), (5, 1, 2.0, "b"))


def test_a_jobs_end_charges_its_usage_only_when_limits_are_enforced():
    # Worked by hand (controller at 0 s, decay passes at 60, 120 s; every fair-share factor 1.0 until
    # the first pass, so the queue is in submission order): a1 runs 3-33 s, b1 33-73 s (the main run at
    # a1's end: the tick of 33 s, 3 s after the last run at 3 s), a2 and b2 wait for b1. At the pass of
    # 60 s b1 is running: b is charged 4 * (60 - 33) = 108 CPU-s.
    # - 'always' (or AccountingStorageEnforce=limits): a1's end charged 4 * 30 = 120: a used more than b,
    #   b ranks first, b2 starts at b1's end before a2;
    # - 'enforce-limits' without the limits flag (Slurm; the harness runs associations,qos): a1 ended
    #   before any pass and its end charges nothing (acct_policy.c returns before priority_g_job_end):
    #   a has no usage, ranks first, and a2 starts before b2.
    opts = dict(controller_start="0")
    slurm = simulate_case(END_JOBS, FS_CONF, cpus=4, options=SlurmOptions(**opts))  # (the default)
    always = simulate_case(END_JOBS, FS_CONF, cpus=4, options=SlurmOptions(usage_at_end="always", **opts))
    limits = simulate_case(END_JOBS, FS_CONF + "AccountingStorageEnforce=associations,limits\n", cpus=4,
                           options=SlurmOptions(**opts))
    for s in (slurm, always, limits):
        np.testing.assert_array_equal(s.start[:2], [3.0, 33.0])  # (the premise)
    assert slurm.start[2] < slurm.start[3]
    assert always.start[3] < always.start[2]
    np.testing.assert_array_equal(limits.start, always.start)


def test_an_unknown_accounting_enforce_flag_is_an_error_naming_it():
    from schedlab.slurm.conf import parse_conf

    assert parse_conf("AccountingStorageEnforce=associations,qos\n", "s.conf").accounting_enforce == {"associations", "qos"}
    with pytest.raises(Exception, match="AccountingStorageEnforce: limts"):
        parse_conf("AccountingStorageEnforce=associations,limts\n", "s.conf")


def test_a_backfill_pass_falls_due_with_no_job_pending():
    # Worked by hand, the controller started at 0 s (backfill's first pass due at 5 s, its re-checks on
    # whole seconds). A (submitted at 0) starts at the main run of 3 s; at 5 s nothing pends. W (the
    # whole node) and S (2 CPUs, 1 min, fits A's spare CPUs until W's reservation) come at 7.5 s; the
    # main run of 8 s stops at W, so only backfill starts S.
    # - 'run' (Slurm): the pass of 5 s runs with no job ("no jobs to backfill", A's submission was a
    #   change) and sets last_backfill_time; the next is due bf_interval later: S starts at 10 s;
    # - 'skip': no pass ran since the controller's start, so one runs at the submissions: S at 7.5 s.
    jobs = [SlurmJob(cpus=2, runtime=100, limit=2, submit=0.0), SlurmJob(cpus=4, runtime=10, limit=1, submit=7.5),
            SlurmJob(cpus=2, runtime=5, limit=1, submit=7.5)]
    opts = dict(controller_start="0")
    run = simulate_case(jobs, BF_CONF, cpus=4, options=SlurmOptions(bf_idle_passes="run", **opts))
    skip = simulate_case(jobs, BF_CONF, cpus=4, options=SlurmOptions(**opts))  # (the default, for now)
    for s in (run, skip):
        assert s.start[0] == 3.0 and s.slurm.started_by[2] == 2
    assert run.start[2] == 10.0
    assert skip.start[2] == 7.5
