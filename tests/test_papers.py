"""The papers' set-up record (issue 34 item 1): src/schedlab/papers/setups.toml, its loader, the
`reproduce` verb and the header-size line of `workload info`."""

from __future__ import annotations

import csv

import pytest
import typer

from conftest import one_line_error, run, trace_path
from schedlab.papers import SetupError, command, get_setup, load_setups, paper_sizes

CTC = "CTC-SP2-1996-3.1-cln"


def _click_command(verb: list[str]):
    from schedlab.cli.main import _register, app

    _register()
    cmd = typer.main.get_command(app)
    for word in verb:
        cmd = cmd.commands[word]
    return cmd


def test_every_entry_builds_a_command_the_cli_parses():
    # each entry's command is parsed by the verb it names: an option the verb does not have, or a
    # missing argument, fails here rather than hours into a reproduction
    setups = load_setups()
    for name, setup in setups.items():
        argv = command(setup, out="RUN" if setup.out_option else None)
        depth = len(setup.verb.split())
        cmd = _click_command(argv[:depth])
        try:
            cmd.make_context(" ".join(argv[:depth]), argv[depth:], resilient_parsing=False)
        except Exception as e:  # noqa: BLE001 - typer vendors click: its UsageError is not click.UsageError
            pytest.fail(f"{name}: {' '.join(argv)}: {e}")


def test_every_result_an_entry_names_is_committed():
    # `reproduce NAME --show` prints the entry's result; a path that is not in the repository (a
    # renamed folder, a figure never committed) would send the reader nowhere
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    named = {name: s.result for name, s in load_setups().items() if s.result}
    assert named, "no entry names its result"
    missing = {name: r for name, r in named.items() if not (root / r).exists()}
    assert not missing, missing
    # the entries whose run is committed name it (issue 34: GE Fig. 3, GF Fig. 7 at CTC 430)
    assert named["ge/fig3"] == "docs/results/ge-fig3"
    assert all(named[f"gf/fig7/{w}"].startswith("docs/results/rules/fig7-CTC430/") for w in ("ctc", "kth", "lanl", "sdsc00", "sdsc96"))


def test_ctc_runs_on_the_papers_430_and_338_is_a_named_variant():
    setups = load_setups()
    ctc = [s for s in setups.values() if s.traces[0] == CTC]
    assert {s.procs for s in ctc if not s.variant} == {430}
    variants = {s.name for s in ctc if s.variant}
    assert {"gf/table3/ctc338", "gf/table4/ctc338", "gf/fig7/ctc338"} <= variants
    assert all(s.procs == 338 for s in ctc if s.variant)
    # the variants do not count as a size the papers use
    assert paper_sizes(CTC, setups) == {430: ["GE", "GF", "NG"]}
    assert paper_sizes(f"some/folder/{CTC}.swf.gz", setups) == {430: ["GE", "GF", "NG"]}


def _record(tmp_path, entry: str):
    path = tmp_path / "setups.toml"
    path.write_text('[setups."ge/x"]\npaper = "greedy-es-sorting-criteria"\nitem = "t"\nverb = "compare"\n'
                    'traces = ["KTH-SP2"]\nobjective = "AWRT"\n' + entry)
    return path


@pytest.mark.parametrize(("entry", "words"), [
    ('colour = "red"\n', ["ge/x", "unknown field", "colour"]),
    ("procs = 0\n", ["ge/x", "procs", "positive"]),
    ("calibrate_load = true\n", ["ge/x", "calibrate_load needs scale_to"]),
    ('options = ["--policies", "{base}"]\n', ["ge/x", "placeholder", "base"]),
    ('params = { base = "x" }\n', ["ge/x", "used nowhere", "base"]),
    ("budgets = { generations = -1 }\n", ["ge/x", "budget generations"]),
    ('scale_to = "1024"\n', ["ge/x", "scale_to must be a int"]),
])
def test_a_bad_record_entry_is_one_error_naming_it(tmp_path, entry, words):
    with pytest.raises(SetupError) as info:
        load_setups(_record(tmp_path, entry))
    for word in words:
        assert word in str(info.value)


