"""``schedlab slurm check`` (issue 44 item 3) on a small hand-made sacct log whose recorded starts are
chosen: the per-job errors, the share within max(bf_interval, 5) s, mean wait and AWRT per
partition, and the reasons for the jobs the model cannot explain, all worked by hand."""

from __future__ import annotations

import json

import pytest

B = 1_700_000_000  # the log's epoch seconds (SLURM_TIME_FORMAT=%s)
HEAD = "JobIDRaw|JobID|User|Group|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|ReqCPUS|State|Eligible|Reservation|Restarts"


def line(jid, submit, start, run, limit, cpus, eligible=None, reservation=""):
    return (f"{jid}|{jid}|alice|g|acct|batch|normal|{B + submit}|{B + start}|{B + start + run}|00:{run // 60:02d}:{run % 60:02d}|"
            f"00:{limit:02d}:00|{cpus}|{cpus}|COMPLETED|{B + (submit if eligible is None else eligible)}|{reservation}|0")


#: one node of 4 CPUs, one partition; bf_resolution 1 keeps reservations at the expected ends.
CONF = "SchedulerParameters=bf_interval=30,bf_resolution=1\nNodeName=n1 CPUs=4\nPartitionName=batch Default=YES MaxTime=60\n"
#: Simulated, by hand (times from the first submission):
#: 1: 3 CPUs, 100 s, limit 2 min, submitted 0: the main run at 0 starts it (sim 0; recorded 0: error 0).
#: 2: 4 CPUs, 50 s, submitted 10: blocked until 1 ends at 100; the request is served at once
#:    (last run at 40, 100 - 40 >= batch_sched_delay 3): sim 100, recorded 101: error -1.
#: 3: 1 CPU, 10 s, limit 1 min, submitted 20: the main run at 20 stops at 2 (stop rule); the pass at
#:    30 (bf_interval after the one at 0) reserves 2 from 120 (1's expected end) and backfills 3,
#:    [30, 90] ends before 120: sim 30. The log: eligible at 500 (a hold), started 500: error -470,
#:    explained by its Eligible.
#: 4: 1 CPU, 10 s, submitted 200 on an idle machine: sim 200; recorded 290: error -90, nothing in
#:    the log explains it: "started later than the model".
LOG = "\n".join([HEAD, line(1, 0, 0, 100, 2, 3), line(2, 10, 101, 50, 2, 4), line(3, 20, 500, 10, 1, 1, eligible=500),
                 line(4, 200, 290, 10, 1, 1)]) + "\n"


def test_check_sets_simulated_beside_recorded_starts(tmp_path):
    from schedlab.optimize.calibrate import easy_util
    from schedlab.slurm.check import check_log, read_extras
    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmPolicy
    from schedlab.workload.spec import TraceSpec, prepare_trace

    path = tmp_path / "jobs.sacct"
    path.write_text(LOG)
    w = prepare_trace(TraceSpec(str(path), procs=4), utilisation=easy_util)
    r = check_log(w, SlurmPolicy(parse_conf(CONF, "site.conf")), extras=read_extras(path))
    by_id = {j["id"]: j for j in r.jobs}
    assert [by_id[k]["simulated_start"] - by_id[k]["submit"] for k in (1, 2, 3, 4)] == [0, 90, 10, 0]
    assert [by_id[k]["error"] for k in (1, 2, 3, 4)] == [0, -1, -470, -90]
    assert r.tolerance == 30 and r.within() == 2
    g = r.groups[("partition", "batch")]
    assert g["jobs"] == 4
    assert g["recorded_mean_wait_s"] == pytest.approx((0 + 91 + 480 + 90) / 4)
    assert g["simulated_mean_wait_s"] == pytest.approx((0 + 90 + 10 + 0) / 4)
    # AWRT = sum m p (wait + p) / sum m p, weights 300, 200, 10, 10
    assert g["recorded_AWRT_s"] == pytest.approx((300 * 100 + 200 * 141 + 10 * 490 + 10 * 100) / 520)
    assert g["simulated_AWRT_s"] == pytest.approx((300 * 100 + 200 * 140 + 10 * 20 + 10 * 10) / 520)
    bad = {j["id"]: j["why"] for j in r.unexplained()}
    assert set(bad) == {3, 4}
    assert bad[3].startswith("eligible 480 s after submission")
    assert bad[4].startswith("started later than the model")


