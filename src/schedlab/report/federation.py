"""Tables and figures of a federation comparison (slowdown-guided-ga-federation, Figs. 1, 4, 5).

Input rows: one per (package size, workload, method) with ``makespan`` (the workload's, under the
run's makespan reading: :func:`makespan_label`) and
``seconds`` (GA time cost, or the heuristic's run time), and in runs made since it was recorded
``cpu_seconds`` (its process CPU time: the GA time cost on a shared machine). The GA rows of a sweep
of the GA settings (Figs. 2-3) also hold ``generations`` and ``pop``: one row per setting.
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


#: a swept quantity (a key of the rows) -> x-axis label, tick label of a value, figure file name
SWEEPS = {
    "package_size": ("package size", "{} jobs", "ga_by_package_size.png"),
    "generations": ("generations (iterations; the initial population included)", "{}", "ga_by_generations.png"),
    "pop": ("population size", "{}", "ga_by_pop.png"),
}


def _sections(rows: Sequence[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(heading, rows) per package size, and within it per GA setting of a sweep (rows with
    ``generations``), each with the heuristics' rows of that size."""
    out = []
    for size in sorted({r["package_size"] for r in rows}):
        sub = [r for r in rows if r["package_size"] == size]
        settings = sorted({(r["generations"], r["pop"]) for r in sub if "generations" in r})
        if not settings:
            out.append((f"packages of {size} jobs", sub))
            continue
        fixed = [r for r in sub if "generations" not in r]
        for g, p in settings:
            out.append((f"packages of {size} jobs, {g} generations x population {p}",
                        fixed + [r for r in sub if (r.get("generations"), r.get("pop")) == (g, p)]))
    return out


def comparison_table_md(rows: Sequence[dict[str, Any]]) -> str:
    """Markdown: per package size (and GA setting of a sweep), makespan (s) per workload and method,
    GA seconds, and % vs METL."""
    out = []
    for heading, sub in _sections(rows):
        methods, wks = _methods(sub), _workloads(sub)
        get = {(r["workload"], r["method"]): r for r in sub}
        ga = [m for m in methods if m.startswith("ga")]
        cpu = [m for m in ga if any("cpu_seconds" in r for r in sub if r["method"] == m)]
        head = ["workload", *(f"{LABEL[m]} makespan (s)" for m in methods), *(f"{LABEL[m]} time (s)" for m in ga),
                *(f"{LABEL[m]} CPU (s)" for m in cpu)]
        if "metl" in methods:
            head += [f"{LABEL[m]} vs METL (%)" for m in ga]
        out.append(f"### {heading}\n")
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


def makespan_label(config: Mapping[str, Any]) -> str:
    """The y label of a workload makespan chart under the run's makespan reading (``options.makespan``
    of the run config, :class:`schedlab.federation.model.FederationOptions`): the paper's max F - min I
    over the workload's jobs, or the sum of the package makespans."""
    from ..federation.model import LEGACY

    options = config.get("options")
    # config.json leaves a reading out at its issue 14 value (FederationOptions.to_dict): absent is that value
    reading = options.get("makespan", LEGACY["makespan"]) if isinstance(options, Mapping) else getattr(options, "makespan", None)
    if reading == "package-sum":
        return "makespan (hours, summed over packages)"
    if reading == "workload":
        return "makespan (hours, max F - min I over the workload)"
    return "makespan (hours)"


def plot_makespan(path: str | Path, rows: Sequence[dict[str, Any]], title: str, *,
                  ylabel: str = "makespan (hours)") -> None:
    """Grouped bars: makespan per workload (x) and method (bars), as the paper's Figs. 4-5; the x
    groups are the rows' ``workload`` labels (e.g. the packages of one run). ``ylabel`` names the
    makespan reading when the caller knows it (:func:`makespan_label`)."""
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


def time_label(rows: Sequence[dict[str, Any]]) -> str:
    """What the GA time of ``rows`` is: process CPU (recorded by runs without worker processes) or wall time."""
    recorded = ["cpu_seconds" in r for r in rows]
    if all(recorded):
        return "GA process CPU time per workload (s)"
    if not any(recorded):
        return "GA wall time per workload (s)"
    return "GA time per workload (s; process CPU where recorded, else wall)"


