"""--policy slurm to the second (issue 44, item 1): bf_resolution rounds Unix time, the periodic
cycles are anchored at the controller's start, the node_space table is bf_node_space_size records
(default bf_max_job_test), age and fair-share weights need slurmdbd, and the main scheduler runs
after a job end on the background loop's tick once batch_sched_delay has passed. Each case is
worked by hand from Slurm 22.05's source (docs/slurm-policy-spec.md); every schedule goes
through the shared validator."""

from __future__ import annotations

import numpy as np

from schedlab.sim.validate import validate_schedule
from schedlab.slurm import layout as L
from schedlab.slurm.conf import parse_conf
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, prepare, simulate_slurm
from schedlab.workload.model import Workload

NODE4 = "NodeName=sl1 CPUs=4\nPartitionName=batch Default=YES MaxTime=60\n"


def jobs(rows, procs=4, unix_start=None):
    """rows: (submit, cpus, runtime s, limit min)"""
    r = np.array(rows, dtype=float)
    n = len(rows)
    header = (f" UnixStartTime: {unix_start}",) if unix_start is not None else ()
    return Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=r[:, 0], procs=r[:, 1].astype(int), req_procs=r[:, 1].astype(int),
             runtime=r[:, 2], estimate=r[:, 3] * 60, queue=np.zeros(n, int), unix_group=np.ones(n, int),
             user=np.arange(n), status=np.ones(n, int)),
        machine_procs=procs, header=header, unix_start=unix_start, name="case")


def run(rows, conf, procs=4, epoch=None, **options):
    """``epoch``: the trace header's UnixStartTime (None: no such line)"""
    s = simulate_slurm(jobs(rows, procs, epoch), procs,
                       SlurmPolicy(parse_conf(conf + NODE4, "t.conf"), SlurmOptions(**options)))
    validate_schedule(s)
    return s


BF30 = "SchedulerParameters=bf_interval=30\n"  # bf_resolution 60 (default)


def test_bf_resolution_rounds_unix_time():
    """A (3 CPUs, 110 s, limit 2 min) starts at 0, expected end 120. B (4 CPUs, limit 1 min) waits
    and gets a reservation from A's expected end: Slurm rounds its bounds on epoch seconds,
    floor(t / 60) * 60. C (1 CPU, 30 s, limit 1 min) comes at 45; the pass at 45 (bf_interval 30
    after the pass at 0) backfills it only if no reservation slice begins by 45 + 60 = 105.

    Trace time 0 = Unix 1,000,000,050, and 1,000,000,050 mod 60 = 30: B's reservation begins at
    trace time floor((120 + 30) / 60) * 60 - 30 = 90 <= 105: C is held; A ends at 110, B starts
    (110-140), C at 140. With trace time 0 as a boundary (UnixStartTime a multiple of 60, none, or
    bf_resolution_on=trace) it begins at 120 > 105: C is backfilled at 45.

    (bf_pass_updates='none' keeps the pass of 45 s: with Slurm's 'estimates' the pass at 0 makes one
    due at 30, which re-estimates B, and C waits for the pass at 60; tests/test_slurm_prio_timing.py.)"""
    rows = [(0, 3, 110, 2), (0, 4, 30, 1), (45, 1, 30, 1)]
    idle = dict(bf_pass_updates="none")
    np.testing.assert_array_equal(run(rows, BF30, epoch=1_000_000_050, **idle).start, [0, 110, 140])
    np.testing.assert_array_equal(run(rows, BF30, epoch=1_000_000_020, **idle).start, [0, 110, 45])
    np.testing.assert_array_equal(run(rows, BF30, **idle).start, [0, 110, 45])
    np.testing.assert_array_equal(run(rows, BF30, epoch=1_000_000_050, bf_resolution_on="trace", **idle).start,
                                  [0, 110, 45])
    # the anchor as an input when the trace carries none (or to override it)
    np.testing.assert_array_equal(run(rows, BF30, unix_start="30", **idle).start, [0, 110, 140])
    np.testing.assert_array_equal(run(rows, BF30, epoch=1_000_000_050, unix_start="0", **idle).start, [0, 110, 45])


def test_backfill_passes_start_bf_interval_after_the_controller():
    """A (3 CPUs, 100 s, limit 2 min), B (4 CPUs) and C (1 CPU, 30 s, limit 1 min) at 0. The main
    run at 0 starts A; B cannot start and the stop rule holds C. Only backfill can start C (its
    [t, t + 60] ends before B's reservation at 120). backfill_agent first sleeps bf_interval after
    the controller starts: started at -10, the first pass is at -10 + 30 = 20 (C: 20); started at
    -50, passes may run from -20, so the pass at the submission starts C at 0 (as 'settled', the
    default). Started at -10.4, its ticks fall at .6: the first pass at 19.6."""
    rows = [(0, 3, 100, 2), (0, 4, 30, 1), (0, 1, 30, 1)]
    assert run(rows, BF30).start[2] == 0
    assert run(rows, BF30, controller_start="-10").start[2] == 20
    assert run(rows, BF30, controller_start="-50").start[2] == 0
    assert run(rows, BF30, controller_start="-10.4").start[2] == 19.6


