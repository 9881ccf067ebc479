"""The report and the figures of a run folder of any kind (issue 46 item 2), callable from Python.

:func:`write` ``(run_folder)`` writes what a run's verb writes for it: report.html with its figures for
an ``evolve greedy``, ``evolve slurm`` or ``rules`` run (from the folder's stored files; the schedules
of EASY and of the run's best are simulated again on its first training trace, as ``plot RUN`` does),
and the figures ``schedlab plot RUN`` draws for a run of another kind (bound, grid pareto,
federation run or compare). :func:`plot_run` draws the figures of any kind (``schedlab plot RUN``):
a run folder's config.json names its kind (:class:`schedlab.optimize.run.RunFolder`), and
:data:`RUN_PLOTS` maps each kind to the function drawing it: an evolve greedy or rules run its
schedules against EASY's (a rules run also the strategy in force over time), a bound run its
hypervolume and its front, an evolve slurm run its convergence and AWRT per group (tuned, current,
EASY), a grid pareto run its front with the heuristics and its hypervolume, a federation run the
makespan of its packages, a federation compare folder its table and makespan figures.
(SCOJO-PECT writes no run folders: it is simulated, not optimized.)

:func:`write_evolve_report`, :func:`write_slurm_report` and :func:`write_rules_report` write the
report of a driver's result (what the verbs call once a run finishes: ``optimize`` does not import
``report``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

from ..errors import SchedlabError


class PlotOptionError(SchedlabError, ValueError):
    """A run folder (or a `schedlab plot` option) that cannot be drawn: an unknown kind, an unfinished run."""


# ---------------------------------------------------------------------------- reports of a driver's result
def write_evolve_report(result) -> list[Path]:
    """report.html of a finished ``evolve greedy`` run (:class:`schedlab.optimize.evolve.EvolveResult`)
    with its schedule plots: EASY vs the evolved strategy on the first training trace; the paths written."""
    w, m = result.training.workloads[0], result.training.machines[0]
    return _evolve_report(result.run_dir, result.config, {k: r.history for k, r in result.runs.items()}, result.comparison,
                   result.best, w, m)


def _evolve_report(run_dir, config, histories, comparison, best, w, m) -> list[Path]:
    from ..optimize.evolve import schedule_tables
    from .run_report import write_run_report
    from .schedule_plots import write_schedule_plots

    paths = write_schedule_plots(schedule_tables(best, w, m), m.procs, run_dir,
                                 title=f"{w.name}: EASY vs the evolved strategy", prefix="schedule_")
    page = write_run_report(run_dir, config, histories, comparison, best, schedule_plots=[p.name for p in paths])
    return [*paths, *_report_figures(page)]


class _Shown:
    """What report.html prints as the run's best: the fragment's text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def to_json(self) -> str:
        return self.text


def write_slurm_report(result) -> list[Path]:
    """report.html of a finished ``evolve slurm`` run (:class:`schedlab.optimize.evolve_slurm.SlurmTuneResult`),
    as ``evolve greedy`` writes it (the tuned configuration against EASY, convergence), with the
    four-way table and the fragment."""
    history = result.run.history if result.run else []
    return _slurm_report(result.run_dir, result.config, history, result.comparison, result.versus_easy, result.fragment)


def _slurm_report(run_dir, config, history, comparison, versus_easy, fragment) -> list[Path]:
    from ..optimize.evolve_slurm import comparison_table_rows, schedule_rows
    from .run_report import write_run_report
    from .table import html_table

    table = "<h2>EASY, the site's configuration, the tuned one</h2>" + html_table(*comparison_table_rows(comparison))
    return _report_figures(write_run_report(run_dir, config, {"slurm": history}, versus_easy, _Shown(fragment),
                                            title="Tuned Slurm configuration", label="tuned slurm", extra_html=table,
                                            also={"current slurm": schedule_rows(comparison, "current")}))


#: the report's title and what its history steps count, by rules run kind
RULES_REPORTS = {"rules-iterative": ("Iterative rule base (Algorithm 2)",
                                     "situation classes done (Algorithm 2 optimises one class at a time)"),
                 "rules-symbiotic": ("Symbiotic evolution of fuzzy rules", "generation")}


def write_rules_report(result) -> list[Path]:
    """report.html of a finished ``rules iterative`` or ``rules evolve`` run
    (:class:`schedlab.optimize.gfs.RulesResult`) with the strategy in force over its first training trace."""
    w, m = result.training.workloads[0], result.training.machines[0]
    return _rules_report(result.run_dir, result.config, result.histories, result.comparison, result.best, w, m)