def plot_ga_sweep(path: str | Path, rows: Sequence[dict[str, Any]], title: str, key: str = "package_size") -> None:
    """The paper's Figs. 1-3: GA makespan (bars, mean over workloads; primary axis) and GA time (lines,
    secondary axis: process CPU where the runs recorded it) against the swept ``key`` of the rows
    (:data:`SWEEPS`: package size, generations or population)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ga = [m for m in _methods(rows) if m.startswith("ga")]
    ga_rows = [r for r in rows if r["method"] in ga]
    values = sorted({r[key] for r in ga_rows})
    xlabel, tick, _ = SWEEPS[key]
    x = np.arange(len(values))
    width = 0.8 / max(1, len(ga))
    fig, ax = plt.subplots(figsize=(max(7.0, 0.9 * len(values) + 3), 4.6))
    ax2 = ax.twinx()
    for i, m in enumerate(ga):
        mk = [np.mean([r["makespan"] for r in ga_rows if r["method"] == m and r[key] == v]) / 3600.0 for v in values]
        sec = [np.mean([r.get("cpu_seconds", r["seconds"]) for r in ga_rows if r["method"] == m and r[key] == v])
               for v in values]
        ax.bar(x + (i - (len(ga) - 1) / 2) * width, mk, width, label=f"{LABEL[m]} makespan", color=f"C{i}", alpha=0.75)
        ax2.plot(x, sec, marker="o", label=f"{LABEL[m]} time", color=f"C{i}", linewidth=2)
    ax.set_xticks(x, [tick.format(v) for v in values])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("makespan (hours, mean over workloads)")
    ax2.set_ylabel(time_label(ga_rows))
    _title(ax, title)
    ax2.set_ylim(0, None)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4)
    _save(fig, path)


def write_comparison_report(out: str | Path, rows: Sequence[dict[str, Any]], config: Mapping[str, Any],
                            package_sizes: Sequence[int], platform: str) -> list[Path]:
    """table.md and the figures of a federation comparison in folder ``out``: ``rows`` as
    :func:`schedlab.optimize.federation_run.compare_federation` returns them, ``config`` its base
    run config (the trace, ``jobs`` per window and the trace options), ``platform`` the platform's name.
    Returns the files written.

    Figures: without a sweep of the GA settings, the makespan per workload of each package size
    (Figs. 4-5) and, for several sizes, the GAs by package size (Fig. 1); with one (rows holding
    ``generations``), the GAs by the swept setting (Figs. 2-3), one figure per package size."""
    from .._atomic import atomic_write_text
    from .run_report import titled, trace_label

    out = Path(out)
    atomic_write_text(out / "table.md", comparison_table_md(rows))
    written = [out / "table.md"]
    trace = titled(trace_label(config["trace"]), config)  # the trace and its --months etc.
    ga_rows = [r for r in rows if r["method"].startswith("ga")]
    swept = [k for k in ("generations", "pop") if len({r[k] for r in ga_rows if k in r}) > 1]
    if not swept:
        for size in package_sizes:
            sub = [r for r in rows if r["package_size"] == size]
            if not sub:
                continue
            written.append(out / f"makespan_p{size}.png")
            plot_makespan(written[-1], sub,
                          f"{trace}: makespan per workload of {config['jobs']:,} jobs, packages of {size} jobs, on {platform}",
                          ylabel=makespan_label(config))
        if len({r["package_size"] for r in ga_rows}) > 1:
            written.append(out / SWEEPS["package_size"][2])
            plot_ga_sweep(written[-1], rows, f"{trace}: GA makespan (bars) and GA time (lines) by package size")
        return written
    key = swept[0]
    other_key, fixed = ("pop", "population") if key == "generations" else ("generations", "generations")  # the one held
    sizes = [s for s in package_sizes if any(r["package_size"] == s for r in ga_rows)]
    for size in sizes:
        sub = [r for r in ga_rows if r["package_size"] == size]
        other = sorted({r[other_key] for r in sub})
        name = SWEEPS[key][2]
        written.append(out / (name if len(sizes) == 1 else name.replace(".png", f"_p{size}.png")))
        plot_ga_sweep(written[-1], sub, f"{trace}: GA makespan (bars) and GA time (lines) by {SWEEPS[key][0].split(' (')[0]}, "
                                        f"packages of {size} jobs, {fixed} {', '.join(map(str, other))}", key)
    return written
