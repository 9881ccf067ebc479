"""`schedlab federation compare` sweeps of the GA settings (slowdown-guided-ga-federation, Figs. 2-3; issue 34
item 4): repeated --generations or --pop give one run folder per value, the heuristics run once, the chart
of the swept value, and bad values refused before anything is written."""

from __future__ import annotations

import json

import pytest

from conftest import one_line_error, run, trace_path

HPC2N = "HPC2N-2002-2.2-cln.swf.gz"


def _compare(capsys, out, *extra, methods="jpr,metl,ga-random,ga-metl"):
    code, _, err = run(capsys, "federation", "compare", trace_path(HPC2N), "--jobs", "200", "--workloads", "1",
                       "--package-size", "100", "--methods", methods, "--workers", "1", "--seed", "3",
                       "--out", out, *extra)
    assert code == 0, err
    return json.loads((out / "results.json").read_text())


def _ga(rows):
    return {(r["method"], r.get("generations"), r.get("pop")): r["makespan"] for r in rows if r["method"].startswith("ga")}


def test_generations_sweep_is_one_cell_per_value_each_a_single_run(tmp_path, capsys):
    from schedlab.federation.platform import default_platform
    from schedlab.federation.validate import validate_federated
    from schedlab.optimize.federation_ga import FederationGAConfig
    from schedlab.optimize.federation_run import FederationRunConfig, run_federation
    from schedlab.workload.spec import TraceSpec

    sweep = tmp_path / "sweep"
    rows = _compare(capsys, sweep, "--generations", "3", "--generations", "2", "--pop", "4")
    # the heuristics once, each GA once per value (rows keyed by their setting)
    assert sorted(r["method"] for r in rows if "generations" not in r) == ["jpr", "metl"]
    assert sorted(_ga(rows)) == [("ga-metl", 2, 4), ("ga-metl", 3, 4), ("ga-random", 2, 4), ("ga-random", 3, 4)]
    folders = sorted(p.name for p in (sweep / "p100" / "Wk-1").iterdir())
    assert folders == ["ga-metl-g2-pop4", "ga-metl-g3-pop4", "ga-random-g2-pop4", "ga-random-g3-pop4", "jpr", "metl"]
    table = (sweep / "table.md").read_text()
    assert "### packages of 100 jobs, 2 generations x population 4" in table
    assert "### packages of 100 jobs, 3 generations x population 4" in table
    assert (sweep / "ga_by_generations.png").read_bytes()[:4] == b"\x89PNG"
    assert not (sweep / "ga_by_package_size.png").exists()
    # each cell is the single-value comparison of its value (folders and rows as before sweeps existed)
    for gens in (2, 3):
        single = _compare(capsys, tmp_path / f"g{gens}", "--generations", str(gens), "--pop", "4")
        assert all("generations" not in r and "pop" not in r for r in single)
        assert sorted(p.name for p in (tmp_path / f"g{gens}" / "p100" / "Wk-1").iterdir()) == \
            ["ga-metl", "ga-random", "jpr", "metl"]
        assert {m: mk for (m, g, _), mk in _ga(rows).items() if g == gens} == \
            {r["method"]: r["makespan"] for r in single if r["method"].startswith("ga")}
        assert [r["makespan"] for r in single if r["method"] in ("jpr", "metl")] == \
            [r["makespan"] for r in rows if r["method"] in ("jpr", "metl")]
    # every schedule of the sweep, read back from its run folder, through the federated validator
    for r in rows:
        ga = FederationGAConfig(generations=r.get("generations", 3), pop=4, seed=3)
        cfg = FederationRunConfig(TraceSpec(str(trace_path(HPC2N))), method=r["method"], package_size=100, jobs=200, ga=ga)
        name = f"{r['method']}-g{r['generations']}-pop4" if "generations" in r else r["method"]
        res = run_federation(cfg, default_platform(), sweep / "p100" / "Wk-1" / name)
        validate_federated(res.schedule)
        assert res.schedule.makespan == pytest.approx(r["makespan"])
    # the same command again reads every cell back (nothing re-run, the same rows)
    stamps = {p: p.stat().st_mtime_ns for p in sweep.glob("p100/Wk-1/*/result.json")}
    assert _compare(capsys, sweep, "--generations", "3", "--generations", "2", "--pop", "4") == rows
    assert {p: p.stat().st_mtime_ns for p in sweep.glob("p100/Wk-1/*/result.json")} == stamps