def _rules_report(run_dir, cfg, histories, comparison, best, w, m) -> list[Path]:
    import html

    from ..sim.rulebase import simulate_rulebase
    from .rules_plot import strategy_timeline
    from .run_report import titled, write_run_report

    title, steps = RULES_REPORTS[cfg["kind"]]
    s = simulate_rulebase(w, m, best, record_features=True)
    timeline = strategy_timeline(s.plan, Path(run_dir) / "strategy_timeline.png",
                                 title=f"{titled(w.name, cfg)}: strategy in force")
    extra = ("<h2>Strategy in force over time (first training trace)</h2><img src=\"strategy_timeline.png\" "
             "alt=\"strategy timeline\"><h2>Rule base</h2><pre>" + html.escape(best.render()) + "</pre>")
    page = write_run_report(run_dir, cfg, histories, comparison, best, title=title, label="rule base",
                            extra_html=extra, steps=steps)
    return [timeline, *_report_figures(page)]


def _report_figures(page: Path) -> list[Path]:
    """The figures :func:`schedlab.report.run_report.write_run_report` draws beside ``page``, and it."""
    return [page.parent / "convergence.png", page.parent / "awrt_groups.png", page]


# ---------------------------------------------------------------------------- reports of a run folder
def _stored(run_dir: Path, *names: str) -> None:
    from ..errors import RunError

    for name in names:
        if not (run_dir / name).exists():
            raise RunError(f"{run_dir / name}: missing; the report needs it (re-run the command to make it)")


def _folder_greedy(run_dir: Path, config: dict, o: dict) -> list[Path]:
    """An evolve greedy run's report from its stored files (:func:`schedlab.report.run_report.read_run`)
    with the schedules of EASY and of best.json simulated again on the first training trace."""
    from ..optimize.evolve import run_workload
    from .run_report import read_run

    _stored(run_dir, "config.json", "history.csv", "comparison.json", "best.json")
    _, histories, comparison, best = read_run(run_dir)
    w, m, _ = run_workload(run_dir, o["trace"])
    return _evolve_report(run_dir, config, histories, comparison, best, w, m)


def _folder_rules(run_dir: Path, config: dict, o: dict) -> list[Path]:
    """A rules run's report from its stored files; the rule base runs again on the first training
    trace for the strategy in force. A ``rules iterative`` history.csv holds one row per situation
    class: its steps are rebuilt as the driver builds them (:func:`schedlab.optimize.gfs.rules_iterative`)."""
    from ..optimize.evolve import run_workload
    from .run_report import read_history_steps

    _stored(run_dir, "config.json", "history.csv", "comparison.json", "best.json")
    w, m, best = run_workload(run_dir, o["trace"])
    comparison = json.loads((run_dir / "comparison.json").read_text())
    label = "symbiotic" if config["kind"] == "rules-symbiotic" else "iterative"
    histories = {label: read_history_steps(run_dir / "history.csv", config)}
    return _rules_report(run_dir, config, histories, comparison, best, w, m)


def _folder_slurm(run_dir: Path, config: dict, o: dict) -> list[Path]:
    """An evolve slurm run's report from its stored files: the tuned rows against EASY are judged again
    from comparison.json's metrics (:func:`schedlab.optimize.versus_easy.judged`, the default
    threshold, as the driver judges them); nothing is simulated."""
    from ..optimize.history import read_history
    from ..optimize.versus_easy import WORSE_THAN_EASY_PCT, gain_pct, judged

    _stored(run_dir, "config.json", "history.csv", "comparison.json", "slurm.conf.fragment")
    comparison = json.loads((run_dir / "comparison.json").read_text())
    metrics = ("AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL")
    easy = {(r["set"], r["workload"]): r for r in comparison if r["schedule"] == "EASY"}
    versus_easy = []
    for r in comparison:
        if r["schedule"] != "tuned":
            continue
        e = easy[r["set"], r["workload"]]
        row: dict[str, Any] = {"workload": r["workload"], "jobs": r["jobs"], "procs": r["procs"],
                               "objective": r["objective"], "objective_easy": e["objective"]}
        for name in metrics:
            row[name], row[f"{name}_easy"] = r[name], e[name]
            if name != "UTIL":
                row[f"{name}_improvement_pct"] = gain_pct(e[name], r[name])
        mine, base = {k: r[k] for k in metrics}, {k: e[k] for k in metrics}
        versus_easy.append(dict(judged(row, r["objective"], e["objective"], WORSE_THAN_EASY_PCT, mine, base), set=r["set"]))
    history = read_history(run_dir / "history.csv")
    return _slurm_report(run_dir, config, history, comparison, versus_easy, (run_dir / "slurm.conf.fragment").read_text())


