"""Run folders: config check, atomic checkpoint every generation, exact resume after Ctrl-C and SIGKILL."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import RunError
from schedlab.execute import SerialExecutor
from schedlab.optimize.es import SelfAdaptiveES
from schedlab.optimize.run import RunFolder, optimize

TOY = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from schedlab.execute import SerialExecutor
    from schedlab.optimize.es import SelfAdaptiveES
    from schedlab.optimize.run import RunFolder, optimize

    def bumpy(delay, x):
        time.sleep(delay)
        return float(np.sum((x - 0.3) ** 2) + 0.1 * np.sin(25 * x).sum())

    run = RunFolder(sys.argv[1], {"toy": "bumpy", "seed": 4})
    res = optimize(run, lambda: SelfAdaptiveES([0] * 4, [1] * 4, mu=3, lam=10, seed=4), bumpy,
                   SerialExecutor(float(sys.argv[2])), 8, param_names=["p", "q", "r", "s"])
    print(res.generations, res.resumed_from, repr(res.best_f))
    """
)


def bumpy(delay: float, x: np.ndarray) -> float:
    time.sleep(delay)
    return float(np.sum((x - 0.3) ** 2) + 0.1 * np.sin(25 * x).sum())


def _history(folder: Path) -> list[str]:
    """history.csv without the elapsed column (wall time legitimately differs)."""
    lines = (folder / "history.csv").read_text().splitlines()
    return [",".join(c for i, c in enumerate(line.split(",")) if i != 5) for line in lines]


def _toy(tmp_path: Path, *args: str, **kw) -> subprocess.Popen:
    script = tmp_path / "toy_run.py"
    script.write_text(TOY)
    return subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True, **kw)


def test_sigkill_mid_generation_then_rerun_ends_like_an_uninterrupted_run(tmp_path):
    whole = _toy(tmp_path, str(tmp_path / "whole"), "0")
    assert whole.wait(60) == 0
    gens, resumed_from, best = whole.stdout.read().split()
    assert (gens, resumed_from) == ("8", "0")

    victim = _toy(tmp_path, str(tmp_path / "killed"), "0.03")  # ~0.3 s per generation
    history = tmp_path / "killed" / "history.csv"
    deadline = time.time() + 60
    while time.time() < deadline and not (history.exists() and len(history.read_text().splitlines()) >= 4):
        time.sleep(0.02)
    time.sleep(0.15)  # well inside the next generation
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    with open(tmp_path / "killed" / "checkpoint", "rb") as fh:
        done = len(pickle.load(fh)["history"])
    assert 3 <= done < 8  # killed mid-run, a complete checkpoint on disk

    again = _toy(tmp_path, str(tmp_path / "killed"), "0")
    assert again.wait(60) == 0
    gens2, resumed_from2, best2 = again.stdout.read().split()
    assert gens2 == "8" and int(resumed_from2) == done
    assert best2 == best
    assert _history(tmp_path / "killed") == _history(tmp_path / "whole")
    assert len(_history(tmp_path / "whole")) == 9  # header + 8 generations
    assert (tmp_path / "killed" / "config.json").read_text() == (tmp_path / "whole" / "config.json").read_text()


class Interrupting:
    """An evaluation that presses Ctrl-C after ``after`` calls."""

    def __init__(self, after: int) -> None:
        self.after, self.calls = after, 0

    def __call__(self, payload, x):
        self.calls += 1
        if self.calls > self.after:
            raise KeyboardInterrupt
        return bumpy(0.0, x)


def test_ctrl_c_stops_after_a_checkpoint_and_resumes_exactly(tmp_path):
    new = lambda: SelfAdaptiveES([0] * 3, [1] * 3, mu=3, lam=6, seed=9)  # noqa: E731
    ref = optimize(RunFolder(tmp_path / "ref", {"t": 1}), new, bumpy, SerialExecutor(0.0), 7)
    run = RunFolder(tmp_path / "int", {"t": 1})
    part = optimize(run, new, Interrupting(6 * 3 + 2), SerialExecutor(0.0), 7)
    assert part.interrupted and part.generations == 3
    assert len(_history(tmp_path / "int")) == 4
    rest = optimize(RunFolder(tmp_path / "int", {"t": 1}), new, bumpy, SerialExecutor(0.0), 7)
    assert not rest.interrupted and rest.resumed_from == 3
    assert rest.best_f == ref.best_f and np.array_equal(rest.best_x, ref.best_x)
    assert _history(tmp_path / "int") == _history(tmp_path / "ref")


