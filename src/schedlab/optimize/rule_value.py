"""The objective of a rule base over a training set: what both rule-base methods evaluate
(:mod:`schedlab.optimize.gfs`, symbiotic evolution; :mod:`schedlab.optimize.gfs_iterative`, the
iterative method), below both of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..strategy import rules as R
from .greedy import TrainingSet


def rulebase_value(training: TrainingSet, rb) -> float:
    """Sum over the training workloads of the objective of ``rb``'s schedule."""
    from ..sim.rulebase import simulate_rulebase

    return training.value(lambda w, m: simulate_rulebase(w, m, rb))


@dataclass(frozen=True)
class TableEvaluator:
    """``evaluator(training, table)``: the objective of a table rule base (picklable)."""

    partitions: tuple
    greedy: Any = R.DEFAULT_GREEDY

    def __call__(self, training: TrainingSet, table) -> float:
        return rulebase_value(training, R.TableRuleBase(self.partitions, tuple(int(t) for t in table), self.greedy))
