"""The greedy strategy space of greedy-es-sorting-criteria as a real-valued optimization problem.

greedy-es-sorting-criteria, Sections III-A and IV-C. A Greedy scheduler (FCFS dispatch on a
queue re-sorted by a criterion f1..f4) uses one criterion per time-of-week class (weekend,
weekday 8-18, weekday 18-8). Each class has the genes ``a, b, w1..w5, K1..K5`` with bounds
w, a, b in [0, 1] and K in [0, 5]; f2 has no w and f3 has no b, so those genes are left out
(f2: 7 genes, f3: 11, f1/f4: 12 per class; 33..36 per scheduler, as the paper counts).

Two training procedures (``procedure`` in the run config):

``paper`` — our precise reading of Section IV-C ("all combinations of the four sorting criteria
    with the three scheduling situations. Hence, we optimize twelve different systems and finally
    for each situation, we select the system that performs best"; each optimization determines
    "the required 36 object parameters"):
    1. four ES runs, one per criterion k in f1..f4, each optimizing a scheduler that uses fk in
       all three situations with separate parameters per situation (33-36 genes, as the paper's
       "36 object parameters" per optimization requires);
    2. this yields twelve trained systems (criterion k, situation s) = the parameters of fk for s;
    3. for each situation one of the four systems is selected: all 4^3 = 64 assemblies are
       evaluated on the training workload(s) and the best assembly wins (the choice per
       situation is made jointly, because the objective only scores whole schedules). The four
       uniform schedulers of step 1 are among the 64, so the result is never worse than the best
       single-criterion run. Cost: 4 x generations x lambda + 64 evaluations.
    Sub-runs live in RUN/f1 .. RUN/f4 (each its own resumable run folder); the 64 assemblies are
    written to RUN/assemblies.csv.

Gene scale (``gene_scale``): ``linear`` (default; the paper as written) decodes a gene g in
[lo, hi] to the parameter value g itself. The paper does not state the time unit of a and b;
with times in seconds the useful a lies around 1e-6..1e-3 per second of wait and b around
1e-9..1e-5 (p m reaches 1e8), a sliver of [0, 1]. ``log`` keeps the paper's bounds for the
*values* but spreads the genes over decades: value = hi (10^(D g') - 1) / (10^D - 1) with
g' = (g - lo) / (hi - lo), so 0 -> 0, 1 -> hi, monotone, D = 8 decades for a and 10 for b
(K and w stay linear).

``f1`` .. ``f4`` — one ES run of one of the paper's four systems: that criterion in all three
    situations, separate parameters per situation (step 1 of ``paper`` for one criterion; the
    paper reports f2 as the criterion that "performs best in all of our different optimization
    approaches", Section V-A).

Dispatch (``dispatch`` in the run config; the ``--dispatch`` option of ``evolve greedy``):
``fcfs`` (default) is the paper's Greedy, "the job at the top of the queue is scheduled as in the
FCFS algorithm" (Section III), restriction 1 of Section IV-D: no backfilling, so a criterion
without aging can starve low-priority groups for days on workloads it was not trained on.
``easy`` runs EASY backfilling under the same dynamic greedy order (the head of the greedy-sorted
queue gets EASY's reservation, later jobs backfill around it), so utilisation is never given up.
``search`` makes the choice a search variable: one categorical gene ``dispatch`` in [0, 2)
before the criteria genes, decoded as fcfs (< 1) or easy.

``free`` — one ES run in which the criterion of each situation is itself a search variable: a
    categorical gene in [0, 4) decoded as criterion f(1 + floor(gene)) (4 maps to f4), followed
    by all 12 parameters a, b, w1..5, K1..5 (unused ones are inert): 3 x 13 = 39 genes.

Evaluation of parameters = sum over the training workloads of
``Objective(expr)(compute_metrics(simulate(workload, Machine(m), strategy)))`` (multi-workload
training = sum over workloads, Section IV-D). The workloads travel to each worker once, as the
executor payload; EASY baselines are computed once on the driver, never per evaluation.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import StrategyError
from ..sim.model import Machine
from ..strategy.model import BOUNDS, CRITERIA, TIME_OF_WEEK_CLASSES, Criterion, Greedy, Strategy
from ..workload.model import Workload
from ..metrics.objective import Objective
from .versus_easy import objective_over

#: decades spanned by the log gene scale of a and b (see module docstring)
LOG_DECADES = {"a": 8.0, "b": 10.0}
GENE_SCALES: tuple[str, ...] = ("linear", "log")

#: short labels of the time-of-week classes used in gene names
CLASS_LABELS: tuple[str, ...] = ("weekend", "day", "night")
PROCEDURES: tuple[str, ...] = ("free", "paper", *CRITERIA)
#: dispatch rules a greedy order runs under (the categorical ``dispatch`` gene decodes to these)
GREEDY_DISPATCH: tuple[str, ...] = ("fcfs", "easy")
#: values of the ``dispatch`` setting: one of :data:`GREEDY_DISPATCH`, or ``search`` (a gene)
DISPATCH_CHOICES: tuple[str, ...] = (*GREEDY_DISPATCH, "search")


def _genes_of(kind: str | None) -> list[str]:
    """Parameter genes of one class: ``kind`` None = free choice (a categorical gene first)."""
    genes = ["kind"] if kind is None else []
    genes.append("a")
    if kind != "f3":
        genes.append("b")
    if kind != "f2":
        genes += [f"w{i}" for i in range(1, 6)]
    genes += [f"K{i}" for i in range(1, 6)]
    return genes


@dataclass(frozen=True)
class GreedyEncoding:
    """Maps a parameter vector to ``Strategy.greedy(c_weekend, c_day, c_night)`` and back.

    ``kinds[s]`` is the fixed criterion of situation s, or None for a free choice (categorical gene).
    ``dispatch`` is fcfs, easy, or ``search`` (a leading categorical gene chooses; module docstring).
    """

    kinds: tuple[str | None, str | None, str | None] = (None, None, None)
    dispatch: str = "fcfs"
    gene_scale: str = "linear"

    def __post_init__(self) -> None:
        if self.gene_scale not in GENE_SCALES:
            raise StrategyError(f"unknown gene scale {self.gene_scale!r}; choose linear or log")
        if self.dispatch not in DISPATCH_CHOICES:
            raise StrategyError(f"unknown greedy dispatch {self.dispatch!r}; choose {', '.join(DISPATCH_CHOICES)}")
        kinds = tuple(self.kinds)
        if len(kinds) != 3 or any(k is not None and k not in CRITERIA for k in kinds):
            raise StrategyError(f"greedy encoding needs 3 criteria (f1..f4 or None = free), got {self.kinds!r}")
        object.__setattr__(self, "kinds", kinds)

    @classmethod
    def uniform(cls, kind: str, *, gene_scale: str = "linear", dispatch: str = "fcfs") -> "GreedyEncoding":
        return cls((kind, kind, kind), gene_scale=gene_scale, dispatch=dispatch)

    @property
    def _lead(self) -> list[str]:
        """Genes before the per-class genes: the dispatch choice when it is searched."""
        return ["dispatch"] if self.dispatch == "search" else []

    def _value(self, gene: str, g: float) -> float:
        """Parameter value of gene ``gene`` ("a", "b", ...) at g (linear, or log for a and b)."""
        if self.gene_scale == "linear" or gene not in LOG_DECADES:
            return float(g)
        lo, hi = BOUNDS[gene]
        d = LOG_DECADES[gene]
        return float(hi * (10.0 ** (d * (g - lo) / (hi - lo)) - 1.0) / (10.0**d - 1.0))

    def _gene(self, gene: str, value: float) -> float:
        """Inverse of :meth:`_value`."""
        if self.gene_scale == "linear" or gene not in LOG_DECADES:
            return float(value)
        lo, hi = BOUNDS[gene]
        d = LOG_DECADES[gene]
        return float(lo + (hi - lo) * math.log10(1.0 + value / hi * (10.0**d - 1.0)) / d)

    @property
    def names(self) -> list[str]:
        return self._lead + [f"{CLASS_LABELS[s]}.{g}" for s, kind in enumerate(self.kinds) for g in _genes_of(kind)]

    def _bound(self, gene: str) -> tuple[float, float]:
        if gene == "dispatch":
            return (0.0, float(len(GREEDY_DISPATCH)))
        if gene == "kind":
            return (0.0, float(len(CRITERIA)))
        return BOUNDS[gene[0]]

    @property
    def lower(self) -> np.ndarray:
        return np.array([self._bound(n.split(".")[-1])[0] for n in self.names])

    @property
    def upper(self) -> np.ndarray:
        return np.array([self._bound(n.split(".")[-1])[1] for n in self.names])

    def __len__(self) -> int:
        return len(self._lead) + sum(len(_genes_of(k)) for k in self.kinds)

    def decode(self, x: Sequence[float]) -> Strategy:
        """The Greedy strategy of parameter vector x (one criterion per time-of-week class)."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (len(self),):
            raise StrategyError(f"greedy parameter vector needs {len(self)} values, got {x.shape}")
        pos = len(self._lead)
        dispatch = self.dispatch
        if dispatch == "search":
            dispatch = GREEDY_DISPATCH[min(max(int(math.floor(x[0])), 0), len(GREEDY_DISPATCH) - 1)]
        crits = []
        for kind in self.kinds:
            genes = dict(zip(_genes_of(kind), x[pos : pos + len(_genes_of(kind))]))
            pos += len(genes)
            if kind is None:
                kind = CRITERIA[min(int(math.floor(genes["kind"])), len(CRITERIA) - 1)]
            w = tuple(float(genes[f"w{i}"]) for i in range(1, 6)) if kind != "f2" else (1.0,) * 5
            crits.append(
                Criterion(
                    kind,
                    a=self._value("a", genes["a"]),
                    b=self._value("b", genes["b"]) if kind != "f3" else 0.0,
                    w=w,
                    K=tuple(float(genes[f"K{i}"]) for i in range(1, 6)),
                )
            )
        return Strategy.greedy(*crits, dispatch=dispatch)

    def encode(self, strategy: Strategy) -> np.ndarray:
        """The parameter vector of a Greedy strategy (inverse of :meth:`decode` on its genes)."""
        if not isinstance(strategy.order, Greedy):
            raise StrategyError(f"strategy {strategy.label} is not a greedy order")
        out: list[float] = []
        if self.dispatch == "search":
            if strategy.dispatch not in GREEDY_DISPATCH:
                raise StrategyError(f"strategy dispatch {strategy.dispatch!r} is not one of {', '.join(GREEDY_DISPATCH)}")
            out.append(GREEDY_DISPATCH.index(strategy.dispatch) + 0.5)
        for s, (kind, crit) in enumerate(zip(self.kinds, strategy.order.per_class())):
            if kind is not None and crit.kind != kind:
                raise StrategyError(f"{TIME_OF_WEEK_CLASSES[s]} uses {crit.kind}, the encoding expects {kind}")
            for g in _genes_of(kind):
                if g == "kind":
                    out.append(CRITERIA.index(crit.kind) + 0.5)
                elif g in ("a", "b"):
                    out.append(self._gene(g, getattr(crit, g)))
                else:
                    out.append((crit.w if g[0] == "w" else crit.K)[int(g[1]) - 1])
        return np.array(out)

    def to_dict(self) -> dict[str, Any]:
        return {"kinds": [k or "free" for k in self.kinds], "dispatch": self.dispatch, "gene_scale": self.gene_scale,
                "genes": self.names}


