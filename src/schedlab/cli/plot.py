"""`schedlab plot`: the plots of one or more schedules, or the figures of a run folder of any kind.

A run folder's config.json names its kind; :func:`schedlab.report.runs.plot_run` draws the figures
of each kind (:data:`schedlab.report.runs.RUN_PLOTS`), from Python as here."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .._moved import moved
from ..report.runs import PlotOptionError, plot_run
from .app import app

#: names that lived here, at their home (the figures of a run folder by kind, callable from Python)
__getattr__ = moved(__name__, {"RUN_PLOTS": "schedlab.report.runs:RUN_PLOTS"})


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
    from ..report.runs import schedule_plots
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
    echo_wrote(schedule_plots(tables, procs, out, " vs ".join(names), window_start, window_days))
