"""Plots of simulated schedules: utilisation and queue length over time, a Gantt chart of a time
window, and the wait distribution per user group (the views Batsim/evalys and Slurm-simulator
users look at). Input is the per-job table of :func:`schedlab.metrics.per_job.job_table` (or the
CSV/Parquet that ``simulate --schedule-out`` writes); several schedules of the same trace are
drawn together (e.g. EASY against an evolved strategy). Every file is written atomically.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .._atomic import atomic_write_text, save_figure_atomic

__all__ = ["binned_level", "processor_runs", "default_window", "write_schedule_plots", "read_schedule_table", "PLOT_FILES"]

#: the files :func:`write_schedule_plots` writes
PLOT_FILES = ("utilisation.png", "gantt.png", "waits.png", "plots.html")
_DAY = 86400.0


def binned_level(times: np.ndarray, deltas: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Time average over each bin [edges[i], edges[i+1]) of the step function that starts at 0
    and jumps by ``deltas[k]`` at ``times[k]`` (exact: the integral of a step function is
    piecewise linear between its jumps, so it is interpolated exactly at the bin edges)."""
    order = np.argsort(times, kind="stable")
    t = np.asarray(times, dtype=np.float64)[order]
    level = np.cumsum(np.asarray(deltas, dtype=np.float64)[order])
    # area under the curve at each jump time (level before the jump holds from t[k-1] to t[k])
    area = np.concatenate([[0.0], np.cumsum(level[:-1] * np.diff(t))]) if len(t) else np.zeros(0)
    edges = np.asarray(edges, dtype=np.float64)
    if len(t) == 0:
        return np.zeros(len(edges) - 1)
    idx = np.searchsorted(t, edges, side="right") - 1  # last jump at or before the edge
    at = np.where(idx >= 0, area[np.maximum(idx, 0)] + level[np.maximum(idx, 0)] * (edges - t[np.maximum(idx, 0)]), 0.0)
    return np.diff(at) / np.diff(edges)


def processor_runs(start: np.ndarray, finish: np.ndarray, procs: np.ndarray, m: int) -> list[list[tuple[int, int]]]:
    """A processor set for each job, for drawing: jobs in start order take the lowest free rows.

    Any schedule with at most m processors busy at every instant gets a valid assignment (jobs
    finishing at t free their rows before jobs starting at t take them). Returns, per job in
    input order, the contiguous runs ``(first row, count)`` it occupies. The free rows are kept
    as a sorted list of intervals, so memory grows with the jobs drawn, not with m (a machine of
    10^9 processors draws like one of 100).
    """
    import bisect
    import heapq

    free: list[list[int]] = [[0, int(m)]]  # sorted, disjoint, non-adjacent [first, end) intervals
    out: list[list[tuple[int, int]]] = [[] for _ in range(len(start))]
    running: list[tuple[float, int]] = []

    def release(first: int, count: int) -> None:
        end = first + count
        i = bisect.bisect_left(free, [first, end])
        if i > 0 and free[i - 1][1] == first:  # joins the interval before it
            i -= 1
            free[i][1] = end
        else:
            free.insert(i, [first, end])
        if i + 1 < len(free) and free[i + 1][0] == free[i][1]:  # and the one after it
            free[i][1] = free.pop(i + 1)[1]

    for j in np.lexsort((finish, start)):
        while running and running[0][0] <= start[j]:
            _, k = heapq.heappop(running)
            for first, count in out[k]:
                release(first, count)
        need, runs = int(procs[j]), []
        while need > 0 and free:
            first, end = free[0]
            take = min(need, end - first)
            runs.append((first, take))
            need -= take
            if take == end - first:
                free.pop(0)
            else:
                free[0][0] = first + take
        out[j] = runs
        heapq.heappush(running, (float(finish[j]), int(j)))
    return out


def default_window(table, days: float = 2.0) -> tuple[float, float]:
    """``days`` days starting at the median submit time (a busy, representative stretch)."""
    t0 = float(np.median(table["submit"]))
    return t0, t0 + days * _DAY


