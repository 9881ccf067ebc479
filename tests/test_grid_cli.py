"""`schedlab grid simulate|pareto`: JSON document, agreement with the API, one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from conftest import one_line_error, require_workloads, run
from schedlab.cli.main import main
from schedlab.grid.setups import SETUPS, load_grid, parse_site, resolve_site_trace
from schedlab.grid.sim import simulate_grid
from schedlab.metrics.grid import grid_summary

SITES = ["--site", "KTH-SP2:100", "--site", "SDSC-SP2:128", "--months", "1"]
#: two sites of the bundled trace: errors that do not depend on the shared traces
BARE = ["--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1"]


@pytest.mark.parametrize("exchange", ["none", "pool", "rq"])
def test_simulate_json(capsys, exchange):
    require_workloads()  # SDSC-SP2 is a shared trace
    assert main(["grid", "simulate", *SITES, "--exchange", exchange, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"grid", "months", "exchange", "reading", "sites", "AWRT"}
    assert doc["exchange"] == exchange and doc["months"] == 1 and doc["grid"] == "KTH-SP2:100 SDSC-SP2:128"
    assert [s["name"] for s in doc["sites"]] == ["KTH-SP2", "SDSC-SP2"]
    for s in doc["sites"]:
        assert set(s) == {"name", "procs", "jobs", "AWRT", "UTIL", "migrated_in", "migrated_out"}
    api = grid_summary(simulate_grid(load_grid(sites=["KTH-SP2:100", "SDSC-SP2:128"], months=1), exchange))
    assert doc["sites"] == api["sites"] and doc["AWRT"] == api["AWRT"]
    if exchange == "none":
        assert all(s["migrated_in"] == s["migrated_out"] == 0 for s in doc["sites"])


def test_simulate_reading_option(capsys):
    """--reading reaches the simulation (issue 5's RQ moves other jobs than the default) and a bad
    reading is a one-line error before any trace is read."""
    require_workloads()
    docs = {}
    for reading in ("issue5", "rq-when=every,rq-seq=interleaved,rq-take=budget"):
        assert main(["grid", "simulate", *SITES, "--exchange", "rq", "--reading", reading, "--json"]) == 0
        docs[reading] = json.loads(capsys.readouterr().out)
    a, b = docs.values()
    assert a["sites"] == b["sites"] and a["reading"] == b["reading"] == "rq-seq=interleaved,rq-when=every,rq-take=budget"
    api = grid_summary(simulate_grid(load_grid(sites=["KTH-SP2:100", "SDSC-SP2:128"], months=1), "rq"))
    assert api["sites"] != a["sites"]  # the default reading is another schedule
    code, _out, err = run(capsys, "grid", "simulate", *BARE, "--exchange", "rq", "--reading", "rq-when=never")
    one_line_error(code, err, "--reading", "rq-when='never'")


def test_simulate_table(capsys):
    require_workloads()
    assert main(["grid", "simulate", *SITES, "--exchange", "rq"]) == 0
    out = capsys.readouterr().out
    assert "KTH-SP2" in out and "SDSC-SP2" in out and "overall" in out


def test_setups_are_table_1():
    require_workloads()  # resolve_site_trace looks in the shared folder
    assert SETUPS["I"] == (("KTH-SP2", 100), ("SDSC-SP2", 128))
    assert SETUPS["IV"] == (("SDSC-BLUE", 1152), ("SDSC-DS", 1664))
    assert resolve_site_trace("CTC-SP2").name == "CTC-SP2-1996-3.1-cln.swf.gz"
    assert parse_site("some/path.swf:64") == ("some/path.swf", 64)


@pytest.mark.parametrize(
    "args, message",
    [
        (["grid", "simulate", "--site", "KTH-SP2:100"], "at least 2 sites"),
        (["grid", "simulate", "--setup", "V"], "unknown setup 'V'"),
        (["grid", "simulate", "--setup", "I", "--site", "KTH-SP2:100"], "either --setup or --site"),
        (["grid", "simulate", "--site", "KTH-SP2:x", "--site", "KTH-SP2:5"], "not a whole number"),
        (["grid", "simulate", "--site", "KTH-SP2", "--site", "KTH-SP2:5"], "expected TRACE:PROCS"),
        (["grid", "simulate", "--site", "NOPE:10", "--site", "KTH-SP2:5"], "NOPE: no such file"),
        (["grid", "simulate", *BARE, "--exchange", "steal"], "--exchange 'steal'"),
        (["grid", "pareto", *BARE, "--out", "/proc/no/such", "--generations", "0"], "--generations must be"),
        (["grid", "pareto", *BARE, "--out", "/proc/x", "--generations", "1", "--pop", "4"], "/proc/x"),
        (["grid", "pareto", *BARE, "--out", "/tmp/never", "--p-rand", "1.5"], "--p-rand must lie in [0, 1]"),
        (["grid", "pareto", *BARE, "--out", "/tmp/never", "--seed-with", "easy"], "--seed-with: cannot seed"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_pareto_cli_writes_the_run_folder(capsys, tmp_path):
    require_workloads()
    out = tmp_path / "run"
    assert main(["grid", "pareto", *SITES, "--out", str(out), "--generations", "2", "--pop", "4", "--seed", "3"]) == 0
    assert "front points after 2 generations (8 evaluations)" in capsys.readouterr().out
    for name in ("config.json", "checkpoint", "history.csv", "points.csv", "front.csv", "points.md", "comparison.json",
                 "references.json", "front.png", "hypervolume.png"):
        assert (out / name).stat().st_size > 0
    refs = json.loads((out / "references.json").read_text())
    assert set(refs) == {"none", "pool", "rq"}
    front = (out / "front.csv").read_text().splitlines()
    assert front[0] == "AWRT_KTH-SP2,AWRT_SDSC-SP2,jobs_KTH-SP2,jobs_SDSC-SP2,migrated" and len(front) >= 2
    # report.html: the front, the hypervolume and per site the schedule plots of no exchange vs RQ
    page = (out / "report.html").read_text()
    for name in ("front.png", "hypervolume.png", "site1_gantt.png", "site1_waits.png", "site2_utilisation.png"):
        assert f'src="{name}"' in page and (out / name).stat().st_size > 0
    assert "Site 2 (SDSC-SP2)" in page and "no exchange (EASY)" in (out / "site1_plots.html").read_text()


def test_front_vs_references_gap():
    import numpy as np

    from schedlab.optimize.grid_pareto import front_vs_references

    refs = {"rq": {"sites": [{"AWRT": 100.0}, {"AWRT": 200.0}]}, "none": {"sites": [{"AWRT": 50.0}, {"AWRT": 50.0}]}}
    F = np.array([[90.0, 250.0], [110.0, 180.0], [95.0, 190.0]])
    cmp = front_vs_references(F, refs)
    assert cmp["rq"]["dominated"] and cmp["rq"]["gap"] == pytest.approx(-0.05)  # (95, 190) beats (100, 200)
    assert not cmp["none"]["dominated"] and cmp["none"]["dominates"] == 3
    assert cmp["none"]["gap"] == pytest.approx(min(max(40 / 50, 200 / 50), max(60 / 50, 130 / 50), max(45 / 50, 140 / 50)))
