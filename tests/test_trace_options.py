"""Trace options and trace names the same in every verb (issue 32): a job wider than the machine is
an error whatever gives the machine size, every verb that takes a TRACE takes --format and the
other trace options and hands them to the loader."""

from __future__ import annotations

import pytest

from schedlab.cli.main import main
from conftest import one_line_error
from test_first_hour import _commands

TRACE_OPTIONS = TRACE_OPTIONS_FLAGS = {"--format", "--procs", "--months", "--scale-to", "--calibrate-load"}


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


def test_every_trace_verb_takes_the_one_declaration_of_the_trace_options():
    # issue 36: the five trace options were repeated in 13 command signatures; now each TRACE verb gets them
    # from cli/options.TRACE_OPTIONS (with_trace_options): the same flags, help texts and defaults everywhere,
    # and the grid verbs (whose traces come with --site/--setup) take the same --format for their site traces
    from schedlab.cli.options import TRACE_OPTIONS

    declared = {opt.param_decls[0]: (opt.help, opt.default) for _, opt in TRACE_OPTIONS.values()}
    assert set(declared) == TRACE_OPTIONS_FLAGS
    seen = []
    for path, cmd in _commands():
        params = {p.name: p for p in cmd.params}
        flags = {o: (p.help, p.default) for p in cmd.params for o in p.opts if o in declared}
        if any(n in params and params[n].param_type_name == "argument" for n in ("trace", "traces", "target")):
            seen.append(" ".join(path))
            assert flags == declared, path
        elif path[:1] == ["grid"] and len(path) == 2:
            seen.append(" ".join(path))
            # their traces come per site (TRACE:PROCS), so no --procs/--scale-to; --months is theirs (the paper's 11)
            assert flags["--format"] == declared["--format"] and set(flags) == {"--format", "--months"}, path
    assert sorted(seen) == ["bound", "compare", "evolve compare", "evolve greedy", "evolve slurm",
                            "federation compare", "federation run",
                            "grid pareto", "grid simulate", "rules evolve", "rules iterative", "rules show", "simulate",
                            "workload clean", "workload cut", "workload group", "workload info", "workload scale"]


def test_grid_takes_format_for_its_site_traces(capsys):
    # before issue 36: 'grid simulate ... --format swf' was "No such option: --format" (exit 2)
    sites = ["grid", "simulate", "--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1", "--json"]
    code, sniffed, err = run(capsys, *sites)
    assert code == 0, err
    code, out, err = run(capsys, *sites, "--format", "swf")
    assert code == 0, err
    assert out == sniffed
    code, _, err = run(capsys, *sites, "--format", "pbs")
    one_line_error(code, err, "not a PBS accounting record")


def test_prepare_trace_is_the_pipeline_of_the_verbs_and_optimizers():
    # one preparation: a verb's TraceOptions.load, the bound's, federation's and evolve's training traces
    # all give prepare_trace(TraceSpec(...)), and a bad option is refused on building the spec
    import numpy as np

    from schedlab.cli.options import TraceOptions
    from schedlab.errors import WorkloadError
    from schedlab.optimize.bound import workload_of
    from schedlab.optimize.calibrate import easy_util
    from schedlab.optimize.evolve import EvolveConfig, load_training
    from schedlab.workload.spec import TraceSpec, prepare_trace, split_trace

    spec = TraceSpec("KTH-SP2", months=2, scale_to=150)
    ref = prepare_trace(spec, utilisation=easy_util)
    assert ref.machine_procs == 150
    same = [TraceOptions(None, 2, 150).load("KTH-SP2"), workload_of(spec),
            load_training(EvolveConfig(traces=("KTH-SP2",), trace_spec=TraceSpec(months=2, scale_to=150)))[0][0]]
    for w in same:
        assert all(np.array_equal(getattr(w, c), getattr(ref, c)) for c in ("submit", "runtime", "procs", "estimate", "group"))
    train, test = split_trace(TraceSpec("KTH-SP2", months=2, scale_to=150, split_months=1), utilisation=easy_util)
    assert len(train) > 0 and len(test) > 0 and train.machine_procs == test.machine_procs == 150
    assert train.name.endswith("[months 1-1: 1996-09-23 14:00 – 1996-10-23 14:00]")
    assert test.name.endswith("[months 2-2: 1996-10-23 14:00 – 1996-11-23 14:00]")
    for bad, words in (({"procs": 0}, "--procs must be a positive"), ({"calibrate_load": True}, "give --scale-to too"),
                       ({"format": "nope"}, "unknown trace format 'nope'")):
        with pytest.raises(WorkloadError, match=words):
            TraceSpec("KTH-SP2", **bad)
    with pytest.raises(WorkloadError, match="simulates EASY"):
        prepare_trace(TraceSpec("KTH-SP2", months=1, scale_to=150, calibrate_load=True))  # no utilisation given


