"""A strategy beside EASY: its metrics, its objective and its gain over EASY per workload.

The reference every training command reports against (greedy-es-sorting-criteria, Table III and
Figs. 1-3), shared by the training driver (:mod:`schedlab.optimize.evolve`) and the held-out
evaluation (:mod:`schedlab.optimize.heldout`), which both import it and neither of which it imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ..sim.model import Machine
from ..strategy.model import Strategy
from ..workload.model import Workload

#: metrics reported per workload against EASY (paper Table III: AWRT_1..5 and UTIL)
COMPARE_METRICS: tuple[str, ...] = ("AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL")
#: a workload is flagged when the strategy's objective is worse than EASY's by more than this (%)
WORSE_THAN_EASY_PCT = 5.0


def gain_pct(easy: float | None, value: float | None) -> float | None:
    """100 (EASY - value) / EASY: positive = better than EASY (None when undefined)."""
    if easy is None or value is None or easy == 0:
        return None
    return 100.0 * (easy - value) / easy


def metrics_of(workload: Workload, machine: Machine, strategy: Strategy) -> dict[str, float | None]:
    """All metrics of one simulated schedule as a plain dict."""
    from ..metrics import compute_metrics
    from ..sim.strategies import simulate_any  # a Strategy or a rule base

    return dict(compute_metrics(simulate_any(workload, machine, strategy)))


@lru_cache(maxsize=16)
def parsed_objective(expr: str):
    """The :class:`~schedlab.metrics.Objective` of ``expr``, parsed once per process (evaluations call it often)."""
    from ..metrics import Objective

    return Objective(expr)


def objective_over(objective: str, workloads: Sequence[Workload], machines: Sequence[Machine],
                   easy: Sequence[dict[str, float | None]] | None,
                   schedule_of: Callable[[Workload, Machine], Any]) -> float:
    """Sum over the workloads of ``objective`` on the schedule ``schedule_of(workload, machine)``
    makes, each with EASY's metrics on the same workload (``easy``, one dict per workload) for the
    ``EASY_*`` names: the one place an optimizer's value over its training (or held-out) workloads
    is computed (greedy, both rule-base methods, the held-out scores)."""
    from ..metrics import compute_metrics

    obj = parsed_objective(objective)
    baselines = easy if easy is not None else (None,) * len(workloads)
    total = 0.0
    for w, m, e in zip(workloads, machines, baselines, strict=True):
        total += obj(compute_metrics(schedule_of(w, m)), e)
    return total


def compare_with_easy(
    strategy: Strategy,
    workloads: Sequence[Workload],
    machines: Sequence[Machine],
    objective: str,
    *,
    easy: Sequence[dict[str, float | None]] | None = None,
    threshold: float = WORSE_THAN_EASY_PCT,
) -> list[dict[str, Any]]:
    """Per workload: objective and metrics of ``strategy`` and of EASY, and % improvement over EASY.

    improvement % = 100 (EASY - strategy) / EASY for the objective and the AWRT metrics (lower is
    better; positive = strategy better); for UTIL the difference in percentage points
    (strategy - EASY). greedy-es-sorting-criteria, Table III and Figs. 1-3. ``worse_than_easy``
    flags a workload whose objective is worse than EASY's by more than ``threshold`` % (the
    improvement is below -threshold).
    """
    from ..metrics import Objective

    obj = Objective(objective)
    rows = []
    for i, (w, m) in enumerate(zip(workloads, machines)):
        base = easy[i] if easy is not None else metrics_of(w, m, Strategy("easy"))
        mine = metrics_of(w, m, strategy)
        row: dict[str, Any] = {"workload": w.name or f"workload{i}", "jobs": len(w), "procs": m.procs}
        row["objective"] = obj(mine, base, who=f"{strategy.label} on {row['workload']}")
        row["objective_easy"] = obj(base, base, who=f"EASY on {row['workload']}")
        row["objective_improvement_pct"] = gain_pct(row["objective_easy"], row["objective"])
        imp = row["objective_improvement_pct"]
        row["worse_than_easy"] = imp is not None and imp < -float(threshold)
        for name in COMPARE_METRICS:
            a, b = mine.get(name), base.get(name)
            row[name], row[f"{name}_easy"] = a, b
            if name == "UTIL":
                row["UTIL_diff_points"] = None if a is None or b is None else a - b
            else:
                row[f"{name}_improvement_pct"] = gain_pct(b, a)
        rows.append(row)
    return rows

