"""`schedlab workload` commands: info, clean, cut, group, scale (thin layer over schedlab.workload)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .main import sub_app
from .options import AS_JSON, CALIBRATE_LOAD, MONTHS, OUTPUT, PROCS, SCALE_TO, TRACE_HELP, OptionError, TraceOptions, check_output

workload_app = sub_app("workload", "Inspect and prepare SWF workload traces: info, clean, cut, group, scale.")

TRACE = typer.Argument(..., help=TRACE_HELP)


def _console():
    from rich.console import Console

    console = Console(file=sys.stdout)
    return console if console.is_terminal else Console(file=sys.stdout, width=200)


def _write(workload, output: Path) -> None:
    """Write the trace atomically, the output path checked first; then one line saying what was written."""
    from ..workload import write_swf

    write_swf(workload, output)
    typer.echo(f"wrote {output} ({len(workload):,} jobs, {workload.machine_procs} processors)")


def _reshaped(workload, opts: TraceOptions):
    """``--months`` then ``--scale-to`` of a cleaned workload (the verb's own step comes first)."""
    from ..workload import assign_groups, cut_months

    if opts.months is not None:
        workload = assign_groups(cut_months(workload, opts.months))
    return opts.rescale(workload)


@workload_app.command("info")
def info_command(
    trace: str = TRACE,
    as_json: bool = AS_JSON,
    procs: Optional[int] = PROCS,
    months: Optional[int] = MONTHS,
    scale_to: Optional[int] = SCALE_TO,
    calibrate_load: bool = CALIBRATE_LOAD,
) -> None:
    """Summarise a trace: jobs, machine size, span, offered load, estimates, users, user groups.

    With --months or --scale-to, the summary is of the trace as simulate would run it (cleaned, cut, scaled).
    """
    from rich.table import Table

    from ..workload import read_trace, workload_info
    from ..workload.info import info_rows

    opts = TraceOptions(procs, months, scale_to, calibrate_load)
    reshaped = months is not None or scale_to is not None
    info = workload_info(opts.load(trace) if reshaped else read_trace(trace, procs=procs))
    if as_json:
        typer.echo(json.dumps({"trace": info["name"], "trace_options": opts.to_dict(), **info}, allow_nan=False))
        return
    table = Table(title=f"{info['name']}" + (f" ({opts.describe()})" if opts.describe() else ""))
    table.add_column("property")
    table.add_column("value")
    for label, value in info_rows(info):
        table.add_row(label, value)
    _console().print(table)


@workload_app.command("clean")
def clean_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    procs: Optional[int] = PROCS,
    months: Optional[int] = MONTHS,
    scale_to: Optional[int] = SCALE_TO,
    calibrate_load: bool = CALIBRATE_LOAD,
    missing_estimate: str = typer.Option("runtime", "--missing-estimate", help="Jobs without estimate: 'runtime' (use runtime) or 'drop'."),
) -> None:
    """Remove jobs that cannot be simulated and print how many for each reason (then --months, --scale-to)."""
    from ..workload import clean, read_trace

    opts = TraceOptions(procs, months, scale_to, calibrate_load)
    check_output(output, "trace")
    cleaned, report = clean(read_trace(trace), procs=procs, missing_estimate=missing_estimate)
    out = _reshaped(cleaned, opts) if (months or scale_to) else cleaned
    _console().print(report.to_table(title=f"cleaning {cleaned.name}"))
    _write(out, output)


@workload_app.command("cut")
def cut_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    months: Optional[int] = MONTHS,
    procs: Optional[int] = PROCS,
    scale_to: Optional[int] = SCALE_TO,
    calibrate_load: bool = CALIBRATE_LOAD,
) -> None:
    """Keep the jobs of the first N calendar months (--months, required); submit times rebased to 0."""
    from ..workload import cut_months, read_trace

    if months is None:
        raise OptionError("cut needs --months N (the calendar months to keep)")
    opts = TraceOptions(procs, months, scale_to, calibrate_load)
    check_output(output, "trace")
    if scale_to is not None:  # scaling needs a cleaned trace
        out = opts.load(trace)
    else:
        out = cut_months(read_trace(trace, procs=procs), months)
    _write(out, output)


@workload_app.command("group")
def group_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    procs: Optional[int] = PROCS,
    months: Optional[int] = MONTHS,
    scale_to: Optional[int] = SCALE_TO,
    calibrate_load: bool = CALIBRATE_LOAD,
) -> None:
    """Clean, assign the 5 user groups, print their shares, write the trace (groups in a header line)."""
    from ..workload import group_shares

    opts = TraceOptions(procs, months, scale_to, calibrate_load)
    check_output(output, "trace")
    grouped = opts.load(trace)
    from rich.table import Table

    table = Table(title=f"user groups of {grouped.name} (greedy-es-sorting-criteria Table II)")
    for col in ("group", "users", "jobs", "share of jobs", "share of runtime*procs"):
        table.add_column(col, justify="right")
    for g, s in group_shares(grouped).items():
        table.add_row(str(g), f"{s['users']:,}", f"{s['jobs']:,}", f"{100 * s['job_share']:.1f} %", f"{100 * s['area_share']:.1f} %")
    _console().print(table)
    _write(grouped, output)


@workload_app.command("scale")
def scale_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    scale_to: Optional[int] = SCALE_TO,
    procs: Optional[int] = PROCS,
    months: Optional[int] = MONTHS,
    calibrate_load: bool = CALIBRATE_LOAD,
    scale_seed: int = typer.Option(0, "--scale-seed", help="Seed of the scaling (0, as every verb's --scale-to)."),
    f_adj: Optional[float] = typer.Option(None, "--f-adj", help="Adjusted scaling factor (default m'/m)."),
    q: Optional[float] = typer.Option(None, "--q", help="Copy probability (default: calibrated to the published job count, else 0.5)."),
) -> None:
    """Clean the trace and scale it to --scale-to processors (Ernemann et al. 2003); --procs is the input's size."""
    from ..workload import assign_groups, clean, cut_months, read_trace, scale

    if scale_to is None:
        raise OptionError("scale needs --scale-to M (the target machine size)")
    opts = TraceOptions(procs, months, scale_to, calibrate_load)
    if calibrate_load and (f_adj is not None or q is not None):
        raise OptionError("--calibrate-load chooses the scaling factor itself: drop --f-adj / --q")
    check_output(output, "trace")
    if calibrate_load:
        scaled = opts.load(trace)
    else:
        cleaned, _ = clean(read_trace(trace), procs=procs)
        if months is not None:
            cleaned = assign_groups(cut_months(cleaned, months))
        scaled = scale(cleaned, scale_to, f_adj=f_adj, q=q, seed=scale_seed)
    _write(scaled, output)
