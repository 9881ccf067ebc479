"""`schedlab simulate` / `schedlab compare`: JSON keys, agreement with the API, one-line errors."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from conftest import one_line_error, run, trace_path
from schedlab.cli.simulate import CSV_KEYS, JSON_KEYS, SCHEDULE_COLUMNS
from schedlab.metrics import Objective, compute_metrics
from schedlab.sim import simulate
from schedlab.sim.model import Machine
from schedlab.sim.validate import validate_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace

KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")


@pytest.fixture(scope="module")
def kth_cut(tmp_path_factory):
    """The first two months of the real KTH-SP2 trace as an SWF file (keeps the slow checks short)."""
    from schedlab.workload import read_trace, write_swf
    from schedlab.workload.cut import cut_months

    path = tmp_path_factory.mktemp("kth") / "KTH-2months.swf"
    write_swf(cut_months(read_trace(str(KTH)), 2), path)
    return path


def write_swf(path, rows, max_procs=4):
    """A tiny SWF file: rows of (submit, runtime, procs, estimate, user)."""
    lines = ["; Version: 2.2", f"; MaxProcs: {max_procs}", f"; MaxNodes: {max_procs}"]
    for i, (submit, runtime, procs, estimate, user) in enumerate(rows, start=1):
        fields = [i, submit, 0, runtime, procs, -1, -1, procs, estimate, -1, 1, user, 1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    path.write_text("\n".join(lines) + "\n")
    return path


def simulate_in_test(spec, strategy, *, procs=None, kill=True):
    w = load_trace(str(spec), procs=procs)
    s = simulate(w, Machine(procs or w.machine_procs), strategy, kill=kill)
    validate_schedule(s)
    return s


def assert_same_metrics(row, metrics):
    for key, value in metrics.items():
        if value is None:
            assert row[key] is None, key
        else:
            assert row[key] == pytest.approx(value, rel=1e-12), key


# ---------------------------------------------------------------------------- simulate
def test_json_has_exactly_the_keys_and_agrees_with_compute_metrics(capsys, tmp_path):
    out_csv = tmp_path / "sched.csv"
    code, out, err = run(capsys, "simulate", KTH, "--policy", "easy", "--json", "--repeat", "3", "--schedule-out", out_csv)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1
    row = json.loads(out)
    assert tuple(row) == JSON_KEYS
    s = simulate_in_test(KTH, Strategy("easy"))
    metrics = compute_metrics(s)
    assert_same_metrics(row, metrics)
    assert row["jobs"] == len(s.workload) and row["procs"] == 100
    assert row["objective"] == pytest.approx(10 * metrics["AWRT1"] + 4 * metrics["AWRT2"])
    assert row["sim_seconds"] > 0 and row["compile_seconds"] >= 0
    # batch results can be told apart: what was simulated is in the document
    assert row["trace"] == "KTH-SP2-1996-2.1-cln" and row["strategy"] == "easy"
    assert row["objective_expression"] == str(Objective("10*AWRT1 + 4*AWRT2"))
    assert row["trace_options"] == {"procs": None, "months": None, "scale_to": None, "calibrate_load": False}
    # the schedule file: one row per job, the columns in order, the starts of the in-test run
    with open(out_csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == SCHEDULE_COLUMNS and len(rows) == len(s.workload)
    np.testing.assert_array_equal(np.array([float(r["start"]) for r in rows]), s.start)
    np.testing.assert_array_equal(np.array([int(r["id"]) for r in rows]), s.workload.id)
    assert not list(tmp_path.glob(".*.tmp"))  # atomic write left no temp file


def test_small_trace_hand_computed(capsys, tmp_path):
    # m = 4, FCFS.  j1 r=0 p=10 m=4 -> [0, 10); j2 r=1 p=5 m=2 and j3 r=2 p=5 m=2 wait for j1,
    # then run side by side on [10, 15).  waits 0, 9, 8 -> mean 17/3;
    # AWRT = (40*10 + 10*14 + 10*13) / 60 = 670 / 60; UTIL = 100 * 60 / (4 * 15) = 100 %
    swf = write_swf(tmp_path / "small.swf", [(0, 10, 4, 10, 1), (1, 5, 2, 5, 2), (2, 5, 2, 5, 3)])
    code, out, err = run(capsys, "simulate", swf, "--policy", "fcfs", "--json", "--objective", "AWRT + 0*jobs")
    assert code == 0, err
    row = json.loads(out)
    assert row["jobs"] == 3 and row["procs"] == 4
    assert row["mean_wait"] == pytest.approx(17 / 3)
    assert row["AWRT"] == pytest.approx(670 / 60) == row["objective"]
    assert row["UTIL"] == pytest.approx(100.0)
    assert row["makespan"] == pytest.approx(15.0)
    simulate_in_test(swf, Strategy("fcfs"))


def test_kill_and_no_kill(capsys, tmp_path):
    # one job with runtime 100 but estimate 40: killed at 40 unless --no-kill
    swf = write_swf(tmp_path / "over.swf", [(0, 100, 1, 40, 1)])
    finishes = {}
    for flag in ([], ["--no-kill"]):
        out_csv = tmp_path / f"s{len(flag)}.csv"
        code, _, err = run(capsys, "simulate", swf, "--policy", "fcfs", "--json", "--objective", "AWRT",
                           "--schedule-out", out_csv, *flag)
        assert code == 0, err
        with open(out_csv, newline="") as fh:
            finishes[bool(flag)] = float(next(csv.DictReader(fh))["finish"])
    assert finishes == {False: 40.0, True: 100.0}


def test_strategy_file_overrides_policy(capsys, tmp_path, kth_cut):
    strategy = Strategy("conservative", order="estimate")
    f = tmp_path / "s.json"
    f.write_text(strategy.to_json())
    code, out, err = run(capsys, "simulate", kth_cut, "--policy", "fcfs", "--strategy", f, "--json")
    assert code == 0, err
    assert_same_metrics(json.loads(out), compute_metrics(simulate_in_test(kth_cut, strategy)))


def test_table_output_and_policy_help(capsys):
    code, out, err = run(capsys, "simulate", KTH, "--policy", "list", "--order", "procs")
    assert code == 0, err
    assert "list/procs" in out and "UTIL" in out and "KTH" in out and "28," in out
    code, out, _ = run(capsys, "simulate", "--policy", "help")
    assert code == 0
    for word in ("fcfs", "list", "easy", "conservative", "submit", "procs", "estimate", "group"):
        assert word in out


def test_objective_over_an_empty_group_is_null_with_a_warning(capsys, tmp_path):
    swf = write_swf(tmp_path / "one.swf", [(0, 10, 1, 10, 1)])
    code, out, err = run(capsys, "simulate", swf, "--policy", "fcfs", "--json", "--objective", "AWRT5")
    assert code == 0
    row = json.loads(out)
    assert row["objective"] is None and row["AWRT5"] is None
    assert "AWRT5" in err and "warning" in err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--policy", "fifo"], ["unknown policy 'fifo'", "easy"]),
        (["--order", "random"], ["unknown queue order 'random'"]),
        (["--objective", "AWRT +"], ["cannot parse objective"]),
        (["--objective", "WAIT"], ["unknown metric 'WAIT'", "AWRT1"]),
        (["--repeat", "0"], ["--repeat"]),
        (["--procs", "0"], ["--procs"]),
    ],
)
def test_bad_options_give_one_line(capsys, argv, words):
    code, _, err = run(capsys, "simulate", KTH, *argv)
    one_line_error(code, err, *words)


def test_bad_files_give_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 5 0 ten 1\n")
    one_line_error(*run(capsys, "simulate", bad)[::2], "bad.swf", "3")
    one_line_error(*run(capsys, "simulate", tmp_path / "missing.swf")[::2], "missing.swf")
    not_json = tmp_path / "s.json"
    not_json.write_text("{dispatch: easy")
    one_line_error(*run(capsys, "simulate", KTH, "--strategy", not_json)[::2], "s.json", "JSON")
    extra = tmp_path / "e.json"
    extra.write_text('{"dispatch": "easy", "speed": 3}')
    one_line_error(*run(capsys, "simulate", KTH, "--strategy", extra)[::2], "e.json", "speed")
    one_line_error(*run(capsys, "simulate", KTH, "--strategy", tmp_path / "nope.json")[::2], "nope.json")
    one_line_error(*run(capsys, "simulate", KTH, "--schedule-out", tmp_path / "no" / "s.csv")[::2], "s.csv", "folder")


def test_job_wider_than_the_machine(capsys, tmp_path):
    swf = write_swf(tmp_path / "wide.swf", [(0, 10, 8, 10, 1), (1, 10, 2, 10, 1)], max_procs=8)
    code, _, err = run(capsys, "simulate", swf, "--procs", "4")
    one_line_error(code, err, "wide")


# ---------------------------------------------------------------------------- compare
def test_compare_table_and_csv_agree_with_the_api(capsys, tmp_path, kth_cut):
    out_csv = tmp_path / "cmp.csv"
    policies = ["fcfs", "easy/estimate", "greedy", "list/group"]
    code, out, err = run(capsys, "compare", kth_cut, "--policies", ",".join(policies), "--csv", out_csv,
                         "--objective", "AWRT1 + AWRT")
    assert code == 0, err
    for p in policies:
        assert p in out
    with open(out_csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["strategy"] for r in rows] == policies
    assert tuple(rows[0])[1:] == CSV_KEYS
    assert all(r["jobs"].isdigit() and r["procs"].isdigit() for r in rows)  # counts as whole numbers
    from schedlab.strategy.registry import parse_policy

    objective = Objective("AWRT1 + AWRT")
    for r, p in zip(rows, policies):
        s = simulate_in_test(kth_cut, parse_policy(p))
        m = compute_metrics(s)
        for key in ("AWRT", "AWRT1", "UTIL", "mean_bounded_slowdown", "makespan"):
            assert float(r[key]) == pytest.approx(m[key], rel=1e-12), (p, key)
        assert float(r["objective"]) == pytest.approx(objective(m))
    # different strategies really give different schedules
    assert len({r["AWRT"] for r in rows}) == len(rows)


def test_compare_default_is_the_four_rules(capsys):
    code, out, err = run(capsys, "compare", "KTH-SP2")
    assert code == 0, err
    for p in ("fcfs", "list", "easy", "conservative"):
        assert p in out
    assert "AWRT1" in out and "objective" in out


def test_compare_rejects_a_bad_policy_before_simulating(capsys):
    one_line_error(*run(capsys, "compare", KTH, "--policies", "easy,fastest")[::2], "fastest")
    one_line_error(*run(capsys, "compare", KTH, "--policies", "easy/biggest")[::2], "biggest")
    one_line_error(*run(capsys, "compare", KTH, "--policies", ",")[::2], "--policies")


# ---------------------------------------------------------------------------- the compare gate (issue 32)
def _one_group(tmp_path):
    """Six jobs of one user on 4 processors: user group 1 only (AWRT2 .. AWRT5 undefined); FCFS makes
    the small jobs wait behind a wide one that EASY backfills around."""
    rows = [(0, 100, 3, 100, 1), (1, 100, 4, 100, 1), (2, 10, 1, 10, 1), (3, 10, 1, 10, 1), (4, 10, 1, 10, 1),
            (5, 10, 1, 10, 1)]
    return write_swf(tmp_path / "one-group.swf", rows)


@pytest.mark.parametrize("as_json", [False, True])
def test_compare_gate_fails_when_the_objective_is_undefined(capsys, tmp_path, as_json):
    swf = _one_group(tmp_path)
    code, out, err = run(capsys, "compare", swf, "--policies", "fcfs,easy", "--fail-worse-than", "5",
                         *(["--json"] if as_json else []))
    one_line_error(code, err, "AWRT2", "undefined", "fcfs")
    assert out == ""  # no table, no JSON that could be read as a pass
    # the same trace with a defined objective: the gate evaluates (FCFS is worse than EASY here)
    code, out, err = run(capsys, "compare", swf, "--policies", "fcfs,easy", "--fail-worse-than", "5",
                         "--objective", "AWRT1", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["worse_than_easy"] == ["fcfs"], err
    # without a gate compare still shows every metric: the objective null with a warning, and it says that
    # nothing was judged against EASY (never "no strategy worse", which would read as a pass)
    code, out, err = run(capsys, "compare", swf, "--policies", "fcfs,easy", "--json")
    doc = json.loads(out)
    assert code == 0 and all(r["objective"] is None for r in doc["rows"]) and doc["judged_against_easy"] is False
    assert "warning" in err and "undefined for fcfs" in err and doc["worse_than_easy"] == []
    code, out, err = run(capsys, "compare", swf, "--policies", "fcfs,easy")
    assert code == 0 and "no strategy judged against EASY" in " ".join(out.split()) and "no strategy worse" not in out


def test_compare_gate_judges_a_zero_baseline_by_the_sign(capsys, tmp_path):
    swf = write_swf(tmp_path / "idle.swf", [(0, 10, 1, 10, 1), (100, 10, 1, 10, 1)])  # nobody waits
    code, out, err = run(capsys, "compare", swf, "--policies", "fcfs", "--objective", "AWWT", "--fail-worse-than", "5",
                         "--json")
    row = json.loads(out)["rows"][0]  # EASY's AWWT is 0 and so is FCFS's: not worse, no percentage of 0
    assert code == 0 and row["objective_diff"] == 0.0 and row["vs_easy_pct"] is None and not row["worse_than_easy"], err


# ---------------------------------------------------------------------------- one policy list (issue 32)
def test_every_policy_is_listed_in_help_and_errors_and_greedy_simulates(capsys, tmp_path):
    from schedlab.cli.policies import POLICIES
    from schedlab.strategy.policies import DEFAULT_GREEDY

    assert {"fcfs", "list", "easy", "conservative", "greedy", "scojo", "scojo-opt", "scojo-bottomline"} <= set(POLICIES)
    code, out, _ = run(capsys, "simulate", "--help")
    flat = " ".join(out.split())
    for verb in ("simulate", "compare"):
        code, listing, _ = run(capsys, verb, "--policy" if verb == "simulate" else "--policies", "help")
        assert code == 0
        code, _, err = run(capsys, verb, "KTH-SP2", "--months", "1", "--policy" if verb == "simulate" else "--policies",
                           "fifo")
        one_line_error(code, err, "unknown policy 'fifo'")
        for name in POLICIES:
            assert f"  {name} " in listing and name in err, (verb, name)
    for name in POLICIES:
        assert name in flat, name  # the --policy help names them all
    swf = write_swf(tmp_path / "t.swf", [(0, 10, 2, 10, 1), (1, 10, 4, 10, 2), (2, 5, 1, 5, 3), (3, 5, 3, 9, 4)])
    code, out, err = run(capsys, "simulate", swf, "--policy", "greedy", "--json")
    assert code == 0, err
    row = json.loads(out)
    assert row["strategy"] == Strategy.greedy(DEFAULT_GREEDY).label
    assert_same_metrics(row, compute_metrics(simulate_in_test(swf, Strategy.greedy(DEFAULT_GREEDY))))
    code, out, err = run(capsys, "simulate", swf, "--policy", "easy", "--order", "greedy", "--json")
    assert code == 0 and json.loads(out)["strategy"] == Strategy.greedy(DEFAULT_GREEDY, dispatch="easy").label, err
    one_line_error(*run(capsys, "simulate", swf, "--policy", "greedy", "--order", "procs")[::2], "greedy", "own queue order")


def test_evolve_compare_names_the_strategy_and_workload_of_an_undefined_objective(capsys, tmp_path):
    swf = _one_group(tmp_path)
    strategy = tmp_path / "fcfs.json"
    strategy.write_text(Strategy("fcfs").to_json())
    code, out, err = run(capsys, "evolve", "compare", strategy, swf, "--fail-worse-than", "5")
    one_line_error(code, err, "AWRT2", "undefined for fcfs on one-group", "user group 2 has no jobs")
    assert out == ""
