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


def fitting_width(table: Table) -> int:
    """The console width :func:`print_wide` prints ``table`` at: at least 140 columns (or the terminal's)
    and never narrower than the table needs, so its names and numbers are never cut (the verdict
    column wraps first)."""
    import io

    width = wide_console().width
    widest = wide_console().measure(table, options=Console().options.update_width(100_000)).maximum
    while width < widest:  # rich cuts a cell with an ellipsis, or crops a row wider than the console (no
        probe = Console(width=width, file=io.StringIO(), record=True)  # right border): widen until neither
        probe.print(table)
        text = probe.export_text()
        if "…" not in text and all(line.rstrip()[-1:] in "┓┃┩│┘" for line in text.splitlines()[1:] if line.strip()):
            break
        width += 2
    return width


def print_wide(table: Table) -> None:
    """``table`` on stdout at :func:`fitting_width`: its names and numbers are never cut."""
    Console(width=fitting_width(table)).print(table)


def comparison_table(rows: list[dict[str, Any]], title: str, label: str = "strategy",
                     threshold: float | None = None) -> Table:
    """``label`` (the strategy), EASY and improvement rows per workload; ``set`` (train/test) when the
    rows have it, and a flag on workloads where the strategy is worse than EASY by more than ``threshold`` %
    or crosses a collateral mark (UTIL points, the worst group's AWRT ratio against EASY's)."""
    table = Table(title=title)
    # names and numbers never cut: the verdict column (words) is the one that wraps to fit
    table.add_column("workload", no_wrap=True, min_width=max((len(str(r["workload"])) for r in rows), default=8))
    sets = any("set" in r for r in rows)
    if sets:
        table.add_column("set")
    table.add_column("schedule", no_wrap=True)
    cols = ["objective", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL"]
    from rich.markup import escape

    from ..optimize.versus_easy import ratio_text, verdict_marks
    from ..report.table import HEADINGS, fixed, gain_text

    for c in cols:  # with the unit: AWRT in seconds, UTIL in % (its improvement in points)
        table.add_column(HEADINGS.get(c, c) + (" (diff: pts)" if c == "UTIL" else ""), justify="right", no_wrap=True)
    table.add_column("worst group's AWRT; vs EASY", min_width=22)

    fmt = lambda v: "-" if v is None else fixed(v)  # noqa: E731
    for r in rows:
        marks = verdict_marks(r, threshold)
        verdict = f"[bold red]{chr(10).join(marks)}[/]" if marks else ("ok" if threshold is not None else "")
        verdict = f"{ratio_text(r)} EASY's\n{verdict}" if r.get("worst_group") else verdict
        lead = [r.get("set", "")] if sets else []
        # a name's "[months 3-4]" is text, not rich markup
        table.add_row(escape(r["workload"]), *lead, label, *(fmt(r.get(c)) for c in cols), "")
        table.add_row("", *([""] if sets else []), "EASY", *(fmt(r.get(f"{c}_easy")) for c in cols), "")
        imp = [fmt(r.get(f"{c}_improvement_pct")) for c in cols[1:-1]]
        table.add_row("", *([""] if sets else []), "improvement %", gain_text(r), *imp,
                      fmt(r.get("UTIL_diff_points")), verdict, end_section=True)
    return table


def check_threshold(threshold: float, fail_worse_than: float | None) -> None:
    """Both thresholds are finite percentages >= 0 (checked before anything runs)."""
    import math

    from .options import OptionError

    for name, v in (("--threshold", threshold), ("--fail-worse-than", fail_worse_than)):
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise OptionError(f"{name} must be a percentage >= 0, got {v:g}")


def gate_objective(objective, metrics, easy, who: str, judging: bool) -> float | None:
    """``objective`` of ``who``'s ``metrics`` (``easy``: EASY's metrics, for ``EASY_*`` names). A term can
    be undefined (AWRT3 when user group 3 has no jobs). Where a verdict against EASY depends on the value
    (``judging``: ``compare``, as ``evolve compare`` and the optimizers) it cannot be judged and is refused
    with one line naming the term and ``who`` (:func:`~schedlab.optimize.versus_easy.objective_value`, the
    one rule); where nothing is judged (``simulate``) the value is None and a warning line says why."""
    from ..optimize.versus_easy import objective_value

    try:
        return objective_value(objective, metrics, easy, who)
    except SchedlabError as exc:
        if judging:
            raise
        typer.echo(f"warning: {exc}", err=True)
        return None


#: ``--max-util-drop POINTS``: the gate's limit on the utilisation a strategy may lose against EASY
MAX_UTIL_DROP = typer.Option(None, "--max-util-drop", metavar="POINTS",
                             help="exit 1 when a strategy's UTIL is below EASY's by more than POINTS percentage points "
                                  "(a gate beside --fail-worse-than; default: no gate, a drop of more than 1 point is marked)")
#: ``--max-group-ratio R``: the gate's limit on any user group's AWRT against EASY's
MAX_GROUP_RATIO = typer.Option(None, "--max-group-ratio", metavar="R",
                               help="exit 1 when a user group's AWRT is more than R times EASY's (groups with jobs; a gate "
                                    "beside --fail-worse-than; default: no gate, a ratio above 2 is marked)")


def check_guards(max_util_drop: float | None, max_group_ratio: float | None) -> None:
    """``--max-util-drop`` is finite and >= 0 points, ``--max-group-ratio`` finite and >= 1 (checked before anything runs)."""
    import math

    from .options import OptionError

    if max_util_drop is not None and not (math.isfinite(max_util_drop) and max_util_drop >= 0):
        raise OptionError(f"--max-util-drop must be a number of UTIL points >= 0, got {max_util_drop:g}")
    if max_group_ratio is not None and not (math.isfinite(max_group_ratio) and max_group_ratio >= 1):
        raise OptionError(f"--max-group-ratio must be a ratio >= 1, got {max_group_ratio:g}")


def mark_guards(row: dict[str, Any], max_util_drop: float | None, max_group_ratio: float | None) -> list[str]:
    """``row``'s collateral marks under the guards given (the defaults for those not given), stored in
    ``row["collateral"]``; returns the marks of the guards given, which fail the gate."""
    from ..optimize.versus_easy import collateral_marks

    marks = collateral_marks(row, max_util_drop, max_group_ratio)
    row["collateral"] = list(marks.values())
    given = {"util": max_util_drop, "group": max_group_ratio}
    return [text for kind, text in marks.items() if given[kind] is not None]


def gate(worse: list[str], fail_worse_than: float | None, guarded: list[str] = ()) -> None:
    """Exit 1 naming the workloads when the gate ``--fail-worse-than`` failed, or naming what crossed a
    guard (``guarded``: ``--max-util-drop``, ``--max-group-ratio``)."""
    failed = False
    if fail_worse_than is not None and worse:
        typer.echo(f"worse than EASY by more than {fail_worse_than:g} % on: {', '.join(worse)}", err=True)
        failed = True
    if guarded:
        typer.echo(f"beyond the collateral guards: {'; '.join(guarded)}", err=True)
        failed = True
    if failed:
        raise typer.Exit(1)