def test_procs_beyond_the_largest_machine_is_one_line_and_the_largest_prints_exactly(capsys, tmp_path, wide_swf):
    """Issue 43 item 8: --procs 99999999999999999999 overflowed the engine's int64 counters (a traceback in
    simulate, compare and evolve greedy); 2^63 - 1 printed as 2^63 (a float). The bound is
    MAX_PROCS = 2^31 - 1; at the bound the machine size prints digit for digit."""
    MAX_PROCS = 2_147_483_647  # schedlab.workload.clean.MAX_PROCS, 2^31 - 1
    verbs = (["simulate", "KTH-SP2", "--months", "1"], ["compare", "KTH-SP2", "--months", "1", "--policies", "fcfs,easy"],
             ["evolve", "greedy", "KTH-SP2", "--months", "1", "--generations", "1", "--mu", "1", "--lambda", "2",
              "--workers", "1", "--out", tmp_path / "run"])
    for huge in ("99999999999999999999", str(2**63 - 1), str(MAX_PROCS + 1)):
        for verb in verbs:
            for option in ("--procs", "--scale-to"):
                code, _, err = run(capsys, *verb, option, huge)
                one_line_error(code, err, f"{option} {huge} is above the largest machine", "2,147,483,647 processors")
    assert not (tmp_path / "run").exists()
    from schedlab.workload.clean import MAX_PROCS as documented

    assert documented == MAX_PROCS
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--months", "1", "--procs", MAX_PROCS, "--json")
    assert code == 0, err
    assert '"procs": 2147483647,' in out  # as typed, not 2147483647.0 or a rounded float
    # a header claiming a machine beyond the bound: one line too, naming the header
    big = tmp_path / "big.swf"
    big.write_text(wide_swf.read_text().replace("MaxProcs: 10", "MaxProcs: 99999999999999999999"))
    code, _, err = run(capsys, "simulate", big)
    one_line_error(code, err, "MaxProcs of the header", "above the largest machine")


def test_negative_runtimes_and_a_header_far_wider_than_any_job_are_one_note_each(capsys, tmp_path):
    """Issue 43: simulate dropped jobs with a negative runtime without a word, and a header claiming
    MaxProcs 100000 for jobs of at most 4 processors gave UTIL 0.06 % with no note. Jobs 2 (-50 s) and
    3 (-1 = unknown) are dropped: 2 of 4; the widest job is 4 processors: 100,000 / 4 = 25,000 times."""
    path = tmp_path / "odd.swf"
    path.write_text("; MaxProcs: 100000\n"
                    "1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "2 10 5 -50 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "3 15 5 -1 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "4 20 5 100 2 -1 -1 2 200 -1 1 8 1 -1 -1 -1 -1 -1\n")
    code, out, err = run(capsys, "simulate", path, "--objective", "AWRT")
    assert code == 0, err
    assert "2 jobs on 100,000 processors" in out
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert len(notes) == 2, err
    assert notes[0].startswith("note: odd: 2 jobs with a negative runtime (job 2: -50 s;") and "dropped" in notes[0]
    assert "header's machine of 100,000 processors is 25,000 times the widest job (4)" in notes[1]
    # --procs chosen by the user: no note on the machine size; a trace without oddities: no note at all
    code, out, err = run(capsys, "simulate", path, "--objective", "AWRT", "--procs", "1000000")
    assert code == 0 and "times the widest job" not in err and "negative runtime" in err
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--months", "1")
    assert code == 0 and "note:" not in err
