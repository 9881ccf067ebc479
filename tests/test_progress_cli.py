"""Progress of the long runs (issue 32): one renderer for evolve, rules, bound, grid pareto and
federation; plain lines per generation when stderr is not a terminal (CI, batch job logs), an
integer generation count and the stored figures of a finished run on a terminal's bar, and the
kernels' compile line (never "done" when Ctrl-C stopped it)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time

import pytest

from schedlab.cli.main import main

CLI = [sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())"]
KTH = ["KTH-SP2", "--months", "1"]


def _piped(*argv: str) -> subprocess.CompletedProcess:
    """``schedlab ARGV`` as a child process with stdout and stderr piped (not a terminal)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("FORCE_COLOR", None)
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, env=env, timeout=600)


def _lines(stderr: str, label: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith(f"{label}  gen ")]


@pytest.mark.parametrize("verb, label, extra", [
    (["evolve", "greedy", *KTH, "--mu", "2", "--lambda", "4"], "free", "evals"),
    # the other verbs run in the full suite only: a fresh process each, twice (their verbs are in the fast tier)
    pytest.param(["rules", "evolve", *KTH, "--rules", "10", "--mu", "50", "--lambda", "20", "--participations", "2"],
                 "symbiotic", "evals", marks=pytest.mark.slow),
    pytest.param(["bound", *KTH, "--pop", "8"], "front", "HV", marks=pytest.mark.slow),
    pytest.param(["grid", "pareto", "--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1", "--pop", "4"],
                 "front", "lowest AWRT per site over the front", marks=pytest.mark.slow),
])
def test_a_plain_line_per_generation_when_not_a_terminal(tmp_path, verb, label, extra):
    out = tmp_path / "run"
    done = _piped(*verb, "--generations", "2", "--workers", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    lines = _lines(done.stderr, label)
    assert [ln.split()[2] for ln in lines] == ["1/2", "2/2"], done.stderr
    for ln in lines:
        assert extra in ln and re.search(r"elapsed \d+ s$", ln), ln
        assert " - " not in ln and "best -" not in ln, ln
    # the same command again: the finished run shows its stored figures, not blanks
    again = _piped(*verb, "--generations", "2", "--workers", "1", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert _lines(again.stderr, label) == [lines[-1]], again.stderr


@pytest.mark.slow  # a federation GA run in a fresh process
def test_federation_ga_prints_plain_lines(tmp_path):
    done = _piped("federation", "run", *KTH, "--method", "ga-metl", "--package-size", "100", "--jobs", "200",
                  "--generations", "2", "--pop", "4", "--workers", "1", "--out", str(tmp_path / "f"))
    assert done.returncode == 0, done.stderr
    # issue 43: 2 packages of 2 generations each said "gen 4/4" (steps over all packages): now which
    # package, and which of its generations
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("ga-metl  package ")]
    assert lines[0].startswith("ga-metl  package 1/2 gen 1/2  best "), done.stderr
    assert lines[-1].startswith("ga-metl  package 2/2 gen 2/2  best "), done.stderr
    assert "gen 4/4" not in done.stderr and "gen 3/" not in done.stderr


@pytest.mark.slow  # two evolve runs in fresh processes on a pseudo-terminal
def test_the_bar_counts_whole_generations_and_a_finished_run_shows_its_figures(tmp_path):
    """On a terminal (a pty) the evolve bar says 'gen 2/2', not 'gen 2.0/2', and a re-run of the finished
    run shows its evaluations and best objective, not '- evals best -'."""
    import pty

    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), COLUMNS="160")

    def on_a_terminal() -> str:
        master, slave = pty.openpty()
        child = subprocess.Popen([*CLI, "evolve", "greedy", *KTH, "--mu", "2", "--lambda", "4", "--generations", "2",
                                  "--workers", "1", "--out", str(out)], stdout=subprocess.DEVNULL, stderr=slave, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        assert child.wait(timeout=600) == 0
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode(errors="replace"))

    first = on_a_terminal()
    assert "gen 2/2" in first and not re.search(r"gen \d+\.\d+/", first), first
    again = on_a_terminal()
    assert re.search(r"gen 2/2 +evals 8 +best \d", again) and "- evals" not in again, again


def test_compile_line_says_interrupted_not_done_on_ctrl_c(monkeypatch):
    from schedlab.cli import compiling

    monkeypatch.setattr(compiling, "NOTICE_AFTER", 0.01)
    stream = io.StringIO()
    compiling.warm_up("simulation", lambda: time.sleep(0.2), stream=stream)
    assert stream.getvalue().startswith("compiling the simulation kernels") and " done in " in stream.getvalue()

    def stopped():
        time.sleep(0.2)
        raise KeyboardInterrupt

    stream = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        compiling.warm_up("simulation", stopped, stream=stream)
    text = stream.getvalue()
    assert "compiling" in text and "done" not in text and "interrupted" in text and text.endswith("\n")


def test_federation_run_says_while_its_kernels_compile(tmp_path, monkeypatch, capsys):
    from schedlab.cli import compiling
    from schedlab.optimize import federation_run

    warm = federation_run._warm_up
    monkeypatch.setattr(compiling, "NOTICE_AFTER", 0.01)
    monkeypatch.setattr(federation_run, "_warm_up", lambda *a: (time.sleep(0.2), warm(*a)))  # a slow first compile
    code = main(["federation", "run", *KTH, "--method", "jpr", "--package-size", "100", "--jobs", "200",
                 "--out", str(tmp_path / "f")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "compiling the federation kernels" in err and " done in " in err


def test_a_long_generation_gets_heartbeat_lines_without_a_terminal(capsys):
    from schedlab.cli.progress import RunProgress

    view = RunProgress(terminal=False, heartbeat=0.0)
    view.start("symbiotic", 10, 3)
    view.advance("symbiotic", 3.25)
    view.step("symbiotic", "evals 40  best 7", done=4, elapsed=12.0)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("symbiotic  gen 4/10 running: 25 % of its evaluations done")
    assert lines[1] == "symbiotic  gen 4/10  evals 40  best 7  elapsed 12 s"
    quiet = RunProgress(terminal=False)  # the default heartbeat: no line for a quick generation
    quiet.start("free", 2)
    quiet.advance("free", 0.5)
    assert capsys.readouterr().err == ""
