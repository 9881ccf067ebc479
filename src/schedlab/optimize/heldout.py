"""Held-out evaluation of a trained strategy: workloads it is scored on but never selected by.

Every training command (``evolve greedy``; the rule-base commands reuse the same pieces) can take

- ``--test TRACE...``: further traces, loaded with the training run's ``--months``, ``--scale-to``
  and ``--calibrate-load`` (never its ``--procs``, which names the training trace's machine:
  a test trace runs at its own size unless scaled);
- ``--split-months K``: every training trace is cut in time; the optimizer sees only its first K
  calendar months, the months after K (up to ``--months`` when given) are a test workload.
  Both are windows of the one calendar of ``--months`` (counted from the trace's start), and each
  is grouped on its own jobs (:data:`schedlab.workload.spec.GROUPS_PER_WINDOW`): the training part
  is exactly the workload ``--months K`` prepares, so its row replays with ``--months K``; the test
  part starts on an empty machine (:func:`schedlab.workload.cut.split_months`).

:class:`HeldOut` is the set of test workloads with their EASY baselines (computed once). Each
generation the run evaluates the best strategy so far on it (:meth:`HeldOut.scores`, one
simulation per test workload, on the driver) and records ``test`` (sum of the objective over the
test workloads), ``test_easy`` and ``test_gain_pct`` beside the training columns of history.csv.
The values never reach the optimizer: selection sees only the training objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..sim.model import Machine
from ..workload.model import Workload
from ..workload.spec import TraceSpec, prepare_trace
from ..metrics.objective import Objective
from .versus_easy import compare_with_easy, gain_pct, metrics_of, objective_over

#: history.csv columns a held-out evaluation adds (after ``elapsed``)
TEST_COLUMNS: tuple[str, ...] = ("test", "test_easy", "test_gain_pct")


def load_test_traces(traces: Sequence[str], spec: TraceSpec) -> list[Workload]:
    """Every ``--test`` trace prepared with the training traces' options (:func:`prepare_trace`), at its
    own machine size (never the training ``--procs``) and whole (never split)."""
    from .calibrate import easy_util

    return [prepare_trace(replace(spec, trace=t, procs=None, split_months=None), utilisation=easy_util) for t in traces]


@dataclass(frozen=True, eq=False)
class HeldOut:
    """Test workloads, their machines, their EASY metrics and the objective expression."""

    workloads: tuple[Workload, ...]
    machines: tuple[Machine, ...]
    easy: tuple[dict[str, float | None], ...]
    objective: Objective

    @classmethod
    def build(cls, workloads: Sequence[Workload], objective: Objective) -> "HeldOut":
        """Simulate EASY once per workload and check the objective is defined on it."""
        from ..strategy.model import Strategy

        obj = Objective.of(objective)
        machines = tuple(Machine(w.machine_procs) for w in workloads)
        easy = tuple(metrics_of(w, m, Strategy("easy")) for w, m in zip(workloads, machines))
        for e in easy:
            obj(e, e)  # raises ObjectiveError naming an undefined metric
        return cls(tuple(workloads), machines, easy, obj)

    def __len__(self) -> int:
        return len(self.workloads)

    def scores(self, strategy: Any) -> dict[str, float | None]:
        """``test`` = sum of the objective of ``strategy`` over the test workloads, ``test_easy`` the
        same for EASY, ``test_gain_pct`` = 100 (test_easy - test) / |test_easy| (:func:`.versus_easy.gain_pct`)."""
        from ..sim.strategies import simulate_any  # a Strategy or a rule base

        obj = self.objective
        mine = objective_over(self.objective, self.workloads, self.machines, self.easy,
                              lambda w, m: simulate_any(w, m, strategy))
        easy = sum(obj(e, e) for e in self.easy)
        return {"test": mine, "test_easy": easy, "test_gain_pct": gain_pct(easy, mine)}

    def compare(self, strategy: Any, objective: Objective | None = None) -> list[dict[str, Any]]:
        """Per test workload: the rows of :func:`schedlab.optimize.versus_easy.compare_with_easy`, ``set`` = test
        (``objective``: another expression than the run's, e.g. without ``--util-guard``)."""

        rows = compare_with_easy(strategy, self.workloads, self.machines, objective or self.objective, easy=self.easy)
        return [dict(r, set="test") for r in rows]
