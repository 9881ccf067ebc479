"""Tables of metric rows: a Rich table for the terminal and a CSV file (written atomically).

A *row* is ``(label, values)``: a label such as ``easy`` or ``conservative/estimate`` and a
mapping of column name -> number | None (a :class:`schedlab.metrics.Metrics`, maybe extended
with ``objective`` and ``sim_seconds``). Used by ``schedlab simulate`` and ``schedlab compare``.
"""

from __future__ import annotations

import csv
import html
import io
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.table import Table

from .._atomic import atomic_write_text
from ..metrics import METRIC_NAMES

Row = tuple[str, Mapping[str, float | None]]

#: the columns a comparison table shows by default (jobs/procs go in the title)
DEFAULT_COLUMNS: tuple[str, ...] = tuple(n for n in METRIC_NAMES if n not in ("jobs", "procs")) + (
    "objective",
    "sim_seconds",
)

#: short column headings for the terminal
HEADINGS: dict[str, str] = {
    "UTIL": "UTIL %",
    "CPU_UTIL": "CPU %",
    "GPU_UTIL": "GPU %",
    "MEM_UTIL": "mem %",
    "AWRT": "AWRT s",
    **{f"AWRT{i}": f"AWRT{i} s" for i in range(1, 6)},
    "AWWT": "AWWT s",
    "mean_wait": "wait s",
    "mean_response": "resp. s",
    "mean_slowdown": "slowdown",
    "mean_bounded_slowdown": "bnd. sld.",
    "makespan": "makespan s",
    "p95_wait": "p95 wait s",
    "max_wait": "max wait s",
    "max_user_AWRT": "max user AWRT s",
    "mean_user_AWRT": "mean user AWRT s",
    "objective": "objective",
    "vs_easy_pct": "vs EASY %",
    "vs_easy_diff": "vs EASY diff",
    "UTIL_diff_points": "UTIL vs EASY pts",
    "worst_group_awrt_ratio": "worst group x EASY",
    "sim_seconds": "sim s",
}

#: columns where a higher value is better (all others: lower is better)
HIGHER_IS_BETTER: frozenset[str] = frozenset({"UTIL", "CPU_UTIL", "GPU_UTIL", "MEM_UTIL", "vs_easy_pct", "UTIL_diff_points"})
#: columns that are not compared across rows
NOT_RANKED: frozenset[str] = frozenset({"jobs", "procs", "makespan", "sim_seconds"})


def fixed(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals and thousands separators, never a negative zero: a value that
    rounds to zero (e.g. a UTIL difference of -1e-14 points) prints as 0.00, not -0.00."""
    text = f"{value:,.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def format_value(name: str, value: float | None) -> str:
    """A metric value as a short human string: seconds to whole seconds, ratios to 2 decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if name in ("jobs", "procs"):
        return f"{int(value):,}"
    if name == "sim_seconds":
        return fixed(value, 3) if value < 10 else fixed(value, 1)
    if name in ("UTIL", "CPU_UTIL", "GPU_UTIL", "MEM_UTIL", "mean_slowdown", "mean_bounded_slowdown", "UTIL_diff_points", "worst_group_awrt_ratio"):
        return fixed(value)
    if abs(value) >= 100:
        return fixed(value, 0)
    return fixed(value)


def _best(rows: Sequence[Row], name: str) -> float | None:
    values = [v[name] for _, v in rows if v.get(name) is not None]
    if len(values) < 2 or name in NOT_RANKED:
        return None
    return max(values) if name in HIGHER_IS_BETTER else min(values)


def metrics_table(
    rows: Sequence[Row],
    *,
    columns: Sequence[str] = DEFAULT_COLUMNS,
    title: str | None = None,
    label: str = "strategy",
    caption: str | None = None,
) -> Table:
    """A Rich table, one row per ``(label, values)``, the best value of each column in bold green."""
    present = [c for c in columns if any(c in v for _, v in rows)]
    table = Table(title=title, caption=caption, header_style="bold", title_style="bold", row_styles=["", "dim"] if len(rows) > 4 else None)
    table.add_column(label, style="cyan", no_wrap=True)
    for name in present:
        table.add_column(HEADINGS.get(name, name), justify="right", no_wrap=True)
    best = {name: _best(rows, name) for name in present}
    for row_label, values in rows:
        cells = [row_label]
        for name in present:
            value = values.get(name)
            text = format_value(name, value)
            if value is not None and best[name] is not None and value == best[name]:
                text = f"[bold green]{text}[/]"
            cells.append(text)
        table.add_row(*cells)
    return table


def metrics_csv(rows: Sequence[Row], *, columns: Sequence[str] = DEFAULT_COLUMNS, label: str = "strategy") -> str:
    """The rows as CSV text: a header ``label, columns...`` and full-precision numbers (empty = undefined)."""
    present = [c for c in columns if any(c in v for _, v in rows)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([label, *present])
    for row_label, values in rows:
        writer.writerow([row_label, *(_csv_number(c, values.get(c)) for c in present)])
    return out.getvalue()


#: columns that count things: written as whole numbers (28467, not 28467.0)
COUNT_COLUMNS = frozenset({"jobs", "procs"})


def _csv_number(name: str, value) -> str:
    """Full precision (repr) for measures, a whole number for counts, empty for undefined."""
    if value is None:
        return ""
    if name in COUNT_COLUMNS and float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see :mod:`schedlab._atomic`)."""
    return atomic_write_text(path, text)


def write_metrics_csv(path: str | os.PathLike, rows: Sequence[Row], *, columns: Sequence[str] = DEFAULT_COLUMNS,
                      label: str = "strategy") -> Path:
    """Write :func:`metrics_csv` of ``rows`` to ``path`` atomically."""
    return write_text_atomic(path, metrics_csv(rows, columns=columns, label=label))


def html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of text cells (escaped), for the run reports."""
    th = "".join(f"<th>{html.escape(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{th}</tr>{body}</table>"


def gain_text(row: Mapping[str, object], digits: int = 2) -> str:
    """The objective's gain over EASY as a table shows it: the % (:func:`schedlab.optimize.versus_easy.gain_pct`),
    or, when EASY's objective is 0 and no percentage exists, the difference value - EASY with its verdict
    ("worse +12.30", "better -3.00", "0.00")."""
    gain, diff = row.get("objective_improvement_pct"), row.get("objective_diff")
    if gain is not None:
        return fixed(gain, digits)
    if diff is None:
        return "-"
    return fixed(0.0, digits) if diff == 0 else f"{'worse' if diff > 0 else 'better'} {diff:+,.{digits}f}"