def test_the_kill_check_runs_every_30_s_from_the_controllers_start():
    """A job with a 1-min limit that would run 100 s is killed at the first time-limit check at or
    after 60 s; job_time_limit runs every 30 s from the controller's start (last_timelimit_time is
    set at start): from 0 ('settled': the first submission's second) at 60, from -10 at 80."""
    rows = [(0, 1, 100, 1)]
    assert run(rows, "").finish[0] == 60
    assert run(rows, "", controller_start="-10").finish[0] == 80


def test_a_full_node_space_table_ends_the_pass():
    """bf_node_space_size defaults to bf_max_job_test (backfill.c). bf_max_job_test=3: A (3 CPUs,
    600 s, limit 10 min) runs; B1 and B2 (4 CPUs, 30 s, limit 1 min) wait, C (1 CPU, 30 s, limit 1
    min) behind them. The pass at 0: the map is one record [0, 86400); B1's reservation [600, 660)
    splits it at 600 and at 660: 3 records. B2 would be reserved from 660, but 3 records >= 3:
    "table size limit of 3 reached", the pass ends and C is never tested. B1 starts when A ends
    (600), B2 when B1 ends (630), C at 660. With bf_node_space_size=10 (or node_space_limit=none)
    B2 is reserved [660, 720) and C, 3rd tested, ends (60) before 600: backfilled at 0."""
    rows = [(0, 3, 600, 10), (0, 4, 30, 1), (0, 4, 30, 1), (0, 1, 30, 1)]
    conf = "SchedulerParameters=bf_interval=30,bf_max_job_test=3{}\n"
    np.testing.assert_array_equal(run(rows, conf.format("")).start, [0, 600, 630, 660])
    np.testing.assert_array_equal(run(rows, conf.format(",bf_node_space_size=10")).start, [0, 600, 630, 0])
    np.testing.assert_array_equal(run(rows, conf.format(""), node_space_limit="none").start, [0, 600, 630, 0])


def test_node_space_records_are_counted_as_slurm_splits_them():
    """backfill.c _add_reservation: the first record ending after a reservation's begin is split
    there, even when the begin is the map's start (an empty record is left); no split where a
    record already ends; the end is at least one bf_resolution after the begin; bounds at or past
    the window's end split nothing. Map [0, 86400), bf_resolution 60."""
    from schedlab.slurm.backfill import _space_add

    nse = np.empty(8)
    nse[0] = 86400.0
    n = _space_add(nse, 1, 0.0, 60.0, 60.0, 86400.0)  # begin at the map's start: split (empty record), end: split
    assert n == 3
    n = _space_add(nse, n, 0.0, 60.0, 60.0, 86400.0)  # the same bounds again: records end there already
    assert n == 3
    n = _space_add(nse, n, 60.0, 60.0, 60.0, 86400.0)  # no length: one resolution slot, [60, 120)
    assert n == 4
    n = _space_add(nse, n, 86000.0, 90000.0, 60.0, 86400.0)  # the end lies past the window's end
    assert n == 5


def test_age_and_fair_share_weights_need_slurmdbd():
    """priority_multifactor.c init: "PriorityWeightAge can only be used with SlurmDBD, ignoring"
    (FairShare likewise) unless AccountingStorageType=accounting_storage/slurmdbd; Slurm's default
    is accounting_storage/none. The weights reach the kernel only with slurmdbd or
    weights_without_slurmdbd=applied; a note line says they were dropped."""
    conf = "PriorityWeightAge=1000\nPriorityWeightFairshare=500\nPriorityWeightJobSize=7\n" + NODE4
    w = jobs([(0, 1, 10, 1)])

    def weights(text, **o):
        a = prepare(w, 4, SlurmPolicy(parse_conf(text, "t.conf"), SlurmOptions(**o)))
        return (a["P"][L.P_W_AGE], a["P"][L.P_W_FS]), a["notes"]

    got, notes = weights(conf)
    assert got == (0, 0)
    assert any("PriorityWeightAge=1000 and PriorityWeightFairshare=500 ignored" in n and "slurmdbd" in n for n in notes)
    got, notes = weights("AccountingStorageType=accounting_storage/slurmdbd\n" + conf)
    assert got == (1000, 500) and not any("ignored" in n for n in notes)
    assert weights(conf, weights_without_slurmdbd="applied")[0] == (1000, 500)


def test_the_main_scheduler_runs_batch_sched_delay_after_its_last_run_when_a_job_ends():
    """A (4 CPUs, 10 s) starts at 0 (the main run at the submission's tick, 0). B (4 CPUs) comes at
    8: the tick at 8 runs the main scheduler (8 - 0 >= batch_sched_delay 3), B does not fit. A ends
    at 10: the agent queues a request; the background loop serves it once now - last_sched_time
    >= 3, at 11: B starts at 11 (no backfill pass: the last was at 0, the next is due at 30). With
    sched_on_end=immediate (the epilog-complete path) it starts at 10; with batch_sched_delay=0 at
    10 too."""
    rows = [(0, 4, 10, 1), (8, 4, 10, 1)]
    assert run(rows, BF30).start.tolist() == [0, 11]
    assert run(rows, BF30, sched_on_end="immediate").start.tolist() == [0, 10]
    assert run(rows, "SchedulerParameters=bf_interval=30,batch_sched_delay=0\n").start.tolist() == [0, 10]


