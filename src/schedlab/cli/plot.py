"""`schedlab plot`: the plots of one or more schedules, or the figures of a run folder of any kind.

A run folder's config.json names its kind (:class:`schedlab.optimize.run.RunFolder`); :data:`RUN_PLOTS`
maps each kind to the function drawing it with the figures of ``report/``: an evolve greedy or rules
run its schedules against EASY's (a rules run also the strategy in force over time), a bound run its
hypervolume and its front, an evolve slurm run its convergence and AWRT per group (tuned, current,
EASY), a grid pareto run its front with the heuristics and its hypervolume, a
federation run the makespan of its packages, a federation compare folder its table and makespan
figures. (SCOJO-PECT writes no run folders: it is simulated, not
optimized.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, List, Optional

import typer

from ..errors import SchedlabError
from .app import app


class PlotOptionError(SchedlabError, ValueError):
    """A `schedlab plot` option with a value that cannot be used."""


@app.command("plot")
def plot_command(
    inputs: List[Path] = typer.Argument(..., help="Schedules written by 'simulate --schedule-out' (CSV or Parquet; several are drawn together), or one RUN folder of any kind (evolve greedy, evolve slurm, rules, bound, grid pareto, federation run or compare)."),
    out: Path = typer.Option(..., "--out", help="Folder for the figures (created): of schedules utilisation.png, gantt.png, waits.png and plots.html; of a RUN the figures of its kind."),
    procs: Optional[int] = typer.Option(None, "--procs", "-m", help="Machine size m of the schedules (required for schedule files)."),
    label: Optional[List[str]] = typer.Option(None, "--label", help="Legend label per schedule file (default: the file name)."),
    window_start: Optional[float] = typer.Option(None, "--window-start", metavar="DAYS", help="Gantt window start, in DAYS on the trace's clock (default: the median submit; 'simulate --gantt-window' takes seconds)."),
    window_days: float = typer.Option(2.0, "--window-days", metavar="DAYS", help="Gantt window length, in days."),
    trace: Optional[str] = typer.Option(None, "--trace", help="For an evolve or rules RUN: the training trace, when the path in its config.json does not exist here."),
) -> None:
    """Utilisation and queue length over time, a Gantt chart of a time window, wait per user group; of a
    RUN folder the figures of its kind (its config.json says which)."""
    from ..report.schedule_plots import read_schedule_table

    from .options import check_output, echo_wrote

    if not window_days > 0:
        raise PlotOptionError(f"--window-days must be > 0, got {window_days}")
    check_output(out, "plots", folder=True)
    if len(inputs) == 1 and inputs[0].is_dir():
        echo_wrote(plot_run(inputs[0], out, trace=trace, window_start=window_start, window_days=window_days))
        return
    if procs is None or procs <= 0:
        raise PlotOptionError("--procs: give the machine size m of the schedules (a positive number)")
    if label and len(label) != len(inputs):
        raise PlotOptionError(f"--label given {len(label)} times for {len(inputs)} schedules")
    names = label or [p.stem for p in inputs]
    tables = {n: read_schedule_table(p) for n, p in zip(names, inputs)}
    widest = max(int(t["procs"].max()) for t in tables.values())
    if widest > procs:
        raise PlotOptionError(f"--procs {procs} is narrower than a job of the schedules ({widest} processors)")
    echo_wrote(_schedule_plots(tables, procs, out, " vs ".join(names), window_start, window_days))


def _schedule_plots(tables, m: int, out: Path, title: str, window_start: Optional[float], window_days: float) -> list[Path]:
    """utilisation.png, gantt.png, waits.png and plots.html of ``tables`` (label -> job table) in ``out``."""
    from ..report.schedule_plots import default_window, write_schedule_plots

    first = next(iter(tables.values()))
    t0 = window_start * 86400.0 if window_start is not None else default_window(first)[0]
    return write_schedule_plots(tables, m, out, title=title, window=(t0, t0 + window_days * 86400.0))


# ---------------------------------------------------------------------------- run folders, by kind
def _versus_easy(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """An evolve greedy or rules run: the schedules of EASY and of its best (strategy or rule base) on
    its first training trace; a rules run also the strategy in force over that trace."""
    from ..metrics.per_job import job_table
    from ..optimize.evolve import RULES_KINDS, run_workload
    from ..report.run_report import titled
    from ..sim.strategies import simulate_any
    from ..strategy import Strategy

    from ..sim.rulebase import simulate_rulebase

    workload, machine, best = run_workload(run_dir, o["trace"])
    rules = config["kind"] in RULES_KINDS
    what = "rule base" if rules else "evolved"
    # a rule base's one run gives both its schedule and the plan of strategies it used
    schedule = (simulate_rulebase(workload, machine, best, record_features=True) if rules
                else simulate_any(workload, machine, best))
    tables = {"EASY": job_table(simulate_any(workload, machine, Strategy("easy"))), what: job_table(schedule)}
    name = titled(workload.name, config)
    paths = _schedule_plots(tables, machine.procs, out,
                            f"{name}: EASY vs the {what if rules else 'evolved strategy'} of {run_dir.name}",
                            o["window_start"], o["window_days"])
    if rules:
        from ..report.rules_plot import strategy_timeline

        paths.append(strategy_timeline(schedule.plan, out / "strategy_timeline.png", title=f"{name}: strategy in force"))
    return paths


def _bound(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A bound run: its hypervolume per generation and its front in the (AWRT1, AWRT2) projection
    ('bound plot RUN --with ...' places strategies on it)."""
    from ..optimize.bound import OBJECTIVES, read_front
    from ..optimize.history import read_history
    from ..report.bound_plot import front_figure, hypervolume_figure
    from ..report.run_report import titled, trace_label

    _, front = read_front(run_dir)
    setup = titled(trace_label(config["trace"]), config)
    return [hypervolume_figure(read_history(run_dir / "history.csv"), out / "hypervolume.png", setup=setup),
            front_figure(front, OBJECTIVES, "AWRT1", "AWRT2", {}, out / "front_AWRT1_AWRT2.png", title=setup)]


def _grid_pareto(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A grid pareto run: points.md, its front against EASY/POOL/RQ (two sites) and its hypervolume."""
    from ..optimize.grid_pareto import read_pareto_run
    from ..report.grid_report import write_front_report

    config, result, references = read_pareto_run(run_dir)
    names = [s["name"] for s in config["sites"]]
    write_front_report(out, result, references, names, config["nsga2"]["limit"])
    return [out / name for name in ("points.md", "front.png", "hypervolume.png") if (out / name).exists()]


def _federation(run_dir: Path, out: Path, config: dict, o: dict) -> list[Path]:
    """A federation run: the makespan of each of its packages (packages.csv)."""
    from ..optimize.history import read_history
    from ..report.federation import plot_makespan
    from ..report.run_report import titled, trace_label

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
    import json

    from ..report.federation import write_comparison_report

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
    import json

    from ..optimize.evolve_slurm import schedule_rows
    from ..optimize.history import read_history
    from ..report.run_report import awrt_groups_figure, convergence_figure, setup_words

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


def plot_run(run_dir: Path, out: Path, **options: Any) -> list[Path]:
    """The figures of run folder ``run_dir`` in ``out``, drawn by :data:`RUN_PLOTS`' function of its kind;
    ``options``: ``trace``, ``window_start``, ``window_days`` (evolve and rules runs)."""
    import json

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
    out.mkdir(parents=True, exist_ok=True)
    return RUN_PLOTS[kind](run_dir, out, config, {"trace": None, "window_start": None, "window_days": 2.0, **options})
