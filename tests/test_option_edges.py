"""Every verb at the edges of its options (issue 32): no value a person may type crashes a verb.

For every verb and sub-verb this module drives each numeric option at and around its bounds (0, 1,
-1, the documented minimum - 1 and the minimum where the help states one, a huge value) and each
path option at a missing folder, a folder that cannot be written (a path below a regular file,
which fails for root too) and an existing file (for inputs: a missing file, a folder and an
empty file), each time from a small working command on the bundled trace. The contract:

* exit 0 with the promised output (the named output file or run folder exists; ``--json`` prints
  JSON), or exit 2 with exactly one ``error:`` line, the last (a run that had started may have
  printed progress before it), or, for a budget too large to finish, exit 143 when the test stops
  the run with SIGTERM after a moment (as a batch system would), or exit 1 where a gate
  (``--fail-worse-than``) finds a strategy worse than EASY;
* never a traceback;
* never a half-written run folder that blocks the corrected command: after a refusal that left
  the run folder behind, the working command on the same folder must succeed.

Every leaf command needs a row in :func:`_bases`; a new verb fails
:func:`test_every_command_has_a_working_base` until it gets one, so the guard keeps up with the CLI.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import signal
import threading
import typing
from pathlib import Path

import pytest

from schedlab.cli.main import main
from schedlab.strategy import rules as R
from schedlab.workload.load import bundled_path

from test_fetch import GOOD, KTH as KTH_ARCHIVE, Archive, _url_path, serving
from test_first_hour import _commands

KTH = "KTH-SP2"
HUGE_INT = 10**9
HUGE_FLOAT = 1e12
#: seconds a case may run before the test stops it with SIGTERM (a budget too large to finish)
STOP_AFTER = 1.0
#: address space a case may add, so that a huge allocation fails instead of exhausting the machine
EXTRA_MEMORY = 6 * 2**30
ACCOUNTING = Path(__file__).resolve().parent / "data" / "accounting"

#: options that name an output folder (an existing file there must be refused, not crash)
FOLDER_OUT = {"--out", "--plot", "--dir"}
#: options that name an output file
FILE_OUT = {"--output", "--csv", "--schedule-out", "--gantt", "--slurm-conf-out"}
#: options and arguments that name an input file
FILE_IN = {"--partitions", "--strategy", "--greedy", "--seed-strategy", "--with", "--trace", "--platform",
           "strategy", "rulebase", "file", "inputs", "traces", "trace", "target", "--test",
           "--slurm-conf", "--slurm-shares", "--slurm-qos", "--slurm-assoc"}
#: options whose value is a text the tests drive elsewhere (policy lists, objectives, formats)
NOT_DRIVEN = {"--dask", "--base-url"}


# ------------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module", autouse=True)
def figures_unrendered():
    """Figures are still made and their files written, but not rendered: drawing PNGs is four fifths
    of a small optimizer run, and what the figures show is tested in test_report_figures.py."""
    from matplotlib.figure import Figure

    def savefig(self, fname, **kwargs):
        if hasattr(fname, "write"):
            fname.write(b"")
        else:
            Path(fname).write_bytes(b"")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Figure, "savefig", savefig)
        yield


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Small inputs the working commands need: a strategy, a rule base, a schedule, a bound run."""
    d = tmp_path_factory.mktemp("inputs")
    # the bundled trace's header and first 400 jobs (four days): every working command takes well under a second
    lines = gzip.decompress(bundled_path(KTH).read_bytes()).decode().splitlines()
    header = [line for line in lines if line.startswith(";")]
    jobs = [line for line in lines if line.strip() and not line.startswith(";")][:400]
    (d / "tiny.swf").write_text("\n".join(header + jobs) + "\n")
    (d / "easy.json").write_text('{"dispatch": "easy"}')
    (d / "site.conf").write_text("PriorityType=priority/multifactor\nSchedulerParameters=bf_interval=30\n")
    parts = {f: [] for f in R.FEATURES} | {R.FEATURES[0]: [2.0]}
    (d / "parts.json").write_text(json.dumps(parts))
    rb = R.TableRuleBase(tuple(tuple(parts[f]) for f in R.FEATURES))
    (d / "rb.json").write_text(rb.to_json())
    tiny = str(d / "tiny.swf")
    assert main(["simulate", tiny, "--schedule-out", str(d / "s.parquet")]) == 0
    assert main(["bound", tiny, "--months", "1", "--generations", "1", "--pop", "8", "--workers", "1",
                 "--out", str(d / "bound")]) == 0
    return d