def read_schedule_table(path: str | Path):
    """A schedule written by ``simulate --schedule-out`` (CSV or Parquet) as a DataFrame; a clear
    one-line error when it is not one."""
    import pandas as pd

    from ..errors import WorkloadError

    path = Path(path)
    try:
        df = pd.read_parquet(path) if path.suffix.lower() == ".parquet" else pd.read_csv(path)
    except FileNotFoundError:
        raise WorkloadError(f"{path}: no such file") from None
    except Exception as exc:  # pandas/pyarrow parse errors
        raise WorkloadError(f"{path}: not a schedule table: {str(exc).splitlines()[0]}") from None
    need = {"submit", "start", "finish", "procs"}
    if not need <= set(df.columns):
        raise WorkloadError(f"{path}: not a schedule table (needs columns {', '.join(sorted(need))}; write one with simulate --schedule-out)")
    if "group" not in df.columns:
        df["group"] = 0
    if "wait" not in df.columns:
        df["wait"] = df["start"] - df["submit"]
    return df


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _resource_lines(t, m: int) -> list[tuple[str, str, np.ndarray, float]]:
    """(name, unit, per-job amount, capacity) of each resource line a table gets: the allocated CPUs,
    GPUs and memory of a run that allocated nodes (its ``attrs["capacity"]``,
    :func:`schedlab.metrics.per_job.job_table`), else the jobs' processors against ``m``."""
    from ..metrics.resources import ALLOC_COLUMNS

    capacity = getattr(t, "attrs", {}).get("capacity") or {}
    lines = [(what, unit, t[col].to_numpy(dtype=np.float64), float(capacity[col]))
             for _, col, what, unit in ALLOC_COLUMNS if col in capacity and col in t.columns]
    return lines or [("CPUs", "processors", t["procs"].to_numpy(dtype=np.float64), float(m))]


_STYLES = {"CPUs": "-", "GPUs": "--", "memory": ":"}


def utilisation_figure(tables: Mapping[str, object], m: int, path: Path, *, bins: int = 300) -> None:
    """Utilisation (% of m busy) and queue length (jobs submitted, not started) over time, binned.
    A schedule that allocated nodes (issue 47) draws a line per resource, CPUs, GPUs and memory, each
    in percent of the nodes' total (solid, dashed, dotted); any other the processors in % of m, as before."""
    plt = _plt()
    lo = min(float(t["submit"].min()) for t in tables.values())
    hi = max(float(t["finish"].max()) for t in tables.values())
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    mid = (edges[:-1] + edges[1:]) / 2 / _DAY
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    per_resource = False
    for i, (label, t) in enumerate(tables.items()):
        start, finish = (t[c].to_numpy(dtype=np.float64) for c in ("start", "finish"))
        lines = _resource_lines(t, m)
        if lines[0][1] != "processors":
            per_resource = True
            for what, unit, amount, cap in lines:
                busy = binned_level(np.concatenate([start, finish]), np.concatenate([amount, -amount]), edges)
                ax1.plot(mid, 100.0 * busy / cap, color=f"C{i}", lw=1, ls=_STYLES[what],
                         label=f"{label}: {what} (of {cap:,.0f} {unit})")
        else:
            procs = lines[0][2]
            busy = binned_level(np.concatenate([start, finish]), np.concatenate([procs, -procs]), edges)
            ax1.plot(mid, 100.0 * busy / m, color=f"C{i}", lw=1, label=label)
        submit = t["submit"].to_numpy(dtype=np.float64)
        ones = np.ones(len(submit))
        queue = binned_level(np.concatenate([submit, start]), np.concatenate([ones, -ones]), edges)
        ax2.plot(mid, queue, color=f"C{i}", lw=1, label=label)
    ax1.set_ylabel("utilisation [% of each resource]" if per_resource else "utilisation [% of m]")
    ax1.set_ylim(0, 105)
    ax2.set_ylabel("queued jobs")
    ax2.set_xlabel("days since trace start")
    ax1.set_title(f"Utilisation and queue length ({bins} time bins of {(edges[1] - edges[0]) / 3600:.1f} h, averages)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="upper right")
    save_figure_atomic(fig, path, dpi=90, bbox_inches="tight")
    plt.close(fig)


def gantt_figure(tables: Mapping[str, object], m: int, path: Path, window: tuple[float, float]) -> None:
    """Jobs as boxes of processors x time inside ``window`` (seconds), coloured by user group."""
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    plt = _plt()
    t0, t1 = window
    n = len(tables)
    fig, axes = plt.subplots(n, 1, figsize=(8, 2.6 * n + 0.6), sharex=True, squeeze=False)
    colours = {g: f"C{g}" for g in range(6)}
    for ax, (label, t) in zip(axes[:, 0], tables.items()):
        sel = (t["start"] < t1) & (t["finish"] > t0)
        sub = t[sel]
        rows = processor_runs(sub["start"].to_numpy(float), sub["finish"].to_numpy(float), sub["procs"].to_numpy(int), m)
        polys, faces = [], []
        for s, f, g, r in zip(sub["start"].to_numpy(float), sub["finish"].to_numpy(float), sub["group"].to_numpy(int), rows):
            x0, x1 = (max(s, t0) - t0) / 3600, (min(f, t1) - t0) / 3600
            for first, count in r:
                polys.append([(x0, first), (x1, first), (x1, first + count), (x0, first + count)])
                faces.append(colours.get(int(g), "0.5"))
        ax.add_collection(PolyCollection(polys, facecolors=faces, edgecolors="k", linewidths=0.2))
        ax.set_xlim(0, (t1 - t0) / 3600)
        ax.set_ylim(0, m)
        ax.set_ylabel("processor")
        ax.set_title(f"{label}: {int(sel.sum())} jobs in the window", fontsize="medium")
    axes[-1, 0].set_xlabel(f"hours after t = {t0 / _DAY:.2f} days")
    handles = [Patch(color=colours[g], label=f"group {g}" if g else "no group") for g in range(6)]
    fig.legend(handles=handles, loc="upper center", ncol=6, fontsize="small")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (2.6 * n + 0.6)))
    save_figure_atomic(fig, path, dpi=90)
    plt.close(fig)


