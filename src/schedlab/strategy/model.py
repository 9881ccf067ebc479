"""Serialisable descriptions of scheduling strategies: dispatch rule + waiting-queue order.

A strategy is a frozen dataclass tree that validates itself and round-trips through JSON::

    Strategy("easy")                                   # EASY backfilling, queue by submit time
    Strategy("conservative", order="estimate")         # conservative, shortest estimate first
    Strategy("fcfs", order=Greedy((Criterion("f2", a=.3, b=.1, K=(5, 4, 0, 0, 0)),)))  # Greedy

Dispatch rules (genetic-fuzzy-rule-based-scheduling, Section 2.1):
``fcfs`` (start the head while it fits), ``list`` (start every job that fits, in queue order),
``easy`` (EASY backfilling), ``conservative`` (conservative backfilling).

Queue orders (genetic-fuzzy-rule-based-scheduling, Section 4): ``submit`` (increasing submit
time = decreasing waiting time; alias ``fcfs``), ``procs`` (increasing requested processors),
``estimate`` (increasing estimated run time), ``group`` (decreasing user-group priority: group 1
first), and the dynamic :class:`Greedy` order of greedy-es-sorting-criteria (Section III-A).
Ties in every order are broken by submit order (then trace order).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Union

from ..errors import StrategyError
from . import registry

#: names from the registry rows (:mod:`schedlab.strategy.registry`), read once at import
DISPATCH_RULES: tuple[str, ...] = registry.rule_names()
STATIC_ORDERS: tuple[str, ...] = tuple(o.name for o in registry.static_orders())  # built in (user orders: registry)
ORDER_ALIASES: dict[str, str] = registry.order_aliases()
CRITERIA: tuple[str, ...] = ("f1", "f2", "f3", "f4")
#: time-of-week classes of greedy-es-sorting-criteria, Section III-A, in this index order
TIME_OF_WEEK_CLASSES: tuple[str, ...] = ("weekend", "weekday 8-18", "weekday 18-8")

#: parameter bounds of greedy-es-sorting-criteria, Section IV-C
BOUNDS = {"a": (0.0, 1.0), "b": (0.0, 1.0), "w": (0.0, 1.0), "K": (0.0, 5.0)}


def _tuple5(name: str, value: Any) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in value)
    except TypeError as exc:
        raise StrategyError(f"{name} must be a list of 5 numbers, got {value!r}") from exc
    if len(values) != 5:
        raise StrategyError(f"{name} must have 5 values (one per user group), got {len(values)}")
    if not all(math.isfinite(v) for v in values):
        raise StrategyError(f"{name} must be finite numbers, got {values}")
    return values


@dataclass(frozen=True)
class Criterion:
    """One greedy sorting criterion f1..f4 (greedy-es-sorting-criteria, Section III-A).

    With wait = t - r_j, estimate p = \\bar p_j, width m = m_j and i the job's user group::

        f1 = w_i (K_i + a wait / p   + b p / m)
        f2 =      K_i + a wait       + b p m        (f2 has no w)
        f3 = w_i (K_i + a wait / (p m))
        f4 = w_i (K_i + a wait       + b p / m)

    Jobs are sorted by *decreasing* value (highest priority first): w_i and K_i raise a group's
    priority and a > 0 lets waiting jobs rise. Each f is linear in t, f = alpha_j t + beta_j
    (:mod:`schedlab.sim.greedy` gives both); ties in value go to the larger beta, then to the
    earlier submitted job. Jobs of group 0 (unassigned) use group 5's
    parameters. ``w`` is ignored for f2, ``b`` for f3.
    """

    kind: str = "f2"
    a: float = 0.0
    b: float = 0.0
    w: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 1.0)
    K: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if self.kind not in CRITERIA:
            raise StrategyError(f"unknown greedy criterion {self.kind!r}; choose one of {', '.join(CRITERIA)}")
        for name in ("a", "b"):
            value = getattr(self, name)
            try:
                value = float(value)
            except (TypeError, ValueError) as exc:
                raise StrategyError(f"criterion parameter {name} must be a number, got {value!r}") from exc
            if not math.isfinite(value):
                raise StrategyError(f"criterion parameter {name} must be finite, got {value}")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "w", _tuple5("w", self.w))
        object.__setattr__(self, "K", _tuple5("K", self.K))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "a": self.a, "b": self.b, "w": list(self.w), "K": list(self.K)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Criterion":
        if not isinstance(d, dict):
            raise StrategyError(f"a criterion must be an object, got {d!r}")
        extra = set(d) - {"kind", "a", "b", "w", "K"}
        if extra:
            raise StrategyError(f"unknown criterion fields: {sorted(extra)}")
        return cls(**d)


@dataclass(frozen=True)
class Greedy:
    """The dynamic greedy queue order: one criterion for all times, or one per time-of-week class.

    ``criteria`` has 1 entry (used always) or 3 entries, indexed by
    :data:`TIME_OF_WEEK_CLASSES` (weekend, weekday 8-18, weekday 18-8) in the trace's time zone.
    The queue is re-sorted whenever a job arrives or ends.
    """

    criteria: tuple[Criterion, ...] = field(default_factory=lambda: (Criterion(),))

    def __post_init__(self) -> None:
        crit = self.criteria
        if isinstance(crit, Criterion):
            crit = (crit,)
        crit = tuple(c if isinstance(c, Criterion) else Criterion.from_dict(c) for c in crit)
        if len(crit) not in (1, 3):
            raise StrategyError(f"Greedy needs 1 criterion or 3 (one per time-of-week class), got {len(crit)}")
        object.__setattr__(self, "criteria", crit)

    def per_class(self) -> tuple[Criterion, Criterion, Criterion]:
        """The criterion of each time-of-week class (a single criterion is used for all three)."""
        if len(self.criteria) == 1:
            return (self.criteria[0],) * 3  # type: ignore[return-value]
        return self.criteria  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "greedy", "criteria": [c.to_dict() for c in self.criteria]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Greedy":
        if d.get("type") != "greedy" or "criteria" not in d:
            raise StrategyError(f"not a greedy order: {d!r}")
        return cls(tuple(Criterion.from_dict(c) for c in d["criteria"]))


Order = Union[str, Greedy]


def normalize_order(order: Order) -> Order:
    if isinstance(order, Greedy):
        return order
    if isinstance(order, dict):
        return Greedy.from_dict(order)
    if not isinstance(order, str):
        raise StrategyError(f"unknown queue order {order!r}")
    key = ORDER_ALIASES.get(order.lower(), order.lower())
    if key not in STATIC_ORDERS:
        names = tuple(o.name for o in registry.named_orders())  # with the user orders registered by now
        if key not in names:
            raise StrategyError(
                f"unknown queue order {order!r}; choose one of {', '.join(names)} (or a greedy criterion; "
                f"your own orders: --plugin FILE, schedlab.load_plugin)"
            )
    return key


@dataclass(frozen=True)
class Strategy:
    """A scheduling strategy: dispatch rule + waiting-queue order.

    ``Strategy("easy")`` is EASY backfilling on a submit-ordered queue; ``Strategy.greedy(...)``
    is the Greedy scheduler of greedy-es-sorting-criteria (dynamic order + FCFS dispatch).
    """

    dispatch: str = "easy"
    order: Order = "submit"

    def __post_init__(self) -> None:
        rules = DISPATCH_RULES
        if isinstance(self.dispatch, str) and self.dispatch.lower() not in rules:
            rules = registry.rule_names()  # with the user rules registered by now (register_rule)
        if not isinstance(self.dispatch, str) or self.dispatch.lower() not in rules:
            raise StrategyError(f"unknown policy {self.dispatch!r}; choose one of {', '.join(rules)}")
        object.__setattr__(self, "dispatch", self.dispatch.lower())
        object.__setattr__(self, "order", normalize_order(self.order))

    @classmethod
    def greedy(cls, *criteria: Criterion, dispatch: str = "fcfs") -> "Strategy":
        return cls(dispatch, Greedy(tuple(criteria)))

    @property
    def is_dynamic(self) -> bool:
        return isinstance(self.order, Greedy)

    @property
    def label(self) -> str:
        """A short human name, e.g. ``easy``, ``conservative/estimate``, ``greedy(f2)``."""
        if isinstance(self.order, Greedy):
            kinds = "/".join(c.kind for c in self.order.criteria)
            return f"greedy({kinds})" if self.dispatch == "fcfs" else f"{self.dispatch}/greedy({kinds})"
        return self.dispatch if self.order == "submit" else f"{self.dispatch}/{self.order}"

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        order = self.order.to_dict() if isinstance(self.order, Greedy) else self.order
        return {"schedlab_strategy": 1, "dispatch": self.dispatch, "order": order}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Strategy":
        if not isinstance(d, dict) or "dispatch" not in d:
            raise StrategyError("a strategy must be a JSON object with a 'dispatch' field")
        extra = set(d) - {"schedlab_strategy", "dispatch", "order"}
        if extra:
            raise StrategyError(f"unknown strategy fields: {sorted(extra)}")
        return cls(d["dispatch"], d.get("order", "submit"))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str) -> "Strategy":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StrategyError(f"strategy is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
        return cls.from_dict(d)
