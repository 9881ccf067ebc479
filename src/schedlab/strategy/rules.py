"""Rule bases: the 7 state features pick one of 13 strategies at every scheduling event.

genetic-fuzzy-rule-based-scheduling, Sections 3.2 and 4. Two kinds, both serialisable (JSON
round-trip) and both strategies like any other (``schedlab simulate --strategy rules.json``):

- :class:`TableRuleBase` (Section 4.1, the iterative approach): every feature's value range is
  cut by fixed bounds into partitions; a situation class is one partition per feature
  (N_r = prod N_p, Eq. 1) and holds one strategy. Intervals are closed on the right, as in
  Table 2 ("[0-75], ]75-85], ]85-100]"): partition = number of bounds strictly below the value.
- :class:`FuzzyRuleBase` (Section 4.2): rule i has a Gaussian membership function per feature
  (centre mu, width sigma, Eq. 2) and a recommendation per strategy (-5, -1, 0, 1, 5); the
  controller output is argmax_k Psi_k with Psi = phi(x) C^T (Eqs. 5-9).

Features (Section 3.2), in this order and in these units (all on a 0..100 scale, so that one
mutation step size fits all of them, Eq. 16):

- ``SD``: average weighted slowdown of the finished jobs, in [1, 100] (see
  :data:`SD_CLIP_READINGS`);
- ``Um``: momentary utilization, busy processors / m, in percent (Table 2 gives U_m in %);
- ``PRCWQ1`` .. ``PRCWQ5``: share of user group i in the estimated resource consumption
  \\bar p_j m_j of the waiting queue, in percent (Table 2 gives them in %).

The 13 strategies (Section 4): queue orders {increasing requested processors, increasing
estimate, decreasing waiting time, decreasing user-group priority} x dispatch {FCFS, EASY,
conservative}, and Greedy (the greedy-es criterion: :data:`DEFAULT_GREEDY` or any Greedy order).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StrategyError
from .model import Criterion, Greedy, Strategy
from .registry import is_rulebase_json  # noqa: F401  (its old home; the file form of every kind reads it)

FEATURES: tuple[str, ...] = ("SD", "Um", "PRCWQ1", "PRCWQ2", "PRCWQ3", "PRCWQ4", "PRCWQ5")
N_FEATURES = len(FEATURES)
#: the paper's four sorting criteria (Section 4), as registry order names
ORDERS: tuple[str, ...] = ("procs", "estimate", "submit", "group")
#: the three scheduling algorithms combined with a sorting criterion (Section 4)
DISPATCHES: tuple[str, ...] = ("fcfs", "easy", "conservative")
#: the 13 strategies: (dispatch, order) for the 12 combinations, then Greedy
STRATEGIES: tuple[str, ...] = tuple(f"{d}/{o}" for o in ORDERS for d in DISPATCHES) + ("greedy",)
N_STRATEGIES = len(STRATEGIES)
GREEDY_INDEX = N_STRATEGIES - 1
ORDER_WORDS = {"procs": "increasing requested processors", "estimate": "increasing estimated run time",
               "submit": "decreasing waiting time", "group": "decreasing user-group priority"}
#: Algorithm 2's standard strategy: "FCFS together with the sorting by waiting time"
DEFAULT_STRATEGY = "fcfs/submit"
#: the Greedy strategy when a rule base names none: criterion f2 = K_i + a wait (a = 1e-4 /s:
#: three hours of waiting raise a job by one group), K = (5, 4, 3, 2, 1): group 1 first
DEFAULT_GREEDY = Greedy((Criterion("f2", a=1e-4, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0)),))
#: Table 2 of the paper: bounds per feature (SD, then U_m and PRCWQ_i in %): 2 x 3 x 2^5 = 192 classes
TABLE2_PARTITIONS: tuple[tuple[float, ...], ...] = ((2.0,), (75.0, 85.0), (20.0,), (20.0,), (25.0,), (25.0,), (25.0,))
#: strategy sets a rule base may choose from (``--strategies``); ``all`` is the paper's 13
STRATEGY_SETS: dict[str, tuple[str, ...]] = {
    "all": STRATEGIES,
    "backfill": tuple(s for s in STRATEGIES if s.split("/")[0] in ("easy", "conservative")),
}
STRATEGY_SET_READINGS = {
    "all": "the paper's 13 strategies: \"the sorting criteria ... combined with the scheduling algorithms FCFS, "
           "EASY and CONS\" and Greedy (Section 4)",
    "backfill": "only the 8 backfilling strategies (EASY or CONS under each of the 4 sorting criteria): no FCFS "
                "dispatch and no Greedy (which dispatches FCFS), so a waiting head job never idles the machine for "
                "the jobs behind it; a remedy beyond the paper, which combines all three algorithms (\"FCFS, EASY "
                "and CONS\", Section 4) and reports against EASY (\"We have selected EASY as this strategy "
                "performs in most cases better than CONS or FCFS\", Section 5). The iterative method's standard "
                "strategy becomes EASY + decreasing waiting time (plain EASY) instead of FCFS + decreasing waiting time",
}
#: Algorithm 2's standard strategy per strategy set
SET_DEFAULT_STRATEGY = {"all": "fcfs/submit", "backfill": "easy/submit"}


def strategy_set(name: str) -> tuple[int, ...]:
    """The strategy indices of a named set (:data:`STRATEGY_SETS`); StrategyError naming the choices."""
    if name not in STRATEGY_SETS:
        raise StrategyError(f"unknown strategy set {name!r}; choose one of {', '.join(STRATEGY_SETS)}")
    return tuple(STRATEGIES.index(s) for s in STRATEGY_SETS[name])


#: the recommendation levels of Section 4.2.2.1: particularly unfavorable .. particularly favorable
LEVELS: tuple[float, ...] = (-5.0, -1.0, 0.0, 1.0, 5.0)

SD_CLIP_READINGS = {
    "job": "clip each job's slowdown SD_j = (C_j - r_j) / p_j to [1, 100], then take the weighted mean "
           "(\"SD_j ... we can delimit it to the interval of [1,100] as values greater than 10 occur very "
           "rarely in practice\", Section 3.2, said of SD_j right after its definition)",
    "mean": "take the weighted mean SD = sum p m (C - r) / sum p^2 m over the finished jobs, then clip it "
            "to [1, 100] (reading \"this feature\" as the feature SD)",
}
#: how conservative's reservations made before a switch bind the jobs after it
CONSERVATIVE_ON_SWITCH = {
    "rebuild": "the strategy is re-chosen at every event and a conservative pass reserves every waiting job, "
               "in the queue order in force, at its earliest start that delays no *preceding* job (\"an "
               "allocation of a job is feasible if the completion time of no preceding job in the waiting "
               "queue is delayed\", Section 2.1; \"Based on the present scheduling state, the rules determine "
               "the sorting criterion and the scheduling algorithm\", Section 1): on a switch into conservative, "
               "or a change of its order, the reservations are rebuilt from the running jobs in the new order; "
               "reservations of an earlier conservative stretch do not bind the strategies in force after it",
}


def strategy_index(name: str) -> int:
    """Index of a strategy name (``easy/procs``, ``greedy``, ...; order aliases accepted)."""
    if not isinstance(name, str):
        raise StrategyError(f"a strategy must be a name, got {name!r}")
    key = name.strip().lower()
    if key in STRATEGIES:
        return STRATEGIES.index(key)
    if "/" in key:
        d, _, o = key.partition("/")
        from .model import normalize_order

        try:
            o = normalize_order(o)
        except StrategyError:
            o = None
        if o is not None and f"{d}/{o}" in STRATEGIES:
            return STRATEGIES.index(f"{d}/{o}")
    raise StrategyError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")


def strategy_of(index: int, greedy: Greedy = DEFAULT_GREEDY) -> Strategy:
    """The :class:`Strategy` of strategy ``index`` (0..12)."""
    if index == GREEDY_INDEX:
        return Strategy("fcfs", greedy)
    d, _, o = STRATEGIES[index].partition("/")
    return Strategy(d, o)


def describe_strategy(index: int) -> str:
    if index == GREEDY_INDEX:
        return "Greedy"
    d, _, o = STRATEGIES[index].partition("/")
    return f"{'FCFS' if d == 'fcfs' else d.upper() if d == 'easy' else 'CONS'} + {ORDER_WORDS[o]}"


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StrategyError(f"{what} must be a number, got {value!r}")
    return float(value)


def _greedy_from(d: Any) -> Greedy:
    if d is None:
        return DEFAULT_GREEDY
    if isinstance(d, dict) and "dispatch" in d:  # a whole strategy file's content
        s = Strategy.from_dict(d)
        if not isinstance(s.order, Greedy):
            raise StrategyError("the rule base's greedy strategy must have a greedy order")
        return s.order
    return Greedy.from_dict(d)


# ---------------------------------------------------------------------------- the iterative table
@dataclass(frozen=True)
class TableRuleBase:
    """Situation classes with fixed bounds (Section 4.1): ``partitions[w]`` are the increasing
    bounds of feature w (N_p - 1 of them, Table 2 by default), ``table[c]`` the strategy index of
    class c, classes numbered row-major (feature SD most significant)."""

    partitions: tuple[tuple[float, ...], ...] = TABLE2_PARTITIONS
    table: tuple[int, ...] | None = None
    greedy: Greedy = DEFAULT_GREEDY

    def __post_init__(self) -> None:
        parts = self.partitions
        if not isinstance(parts, (list, tuple)) or len(parts) != N_FEATURES:
            got = len(parts) if isinstance(parts, (list, tuple)) else parts
            raise StrategyError(f"partitions must give bounds for {N_FEATURES} features ({', '.join(FEATURES)}), got {got}")
        clean = []
        for name, bounds in zip(FEATURES, parts):
            if not isinstance(bounds, (list, tuple)):
                raise StrategyError(f"partition bounds of {name} must be a list of numbers, got {bounds!r}")
            b = tuple(_number(v, f"partition bound of {name}") for v in bounds)
            if any(not math.isfinite(v) for v in b) or any(x >= y for x, y in zip(b, b[1:])):
                raise StrategyError(f"partition bounds of {name} must be finite and increasing, got {list(b)}")
            clean.append(b)
        object.__setattr__(self, "partitions", tuple(clean))
        n = self.n_classes
        table = self.table
        if table is None:
            table = (strategy_index(DEFAULT_STRATEGY),) * n
        if not isinstance(table, (list, tuple)) or len(table) != n:
            got = len(table) if isinstance(table, (list, tuple)) else table
            raise StrategyError(f"the rule table needs one strategy per situation class ({n}), got {got}")
        idx = tuple(strategy_index(t) if isinstance(t, str) else int(t) for t in table)
        if any(not 0 <= i < N_STRATEGIES for i in idx):
            raise StrategyError(f"strategy index out of 0..{N_STRATEGIES - 1} in the rule table")
        object.__setattr__(self, "table", idx)
        if not isinstance(self.greedy, Greedy):
            object.__setattr__(self, "greedy", _greedy_from(self.greedy))

    @property
    def label(self) -> str:
        return f"rules(table {self.n_classes})"

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(b) + 1 for b in self.partitions)

    @property
    def n_classes(self) -> int:
        return int(np.prod(self.shape))

    def with_class(self, c: int, strategy: int) -> "TableRuleBase":
        t = list(self.table)
        t[c] = strategy
        return TableRuleBase(self.partitions, tuple(t), self.greedy)

    def class_of(self, x) -> int:
        """Situation class of feature vector x (plain Python: the reference of the compiled one)."""
        c = 0
        for value, bounds in zip(x, self.partitions):
            c = c * (len(bounds) + 1) + sum(1 for b in bounds if value > b)
        return c

    def decide(self, x) -> int:
        return self.table[self.class_of(x)]

    def class_ranges(self, c: int) -> list[str]:
        """Readable intervals of class c, one per feature."""
        out = []
        for w in range(N_FEATURES - 1, -1, -1):
            k = len(self.partitions[w]) + 1
            out.append(c % k)
            c //= k
        out.reverse()
        texts = []
        for w, p in enumerate(out):
            b = self.partitions[w]
            lo = "[" + ("1" if w == 0 else "0") if p == 0 else f"]{b[p - 1]:g}"
            hi = f"{b[p]:g}]" if p < len(b) else "100]"
            texts.append(f"{lo}-{hi}")
        return texts

    def to_dict(self) -> dict[str, Any]:
        return {"schedlab_rulebase": 1, "type": "table", "features": list(FEATURES),
                "partitions": [list(b) for b in self.partitions],
                "classes": [STRATEGIES[i] for i in self.table], "greedy": self.greedy.to_dict()}

    def to_json(self) -> str:
        return rulebase_to_json(self)

    def render(self) -> str:
        lines = [f"table rule base: {self.n_classes} situation classes "
                 f"({' x '.join(str(k) for k in self.shape)}), intervals closed on the right",
                 "class  " + "  ".join(f"{f:>10}" for f in FEATURES) + "  strategy"]
        for c in range(self.n_classes):
            r = self.class_ranges(c)
            lines.append(f"{c:5d}  " + "  ".join(f"{x:>10}" for x in r) + f"  {describe_strategy(self.table[c])}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------- the fuzzy rule base
@dataclass(frozen=True, eq=False)
class FuzzyRuleBase:
    """Gaussian fuzzy rules (Section 4.2): ``centre``/``width`` (N_r x 7) per feature,
    ``recommend`` (N_r x 13) weights per strategy in :data:`LEVELS`. ``threshold``/``default``
    (Section 4.2.2.2, off when None): when the total membership sum_i phi_i is below the
    threshold, the default strategy is used."""

    centre: np.ndarray
    width: np.ndarray
    recommend: np.ndarray
    threshold: float | None = None
    default: int | None = None
    greedy: Greedy = DEFAULT_GREEDY
    #: the strategy indices the controller may output (None: all 13, the paper); the argmax of
    #: Eq. 9 runs over these only (``--strategies backfill``, :data:`STRATEGY_SETS`)
    allowed: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        c = np.asarray(self.centre, dtype=np.float64)
        s = np.asarray(self.width, dtype=np.float64)
        r = np.asarray(self.recommend, dtype=np.float64)
        if c.ndim != 2 or c.shape[0] == 0:
            raise StrategyError("a fuzzy rule base needs at least one rule")
        if c.shape[1] != N_FEATURES or s.shape != c.shape:
            raise StrategyError(f"fuzzy rules need {N_FEATURES} centres and widths each ({', '.join(FEATURES)}), "
                                f"got {c.shape[1]} centres and {s.shape[-1] if s.ndim == 2 else s.shape} widths")
        if r.shape != (c.shape[0], N_STRATEGIES):
            raise StrategyError(f"fuzzy rules need {N_STRATEGIES} recommendations each, got {r.shape[-1]}")
        for name, a in (("centre", c), ("width", s), ("recommendation", r)):
            if not np.all(np.isfinite(a)):
                i, w = np.argwhere(~np.isfinite(a))[0]
                raise StrategyError(f"rule {i + 1}: {name} {w + 1} is not a finite number ({a[i, w]})")
        if np.any(s <= 0):
            i, w = np.argwhere(s <= 0)[0]
            raise StrategyError(f"rule {i + 1}: width of {FEATURES[w]} must be positive, got {s[i, w]}")
        if not np.all(np.isin(r, LEVELS)):
            i, w = np.argwhere(~np.isin(r, LEVELS))[0]
            raise StrategyError(f"rule {i + 1}: recommendation for {STRATEGIES[w]} must be one of "
                                f"{', '.join(f'{v:g}' for v in LEVELS)}, got {r[i, w]}")
        for a in (c, s, r):
            a.setflags(write=False)
        object.__setattr__(self, "centre", c)
        object.__setattr__(self, "width", s)
        object.__setattr__(self, "recommend", r)
        if (self.threshold is None) != (self.default is None):
            raise StrategyError("a fuzzy rule base's threshold and default strategy go together")
        if self.threshold is not None:
            t = _number(self.threshold, "threshold")
            if not math.isfinite(t) or t < 0:
                raise StrategyError(f"threshold must be a finite number >= 0, got {t}")
            object.__setattr__(self, "threshold", t)
            d = self.default
            object.__setattr__(self, "default", strategy_index(d) if isinstance(d, str) else int(d))
            if not 0 <= self.default < N_STRATEGIES:
                raise StrategyError(f"default strategy index out of 0..{N_STRATEGIES - 1}")
        if not isinstance(self.greedy, Greedy):
            object.__setattr__(self, "greedy", _greedy_from(self.greedy))
        if self.allowed is not None:
            a = tuple(sorted({strategy_index(k) if isinstance(k, str) else int(k) for k in self.allowed}))
            if not a or any(not 0 <= k < N_STRATEGIES for k in a):
                raise StrategyError(f"allowed strategies must be a non-empty subset of {', '.join(STRATEGIES)}")
            if self.default is not None and self.default not in a:
                raise StrategyError(f"the default strategy {STRATEGIES[self.default]} is not among the allowed ones")
            object.__setattr__(self, "allowed", None if len(a) == N_STRATEGIES else a)

    @property
    def label(self) -> str:
        return f"rules(fuzzy {self.n_rules})"

    @property
    def n_rules(self) -> int:
        return int(self.centre.shape[0])

    def memberships(self, x) -> np.ndarray:
        """phi_i(x) of every rule, Eq. 5 (plain numpy)."""
        x = np.asarray(x, dtype=np.float64)
        g = np.exp(-((x - self.centre) ** 2) / (2 * self.width ** 2)) / (self.width * math.sqrt(2 * math.pi))
        return np.prod(g, axis=1)

    def decide(self, x) -> int:
        """The controller output (Eqs. 5-9): argmax_k Psi_k, Psi = phi C^T (first k on ties).

        Plain Python, literal: the reference of the compiled decision, which scales phi by its
        largest entry first (same argmax; keeps it when every phi underflows)."""
        phi = self.memberships(x)
        if self.threshold is not None and phi.sum() < self.threshold:
            return int(self.default)
        psi = phi @ self.recommend
        if self.allowed is not None:
            a = np.asarray(self.allowed)
            return int(a[np.argmax(psi[a])])
        return int(np.argmax(psi))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"schedlab_rulebase": 1, "type": "fuzzy", "features": list(FEATURES),
                             "strategies": list(STRATEGIES),
                             "rules": [{"centre": self.centre[i].tolist(), "width": self.width[i].tolist(),
                                        "recommend": self.recommend[i].tolist()} for i in range(self.n_rules)]}
        if self.threshold is not None:
            d["threshold"], d["default"] = self.threshold, STRATEGIES[self.default]
        if self.allowed is not None:  # only when restricted: paper-set bases keep their exact JSON
            d["allowed"] = [STRATEGIES[k] for k in self.allowed]
        d["greedy"] = self.greedy.to_dict()
        return d

    def to_json(self) -> str:
        return rulebase_to_json(self)

    def render(self) -> str:
        lines = [f"fuzzy rule base: {self.n_rules} Gaussian rules (centre +- width per feature; favoured / "
                 "disfavoured strategies)",
                 "rule  " + "  ".join(f"{f:>13}" for f in FEATURES) + "  favours"]
        for i in range(self.n_rules):
            cells = [f"{self.centre[i, w]:6.1f}+-{self.width[i, w]:<5.3g}" for w in range(N_FEATURES)]
            rec = self.recommend[i]
            fav = [f"{'++' if v == 5 else '+'}{STRATEGIES[k]}" for k, v in enumerate(rec) if v > 0]
            dis = [f"{'--' if v == -5 else '-'}{STRATEGIES[k]}" for k, v in enumerate(rec) if v < 0]
            lines.append(f"{i + 1:4d}  " + "  ".join(f"{c:>13}" for c in cells) + "  " + " ".join(fav + dis))
        if self.threshold is not None:
            lines.append(f"default {STRATEGIES[self.default]} when sum of memberships < {self.threshold:g}")
        if self.allowed is not None:
            lines.append(f"chooses only among {', '.join(STRATEGIES[k] for k in self.allowed)}")
        return "\n".join(lines)


RuleBase = TableRuleBase | FuzzyRuleBase


def rulebase_from_dict(d: Any) -> RuleBase:
    """A rule base from its JSON object; :class:`StrategyError` naming the problem."""
    if not isinstance(d, dict) or d.get("schedlab_rulebase") != 1:
        raise StrategyError("not a rule base (no \"schedlab_rulebase\": 1)")
    kind = d.get("type")
    feats = d.get("features", list(FEATURES))
    if list(feats) != list(FEATURES):
        raise StrategyError(f"features must be {', '.join(FEATURES)} in this order, got {len(feats)}: {', '.join(map(str, feats))}")
    if kind == "table":
        extra = set(d) - {"schedlab_rulebase", "type", "features", "partitions", "classes", "greedy"}
        if extra:
            raise StrategyError(f"unknown rule base fields: {sorted(extra)}")
        parts = d.get("partitions", TABLE2_PARTITIONS)
        return TableRuleBase(tuple(tuple(b) if isinstance(b, list) else b for b in parts) if isinstance(parts, list)
                             else parts, d.get("classes"), _greedy_from(d.get("greedy")))
    if kind == "fuzzy":
        extra = set(d) - {"schedlab_rulebase", "type", "features", "strategies", "rules", "threshold", "default", "greedy",
                          "allowed"}
        if extra:
            raise StrategyError(f"unknown rule base fields: {sorted(extra)}")
        names = d.get("strategies", list(STRATEGIES))
        if not isinstance(names, list) or len(names) != N_STRATEGIES:
            raise StrategyError(f"a fuzzy rule base lists the {N_STRATEGIES} strategies its recommendations follow")
        cols = [strategy_index(s) for s in names]
        if sorted(cols) != list(range(N_STRATEGIES)):
            raise StrategyError("a fuzzy rule base must list each of the 13 strategies once")
        rules = d.get("rules")
        if not isinstance(rules, list) or not rules:
            raise StrategyError("a fuzzy rule base needs at least one rule")
        centre, width, rec = [], [], []
        for i, r in enumerate(rules, 1):
            if not isinstance(r, dict) or set(r) != {"centre", "width", "recommend"}:
                raise StrategyError(f"rule {i} must have exactly centre, width and recommend")
            centre.append(_vector_nan(r["centre"], N_FEATURES, f"rule {i}: centre"))
            width.append(_vector_nan(r["width"], N_FEATURES, f"rule {i}: width"))
            raw = _vector_nan(r["recommend"], N_STRATEGIES, f"rule {i}: recommend")
            row = [0.0] * N_STRATEGIES
            for k, v in zip(cols, raw):
                row[k] = v
            rec.append(row)
        allowed = d.get("allowed")
        if allowed is not None and (not isinstance(allowed, list) or not allowed):
            raise StrategyError(f"allowed must be a non-empty list of strategy names, got {allowed!r}")
        return FuzzyRuleBase(np.array(centre), np.array(width), np.array(rec), d.get("threshold"),
                             d.get("default"), _greedy_from(d.get("greedy")),
                             None if allowed is None else tuple(strategy_index(k) for k in allowed))
    raise StrategyError(f"unknown rule base type {kind!r}; use \"table\" or \"fuzzy\"")


def _vector_nan(value: Any, n: int, what: str) -> tuple[float, ...]:
    """A list of n numbers; lets NaN/inf through to the rule base's own check (which names them)."""
    if not isinstance(value, (list, tuple)):
        raise StrategyError(f"{what} must be a list of {n} numbers, got {value!r}")
    if len(value) != n:
        extra = f" (features {', '.join(FEATURES)})" if n == N_FEATURES else ""
        raise StrategyError(f"{what} has {len(value)} values, expected {n}{extra}")
    return tuple(_number(v, what) for v in value)


