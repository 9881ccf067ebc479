"""Figures of an offline-bound run: the front's projection with strategies placed on it, and the
hypervolume curve (greedy-es-sorting-criteria Figs. 4-5, genetic-fuzzy-rule-based-scheduling Fig. 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .._atomic import save_figure_atomic

HOUR = 3600.0
#: axis labels per objective (AWRT in hours in the figures)
LABELS = {"UTIL": "UTIL (%)", "AWRT": "AWRT (h)", **{f"AWRT{i}": f"AWRT{i} (h)" for i in range(1, 6)}}


def _scale(name: str) -> float:
    return 1.0 if name == "UTIL" else 1.0 / HOUR


def front_figure(front: np.ndarray, columns: Sequence[str], x: str, y: str, placed: Mapping[str, Mapping[str, float]],
                 path: Path, *, title: str) -> Path:
    """Scatter of every front schedule in the (x, y) projection, each placed strategy as a marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ix, iy = columns.index(x), columns.index(y)
    fig, ax = plt.subplots(figsize=(6.5, 5))
    ax.scatter(front[:, ix] * _scale(x), front[:, iy] * _scale(y), s=6, color="0.6",
               label=f"offline front ({len(front)} schedules, 7-D non-dominated)")
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    for k, (name, metrics) in enumerate(placed.items()):
        ax.scatter([metrics[x] * _scale(x)], [metrics[y] * _scale(y)], s=70, marker=markers[k % len(markers)],
                   color=f"C{k}", edgecolor="black", zorder=3, label=name)
    ax.set_xlabel(LABELS.get(x, x))
    ax.set_ylabel(LABELS.get(y, y))
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def hypervolume_figure(history: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Hypervolume share of the archive per generation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r["gen"] for r in history], [r["hypervolume"] for r in history], marker=".")
    ax.set_xlabel("generation")
    ax.set_ylabel("hypervolume share of the box")
    ax.set_title("Offline front: hypervolume (7 objectives, Monte-Carlo, fixed points)", fontsize="medium")
    ax.grid(alpha=0.3)
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
