"""The one optimization loop's pieces (issue 36 item 3): the one history.csv writer every optimizer
uses and the ask/tell protocol every adapter of :func:`schedlab.optimize.run.run_generations` declares."""

from __future__ import annotations

import csv
import math

import numpy as np

from schedlab.optimize.history import history_csv


def test_the_history_writer_reads_back_to_the_same_values():
    """Floats (numpy's float64 too) round-trip exactly, None and missing cells are empty, elapsed
    is %.3f unless asked for repr, a string with a comma stays one cell."""
    rows = [{"gen": 1, "best": np.float64(0.1) + np.float64(0.2), "median": math.inf, "elapsed": 1.23456,
             "name": "a, b", "test": None},
            {"gen": 2, "best": 1e-300, "median": 2.5, "elapsed": 7.0, "name": "c"}]
    cols = ["gen", "best", "median", "elapsed", "name", "test"]
    got = list(csv.DictReader(history_csv(rows, cols).splitlines()))
    assert [r["gen"] for r in got] == ["1", "2"]
    assert float(got[0]["best"]) == 0.1 + 0.2 and got[0]["best"] == "0.30000000000000004"
    assert float(got[1]["best"]) == 1e-300 and got[0]["median"] == "inf"
    assert [r["elapsed"] for r in got] == ["1.235", "7.000"]
    assert got[0]["name"] == "a, b" and got[0]["test"] == "" and got[1]["test"] == ""
    raw = list(csv.DictReader(history_csv(rows, cols, elapsed_format=None).splitlines()))
    assert raw[0]["elapsed"] == "1.23456"


def test_the_history_writer_keeps_the_declared_column_order():
    text = history_csv([{"b": 1, "a": 2, "other": 3}], ["a", "b"])
    assert text == "a,b\n2,1\n"


def _members(protocol) -> set[str]:
    return {n for n in vars(protocol) if not n.startswith("_")} | set(protocol.__annotations__)


def test_every_adapter_of_the_run_loop_implements_the_ask_tell_protocol():
    """The adapters run_generations drives, built as their drivers build them, are AskTell (declared,
    and every member of the protocol is there on the instance), and so are the optimizers behind
    ESAskTell Optimizers."""
    from types import SimpleNamespace

    from schedlab.optimize.bound import OBJECTIVES, Archive, BoundAskTell, BoundConfig, hv_samples
    from schedlab.optimize.bound_head_start import HeadStartAskTell
    from schedlab.optimize.cmaes import CMAES
    from schedlab.optimize.es import SelfAdaptiveES
    from schedlab.optimize.federation_ga import FederationGAConfig, PackageGAAskTell
    from schedlab.optimize.gfs import GFSSettings, SymbioticGFS
    from schedlab.optimize.gfs_iterative import IterativeAskTell
    from schedlab.optimize.nsga2_grid import NSGA2AskTell
    from schedlab.optimize.run import AskTell, ESAskTell, Optimizer
    from schedlab.strategy import rules as R

    optimizers = [SelfAdaptiveES([0.0, 0.0], [1.0, 1.0], mu=2, lam=4, seed=0),
                  CMAES([0.0, 0.0], [1.0, 1.0], mu=2, lam=4, seed=0), SymbioticGFS(GFSSettings(), seed=0)]
    for opt in optimizers:
        assert isinstance(opt, Optimizer), type(opt).__name__
        assert all(hasattr(opt, m) for m in _members(Optimizer)), type(opt).__name__
    archive = Archive.empty(len(OBJECTIVES), 3, keep_orders=True)
    adapters = [*(ESAskTell(opt) for opt in optimizers),
                BoundAskTell(None, ["fcfs"], archive, [], None, hv_samples(1, len(OBJECTIVES))),
                NSGA2AskTell(None, SimpleNamespace(n_obj=2), 1e6, [], []),
                IterativeAskTell({"table": [0, 0], "next": 0, "value": math.inf, "history": [], "elapsed": 0.0,
                                  "simulations": 0}, R.TableRuleBase(((50.0,), (), (), (), (), (), ())), [0, 1], 1,
                                 np.ones(2, dtype=bool), None),
                PackageGAAskTell({}, {"package": 0, "rows": []}, FederationGAConfig(), 1),
                HeadStartAskTell(SimpleNamespace(n=3), BoundConfig(), [], 1)]
    for adapter in adapters:
        assert isinstance(adapter, AskTell), type(adapter).__name__
        assert all(hasattr(adapter, m) for m in _members(AskTell)), type(adapter).__name__
        assert (adapter.generation, adapter.evaluations) == (0, 0), type(adapter).__name__


class _Duck:
    """Every member of AskTell, declared nowhere."""

    generation = evaluations = 0

    def ask(self):
        return []

    def tell(self, x, results):
        pass

    def row(self, elapsed):
        return {}

    def checkpoint(self, rows):
        return {}


def _without(name: str) -> dict:
    return {k: v for k, v in vars(_Duck).items() if not k.startswith("__") and k != name}


def test_the_protocol_has_teeth():
    """A declared adapter missing a member cannot be made; an undeclared object with every member
    is recognised structurally, one without ``checkpoint`` is not."""
    import pytest

    from schedlab.optimize.run import AskTell

    forgetful = type("Forgetful", (AskTell,), _without("row"))
    with pytest.raises(TypeError, match="row"):
        forgetful()
    assert isinstance(_Duck(), AskTell)
    assert not isinstance(type("Lame", (), _without("checkpoint"))(), AskTell)


