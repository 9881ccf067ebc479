"""A new user's first hour (issue 9): every --help works, every mistake is one line with exit 2 and
writes nothing, options mean one thing across verbs, resume compares meaning, SIGTERM stops long
runs cleanly. Everything here runs on the bundled KTH-SP2 trace, so it also covers the grid and
evolve end to end on a bare clone without ../shared/workloads."""

from __future__ import annotations

import csv
import json
import os
import signal
import stat
import sys
import time

import pytest

from conftest import popen_stoppable
from schedlab.cli.main import main
from schedlab.cli.options import DEFAULT_SEED
from schedlab.grid.setups import load_grid
from schedlab.grid.sim import check_site_schedules, simulate_grid
from schedlab.metrics.grid import grid_summary
from schedlab.sim import validate_schedule
from schedlab.workload.load import bundled_path

BARE_GRID = ["--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1"]
CLI = [sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())"]


def _commands():
    """Every (path, click command) of the CLI, verbs and sub-verbs."""
    import typer

    from schedlab.cli.main import _register, app

    _register()
    root = typer.main.get_command(app)
    out = []

    def walk(cmd, path):
        out.append((path, cmd))
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(root, [])
    return out


def _one_line_error(capsys, code, *words):
    out, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_help_of_every_verb_and_sub_verb(capsys):
    paths = [path for path, _ in _commands()]
    assert ["compare"] in paths and ["grid", "pareto"] in paths and ["workload", "scale"] in paths
    for path in paths:
        assert main([*path, "--help"]) == 0, path
        out, err = capsys.readouterr()
        assert "Usage" in out and "Traceback" not in out + err, path
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("schedlab ")


def test_options_mean_one_thing_across_verbs():
    short = {"-o": "--output", "-m": "--procs", "-p": "--policy"}
    takes_trace = 0
    for path, cmd in _commands():
        params = {p.name: p for p in cmd.params}
        for p in cmd.params:
            for flag, long in short.items():
                if flag in p.opts:
                    assert long in p.opts, (path, p.opts)
            if "--seed" in p.opts:
                assert p.default == DEFAULT_SEED, path
            if "--workers" in p.opts:
                assert p.default is None, path  # all cores
            if "--json" in p.opts:
                assert p.is_flag, path
        # a verb takes a TRACE when it is a positional argument ('plot --trace' only relocates a RUN's own trace)
        if any(n in params and params[n].param_type_name == "argument" for n in ("trace", "traces")):
            takes_trace += 1
            flags = {o for p in cmd.params for o in p.opts}
            assert {"--procs", "--months", "--scale-to", "--calibrate-load"} <= flags, path
    assert takes_trace == 15  # simulate, compare, evolve greedy/compare/slurm, workload info/clean/cut/group/scale, federation run/compare, rules iterative/evolve/show


MISTAKES = [
    (["compare", "KTH-SP2", "--policies", "easy", "--csv", "."], "is a folder"),
    (["compare", "KTH-SP2", "--policies", "easy", "--csv", "nowhere/t.csv"], "does not exist"),
    (["compare"], "missing TRACE"),
    (["simulate"], "missing TRACE"),
    (["simulate", "KTH-SP2", "--procs", "50"], "wider than the machine"),
    (["simulate", "KTH-SP2", "--months", "0"], "--months must be a positive"),
    (["simulate", "KTH-SP2", "--scale-to", "-5"], "--scale-to must be a positive"),
    (["simulate", "KTH-SP2", "--calibrate-load"], "give --scale-to too"),
    (["grid", "simulate", "--site", "KTH-SP2:50", "--site", "KTH-SP2:100", "--months", "1"],
     "wider than the machine (site KTH-SP2 of 50 processors); 650 jobs are wider"),
    (["grid", "pareto", *BARE_GRID, "--out", "p", "--workers", "0"], "--workers must be a positive"),
    (["evolve", "greedy", "KTH-SP2", "--out", "r", "--workers", "0"], "--workers must be a positive"),
    (["evolve", "greedy", "KTH-SP2", "--out", "r", "--calibrate-load"], "give --scale-to too"),
    (["evolve", "greedy", "KTH-SP2", "--out", "r", "--optimizer", "cmaes", "--mu", "5", "--lambda", "2"],
     "--mu 5 exceeds --lambda 2"),
    (["evolve", "compare", "nope.json", "KTH-SP2"], "nope.json"),
    (["rules", "iterative", "KTH-SP2", "--out", "r", "--workers", "0"], "--workers must be a positive"),
    (["rules", "iterative", "KTH-SP2", "--out", "r", "--partitions", "nope.json"], "nope.json"),
    (["rules", "evolve", "KTH-SP2", "--out", "r", "--calibrate-load"], "give --scale-to too"),
    (["rules", "evolve", "KTH-SP2", "--out", "r", "--objective", "AWRT9"], "AWRT9"),
    (["rules", "show", "nope.json"], "nope.json"),
    (["workload", "clean", "KTH-SP2", "-o", "."], "is a folder"),
    (["workload", "cut", "KTH-SP2", "-o", "c.swf"], "--months"),
    (["workload", "scale", "KTH-SP2", "-o", "s.swf"], "--scale-to"),
    (["workload", "group", "KTH-SP2", "--procs", "50", "-o", "g.swf"], "wider than the machine"),
    (["bound", "KTH-SP2", "--out", "r", "--moves", "0"], "--moves must be at least 1"),
    (["bound", "KTH-SP2", "--out", "r", "--head-start", "-1"], "--head-start must be >= 0"),
    # usage mistakes the option parser finds: one line too, naming the option and where help is
    (["simulate", "KTH-SP2", "--repeat", "abc"], "'--repeat'"),
    (["simulate", "KTH-SP2", "--nope"], "No such option: --nope"),
    (["federation", "run", "KTH-SP2", "--method", "jpr", "--package-size", "10", "--out", "r", "--workers", "x"],
     "'schedlab federation run --help'"),
    (["simulate", "KTH-SP2", "--seed-strategy", "x"], "No such option"),
    (["evolve", "greedy", "KTH-SP2", "--out", "r", "--seed", "-1"], "--seed must be a whole number >= 0"),
    (["evolve", "greedy", "KTH-SP2", "--out", "r", "--workers", str(10**9)], "at most"),
]


