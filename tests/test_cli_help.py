"""Help texts and short refusals for a user (issue 32): -h everywhere, required arguments shown as
required, no internal names, one meaning per option name spelled out, units in the window options,
the platform file format documented, usage mistakes and refused run folders as one short line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import one_line_error, run
from schedlab.cli.main import main
from test_first_hour import BARE_GRID, _commands

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _help_texts():
    """(path, text) of every command's own help and of each of its parameters'."""
    for path, cmd in _commands():
        yield path, cmd.help or ""
        for p in cmd.params:
            yield path + [p.name], getattr(p, "help", None) or ""


def test_h_is_help_for_every_verb_and_sub_verb(capsys):
    for path, _ in _commands():
        assert main([*path, "-h"]) == 0, path
        out, err = capsys.readouterr()
        assert "Usage: schedlab" in out and "Traceback" not in out + err, path


def test_required_arguments_are_required_and_missing_ones_are_one_line(capsys):
    commands = {tuple(path): cmd for path, cmd in _commands()}
    for verb in (("simulate",), ("compare",)):
        (trace,) = [p for p in commands[verb].params if p.name == "trace"]
        assert trace.required, verb
        code, out, err = run(capsys, *verb, "-h")
        assert re.search(r"Usage: schedlab \w+ \[OPTIONS\] \{?trace\}?\s", out, re.I) and "[trace]" not in out, out
        one_line_error(*run(capsys, *verb)[::2], "missing TRACE", f"schedlab {verb[0]} --help")
    code, out, _ = run(capsys, "simulate", "--policy", "help")  # the listing needs no TRACE
    assert code == 0 and "scojo-bottomline" in out
    one_line_error(*run(capsys, "evolve", "greedy", "KTH-SP2", "--out", "r", "--generations", "x")[::2],
                   "--generations", "schedlab evolve greedy --help")
    one_line_error(*run(capsys, "simulate", "KTH-SP2", "--nope")[::2], "--nope")
    # options required only in one form of a verb say so
    (out_opt,) = [p for p in commands[("bound",)].params if p.name == "out"]
    assert "required" in out_opt.help
    for name in ("setup", "site"):
        (opt,) = [p for p in commands[("grid", "pareto")].params if p.name == name]
        assert "give --setup or --site" in opt.help


INTERNAL = ("method-notes", "topic 6", "schedlab.grid", "greedy-es-sorting-criteria", "genetic-fuzzy-rule-based",
            "slowdown-guided-ga", "nsga2-grid", "group-based-search")


def test_help_texts_cite_papers_not_internal_names():
    texts = list(_help_texts())
    for path, text in texts:
        for word in INTERNAL:
            assert word not in text, (path, word, text)
    # a table, figure or section is the paper's, and each verb group names its paper
    for path, text in texts:
        for m in re.finditer(r"\b(Table|Fig|Figs|Section|Sections|Algorithm)\.? \d", text):
            assert re.search(r"(paper's|thesis,?) $", text[:m.start()]), (path, text)
    groups = {tuple(path): cmd.help for path, cmd in _commands() if len(path) == 1}
    for group, author in ((("evolve",), "Franke"), (("rules",), "Franke"), (("grid",), "Grimme"),
                          (("federation",), "Gabaldon")):
        assert "the paper: " in groups[group] and author in groups[group], group


def test_sigma_and_window_units_say_what_they_are():
    commands = {tuple(path): {p.name: p for p in cmd.params} for path, cmd in _commands()}
    bound_sigma = commands[("bound",)]["sigma"].help
    federation_sigma = commands[("federation", "run")]["sigma"].help
    assert "positions" in bound_sigma and "federation" in bound_sigma
    assert "communicat" in federation_sigma and "bound" in federation_sigma
    assert "SECONDS" in commands[("simulate",)]["gantt_window"].help
    assert "DAYS" in commands[("plot",)]["window_start"].help


def test_the_platform_file_format_is_documented(capsys, tmp_path):
    from schedlab.federation.platform import load_platform

    code, out, _ = run(capsys, "federation", "platform", "show", "--help")
    flat = " ".join(out.split())
    for key in ("normalize_power", "clusters", "nodes", "power", "powers", "links", "bandwidth"):
        assert key in flat, key
    doc = (DOCS / "federation-platform.md").read_text()
    toml, js = re.findall(r"```toml\n(.*?)```", doc, re.S)[0], re.findall(r"```json\n(.*?)```", doc, re.S)[0]
    (tmp_path / "p.toml").write_text(toml)
    (tmp_path / "p.json").write_text(js)
    a, b = load_platform(tmp_path / "p.toml"), load_platform(tmp_path / "p.json")
    assert a.n_clusters == b.n_clusters == 2 and a.n_nodes == b.n_nodes == 68
    code, out, err = run(capsys, "federation", "platform", "show", tmp_path / "p.toml")
    assert code == 0 and "two-sites" in out, err
    code, out, _ = run(capsys, "federation", "platform", "show", "default", "--json")  # the format, round trip
    (tmp_path / "d.json").write_text(out)
    assert load_platform(tmp_path / "d.json").n_nodes == 256


def test_a_folder_of_another_run_kind_is_refused_by_its_kind_in_one_short_line(capsys, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    stored = {"kind": "bound", "trace": "KTH-SP2", "generations": 3, "pop": 8, "seed": 1, "moves": 1, "sigma": 50.0,
              "block": 50, "window": 500, "head_start": 0, "jobs": 2013, "machine_procs": 100, "months": 1,
              "procs": None, "scale_to": None, "calibrate_load": False, "seed_strategies": [],
              "data_sha256": "0" * 64, "versions": {}}
    (out / "config.json").write_text(json.dumps(stored))
    before = (out / "config.json").read_bytes()
    code, _, err = run(capsys, "evolve", "greedy", "KTH-SP2", "--months", "1", "--generations", "1", "--mu", "2",
                       "--lambda", "2", "--workers", "1", "--out", out)
    err = "\n".join(ln for ln in err.splitlines() if not ln.startswith("compiling"))
    one_line_error(code, err, "'bound'", "'evolve greedy'", "another --out folder")
    said = err.replace(str(out), "RUN")  # the folder's own path may hold any word ('popen-gw1' under xdist)
    assert len(said.strip()) < 120 and "data_sha256" not in said and "pop" not in said, err
    assert (out / "config.json").read_bytes() == before and sorted(p.name for p in out.iterdir()) == ["config.json"]


@pytest.mark.parametrize("exchange, reading, words", [
    ("none", "rq-when=every", ["--exchange none does not read rq-when"]),
    ("pool", "rq-take=startable", ["--exchange pool does not read rq-take", "pool-take, pool-keep"]),
    ("rq", "pool-keep=once", ["--exchange rq does not read pool-keep"]),
    ("none", "issue5", ["--exchange none reads none"]),
])
def test_grid_readings_that_the_exchange_does_not_read_are_refused(capsys, exchange, reading, words):
    one_line_error(*run(capsys, "grid", "simulate", *BARE_GRID, "--exchange", exchange, "--reading", reading)[::2],
                   *words)