def test_an_unreadable_or_broken_record_is_one_error_naming_the_file(tmp_path):
    with pytest.raises(SetupError, match="missing.toml: cannot read"):
        load_setups(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text('[setups."ge/x"\n')
    with pytest.raises(SetupError, match="broken.toml: not valid TOML"):
        load_setups(broken)


def test_budgets_and_params_are_overridden_and_unknown_ones_refused():
    setup = get_setup("ge/table3")
    argv = command(setup, {"generations": "2", "mu": "2", "lambda": "4"}, out="RUN")
    assert argv[argv.index("--generations") + 1] == "2" and argv[argv.index("--lambda") + 1] == "4"
    assert argv[argv.index("--procs") + 1] == "430" and argv[-2:] == ["--out", "RUN"]
    fig7 = command(get_setup("gf/fig7/kth"), {"ctc": "CTC", "rules": "R"}, out="k.csv")
    assert "easy,R/symbiotic-CTC/best.json,R/iterative-CTC/best.json," in fig7[fig7.index("--policies") + 1]
    with pytest.raises(SetupError, match="no budget or param 'pop'"):
        command(setup, {"pop": "3"}, out="RUN")
    with pytest.raises(SetupError, match="positive number"):
        command(setup, {"generations": "many"}, out="RUN")
    with pytest.raises(SetupError, match="give --out"):
        command(setup)


def test_reproduce_cli_lists_shows_prints_and_refuses_in_one_line(capsys):
    code, out, _ = run(capsys, "reproduce", "--list")
    assert code == 0 and "gf/table3/ctc338" in out and "[variant]" in out and "ng/setup-I " in out
    code, out, _ = run(capsys, "reproduce", "gf/table3/ctc", "--show")
    assert code == 0 and "processors: 430" in out and "load-calibrated" in out
    code, out, _ = run(capsys, "reproduce", "ge/table3", "--out", "R", "--set", "generations=2", "--print", "--workers", "1")
    assert code == 0 and out.startswith("schedlab evolve greedy CTC-SP2-1996-3.1-cln --procs 430")
    assert "--generations 2" in out and out.rstrip().endswith("--out R --workers 1")
    one_line_error(*run(capsys, "reproduce", "ge/tabel3")[::2], "unknown set-up", "ge/table3")
    one_line_error(*run(capsys, "reproduce", "ge/table3", "--out", "R", "--set", "generations")[::2], "NAME=VALUE")
    one_line_error(*run(capsys, "reproduce", "ge/fig2", "--out", "R")[::2], "drop --out")


def test_list_and_show_fill_an_item_s_params_and_print_needs_no_out(capsys):
    """Issue 43: sg/fig4's item printed "Wk-1..Wk-{wk}" (its param wk is 6), and `--print` demanded
    --out although it runs nothing; a setup that needs no folder still refuses one."""
    code, out, _ = run(capsys, "reproduce", "--list")
    line = next(x for x in out.splitlines() if x.startswith("sg/fig4 "))
    assert code == 0 and "Wk-1..Wk-6," in line and "{" not in out
    code, out, _ = run(capsys, "reproduce", "sg/fig4", "--show")
    assert code == 0 and "Wk-1..Wk-6," in out and "{wk}" not in out
    code, out, err = run(capsys, "reproduce", "ge/table3", "--print")
    assert code == 0, err
    assert out.startswith("schedlab evolve greedy CTC-SP2-1996-3.1-cln") and out.rstrip().endswith("--out DIR")
    code, out, err = run(capsys, "reproduce", "sg/fig4", "--print")
    assert code == 0 and "--workloads 6" in out, err


def test_reproduce_runs_the_entry(tmp_path, capsys, monkeypatch):
    import schedlab.papers as papers

    record = _record(tmp_path, 'months = 1\noptions = ["--policies", "{policies}"]\n'
                               'params = { policies = "fcfs" }\nout_option = "--csv"\n')
    packaged = papers.load_setups
    monkeypatch.setattr(papers, "load_setups", lambda path=None: packaged(record))
    out = tmp_path / "t.csv"
    code, _, err = run(capsys, "reproduce", "ge/x", "--set", "policies=easy,fcfs", "--out", out)
    assert code == 0, err
    assert "ge/x: schedlab compare KTH-SP2 --months 1" in err
    rows = list(csv.DictReader(out.open()))
    assert [r["strategy"] for r in rows] == ["easy", "fcfs"]


def test_workload_info_shows_the_header_size_beside_the_papers(tmp_path, capsys):
    trace = tmp_path / f"{CTC}.swf"
    trace.write_text("; MaxProcs: 338\n; MaxNodes: 338\n"
                     "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
                     "2 10 0 50 8 -1 -1 8 100 -1 1 2 1 -1 1 -1 -1 -1\n")
    code, out, err = run(capsys, "workload", "info", trace)
    assert code == 0, err
    assert "338 processors in the header; the papers use 430 (GE, GF, NG)" in " ".join(out.split())
    code, out, _ = run(capsys, "workload", "info", trace, "--json")
    assert '"papers_procs": {"430": ["GE", "GF", "NG"]}' in out and '"header_procs": 338' in out
    # a trace the papers run on its header's size gets no such line
    other = tmp_path / "KTH-SP2-1996-2.1-cln.swf"
    other.write_text(trace.read_text().replace("338", "100"))
    code, out, _ = run(capsys, "workload", "info", other)
    assert code == 0 and "papers use" not in out


def test_sg_sweeps_repeat_the_swept_option_and_take_a_list_override():
    fig1 = command(get_setup("sg/fig1"), out="RUN")
    assert [int(fig1[i + 1]) for i, a in enumerate(fig1) if a == "--package-size"] == list(range(100, 1001, 100))
    fig2 = command(get_setup("sg/fig2"), out="RUN")
    assert [fig2[i + 1] for i, a in enumerate(fig2) if a == "--generations"] == ["100", "200", "300", "400", "500"]
    assert fig2[fig2.index("--pop") + 1] == "500" and fig2.count("--pop") == 1
    fig3 = command(get_setup("sg/fig3"), {"pop": "4,6"}, out="RUN")
    assert [fig3[i + 1] for i, a in enumerate(fig3) if a == "--pop"] == ["4", "6"]
    for argv in (fig1, fig2, fig3):  # the paper's makespan, named, and the GA's process CPU as its time cost
        assert "--makespan workload" in " ".join(argv) and "--workers 1" in " ".join(argv)
    with pytest.raises(SetupError, match="list of distinct positive numbers"):
        command(get_setup("sg/fig2"), {"generations": "2,2"}, out="RUN")
    with pytest.raises(SetupError, match="budget pop of sg/fig2 must be a positive number"):
        command(get_setup("sg/fig2"), {"pop": "4,6"}, out="RUN")


@pytest.mark.parametrize("budget", ["[]", "[1, 1]", "[2, 0]", '["2"]'])
def test_a_bad_budget_list_is_refused(tmp_path, budget):
    with pytest.raises(SetupError, match="budget generations must be a positive number or a list of distinct"):
        load_setups(_record(tmp_path, f"budgets = {{ generations = {budget} }}\n"))


def test_reproduce_sg_fig3_tiny_runs_one_cell_per_population(tmp_path, capsys):
    import json

    trace_path("HPC2N-2002-2.2-cln.swf.gz")  # sg/fig3 names the real HPC2N trace: skip (or fail in CI) without it
    out = tmp_path / "fig3"
    code, _, err = run(capsys, "reproduce", "sg/fig3", "--out", out, "--set", "jobs=200", "--set", "generations=2",
                       "--set", "pop=4,6")
    assert code == 0, err
    rows = json.loads((out / "results.json").read_text())
    assert sorted((r["method"], r["pop"]) for r in rows) == [("ga-metl", 4), ("ga-metl", 6), ("ga-random", 4), ("ga-random", 6)]
    assert all(r["package_size"] == 1000 and r["jobs"] == 200 and r["generations"] == 2 for r in rows)
    assert all(r["cpu_seconds"] >= 0 for r in rows)  # --workers 1: the time cost is the process CPU
    assert (out / "ga_by_pop.png").read_bytes()[:4] == b"\x89PNG"
