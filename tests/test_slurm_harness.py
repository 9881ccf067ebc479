"""The conformance harness (issue 37, item 3): a real slurmctld + slurmd + munged on 127.0.0.1.

The merge of a caller's slurm.conf excerpt with the harness' own lines is checked everywhere;
the case against a real Slurm is marked ``slurm`` and skips with a one-line reason where the
Debian packages ``slurmctld slurmd munge`` (or root) are absent.
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from schedlab.errors import SchedlabError
from schedlab.slurm.conformance import BACKFILL_CASE, CONF, NODE_CASE
from schedlab.slurm.harness import (
    NODE,
    SlurmCluster,
    SlurmHarnessError,
    SlurmJob,
    _epoch,
    marked_processes,
    merge_conf,
    parse_jobcomp,
    slurm_unavailable,
)

FIXED = ["ClusterName=schedlab", f"NodeName={NODE} CPUs=4"]


def test_merge_keeps_policy_lines_and_lists_what_the_harness_owns():
    excerpt = (
        "# a site's slurm.conf\n"
        "PriorityType=priority/multifactor\n"
        "SchedulerParameters=bf_interval=30,bf_window=2880   # comment\n"
        "SelectType=select/cons_res PriorityWeightAge=1000\n"
        "NodeName=cn[001-128] CPUs=64\n"
        "PartitionName=batch Nodes=cn[001-128] Default=YES MaxTime=2-0 PriorityTier=1\n"
    )
    text, ignored = merge_conf(excerpt, FIXED, source="site.conf")
    lines = text.splitlines()
    assert "PriorityType=priority/multifactor" in lines
    assert "SchedulerParameters=bf_interval=30,bf_window=2880" in lines
    assert "PriorityWeightAge=1000" in lines  # kept from a line whose other key is the harness'
    assert f"PartitionName=batch Nodes={NODE} Default=YES MaxTime=2-0 PriorityTier=1" in lines
    assert not any("cons_res" in line or "cn[001-128]" in line for line in lines)
    assert [i.split(":")[:2] for i in ignored] == [["site.conf", "4"]] * 2 + [["site.conf", "5"], ["site.conf", "6"]]  # SelectType, the age weight
    assert "debug" not in text  # the excerpt has a partition: no default one added


def test_merge_lists_weights_that_slurm_ignores_without_slurmdbd():
    text, ignored = merge_conf("PriorityWeightAge=1000 PriorityWeightJobSize=100\nPriorityWeightQOS=0\n", FIXED, source="s.conf")
    assert "PriorityWeightAge=1000 PriorityWeightJobSize=100" in text.splitlines()  # kept: Slurm decides
    assert ignored == ("s.conf:1: PriorityWeightAge (Slurm sets the age weight to 0 without slurmdbd)",)


def test_merge_adds_a_default_partition_and_rejects_a_malformed_line():
    text, ignored = merge_conf("PriorityType=priority/basic\n", FIXED)
    assert f"PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP" in text.splitlines()
    assert ignored == ()
    with pytest.raises(SlurmHarnessError, match=r"^site.conf:2: expected Key=Value, got 'bf_interval'$"):
        merge_conf("PriorityType=priority/basic\nbf_interval 30\n", FIXED, source="site.conf")
    assert issubclass(SlurmHarnessError, SchedlabError)  # one line in the CLI, never a traceback


def test_jobcomp_records_parse_to_utc_seconds():
    line = (
        "JobId=3 UserId=root(0) GroupId=root(0) Name=j2 JobState=TIMEOUT Partition=short TimeLimit=1 "
        "StartTime=2026-11-28T15:43:13 EndTime=2026-11-28T15:44:15 NodeList=sl1 NodeCnt=1 ProcCnt=1 "
        "WorkDir=/tmp/x ReservationName= Account=physics QOS= SubmitTime=2026-11-28T15:43:01 ExitCode=0:15\n"
    )
    rec = parse_jobcomp("garbage line\n" + line)[3]
    assert (rec["JobState"], rec["Partition"], rec["Account"], rec["ReservationName"]) == ("TIMEOUT", "short", "physics", "")
    assert _epoch(rec["EndTime"]) - _epoch(rec["StartTime"]) == 62
    assert _epoch("1970-01-01T00:01:00") == 60  # read as UTC: the harness runs Slurm with TZ=UTC


def test_a_job_that_could_never_start_is_refused_before_anything_runs():
    cluster = SlurmCluster(cpus=4)  # not started: the check comes first
    with pytest.raises(SlurmHarnessError, match=r"^Slurm harness: job 1: cpus must be 1\.\.4 \(the node's CPUs\), got 5$"):
        cluster.run([SlurmJob(cpus=1, runtime=1, limit=1), SlurmJob(cpus=5, runtime=1, limit=1)])
    with pytest.raises(SlurmHarnessError, match=r"job 0: limit must be >= 1 minute, got 0$"):
        cluster.run([SlurmJob(cpus=1, runtime=1, limit=0)])
    with pytest.raises(SlurmHarnessError, match=r"no jobs to run$"):
        cluster.run([])


# The cases (schedlab.slurm.conformance, with the claims of docs/slurm-policy-spec.md sections 4
# and 5 beside each job): job indices of BACKFILL_CASE and NODE_CASE.
A, B, C, D, E = range(5)
G, H, F = range(3)

def check_schedule(result, jobs, cpus):
    """What any real schedule shows: all ran their sleep, never more CPUs busy than the node has."""
    start, end = result.start, result.end
    assert result.state == ("COMPLETED",) * len(jobs)
    np.testing.assert_allclose(end - start, [j.runtime for j in jobs], atol=1.5)
    width = np.array([j.cpus for j in jobs])
    for t in start:
        assert width[(start <= t) & (t < end)].sum() <= cpus, (t, start, end)


@pytest.mark.slurm
def test_real_slurm_backfill_and_stop_rule_as_the_spec_says():
    reason = slurm_unavailable()
    if reason:
        pytest.skip(reason)
    with SlurmCluster(conf=CONF, cpus=4) as cluster:
        folder = str(cluster.folder)
        first = cluster.run(BACKFILL_CASE)
        second = cluster.run(NODE_CASE)
    for result in (first, second):  # the measured schedules, with -s
        print("\n" + "\n".join(str(row) for row in result.rows()))
    # the harness left nothing behind: no process of its own, alive or killed at the end
    assert cluster.leftovers == []
    assert marked_processes(folder) == []
    ps = subprocess.run(["ps", "-eo", "ppid,pid,stat,args"], capture_output=True, text=True).stdout
    assert folder not in ps, ps
    mine = [line for line in ps.splitlines() if line.split()[0] == str(os.getpid())]
    assert not [line for line in mine if "slurm" in line or "munge" in line], mine  # no zombie left to us

    check_schedule(first, BACKFILL_CASE, 4)
    assert first.partition == ("batch", "batch", "short", "long", "short")
    assert first.account == ("physics", "chem", "physics", "chem", "physics")
    start, end, submit = first.start, first.end, first.submit
    # A starts at once; C, short enough to end (by its limit) before B's reservation, is
    # backfilled ahead of the blocked wide B, within the backfill interval
    assert start[A] - submit[A] <= 2
    assert start[C] - submit[C] <= 2 and start[C] < start[B]
    # B, first in priority, starts when A completes (scheduling at job completion), not at A's limit
    assert end[A] <= start[B] <= end[A] + 2
    # D is in another partition and a CPU is free from C's end (6 s) on, yet it waits for B: the
    # main scheduler's stop rule takes the blocked partition's nodes from every partition
    # (stop_scope=partition-and-nodes), and backfill keeps it out of B's reservation
    assert end[B] <= start[D] <= end[B] + 2
    # E needs 2 CPUs, only 1 is free before B: it starts together with D when B completes
    assert end[B] <= start[E] <= end[B] + 2

    check_schedule(second, NODE_CASE, 4)
    start, end = second.start, second.end
    assert start[G] - second.submit[G] <= 2
    # F is not backfilled although the CPUs would allow it now and at H's reserved start: the
    # reservation takes the whole node (reservation_granularity=node); F starts with H at G's end
    assert end[G] <= start[H] <= end[G] + 2
    assert end[G] <= start[F] <= end[G] + 2


def test_the_controllers_start_is_read_from_its_log(tmp_path):
    # issue 44: the anchor of slurmctld's periodic cycles, written into each case's result. The log
    # line is stamped in UTC (the harness runs Slurm with TZ=UTC): 2026-12-02 01:50:00.250 UTC =
    # 1796176200.25 s since the epoch (calendar.timegm of the whole second, plus 0.25)
    import calendar

    from schedlab.slurm.harness import SlurmCluster

    cluster = SlurmCluster()
    assert np.isnan(cluster.controller_epoch())  # not started: no log
    cluster.folder = tmp_path
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "slurmctld.log").write_text(
        "[2026-12-02T01:49:59.900] slurmctld version 22.05.8 started on cluster harness\n"
        "[2026-12-02T01:50:00.250] Running as primary controller\n")
    expected = calendar.timegm((2026, 12, 2, 1, 50, 0)) + 0.25
    assert expected == 1796176200.25
    assert cluster.controller_epoch() == expected


def _dbd_reason():
    from schedlab.slurm.harness import dbd_unavailable

    return dbd_unavailable()


@pytest.mark.slurm
@pytest.mark.skipif(_dbd_reason() is not None, reason=str(_dbd_reason()))
def test_with_slurmdbd_the_age_weight_is_live_and_sacct_is_the_log():
    # issue 44, item 2: with dbd=True slurmctld talks to a slurmdbd on its own MariaDB, so Slurm
    # keeps PriorityWeightAge (without slurmdbd priority_multifactor.c init() logs "PriorityWeightAge
    # can only be used with SlurmDBD, ignoring"), the accounts are associations, and sacct prints
    # the jobs: the recorded log `schedlab slurm check` reads, whose Start agrees with jobcomp's
    from schedlab.workload.sacct import read_sacct

    conf = "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityMaxAge=0-0:01\n"
    jobs = [SlurmJob(cpus=4, runtime=3, limit=1, account="physics"), SlurmJob(cpus=1, runtime=1, limit=1, submit=1, account="chem")]
    with SlurmCluster(conf=conf, cpus=4, dbd=True, start_timeout=120) as cluster:
        result = cluster.run(jobs)
        log = (cluster.folder / "log" / "slurmctld.log").read_text()
    assert "can only be used with SlurmDBD" not in log
    assert not [x for x in result.ignored if "PriorityWeightAge" in x]
    assert result.account == ("physics", "chem")
    path = cluster.folder.parent / f"{cluster.folder.name}.sacct"
    try:
        path.write_text(result.sacct)
        w = read_sacct(path, procs=4)
    finally:
        path.unlink()
    assert len(w) == 2
    starts = np.sort(w.submit + w.wait) - w.submit.min()
    np.testing.assert_array_equal(starts, np.sort(result.start - result.submit.min()))


def test_a_recorded_case_round_trips_and_a_damaged_one_names_its_file(tmp_path):
    from schedlab.slurm.harness import SlurmResult, load_case, save_case

    jobs = [SlurmJob(cpus=2, runtime=5, limit=1, partition="batch", account="a"), SlurmJob(cpus=1, runtime=3, limit=2, submit=2)]
    result = SlurmResult(job_id=np.array([7, 8]), submit=np.array([0.0, 2.0]), start=np.array([1.0, 3.0]),
                         end=np.array([6.0, 6.0]), state=("COMPLETED", "COMPLETED"), partition=("batch", "batch"),
                         account=("a", "b"), origin=1796176200, conf="X=1\n", ignored=(), controller_start=-12.5,
                         sacct="JobIDRaw|Submit\n")
    save_case(tmp_path / "c.json", "two jobs", jobs, "NodeName=sl1 CPUs=4\n", result, cpus=4)
    name, jobs2, conf, back, cpus = load_case(tmp_path / "c.json")
    assert (name, jobs2, conf, cpus) == ("two jobs", jobs, "NodeName=sl1 CPUs=4\n", 4)
    assert back.controller_start == -12.5 and back.origin == 1796176200 and back.sacct == "JobIDRaw|Submit\n"
    np.testing.assert_array_equal(back.start, result.start)
    (tmp_path / "bad.json").write_text('{"name": "x"}')
    with pytest.raises(SlurmHarnessError, match=r"bad\.json: not a recorded case"):
        load_case(tmp_path / "bad.json")


RECORDED = sorted((__import__("pathlib").Path(__file__).parent / "data" / "slurm44").glob("case*.json"))


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_a_committed_recording_is_whole_and_its_two_logs_agree(path, tmp_path):
    # issue 44, item 2: each committed case (benchmarks/experiments/slurm/slurm_conformance.py --record44) has 30+
    # jobs, the controller settled (its start logged before the first submission), and two
    # records of the one run that agree: jobcomp's starts and slurmdbd's (sacct, read as a site's
    # log by the sacct reader); its first Submit is the case's Unix anchor. Re-scored offline by
    # benchmarks/experiments/slurm/slurm_conformance.py --score44.
    from schedlab.slurm.harness import load_case
    from schedlab.workload.sacct import read_sacct

    name, jobs, conf, result, cpus = load_case(path)
    assert len(jobs) >= 30 and len(result.start) == len(jobs)
    assert result.controller_start < 0
    assert np.all(result.start >= result.submit) and np.all(result.end >= result.start)
    assert "NodeName=sl1 CPUs=16" in conf and cpus == 16
    (tmp_path / "jobs.sacct").write_text(result.sacct)
    w = read_sacct(tmp_path / "jobs.sacct", procs=cpus)
    assert len(w) == len(jobs)
    assert w.unix_start == result.origin
    np.testing.assert_array_equal(np.sort(w.submit + w.wait), np.sort(result.start))
