"""Figures of an offline-bound run: the front's projection with strategies placed on it, and the
hypervolume curve (greedy-es-sorting-criteria Figs. 4-5, genetic-fuzzy-rule-based-scheduling Fig. 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .._atomic import save_figure_atomic
from .run_report import integer_steps

HOUR = 3600.0
#: axis labels per objective (AWRT in hours in the figures)
LABELS = {"UTIL": "UTIL (%)", "AWRT": "AWRT (h)", **{f"AWRT{i}": f"AWRT{i} (h)" for i in range(1, 6)}}


def _scale(name: str) -> float:
    return 1.0 if name == "UTIL" else 1.0 / HOUR


def front_figure(front: np.ndarray, columns: Sequence[str], x: str, y: str, placed: Mapping[str, Mapping[str, float]],
                 path: Path, *, title: str, floors: Mapping[str, float] | None = None) -> Path:
    """Scatter of every front schedule in the (x, y) projection, each placed strategy as a marker,
    the zero-wait floors of x and y as dashed lines (``floors``); with strategies, a second panel
    zoomed on them (their box widened by 60 % of its size, at least 10 % of their values)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ix, iy = columns.index(x), columns.index(y)
    sx, sy = _scale(x), _scale(y)
    panels = 2 if placed else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 5), squeeze=False)
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    for p, ax in enumerate(axes[0]):
        ax.scatter(front[:, ix] * sx, front[:, iy] * sy, s=6, color="0.6",
                   label=f"offline front ({len(front)} schedules, 7-D non-dominated)")
        for k, (name, metrics) in enumerate(placed.items()):
            ax.scatter([metrics[x] * sx], [metrics[y] * sy], s=70, marker=markers[k % len(markers)],
                       color=f"C{k}", edgecolor="black", zorder=3, label=name)
        drawn = [name for name in (x, y) if floors and name in floors]
        for name in drawn:
            (ax.axvline if name == x else ax.axhline)(
                floors[name] * _scale(name), color="black", linestyle="--", linewidth=0.8,
                label=f"zero-wait floor ({', '.join(drawn)})" if name == drawn[0] else None)
        ax.set_xlabel(LABELS.get(x, x))
        ax.set_ylabel(LABELS.get(y, y))
        ax.grid(alpha=0.3)
        if p == 0:
            ax.set_title(title, fontsize="medium")
            ax.legend(fontsize="small")
        else:
            pts = np.array([[m[x] * sx, m[y] * sy] for m in placed.values()])
            lo, hi = pts.min(axis=0), pts.max(axis=0)
            pad = np.maximum(0.6 * (hi - lo), 0.1 * np.abs(hi))
            ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
            ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
            ax.set_title("zoom on the placed strategies", fontsize="medium")
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def hypervolume_figure(history: Sequence[Mapping[str, Any]], path: Path, *, setup: str = "") -> Path:
    """Hypervolume share of the archive per generation; ``setup`` (the trace and its options) heads the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r["gen"] for r in history], [r["hypervolume"] for r in history], marker=".")
    ax.set_xlabel("generation")
    integer_steps(ax)
    ax.set_ylabel("hypervolume share of the box")
    ax.set_title(f"{setup + ': ' if setup else ''}offline front, hypervolume\n(7 objectives, Monte-Carlo, fixed points)",
                 fontsize="medium")
    ax.grid(alpha=0.3)
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
