"""`schedlab plot`: the plots of one or more schedules, or of an evolve or rules run (EASY vs its best strategy or rule base)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..errors import SchedlabError
from .app import app


class PlotOptionError(SchedlabError, ValueError):
    """A `schedlab plot` option with a value that cannot be used."""


@app.command("plot")
def plot_command(
    inputs: List[Path] = typer.Argument(..., help="Schedules written by 'simulate --schedule-out' (CSV or Parquet; several are drawn together), or one evolve or rules RUN folder (EASY vs its best)."),
    out: Path = typer.Option(..., "--out", help="Folder for utilisation.png, gantt.png, waits.png and plots.html (created)."),
    procs: Optional[int] = typer.Option(None, "--procs", "-m", help="Machine size m of the schedules (required for schedule files)."),
    label: Optional[List[str]] = typer.Option(None, "--label", help="Legend label per schedule file (default: the file name)."),
    window_start: Optional[float] = typer.Option(None, "--window-start", metavar="DAYS", help="Gantt window start, in DAYS on the trace's clock (default: the median submit; 'simulate --gantt-window' takes seconds)."),
    window_days: float = typer.Option(2.0, "--window-days", metavar="DAYS", help="Gantt window length, in days."),
    trace: Optional[str] = typer.Option(None, "--trace", help="For a RUN: the training trace, when the path in its config.json does not exist here."),
) -> None:
    """Utilisation and queue length over time, a Gantt chart of a time window, wait per user group."""
    from ..report.schedule_plots import default_window, read_schedule_table, write_schedule_plots

    from .options import check_output, echo_wrote

    if not window_days > 0:
        raise PlotOptionError(f"--window-days must be > 0, got {window_days}")
    check_output(out, "plots", folder=True)
    if len(inputs) == 1 and inputs[0].is_dir():
        from ..metrics.per_job import job_table
        from ..optimize.evolve import run_workload
        from ..sim.strategies import simulate_any
        from ..strategy import Strategy

        workload, machine, best = run_workload(inputs[0], trace)
        what = "evolved" if isinstance(best, Strategy) else "rule base"  # rules runs: a rule base
        tables = {label_: job_table(simulate_any(workload, machine, s)) for label_, s in (("EASY", Strategy("easy")), (what, best))}
        m = machine.procs
        import json

        from ..report.run_report import titled

        name = titled(workload.name, json.loads((inputs[0] / "config.json").read_text()))  # read by run_workload
        title = f"{name}: EASY vs the {'evolved strategy' if what == 'evolved' else what} of {inputs[0].name}"
    else:
        if procs is None or procs <= 0:
            raise PlotOptionError("--procs: give the machine size m of the schedules (a positive number)")
        if label and len(label) != len(inputs):
            raise PlotOptionError(f"--label given {len(label)} times for {len(inputs)} schedules")
        names = label or [p.stem for p in inputs]
        tables = {n: read_schedule_table(p) for n, p in zip(names, inputs)}
        m = procs
        widest = max(int(t["procs"].max()) for t in tables.values())
        if widest > m:
            raise PlotOptionError(f"--procs {m} is narrower than a job of the schedules ({widest} processors)")
        title = " vs ".join(names)
    first = next(iter(tables.values()))
    t0 = window_start * 86400.0 if window_start is not None else default_window(first)[0]
    paths = write_schedule_plots(tables, m, out, title=title, window=(t0, t0 + window_days * 86400.0))
    echo_wrote(paths)
