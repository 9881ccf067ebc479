"""Slurm sacct and PBS accounting readers: hand-made files with values worked out by hand, damaged
input, and KTH-SP2 jobs written out as sacct/PBS text (with ugly records) converted back and
simulated under every policy with validated schedules, job by job equal to the source."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.accounting_writers import slurm_duration, write_pbs, write_sacct
from schedlab.cli.main import main
from schedlab.errors import SchedlabError, SWFError
from schedlab.sim import simulate
from schedlab.sim.model import Machine
from schedlab.sim.validate import validate_schedule
from schedlab.strategy import DISPATCH_RULES, Strategy
from schedlab.workload import clean, load_trace, read_swf, read_trace
from schedlab.workload.accounting import parse_duration
from schedlab.workload.load import bundled_path, sniff_format
from schedlab.workload.pbs import allocated_procs, parse_pbs, requested_procs
from schedlab.workload.sacct import parse_sacct

DATA = Path(__file__).parent / "data" / "accounting"
#: 2024-03-31T00:00:00Z = 01:00 CET in Berlin, one hour before clocks went forward
T0_BERLIN = 1711843200


# ---------------------------------------------------------------------------- durations
@pytest.mark.parametrize(
    "text, minutes_alone, seconds",
    [
        ("30:30", True, 1830),  # MM:SS
        ("01:00:00", True, 3600),
        ("36:00:00", True, 129600),  # hours above 24
        ("1-00:00:00", True, 86400),
        ("2-02:00:00", True, 180000),
        ("1-12", True, 129600),  # D-HH
        ("1-12:30", True, 131400),  # D-HH:MM
        ("10", True, 600),  # sacct: minutes
        ("3600", False, 3600),  # PBS: seconds
        ("00:00:05.123", True, 5),
        ("UNLIMITED", True, None),
        ("Partition_Limit", True, None),
        ("", True, None),
    ],
)
def test_durations(text, minutes_alone, seconds):
    assert parse_duration(text, minutes_alone=minutes_alone) == seconds


@given(st.integers(0, 400 * 86400), st.integers(0, 2))
def test_durations_round_trip_every_slurm_style(seconds, style):
    assert parse_duration(slurm_duration(seconds, style)) == seconds


@pytest.mark.parametrize("bad", ["1:2:3:4", "abc", "-5", "1-"])
def test_bad_duration_raises(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_pbs_processor_counts():
    assert requested_procs({"Resource_List.nodes": "2:ppn=4"}) == 8
    assert requested_procs({"Resource_List.nodes": "node05:ppn=2+node06:ppn=2"}) == 4
    assert requested_procs({"Resource_List.nodes": "4"}) == 4
    assert requested_procs({"Resource_List.nodes": "2:ppn=4+1:ppn=2:gpus=1"}) == 10
    assert requested_procs({"Resource_List.select": "2:ncpus=8:mpiprocs=8"}) == 16
    assert requested_procs({"Resource_List.select": "1:ncpus=4+2:ncpus=2"}) == 8
    assert requested_procs({"Resource_List.ncpus": "12", "Resource_List.select": "1:ncpus=4"}) == 12
    assert requested_procs({"Resource_List.walltime": "01:00:00"}) == -1
    assert allocated_procs("n01/0-3+n02/0-3") == 8
    assert allocated_procs("n05/0+n05/1+n06/0,2,4-5") == 6
    assert allocated_procs("cn001/0*8+cn002/0*8") == 16
    assert allocated_procs("") == -1


# ---------------------------------------------------------------------------- hand-made sacct
def test_sacct_by_hand():
    w, report = parse_sacct(DATA / "berlin.sacct", procs=256, tz="Europe/Berlin")
    # the PENDING array range 1004 and the RUNNING 1016 are no finished jobs: skipped, counted by state
    assert report.skipped == {"job steps": 5, "blank lines": 1, "repeated header lines": 1,
                              "not finished (PENDING)": 1, "not finished (RUNNING)": 1}
    assert w.unix_start == T0_BERLIN and w.timezone == "Europe/Berlin" and w.machine_procs == 256
    got = {int(i): j for j, i in enumerate(w.id)}
    assert set(got) == {1001, 1002, 1003, 1010, 1011, 1012, 1013, 1014, 1015}
    # 1002 (UNLIMITED) and 1010 (Partition_Limit) ran without a limit: counted and listed for --policy slurm
    assert report.no_limit == 2 and " SchedlabNoLimit: 1002 1010" in w.header

    def job(i):
        j = got[i]
        return (w.submit[j], w.wait[j], w.runtime[j], w.procs[j], w.req_procs[j], w.estimate[j], w.status[j])

    assert job(1001) == (0, 1800, 3600, 16, 16, 7200, 1)
    # 01:00 CET -> 03:00 CEST is one hour: clocks went forward in between
    assert job(1002) == (3600, 300, 1830, 4, 4, -1, 0)  # MM:SS elapsed, UNLIMITED, FAILED
    assert job(1003) == (7200, -1, -1, -1, 32, 86400, 5)  # CANCELLED before start
    assert job(1010) == (10800, 0, 180000, 8, 8, -1, 0)  # array element, D-HH:MM:SS, Partition_Limit, TIMEOUT
    assert job(1011) == (10800, 3600, 600, 8, 8, 129600, 1)  # limit 36:00:00
    assert job(1012) == (21600, 10, 30, 2, 2, 600, 5)  # explicit +00:00 times; limit "10" = minutes; cancelled after start
    assert job(1013) == (28800, 60, 60, 64, 64, 30, 1)  # epoch-second times
    # users numbered in order of first appearance: alice=1, bob=2, carol=3, dave=4, erin=5
    assert w.user[got[1001]] == w.user[got[1003]] == 1 and w.user[got[1013]] == 2 and w.user[got[1014]] == 5
    cleaned, rep = clean(w)
    assert rep.as_dict() == {
        "jobs_in": 9, "machine_procs": 256, "cancelled": 1, "runtime": 1, "procs": 0, "too_wide": 1,
        "missing_estimate": 0, "estimate_filled": 2, "procs_from_requested": 0, "runtime_above_estimate": 1,
        "unsorted": 0, "jobs_out": 6,
    }
    assert sorted(cleaned.id.tolist()) == [1001, 1002, 1010, 1011, 1012, 1013]


def test_sacct_time_zone_shifts_local_times_only():
    utc, _ = parse_sacct(DATA / "berlin.sacct", procs=256)
    berlin, _ = parse_sacct(DATA / "berlin.sacct", procs=256, tz="Europe/Berlin")
    # read as UTC, 01:00 and 03:00 are two hours apart; the job with explicit +00:00 times does not move
    j2 = list(utc.id).index(1002)
    assert utc.submit[j2] - utc.submit[0] == 7200
    assert utc.unix_start == T0_BERLIN + 3600
    k = list(berlin.id).index(1012), list(utc.id).index(1012)
    assert berlin.unix_start + berlin.submit[k[0]] == utc.unix_start + utc.submit[k[1]]


# ---------------------------------------------------------------------------- hand-made PBS
def test_torque_by_hand():
    w, report = parse_pbs(DATA / "torque.pbs", procs=64, tz="America/Chicago")
    # 2002's D record is the record of the cancelled job it becomes (no E), so only 2005's D is skipped;
    # 2006 (Q and S records only) was still running when the log ends: no finished job, skipped and counted
    assert report.skipped == {"L records": 1, "Q records": 6, "S records": 4, "D records": 1, "blank lines": 1, "R records": 1,
                              "not finished (running)": 1}
    assert report.jobs == len(w) == 5
    # 2001 Q at 08:00 CDT = 13:00Z = ctime 1711976400
    assert w.unix_start == 1711976400
    rows = {(s, r, p, q, e, st) for s, r, p, q, e, st in zip(w.submit, w.runtime, w.procs, w.req_procs, w.estimate, w.status)}
    assert rows == {
        (0, 3600, 8, 8, 172800, 1),  # 2001: nodes=2:ppn=4, exec_host n01/0-3+n02/0-3, walltime 48:00:00
        (600, -1, -1, -1, -1, 5),  # 2002: Q at 08:10 CDT then D, no E -> cancelled
        (1200, 1900, 4, 4, 1800, 0),  # 2003: nodes=a:ppn=2+b:ppn=2, walltime 30:00, Exit_status 271
        (1800, 60, 1, 1, 3600, 1),  # 2004[1]: array element, nodes=1, walltime in seconds
        (2400, -1, -1, 4, 3600, 5),  # 2005: E without start (deleted while queued)
    }
    assert w.id.tolist() == [1, 2, 3, 4, 5]  # ids with [..] are not numbers: renumbered in submit order
    assert w.user[1] == -1  # 2002 has no S record: no user
    _, rep = clean(w)
    assert (rep.cancelled, rep.runtime, rep.runtime_above_estimate, rep.jobs_out) == (2, 0, 1, 3)


def test_pbspro_by_hand():
    w, report = parse_pbs(DATA / "pbspro.pbs", procs=64)
    assert report.skipped["array parent E records"] == 1 and report.skipped["A records"] == 1
    assert w.unix_start == 1712052000 and w.timezone == "UTC"
    rows = [(s, wt, r, p, q, e, st) for s, wt, r, p, q, e, st in
            zip(w.submit, w.wait, w.runtime, w.procs, w.req_procs, w.estimate, w.status)]
    assert rows == [
        (0, 10, 7200, 16, 16, 36000, 1),  # ncpus=16, exec_host */8 twice
        (600, 0, 600, 8, 8, 1200, 0),  # select=1:ncpus=4+2:ncpus=2, Exit_status=1
        (1800, 0, 240, 1, 1, 300, 1),  # subjob 3003[1]
        (9000, -1, -1, -1, -1, -1, 5),  # 3004 Q, D, A: deleted before it ran
    ]


# ---------------------------------------------------------------------------- sniffing, damage
def test_format_is_sniffed_and_every_reader_path_agrees():
    assert sniff_format(DATA / "berlin.sacct") == "sacct"
    assert sniff_format(DATA / "torque.pbs") == "pbs"
    assert sniff_format(bundled_path("KTH-SP2")) == "swf"
    a = read_trace(DATA / "berlin.sacct", procs=256, format="sacct:Europe/Berlin")
    b = parse_sacct(DATA / "berlin.sacct", procs=256, tz="Europe/Berlin")[0]
    assert np.array_equal(a.submit, b.submit) and a.unix_start == b.unix_start
    assert len(read_trace(DATA / "pbspro.pbs", procs=64)) == 4
    with pytest.raises(SchedlabError, match="unknown trace format"):
        read_trace(DATA / "pbspro.pbs", format="lsf")
    with pytest.raises(SchedlabError, match="unknown time zone"):
        read_trace(DATA / "pbspro.pbs", format="pbs:Mars/Olympus")


@pytest.mark.parametrize(
    "name, text, line, problem",
    [
        ("a.sacct", "JobID|Submit|Start|End|AllocCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1\n2|2024-01-01T00:00:00|1\n", 3, "expected 5"),
        ("b.sacct", "JobID|Submit|Start|End|AllocCPUS\n1|2024-13-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1\n", 2, "cannot read Submit"),
        ("c.sacct", "JobID|Submit|Start|End|AllocCPUS|Timelimit\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1|ten\n", 2, "cannot read Timelimit"),
        ("d.sacct", "JobID|Submit|Start|End|AllocCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|x\n", 2, "cannot read CPUs"),
        ("e.sacct", "JobID|Submit|End\n1|2024-01-01T00:00:00|2024-01-01T00:01:00\n", 1, "lacks"),
        ("i.sacct", "JobID|Submit|Start|End|AllocCPUS|State\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1|WEIRDSTATE\n",
         2, "cannot read State: unknown job state 'WEIRDSTATE'"),
        ("f.pbs", "04/01/2024 08:00:00;Q;1.s;queue=a\nthis line was cut by a crash\n", 2, "not a PBS accounting record"),
        ("g.pbs", "04/01/2024 08:00:00;E;1.s;user=a ctime=17x start=1 end=2\n", 1, "cannot read ctime"),
        ("h.pbs", "04/01/2024 08:00:00;E;1.s;user=a ctime=1 start=1 end=2 Resource_List.nodes=2:ppn=x\n", 1, "cannot read Resource_List"),
    ],
)
def test_damaged_input_is_one_line_naming_file_and_line(tmp_path, capsys, name, text, line, problem):
    path = tmp_path / name
    path.write_text(text)
    fmt = "sacct" if name.endswith(".sacct") else "pbs"
    with pytest.raises(SWFError) as info:
        read_trace(path, format=fmt)
    assert info.value.line == line and problem in str(info.value) and str(path) in str(info.value)
    assert main(["workload", "info", str(path), "--procs", "8", "--format", fmt]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}:{line}: ") and "\n" not in err


# ---------------------------------------------------------------------------- 2,000 KTH jobs
N_JOBS = 2000


@pytest.fixture(scope="module")
def kth_source():
    return read_swf(bundled_path("KTH-SP2")).take(np.arange(N_JOBS))


@pytest.fixture(scope="module", params=["sacct", "pbs"])
def converted(request, kth_source, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    text = folder / f"kth.{request.param}"
    injected = (write_sacct if request.param == "sacct" else write_pbs)(kth_source, text)
    out = folder / "kth.swf"
    assert main(["workload", "convert", str(text), "--from", request.param, "--procs", "100", "-o", str(out)]) == 0
    return request.param, text, out, injected


def test_converted_trace_equals_its_source_job_by_job(converted, kth_source):
    fmt, text, out, injected = converted
    src, src_report = clean(kth_source)
    raw = read_swf(out)  # the SWF that convert wrote, read back
    assert raw.machine_procs == 100 and raw.timezone == "UTC" and any("Conversion: schedlab" in h for h in raw.header)
    got, report = clean(raw)
    # cleaning counts: those of the source plus the never-started records the writer interleaved
    expected = src_report.as_dict()
    expected["jobs_in"] += injected["cancelled"] + injected["runtime"]
    expected["cancelled"] += injected["cancelled"]
    expected["runtime"] += injected["runtime"]
    assert report.as_dict() == expected
    # queued or running when the log ends: no finished job, skipped by the reader and counted
    read = (parse_sacct if fmt == "sacct" else parse_pbs)(text, procs=100)[1]
    assert sum(v for k, v in read.skipped.items() if k.startswith("not finished")) == injected["not_finished"]
    assert len(got) == len(src) == N_JOBS - sum(getattr(src_report, k) for k in src_report.REMOVED)
    for col in ("id", "runtime", "procs", "estimate"):
        assert np.array_equal(getattr(got, col), getattr(src, col)), col
    assert np.array_equal(got.submit + got.unix_start, src.submit + src.unix_start)
    # users are renumbered in order of first appearance: the same partition of jobs into users
    pairs = set(zip(got.user.tolist(), src.user.tolist()))
    assert len(pairs) == len(set(got.user.tolist())) == len(set(src.user.tolist()))


def test_converted_trace_simulates_under_every_policy(converted, kth_source):
    fmt, text, out, _ = converted
    src = load_trace(kth_source, procs=100)
    for path in (text, out):  # the accounting file itself (sniffed) and its SWF conversion
        w = load_trace(str(path)) if path == out else load_trace(read_trace(path, procs=100))
        assert np.array_equal(w.group, src.group)
        for policy in DISPATCH_RULES:
            s = simulate(w, Machine(100), Strategy(policy))
            validate_schedule(s)
            ref = simulate(src, Machine(100), Strategy(policy))
            assert np.array_equal(s.start + w.unix_start, ref.start + src.unix_start), policy


def test_workload_info_and_simulate_cli_take_the_accounting_file(converted, capsys):
    fmt, text, out, _ = converted
    assert main(["workload", "info", str(text), "--procs", "100", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    swf = json.loads((main(["workload", "info", str(out), "--json"]), capsys.readouterr().out)[1])
    assert info["offered_load"] > 0 and set(info["groups"]) == {"1", "2", "3", "4", "5"}
    for key in ("valid_jobs", "offered_load", "median_runtime_over_estimate", "groups", "users"):
        assert info[key] == swf[key], key
    assert main(["simulate", str(text), "--procs", "100", "--format", fmt, "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["simulate", str(out), "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["AWRT"] == b["AWRT"] and a["jobs"] == b["jobs"]


# ---------------------------------------------------------------------------- what convert states (issue 43)
STATES = """JobIDRaw|JobID|Partition|Submit|Start|End|Timelimit|AllocCPUS|State
1|1|batch|1000|1000|1060|00:05:00|4|COMPLETED
2|2|batch|1000|1000|1060|UNLIMITED|4|TIMEOUT
3|3|batch|1000|1000|1060|Partition_Limit|4|CANCELLED by 7
4|4|batch|1000|1000|1060|00:05:00|4|REQUEUED
5|5|batch|1000|1000|Unknown|00:05:00|4|SUSPENDED
6|6|batch|1000|Unknown|Unknown|00:05:00|0|PENDING
7|7|batch|1000|1000|1060|00:05:00|4|OUT_OF_MEMORY
"""


def test_sacct_states_are_mapped_and_records_not_finished_skipped_and_counted(tmp_path):
    path = tmp_path / "s.sacct"
    path.write_text(STATES)
    w, read = parse_sacct(path, procs=8)
    # COMPLETED 1, TIMEOUT and OUT_OF_MEMORY 0 (ended without success), CANCELLED 5; the requeued, suspended
    # and pending records are no finished jobs: skipped, one count per state, never status -1 jobs
    assert dict(zip(w.id.tolist(), w.status.tolist())) == {1: 1, 2: 0, 3: 5, 7: 0}
    assert read.skipped == {"not finished (REQUEUED)": 1, "not finished (SUSPENDED)": 1, "not finished (PENDING)": 1}
    assert read.no_limit == 2 and " SchedlabNoLimit: 2-3" in w.header


def test_convert_states_skips_and_jobs_without_a_limit(tmp_path, capsys):
    path = tmp_path / "s.sacct"
    path.write_text(STATES)
    out = tmp_path / "s.swf"
    assert main(["workload", "convert", str(path), "--from", "sacct", "--procs", "8", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "skipped: not finished (PENDING)" in text and "jobs that ran without a time limit (estimate -1)" in text
    assert "2 jobs ran without a time limit (UNLIMITED, Partition_Limit or none), written with estimate -1" in text
    assert " SchedlabNoLimit: 2-3" in read_swf(out).header


def test_convert_refuses_a_job_wider_than_procs_before_writing(tmp_path, capsys):
    from conftest import one_line_error

    path = tmp_path / "w.sacct"
    path.write_text(STATES.replace("|1060|00:05:00|4|COMPLETED", "|1060|00:05:00|200|COMPLETED"))
    out = tmp_path / "w.swf"
    code = main(["workload", "convert", str(path), "--from", "sacct", "--procs", "100", "-o", str(out)])
    one_line_error(code, capsys.readouterr().err, f"{path}: job 1 needs 200 processors, wider than the machine (--procs 100)",
                   "give --procs at least 200")
    assert not out.exists()  # no SWF whose MaxProcs contradicts its jobs


@pytest.mark.parametrize("name, text, line, problem", [
    ("g.pbs", "04/01/2024 08:00:00;Q;1.s;queue=a\nthis line was cut by a crash\n"
              "04/01/2024 08:00:09;E;1.s;user=a ctime=1711958400 start=1711958405 end=1711958465 exec_host=n1/0 Exit_status=0\n",
     2, "not a PBS accounting record"),
    ("g.sacct", "JobID|Submit|Start|End|AllocCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1\n"
                "2|2024-01-01T00:00:00|1\n", 3, "expected 5 '|'-separated fields"),
])
def test_a_damaged_line_is_an_error_or_with_bad_lines_skip_counted_and_named(tmp_path, capsys, name, text, line, problem):
    from conftest import one_line_error

    path = tmp_path / name
    path.write_text(text)
    out = tmp_path / "out.swf"
    fmt = name.rsplit(".", 1)[1]
    code = main(["workload", "convert", str(path), "--from", fmt, "--procs", "4", "-o", str(out)])
    one_line_error(code, capsys.readouterr().err, f"{path}:{line}: {problem}")  # the default, both readers alike
    assert not out.exists()
    assert main(["workload", "convert", str(path), "--from", fmt, "--procs", "4", "-o", str(out), "--bad-lines", "skip"]) == 0
    text_out = capsys.readouterr().out
    assert "skipped: damaged lines" in text_out
    assert f"1 damaged lines skipped (--bad-lines skip); the first: {path}:{line}: {problem}" in text_out
    assert len(read_swf(out)) == 1  # the one job the file holds besides the damaged line