def test_history_rows_and_best_file(tmp_path):
    best_json = lambda x, f: json.dumps({"x": list(x), "f": f})  # noqa: E731
    ticks: list[tuple[int, int]] = []
    res = optimize(
        RunFolder(tmp_path / "r", {"t": 2}),
        lambda: SelfAdaptiveES([0] * 2, [1] * 2, mu=2, lam=5, seed=1),
        bumpy,
        SerialExecutor(0.0),
        4,
        param_names=["u", "v"],
        best_json=best_json,
        on_evaluation=lambda gen, evals: ticks.append((gen, evals)),
    )
    assert ticks == [(g, 5 * g + k) for g in range(4) for k in range(1, 6)]
    lines = (tmp_path / "r" / "history.csv").read_text().splitlines()
    assert lines[0] == "gen,evaluations,best,median,sigma,elapsed,u,v"
    rows = [line.split(",") for line in lines[1:]]
    assert [r[0] for r in rows] == ["1", "2", "3", "4"] and [r[1] for r in rows] == ["5", "10", "15", "20"]
    bests = [float(r[2]) for r in rows]
    assert bests == sorted(bests, reverse=True)  # plus selection never loses the best
    assert float(rows[-1][6]) == res.best_x[0] and float(rows[-1][2]) == res.best_f
    assert bumpy(0.0, np.array([float(rows[-1][6]), float(rows[-1][7])])) == res.best_f
    assert json.loads((tmp_path / "r" / "best.json").read_text())["f"] == res.best_f
    cfg = json.loads((tmp_path / "r" / "config.json").read_text())
    assert cfg["t"] == 2 and "numpy" in cfg["versions"]


def test_different_config_is_refused_and_nothing_is_touched(tmp_path):
    optimize(RunFolder(tmp_path / "r", {"seed": 1}), lambda: SelfAdaptiveES([0], [1], mu=1, lam=2, seed=1),
             bumpy, SerialExecutor(0.0), 2)
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (tmp_path / "r").iterdir()}
    with pytest.raises(RunError, match=r"different config \(seed: stored 1, given 2\)"):
        RunFolder(tmp_path / "r", {"seed": 2})
    # library versions and the executor do not change results: not part of the identity
    RunFolder(tmp_path / "r", {"seed": 1, "executor": "dask", "versions": {"numpy": "0"}})
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (tmp_path / "r").iterdir()}
    assert before == after


def test_foreign_and_unwritable_folders_are_refused(tmp_path):
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"meow")
    with pytest.raises(RunError, match="holds no schedlab run"):
        RunFolder(foreign, {"a": 1})
    assert [p.name for p in foreign.iterdir()] == ["cat.jpg"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RunError, match="cannot write the run folder"):
        RunFolder(blocker / "run", {"a": 1})
    with pytest.raises(RunError, match="not a folder"):
        RunFolder(blocker, {"a": 1})
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(RunError, match="cannot write"):
            RunFolder(locked / "run", {"a": 1})


def test_a_run_that_fails_before_any_result_leaves_no_folder_that_blocks_the_corrected_command(tmp_path, capsys,
                                                                                                 monkeypatch):
    from schedlab.cli.main import main
    from schedlab.optimize.run import discard_unstarted_runs, forget_fresh_runs

    forget_fresh_runs()
    made = RunFolder(tmp_path / "made" / "deeper", {"pop": 10**9})  # the run creates its folder
    (tmp_path / "given").mkdir()
    given = RunFolder(tmp_path / "given", {"pop": 10**9})  # the user made the (empty) folder
    got_far = RunFolder(tmp_path / "far", {"pop": 10**9})
    got_far.write_text("history.csv", "generation\n1\n")  # a generation finished: its run is kept
    assert sorted(discard_unstarted_runs()) == sorted([made.path, given.path])
    assert not made.path.exists() and (tmp_path / "made").is_dir()  # only what the run made goes
    assert given.path.is_dir() and not any(given.path.iterdir())
    assert (got_far.path / "config.json").exists()
    assert discard_unstarted_runs() == []  # once per command
    # through the CLI: a run that fails in generation 0 (here: memory, after the folder and its
    # reference points were written) leaves nothing, and the corrected command runs in that folder
    import schedlab.optimize.grid_pareto as grid_pareto

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 745. GiB for an array with shape (1000000000, 800)")

    site = ["--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1", "--generations", "1", "--workers", "1"]
    out = tmp_path / "pareto"
    with monkeypatch.context() as patch:
        patch.setattr(grid_pareto, "run_pareto", no_memory)
        assert main(["grid", "pareto", *site, "--pop", "8", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: not enough memory (Unable to allocate 745. GiB") and not out.exists(), err
    assert main(["grid", "pareto", *site, "--pop", "4", "--out", str(out)]) == 0
