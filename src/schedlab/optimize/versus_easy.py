"""A strategy beside EASY: its metrics, its objective and its gain over EASY per workload.

The reference every training command reports against (greedy-es-sorting-criteria, Table III and
Figs. 1-3), shared by the training driver (:mod:`schedlab.optimize.evolve`) and the held-out
evaluation (:mod:`schedlab.optimize.heldout`), which both import it and neither of which it imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..metrics.objective import Objective
from ..sim.model import Machine
from ..strategy.model import Strategy
from ..workload.model import Workload

#: metrics reported per workload against EASY (paper Table III: AWRT_1..5 and UTIL)
COMPARE_METRICS: tuple[str, ...] = ("AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL")
#: the user groups' AWRT metrics whose ratios to EASY's are the collateral of a strategy (paper Table I)
GROUP_AWRT: tuple[str, ...] = ("AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5")
#: a workload is flagged when the strategy's objective is worse than EASY's by more than this (%)
WORSE_THAN_EASY_PCT = 5.0
#: a result whose utilisation falls more than this many UTIL points below EASY's is marked (table, JSON,
#: report) unless ``--max-util-drop`` sets another limit. Default 1 point: issue 43 (an owner objective
#: such as the papers' 10*AWRT1 + 4*AWRT2 ignores UTIL; "For the U[%] objective a positive percentage value
#: denotes a deterioration of the system's performance", Franke et al., Section 5); a one-point drop is
#: above the run-to-run spread of UTIL between EASY and its backfilling variants on the shared traces
UTIL_DROP_MARK_POINTS = 1.0
#: a result that makes some user group's AWRT more than this multiple of EASY's is marked unless
#: ``--max-group-ratio`` sets another limit. Default 2 (issue 43: "any group's AWRT more than twice EASY's"):
#: the objective weighs only some groups (eq. (8): groups 1 and 2), the others may starve unseen
GROUP_RATIO_MARK = 2.0


def gain_pct(easy: float | None, value: float | None) -> float | None:
    """100 (EASY - value) / |EASY|: the improvement over EASY of a minimised value, positive = better than
    EASY whatever EASY's sign (``-UTIL`` is negative: a lower ``-UTIL`` is better). None when undefined,
    or when EASY is 0 (no percentage of 0 exists: :func:`objective_diff` and :func:`worse_than` judge it)."""
    if easy is None or value is None or easy == 0:
        return None
    return 100.0 * (easy - value) / abs(easy)


def objective_diff(easy: float | None, value: float | None) -> float | None:
    """value - EASY (a minimised value: positive = worse than EASY); what the tables show beside a gain
    that has no percentage (EASY = 0)."""
    return None if easy is None or value is None else value - easy


def worse_than(easy: float | None, value: float | None, pct: float) -> bool:
    """True when the minimised ``value`` is worse than ``easy`` by more than ``pct`` % of |EASY|:
    value - EASY > pct/100 |EASY|, in exact arithmetic (a value at the limit is not worse whatever the
    rounding). With EASY = 0 any value above it is worse (|EASY| pct/100 = 0): a zero baseline is judged
    by the sign of value - EASY. The one verdict of every gate and flag (``compare``, ``evolve
    compare``, the optimizers' tables and reports); False when either value is undefined (the verbs
    refuse such objectives first: :func:`objective_value`)."""
    from fractions import Fraction

    if easy is None or value is None:
        return False
    return Fraction(value) - Fraction(easy) > Fraction(pct) / 100 * abs(Fraction(easy))


def objective_value(objective, metrics, easy, who: str) -> float:
    """``objective`` (an :class:`~schedlab.metrics.Objective`) on ``who``'s ``metrics``, ``easy``: EASY's
    (for ``EASY_*`` names). The one rule of every verb that judges against EASY or optimizes
    (``compare``, ``evolve compare``, ``evolve greedy``, ``rules``, the held-out scores): an objective
    that cannot be evaluated (a term undefined on this schedule, a division by zero) cannot be judged,
    and is refused with one line naming the term and ``who`` (:class:`~schedlab.errors.ObjectiveError`).
    An objective undefined on every schedule (``AWRT1/0``) is refused when parsed, in every verb."""
    import math

    from ..errors import ObjectiveError

    value = objective(metrics, easy, who=who)
    if not math.isfinite(value):
        raise ObjectiveError(f"objective {objective} is {value} for {who}: it cannot be compared with EASY")
    return value


def collateral(mine: dict[str, float | None], base: dict[str, float | None]) -> dict[str, Any]:
    """What a strategy costs the machine and the other users against EASY on the same workload:
    ``UTIL_diff_points`` (UTIL - EASY's UTIL, percentage points) and the worst user group's AWRT ratio,
    ``worst_group_awrt_ratio`` = max over the groups with jobs of AWRT_g / EASY's AWRT_g, and its group
    ``worst_group`` (None when no group has jobs; ``inf``-free: a group EASY serves in 0 s and the
    strategy not is reported as ratio None with ``worst_group`` set, and counts as beyond any limit)."""
    a, b = mine.get("UTIL"), base.get("UTIL")
    out: dict[str, Any] = {"UTIL_diff_points": None if a is None or b is None else a - b,
                           "worst_group": None, "worst_group_awrt_ratio": None}
    worst = -1.0
    for name in GROUP_AWRT:
        v, e = mine.get(name), base.get(name)
        if v is None or e is None:
            continue
        ratio = (1.0 if v == 0 else float("inf")) if e == 0 else v / e
        if ratio > worst:
            worst = ratio
            out["worst_group"] = name
            out["worst_group_awrt_ratio"] = None if ratio == float("inf") else ratio
    return out


#: the keys :func:`judged` adds to a row for the collateral (copied by tables built from such rows)
COLLATERAL_KEYS: tuple[str, ...] = ("UTIL_diff_points", "worst_group", "worst_group_awrt_ratio", "collateral")


def collateral_marks(row: dict[str, Any], max_util_drop: float | None = None,
                     max_group_ratio: float | None = None) -> dict[str, str]:
    """The collateral limits ``row`` (with :func:`collateral`'s keys) crosses, one short text each:
    ``util``, UTIL below EASY's by more than ``max_util_drop`` points (default :data:`UTIL_DROP_MARK_POINTS`);
    ``group``, a group's AWRT more than ``max_group_ratio`` times EASY's (default :data:`GROUP_RATIO_MARK`)."""
    drop_limit = UTIL_DROP_MARK_POINTS if max_util_drop is None else max_util_drop
    ratio_limit = GROUP_RATIO_MARK if max_group_ratio is None else max_group_ratio
    marks = {}
    diff = row.get("UTIL_diff_points")
    if diff is not None and -diff > drop_limit:
        marks["util"] = f"UTIL {diff:+.2f} points (drop > {drop_limit:g})"
    group, ratio = row.get("worst_group"), row.get("worst_group_awrt_ratio")
    if group is not None and (ratio is None or ratio > ratio_limit):
        shown = "inf" if ratio is None else f"{ratio:.2f}"
        marks["group"] = f"{group} x{shown} EASY's (> {ratio_limit:g})"
    return marks


def judged(row: dict[str, Any], value: float | None, objective_easy: float | None, threshold: float,
           mine: dict[str, float | None], base: dict[str, float | None]) -> dict[str, Any]:
    """``row`` with the verdict against EASY every table, JSON and report shows:
    ``objective_improvement_pct`` (:func:`gain_pct`), ``objective_diff`` (value - EASY),
    ``worse_than_easy`` (:func:`worse_than` by ``threshold`` %), the :func:`collateral` and
    ``collateral`` (the default limits it crosses, :func:`collateral_marks`)."""
    row["objective_improvement_pct"] = gain_pct(objective_easy, value)
    row["objective_diff"] = objective_diff(objective_easy, value)
    row["worse_than_easy"] = worse_than(objective_easy, value, float(threshold))
    row.update(collateral(mine, base))
    row["collateral"] = list(collateral_marks(row).values())
    return row


def ratio_text(row: dict[str, Any]) -> str:
    """The worst user group's AWRT against EASY's, e.g. 'AWRT3 x2.41' ('-' when no group has jobs)."""
    group, ratio = row.get("worst_group"), row.get("worst_group_awrt_ratio")
    if group is None:
        return "-"
    return f"{group} x{'inf' if ratio is None else f'{ratio:.2f}'}"


def verdict_marks(row: dict[str, Any], threshold: float | None) -> list[str]:
    """What is wrong with ``row`` (none: ok): the objective worse than EASY by more than ``threshold`` %
    (not judged when None), and the collateral marks (UTIL drop, a group's slowdown) of :func:`judged`."""
    marks = [f"WORSE > {threshold:g} %"] if threshold is not None and row.get("worse_than_easy") else []
    return marks + [f"COLLATERAL {m}" for m in row.get("collateral") or ()]


def metrics_of(workload: Workload, machine: Machine, strategy: Strategy) -> dict[str, float | None]:
    """All metrics of one simulated schedule as a plain dict."""
    from ..metrics import compute_metrics
    from ..sim.strategies import simulate_any  # a Strategy or a rule base

    return dict(compute_metrics(simulate_any(workload, machine, strategy)))


def objective_over(objective: Objective, workloads: Sequence[Workload], machines: Sequence[Machine],
                   easy: Sequence[dict[str, float | None]] | None,
                   schedule_of: Callable[[Workload, Machine], Any]) -> float:
    """Sum over the workloads of ``objective`` on the schedule ``schedule_of(workload, machine)``
    makes, each with EASY's metrics on the same workload (``easy``, one dict per workload) for the
    ``EASY_*`` names: the one place an optimizer's value over its training (or held-out) workloads
    is computed (greedy, both rule-base methods, the held-out scores)."""
    from ..metrics import compute_metrics

    obj = Objective.of(objective)  # the payloads carry it parsed (TrainingSet, HeldOut)
    baselines = easy if easy is not None else (None,) * len(workloads)
    total = 0.0
    for w, m, e in zip(workloads, machines, baselines, strict=True):
        total += obj(compute_metrics(schedule_of(w, m)), e)
    return total


def compare_with_easy(
    strategy: Strategy,
    workloads: Sequence[Workload],
    machines: Sequence[Machine],
    objective: Objective,
    *,
    easy: Sequence[dict[str, float | None]] | None = None,
    threshold: float = WORSE_THAN_EASY_PCT,
) -> list[dict[str, Any]]:
    """Per workload: objective and metrics of ``strategy`` and of EASY, and % improvement over EASY.

    improvement % = 100 (EASY - strategy) / |EASY| (:func:`gain_pct`) for the objective and the AWRT
    metrics (lower is better; positive = strategy better); for UTIL the difference in percentage points
    (strategy - EASY). greedy-es-sorting-criteria, Table III and Figs. 1-3. ``worse_than_easy``
    flags a workload whose objective is worse than EASY's by more than ``threshold`` % of |EASY|
    (:func:`worse_than`); the collateral and its marks: :func:`judged`.
    """
    obj = Objective.of(objective)
    rows = []
    for i, (w, m) in enumerate(zip(workloads, machines)):
        base = easy[i] if easy is not None else metrics_of(w, m, Strategy("easy"))
        mine = metrics_of(w, m, strategy)
        row: dict[str, Any] = {"workload": w.name or f"workload{i}", "jobs": len(w), "procs": m.procs}
        row["objective"] = objective_value(obj, mine, base, f"{strategy.label} on {row['workload']}")
        row["objective_easy"] = objective_value(obj, base, base, f"EASY on {row['workload']}")
        for name in COMPARE_METRICS:
            a, b = mine.get(name), base.get(name)
            row[name], row[f"{name}_easy"] = a, b
            if name != "UTIL":
                row[f"{name}_improvement_pct"] = gain_pct(b, a)
        rows.append(judged(row, row["objective"], row["objective_easy"], threshold, mine, base))
    return rows


# ---------------------------------------------------------------------------- training under a guard
def guarded_objective(objective: Objective | str, delta: float) -> str:
    """The objective with the utilisation guard of ``--util-guard DELTA`` (:data:`UTIL_GUARD_READING`), as text
    (a config parses it)."""
    return f"({objective}) * (1 + max(0, EASY_UTIL - UTIL - {float(delta)!r}))"


UTIL_GUARD_READING = ("training objective f * (1 + max(0, EASY_UTIL - UTIL - delta)): when the base's utilisation "
                      "(UTIL, in percent) falls below EASY's on the same workload by more than delta points, every "
                      "further point adds f once more; beyond the paper, whose objective weighs only AWRT_1 and "
                      "AWRT_2 and notes \"For the U[%] objective a positive percentage value denotes a deterioration "
                      "of the system's performance, as the utilization has to be maximized from the provider's point "
                      "of view\" (Section 5); the final table and the gate report the objective without the guard")


def check_util_guard(util_guard: float | None) -> None:
    """``--util-guard`` (of ``rules`` and ``evolve greedy``) is None or a number of UTIL points >= 0 (RunError)."""
    import math

    from ..errors import RunError

    if util_guard is not None and not (math.isfinite(util_guard) and util_guard >= 0):
        raise RunError(f"--util-guard must be a number of UTIL points >= 0, got {util_guard:g}")


def __getattr__(name: str):
    """``parsed_objective(expr)``, the old per-process parse cache, is :meth:`Objective.of` now (issue 46: the
    payloads carry the parsed objective); the old name works for one release with a DeprecationWarning."""
    if name == "parsed_objective":
        import warnings

        warnings.warn("schedlab.optimize.versus_easy.parsed_objective is now schedlab.Objective.of; "
                      "the old name goes in the next release", DeprecationWarning, stacklevel=2)
        return Objective.of
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
