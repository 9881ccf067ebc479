"""One run shape for every optimizer (issue 46 item 1): ``schedlab.minimize(problem, algorithm, termination)``.

A Problem parses its objective once; every algorithm is a row of the registry's OPTIMIZERS; the run
folder minimize makes is the verb's (same files, resumes and extends the same); one default seed and
one default executor in every driver; the objective's text becomes an Objective in one place."""

from __future__ import annotations

import ast
import inspect
import json
import re
import warnings
from pathlib import Path

import pytest

from conftest import run
from schedlab.errors import ObjectiveError, RunError
from test_evolve_cli import OBJ, _args, _history, kth_file  # noqa: F401  (fixture)

SRC = Path(__file__).resolve().parents[1] / "src" / "schedlab"


def test_the_objective_text_becomes_an_objective_in_one_place():
    """Issue 46 counted six places that parsed the objective's text anew (cli/evolve.py, evolve.py,
    heldout.py, versus_easy.py twice, run.py): now none outside Objective.of builds one from text."""
    calls = []
    for path in SRC.rglob("*.py"):
        if path.name == "objective.py" and path.parent.name == "metrics":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Objective":
                calls.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert calls == []


def test_configs_and_problems_hold_the_parsed_objective():
    import schedlab as sl
    from schedlab.optimize.evolve import EvolveConfig

    config = EvolveConfig(traces=("KTH-SP2",), objective="10 * AWRT1+4*AWRT2")
    assert isinstance(config.objective, sl.Objective)
    assert config.objective == sl.Objective("10*AWRT1 + 4*AWRT2")
    assert config.to_dict()["objective"] == "10 * AWRT1+4*AWRT2"  # config.json keeps the text as given
    problem = sl.Problem("greedy", ["KTH-SP2"], "AWRT")
    assert isinstance(problem.objective, sl.Objective) and problem.traces == (sl.TraceSpec("KTH-SP2"),)
    assert EvolveConfig(traces=("KTH-SP2",), objective=problem.objective).objective is problem.objective
    with pytest.raises(ObjectiveError, match="AWRTX"):
        sl.Problem("greedy", ["KTH-SP2"], "AWRTX")


def test_every_optimizer_is_a_registry_row_of_a_space():
    """The seven drivers' algorithms are rows of OPTIMIZERS, each naming the spaces it searches; the box
    optimizers (``--optimizer``) stay es and cmaes."""
    from schedlab.optimize.problem import SPACES
    from schedlab.strategy.registry import OPTIMIZERS, optimizer_names

    assert {o.name: o.spaces for o in OPTIMIZERS} == {
        "es": ("greedy", "slurm"), "cmaes": ("greedy", "slurm"), "iterative": ("rules",), "symbiotic": ("rules",),
        "nsga3": ("bound",), "nsga2": ("grid",), "ga": ("federation",)}
    assert {s for o in OPTIMIZERS for s in o.spaces} == {s.name for s in SPACES}
    assert optimizer_names() == ("es", "cmaes") and optimizer_names("rules") == ("iterative", "symbiotic")


def test_a_wrong_algorithm_or_budget_is_one_line():
    import schedlab as sl

    problem = sl.Problem("greedy", ["KTH-SP2"])
    with pytest.raises(RunError, match="unknown optimizer 'nsga2' for the greedy space; choose es or cmaes"):
        sl.minimize(problem, "nsga2", 3, out="never")
    with pytest.raises(RunError, match="number of generations"):
        sl.minimize(problem, "es", sl.Termination(seconds=60), out="never")
    with pytest.raises(RunError, match="unknown setting"):
        sl.minimize(problem, "es", 1, out="never", popsize=3)
    with pytest.raises(RunError, match="dispatch: given both"):
        sl.minimize(sl.Problem("greedy", ["KTH-SP2"], settings={"dispatch": "easy"}), "es", 1, out="never",
                    dispatch="fcfs")
    with pytest.raises(RunError, match="unknown --dispatch 'sometimes'"):
        sl.minimize(sl.Problem("greedy", ["KTH-SP2"], settings={"dispatch": "sometimes"}), "es", 1, out="never")
    with pytest.raises(RunError, match="own objectives"):
        sl.Problem("grid", ["KTH-SP2:100"], "AWRT")
    assert not Path("never").exists()