#: the sets waits.png shows a panel of beside the user groups, when every table has the column
#: (:func:`schedlab.metrics.resources.job_resource_columns`): column, what the panel calls a set
WAIT_SETS: tuple[tuple[str, str], ...] = (("partition", "partition"), ("qos", "QOS"))


def _wait_panels(tables: Mapping[str, object]) -> list[tuple[str, str, list, list[str]]]:
    """(title, column, keys, tick labels) of each panel of :func:`waits_figure`."""
    groups = sorted({int(g) for t in tables.values() for g in np.unique(t["group"])})
    panels = [("Wait per user group", "group", groups, [f"group {g}" if g else "no group" for g in groups])]
    for col, what in WAIT_SETS:
        if all(col in t.columns for t in tables.values()):
            keys = sorted({str(k) for t in tables.values() for k in t[col].unique() if str(k)})
            if keys:
                panels.append((f"Wait per {what}", col, keys, [f"{what} {k}" for k in keys]))
    return panels


def waits_figure(tables: Mapping[str, object], path: Path) -> None:
    """Box plots of the wait per user group (hours, whiskers at the 5th/95th percentiles, mean as a dot);
    a run with resources whose tables name partitions or QOS (issue 47) gets a panel per partition and
    per QOS below it (:data:`WAIT_SETS`)."""
    plt = _plt()
    panels = _wait_panels(tables)
    n = len(tables)
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 4 * len(panels)), squeeze=False)
    width = 0.8 / n
    for ax, (heading, col, keys, ticks) in zip(axes[:, 0], panels):
        for i, (label, t) in enumerate(tables.items()):
            column = t[col] if col == "group" else t[col].astype(str)
            data = [t["wait"][column == k].to_numpy(float) / 3600 for k in keys]
            pos = [k + (i - (n - 1) / 2) * width for k in range(len(keys))]
            if col != "group":  # (a set without jobs in this schedule: an empty box, not an error)
                data = [d if len(d) else np.array([np.nan]) for d in data]
            bp = ax.boxplot(data, positions=pos, widths=width * 0.9, whis=(5, 95), showfliers=False, showmeans=True,
                            patch_artist=True, medianprops={"color": "k"}, meanprops={"marker": "o", "markerfacecolor": "white", "markeredgecolor": "k", "markersize": 4})
            for box in bp["boxes"]:
                box.set_facecolor(f"C{i}")
                box.set_alpha(0.6)
            ax.plot([], [], color=f"C{i}", lw=6, alpha=0.6, label=label)
        ax.set_xticks(range(len(keys)), ticks)
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("wait [h] (symlog)")
        ax.set_title(f"{heading} (box: quartiles, whiskers: 5th-95th percentile, o: mean)")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize="small")
    save_figure_atomic(fig, path, dpi=90, bbox_inches="tight")
    plt.close(fig)


def _summary_rows(tables: Mapping[str, object], m: int) -> str:
    from ..metrics.per_job import table_summary

    rows = []
    for label, t in tables.items():
        v = table_summary(t, m)
        rows.append(f"<tr><td>{html.escape(label)}</td><td>{int(v['jobs']):,}</td><td>{v['UTIL']:.2f}</td><td>{v['mean_wait']:,.0f}</td>"
                    f"<td>{v['p95_wait']:,.0f}</td><td>{v['max_wait']:,.0f}</td></tr>")
    return "".join(rows)