class _Counter(_Duck):
    """Asks one candidate a generation; its checkpoint is the generation told."""

    def ask(self):
        return [self.generation]

    def tell(self, x, results):
        self.generation += 1
        self.evaluations += len(results)

    def checkpoint(self, rows):
        return {"gen": self.generation}


def _committed(policy, generations: int = 5) -> list[int]:
    from types import SimpleNamespace

    from schedlab.execute import SerialExecutor
    from schedlab.optimize.run import run_generations

    saved: list[int] = []
    run = SimpleNamespace(save_checkpoint=lambda state: saved.append(state["gen"]))
    stopped = run_generations(run, _Counter(), lambda payload, x: x, SerialExecutor(), generations, [], 0.0,
                              write_files=lambda rows: None, checkpoint=policy)
    assert not stopped
    return saved


def test_the_checkpoint_policy_decides_which_generations_are_committed():
    from schedlab.optimize.run import EVERY_GENERATION, CheckpointPolicy

    assert _committed(EVERY_GENERATION) == [1, 2, 3, 4, 5]
    assert _committed(CheckpointPolicy(every=2)) == [2, 4]
    assert _committed(CheckpointPolicy(every=1, last=False)) == [1, 2, 3, 4]  # the caller commits the end
    assert _committed(CheckpointPolicy(every=None, seconds=0.0)) == [1, 2, 3, 4, 5]
    assert _committed(CheckpointPolicy(every=None, seconds=math.inf)) == []


class _Pairs(_Counter):
    """Asks two candidates a generation."""

    def ask(self):
        return [self.generation, -self.generation]


def _ended(termination, adapter=None, elapsed0: float = 0.0, policy=None) -> tuple[int, int, list[int]]:
    """(generations, evaluations) where run_generations stopped, and the generations it committed."""
    from types import SimpleNamespace

    from schedlab.execute import SerialExecutor
    from schedlab.optimize.run import EVERY_GENERATION, run_generations

    adapter = adapter if adapter is not None else _Counter()
    saved: list[int] = []
    run = SimpleNamespace(save_checkpoint=lambda state: saved.append(state["gen"]))
    assert not run_generations(run, adapter, lambda payload, x: x, SerialExecutor(), termination, [], elapsed0,
                               write_files=lambda rows: None, checkpoint=policy or EVERY_GENERATION)
    return adapter.generation, adapter.evaluations, saved


def test_termination_stops_at_the_first_budget_reached():
    import pytest

    from schedlab.optimize.run import CheckpointPolicy, LoopState, Termination

    assert _ended(4) == _ended(Termination(generations=4)) == (4, 4, [1, 2, 3, 4])  # an int: generations
    assert _ended(Termination(evaluations=3))[:2] == (3, 3)
    assert _ended(Termination(evaluations=3), _Pairs())[:2] == (2, 4)  # a begun generation is finished
    assert _ended(Termination(generations=2, evaluations=100))[:2] == (2, 2)
    assert _ended(Termination(generations=9, evaluations=5))[:2] == (5, 5)
    assert _ended(Termination(generations=3, seconds=math.inf))[:2] == (3, 3)
    assert _ended(Termination(generations=3, seconds=0.0))[:2] == (0, 0)
    # the wall-time budget counts the sessions before a resume (the history's elapsed)
    assert _ended(Termination(generations=3, seconds=10.0), elapsed0=10.0)[:2] == (0, 0)
    assert _ended(Termination(generations=3, seconds=10.0), elapsed0=9.0)[:2] == (3, 3)
    # the run's end is the last generation, whichever budget ends it (the caller's to commit here)
    assert _ended(Termination(evaluations=3), policy=CheckpointPolicy(last=False))[2] == [1, 2]
    assert Termination(evaluations=4).done(LoopState(1, 4, 0.0))
    assert not Termination(evaluations=4).done(LoopState(9, 3, 1e9))
    with pytest.raises(ValueError, match="needs a budget"):
        Termination()


def test_a_run_stopped_by_an_evaluations_budget_resumes_to_the_same_end(tmp_path):
    """optimize() takes a Termination: a run of the ES to 12 evaluations (3 generations of 4), crashed
    after its second generation and resumed, ends with the uninterrupted run's history."""
    from schedlab.execute import SerialExecutor
    from schedlab.optimize.es import SelfAdaptiveES
    from schedlab.optimize.run import RunFolder, Termination, optimize

    def sphere(payload, x):
        return float(np.sum((np.asarray(x) - 0.3) ** 2))

    def run(path, **kw):
        new = lambda: SelfAdaptiveES([0.0] * 3, [1.0] * 3, mu=2, lam=4, seed=1)  # noqa: E731
        budget = Termination(evaluations=12)
        return optimize(RunFolder(path, {"kind": "toy"}), new, sphere, SerialExecutor(), budget, **kw)

    def crash(row):
        if row["gen"] == 2:
            raise KeyboardInterrupt

    whole = run(tmp_path / "whole")
    assert (whole.generations, whole.evaluations) == (3, 12)
    assert run(tmp_path / "again", on_generation=crash).interrupted
    again = run(tmp_path / "again")
    assert again.resumed_from == 2 and again.best_f == whole.best_f
    strip = [{k: v for k, v in r.items() if k != "elapsed"} for r in whole.history]
    assert [{k: v for k, v in r.items() if k != "elapsed"} for r in again.history] == strip
    assert len(strip) == 3
