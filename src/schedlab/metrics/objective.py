"""Objective expressions over metric names, e.g. ``10*AWRT1 + 4*AWRT2``, parsed without eval.

The owner's objective f_obj of greedy-es-sorting-criteria, eq. (8), generalised: any arithmetic
(numbers, metric names, ``+ - * /``, unary minus, parentheses, ``max(...)`` and ``min(...)``)
over :data:`METRIC_NAMES` and their EASY baselines ``EASY_<metric>`` (the value EASY reaches on
the same trace), so that owners can state limits, e.g.
``10*AWRT1 + 4*AWRT2 + 100*max(0, AWRT5 - 2*EASY_AWRT5)``.
Objectives are minimised; write ``-UTIL`` to maximise utilization.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping
from typing import Callable

from ..errors import ObjectiveError
from .basic import METRIC_NAMES

#: the objective of greedy-es-sorting-criteria, eq. (8)
DEFAULT_OBJECTIVE = "10*AWRT1 + 4*AWRT2"

_BINARY: dict[type, tuple[str, Callable[[float, float], float]]] = {
    ast.Add: ("+", operator.add),
    ast.Sub: ("-", operator.sub),
    ast.Mult: ("*", operator.mul),
    ast.Div: ("/", operator.truediv),
}
_UNARY: dict[type, tuple[str, Callable[[float], float]]] = {
    ast.USub: ("-", operator.neg),
    ast.UAdd: ("+", operator.pos),
}
_OPERATOR_TEXT = {ast.Pow: "**", ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&",
                  ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.Not: "not",
                  ast.Invert: "~"}


#: prefix of a metric name that means "EASY's value of that metric on the same trace"
EASY_PREFIX = "EASY_"
#: the functions an objective may call (at least one argument each)
_FUNCTIONS: dict[str, Callable[..., float]] = {"max": max, "min": min}


def _constant_zero(node: ast.AST) -> bool:
    """True when ``node`` (a checked sub-expression) names no metric and evaluates to 0 (``0``, ``1-1``,
    ``-0.0``, ``2*0``): a division by it is undefined whatever the schedule, so the objective is refused
    when parsed, in every verb, before anything is simulated. A constant that itself divides by zero
    was refused by its own check first."""
    if any(isinstance(n, ast.Name) for n in ast.walk(node)):
        return False

    def value(n: ast.AST) -> float:
        if isinstance(n, ast.Constant):
            return float(n.value)
        if isinstance(n, ast.UnaryOp):
            return _UNARY[type(n.op)][1](value(n.operand))
        if isinstance(n, ast.BinOp):
            return _BINARY[type(n.op)][1](value(n.left), value(n.right))
        return float(_FUNCTIONS[n.func.id]([value(a) for a in n.args]))  # type: ignore[attr-defined]

    return value(node) == 0


def _known() -> str:
    return ", ".join(METRIC_NAMES) + f" (each also as {EASY_PREFIX}<name>: EASY's value on the same trace)"


class Objective:
    """A parsed objective expression; ``Objective(expr)(metrics) -> float`` (to be minimised).

    Only numbers, the metric names of :data:`METRIC_NAMES` (and ``EASY_<name>``), ``+ - * /``,
    unary ``-``/``+``, parentheses and the calls ``max(x, ...)``/``min(x, ...)`` are allowed. The expression is parsed once with :func:`ast.parse` and every
    node is checked against that whitelist; nothing is ever evaluated by Python's ``eval``.
    """

    __slots__ = ("_expr", "_tree", "names")

    def __init__(self, expr: "str | Objective" = DEFAULT_OBJECTIVE) -> None:
        if isinstance(expr, Objective):  # code that re-parsed a config's text keeps working now configs hold one
            expr = expr.expr
        if not isinstance(expr, str):
            raise ObjectiveError(f"an objective must be a string expression, got {expr!r}")
        text = expr.strip()
        if not text:
            raise ObjectiveError(f"empty objective; write an expression over {_known()}")
        if "\n" in text or "\r" in text:
            raise ObjectiveError("an objective must be one line")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            col = exc.offset if exc.offset else len(text) + 1
            where = "at the end" if col > len(text) else f"at column {col}"
            raise ObjectiveError(f"cannot parse objective {text!r} {where}: {exc.msg}") from None
        names: list[str] = []
        self._check(tree.body, text, names)
        self._expr = text
        self._tree = tree.body
        #: the metric names the objective uses, in order of first appearance (incl. ``EASY_*``)
        self.names: tuple[str, ...] = tuple(names)

    @classmethod
    def of(cls, objective: "Objective | str") -> "Objective":
        """``objective`` parsed: the one place an objective's text becomes an :class:`Objective` (issue 46:
        it had been parsed anew in six places, each a chance to disagree). A run's config (or its
        :class:`~schedlab.optimize.problem.Problem`) parses the text once on construction and carries
        the parsed objective to the workers; an :class:`Objective` passes through unchanged."""
        return objective if isinstance(objective, Objective) else cls(objective)

    @property
    def needs_easy(self) -> bool:
        """True when the expression names an EASY baseline (``EASY_<metric>``)."""
        return any(n.startswith(EASY_PREFIX) for n in self.names)

    def canonical(self) -> str:
        """The parsed expression with every number as a float: equal for texts that mean the same
        (``10*AWRT1+4*AWRT2``, ``10 * AWRT1 + 4.0 * AWRT2``); run folders compare objectives by it."""
        tree = ast.parse(self._expr, mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
                node.value = float(node.value)
        return ast.dump(tree.body, annotate_fields=False)

    # ------------------------------------------------------------------ parsing
    @staticmethod
    def _check(node: ast.AST, text: str, names: list[str]) -> None:
        where = f"at column {getattr(node, 'col_offset', 0) + 1}"
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                op = _OPERATOR_TEXT.get(type(node.op), type(node.op).__name__)
                raise ObjectiveError(f"operator {op!r} not allowed in objective {text!r} {where}; use + - * / and parentheses")
            Objective._check(node.left, text, names)
            Objective._check(node.right, text, names)
            if isinstance(node.op, ast.Div) and _constant_zero(node.right):  # undefined on every schedule
                raise ObjectiveError(f"objective {text!r} divides by zero {where}: its divisor "
                                     f"{ast.unparse(node.right)!r} is 0 whatever the schedule")
        elif isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                op = _OPERATOR_TEXT.get(type(node.op), type(node.op).__name__)
                raise ObjectiveError(f"operator {op!r} not allowed in objective {text!r} {where}")
            Objective._check(node.operand, text, names)
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ObjectiveError(f"only numbers and metric names are allowed, got {node.value!r} {where}")
            if not math.isfinite(node.value):
                raise ObjectiveError(f"number {node.value!r} in objective is not finite {where}")
        elif isinstance(node, ast.Call):
            fname = node.func.id if isinstance(node.func, ast.Name) else None
            if fname not in _FUNCTIONS:
                shown = fname if fname else ast.unparse(node.func)
                raise ObjectiveError(f"function call not allowed in objective {text!r} {where}: {shown}(); only max(...) and min(...)")
            if node.keywords:
                raise ObjectiveError(f"{fname}() takes no keyword arguments in objective {text!r} {where}")
            if not node.args:
                raise ObjectiveError(f"{fname}() needs at least one argument in objective {text!r} {where}")
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    raise ObjectiveError(f"starred argument not allowed in objective {text!r} {where}")
                Objective._check(arg, text, names)
        elif isinstance(node, ast.Name):
            base = node.id[len(EASY_PREFIX):] if node.id.startswith(EASY_PREFIX) else node.id
            if node.id in _FUNCTIONS:
                raise ObjectiveError(f"{node.id} is a function in objective {text!r} {where}; call it: {node.id}(x, y)")
            if base not in METRIC_NAMES:
                raise ObjectiveError(f"unknown metric {node.id!r} in objective {text!r}; known: {_known()}")
            if node.id not in names:
                names.append(node.id)
        else:
            kind = {ast.Attribute: "attribute", ast.Subscript: "subscript",
                    ast.Compare: "comparison", ast.BoolOp: "boolean operator"}.get(type(node), type(node).__name__)
            raise ObjectiveError(
                f"{kind} not allowed in objective {text!r} {where}; use numbers, metric names, + - * /, parentheses, max() and min()"
            )

    # ------------------------------------------------------------------ evaluation
    def __call__(self, metrics: Mapping[str, float | None], easy: Mapping[str, float | None] | None = None,
                 *, who: str = "this schedule") -> float:
        """The objective's value for ``metrics`` (a :class:`Metrics` or any name -> number mapping);
        ``easy``: EASY's metrics on the same trace, needed when the expression names ``EASY_*``;
        ``who``: whose metrics they are, named when a term is undefined (e.g. the policy)."""
        if easy is None and self.needs_easy:
            need = next(n for n in self.names if n.startswith(EASY_PREFIX))
            raise ObjectiveError(f"objective {self._expr!r} uses {need}, but no EASY baseline was computed for it")
        value = self._eval(self._tree, metrics, easy, who)
        return float(value)

    def _eval(self, node: ast.AST, metrics: Mapping[str, float | None], easy: Mapping[str, float | None] | None,
              who: str = "this schedule") -> float:
        if isinstance(node, ast.Call):
            return float(_FUNCTIONS[node.func.id]([self._eval(a, metrics, easy, who) for a in node.args]))  # type: ignore[attr-defined]
        if isinstance(node, ast.BinOp):
            left = self._eval(node.left, metrics, easy, who)
            right = self._eval(node.right, metrics, easy, who)
            op = _BINARY[type(node.op)][1]
            if op is operator.truediv and right == 0:
                raise ObjectiveError(f"objective {self._expr!r} divides by zero at column {node.col_offset + 1}")
            return op(left, right)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)][1](self._eval(node.operand, metrics, easy, who))
        if isinstance(node, ast.Constant):
            return float(node.value)
        assert isinstance(node, ast.Name)
        name, source, whose = node.id, metrics, who
        if name.startswith(EASY_PREFIX):
            name, source, whose = name[len(EASY_PREFIX):], easy, "the EASY schedule"
        try:
            value = source[name]  # type: ignore[index]
        except KeyError:
            raise ObjectiveError(f"objective needs metric {node.id!r}, which was not computed") from None
        if value is None:
            raise ObjectiveError(
                f"objective {self._expr!r} uses {node.id}, which is undefined for {whose}"
                + (f" ({_group_hint(name, source)})" if name[:4] in ("AWRT", "BSLD") and name[4:].isdigit() else "")
            )
        return float(value)

    # ------------------------------------------------------------------ identity
    @property
    def expr(self) -> str:
        return self._expr

    def __str__(self) -> str:
        return self._expr

    def __repr__(self) -> str:
        return f"Objective({self._expr!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Objective) and ast.dump(self._tree) == ast.dump(other._tree)

    def __hash__(self) -> int:
        return hash(ast.dump(self._tree))


def _group_hint(name: str, metrics: Mapping[str, float | None] | None) -> str:
    """Why a per-group metric is undefined, and an objective the trace supports (issue 43: the default
    objective failed on a trace without group-1 jobs with no hint of another): the groups that have
    jobs, and the papers' weighting 10, 4 over the first two of them (or that group alone; AWRT, over
    all jobs, is always defined)."""
    kind, group = name[:4], name[4:]
    have = [g for g in range(1, 6) if (metrics or {}).get(f"{kind}{g}") is not None]
    if not have:
        return f"user group {group} has no jobs"
    suggestion = f"10*{kind}{have[0]} + 4*{kind}{have[1]}" if len(have) > 1 else f"{kind}{have[0]}"
    return (f"user group {group} has no jobs; groups with jobs: {', '.join(map(str, have))}; an objective this "
            f"trace supports: --objective '{suggestion}', or AWRT over all jobs")