def rulebase_to_dict(rb: RuleBase) -> dict[str, Any]:
    """The JSON object of a rule base of either type (the registry's ``rulebase`` kind)."""
    return rb.to_dict()


def rulebase_to_json(rb: RuleBase) -> str:
    return json.dumps(rulebase_to_dict(rb), indent=1)


def load_rulebase(path: str | Path) -> RuleBase:
    """A rule base from a JSON file; one-line :class:`StrategyError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read rule base: {exc.strerror or exc}") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StrategyError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    try:
        return rulebase_from_dict(d)
    except StrategyError as exc:
        raise StrategyError(f"{path}: {exc}") from None


def load_partitions(path: str | Path) -> tuple[tuple[float, ...], ...]:
    """Partition bounds from a JSON file: ``{"SD": [2], "Um": [75, 85], ...}`` (every feature) or a
    list of 7 bound lists; one-line error naming the file."""
    path = Path(path)
    try:
        d = json.loads(path.read_text())
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read partitions: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise StrategyError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    try:
        if isinstance(d, dict):
            missing = [f for f in FEATURES if f not in d]
            extra = sorted(set(d) - set(FEATURES))
            if missing or extra:
                raise StrategyError(f"partitions need bounds for exactly {', '.join(FEATURES)}"
                                    + (f"; missing {', '.join(missing)}" if missing else "")
                                    + (f"; unknown {', '.join(extra)}" if extra else ""))
            d = [d[f] for f in FEATURES]
        return TableRuleBase(tuple(tuple(b) if isinstance(b, list) else b for b in d) if isinstance(d, list) else d).partitions
    except StrategyError as exc:
        raise StrategyError(f"{path}: {exc}") from None


__all__ = [
    "CONSERVATIVE_ON_SWITCH", "DEFAULT_GREEDY", "DEFAULT_STRATEGY", "FEATURES", "FuzzyRuleBase", "LEVELS",
    "N_FEATURES", "N_STRATEGIES", "RuleBase", "SD_CLIP_READINGS", "STRATEGIES", "STRATEGY_SETS", "TABLE2_PARTITIONS",
    "TableRuleBase", "describe_strategy", "load_partitions", "load_rulebase", "rulebase_from_dict",
    "rulebase_to_json", "strategy_index", "strategy_of", "strategy_set",
]