#: run kind -> ``(run_dir, config, options) -> paths written``: the kinds whose verb writes report.html
RUN_REPORTS: dict[str, Callable[[Path, dict, dict], list[Path]]] = {
    "greedy": _folder_greedy, "rules-iterative": _folder_rules, "rules-symbiotic": _folder_rules,
    "slurm-tune": _folder_slurm,
}


def write(run_folder, out=None, *, trace: Optional[str] = None, window_start: Optional[float] = None,
          window_days: float = 2.0) -> list[Path]:
    """The report of run folder ``run_folder`` of any kind (its config.json names the kind, as
    :func:`plot_run` reads it), as its verb writes it: report.html and its figures in the folder for
    the kinds of :data:`RUN_REPORTS` (``out`` is not used), the figures of :func:`plot_run` in ``out``
    (default: the run folder) for the others. ``trace`` replaces the training trace path in
    config.json (e.g. on another machine); ``window_start`` (days), ``window_days``: the Gantt window
    of ``plot RUN``. Returns the paths written."""
    run_dir = Path(run_folder)
    config = read_run_config(run_dir)
    kind = config.get("kind")
    options = {"trace": trace, "window_start": window_start, "window_days": window_days}
    if kind in RUN_REPORTS:  # the driver's config, as the verb's report shows it: without the library versions
        return RUN_REPORTS[kind](run_dir, {k: v for k, v in config.items() if k != "versions"}, options)
    return plot_run(run_dir, Path(out) if out is not None else run_dir, **options)


# ---------------------------------------------------------------------------- figures of a run folder, by kind
def schedule_plots(tables, m: int, out: Path, title: str, window_start: Optional[float], window_days: float) -> list[Path]:
    """utilisation.png, gantt.png, waits.png and plots.html of ``tables`` (label -> job table) in
    ``out``; the Gantt window from ``window_start`` (days; default the median submit of the first)
    for ``window_days`` days."""
    from .schedule_plots import default_window, write_schedule_plots

    first = next(iter(tables.values()))
    t0 = window_start * 86400.0 if window_start is not None else default_window(first)[0]
    return write_schedule_plots(tables, m, out, title=title, window=(t0, t0 + window_days * 86400.0))