def test_a_full_run_takes_the_queued_requests_and_sets_last_sched_time():
    """sched_interval=5 (full runs at 5, 10, 15, ... from the first submission). A (4 CPUs, 12 s) at 0
    starts at 0; B (4 CPUs) at 1 is tested at the tick max(1, 0 + 3) = 3 and waits. A ends at 12;
    the last run was the full one at 10 (every full run sets last_sched_time, also when it finds
    nothing to do), so the request is served at 10 + 3 = 13, not at 12. With sched_on_end=immediate
    B starts at 12."""
    rows = [(0, 4, 12, 1), (1, 4, 10, 1)]
    conf = "SchedulerParameters=bf_interval=30,sched_interval=5\n"
    assert run(rows, conf).start.tolist() == [0, 13]
    assert run(rows, conf, sched_on_end="immediate").start.tolist() == [0, 12]


# ------------------------------------------------------------------ issue 44 item 4: queues without names
def test_unnamed_queues_go_to_the_only_partition_with_a_note():
    """Most archive traces number their queues (SWF field 15) without naming them. With a slurm.conf
    of one partition every job goes there and one note line says so (no queue_map=default needed);
    with two partitions a queue number must still name one: the error names the job."""
    from schedlab.errors import WorkloadError
    import pytest

    w = jobs([(0, 1, 10, 1), (5, 2, 10, 1)]).replace(queue=np.array([1, 3]))
    s = simulate_slurm(w, 4, SlurmPolicy(parse_conf(NODE4, "site.conf")))
    validate_schedule(s)
    assert s.slurm.partition == ("batch", "batch")
    assert [n for n in s.slurm.notes if "queues" in n] == [
        "the trace's queues carry no names (numbers 1, 3): all 2 jobs go to site.conf's only partition, batch"]
    # a queue that names the partition, or queue_map=default: no note
    assert not simulate_slurm(w, 4, SlurmPolicy(parse_conf(NODE4, "site.conf"), SlurmOptions(queue_map="default"))).slurm.notes
    with pytest.raises(WorkloadError, match=r"job 1 is in queue '1', which is no partition of site.conf \(batch, short\)"):
        simulate_slurm(w, 4, SlurmPolicy(parse_conf(NODE4 + "PartitionName=short\n", "site.conf")))


PRIO_SIZE = "PriorityType=priority/multifactor\nPriorityWeightJobSize=100\nSchedulerParameters=bf_interval=5\n"


def test_future_reservation_overlap_uses_rounded_bounds_and_candidates_from_now():
    """_test_resv_overlap (backfill.c): a job that cannot start now is reserved from the will-run
    start T found on its candidate nodes (no slice over [now, now + limit]); the overlap test
    compares floor(T / res) * res and floor((T + limit) / res) * res with strict < against the
    slices. One 4-CPU node, bf_resolution 60, trace time 0 on the epoch grid (UnixStartTime 0).

    At 0: R1 (2 CPUs, runs 200 s, limit 2 min: expected end 120) and R2 (1 CPU, 55 s, limit
    1 min: expected end 60) start; 1 CPU is free. At 1: H (4 CPUs), X (2 CPUs), Y (1 CPU), all
    limit 1 min, run 10 s; job size favours large, so the order is H > X > Y. The main scheduler
    at 1 cannot start H (1 CPU free) and stops there. The backfill pass at n in [1, 6] (bf_interval 5):
    - H: will-run T = 120 (R1's end frees the node) -> slice [120, 180) holds the node.
    - X: candidates from now: [n, n + 60] meets no slice (H's begins at 120), so the node is one;
      will-run T = 60 (R2's expected end frees 2 CPUs). Slurm: floor -> [60, 120); H's slice
      begins at 120, and 120 < 120 is false: no overlap, X is reserved [60, 120).
      The unrounded inclusive reading ('exact'): [60, 120] meets H's slice at 120, 120 (R1's end)
      is H's, so X goes to [180, 240).
    - Y (1 CPU) fits now on the free CPU if no slice begins by n + 60 <= 66: under Slurm's reading
      X's does (60), so Y waits; under 'exact' the first slice begins at 120, so Y starts at n.
    So Y starts at the first pass (<= 6) with 'exact' and not before R2 ends (55) with Slurm's."""
    rows = [(0, 2, 200, 2), (0, 1, 55, 1), (1, 4, 10, 1), (1, 2, 10, 1), (1, 1, 10, 1)]
    slurm = run(rows, PRIO_SIZE, epoch=0)
    exact = run(rows, PRIO_SIZE, epoch=0, resv_overlap="exact")
    assert exact.start[4] <= 6
    assert slurm.start[4] >= 55