def test_minimize_is_the_verb_resumes_and_extends(tmp_path, kth_file, capsys):  # noqa: F811
    """The run folder of ``sl.minimize`` is the one ``evolve greedy`` makes from the same settings (same
    history and best), and the verb resumes it; a larger budget is refused without extend and continued
    with it, to the verb's run of that budget."""
    import schedlab as sl

    verb = tmp_path / "verb"
    assert run(capsys, *_args(kth_file, verb))[0] == 0
    problem = sl.Problem("greedy", [kth_file], OBJ)
    out = tmp_path / "face"
    r = sl.minimize(problem, "es", 2, out=out, workers=1, seed=5, mu=2, lam=4)
    assert not r.interrupted and r.result.runs["free"].generations == 2
    with pytest.raises(RunError, match="add --extend"):
        sl.minimize(problem, "es", 3, out=out, workers=1, seed=5, mu=2, lam=4)
    r = sl.minimize(problem, "es", 3, out=out, workers=1, seed=5, mu=2, lam=4, extend=True)
    assert r.result.runs["free"].resumed_from == 2
    assert _history(out) == _history(verb)
    assert (out / "best.json").read_text() == (verb / "best.json").read_text() == r.best.to_json() + "\n"
    config = json.loads((out / "config.json").read_text())
    assert config["objective"] == OBJ and config["seed"] == 5 and config["generations"] == 3
    before = (out / "checkpoint").read_bytes()
    code, _out, err = run(capsys, *_args(kth_file, out))  # the verb resumes it: nothing left to do
    assert code == 0, err
    assert (out / "checkpoint").read_bytes() == before


def test_one_default_seed_and_one_default_executor():
    from schedlab.cli.options import DEFAULT_SEED as CLI_SEED
    from schedlab.optimize import bound, evolve, evolve_slurm, federation_run, gfs, grid_pareto
    from schedlab.optimize.bound_problem import BoundConfig
    from schedlab.optimize.evolve import EvolveConfig
    from schedlab.optimize.evolve_slurm import SlurmTuneConfig
    from schedlab.optimize.federation_ga import FederationGAConfig
    from schedlab.optimize.nsga2_grid import GridNSGA2Config
    from schedlab.optimize.problem import minimize
    from schedlab.optimize.settings import DEFAULT_EXECUTOR, DEFAULT_SEED

    assert DEFAULT_SEED == CLI_SEED == 1  # README: "--seed (default 1)"
    for cls in (EvolveConfig, SlurmTuneConfig, FederationGAConfig, BoundConfig, GridNSGA2Config):
        assert {f.name: f.default for f in cls.__dataclass_fields__.values()}["seed"] == DEFAULT_SEED, cls
    drivers = (evolve.evolve_greedy, evolve_slurm.evolve_slurm, gfs.rules_iterative, gfs.rules_evolve, bound.bound,
               grid_pareto.pareto, federation_run.run_federation, federation_run.compare_federation, minimize)
    for fn in drivers:
        assert inspect.signature(fn).parameters["executor"].default == DEFAULT_EXECUTOR, fn.__name__


def test_the_old_executor_spec_keyword_still_works_with_a_warning(tmp_path):
    from schedlab.errors import SchedlabError
    from schedlab.optimize.evolve import EvolveConfig, evolve_greedy

    config = EvolveConfig(traces=(str(tmp_path / "missing.swf"),))
    with pytest.warns(DeprecationWarning, match=r"executor_spec=\.\.\.\) is now evolve_greedy\(executor="):
        with pytest.raises(SchedlabError):
            evolve_greedy(config, tmp_path / "run", executor_spec="serial")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SchedlabError):
            evolve_greedy(config, tmp_path / "run", executor="serial")


def test_the_face_has_what_a_notebook_needs():
    import schedlab as sl

    for name in ("TraceSpec", "prepare_trace", "simulate_any", "Machine", "Strategy", "ScojoConfig", "compute_metrics",
                 "Objective", "load_strategy", "save_strategy", "Problem", "minimize", "Termination", "OPTIMIZERS",
                 "compare_with_easy", "plot_schedules", "report"):
        assert hasattr(sl, name), name
        assert name in sl.__all__ and name in dir(sl), name
    with pytest.raises(AttributeError):
        sl.no_such_name  # noqa: B018


