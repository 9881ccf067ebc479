"""Shared test fixtures: where the real traces live, and hypothesis profiles.

The large real traces are found through ONE setting, the environment variable
``SCHEDLAB_WORKLOADS`` (a folder of SWF traces; ``SCHEDLAB_SHARED`` naming the folder that holds
``workloads/`` is still honoured), defaulting to ``../shared/workloads`` beside the repository,
the same folder ``schedlab grid`` looks in (:func:`schedlab.grid.setups.workloads_dir`). When a
trace is absent, tests that need it SKIP with a one-line reason, so the suite passes on a bare
clone; with ``CI=true`` or ``SCHEDLAB_REQUIRE_WORKLOADS=1`` (as ``.ci/run`` sets) they FAIL
instead. The bundled KTH-SP2 trace is the same file as ``KTH-SP2-1996-2.1-cln.swf.gz`` of the
shared folder (same bytes) and stands in for it when the folder is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]


def _workloads() -> Path:
    if os.environ.get("SCHEDLAB_WORKLOADS"):
        return Path(os.environ["SCHEDLAB_WORKLOADS"]).expanduser()
    if os.environ.get("SCHEDLAB_SHARED"):
        return Path(os.environ["SCHEDLAB_SHARED"]).expanduser() / "workloads"
    return ROOT.parent / "shared" / "workloads"


#: the real-trace folder: $SCHEDLAB_WORKLOADS, else $SCHEDLAB_SHARED/workloads, else ../shared/workloads
WORKLOADS = _workloads()
os.environ.setdefault("SCHEDLAB_WORKLOADS", str(WORKLOADS))  # the package's grid setups look in the same folder
#: missing real traces fail instead of skipping (CI, and .ci/run)
REQUIRE_WORKLOADS = os.environ.get("CI", "").lower() in ("true", "1") or os.environ.get("SCHEDLAB_REQUIRE_WORKLOADS") == "1"
#: the bundled copy of the KTH-SP2 trace (identical to the shared folder's file of the same name)
BUNDLED_KTH = ROOT / "src" / "schedlab" / "workload" / "data" / "KTH-SP2-1996-2.1-cln.swf.gz"

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=30)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config) -> None:
    """The fast tier (``-m "not slow"``) draws a tenth of each hypothesis test's examples
    (:mod:`support.examples`), unless ``HYPOTHESIS_PROFILE`` names a profile."""
    if config.getoption("markexpr", "").replace(" ", "") == "notslow" and not os.environ.get("HYPOTHESIS_PROFILE"):
        import support.examples

        support.examples.FAST = True
        settings.register_profile("fast", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                                  max_examples=support.examples.examples(30))
        settings.load_profile("fast")


def missing_workloads(what: Path | str) -> None:
    """Skip (or, with CI=true / SCHEDLAB_REQUIRE_WORKLOADS=1, fail) because ``what`` is not there."""
    kind = "real-trace folder" if Path(what) == WORKLOADS else "real trace"
    reason = f"{kind} {what} not found (set SCHEDLAB_WORKLOADS to the traces folder)"
    if REQUIRE_WORKLOADS:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def have_workloads() -> bool:
    return WORKLOADS.is_dir()


def require_workloads() -> Path:
    """The real-trace folder, or skip/fail (see :func:`missing_workloads`)."""
    if not WORKLOADS.is_dir():
        missing_workloads(WORKLOADS)
    return WORKLOADS


def trace_path(name: str) -> Path:
    """Path of a real trace in the traces folder; skip/fail when absent (the bundled KTH-SP2 stands in)."""
    path = WORKLOADS / name
    if path.exists():
        return path
    if name == BUNDLED_KTH.name and BUNDLED_KTH.exists():
        return BUNDLED_KTH
    missing_workloads(path if WORKLOADS.is_dir() else WORKLOADS)
    raise AssertionError("unreachable")  # pragma: no cover


@pytest.fixture(scope="session")
def workloads_dir() -> Path:
    return require_workloads()


def _default_sigint() -> None:  # pragma: no cover - runs in the child between fork and exec
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def popen_stoppable(cmd: list[str], **kwargs):
    """``subprocess.Popen`` of a child that Ctrl-C (SIGINT) and SIGTERM reach however the suite runs.

    A background job of a non-interactive shell starts with SIGINT ignored, and POSIX children
    inherit that: the child gets its own session and SIGINT's default disposition back, so that
    Python installs its KeyboardInterrupt handler in it.
    """
    import subprocess

    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.setdefault("text", True)
    return subprocess.Popen(cmd, start_new_session=True, preexec_fn=_default_sigint, **kwargs)


def run(capsys, *argv):
    """``schedlab ARGV...`` in-process: (exit code, stdout, stderr)."""
    from schedlab.cli.main import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *words):
    """Exit 2 with exactly one line ``error: ...`` naming every word, and no traceback (a kernel
    compile's note, printed once per fresh process, may precede it)."""
    assert code == 2, err
    lines = [line for line in err.strip().splitlines() if not line.startswith("compiling ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "Traceback" not in err


def _shared_trace_case(item) -> bool:
    """Whether ``item`` is a case of a test parametrized over the shared folder's traces, on one other
    than the bundled KTH-SP2 (a parameter naming an SWF file)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    names = [Path(v).name for v in params.values() if isinstance(v, (str, Path)) and str(v).endswith((".swf", ".swf.gz"))]
    return any(name != BUNDLED_KTH.name for name in names)


def pytest_collection_modifyitems(config, items) -> None:
    """The fast tier (``-m "not slow"``) runs on the bundled trace alone, without live daemons.

    A test against a live Slurm (marker ``slurm``) is also ``slow``: it starts real daemons and waits
    on their clocks (tens of seconds of wall time, little CPU). So is the case of a test parametrized
    over the shared real traces on any trace but the bundled KTH-SP2, whose case stays in the fast tier.
    """
    for item in items:
        if item.get_closest_marker("slow") is None and (item.get_closest_marker("slurm") is not None
                                                        or _shared_trace_case(item)):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def tiny_runs(tmp_path_factory) -> dict:
    """A tiny run folder of every kind, made once per test process (:mod:`support.tiny_runs`); read-only."""
    from support.tiny_runs import make_runs

    return make_runs(tmp_path_factory.mktemp("runs"), trace_path("HPC2N-2002-2.2-cln.swf.gz"))
