"""report.html of a ``grid pareto`` run: the front, the hypervolume curve, the table of points,
where each exchange heuristic lies, and schedule plots per site (no exchange vs RQ)."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._atomic import atomic_write_text
from .schedule_plots import plots_section

__all__ = ["write_grid_report"]


def _md_table(md: str) -> str:
    """The Markdown table of points.md as HTML."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in md.splitlines() if line.startswith("|")]
    rows = [r for r in rows if not all(set(c) <= {"-"} for c in r)]
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


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