def _versus_easy(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """An evolve greedy or rules run: the schedules of EASY and of its best (strategy or rule base) on
    its first training trace; a rules run also the strategy in force over that trace."""
    from ..metrics.per_job import job_table
    from ..optimize.evolve import RULES_KINDS, run_workload
    from ..sim.rulebase import simulate_rulebase
    from ..sim.strategies import simulate_any
    from ..strategy import Strategy
    from .run_report import titled

    workload, machine, best = run_workload(run_dir, o["trace"])
    rules = config["kind"] in RULES_KINDS
    what = "rule base" if rules else "evolved"
    # a rule base's one run gives both its schedule and the plan of strategies it used
    schedule = (simulate_rulebase(workload, machine, best, record_features=True) if rules
                else simulate_any(workload, machine, best))
    tables = {"EASY": job_table(simulate_any(workload, machine, Strategy("easy"))), what: job_table(schedule)}
    name = titled(workload.name, config)
    paths = schedule_plots(tables, machine.procs, out,
                           f"{name}: EASY vs the {what if rules else 'evolved strategy'} of {run_dir.name}",
                           o["window_start"], o["window_days"])
    if rules:
        from .rules_plot import strategy_timeline

        paths.append(strategy_timeline(schedule.plan, out / "strategy_timeline.png", title=f"{name}: strategy in force"))
    return paths


def _bound(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A bound run: its hypervolume per generation and its front in the (AWRT1, AWRT2) projection
    ('bound plot RUN --with ...' places strategies on it)."""
    from ..optimize.bound import OBJECTIVES, read_front
    from ..optimize.history import read_history
    from .bound_plot import front_figure, hypervolume_figure
    from .run_report import titled, trace_label

    _, front = read_front(run_dir)
    setup = titled(trace_label(config["trace"]), config)
    return [hypervolume_figure(read_history(run_dir / "history.csv"), out / "hypervolume.png", setup=setup),
            front_figure(front, OBJECTIVES, "AWRT1", "AWRT2", {}, out / "front_AWRT1_AWRT2.png", title=setup)]


def _grid_pareto(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A grid pareto run: points.md, its front against EASY/POOL/RQ (two sites) and its hypervolume."""
    from ..optimize.grid_pareto import read_pareto_run
    from .grid_report import write_front_report

    config, result, references = read_pareto_run(run_dir)
    names = [s["name"] for s in config["sites"]]
    write_front_report(out, result, references, names, config["nsga2"]["limit"])
    return [out / name for name in ("points.md", "front.png", "hypervolume.png") if (out / name).exists()]


def _federation(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A federation run: the makespan of each of its packages (packages.csv)."""
    from ..optimize.history import read_history
    from .federation import plot_makespan
    from .run_report import titled, trace_label

    if not (run_dir / "result.json").exists():
        raise PlotOptionError(f"{run_dir}: not a finished federation run (result.json missing)")
    rows = [{"workload": f"package {r['package'] + 1}", "method": config["method"], "makespan": r["makespan"]}
            for r in read_history(run_dir / "packages.csv")]
    path = out / "makespan.png"
    plot_makespan(path, rows, f"{titled(trace_label(config['trace']), config)}: makespan per package of "
                              f"{config['package_size']} jobs, {config['method']}", ylabel="makespan (hours)")
    return [path]


def _federation_compare(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A federation compare folder: table.md and the makespan figures of its results.json, as the verb
    writes them (the trace, window and platform from one of its run folders' config.json)."""
    from .federation import write_comparison_report

    rows = json.loads((run_dir / "results.json").read_text())
    runs = sorted(run_dir.glob("p*/Wk-*/*/config.json"))
    if not rows or not runs:
        raise PlotOptionError(f"{run_dir}: a federation comparison without finished runs (results.json lists none)")
    base = json.loads(runs[0].read_text())
    sizes = sorted({r["package_size"] for r in rows})
    return write_comparison_report(out, rows, base, sizes, base["platform"]["name"])


def _slurm_tune(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """An evolve slurm run: its convergence (history.csv) and AWRT per user group of the tuned
    configuration, the site's current one and EASY (comparison.json), as its report draws them;
    nothing is simulated again."""
    from ..optimize.evolve_slurm import schedule_rows
    from ..optimize.history import read_history
    from .run_report import awrt_groups_figure, convergence_figure, setup_words

    if not (run_dir / "comparison.json").exists():
        raise PlotOptionError(f"{run_dir}: not a finished evolve slurm run (comparison.json missing)")
    rows = json.loads((run_dir / "comparison.json").read_text())
    words = setup_words(config)
    paths = [out / "convergence.png", out / "awrt_groups.png"]
    convergence_figure({"slurm": read_history(run_dir / "history.csv")}, paths[0],
                       title=f"Convergence ({words})" if words else "Convergence")
    awrt_groups_figure(schedule_rows(rows, "tuned"), paths[1], label="tuned slurm",
                       also={"current slurm": schedule_rows(rows, "current")})
    return paths


#: run kind (config.json's ``kind``; a federation compare folder has none) -> ``(run_dir, out, config, options) -> paths written``
RUN_PLOTS: dict[str, Callable[[Path, Path, dict, dict], list[Path]]] = {
    "greedy": _versus_easy, "rules-iterative": _versus_easy, "rules-symbiotic": _versus_easy,
    "slurm-tune": _slurm_tune, "bound": _bound, "grid-pareto": _grid_pareto, "federation": _federation, "federation-compare": _federation_compare,
}


def read_run_config(run_dir: Path) -> dict:
    """A run folder's config.json (a federation compare folder, which has none but a results.json:
    ``{"kind": "federation-compare"}``); a one-line error for no run folder or a kind nothing draws."""
    from ..errors import RunError

    try:
        if not (run_dir / "config.json").exists() and (run_dir / "results.json").exists():
            config = {"kind": "federation-compare"}  # one run folder per workload and method below it
        else:
            config = json.loads((run_dir / "config.json").read_text())
    except FileNotFoundError:
        raise RunError(f"{run_dir}: not a run folder (no config.json)") from None
    except (ValueError, OSError) as exc:
        raise RunError(f"{run_dir}: cannot read the run's config.json: {exc}") from None
    kind = config.get("kind") if isinstance(config, dict) else None
    if kind not in RUN_PLOTS:
        raise PlotOptionError(f"{run_dir}: a {kind!r} run; plot draws runs of kind {', '.join(RUN_PLOTS)}")
    return config


def plot_run(run_dir: Path, out: Path, **options: Any) -> list[Path]:
    """The figures of run folder ``run_dir`` in ``out``, drawn by :data:`RUN_PLOTS`' function of its kind;
    ``options``: ``trace``, ``window_start``, ``window_days`` (evolve and rules runs)."""
    run_dir = Path(run_dir)
    config = read_run_config(run_dir)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return RUN_PLOTS[config["kind"]](run_dir, out, config, {"trace": None, "window_start": None, "window_days": 2.0, **options})