@dataclass(frozen=True, eq=False)
class TrainingSet:
    """The executor payload: the training workloads, their machines and the objective expression;
    ``easy``: EASY's metrics per workload (computed once on the driver) for ``EASY_*`` names
    (:func:`schedlab.optimize.evolve.prepare` always gives them, so every optimizer has them)."""

    workloads: tuple[Workload, ...]
    machines: tuple[Machine, ...]
    objective: Objective
    easy: tuple[dict, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", Objective.of(self.objective))  # parsed by the config; text accepted
        if len(self.workloads) != len(self.machines) or not self.workloads:
            raise ValueError("need one machine per workload and at least one workload")
        if self.easy is not None and len(self.easy) != len(self.workloads):
            raise ValueError("need EASY's metrics for every workload or for none")

    def value(self, schedule_of) -> float:
        """Sum over the training workloads of the objective of ``schedule_of(workload, machine)``'s
        schedule (Section IV-D), EASY's metrics for ``EASY_*`` (:func:`~schedlab.optimize.versus_easy.objective_over`)."""
        return objective_over(self.objective, self.workloads, self.machines, self.easy, schedule_of)


#: test hook: seconds to sleep in every evaluation (lets tests kill a run mid-generation)
_EVAL_DELAY = float(os.environ.get("SCHEDLAB_TEST_EVAL_DELAY", "0") or 0)


def objective_value(training: TrainingSet, strategy: Strategy) -> float:
    """Sum over the training workloads of the objective of ``strategy``'s schedule (Section IV-D)."""
    from ..sim import simulate

    if _EVAL_DELAY:
        time.sleep(_EVAL_DELAY)
    return training.value(lambda workload, machine: simulate(workload, machine, strategy))


@dataclass(frozen=True)
class ParamsEvaluator:
    """``evaluator(training, x)``: the objective of the strategy decoded from x (picklable, tiny)."""

    encoding: GreedyEncoding

    def __call__(self, training: TrainingSet, x: np.ndarray) -> float:
        return objective_value(training, self.encoding.decode(x))


def strategy_value(training: TrainingSet, strategy: Strategy) -> float:
    """Executor-mappable objective of a whole strategy (used for the 64 assemblies)."""
    return objective_value(training, strategy)


def assemblies(systems: dict[str, Strategy]) -> list[tuple[tuple[str, str, str], Strategy]]:
    """All 4^3 combinations of per-situation criteria taken from the four trained uniform systems."""
    out = []
    for ka in systems:
        for kb in systems:
            for kc in systems:
                parts = (
                    systems[ka].order.per_class()[0],
                    systems[kb].order.per_class()[1],
                    systems[kc].order.per_class()[2],
                )
                out.append(((ka, kb, kc), Strategy.greedy(*parts, dispatch=systems[ka].dispatch)))
    return out