def test_cli_slurm_check_prints_and_writes_the_report(tmp_path, capsys):
    from conftest import one_line_error

    from schedlab.cli.main import main

    log, conf, out = tmp_path / "jobs.sacct", tmp_path / "site.conf", tmp_path / "check"
    log.write_text(LOG)
    conf.write_text(CONF)
    assert main(["slurm", "check", str(log), "--slurm-conf", str(conf), "--procs", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Within 30 s (max(bf_interval, 5)): 2 (50.0 %)" in text
    assert "| partition batch | 4 | 165.2 | 25.0 | -84.9 % |" in text
    assert "- job 3 (batch): recorded +480 s, simulated +10 s (-470 s): eligible 480 s after submission" in text
    assert sorted(p.name for p in out.iterdir()) == ["check.png", "jobs.csv", "report.md"]
    assert main(["slurm", "check", str(log), "--slurm-conf", str(conf), "--procs", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["within"] == 2 and [j["id"] for j in doc["unexplained"]] == [3, 4]
    one_line_error(main(["slurm", "check", str(log), "--procs", "4"]), capsys.readouterr().err, "needs --slurm-conf FILE")


def test_a_sacct_log_takes_its_machine_size_from_the_slurm_conf(tmp_path, capsys):
    # issue 44: a sacct log carries no MaxProcs; the check used to stop with "pass --procs" although
    # the site's slurm.conf names its nodes (here 2 x 2 CPUs = 4, the log's jobs fit)
    from schedlab.cli.main import main

    log = tmp_path / "jobs.sacct"
    log.write_text("JobIDRaw|Submit|Start|End|AllocCPUS|Timelimit|State|Partition\n"
                   "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|4|00:02:00|COMPLETED|batch\n"
                   "2|2024-01-01T00:00:10|2024-01-01T00:01:00|2024-01-01T00:02:00|2|00:02:00|COMPLETED|batch\n")
    conf = tmp_path / "site.conf"
    conf.write_text("SchedulerType=sched/backfill\nNodeName=n[1-2] CPUs=2\nPartitionName=batch Nodes=n[1-2] Default=YES MaxTime=10\n")
    assert main(["slurm", "check", str(log), "--slurm-conf", str(conf), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # job 1 (4 CPUs) starts at once; job 2 (2 CPUs) needs job 1's CPUs: recorded start 60 s, simulated
    # at job 1's end (60 s) or on the controller's next tick: both within the 5 s tolerance
    assert doc["summary"]["within"] == 2


def test_jobs_without_a_recorded_start_are_left_out_of_every_comparison(tmp_path, capsys):
    """A log whose job 4 has no recorded start (SWF wait -1) compares the other three: shares, errors,
    waits and AWRT over jobs 1-3 alone (by hand from the first test: errors 0, -1, -470; recorded waits
    0, 91, 480, simulated 0, 90, 10), never a mean wait that counts -1 as a wait; a log with no recorded
    start at all is refused in one line."""
    from schedlab.cli.main import main
    from schedlab.errors import SchedlabError
    from schedlab.optimize.calibrate import easy_util
    from schedlab.slurm.check import check_log, text_report, write_outputs
    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmPolicy
    from schedlab.workload.spec import TraceSpec, prepare_trace

    path = tmp_path / "jobs.sacct"
    path.write_text(LOG)
    w = prepare_trace(TraceSpec(str(path), procs=4), utilisation=easy_util)
    import numpy as np

    w = w.replace(wait=np.where(w.id == 4, -1.0, w.wait))  # what a converted log says for a job it has no start of
    r = check_log(w, SlurmPolicy(parse_conf(CONF, "site.conf")))
    assert sorted(r.error.tolist()) == [-470, -1, 0] and r.unrecorded == 1
    s = r.summary()
    assert s["jobs"] == 4 and s["without_recorded_start"] == 1 and s["within"] == 2
    assert s["within_pct"] == pytest.approx(200 / 3)
    g = r.groups[("partition", "batch")]
    assert g["jobs"] == 3
    assert g["recorded_mean_wait_s"] == pytest.approx((0 + 91 + 480) / 3)
    assert g["simulated_mean_wait_s"] == pytest.approx((0 + 90 + 10) / 3)
    assert {j["id"] for j in r.unexplained()} == {3}
    text = text_report(r, "jobs.sacct")
    assert "1 of these jobs have no recorded start" in text and "of the 3 with a start" in text
    files = write_outputs(r, tmp_path / "out", "jobs.sacct")
    rows = (tmp_path / "out" / "jobs.csv").read_text().splitlines()
    assert rows[4].split(",")[4:7] == ["", "200.0", ""]  # job 4: no recorded start, no error
    assert files[2].stat().st_size > 0
    w = w.replace(wait=np.full(len(w), -1.0))
    with pytest.raises(SchedlabError, match="no job has a recorded start"):
        check_log(w, SlurmPolicy(parse_conf(CONF, "site.conf")))
    conf = tmp_path / "site.conf"
    conf.write_text(CONF)
    swf = tmp_path / "gen.swf"
    swf.write_text("; MaxProcs: 4\n1 0 -1 100 3 -1 -1 3 120 -1 1 1 1 1 1 1 -1 -1\n")
    assert main(["slurm", "check", str(swf), "--slurm-conf", str(conf)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no job has a recorded start" in err[0]