@pytest.fixture(scope="module")
def archive():
    """The fetch tests' local archive server (no network), with its own file table."""

    class Served(Archive):  # the fetch tests' fixture resets Archive's table
        files = {_url_path(KTH_ARCHIVE): GOOD}
        cut_first = 0
        ranges: list = []

    with serving(Served) as url:
        yield url


def _bases(inp: Path, archive: str) -> dict[tuple[str, ...], tuple[list[str], dict]]:
    """A small working command per leaf verb: ``(positional arguments, options)``; ``{out}`` is a fresh path."""
    KTH = str(inp / "tiny.swf")  # noqa: N806  (the bundled trace, cut short)
    run = {"--workers": "1"}
    one = {"--months": "1"}
    return {
        ("simulate",): ([KTH], one | {"--policy": "easy", "--json": True}),
        ("compare",): ([KTH], one | {"--policies": "fcfs,easy", "--json": True}),
        ("evolve", "compare"): ([str(inp / "easy.json"), KTH], one | {"--json": True}),
        ("evolve", "greedy"): ([KTH], one | run | {"--generations": "1", "--mu": "2", "--lambda": "2",
                                                  "--out": "{out}"}),
        ("evolve", "slurm"): ([KTH], one | run | {"--slurm-conf": str(inp / "site.conf"), "--generations": "1",
                                                 "--slurm-option": "queue_map=default", "--mu": "1", "--lambda": "2",
                                                 "--out": "{out}"}),
        ("rules", "iterative"): ([KTH], one | run | {"--partitions": str(inp / "parts.json"), "--out": "{out}"}),
        ("rules", "evolve"): ([KTH], one | run | {"--generations": "1", "--rules": "4", "--mu": "12",
                                                 "--lambda": "28", "--participations": "2", "--out": "{out}"}),
        ("rules", "show"): ([str(inp / "rb.json"), KTH], one),
        ("slurm", "check"): ([KTH], {"--slurm-conf": str(inp / "site.conf"), "--json": True}),
        ("bound",): ([KTH], one | run | {"--generations": "1", "--pop": "8", "--out": "{out}"}),
        ("grid", "simulate"): ([], {"--site": [f"{KTH}:100", f"{KTH}:100"], "--months": "1", "--exchange": "rq",
                                    "--json": True}),
        ("grid", "pareto"): ([], {"--site": [f"{KTH}:100", f"{KTH}:100"], "--months": "1", "--generations": "1",
                                  "--pop": "4", "--out": "{out}"} | run),
        ("federation", "run"): ([KTH], run | {"--method": "ga-metl", "--package-size": "10", "--jobs": "20",
                                              "--generations": "1", "--pop": "4", "--out": "{out}"}),
        ("federation", "compare"): ([KTH], run | {"--package-size": "10", "--jobs": "20", "--workloads": "1",
                                                  "--methods": "jpr,ga-metl", "--generations": "1", "--pop": "4",
                                                  "--out": "{out}"}),
        ("federation", "platform", "show"): ([], {"--json": True}),
        ("plot",): ([str(inp / "s.parquet")], {"--procs": "100", "--out": "{out}"}),
        ("reproduce",): (["ge/fig2"], {"--print": True}),
        ("workload", "info"): ([KTH], one | {"--json": True}),
        ("workload", "clean"): ([KTH], one | {"--output": "{out}.swf"}),
        ("workload", "cut"): ([KTH], one | {"--output": "{out}.swf"}),
        ("workload", "group"): ([KTH], one | {"--output": "{out}.swf"}),
        ("workload", "scale"): ([KTH], one | {"--scale-to": "200", "--output": "{out}.swf"}),
        ("workload", "convert"): ([str(ACCOUNTING / "berlin.sacct")], {"--from": "sacct", "--procs": "512",
                                                                       "--output": "{out}.swf"}),
        ("workload", "fetch"): (["KTH-SP2-1996-2.1-cln"], {"--dir": "{out}", "--base-url": archive}),
        ("workload", "generate", "lublin"): ([], {"--jobs": "50", "--procs": "16", "--output": "{out}.swf"}),
        ("workload", "generate", "gpu-cluster"): ([], {"--jobs": "50", "--output": "{out}.swf",
                                                       "--slurm-conf-out": "{out}.conf"}),
    }