@pytest.mark.parametrize("argv, words", MISTAKES, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(MISTAKES)])
def test_every_mistake_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    _one_line_error(capsys, main(argv), words)
    assert list(tmp_path.iterdir()) == []


def test_swf_error_shows_the_field_as_written(capsys, tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n1 0 0 10 1e20 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n")
    line = _one_line_error(capsys, main(["workload", "info", str(bad)]))
    assert line == f"error: {bad}:2: field 5 (procs) must be an integer, found 1e20"


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_files_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        assert main(["workload", "cut", "KTH-SP2", "--months", "1", "-o", str(tmp_path / "k.swf")]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "k.swf").stat().st_mode) == 0o666 & ~mask


def _evolve(out, *extra):
    return ["evolve", "greedy", "KTH-SP2", "--months", "1", "--out", str(out), "--generations", "2", "--mu", "5",
            "--lambda", "2", "--workers", "1", *extra]


def test_lambda_below_mu_runs_and_resume_compares_meaning(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(_evolve(out, "--objective", "10*AWRT1+4*AWRT2")) == 0  # was an IndexError after generation 1
    history = (out / "history.csv").read_text()
    assert len(history.splitlines()) == 3
    capsys.readouterr()
    # the same objective spaced differently, and the bundled trace given by its path: the same run
    same = _evolve(out, "--objective", "10 * AWRT1 + 4.0*AWRT2")
    same[2] = str(bundled_path("KTH-SP2"))
    assert main(same) == 0
    assert (out / "history.csv").read_text() == history
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    line = _one_line_error(capsys, main(_evolve(out, "--objective", "10*AWRT1+5*AWRT2", "--seed", "2")))
    assert "objective: stored '10*AWRT1+4*AWRT2', given '10*AWRT1+5*AWRT2'" in line
    assert "seed: stored 1, given 2" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_strategy_trained_on_a_scaled_calibrated_trace_replays_on_it(tmp_path, capsys):
    out = tmp_path / "r"
    setup = ["--months", "1", "--scale-to", "200", "--calibrate-load"]
    assert main(["evolve", "greedy", "KTH-SP2", *setup, "--out", str(out), "--generations", "1", "--mu", "2",
                 "--lambda", "2", "--workers", "1"]) == 0
    best = float(list(csv.DictReader((out / "history.csv").open()))[-1]["best"])
    capsys.readouterr()
    assert main(["simulate", "KTH-SP2", *setup, "--strategy", str(out / "best.json"), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["objective"] == pytest.approx(best, rel=1e-12) and row["procs"] == 200
    assert row["trace_options"] == {"procs": None, "months": 1, "scale_to": 200, "calibrate_load": True}


@pytest.mark.parametrize("exchange", ["none", "pool", "rq"])
def test_grid_on_the_bundled_trace(capsys, exchange):
    """Grid coverage without the shared traces: CLI = API, every site's schedule through the validator."""
    assert main(["grid", "simulate", *BARE_GRID, "--exchange", exchange, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    g = simulate_grid(load_grid(sites=["KTH-SP2:100", "KTH-SP2:100"], months=1), exchange)
    check_site_schedules(g)
    for k in range(2):
        validate_schedule(g.site_schedule(k))
    assert doc["sites"] == grid_summary(g)["sites"] and doc["exchange"] == exchange
    assert sum(s["jobs"] for s in doc["sites"]) == len(g.trace)


# a grid pareto run whose evaluations take a little time, so that a signal lands mid-run
_SLOW_PARETO = """
import sys, time
import schedlab.grid.partition as partition
_evaluate = partition.evaluate_partition
def slow(payload, x):
    time.sleep(0.03)
    return _evaluate(payload, x)
partition.evaluate_partition = slow
from schedlab.cli.main import main
sys.exit(main())
"""


def _pareto_files(folder):
    def rows(name):
        with (folder / name).open() as fh:
            return [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(fh)]

    return {name: rows(name) for name in ("history.csv", "points.csv", "front.csv")}


@pytest.mark.slow  # a grid pareto run in a new process, stopped and resumed
def test_sigterm_stops_grid_pareto_cleanly_and_the_same_command_resumes(tmp_path):
    args = ["grid", "pareto", *BARE_GRID, "--generations", "10", "--pop", "6", "--seed", "3", "--workers", "1"]
    whole = tmp_path / "whole"
    assert main([*args, "--out", str(whole)]) == 0
    stopped = tmp_path / "stopped"
    victim = popen_stoppable([sys.executable, "-c", _SLOW_PARETO, *args, "--out", str(stopped)])
    deadline = time.time() + 120
    while time.time() < deadline and not (
        (stopped / "history.csv").exists() and len((stopped / "history.csv").read_text().splitlines()) > 3
    ):
        time.sleep(0.01)
    victim.send_signal(signal.SIGTERM)
    _, err = victim.communicate(timeout=60)
    assert victim.returncode == 143, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted by SIGTERM: checkpoint of generation ") and "re-run the same command" in last
    assert "Traceback" not in err
    done = len((stopped / "history.csv").read_text().splitlines()) - 1
    assert 3 <= done < 10
    resumed = popen_stoppable([*CLI, *args, "--out", str(stopped)])
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert _pareto_files(stopped) == _pareto_files(whole)


@pytest.mark.slow  # two grid pareto runs
def test_grid_pareto_resumes_with_the_trace_given_by_path_instead_of_its_bundled_name(tmp_path):
    """A run started on ``--site KTH-SP2:100`` and extended with the same data named by its path is the
    same run (config compared by the data's hash, not by its label): it goes on, and ends as a run
    made by path from the start."""
    path = str(bundled_path("KTH-SP2"))
    by_path = ["--site", f"{path}:100", "--site", f"{path}:100", "--months", "1"]
    rest = ["--pop", "6", "--seed", "3", "--workers", "1"]
    whole = tmp_path / "whole"
    assert main(["grid", "pareto", *by_path, *rest, "--generations", "3", "--out", str(whole)]) == 0
    run = tmp_path / "run"
    assert main(["grid", "pareto", *BARE_GRID, *rest, "--generations", "2", "--out", str(run)]) == 0
    assert main(["grid", "pareto", *by_path, *rest, "--generations", "3", "--extend", "--out", str(run)]) == 0
    assert _pareto_files(run) == _pareto_files(whole)
    # a different machine size is still a different run
    other = ["--site", f"{path}:100", "--site", f"{path}:90", "--months", "1"]
    assert main(["grid", "pareto", *other, *rest, "--generations", "4", "--extend", "--out", str(run)]) == 2


def test_reports_are_for_people(tmp_path):
    """A committed run's report rebuilt from its stored files: set-up in words, no absolute path,
    AWRT in hours in the table (as in the chart), the figures written."""
    import shutil
    from pathlib import Path

    from schedlab.report.run_report import regenerate_run_report

    src = Path(__file__).resolve().parents[1] / "docs" / "results" / "ctc1024cal-f2-log"
    run = tmp_path / "run"
    run.mkdir()
    for name in ("config.json", "history.csv", "comparison.json", "best.json"):
        shutil.copy(src / name, run / name)
    config = json.loads((run / "config.json").read_text())
    config["traces"] = ["/some/machine/shared/workloads/CTC-SP2-1996-3.1-cln.swf.gz"]
    (run / "config.json").write_text(json.dumps(config))
    page = regenerate_run_report(run).read_text()
    assert "/some/machine" not in page
    assert ("Trained on CTC-SP2-1996-3.1-cln.swf.gz, read on 430 processors, scaled to 1,024 processors "
            "(Ernemann et al. 2003, seed 0) and load-calibrated") in page
    assert "<th>AWRT1 (h)</th>" in page
    easy_awrt1 = json.loads((run / "comparison.json").read_text())[0]["AWRT1_easy"]
    assert f"<td>{easy_awrt1 / 3600:,.2f}</td>" in page
    for name in ("convergence.png", "awrt_groups.png"):
        assert (run / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("require", [False, True])
def test_missing_real_traces_skip_on_a_bare_clone_and_fail_in_ci(tmp_path, require):
    """The suite's own switch: without the traces folder a test that needs it skips with one reason;
    with SCHEDLAB_REQUIRE_WORKLOADS=1 (what .ci/run sets) it fails."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SCHEDLAB_SHARED", "SCHEDLAB_REQUIRE_WORKLOADS")}
    env["SCHEDLAB_WORKLOADS"] = str(tmp_path / "no-traces")
    if require:
        env["SCHEDLAB_REQUIRE_WORKLOADS"] = "1"
    test = "tests/test_clean.py::test_real_traces_match_manifest_notes"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    reason = f"real-trace folder {tmp_path / 'no-traces'} not found (set SCHEDLAB_WORKLOADS to the traces folder)"
    assert reason in done.stdout
    if require:
        assert done.returncode == 1 and "1 failed" in done.stdout
    else:
        assert done.returncode == 0 and "1 skipped" in done.stdout
