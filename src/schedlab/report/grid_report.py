"""The report of a ``grid pareto`` run: the table of points (points.md), the front figure and the
hypervolume curve (:func:`write_front_report`), and report.html with them, where each exchange
heuristic lies, and schedule plots per site (no exchange vs RQ).

nsga2-grid-performance-bounds, Section 5.4 (Figures 3-6): the front of AWRT_1 vs AWRT_2 with the
no-exchange (EASY), POOL and RQ points and the *area of benefit* (between the origin and the
EASY point) shaded; plus the hypervolume of the front over the generations."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._atomic import atomic_write_text, save_figure_atomic
from .schedule_plots import plots_section
from .table import html_table

__all__ = ["write_front_report", "write_grid_report"]


def _md_table(md: str) -> str:
    """The Markdown table of points.md as HTML."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in md.splitlines() if line.startswith("|")]
    rows = [r for r in rows if not all(set(c) <= {"-"} for c in r)]
    if not rows:
        return ""
    return html_table(rows[0], rows[1:])


def write_grid_report(
    run_dir: str | Path,
    config: Mapping[str, Any],
    comparison: Mapping[str, Any],
    site_plots: Mapping[str, Sequence[str]],
) -> Path:
    """Write report.html into a grid pareto run folder (its figures and tables must be there)."""
    run_dir = Path(run_dir)
    points = (run_dir / "points.md").read_text() if (run_dir / "points.md").exists() else ""
    figures = "".join(f'<h2>{title}</h2><img src="{name}" alt="{name}">' for name, title in
                      (("front.png", "Pareto front of AWRT per site"), ("hypervolume.png", "Hypervolume per generation"))
                      if (run_dir / name).exists())
    sites = "".join(plots_section(names, f"Site {site}: no exchange (EASY) vs RQ") for site, names in site_plots.items())
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>schedlab grid pareto {html.escape(run_dir.name)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}pre{{background:#f6f6f6;padding:8px}}</style>
</head><body>
<h1>Grid Pareto front — {html.escape(str(config.get('grid', '')))}</h1>
{figures}
<h2>Reference heuristics and front points (points.md)</h2>{_md_table(points)}
<h2>Heuristics against the front (comparison.json)</h2><pre>{html.escape(json.dumps(dict(comparison), indent=2))}</pre>
{sites}
<h2>Config</h2><pre>{html.escape(json.dumps(dict(config), indent=2, sort_keys=True))}</pre>
</body></html>
"""
    path = run_dir / "report.html"
    atomic_write_text(path, page)
    return path


def reference_rows(references: dict[str, dict]) -> list[list]:
    """(policy, AWRT per site..., overall AWRT) rows of the EASY/POOL/RQ reference simulations."""
    return [[name, *(s["AWRT"] for s in ref["sites"]), ref["AWRT"]] for name, ref in references.items()]


def points_table_md(F: np.ndarray, references: dict[str, dict], names: Sequence[str]) -> str:
    """A Markdown table of all points: the reference heuristics, then every front point."""
    head = "| point | " + " | ".join(f"AWRT {n} (s)" for n in names) + " |\n"
    head += "|---|" + "---|" * len(names) + "\n"
    lines = [f"| {p} | " + " | ".join(f"{v:,.0f}" for v in vals[: len(names)]) + " |" for p, *vals in reference_rows(references)]
    lines += [f"| front {i + 1} | " + " | ".join(f"{v:,.0f}" for v in f) + " |" for i, f in enumerate(F)]
    return head + "\n".join(lines) + "\n"


def _save(fig, path) -> None:
    """Save a figure as PNG atomically."""
    save_figure_atomic(fig, path, dpi=120)


def plot_front(path, F: np.ndarray, references: dict[str, dict], names: Sequence[str], points=None) -> None:
    """Front AWRT_1 vs AWRT_2 with EASY, POOL and RQ marked and the area of benefit shaded (K = 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    easy = references.get("none")
    if easy is not None:
        e = [s["AWRT"] for s in easy["sites"]]
        ax.fill_between([0, e[0]], 0, e[1], color="tab:green", alpha=0.12, label="area of benefit")
    if points is not None and len(points):
        ax.scatter(points[:, 0], points[:, 1], s=3, color="0.8", label="evaluated (feasible)")
    if len(F):
        ax.plot(F[:, 0], F[:, 1], "o-", ms=3, lw=1, color="tab:blue", label="NSGA-II front")
    marks = {"none": ("s", "black", "EASY (no exchange)"), "pool": ("^", "tab:orange", "POOL"), "rq": ("D", "tab:red", "RQ")}
    for key, (marker, color, label) in marks.items():
        if key in references:
            a = [s["AWRT"] for s in references[key]["sites"]]
            ax.scatter([a[0]], [a[1]], marker=marker, s=60, color=color, zorder=5, label=label)
    ax.set_xlabel(f"AWRT {names[0]} (s)")
    ax.set_ylabel(f"AWRT {names[1]} (s)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(" + ".join(names))
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_hypervolume(path, history: Sequence[dict], ref: Sequence[float], names: Sequence[str] = ()) -> tuple[str, str]:
    """Hypervolume of the feasible front per generation (reference point ``ref``, an AWRT in seconds
    per site ``names``), titled and with its unit (issue 43: it had neither): the volume dominated in
    the space of the sites' AWRTs, in seconds to the power of the sites. Returns (title, y label)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(ref)
    title = (f"Hypervolume of the feasible front per generation{': ' + ' + '.join(names) if names else ''}\n"
             f"(space of the {k} sites' AWRT, reference point {', '.join(f'{v:,.0f}' for v in ref)} s)")
    ylabel = f"hypervolume (s{'^' + str(k) if k > 1 else ''})"
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot([r["gen"] for r in history], [r["hypervolume"] for r in history], color="tab:blue")
    ax.set_xlabel("generation")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return title, ylabel


def write_front_report(run_dir: str | Path, result: Any, references: dict[str, dict], names: Sequence[str],
                       limit: float) -> None:
    """``points.md`` (the reference and front points), ``front.png`` (two sites) and
    ``hypervolume.png`` of a grid Pareto run in ``run_dir``: ``result`` as
    :func:`schedlab.optimize.grid_pareto.pareto` returns it (``front_F``, ``points``, ``history``),
    ``references`` its references.json, ``names`` the sites, ``limit`` the AWRT limit (the
    hypervolume's reference point on every site). Also of a stopped run: the front so far."""
    run_dir = Path(run_dir)
    atomic_write_text(run_dir / "points.md", points_table_md(result.front_F, references, names))
    if len(names) == 2:
        pts = np.array([[p["AWRT_1"], p["AWRT_2"]] for p in result.points if p["feasible"]]).reshape(-1, 2)
        plot_front(run_dir / "front.png", result.front_F, references, names, points=pts)
    plot_hypervolume(run_dir / "hypervolume.png", result.history, [limit] * len(names), names)
