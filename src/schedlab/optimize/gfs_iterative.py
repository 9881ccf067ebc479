"""The iterative method of genetic-fuzzy-rule-based-scheduling (Section 4.1, Algorithm 2) on the
shared run loop: :class:`IterativeAskTell` makes one situation class one generation of
:func:`schedlab.optimize.run.run_generations` (checkpoint, history.csv, best.json and the stop on
Ctrl-C/SIGTERM are the loop's); :func:`iterative` sets it up in a run folder. The driver of the
``rules iterative`` verb is :func:`schedlab.optimize.gfs.rules_iterative`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..strategy import rules as R
from .greedy import TrainingSet
from .heldout import TEST_COLUMNS
from .history import history_csv
from .rule_value import TableEvaluator
from .run import AskTell, run_generations


class IterativeAskTell(AskTell):
    """Algorithm 2 in the terms of the shared run loop (:func:`schedlab.optimize.run.run_generations`):
    one situation class is one generation. ``ask``: the rule tables that try every allowed strategy
    in the next class (none for a class no pass of the current base reaches, under ``unvisited``
    ``skip``); ``tell``: the class keeps the first strategy of the lowest objective; ``row``: the
    class's history row; the checkpoint is the run's whole state (table, next class, history).

    ``visited(table)`` gives the classes the simulations of ``table`` reach (None: every class is
    simulated); ``heldout`` scores the base after every class."""

    def __init__(self, state: dict[str, Any], base, allowed: Sequence[int], n_workloads: int, seen: np.ndarray,
                 visited: Callable | None, heldout=None) -> None:
        self.state, self.base, self.allowed, self.n_workloads = state, base, tuple(allowed), n_workloads
        self.seen, self.visited, self.heldout = seen, visited, heldout
        self._row: dict[str, Any] = {}

    @property
    def generation(self) -> int:
        return self.state["next"]

    @property
    def evaluations(self) -> int:
        return self.state["simulations"]

    def ask(self) -> list[list[int]]:
        c = self.state["next"]
        self._row = {"class": c, "ranges": " ".join(self.base.class_ranges(c)), "visited": bool(self.seen[c])}
        if not self.seen[c]:
            return []
        tables = []
        for s in self.allowed:
            t = list(self.state["table"])
            t[c] = s
            tables.append(t)
        return tables

    def tell(self, x, results) -> None:
        state, row, allowed = self.state, self._row, self.allowed
        c = state["next"]
        changed = not state["history"]
        if self.seen[c]:
            values = np.asarray(results, dtype=np.float64)
            best = allowed[int(np.argmin(values))]  # Algorithm 2: strict < from f_old = inf: first on ties
            state["simulations"] += len(allowed) * self.n_workloads
            if state["table"][c] != best:
                changed = True
                state["table"][c] = best
                if self.visited is not None:
                    self.seen, _ = self.visited(state["table"])
            state["value"] = float(values[allowed.index(best)])
            row.update({f"f_{R.STRATEGIES[s]}": float(v) for s, v in zip(allowed, values)})
        row.update(strategy=R.STRATEGIES[state["table"][c]], objective=state["value"])
        if self.heldout is not None:  # the same base as after the class before: the same (pure) scores
            row.update(self.heldout.scores(R.TableRuleBase(self.base.partitions, tuple(state["table"]), self.base.greedy))
                       if changed else {k: state["history"][-1][k] for k in TEST_COLUMNS})
            kept = state.get("selected")
            if kept is None or row["test"] < kept["test"]:
                state["selected"] = {"test": row["test"], "table": list(state["table"]), "value": state["value"],
                                     "class": c}
        state["next"] = c + 1

    def row(self, elapsed: float) -> dict[str, Any]:
        self._row["elapsed"] = self.state["elapsed"] = elapsed
        return self._row

    def checkpoint(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return self.state  # its history is ``rows``


def iterative(run, training: TrainingSet, partitions, executor, *, on_start: Callable | None = None,
              on_class: Callable | None = None, unvisited: str = "skip", greedy=R.DEFAULT_GREEDY,
              strategies: str = "all", heldout=None, select: str = "train") -> dict[str, Any]:
    """Algorithm 2 into run folder ``run`` (a :class:`~schedlab.optimize.run.RunFolder`); resumes.

    ``strategies``: the strategy set each class tries (:data:`schedlab.strategy.rules.STRATEGY_SETS`;
    ``all``: the paper's 13), its standard strategy the start of every class. ``heldout``
    (:class:`~schedlab.optimize.heldout.HeldOut`): after every class the base is scored on it
    (history columns ``test``, ``test_easy``, ``test_gain_pct``); ``select`` ``test`` then returns
    the base after the class with the lowest held-out objective instead of the last one
    (:data:`SELECT_READINGS`).

    ``unvisited``: ``skip`` (default) leaves a class that no pass of the current rule base reaches
    at its strategy without simulating it (all 13 simulations would give the same value: the
    rule never fires); ``simulate`` runs them anyway (Algorithm 2 literally; the first strategy
    then wins the tie). Ctrl-C / SIGTERM stop after the last finished class (checkpointed).
    """
    from ..sim.rulebase import simulate_rulebase

    allowed = R.strategy_set(strategies)
    base = R.TableRuleBase(partitions, greedy=greedy)
    n = base.n_classes
    base = R.TableRuleBase(partitions, (R.strategy_index(R.SET_DEFAULT_STRATEGY[strategies]),) * n, greedy)
    state = run.load_checkpoint()
    if state is None:
        state = {"table": list(base.table), "next": 0, "value": math.inf, "history": [], "elapsed": 0.0,
                 "simulations": 0}
    if on_start is not None:
        on_start(n, state["next"])
    evaluator = TableEvaluator(base.partitions, greedy)
    t0 = time.perf_counter()
    elapsed0 = state["elapsed"]

    def visited(table):
        """(classes some pass of ``table``'s simulations reaches, its objective)."""
        rb = R.TableRuleBase(base.partitions, tuple(table), greedy)
        seen = np.zeros(n, dtype=bool)

        def schedule_of(w, m):  # the schedule, and the classes its passes reach
            s = simulate_rulebase(w, m, rb, record_features=True)
            parts = [np.sum(s.plan.features[f][:, None] > np.asarray(b)[None, :], axis=1) if b else
                     np.zeros(s.plan.features.shape[1], dtype=np.int64) for f, b in enumerate(base.partitions)]
            seen[np.ravel_multi_index(parts, base.shape)] = True
            return s

        return seen, training.value(schedule_of)

    seen, value0 = visited(state["table"]) if unvisited == "skip" else (np.ones(n, dtype=bool), math.inf)
    if not math.isfinite(state["value"]):
        state["value"] = value0
    adapter = IterativeAskTell(state, base, allowed, len(training.workloads), seen, visited if unvisited == "skip" else None,
                               heldout)

    def write_files(rows) -> None:
        rb = R.TableRuleBase(base.partitions, tuple(state["table"]), greedy)
        run.write_text("best.json", R.rulebase_to_json(rb) + "\n")
        run.write_text("history.csv", _history_csv(rows, heldout is not None))

    interrupted = run_generations(run, adapter, evaluator, executor, n, state["history"],
                                  elapsed0 + time.perf_counter() - t0, write_files=write_files, on_generation=on_class)
    state["interrupted"] = interrupted
    table = state["table"]
    if select == "test" and not interrupted and state.get("selected") is not None:
        table, state["value"] = state["selected"]["table"], state["selected"]["value"]
    state["rulebase"] = R.TableRuleBase(base.partitions, tuple(table), greedy)
    return state


def _history_csv(rows, heldout: bool = False) -> str:
    """One row per class (the one history writer, :func:`schedlab.optimize.history.history_csv`;
    elapsed as repr; the strategy values of a class not simulated are empty)."""
    return history_csv(rows, ["class", "ranges", "visited", "strategy", "objective", "elapsed",
                        *(TEST_COLUMNS if heldout else ()), *(f"f_{s}" for s in R.STRATEGIES)], elapsed_format=None)
