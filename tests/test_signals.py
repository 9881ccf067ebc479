"""Ctrl-C and SIGTERM stop a run cleanly even when the signal lands inside a C extension.

A Python signal handler runs wherever the main thread is; when that is Python code called back
from C (numba's dispatcher unpickling a constant), the extension reports the handler's exception
as ``SystemError(...) from Terminated``. CI once saw exactly that end ``federation run`` in a
traceback instead of exit 143 (tests/test_option_edges.py, --generations=1000000000).
"""

from __future__ import annotations

import json
import signal

from schedlab import _signals
from schedlab.cli.main import main


def _wrapped_sigterm() -> SystemError:
    """What numba raises when SIGTERM's handler fires inside its dispatcher: the handler's own
    Terminated (recorded as the process's latest signal), wrapped twice in SystemError."""
    try:
        _signals._on_sigterm(signal.SIGTERM, None)
    except _signals.Terminated as stop:
        inner = SystemError("<function _numba_unpickle> returned a result with an exception set")
        inner.__cause__ = stop
        outer = SystemError("CPUDispatcher(<function uox_pairs>) returned a result with an exception set")
        outer.__cause__ = inner
        return outer
    raise AssertionError("the SIGTERM handler did not raise")


def test_stop_in_finds_the_stop_behind_system_errors_only():
    wrapped = _wrapped_sigterm()
    assert isinstance(_signals.stop_in(wrapped), _signals.Terminated)
    assert _signals.exit_code(wrapped) == _signals.EXIT_SIGTERM
    assert _signals.stop_in(KeyboardInterrupt()) is not None
    other = ValueError("a defect")
    other.__cause__ = KeyboardInterrupt()  # a defect raised while handling Ctrl-C is still a defect
    assert _signals.stop_in(other) is None
    plain = SystemError("no stop behind it")
    assert _signals.stop_in(plain) is None
    loop = SystemError("a")
    loop.__context__ = SystemError("b")
    loop.__context__.__context__ = loop  # a cycle ends the walk
    assert _signals.stop_in(loop) is None


def _history(folder):
    return [line.rsplit(",", 1)[0] for line in (folder / "history.csv").read_text().splitlines()]


FEDERATION_RUN = ["federation", "run", "KTH-SP2", "--method", "ga-random", "--package-size", "10", "--jobs", "20",
                  "--generations", "12", "--pop", "8", "--seed", "3", "--checkpoint-every", "1"]


def _stop_at_the_fifth_crossover(tmp_path, capsys, monkeypatch, signal_it) -> list:
    """A federation GA run whose fifth crossover call runs ``signal_it()`` (a SIGTERM as it lands)
    ends with exit 143 and one "interrupted by SIGTERM" line, keeps its checkpoint, and the same
    command resumes to the uninterrupted run's history and orders. Returns the crossover calls."""
    from schedlab.optimize import federation_ga

    assert main(FEDERATION_RUN + ["--out", str(tmp_path / "whole")]) == 0
    capsys.readouterr()
    real, calls = federation_ga.uox_pairs, []

    def crossover(*a):
        calls.append(1)
        if len(calls) == 5:
            signal_it()
        return real(*a)

    monkeypatch.setattr(federation_ga, "uox_pairs", crossover)
    stopped = tmp_path / "stopped"
    assert main(FEDERATION_RUN + ["--out", str(stopped)]) == 143
    err = capsys.readouterr().err
    assert "Traceback" not in err and "SystemError" not in err
    assert err.strip().splitlines()[-1].startswith("interrupted by SIGTERM")
    assert not (stopped / "result.json").exists() and (stopped / "checkpoint").exists()
    n = len(calls)
    monkeypatch.setattr(federation_ga, "uox_pairs", real)
    assert main(FEDERATION_RUN + ["--out", str(stopped)]) == 0  # the same command resumes to the same result
    assert _history(stopped) == _history(tmp_path / "whole")
    a, b = (json.loads((f / "orders.json").read_text()) for f in (stopped, tmp_path / "whole"))
    assert a == b
    return calls[:n]


def test_sigterm_inside_numba_stops_a_federation_run_at_its_checkpoint(tmp_path, capsys, monkeypatch):
    def wrapped():
        raise _wrapped_sigterm()

    _stop_at_the_fifth_crossover(tmp_path, capsys, monkeypatch, wrapped)


def test_a_sigterm_that_a_callback_swallowed_still_stops_the_run_at_the_next_generation(tmp_path, capsys, monkeypatch):
    """CI saw SIGTERM's handler run inside a weakref callback ("Exception ignored in: WeakSet._remove"):
    Python drops the exception there and the run would go on to the end of its budget. The run loop
    now raises such a pending SIGTERM before its next generation."""

    def swallowed():
        try:  # what the garbage collector does with an exception raised in a callback
            _signals._on_sigterm(signal.SIGTERM, None)
        except _signals.Terminated:
            pass

    calls = _stop_at_the_fifth_crossover(tmp_path, capsys, monkeypatch, swallowed)
    assert len(calls) == 5  # stopped before the next generation's crossover


def test_a_wrapped_stop_outside_any_loop_ends_the_cli_with_its_exit_code(capsys, monkeypatch):
    from schedlab.cli import simulate

    def interrupted(*a, **k):
        raise _wrapped_sigterm()

    monkeypatch.setattr(simulate, "compute_metrics", interrupted)
    assert main(["simulate", "KTH-SP2", "--months", "1"]) == 143
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "stopped by SIGTERM"