def test_a_strategy_file_round_trips_and_bad_files_are_one_line(tmp_path):
    import schedlab as sl
    from schedlab.errors import StrategyError

    for strategy in (sl.Strategy("easy"), sl.ScojoConfig()):
        sl.save_strategy(strategy, tmp_path / "s.json")
        assert sl.load_strategy(tmp_path / "s.json") == strategy
    (tmp_path / "bad.json").write_text("{\n  \"kind\": \n")
    with pytest.raises(StrategyError, match=r"bad\.json: strategy is not valid JSON: .* at line 3"):
        sl.load_strategy(tmp_path / "bad.json")


def test_the_notebook_example_runs_on_the_face_alone(tmp_path, capsys):
    """examples/notebook_optimize.py imports nothing below ``schedlab`` but the plugin API, prepares a trace,
    runs a tiny optimization, compares with EASY and draws; a second call resumes the same run."""
    import runpy

    path = Path(__file__).resolve().parents[1] / "examples" / "notebook_optimize.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("schedlab"):
            assert node.module in ("schedlab", "schedlab.strategy") and node.level == 0, node.module
        if isinstance(node, ast.Import):
            assert all(a.name == "schedlab" or not a.name.startswith("schedlab.") for a in node.names)
    main = runpy.run_path(str(path))["main"]
    got = main(tmp_path, 1, mu=2, lam=2, workers=1)
    lines = capsys.readouterr().out.splitlines()
    assert len(got["rows"]) == 1 and re.match(r"KTH-SP2.*: objective \S+ vs EASY \S+ \([+-]\d+\.\d %\)", lines[-1])
    row = got["rows"][0]
    assert row["objective_improvement_pct"] == pytest.approx(
        100 * (row["objective_easy"] - row["objective"]) / abs(row["objective_easy"]))
    from schedlab.sim import validate_schedule

    for s in got["schedules"].values():
        validate_schedule(s)
    assert {p.name for p in got["plots"]} == {"gantt.png", "plots.html", "utilisation.png", "waits.png"}
    assert {"config.json", "history.csv", "best.json", "checkpoint"} <= {p.name for p in (tmp_path / "run").iterdir()}
    again = main(tmp_path, 1, mu=2, lam=2, workers=1)
    assert again["run"].result.runs["free"].resumed_from == 1 and again["run"].best == got["run"].best


def test_the_old_parse_cache_name_still_works_with_a_warning():
    import schedlab as sl
    from schedlab.optimize import versus_easy

    with pytest.warns(DeprecationWarning, match="Objective.of"):
        parse = versus_easy.parsed_objective
    assert parse("AWRT") == sl.Objective("AWRT")


