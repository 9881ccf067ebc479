"""`schedlab workload` commands: info, clean, cut, group, scale (thin layer over schedlab.workload)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import WorkloadError
from .main import sub_app

workload_app = sub_app("workload", "Inspect and prepare SWF workload traces: info, clean, cut, group, scale.")

TRACE = typer.Argument(..., help="SWF trace (.swf or .swf.gz) or a bundled name such as KTH-SP2.")
OUT = typer.Option(..., "--output", "-o", help="Output SWF file (.gz to compress); written atomically.")
PROCS = typer.Option(None, "--procs", "-m", help="Machine size m (overrides the header's MaxProcs/MaxNodes).")


def _console():
    from rich.console import Console

    console = Console(file=sys.stdout)
    return console if console.is_terminal else Console(file=sys.stdout, width=200)


def _check_procs(procs: Optional[int]) -> None:
    if procs is not None and procs <= 0:
        raise WorkloadError(f"--procs must be a positive number of processors, got {procs}")


def _done(out: Path, workload) -> None:
    typer.echo(f"wrote {out} ({len(workload):,} jobs, {workload.machine_procs} processors)")


@workload_app.command("info")
def info_command(
    trace: str = TRACE,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
    procs: Optional[int] = PROCS,
) -> None:
    """Summarise a trace: jobs, machine size, span, offered load, estimates, users, user groups."""
    from rich.table import Table

    from ..workload import read_trace, workload_info
    from ..workload.info import info_rows

    _check_procs(procs)
    info = workload_info(read_trace(trace, procs=procs))
    if as_json:
        typer.echo(json.dumps(info, allow_nan=False))
        return
    table = Table(title=f"{info['name']}")
    table.add_column("property")
    table.add_column("value")
    for label, value in info_rows(info):
        table.add_row(label, value)
    _console().print(table)


@workload_app.command("clean")
def clean_command(
    trace: str = TRACE,
    output: Path = OUT,
    procs: Optional[int] = PROCS,
    missing_estimate: str = typer.Option("runtime", "--missing-estimate", help="Jobs without estimate: 'runtime' (use runtime) or 'drop'."),
) -> None:
    """Remove jobs that cannot be simulated and print how many for each reason."""
    from ..workload import clean, read_trace, write_swf

    _check_procs(procs)
    cleaned, report = clean(read_trace(trace), procs=procs, missing_estimate=missing_estimate)
    write_swf(cleaned, output)
    _console().print(report.to_table(title=f"cleaning {cleaned.name}"))
    _done(output, cleaned)


@workload_app.command("cut")
def cut_command(
    trace: str = TRACE,
    output: Path = OUT,
    months: int = typer.Option(..., "--months", help="Keep the first N calendar months (trace time zone)."),
) -> None:
    """Keep the jobs of the first N calendar months; submit times rebased to 0."""
    from ..workload import cut_months, read_trace, write_swf

    cut = cut_months(read_trace(trace), months)
    write_swf(cut, output)
    _done(output, cut)


@workload_app.command("group")
def group_command(
    trace: str = TRACE,
    output: Path = OUT,
    procs: Optional[int] = PROCS,
    months: Optional[int] = typer.Option(None, "--months", help="Cut to the first N months first."),
) -> None:
    """Clean, assign the 5 user groups, print their shares, write the trace (groups in a header line)."""
    from ..workload import group_shares, load_trace, write_swf

    _check_procs(procs)
    grouped = load_trace(trace, procs=procs, months=months)
    write_swf(grouped, output)
    from rich.table import Table

    table = Table(title=f"user groups of {grouped.name} (greedy-es-sorting-criteria Table II)")
    for col in ("group", "users", "jobs", "share of jobs", "share of runtime*procs"):
        table.add_column(col, justify="right")
    for g, s in group_shares(grouped).items():
        table.add_row(str(g), f"{s['users']:,}", f"{s['jobs']:,}", f"{100 * s['job_share']:.1f} %", f"{100 * s['area_share']:.1f} %")
    _console().print(table)
    _done(output, grouped)


@workload_app.command("scale")
def scale_command(
    trace: str = TRACE,
    output: Path = OUT,
    procs: int = typer.Option(..., "--procs", "-m", help="Target machine size m'."),
    source_procs: Optional[int] = typer.Option(None, "--source-procs", help="Machine size of the input (overrides its header)."),
    seed: int = typer.Option(0, "--seed", help="Random seed (the result is deterministic for it)."),
    f_adj: Optional[float] = typer.Option(None, "--f-adj", help="Adjusted scaling factor (default m'/m)."),
    q: Optional[float] = typer.Option(None, "--q", help="Copy probability (default: calibrated to the published job count, else 0.5)."),
) -> None:
    """Clean the trace and scale it to another machine size (Ernemann et al. 2003)."""
    from ..workload import clean, read_trace, scale, write_swf

    _check_procs(procs)
    _check_procs(source_procs)
    cleaned, _ = clean(read_trace(trace), procs=source_procs)
    scaled = scale(cleaned, procs, f_adj=f_adj, q=q, seed=seed)
    write_swf(scaled, output)
    _done(output, scaled)


generate_app = typer.Typer(name="generate", help="Generate synthetic workloads: lublin.", no_args_is_help=True,
                           add_completion=False, pretty_exceptions_enable=False)
workload_app.add_typer(generate_app, name="generate")


@generate_app.command("lublin")
def generate_lublin_command(
    output: Path = OUT,
    jobs: int = typer.Option(10_000, "--jobs", "-n", help="Number of jobs."),
    procs: int = typer.Option(128, "--procs", "-m", help="Machine size (nodes); UHi = log2(procs)."),
    seed: int = typer.Option(0, "--seed", help="Random seed (the workload is deterministic for it)."),
    params: str = typer.Option("typeless", "--params", help="Parameter set: typeless (thesis Table 5) | batch | interactive."),
) -> None:
    """Generate a Lublin-Feitelson workload (m_lublin99.c) and write it as SWF; the header records model and seed."""
    from ..workload import write_swf
    from ..workload.lublin import PARAMETER_SETS, lublin

    _check_procs(procs)
    if jobs < 1:
        raise WorkloadError(f"--jobs must be at least 1, got {jobs}")
    if params not in PARAMETER_SETS:
        raise WorkloadError(f"--params must be one of {', '.join(PARAMETER_SETS)}, got {params!r}")
    workload = lublin(jobs, procs, seed=seed, params=params)
    write_swf(workload, output)
    _done(output, workload)
