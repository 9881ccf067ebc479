"""One registry row per dispatch rule, per queue order and per optimizer.

Everything that needs to know which rules, orders or optimizers exist reads these tables:
:class:`schedlab.strategy.Strategy` (names, aliases), the engine (:mod:`schedlab.sim.dispatch`
builds its per-code kernel table from :data:`DISPATCH`, :func:`schedlab.sim.state.make_jobs`
its static sort keys from :data:`ORDERS`), the CLI help, the schedule validator (which replay
check a rule's starts must pass, which sort key an order uses) and the naive reference simulator
of the tests (``tests/naive.py``: one plain-Python function per ``naive`` name).

Adding a dispatch rule is one :class:`DispatchRule` row here plus its compiled pass kernel
``(J, S, view, now) -> started`` (see :mod:`schedlab.sim.dispatch`): the row names the kernel as
``"module:function"``; codes are the row's position (tests/test_registry.py adds a toy rule to
a copy of the package this way and checks it against the naive reference and the validator).

Plain Python, no numba: importable by every layer.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class DispatchRule:
    """A dispatch rule (genetic-fuzzy-rule-based-scheduling, Section 2.1).

    ``kernel``: ``"module:function"`` of the compiled pass ``(J, S, view, now) -> started`` that
    starts jobs of ``view`` (the waiting jobs in queue order) with ``start_job``.
    ``replay``: the validator's check at a start time where some job starts ahead of an earlier
    waiting one: ``"prefix"`` (forbidden: only a prefix of the queue may start), ``"easy"`` (must
    not delay the head's reservation), ``"conservative"`` (must not delay any earlier job's
    reservation), ``"any"`` (every start is legal by order), or ``"module:function"`` of a custom
    check ``(replay, t, ordered, k, pos, starters, running) -> None`` raising ``ScheduleInvalid``.
    ``naive``: name of the rule's plain-Python reference in ``tests/naive.py`` (``NAIVE_RULES``).
    """

    name: str
    help: str
    kernel: str
    replay: str
    naive: str


@dataclass(frozen=True)
class QueueOrder:
    """A waiting-queue order (genetic-fuzzy-rule-based-scheduling, Section 4).

    ``key(width, estimate, group, rank)`` gives each job's static sort key (smaller first; ties by
    submit order, then trace order); ``None`` for the dynamic greedy order (greedy-es-sorting-
    criteria, Section III-A), which is a :class:`schedlab.strategy.Greedy` object, not a name.
    """

    name: str
    help: str
    key: Callable | None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Optimizer:
    """An ask/tell optimizer: ``factory`` is ``"module:callable"`` taking
    ``(lower, upper, *, mu, lam, seed, x0)``; ``settings`` its fixed settings recorded in a run's
    config.json."""

    name: str
    help: str
    factory: str
    settings: dict


def _group_key(width, estimate, group, rank):
    return np.where((group >= 1) & (group <= 5), group, 6).astype(np.float64)  # group 0 (unassigned) last


#: dispatch rules; a rule's engine code is its index
DISPATCH: tuple[DispatchRule, ...] = (
    DispatchRule("fcfs", "start the queue head while it fits; nothing else",
                 "schedlab.sim.dispatch:fcfs_pass", replay="prefix", naive="fcfs"),
    DispatchRule("list", "start every queued job, in queue order, that fits now",
                 "schedlab.sim.dispatch:list_pass", replay="any", naive="list"),
    DispatchRule("easy", "EASY backfilling: reserve the head, backfill jobs that do not delay it",
                 "schedlab.sim.dispatch:easy_pass", replay="easy", naive="easy"),
    DispatchRule("conservative", "conservative backfilling: every queued job holds a reservation",
                 "schedlab.sim.dispatch:conservative_pass", replay="conservative", naive="conservative"),
)

#: queue orders; an order's engine code is its index; the dynamic greedy order comes last
ORDERS: tuple[QueueOrder, ...] = (
    QueueOrder("submit", "increasing submit time (= decreasing wait; alias fcfs)",
               lambda width, estimate, group, rank: rank.astype(np.float64), aliases=("fcfs", "wait")),
    QueueOrder("procs", "increasing requested processors",
               lambda width, estimate, group, rank: width.astype(np.float64)),
    QueueOrder("estimate", "increasing estimated run time (alias sjf)",
               lambda width, estimate, group, rank: estimate.astype(np.float64), aliases=("sjf",)),
    QueueOrder("group", "decreasing user-group priority (group 1 first)", _group_key),
    QueueOrder("greedy", "dynamic: decreasing greedy criterion f1..f4 (a Greedy object)", None),
)

#: ask/tell optimizers of ``schedlab evolve``
OPTIMIZERS: tuple[Optimizer, ...] = (
    Optimizer("es", "the paper's self-adaptive (mu+lambda)-ES", "schedlab.optimize.es:SelfAdaptiveES", {
        "algorithm": "self-adaptive (mu+lambda)-ES, Beyer & Schwefel 2002",
        "initial": "lambda points uniform in the box, step sizes 0.2 (hi - lo)",
        "recombination": "discrete over all mu parents (x), intermediate of 2 random parents (step sizes)",
        "mutation": "log-normal, tau' = 1/sqrt(2n), tau = 1/sqrt(2 sqrt(n))",
        "bounds": "reflection into [lo, hi]",
        "selection": "plus, stable sort (parents first on ties)",
    }),
    Optimizer("cmaes", "CMA-ES (cma package), a stronger baseline", "schedlab.optimize.cmaes:CMAES", {
        "algorithm": "CMA-ES (cma package) in the unit box, BoundTransform",
        "x0": "box centre",
        "sigma0": 0.3,
        "mu": "lambda // 2 unless --mu",
        "termination": "generation budget only",
    }),
)


def rule_names() -> tuple[str, ...]:
    return tuple(r.name for r in DISPATCH)


def rule(name: str) -> DispatchRule:
    return DISPATCH[rule_code(name)]


def rule_code(name: str) -> int:
    for code, r in enumerate(DISPATCH):
        if r.name == name:
            return code
    raise KeyError(name)


def static_orders() -> tuple[QueueOrder, ...]:
    return tuple(o for o in ORDERS if o.key is not None)


def order_code(name: str) -> int:
    for code, o in enumerate(ORDERS):
        if o.name == name:
            return code
    raise KeyError(name)


#: engine code of the dynamic greedy order
GREEDY_CODE = order_code("greedy")


def order_aliases() -> dict[str, str]:
    return {a: o.name for o in ORDERS for a in o.aliases}


def optimizer_names() -> tuple[str, ...]:
    return tuple(o.name for o in OPTIMIZERS)


def optimizer(name: str) -> Optimizer:
    for o in OPTIMIZERS:
        if o.name == name:
            return o
    raise KeyError(name)


def resolve(spec: str):
    """The object ``"module:attribute"`` names."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)
