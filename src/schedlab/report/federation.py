"""Tables and figures of a federation comparison (slowdown-guided-ga-federation, Figs. 1, 4, 5).

Input rows: one per (package size, workload, method) with ``makespan`` (summed over packages) and
``seconds`` (GA time cost, or the heuristic's run time), and in runs made since it was recorded
``cpu_seconds`` (its process CPU time: the GA time cost on a shared machine).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ORDER = ("jpr", "cbs", "metl", "ga-random", "ga-metl")
LABEL = {"jpr": "JPR", "cbs": "CBS", "metl": "METL", "ga-random": "GA-Random", "ga-metl": "GA-METL"}


def _methods(rows: Sequence[dict[str, Any]]) -> list[str]:
    present = {r["method"] for r in rows}
    return [m for m in ORDER if m in present]


def _workloads(rows: Sequence[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        if r["workload"] not in seen:
            seen.append(r["workload"])
    return seen


def _save(fig, path: str | Path) -> None:
    """Write a figure as PNG atomically and close it; the canvas grows to hold the title and legends."""
    import matplotlib.pyplot as plt

    from .._atomic import save_figure_atomic

    fig.tight_layout()
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _title(ax, title: str) -> None:
    """The axes' title, wrapped to the figure's width (a long platform or trace name is never cut off)."""
    import textwrap

    ax.set_title(textwrap.fill(title, width=max(40, int(ax.figure.get_figwidth() * 9))))


def comparison_table_md(rows: Sequence[dict[str, Any]]) -> str:
    """Markdown: per package size, makespan (s) per workload and method, GA seconds, and % vs METL."""
    out = []
    for size in sorted({r["package_size"] for r in rows}):
        sub = [r for r in rows if r["package_size"] == size]
        methods, wks = _methods(sub), _workloads(sub)
        get = {(r["workload"], r["method"]): r for r in sub}
        ga = [m for m in methods if m.startswith("ga")]
        cpu = [m for m in ga if any("cpu_seconds" in r for r in sub if r["method"] == m)]
        head = ["workload", *(f"{LABEL[m]} makespan (s)" for m in methods), *(f"{LABEL[m]} time (s)" for m in ga),
                *(f"{LABEL[m]} CPU (s)" for m in cpu)]
        if "metl" in methods:
            head += [f"{LABEL[m]} vs METL (%)" for m in ga]
        out.append(f"### packages of {size} jobs\n")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for wk in wks:
            cells = [wk]
            cells += [f"{get[(wk, m)]['makespan']:,.0f}" if (wk, m) in get else "-" for m in methods]
            cells += [f"{get[(wk, m)]['seconds']:,.1f}" if (wk, m) in get else "-" for m in ga]
            cells += [f"{get[(wk, m)]['cpu_seconds']:,.1f}" if "cpu_seconds" in get.get((wk, m), {}) else "-" for m in cpu]
            if "metl" in methods:
                for m in ga:
                    if (wk, m) in get and (wk, "metl") in get:
                        base = get[(wk, "metl")]["makespan"]
                        cells.append(f"{100.0 * (get[(wk, m)]['makespan'] - base) / base:+.1f}")
                    else:
                        cells.append("-")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out.append("Negative % = shorter makespan than METL. time = GA wall time, CPU = its process CPU time.")
    return "\n".join(out) + "\n"


def plot_makespan(path: str | Path, rows: Sequence[dict[str, Any]], title: str, *,
                  ylabel: str = "makespan (hours, summed over packages)") -> None:
    """Grouped bars: makespan per workload (x) and method (bars), as the paper's Figs. 4-5; the x
    groups are the rows' ``workload`` labels (e.g. the packages of one run)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods, wks = _methods(rows), _workloads(rows)
    get = {(r["workload"], r["method"]): r["makespan"] for r in rows}
    x = np.arange(len(wks))
    width = 0.8 / max(1, len(methods))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(wks) + 2), 4.2))
    for i, m in enumerate(methods):
        vals = [get.get((wk, m), np.nan) / 3600.0 for wk in wks]
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, vals, width, label=LABEL[m])
    ax.set_xticks(x, wks)
    ax.set_ylabel(ylabel)
    _title(ax, title)
    ax.legend(ncol=min(5, len(methods)), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08))  # covers no bar
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)


def plot_by_package_size(path: str | Path, rows: Sequence[dict[str, Any]], title: str) -> None:
    """The paper's Fig. 1: GA makespan (bars, mean over workloads) and GA time (lines) per package size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ga = [m for m in _methods(rows) if m.startswith("ga")]
    sizes = sorted({r["package_size"] for r in rows})
    x = np.arange(len(sizes))
    width = 0.8 / max(1, len(ga))
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    ax2 = ax.twinx()
    for i, m in enumerate(ga):
        mk = [np.mean([r["makespan"] for r in rows if r["method"] == m and r["package_size"] == s]) / 3600.0 for s in sizes]
        sec = [np.mean([r.get("cpu_seconds", r["seconds"]) for r in rows if r["method"] == m and r["package_size"] == s])
               for s in sizes]
        ax.bar(x + (i - (len(ga) - 1) / 2) * width, mk, width, label=f"{LABEL[m]} makespan", color=f"C{i}", alpha=0.75)
        ax2.plot(x, sec, marker="o", label=f"{LABEL[m]} time", color=f"C{i}", linewidth=2)
    ax.set_xticks(x, [f"{s} jobs" for s in sizes])
    ax.set_xlabel("package size")
    ax.set_ylabel("makespan (hours, mean over workloads)")
    ax2.set_ylabel("GA time per workload (s; CPU where recorded)")
    _title(ax, title)
    ax2.set_ylim(0, None)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4)
    _save(fig, path)


def write_comparison_report(out: str | Path, rows: Sequence[dict[str, Any]], config: Mapping[str, Any],
                            package_sizes: Sequence[int], platform: str) -> None:
    """table.md and the figures of a federation comparison in folder ``out``: ``rows`` as
    :func:`schedlab.optimize.federation_run.compare_federation` returns them, ``config`` its base
    run config (the trace, ``jobs`` per window and the trace options), ``platform`` the platform's name."""
    from .._atomic import atomic_write_text
    from .run_report import titled, trace_label

    out = Path(out)
    atomic_write_text(out / "table.md", comparison_table_md(rows))
    trace = titled(trace_label(config["trace"]), config)  # the trace and its --months etc.
    for size in package_sizes:
        sub = [r for r in rows if r["package_size"] == size]
        if not sub:
            continue
        plot_makespan(out / f"makespan_p{size}.png", sub,
                      f"{trace}: makespan per workload of {config['jobs']:,} jobs, packages of {size} jobs, on {platform}")
    if len({r["package_size"] for r in rows if r["method"].startswith("ga")}) > 1:
        plot_by_package_size(out / "ga_by_package_size.png", rows,
                             f"{trace}: GA makespan (bars) and GA time (lines) by package size")