def test_pop_sweep_chart_and_cells(tmp_path, capsys):
    rows = _compare(capsys, tmp_path / "sweep", "--generations", "2", "--pop", "4", "--pop", "6",
                    methods="ga-random,ga-metl")
    assert sorted(_ga(rows)) == [("ga-metl", 2, 4), ("ga-metl", 2, 6), ("ga-random", 2, 4), ("ga-random", 2, 6)]
    assert (tmp_path / "sweep" / "ga_by_pop.png").read_bytes()[:4] == b"\x89PNG"
    single = _compare(capsys, tmp_path / "p6", "--generations", "2", "--pop", "6", methods="ga-random,ga-metl")
    assert {m: mk for (m, _, p), mk in _ga(rows).items() if p == 6} == {r["method"]: r["makespan"] for r in single}


@pytest.mark.parametrize(("options", "words"), [
    (["--generations", "0"], ["--generations must be a positive whole number"]),
    (["--generations", "2", "--generations", "0"], ["--generations must be a positive whole number, got 0"]),
    (["--pop", "4", "--pop", "1"], ["--pop must be a whole number >= 2, got 1"]),
    (["--pop", "4", "--pop", "5"], ["--pop must be even"]),
    (["--generations", "2", "--generations", "2"], ["--generations 2 is given twice"]),
    (["--pop", "4", "--pop", "6", "--pop", "4"], ["--pop 4 is given twice"]),
    (["--package-size", "50", "--package-size", "0"], ["--package-size must be a positive whole number, got 0"]),
    (["--package-size", "50", "--package-size", "50"], ["--package-size 50 is given twice"]),
    (["--generations", "2", "--generations", "3", "--pop", "4", "--pop", "6"], ["sweep one of them at a time"]),
])
def test_bad_sweep_value_is_one_line_before_anything_is_written(tmp_path, capsys, options, words):
    # the first value is good: before the check, its runs were written before the bad one was reached
    out = tmp_path / "cmp"
    argv = ["federation", "compare", trace_path(HPC2N), "--jobs", "100", "--workloads", "1", "--methods", "jpr,ga-random",
            "--workers", "1", "--out", out, *options]
    if "--package-size" not in options:
        argv += ["--package-size", "100"]
    if "--generations" not in options:
        argv += ["--generations", "2"]
    if "--pop" not in options:
        argv += ["--pop", "4"]
    one_line_error(*run(capsys, *argv)[::2], *words)
    assert not out.exists()


def test_warm_up_compiles_the_population_fitness(monkeypatch):
    # the GA evaluates its population with PackageProblem.makespans: compiled inside the first GA's timed
    # generations unless the warm-up calls it (the time cost of Figs. 1-3 would then include compilation)
    from schedlab.federation.platform import default_platform
    from schedlab.federation.schedule import PackageProblem
    from schedlab.optimize import federation_run as fr
    from schedlab.workload.spec import TraceSpec

    cfg = fr.FederationRunConfig(TraceSpec(str(trace_path(HPC2N))), method="ga-random", package_size=5, jobs=5)
    calls = []
    original = PackageProblem.makespans
    monkeypatch.setattr(PackageProblem, "makespans", lambda self, X: (calls.append(X.shape), original(self, X))[1])
    fr._warm_up(fr.load_jobs(cfg), default_platform(), cfg)
    assert calls == [(1, 1)]
