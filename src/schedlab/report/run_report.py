"""report.html of an optimization run: convergence plot, per-group AWRT against EASY, the best strategy.

Figures (matplotlib, PNG) are written beside report.html: ``convergence.png`` (best and median
objective per generation of every (sub-)run) and ``awrt_groups.png`` (AWRT_1..5 of the evolved
strategy and of EASY per training workload, as the paper's Fig. 1 / Table III). All numbers come
from the caller; this module computes no metric itself. Every file is written atomically.

The report is for people: traces by file name (no absolute paths of the machine that ran it), the
training set-up in words (:func:`training_setup`), AWRT in hours in the table and the chart alike,
legends outside the bars. :func:`regenerate_run_report` rebuilds it from a run folder's stored
files (config.json, history.csv, comparison.json, best.json) without re-running anything;
:func:`schedlab.report.runs.write` the report of a run folder of any kind.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._atomic import atomic_write_text, save_figure_atomic

GROUP_METRICS = ("AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5")
#: seconds per hour: every AWRT of the report (table and chart) is in hours
HOUR = 3600.0


def trace_label(spec: Any) -> str:
    """A trace as a person reads it: the file name of a path (never the machine's absolute path)."""
    text = str(spec)
    return Path(text).name if ("/" in text or "\\" in text) else text


def _first_months(months: Any) -> str:
    return f"first {int(months)} month{'' if int(months) == 1 else 's'}"


def _window(config: Mapping[str, Any]) -> str:
    """The months a run trains on, in words ('' for the whole trace): with ``--split-months K`` the
    first K (not the ``--months`` window the split cuts), the months after held out (issue 43: a
    2-month training window was titled "first 3 months")."""
    months, split = config.get("months"), config.get("split_months")
    if not split:
        return _first_months(months) if months else ""
    first, last = int(split) + 1, int(months or 0)
    rest = "the months after" if not months else f"month {last}" if first == last else f"months {first}-{last}"
    return f"{_first_months(split)} ({rest} held out)"


def setup_words(config: Mapping[str, Any]) -> str:
    """The trace options of a command or run config in words, e.g. 'first 2 months, scaled to 1,024
    processors, load-calibrated' ('' when none was given): figure titles and table titles name them,
    so that a plot of a cut trace says so."""
    parts = []
    if config.get("procs"):
        parts.append(f"on {int(config['procs']):,} processors")
    if _window(config):  # "window": the dates kept, when the months reach past the trace (cut.window_label)
        parts.append(_window(config) + (f" asked: {config['window']}" if config.get("window") else ""))
    if config.get("scale_to"):
        parts.append(f"scaled to {int(config['scale_to']):,} processors" + (", load-calibrated" if config.get("calibrate_load") else ""))
    return ", ".join(parts)


def titled(name: str, config: Mapping[str, Any]) -> str:
    """``name (set-up words)``, or ``name`` alone when the trace was used as it is."""
    words = setup_words(config)
    return f"{name} ({words})" if words else name


def training_setup(config: Mapping[str, Any], comparison: Sequence[Mapping[str, Any]] = ()) -> str:
    """The training set-up in words, e.g. 'CTC-SP2-1996-3.1-cln.swf.gz read on 430 processors, scaled to
    1,024 processors ... and load-calibrated ...; 136,528 jobs on 1,024 processors'."""
    parts = []
    traces = list(config.get("traces", []))
    jobs = list(config.get("jobs", []))
    machines = list(config.get("machine_procs", []))
    for i, spec in enumerate(traces):
        words = [trace_label(spec)]
        if config.get("procs"):
            words.append(f"read on {int(config['procs']):,} processors")
        if _window(config):
            words.append(_window(config))
        if config.get("scale_to"):
            scaled = f"scaled to {int(config['scale_to']):,} processors (Ernemann et al. 2003, seed {config.get('scale_seed', 0)})"
            if config.get("calibrate_load"):
                util = comparison[i].get("UTIL_easy") if i < len(comparison) else None
                scaled += (" and load-calibrated: scaling factor raised until EASY's UTIL met the target"
                           + (f" (EASY's UTIL {util:.2f} % on the trained trace)" if util is not None else ""))
            words.append(scaled)
        if i < len(jobs) and i < len(machines):
            words.append(f"{int(jobs[i]):,} jobs on {int(machines[i]):,} processors")
        parts.append(", ".join(words))
    return "; ".join(parts)


#: what a history row's ``gen`` and ``evaluations`` count, by the run's kind (config.json ``kind``;
#: other kinds: generations and evaluations): Algorithm 2 steps through situation classes, and each
#: class simulates every strategy of its set on every training workload
HISTORY_COUNTS = {"rules-iterative": ("situation classes", "simulations")}


def run_settings(config: Mapping[str, Any]) -> str:
    """The search's settings in words, read from the run's config by its kind (issue 43 item 7: a
    rules run has no optimizer, procedure or top-level mu; its settings are its own keys), so that
    the report states what ran."""
    kind = config.get("kind", "greedy")
    if kind == "rules-iterative":
        from ..strategy import rules as R

        chosen = config.get("strategy_set", "all")
        return (f"Algorithm 2 (iterative, deterministic: no seed): {config.get('situation_classes')} situation "
                f"classes in turn, each trying the {len(R.strategy_set(chosen))} strategies of the set {chosen!r} "
                f"(unvisited classes: {config.get('unvisited')}).")
    if kind == "rules-symbiotic":
        g = config.get("symbiotic", {})
        return (f"Symbiotic evolution of fuzzy rules: {g.get('rules')} rules per base, mu={g.get('mu')} parent rules, "
                f"lambda={g.get('lam')} offspring rules, {g.get('participations')} bases per rule, rho={g.get('rho')}, "
                f"k={g.get('k')} clusters, n={g.get('n_best')}; {g.get('bases_per_generation')} bases per generation, "
                f"generations={config.get('generations')}, seed={config.get('seed')}.")
    words = [f"Optimizer {config.get('optimizer')}"]
    if "procedure" in config:
        words.append(f"procedure {config.get('procedure')}")
    words += [f"mu={config.get('mu')}", f"lambda={config.get('lambda')}", f"generations={config.get('generations')}",
              f"seed={config.get('seed')}"]
    start = (config.get("optimizer_settings") or {}).get("x0")
    return ", ".join(words) + (f"; first point: {start}" if start else "") + "."


def _save_figure(fig: Any, path: Path) -> None:
    save_figure_atomic(fig, path, dpi=110, bbox_inches="tight")


def integer_steps(ax: Any, axis: str = "x") -> None:
    """Whole-number ticks only on ``axis`` (generations, classes: never 1.25 or 1.5)."""
    from matplotlib.ticker import MaxNLocator

    getattr(ax, f"{axis}axis").set_major_locator(MaxNLocator(integer=True))


def convergence_figure(histories: Mapping[str, Sequence[Mapping[str, Any]]], path: Path, *,
                       steps: str = "generation", title: str = "Convergence") -> list[tuple[str, list[str]]]:
    """Best (solid) and generation median (dotted) objective per step, one colour per run; ``steps``
    names the x axis (a generation, or what a run counts instead, e.g. situation classes). The best's
    objective on the held-out workloads, when the run has one, is on a panel of its own below (its
    own y axis: other months or traces give another scale, issue 43). Returns the panels drawn:
    (y label, line labels)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    held_out = any(_test_value(r, "test") is not None for rows in histories.values() for r in rows)
    fig, axes = plt.subplots(2 if held_out else 1, 1, figsize=(7, 6.5 if held_out else 4), sharex=True, squeeze=False)
    ax, low = axes[0][0], axes[-1][0]
    for i, (label, rows) in enumerate(histories.items()):
        if not rows:
            continue
        gen = [r["gen"] for r in rows]
        colour = f"C{i}"
        ax.plot(gen, [r["best"] for r in rows], color=colour, label=f"{label} best")
        ax.plot(gen, [r["median"] for r in rows], color=colour, linestyle=":", label=f"{label} median")
        test = [_test_value(r, "test") for r in rows]
        if any(v is not None for v in test):
            low.plot(gen, [float("nan") if v is None else v for v in test], color=colour, linestyle="--",
                     label=f"{label} best on the held-out test set")
    low.set_xlabel(steps)
    integer_steps(low)
    ax.set_ylabel("training objective (lower is better)")
    ax.set_title(title)
    if held_out:
        low.set_ylabel("held-out objective")
    panels = []
    for a in {id(ax): ax, id(low): low}.values():
        a.grid(alpha=0.3)
        a.legend(fontsize="small")
        panels.append((a.get_ylabel(), [line.get_label() for line in a.get_lines()]))
    _save_figure(fig, path)
    plt.close(fig)
    return panels


def _test_value(row: Mapping[str, Any], key: str) -> Any:
    """A held-out column of a history row (``extra`` of a live run, or a column read from history.csv)."""
    return row.get("extra", {}).get(key, row.get(key))


def awrt_groups_figure(comparison: Sequence[Mapping[str, Any]], path: Path, *, label: str = "evolved greedy",
                       also: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
                       ) -> list[tuple[str, dict[str, list[float]]]]:
    """Grouped bars of AWRT_1..5 (hours): the run's strategy (``label``, as the report's table names
    it), the schedules of ``also`` (label -> rows with AWRT1..5, one per row of ``comparison``, e.g.
    the site's current Slurm configuration) and EASY, one panel per workload (and set: train / test);
    one legend above the panels, so that it covers no bar. Returns the plotted panels: (title,
    {bar label: AWRT_1..5 in hours})."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(1, len(comparison))
    also = dict(also or {})
    panels: list[tuple[str, dict[str, list[float]]]] = []
    fig, axes = plt.subplots(1, n, figsize=(5 * n, 3.8), squeeze=False)
    for i, (ax, row) in enumerate(zip(axes[0], comparison)):
        xs = range(len(GROUP_METRICS))
        series = [(label, row, "", "C0"), *((k, rows[i], "", f"C{2 + j}") for j, (k, rows) in enumerate(also.items())),
                  ("EASY", row, "_easy", "C1")]
        width = 0.8 / len(series)
        title = str(row.get("workload")) + (f" ({row['set']})" if row.get("set") else "")
        panels.append((title, {}))
        for j, (name, values, suffix, colour) in enumerate(series):
            hours = [(values.get(m + suffix) or 0.0) / HOUR for m in GROUP_METRICS]
            panels[-1][1][name] = hours
            ax.bar([x + (j - (len(series) - 1) / 2) * width for x in xs], hours, width=width, label=name, color=colour)
        ax.set_xticks(list(xs), [m.replace("AWRT", "group ") for m in GROUP_METRICS])
        ax.set_ylabel("AWRT (h)")
        ax.set_title(title, pad=4)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    _save_figure(fig, path)
    plt.close(fig)
    return panels


def public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as shown to people: trace paths reduced to file names."""
    out = dict(config)
    if "traces" in out:
        out["traces"] = [trace_label(t) for t in out["traces"]]
    return out


def regenerate_run_report(run_dir: str | Path) -> Path:
    """Rebuild report.html and its figures from a finished run folder's stored files (nothing re-run).

    Needs config.json, history.csv, comparison.json and best.json; a missing one is a RunError
    naming it. For ``--procedure paper`` the per-system histories are the ``system`` column.
    (:func:`schedlab.report.runs.write` also draws the run's schedules, as the verb does.)
    """
    from ..errors import RunError

    run_dir = Path(run_dir)
    for name in ("config.json", "history.csv", "comparison.json", "best.json"):
        if not (run_dir / name).exists():
            raise RunError(f"{run_dir / name}: missing; the report needs it (re-run the command to make it)")
    config, histories, comparison, best = read_run(run_dir)
    return write_run_report(run_dir, config, histories, comparison, best)


def read_run(run_dir: Path) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]], list[dict[str, Any]], Any]:
    """An ``evolve greedy`` run folder's config.json, its histories by (sub-)run from history.csv (for
    ``--procedure paper`` the ``system`` column), comparison.json and best.json."""
    import csv

    from ..strategy.model import Strategy

    config = json.loads((run_dir / "config.json").read_text())
    comparison = json.loads((run_dir / "comparison.json").read_text())
    best = Strategy.from_json((run_dir / "best.json").read_text())
    histories: dict[str, list[dict[str, Any]]] = {}
    with (run_dir / "history.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            label = r.get("system") or str(config.get("procedure", "run"))
            histories.setdefault(label, []).append(
                {"gen": int(r["gen"]), "evaluations": int(r["evaluations"]), "best": float(r["best"]),
                 "median": float(r["median"]), "elapsed": float(r["elapsed"]),
                 **{k: float(r[k]) for k in ("test", "test_easy", "test_gain_pct") if r.get(k)}}
            )
    return config, histories, comparison, best


def read_history_steps(path: Path, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The steps a rules run's report plots, from its history.csv: a ``rules evolve`` run's rows as
    they are; a ``rules iterative`` run's one row per situation class as
    :func:`schedlab.optimize.gfs.rules_iterative` makes its steps: its best is the base's objective
    after the class, its median that of the bases tried on it (a class no pass reaches tries none:
    its objective), its evaluations the simulations so far (a visited class simulates each strategy
    of the set on every training workload)."""
    import numpy as np

    from ..optimize.history import read_history
    from ..strategy import rules as R

    rows = read_history(path)
    if config.get("kind") != "rules-iterative":
        return rows
    per_class = len(R.strategy_set(str(config.get("strategy_set", "all")))) * len(config["traces"])
    out, tries = [], 0
    for i, r in enumerate(rows):
        visited = r["visited"] == "True"
        tries += per_class * visited
        tried = [v for k, v in r.items() if k.startswith("f_") and v is not None]
        out.append({"gen": i + 1, "evaluations": tries, "best": r["objective"], "sigma": 0.0, "elapsed": r["elapsed"],
                    "median": float(np.median(tried)) if visited else r["objective"],
                    **{k: r[k] for k in ("test", "test_easy", "test_gain_pct") if k in r}})
    return out


def _as_stored(elapsed: Any) -> Any:
    """Wall seconds as history.csv keeps them (``%.3f``, :mod:`schedlab.optimize.history`), so a report
    written by the verb from its run in memory and one rebuilt from the folder print the same figure."""
    return float(format(elapsed, ".3f")) if isinstance(elapsed, (int, float)) else elapsed


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        from .table import fixed

        return fixed(v)
    return html.escape(str(v))


def write_run_report(
    run_dir: str | Path,
    config: Mapping[str, Any],
    histories: Mapping[str, Sequence[Mapping[str, Any]]],
    comparison: Sequence[Mapping[str, Any]],
    best: Any,
    *,
    schedule_plots: Sequence[str] = (),
    title: str = "Evolved greedy strategy",
    label: str = "evolved greedy",
    extra_html: str = "",
    steps: str = "generation",
    also: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> Path:
    """Write report.html (+ convergence.png, awrt_groups.png) into ``run_dir``; return its path.

    ``schedule_plots`` are image files in ``run_dir`` (from
    :func:`schedlab.report.schedule_plots.write_schedule_plots`) shown in their own section;
    ``steps`` what the history rows count (the convergence plot's x axis); ``also`` further schedules
    for the AWRT chart (:func:`awrt_groups_figure`)."""
    from .schedule_plots import plots_section

    run_dir = Path(run_dir)
    words = setup_words(config)
    convergence_figure(histories, run_dir / "convergence.png", steps=steps,
                       title=f"Convergence ({words})" if words else "Convergence")
    awrt_groups_figure(comparison, run_dir / "awrt_groups.png", label=label, also=also)
    cols = ["objective", "AWRT", *GROUP_METRICS, "UTIL"]
    units = {"objective": "objective", "UTIL": "UTIL (%)", **{c: f"{c} (h)" for c in ("AWRT", *GROUP_METRICS)}}
    sets = any("set" in r for r in comparison)
    head = "".join(f"<th>{c}</th>" for c in ["workload", *(["set"] if sets else []), "schedule", *(units[c] for c in cols),
                                             "worst group AWRT vs EASY", "verdict"])
    body = []

    def value(row: Mapping[str, Any], key: str, col: str) -> Any:
        v = row.get(key)
        return v / HOUR if (v is not None and col.startswith("AWRT")) else v

    for row in comparison:
        lead = f"<td>{_fmt(row.get('workload'))}</td>" + (f"<td>{_fmt(row.get('set'))}</td>" if sets else "")
        for name, suffix in ((label, ""), ("EASY", "_easy")):
            cells = "".join(f"<td>{_fmt(value(row, c + suffix, c))}</td>" for c in cols)
            body.append(f"<tr>{lead}<td>{html.escape(name)}</td>{cells}<td></td><td></td></tr>")
        from ..optimize.versus_easy import ratio_text, verdict_marks  # the terminal table's texts
        from .table import gain_text

        imp = [row.get(f"{c}_improvement_pct") for c in cols[1:-1]] + [row.get("UTIL_diff_points")]
        cells = f"<td>{html.escape(gain_text(dict(row)))}</td>" + "".join(f"<td>{_fmt(v)}</td>" for v in imp)
        verdict = "; ".join(verdict_marks(dict(row), None))
        cells += f"<td>{html.escape(ratio_text(dict(row)))}</td><td>{'<b>' + html.escape(verdict) + '</b>' if verdict else 'ok'}</td>"
        flag = " <b>worse than EASY</b>" if row.get("worse_than_easy") else ""
        body.append(f"<tr>{lead}<td>improvement % (UTIL: points){flag}</td>{cells}</tr>")
    last = {k: (rows[-1] if rows else {}) for k, rows in histories.items()}
    gens, evals = HISTORY_COUNTS.get(str(config.get("kind")), ("generations", "evaluations"))
    runs = "".join(
        f"<li>{html.escape(k)}: {r.get('gen', 0)} {gens[:-1] if r.get('gen') == 1 else gens}, "
        f"{r.get('evaluations', 0)} {evals[:-1] if r.get('evaluations') == 1 else evals}, "
        f"best {_fmt(r.get('best'))}, {_fmt(_as_stored(r.get('elapsed')))} s"
        + (f"; held-out test {_fmt(_test_value(r, 'test'))} vs EASY {_fmt(_test_value(r, 'test_easy'))} "
           f"(gain {_fmt(_test_value(r, 'test_gain_pct'))} %)" if _test_value(r, "test") is not None else "")
        + "</li>"
        for k, r in last.items()
    )
    strategy = html.escape(best.to_json()) if best is not None else "(none yet)"
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>schedlab run {html.escape(run_dir.name)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}pre{{background:#f6f6f6;padding:8px}}</style>
</head><body>
<h1>{html.escape(title)} — {html.escape(str(config.get('objective', '')))}</h1>
<p>Trained on {html.escape(training_setup(config, comparison))}.</p>
<p>{html.escape(run_settings(config))}</p>
<ul>{runs}</ul>
<h2>Against EASY (greedy-es-sorting-criteria, Table III)</h2>
<table><tr>{head}</tr>{''.join(body)}</table>
<h2>Convergence</h2><img src="convergence.png" alt="convergence">
<h2>AWRT per user group</h2><img src="awrt_groups.png" alt="AWRT per group">
{plots_section(schedule_plots, "Schedules: EASY vs the evolved strategy (first training trace)") if schedule_plots else ""}
{extra_html}
<h2>Best strategy (best.json)</h2><pre>{strategy}</pre>
<p>AWRT in hours; the objective in the units of its expression (AWRT in seconds); improvement in % of
EASY's value (positive = better than EASY), UTIL difference in percentage points.</p>
<h2>Config</h2><pre>{html.escape(json.dumps(public_config(config), indent=2, sort_keys=True))}</pre>
</body></html>
"""
    path = run_dir / "report.html"
    atomic_write_text(path, page)
    return path


def objective_gains(comparison: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The objective's gain over EASY in % per workload of a comparison (rows of comparison.json or
    other_traces.json), keyed by the paper's id of the trace (``CTC``, ``KTH``, ``SDSC00`` ...; the
    file name when the trace is not one of GE Table I's): 100 (EASY - greedy) / EASY, so > 0 is better.
    Recomputed from the two objective values, not read from the row's stored percentage."""
    from ..workload.scale import known_trace

    out: dict[str, float] = {}
    for row in comparison:
        name = trace_label(row["workload"])
        key = known_trace(name) or name
        if key in out:
            raise ValueError(f"two rows of the comparison are workload {key}")
        easy, mine = float(row["objective_easy"]), float(row["objective"])
        out[key] = 100.0 * (easy - mine) / easy
    return out


def gains_figure(series: Mapping[str, Mapping[str, float]], path: Path, title: str) -> list[tuple[str, list[float | None]]]:
    """Grouped bars of the objective's gain over EASY (%) per workload, one bar per series (e.g. the
    CTC-trained and the multi-workload-trained greedy: GE Figs. 2 and 3 side by side). Workloads in
    the order they first appear; a series without a workload leaves its bar out. Returns the plotted
    rows (workload, one gain or None per series) so that a table can show the same numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads: list[str] = []
    for gains in series.values():
        workloads += [w for w in gains if w not in workloads]
    rows = [(w, [gains.get(w) for gains in series.values()]) for w in workloads]
    n = max(1, len(series))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(1.4 * len(workloads) + 2.5, 3.8))
    for i, label in enumerate(series):
        xs = [x + (i - (n - 1) / 2) * width for x, (_, vals) in enumerate(rows) if vals[i] is not None]
        ys = [vals[i] for _, vals in rows if vals[i] is not None]
        bars = ax.bar(xs, ys, width=width, label=label, color=f"C{i}")
        ax.bar_label(bars, fmt="%+.1f", fontsize="x-small", padding=2)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(workloads)), workloads)
    ax.set_ylabel("objective gain over EASY (%)")
    ax.set_title(title, fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    _save_figure(fig, path)
    plt.close(fig)
    return rows