def _resource_rows(tables: Mapping[str, object], m: int) -> str:
    """plots.html's table of utilisation per resource (CPU_UTIL, GPU_UTIL, MEM_UTIL as
    :func:`schedlab.metrics.resources.resource_utilisation`: amount x time / (capacity x span)) of the
    schedules that allocated nodes; '' when none did (the page as before)."""
    rows = []
    for label, t in tables.items():
        lines = _resource_lines(t, m)
        if lines[0][1] == "processors":
            continue
        start, finish = (t[c].to_numpy(dtype=np.float64) for c in ("start", "finish"))
        span = float(finish.max() - start.min())
        cells = {what: 100.0 * float((amount * (finish - start)).sum()) / (cap * span) if span > 0 else float("nan")
                 for what, _, amount, cap in lines}
        rows.append(f"<tr><td>{html.escape(label)}</td>"
                    + "".join(f"<td>{cells[w]:.2f}</td>" if w in cells else "<td></td>" for w in _STYLES) + "</tr>")
    if not rows:
        return ""
    return ("<h2>Utilisation per resource</h2><table><tr><th>schedule</th><th>CPU %</th><th>GPU %</th><th>memory %</th></tr>"
            + "".join(rows) + "</table>\n")


def write_schedule_plots(
    tables: Mapping[str, object],
    m: int,
    out_dir: str | Path,
    *,
    title: str = "",
    window: tuple[float, float] | None = None,
    prefix: str = "",
) -> list[Path]:
    """Write utilisation.png, gantt.png, waits.png and plots.html into ``out_dir``; return the paths.

    ``tables`` maps a label (e.g. ``easy``) to a per-job table of one schedule; ``window`` is the
    Gantt chart's time window in seconds (default: :func:`default_window` of the first table);
    ``prefix`` is put before every file name (several sets in one folder).
    """
    from .._atomic import make_folder

    out = make_folder(out_dir, "plots")
    if not tables or any(len(t) == 0 for t in tables.values()):
        from ..errors import WorkloadError

        raise WorkloadError("nothing to plot: a schedule without jobs")
    first = next(iter(tables.values()))
    window = window or default_window(first)
    names = [prefix + f for f in PLOT_FILES]
    utilisation_figure(tables, m, out / names[0])
    gantt_figure(tables, m, out / names[1], window)
    waits_figure(tables, out / names[2])
    waits_heading = "Wait per " + ", ".join(p[0][len("Wait per "):] for p in _wait_panels(tables))
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title or 'schedule plots')}</title>
<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}</style></head><body>
<h1>{html.escape(title or 'Schedule plots')}</h1>
<table><tr><th>schedule</th><th>jobs</th><th>UTIL %</th><th>mean wait s</th><th>p95 wait s</th><th>max wait s</th></tr>
{_summary_rows(tables, m)}</table>
{_resource_rows(tables, m)}<h2>Utilisation and queue length</h2><img src="{names[0]}" alt="utilisation">
<h2>Gantt chart, {window[0] / _DAY:.2f} to {window[1] / _DAY:.2f} days</h2><img src="{names[1]}" alt="gantt">
<h2>{waits_heading}</h2><img src="{names[2]}" alt="waits">
</body></html>
"""
    atomic_write_text(out / names[3], page)
    return [out / n for n in names]


def plots_section(names: Sequence[str], heading: str) -> str:
    """An HTML fragment embedding the three figures of :func:`write_schedule_plots`."""
    imgs = "".join(f'<img src="{html.escape(n)}" alt="{html.escape(n)}"><br>' for n in names if n.endswith(".png"))
    return f"<h2>{html.escape(heading)}</h2>{imgs}"


def plot_schedules(schedules: Mapping[str, object], out_dir: str | Path, *, title: str = "",
                   window: tuple[float, float] | None = None, prefix: str = "", procs: int | None = None) -> list[Path]:
    """:func:`write_schedule_plots` of simulated schedules (label -> :class:`schedlab.sim.model.Schedule`,
    drawn together: the same trace, e.g. EASY against an evolved strategy) on the widest of their
    machines (or on ``procs``); what :meth:`schedlab.sim.model.Schedule.plot` and the face's
    ``sl.plot_schedules`` call. Returns the paths written."""
    from ..metrics.per_job import job_table

    tables = {label: job_table(s) for label, s in schedules.items()}
    m = procs if procs is not None else max(int(s.machine.procs) for s in schedules.values())
    return write_schedule_plots(tables, m, out_dir, title=title, window=window, prefix=prefix)