# ------------------------------------------------------------------------------------------------ running
def _argv(path, positionals, options) -> list[str]:
    argv = [*path, *positionals]
    for name, value in options.items():
        if value is True:
            argv.append(name)
        elif isinstance(value, list):
            for v in value:
                argv += [name, v]
        elif value is not None:
            argv += [name, value]
    return argv


def _run(argv: list[str], stop: bool = False) -> int:
    """``main(argv)`` with a bounded address space; with ``stop``, SIGTERM after :data:`STOP_AFTER` s."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[0])
    limit = pages * resource.getpagesize() + EXTRA_MEMORY
    previous = signal.signal(signal.SIGTERM, lambda *a: None)  # a late timer must not end pytest
    timer = threading.Timer(STOP_AFTER, os.kill, (os.getpid(), signal.SIGTERM))
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    if stop:
        timer.start()
    try:
        return main([str(a) for a in argv])
    finally:
        timer.cancel()
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGTERM, previous)


def _contract(capsys, argv, promised: list[Path], json_out: bool, stop: bool) -> tuple[int, str]:
    code = _run(argv, stop)
    out, err = capsys.readouterr()
    shown = " ".join(map(str, argv))
    assert "Traceback" not in out + err, f"{shown}\n{err[-2000:]}"
    lines = [line for line in err.splitlines() if line.strip()]
    if code == 2:  # one error line, the last word (progress lines of a run that had started may precede it)
        assert [line for line in lines if line.startswith("error")] == lines[-1:], f"{shown}\n{err[-2000:]}"
        assert lines[-1].startswith("error: "), f"{shown}\n{err[-2000:]}"
    elif code == 1 and "--fail-worse-than" in argv:  # the gate's own verdict: a strategy is worse than EASY
        assert "worse than EASY" in out + err, f"{shown}\n{err[-2000:]}"
    elif code == 1 and {"--max-util-drop", "--max-group-ratio"} & set(map(str, argv)):  # the collateral guards' verdict
        assert "beyond the collateral guards" in err, f"{shown}\n{err[-2000:]}"
    elif code == 143 and stop:  # a huge budget, stopped as a batch system stops a job at its time limit
        assert "SIGTERM" in err, f"{shown}\n{err[-2000:]}"
    else:
        assert code == 0, f"{shown}: exit {code}\n{err[-2000:]}"
        for path in promised:
            assert path.exists(), f"{shown}: exit 0 but {path} was not written"
        if json_out:
            json.loads(out)
    return code, err


# ------------------------------------------------------------------------------------------------ the cases
def _annotation(param):
    ann = param.type_descriptor.annotation
    args = [a for a in typing.get_args(ann) if a is not type(None)]
    if typing.get_origin(ann) in (typing.Union, getattr(__import__("types"), "UnionType", None)) and args:
        ann = args[0]
    if typing.get_origin(ann) is list and typing.get_args(ann):
        ann = typing.get_args(ann)[0]
    return ann


def _documented_minimum(param) -> int | None:
    if getattr(param, "min", None) is not None:
        return int(param.min)
    m = re.search(r"at least (-?\d+)", param.help or "")
    return int(m.group(1)) if m else None


def _cases(path, cmd, base):
    """``(label, option, value)`` for each edge of each driven option of one command."""
    out = []
    for param in cmd.params:
        name = param.opts[0] if param.opts[0].startswith("--") else param.name
        for opt in param.opts:
            if opt.startswith("--"):
                name = opt
                break
        if name in NOT_DRIVEN or getattr(param, "is_flag", False) or getattr(param, "hidden", False):
            continue
        ann = _annotation(param)
        if ann is int:
            values = {0, 1, -1, HUGE_INT}
            low = _documented_minimum(param)
            if low is not None:
                values |= {low - 1, low}
            out += [(f"{name}={v}", name, str(v)) for v in sorted(values)]
        elif ann is float:
            out += [(f"{name}={v}", name, repr(v)) for v in (-1.0, 0.0, 1.0, HUGE_FLOAT)]
        elif name in FOLDER_OUT or name in FILE_OUT:
            out += [(f"{name}=missing-folder", name, "{tmp}/missing/deeper/out.x"),
                    (f"{name}=unwritable", name, "{tmp}/a-file/out.x"),
                    (f"{name}=existing-file", name, "{tmp}/a-file")]
        elif name in FILE_IN:
            out += [(f"{name}=missing", name, "{tmp}/missing/in.x"),
                    (f"{name}=folder", name, "{tmp}"),
                    (f"{name}=empty-file", name, "{tmp}/empty")]
    return out


def _all_cases():
    commands = {tuple(path): cmd for path, cmd in _commands() if not getattr(cmd, "commands", None)}
    for path, cmd in sorted(commands.items()):
        for label, name, value in _cases(path, cmd, None):
            yield pytest.param(path, name, value, id=f"{' '.join(path)} {label}")


CASES = list(_all_cases())


def test_every_command_has_a_working_base(inputs, archive, capsys, tmp_path):
    bases = _bases(inputs, archive)
    leaves = {tuple(path) for path, cmd in _commands() if not getattr(cmd, "commands", None)}
    assert leaves == set(bases), f"commands without a base row: {leaves - set(bases)}; stale rows: {set(bases) - leaves}"
    for path, (positionals, options) in bases.items():
        options = {k: (v.format(out=tmp_path / "-".join(path)) if isinstance(v, str) else v) for k, v in options.items()}
        code = main(_argv(path, positionals, options))
        out, err = capsys.readouterr()
        assert code == 0, (path, err)
    assert len(CASES) > 300  # the guard drives hundreds of edges, not a handful


# slow: hundreds of verb runs; the fast tier runs every verb's working base (above)
@pytest.mark.slow
@pytest.mark.parametrize(("path", "name", "value"), CASES)
def test_an_edge_value_is_a_result_or_one_line(inputs, archive, capsys, tmp_path, path, name, value):
    positionals, options = _bases(inputs, archive)[path]
    (tmp_path / "a-file").write_text("not a folder\n")
    (tmp_path / "empty").write_text("")
    out_path = tmp_path / "run"
    options = {k: (v.format(out=out_path) if isinstance(v, str) else v) for k, v in options.items()}
    value = value.format(tmp=tmp_path)
    positionals = list(positionals)
    if name.startswith("--"):
        options = dict(options) | {name: value}
    else:  # a positional argument: replace it in place
        index = {"traces": 0, "trace": 0, "target": 0, "file": 0, "inputs": 0, "rulebase": 0, "strategy": 0}[name]
        if path == ("evolve", "compare") and name == "traces":
            index = 1
        if path == ("rules", "show") and name == "trace":
            index = 1
        if path == ("bound",) and name == "target":
            index = 0
        if index < len(positionals):
            positionals[index] = value
        else:  # an optional argument the working command leaves out
            positionals.append(value)
    promised = [Path(v) for k, v in options.items()
                if k in FOLDER_OUT | FILE_OUT and isinstance(v, str) and k != name]
    code, _err = _contract(capsys, _argv(path, positionals, options), promised, options.get("--json") is True,
                         stop=value in (str(HUGE_INT), repr(HUGE_FLOAT)))
    if code == 2 and "--out" in options and name != "--out" and out_path.exists():
        # the refused command left its run folder: the working command must still run there
        base_positionals, base_options = _bases(inputs, archive)[path]
        base_options = {k: (v.format(out=out_path) if isinstance(v, str) else v) for k, v in base_options.items()}
        again = _run(_argv(path, base_positionals, base_options))
        _out, err = capsys.readouterr()
        assert again == 0, f"after {name}={value}, the working command is refused on the same folder: {err[-1000:]}"