def test_a_run_folder_of_the_old_default_seed_is_refused_in_one_line(tmp_path, kth_file):  # noqa: F811
    """Python runs made with the old default seed of EvolveConfig (0) resume when the seed is given, and a
    resume with the new default (1) is refused naming the seed, nothing touched."""
    import schedlab as sl
    from schedlab.optimize.evolve import EvolveConfig, evolve_greedy

    out = tmp_path / "old"
    evolve_greedy(EvolveConfig(traces=(str(kth_file),), objective=OBJ, generations=1, mu=2, lam=2, seed=0), out,
                  workers=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(RunError, match=r"different config \(seed: stored 0, given 1\)") as err:
        evolve_greedy(EvolveConfig(traces=(str(kth_file),), objective=OBJ, generations=1, mu=2, lam=2), out, workers=1)
    assert "\n" not in str(err.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    r = sl.minimize(sl.Problem("greedy", [kth_file], OBJ), "es", 1, out=out, workers=1, seed=0, mu=2, lam=2)
    assert r.result.runs["free"].resumed_from == 1


def _through_setup(monkeypatch) -> list:
    """Record every run started through the one entry (:meth:`Setup.run`): the space and the algorithm."""
    from schedlab.optimize import problem as P

    seen, real = [], P.Setup.run

    def recording(self, **hooks):
        seen.append((self.problem.space, self.algorithm))
        return real(self, **hooks)

    monkeypatch.setattr(P.Setup, "run", recording)
    return seen


def _no_elapsed(folder: Path, name: str) -> list[str]:
    """A CSV's lines; the last column dropped when it is the wall-clock ``elapsed``."""
    lines = (folder / name).read_text().splitlines()
    if lines and lines[0].rsplit(",", 1)[-1] == "elapsed":
        return [line.rsplit(",", 1)[0] for line in lines]
    return lines


def test_grid_pareto_runs_through_the_one_entry_and_its_folder_is_minimizes(tmp_path, capsys, monkeypatch):
    """`grid pareto` goes options -> Problem -> setup -> run (issue 46): its run starts at Setup.run, and
    its folder equals the one schedlab.minimize makes with the same settings (the sites loaded by minimize
    itself, not handed over)."""
    import schedlab as sl

    seen = _through_setup(monkeypatch)
    sites = ["KTH-SP2:100", "KTH-SP2:128"]  # the bundled trace: no shared traces needed
    verb = tmp_path / "verb"
    code, out, err = run(capsys, "grid", "pareto", "--site", sites[0], "--site", sites[1], "--months", "1",
                         "--generations", "2", "--pop", "4", "--seed", "3", "--p-rand", "0.2", "--workers", "1",
                         "--out", str(verb))
    assert code == 0, err
    assert seen == [("grid", "nsga2")]
    r = sl.minimize(sl.Problem("grid", [sl.TraceSpec(s, months=1) for s in sites], None), "nsga2", 2,
                    out=tmp_path / "api", workers=1, seed=3, pop=4, p_rand=0.2, label=" ".join(sites))
    assert seen == [("grid", "nsga2")] * 2 and not r.interrupted
    api = tmp_path / "api"
    for name in ("config.json", "references.json", "comparison.json"):
        assert json.loads((verb / name).read_text()) == json.loads((api / name).read_text()), name
    for name in ("history.csv", "points.csv", "front.csv"):
        assert _no_elapsed(verb, name) == _no_elapsed(api, name), name
    assert f"{len(r.result.front_F)} front points after 2 generations (8 evaluations)" in out


def test_federation_run_ga_runs_through_the_one_entry_and_its_folder_is_minimizes(tmp_path, capsys, monkeypatch):
    """`federation run --method ga-*` goes options -> Problem -> setup -> run (issue 46): its run starts at
    Setup.run and its folder equals schedlab.minimize's with the same settings; the heuristics (jpr, cbs,
    metl: no generations, not optimizers) still call their driver."""
    import schedlab as sl
    from conftest import trace_path
    from schedlab.federation import default_platform

    seen = _through_setup(monkeypatch)
    trace = str(trace_path("HPC2N-2002-2.2-cln.swf.gz"))
    verb = tmp_path / "verb"
    code, _out, err = run(capsys, "federation", "run", trace, "--method", "ga-random", "--package-size", "30",
                          "--jobs", "60", "--generations", "4", "--pop", "8", "--seed", "2", "--comm-seed", "5",
                          "--workers", "1", "--out", str(verb))
    assert code == 0, err
    assert seen == [("federation", "ga")]
    problem = sl.Problem("federation", [trace], None, settings={"method": "ga-random", "package_size": 30, "jobs": 60,
                                                               "comm_seed": 5, "platform": default_platform()})
    r = sl.minimize(problem, "ga", 4, out=tmp_path / "api", executor="serial", seed=2, pop=8)
    assert seen == [("federation", "ga")] * 2 and not r.interrupted
    api = tmp_path / "api"
    for name in ("config.json", "orders.json"):
        assert json.loads((verb / name).read_text()) == json.loads((api / name).read_text()), name
    assert _no_elapsed(verb, "history.csv") == _no_elapsed(api, "history.csv")
    a, b = ({k: v for k, v in json.loads((f / "result.json").read_text()).items()
             if "seconds" not in k and k != "workers_choice"} for f in (verb, api))  # timings
    assert a == b
    code, _out, err = run(capsys, "federation", "run", trace, "--method", "jpr", "--package-size", "30", "--jobs", "60",
                          "--out", str(tmp_path / "jpr"))
    assert code == 0, err
    assert seen == [("federation", "ga")] * 2  # a heuristic is no optimizer run
