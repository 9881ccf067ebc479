"""Trace options and trace names the same in every verb (issue 32): a job wider than the machine is
an error whatever gives the machine size, every verb that takes a TRACE takes --format and the
other trace options and hands them to the loader."""

from __future__ import annotations

import pytest

from schedlab.cli.main import main
from conftest import one_line_error
from test_first_hour import _commands

TRACE_OPTIONS = {"--format", "--procs", "--months", "--scale-to", "--calibrate-load"}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wide_swf(tmp_path):
    """MaxProcs 10 in the header, the second job (line 4, after a comment line) 20 processors wide."""
    path = tmp_path / "wide.swf"
    path.write_text("; MaxProcs: 10\n"
                    "1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "; a comment between jobs\n"
                    "2 10 5 100 20 -1 -1 20 200 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "3 20 5 100 2 -1 -1 2 200 -1 1 8 1 -1 -1 -1 -1 -1\n")
    return path


def test_job_wider_than_the_header_machine_is_an_error_like_with_procs(capsys, tmp_path, wide_swf):
    # issue 32 severe 7: with the size from '; MaxProcs: 10' the 20-wide job was dropped silently
    # ("2 jobs on 10 processors"); with --procs 10 the same trace was an error
    for extra, origin in (([], "MaxProcs 10 of the header"), (["--procs", "10"], "--procs 10")):
        for verb in (["simulate", wide_swf], ["compare", wide_swf, "--policies", "fcfs,easy"],
                     ["workload", "group", wide_swf, "-o", tmp_path / "g.swf"],
                     ["workload", "scale", wide_swf, "--scale-to", "40", "-o", tmp_path / "s.swf"],
                     ["evolve", "greedy", wide_swf, "--generations", "1", "--mu", "2", "--lambda", "2",
                      "--workers", "1", "--out", tmp_path / "run"]):
            code, _, err = run(capsys, *verb, *extra)
            one_line_error(code, err, f"{wide_swf}:4:", "job 2 needs 20 processors", "wider than the machine", origin,
                           "--procs at least 20")
    assert not any((tmp_path / name).exists() for name in ("g.swf", "s.swf", "run"))
    # a machine large enough runs all three jobs
    code, out, err = run(capsys, "simulate", wide_swf, "--procs", "20")
    assert code == 0, err
    assert "3 jobs on 20 processors" in out
    # the cleaning verb removes it and says so in its table (a counted reason, never silent)
    code, out, err = run(capsys, "workload", "clean", wide_swf, "-o", tmp_path / "c.swf")
    assert code == 0, err
    row = next(line for line in out.splitlines() if "wider than the machine" in line)
    assert row.rstrip(" │|").split()[-1] == "1" and "2 jobs, 10 processors" in out


def test_every_verb_that_takes_a_trace_takes_every_trace_option():
    # issue 32: --format was refused by evolve greedy/compare, rules iterative/evolve/show, bound,
    # federation run/compare although the README says every TRACE verb takes it
    takes_trace = []
    for path, cmd in _commands():
        params = {p.name: p for p in cmd.params}
        positional = [n for n in ("trace", "traces", "target") if n in params and params[n].param_type_name == "argument"]
        if positional:
            takes_trace.append(" ".join(path))
            flags = {o for p in cmd.params for o in p.opts}
            assert TRACE_OPTIONS <= flags, (path, TRACE_OPTIONS - flags)
    assert {"simulate", "compare", "bound", "evolve greedy", "evolve compare", "rules iterative", "rules evolve",
            "rules show", "federation run", "federation compare", "workload info", "workload clean"} <= set(takes_trace)


@pytest.mark.parametrize("verb", [
    ["evolve", "greedy", "KTH-SP2", "--generations", "1", "--mu", "2", "--lambda", "2", "--workers", "1", "--out", "{run}"],
    ["evolve", "compare", "{strategy}", "KTH-SP2"],
    ["rules", "iterative", "KTH-SP2", "--workers", "1", "--out", "{run}"],
    ["rules", "evolve", "KTH-SP2", "--generations", "1", "--workers", "1", "--out", "{run}"],
    ["bound", "KTH-SP2", "--generations", "1", "--pop", "8", "--workers", "1", "--out", "{run}"],
    ["federation", "run", "KTH-SP2", "--method", "jpr", "--package-size", "10", "--jobs", "20", "--workers", "1", "--out", "{run}"],
    ["federation", "compare", "KTH-SP2", "--jobs", "20", "--workers", "1", "--out", "{run}"],
])
def test_format_reaches_the_loader_of_every_verb(capsys, tmp_path, verb):
    # --format pbs on an SWF: the PBS reader's error proves the option got through to loading;
    # nothing is left behind that would block the corrected command
    strategy = tmp_path / "easy.json"
    strategy.write_text('{"dispatch": "easy"}')
    argv = [a.format(run=tmp_path / "run", strategy=strategy) for a in verb]
    code, _, err = run(capsys, *argv, "--format", "pbs")
    one_line_error(code, err, "not a PBS accounting record")
    code, _, err = run(capsys, *argv, "--format", "nope")
    one_line_error(code, err, "unknown trace format 'nope'")
    assert not (tmp_path / "run").exists()


def test_names_resolve_in_one_place_for_every_verb_and_the_grid(capsys, tmp_path, monkeypatch):
    # issue 32: 'grid' found short names in the workloads folder but 'simulate SDSC-SP2' did not,
    # and a missing grid trace did not say where it looked
    folder = tmp_path / "workloads"
    folder.mkdir()
    lines = "".join(f"{i} {60 * i} 0 100 {1 + i % 4} -1 -1 {1 + i % 4} 200 -1 1 {i % 3} 1 -1 -1 -1 -1 -1\n" for i in range(1, 40))
    (folder / "TINY-SITE-2001-1.1-cln.swf").write_text("; MaxProcs: 8\n" + lines)
    monkeypatch.setenv("SCHEDLAB_WORKLOADS", str(folder))
    monkeypatch.setenv("SCHEDLAB_CACHE_DIR", str(tmp_path / "cache"))
    for argv in (["simulate", "TINY-SITE", "--json"], ["simulate", "tiny-site-2001-1.1-cln", "--json"],
                 ["workload", "info", "TINY", "--json"],
                 ["grid", "simulate", "--site", "TINY-SITE:8", "--site", "KTH-SP2:100", "--months", "1"]):
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
    assert "TINY" in out
    for argv in (["simulate", "NO-SUCH"], ["grid", "simulate", "--site", "NO-SUCH:8", "--site", "KTH-SP2:100"]):
        code, _, err = run(capsys, *argv)
        one_line_error(code, err, "NO-SUCH", "bundled traces (KTH-SP2)", str(tmp_path / "cache" / "workloads"), str(folder))
    (folder / "TINY-SITE-2002-2.swf").write_text("; MaxProcs: 8\n" + lines)
    code, _, err = run(capsys, "simulate", "TINY-SITE")
    one_line_error(code, err, "ambiguous", "TINY-SITE-2001-1.1-cln.swf", "TINY-SITE-2002-2.swf")
