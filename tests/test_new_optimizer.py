"""Optimizers are registry rows (issue 36 item 3): ``make_optimizer``, ``EvolveConfig``, config.json's
``optimizer_settings`` and ``evolve greedy --optimizer`` read :data:`schedlab.strategy.registry.OPTIMIZERS`,
and every optimizer of real vectors runs through the one loop (``optimize`` ->
``run_generations``: checkpoint after every generation, resume, the one history writer).

The whole change a new optimizer needs, shown here with a test-only random search, nothing else
edited (``test_a_new_optimizer_is_one_row_and_its_ask_tell_class``): its ask/tell class (any
module; the :class:`schedlab.optimize.run.Optimizer` protocol: ``ask``, ``tell``, ``state_summary``,
``generation``, ``evaluations``, ``best_x``, ``best_f``, ``lower``, all randomness in its own
generator: :class:`RandomSearch` below) and its row appended to ``OPTIMIZERS`` in
schedlab/strategy/registry.py (here :data:`ROW`, patched in)::

    Optimizer("random", "uniform random search (a toy optimizer)", "mod:RandomSearch",
              {"algorithm": "lambda uniform points in the box per generation, keep the best"}),
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.errors import RunError
from schedlab.optimize.evolve import EvolveConfig, evolve_greedy
from schedlab.optimize.run import ES_COLUMNS, Optimizer
from schedlab.strategy import registry
from schedlab.workload.spec import TraceSpec


class RandomSearch(Optimizer):
    """``lam`` uniform points in the box per generation; the best so far is kept (``mu`` unused)."""

    def __init__(self, lower, upper, *, mu: int, lam: int, seed: int, x0=None) -> None:
        self.lower, self.upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
        self.lam, self.rng = lam, np.random.default_rng(seed)
        self.generation = self.evaluations = 0
        self.best_x, self.best_f = (self.lower + self.upper) / 2, math.inf

    def ask(self) -> np.ndarray:
        return self.rng.uniform(self.lower, self.upper, (self.lam, len(self.lower)))

    def tell(self, x, f) -> None:
        f = np.where(np.isfinite(f), f, np.inf)
        k = int(np.argmin(f))
        if f[k] < self.best_f:
            self.best_x, self.best_f = np.array(x[k]), float(f[k])
        self.generation += 1
        self.evaluations += len(f)

    def state_summary(self) -> dict[str, float]:
        return {"sigma": 1.0}  # the whole box, every generation


#: the registry row of the test-only optimizer (a class may stand where a "module:callable" string does)
ROW = registry.Optimizer("random", "uniform random search (a toy optimizer)", RandomSearch,
                         {"algorithm": "lambda uniform points in the box per generation, keep the best"})


@pytest.fixture
def with_random(monkeypatch):
    monkeypatch.setattr(registry, "OPTIMIZERS", (*registry.OPTIMIZERS, ROW))


class Crash(Exception):
    pass


def _config(optimizer: str = "random", generations: int = 3) -> EvolveConfig:
    return EvolveConfig(traces=("KTH-SP2",), trace_spec=TraceSpec(months=1), generations=generations, mu=2, lam=4,
                        optimizer=optimizer, seed=7)


def _history(run_dir) -> list[list[str]]:
    """history.csv without its wall-time column."""
    rows = [line.split(",") for line in (run_dir / "history.csv").read_text().splitlines()]
    col = rows[0].index("elapsed")
    return [r[:col] + r[col + 1:] for r in rows]


def test_without_its_row_the_optimizer_is_unknown():
    with pytest.raises(RunError, match="unknown optimizer 'random'; choose es or cmaes"):
        _config()
    with pytest.raises(ValueError, match="unknown optimizer 'random'"):
        registry.make_optimizer("random", [0.0], [1.0], mu=1, lam=2, seed=0)


def test_a_new_optimizer_is_one_row_and_its_ask_tell_class(tmp_path, with_random):
    whole = evolve_greedy(_config(), tmp_path / "whole", workers=1)
    assert isinstance(registry.make_optimizer("random", [0.0], [1.0], mu=1, lam=2, seed=0), RandomSearch)
    assert whole.runs["free"].generations == 3 and whole.runs["free"].evaluations == 3 * 4
    assert whole.config["optimizer_settings"] == ROW.settings  # config.json records the row's settings

    def crash_after_2(label, row):  # a crash after generation 2's checkpoint ...
        if row["gen"] == 2:
            raise Crash
    with pytest.raises(Crash):
        evolve_greedy(_config(), tmp_path / "again", workers=1, on_generation=crash_after_2)
    assert len(_history(tmp_path / "again")) == 1 + 2
    again = evolve_greedy(_config(), tmp_path / "again", workers=1)  # ... resumes at generation 3
    assert again.runs["free"].resumed_from == 2
    assert _history(tmp_path / "again") == _history(tmp_path / "whole")
    assert (tmp_path / "again" / "best.json").read_text() == (tmp_path / "whole" / "best.json").read_text()
    assert again.best_f == whole.best_f and math.isfinite(whole.best_f)

    # extended like every optimizer's run: to 4 generations equals one run of 4
    evolve_greedy(_config(generations=4), tmp_path / "again", workers=1, extend=True)
    evolve_greedy(_config(generations=4), tmp_path / "four", workers=1)
    assert _history(tmp_path / "again") == _history(tmp_path / "four")

    # the one history writer: the same columns as the ES's history
    es = evolve_greedy(_config("es", generations=1), tmp_path / "es", workers=1)
    header = (tmp_path / "whole" / "history.csv").read_text().splitlines()[0]
    assert header == (es.run_dir / "history.csv").read_text().splitlines()[0]
    assert header.split(",")[: len(ES_COLUMNS)] == list(ES_COLUMNS)
