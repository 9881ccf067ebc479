"""`schedlab evolve greedy`: a tiny run end to end, resume, replay, SIGKILL, and bad input (exit 2)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from schedlab.cli.main import main
from schedlab.metrics import Objective, compute_metrics
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace, write_swf

from conftest import popen_stoppable, trace_path

OBJ = "10*AWRT1 + 4*AWRT2"


@pytest.fixture(scope="module")
def kth_file(tmp_path_factory) -> Path:
    """The first month of the real KTH-SP2 trace as an SWF file (small enough for many evaluations)."""
    path = tmp_path_factory.mktemp("traces") / "kth-month1.swf"
    write_swf(load_trace("KTH-SP2", months=1), path)
    return path


def _args(trace: Path, out: Path, *extra: str) -> list[str]:
    return ["evolve", "greedy", str(trace), "--objective", OBJ, "--out", str(out), "--generations", "3",
            "--mu", "2", "--lambda", "4", "--seed", "5", "--workers", "1", *extra]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _history(folder: Path) -> list[list[str]]:
    rows = list(csv.reader((folder / "history.csv").open()))
    return [r[:5] + r[6:] for r in rows]  # without elapsed


def test_tiny_run_writes_a_replayable_run_folder_and_resumes(tmp_path, kth_file, capsys):
    out = tmp_path / "run"
    assert main(_args(kth_file, out)) == 0
    for name in ("config.json", "checkpoint", "history.csv", "best.json", "report.html", "convergence.png",
                 "awrt_groups.png", "comparison.json"):
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.html").read_text()
    assert 'src="convergence.png"' in report and 'src="awrt_groups.png"' in report
    assert (out / "convergence.png").read_bytes()[:4] == b"\x89PNG"
    history = list(csv.DictReader((out / "history.csv").open()))
    assert [r["gen"] for r in history] == ["1", "2", "3"] and history[-1]["evaluations"] == "12"
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["seed"] == 5 and cfg["lambda"] == 4 and cfg["objective"] == OBJ and "numpy" in cfg["versions"]

    # best.json replays: the CLI simulate and the API give the objective the run recorded
    capsys.readouterr()
    assert main(["simulate", str(kth_file), "--strategy", str(out / "best.json"), "--objective", OBJ, "--json"]) == 0
    replay = json.loads(capsys.readouterr().out)
    assert replay["objective"] == pytest.approx(float(history[-1]["best"]), rel=1e-12)
    w = load_trace(str(kth_file))
    schedule = simulate(w, Machine(w.machine_procs), Strategy.from_json((out / "best.json").read_text()))
    validate_schedule(schedule)
    assert Objective(OBJ)(compute_metrics(schedule)) == pytest.approx(float(history[-1]["best"]), rel=1e-12)
    comparison = json.loads((out / "comparison.json").read_text())[0]
    assert comparison["objective"] == pytest.approx(float(history[-1]["best"]), rel=1e-12)

    # the same command again resumes a finished run: nothing is re-evaluated, results unchanged
    before = _history(out)
    checkpoint = (out / "checkpoint").read_bytes()
    assert main(_args(kth_file, out)) == 0
    assert _history(out) == before and (out / "checkpoint").read_bytes() == checkpoint


@pytest.mark.slow  # three runs in new processes, killed and resumed
def test_sigkill_or_ctrl_c_then_same_command_ends_like_uninterrupted(tmp_path, kth_file):
    cmd = [sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())"]
    args = _args(kth_file, tmp_path / "whole", "--generations", "5")
    assert subprocess.run(cmd + args, capture_output=True, timeout=300).returncode == 0
    env = dict(os.environ, SCHEDLAB_TEST_EVAL_DELAY="0.1")  # ~0.4 s per generation
    killed = tmp_path / "killed"
    args_k = _args(kth_file, killed, "--generations", "5")
    victim = subprocess.Popen(cmd + args_k, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not ((killed / "history.csv").exists() and len(_history(killed)) >= 3):
        time.sleep(0.02)
    time.sleep(0.2)  # inside generation 3
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    done = len(_history(killed)) - 1
    assert 2 <= done < 5
    assert subprocess.run(cmd + args_k, capture_output=True, timeout=300).returncode == 0
    assert _history(killed) == _history(tmp_path / "whole")
    assert (killed / "best.json").read_text() == (tmp_path / "whole" / "best.json").read_text()

    # Ctrl-C and SIGTERM (batch systems): stop cleanly after a checkpoint (one line, exit 130 / 143),
    # and the same command resumes to the uninterrupted result
    for signum, code, name in ((signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")):
        stopped = tmp_path / name
        args_c = _args(kth_file, stopped, "--generations", "5")
        victim = popen_stoppable(cmd + args_c, env=env)
        deadline = time.time() + 120
        while time.time() < deadline and not ((stopped / "history.csv").exists() and len(_history(stopped)) >= 3):
            time.sleep(0.02)
        victim.send_signal(signum)
        _, err = victim.communicate(timeout=60)
        assert victim.returncode == code, err
        assert err.strip().splitlines()[-1] == (f"interrupted by {name}: checkpoint saved in {stopped}; "
                                                "re-run the same command to resume")
        assert "Traceback" not in err
        assert 2 <= len(_history(stopped)) - 1 < 5
        assert subprocess.run(cmd + args_c, capture_output=True, timeout=300).returncode == 0
        assert _history(stopped) == _history(tmp_path / "whole")
        assert (stopped / "best.json").read_text() == (tmp_path / "whole" / "best.json").read_text()


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0]
    return err[0]


def test_bad_input_is_one_line_exit_2_and_touches_no_run_data(tmp_path, kth_file, capsys):
    out = tmp_path / "run"
    assert main(_args(kth_file, out, "--generations", "1")) == 0
    before = _snapshot(out)
    capsys.readouterr()

    assert main(_args(kth_file, out, "--generations", "1", "--objective", "10*AWRT9 + UTIL")) == 2
    assert "AWRT9" in _one_error_line(capsys)
    assert main(_args(kth_file, out, "--generations", "1", "--seed", "6")) == 2
    line = _one_error_line(capsys)
    assert "different config" in line and "seed" in line and str(out) in line
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxProcs: 100\n")
    assert main(_args(empty, out, "--generations", "1")) == 2
    assert str(empty) in _one_error_line(capsys)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(_args(kth_file, blocker / "run")) == 2
    assert "cannot write" in _one_error_line(capsys)
    assert main(_args(kth_file, out, "--optimizer", "pso")) == 2
    assert "optimizer" in _one_error_line(capsys)
    assert main(_args(kth_file, out, "--calibrate-load")) == 2
    assert "give --scale-to too" in _one_error_line(capsys)
    assert _snapshot(out) == before
    assert blocker.read_text() == "not a folder"


def test_changed_trace_data_at_the_same_path_is_a_different_config(tmp_path, kth_file, capsys):
    trace = tmp_path / "t.swf"
    trace.write_bytes(kth_file.read_bytes())
    out = tmp_path / "run"
    assert main(_args(trace, out, "--generations", "1")) == 0
    before = _snapshot(out)
    w = load_trace(str(trace))
    write_swf(w.take(np.arange(len(w) - 1)), trace)  # one job less, same file name
    capsys.readouterr()
    assert main(_args(trace, out, "--generations", "1")) == 2
    assert "data_sha256" in _one_error_line(capsys)
    assert _snapshot(out) == before


def test_cmaes_run_and_compare_on_other_workloads(tmp_path, kth_file, capsys):
    out = tmp_path / "cma"
    assert main(_args(kth_file, out, "--optimizer", "cmaes", "--generations", "2")) == 0
    best = Strategy.from_json((out / "best.json").read_text())
    assert len(best.order.criteria) == 3 and best.dispatch == "fcfs"
    other = tmp_path / "ctc-month1.swf"
    write_swf(load_trace(str(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), months=1), other)
    capsys.readouterr()
    assert main(["evolve", "compare", str(out / "best.json"), str(kth_file), str(other), "--objective", OBJ]) == 0
    assert "improvement" in capsys.readouterr().out
    assert main(["evolve", "compare", str(out / "best.json"), str(kth_file), str(other), "--objective", OBJ, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["strategy"] == best.label and doc["objective_expression"] == str(Objective(OBJ))
    rows = doc["rows"]
    assert len(rows) == 2 and [r["workload"] for r in rows] == ["kth-month1", "ctc-month1"]
    for row, trace in zip(rows, (kth_file, other)):
        w = load_trace(str(trace))
        m = Machine(w.machine_procs)
        greedy = compute_metrics(simulate(w, m, best))
        easy_schedule = simulate(w, m, Strategy("easy"))
        validate_schedule(easy_schedule)
        easy = compute_metrics(easy_schedule)
        f, f0 = Objective(OBJ)(greedy), Objective(OBJ)(easy)
        assert row["objective"] == pytest.approx(f) and row["objective_easy"] == pytest.approx(f0)
        assert row["objective_improvement_pct"] == pytest.approx(100 * (f0 - f) / f0)
        assert row["UTIL_diff_points"] == pytest.approx(greedy["UTIL"] - easy["UTIL"])
