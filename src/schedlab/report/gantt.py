"""A Gantt-style figure of a time-shared schedule: nodes over time for a window of a run.

Every execution interval of a job is drawn on each node of its node set (contiguous node runs
as one bar), coloured by the job's class; the background is shaded by the class of the slice
running at that time, switch overheads are grey. People check a time-sharing scheduler by looking
at it: a suspended job reappears on exactly the same rows, smart-backfilled jobs show up in
another class's slice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._atomic import save_figure_atomic

#: bar colours of the job classes and (lighter) shades of the slices: short, medium, long
JOB_COLOURS = ("#2ca02c", "#1f77b4", "#d62728")
SLICE_SHADES = ("#d9f2d9", "#d6e6f5", "#f7d9d9")
CLASS_NAMES = ("short", "medium", "long")


def _runs(nodes: np.ndarray):
    """Contiguous runs (first node, length) of a sorted node list."""
    nodes = np.sort(nodes)
    if nodes.size == 0:
        return []
    cut = np.flatnonzero(np.diff(nodes) != 1) + 1
    return [(int(part[0]), int(part.size)) for part in np.split(nodes, cut)]


def gantt_figure(schedule, t0: float, t1: float, path: str | Path, *, title: str | None = None, setup: str = "") -> Path:
    """Draw nodes (y) over time (x, hours from ``t0``) in [t0, t1) and write a PNG to ``path``; ``setup``
    (e.g. 'KTH-SP2 (first 1 months)') heads the default title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    ts = schedule.timeshare
    if ts is None:
        raise ValueError("gantt_figure needs a time-shared schedule (SCOJO-PECT)")
    if not t1 > t0:
        raise ValueError(f"empty window [{t0}, {t1})")
    m = int(schedule.machine.procs)
    hours = 3600.0
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for c, b, e in zip(ts.slice_class, ts.slice_begin, ts.slice_end):
        if e > t0 and b < t1:
            ax.axvspan((max(b, t0) - t0) / hours, (min(e, t1) - t0) / hours, color=SLICE_SHADES[c], lw=0)
    for b in ts.overheads:
        if b + ts.overhead > t0 and b < t1:
            ax.axvspan((max(b, t0) - t0) / hours, (min(b + ts.overhead, t1) - t0) / hours, color="#999999", lw=0)
    show = (ts.iv_end > t0) & (ts.iv_start < t1)
    bars: dict[int, list] = {0: [], 1: [], 2: []}
    for k in np.flatnonzero(show):
        j = ts.iv_job[k]
        a = (max(ts.iv_start[k], t0) - t0) / hours
        d = (min(ts.iv_end[k], t1) - t0) / hours - a
        for first, length in _runs(ts.nodes_of(j)):
            bars[int(ts.job_class[j])].append((a, d, first, length))
    for c, rows in bars.items():
        for a, d, first, length in rows:
            ax.broken_barh([(a, d)], (first, length), facecolors=JOB_COLOURS[c], edgecolors="black", linewidth=0.3)
    ax.set_xlim(0, (t1 - t0) / hours)
    ax.set_ylim(0, m)
    ax.set_xlabel(f"hours from t = {t0:,.0f} s")
    ax.set_ylabel("node")
    ax.set_title(title or f"{setup + ': ' if setup else ''}SCOJO-PECT, nodes over time "
                          f"({len(np.unique(ts.iv_job[show]))} jobs in the window)")
    handles = [Patch(facecolor=JOB_COLOURS[c], edgecolor="black", label=f"{CLASS_NAMES[c]} job") for c in range(3)]
    handles += [Patch(facecolor=SLICE_SHADES[c], label=f"{CLASS_NAMES[c]} slice") for c in range(3)]
    handles.append(Patch(facecolor="#999999", label="switch overhead"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    out = save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out
