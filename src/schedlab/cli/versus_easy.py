"""A strategy against EASY, shared by the verbs that compare (``evolve``, ``rules``, ``compare``): the
per-workload comparison table, the checks of ``--threshold``/``--fail-worse-than`` and the gate
that exits 1 when a strategy is worse than EASY by more than the given percentage."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import SchedlabError


def wide_console() -> Console:
    """stdout console at least 140 columns wide, so the comparison table never truncates numbers."""
    width = Console().width
    return Console(width=max(width, 140))


def comparison_table(rows: list[dict[str, Any]], title: str, label: str = "strategy",
                     threshold: float | None = None) -> Table:
    """``label`` (the strategy), EASY and improvement rows per workload; ``set`` (train/test) when the
    rows have it, and a flag on workloads where the strategy is worse than EASY by more than ``threshold`` %."""
    table = Table(title=title)
    table.add_column("workload", overflow="fold")  # a narrow terminal wraps the name, never cuts it
    sets = any("set" in r for r in rows)
    if sets:
        table.add_column("set")
    table.add_column("schedule")
    cols = ["objective", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL"]
    from rich.markup import escape

    from ..report.table import HEADINGS, fixed

    for c in cols:
        table.add_column(HEADINGS.get(c, c), justify="right")  # with the unit: AWRT in seconds, UTIL in %
    table.add_column("vs EASY")

    fmt = lambda v: "-" if v is None else fixed(v)  # noqa: E731
    for r in rows:
        lead = [r.get("set", "")] if sets else []
        # a name's "[months 3-4]" is text, not rich markup
        table.add_row(escape(r["workload"]), *lead, label, *(fmt(r.get(c)) for c in cols), "")
        table.add_row("", *([""] if sets else []), "EASY", *(fmt(r.get(f"{c}_easy")) for c in cols), "")
        imp = [r.get(f"{c}_improvement_pct") for c in cols[:-1]] + [r.get("UTIL_diff_points")]
        flag = (f"[bold red]WORSE > {threshold:g} %[/]" if r.get("worse_than_easy") else "ok") if threshold is not None else ""
        table.add_row("", *([""] if sets else []), "improvement %", *(fmt(v) for v in imp), flag, end_section=True)
    return table


class GateError(SchedlabError, ValueError):
    """A ``--fail-worse-than`` gate that cannot be evaluated (an undefined objective): exit 2, never a pass."""


def check_threshold(threshold: float, fail_worse_than: float | None) -> None:
    """Both thresholds are finite percentages >= 0 (checked before anything runs)."""
    import math

    from .options import OptionError

    for name, v in (("--threshold", threshold), ("--fail-worse-than", fail_worse_than)):
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise OptionError(f"{name} must be a percentage >= 0, got {v:g}")


def gate_objective(objective, metrics, easy, who: str, fail_worse_than: float | None) -> float | None:
    """``objective`` of ``who``'s ``metrics`` (``easy``: EASY's metrics, for ``EASY_*`` names and as the
    baseline). A term can be undefined (AWRT3 when user group 3 has no jobs): without a gate the value
    is None and a warning line says why; a gate (``--fail-worse-than``) that cannot evaluate fails, with
    one line naming the undefined term and ``who`` (exit 2), as ``evolve compare`` does."""
    try:
        return objective(metrics, easy, who=who)
    except SchedlabError as exc:
        if fail_worse_than is not None:
            raise GateError(f"--fail-worse-than {fail_worse_than:g} cannot be evaluated: {exc}") from None
        typer.echo(f"warning: {exc}", err=True)
        return None


def gate(worse: list[str], fail_worse_than: float | None) -> None:
    """Exit 1 naming the workloads when the gate ``--fail-worse-than`` failed."""
    if fail_worse_than is not None and worse:
        typer.echo(f"worse than EASY by more than {fail_worse_than:g} % on: {', '.join(worse)}", err=True)
        raise typer.Exit(1)
