"""`schedlab workload` commands: info, clean, cut, group, scale (thin layer over schedlab.workload)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import WorkloadError
from .main import sub_app
from .trace_format import FORMAT

workload_app = sub_app("workload", "Inspect and prepare SWF workload traces: info, clean, cut, group, scale.")

TRACE = typer.Argument(..., help="Trace: SWF (.swf, .swf.gz), Slurm sacct --parsable2 or PBS accounting file, or a bundled name such as KTH-SP2.")
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
    fmt: Optional[str] = FORMAT,
) -> None:
    """Summarise a trace: jobs, machine size, span, offered load, estimates, users, user groups."""
    from rich.table import Table

    from ..workload import read_trace, workload_info
    from ..workload.info import info_rows

    _check_procs(procs)
    info = workload_info(read_trace(trace, procs=procs, format=fmt))
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
    fmt: Optional[str] = FORMAT,
) -> None:
    """Remove jobs that cannot be simulated and print how many for each reason."""
    from ..workload import clean, read_trace, write_swf

    _check_procs(procs)
    cleaned, report = clean(read_trace(trace, format=fmt), procs=procs, missing_estimate=missing_estimate)
    write_swf(cleaned, output)
    _console().print(report.to_table(title=f"cleaning {cleaned.name}"))
    _done(output, cleaned)


@workload_app.command("cut")
def cut_command(
    trace: str = TRACE,
    output: Path = OUT,
    months: int = typer.Option(..., "--months", help="Keep the first N calendar months (trace time zone)."),
    fmt: Optional[str] = FORMAT,
) -> None:
    """Keep the jobs of the first N calendar months; submit times rebased to 0."""
    from ..workload import cut_months, read_trace, write_swf

    cut = cut_months(read_trace(trace, format=fmt), months)
    write_swf(cut, output)
    _done(output, cut)


@workload_app.command("group")
def group_command(
    trace: str = TRACE,
    output: Path = OUT,
    procs: Optional[int] = PROCS,
    months: Optional[int] = typer.Option(None, "--months", help="Cut to the first N months first."),
    fmt: Optional[str] = FORMAT,
) -> None:
    """Clean, assign the 5 user groups, print their shares, write the trace (groups in a header line)."""
    from ..workload import group_shares, load_trace, write_swf

    _check_procs(procs)
    grouped = load_trace(trace, procs=procs, months=months, format=fmt)
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
    fmt: Optional[str] = FORMAT,
) -> None:
    """Clean the trace and scale it to another machine size (Ernemann et al. 2003)."""
    from ..workload import clean, read_trace, scale, write_swf

    _check_procs(procs)
    _check_procs(source_procs)
    cleaned, _ = clean(read_trace(trace, format=fmt), procs=source_procs)
    scaled = scale(cleaned, procs, f_adj=f_adj, q=q, seed=seed)
    write_swf(scaled, output)
    _done(output, scaled)


@workload_app.command("convert")
def convert_command(
    file: Path = typer.Argument(..., help="A Slurm 'sacct --parsable2' file or a PBS/Torque/PBS Pro accounting log."),
    source: str = typer.Option(..., "--from", help="Input format: sacct or pbs (sacct:ZONE / pbs:ZONE for local times not in UTC)."),
    output: Path = OUT,
    procs: Optional[int] = typer.Option(None, "--procs", "-m", help="Machine size m, written as MaxProcs (accounting files do not say)."),
    tz: Optional[str] = typer.Option(None, "--tz", help="IANA time zone of the file's local times (default UTC; same as --from sacct:ZONE)."),
) -> None:
    """Convert Slurm or PBS accounting to SWF (with a header); print what was skipped and what cleaning will do."""
    from ..workload import clean, write_swf
    from ..workload.load import parse_format
    from ..workload.pbs import parse_pbs
    from ..workload.sacct import parse_sacct

    _check_procs(procs)
    name, zone = parse_format(source)
    if name not in ("sacct", "pbs"):
        raise WorkloadError(f"--from {source!r}: choose sacct or pbs")
    if tz and zone and tz != zone:
        raise WorkloadError(f"--tz {tz} contradicts --from {source}")
    reader = parse_sacct if name == "sacct" else parse_pbs
    workload, read = reader(file, procs=procs, tz=tz or zone)
    write_swf(workload, output)
    from rich.table import Table

    table = Table(title=f"reading {file.name} as {name}")
    table.add_column("records")
    table.add_column("count", justify="right")
    for label, value in read.rows():
        table.add_row(label, f"{value:,}")
    _console().print(table)
    if workload.machine_procs is not None:
        _, report = clean(workload)
        _console().print(report.to_table(title="what 'schedlab workload clean' will do"))
    typer.echo(f"wrote {output} ({len(workload):,} jobs, {workload.machine_procs or 'unknown'} processors, time zone {workload.timezone})")


@workload_app.command("fetch")
def fetch_command(
    name: str = typer.Argument(..., help="Archive name, e.g. CTC-SP2-1996-3.1-cln (a unique prefix such as CTC-SP2 is enough)."),
    folder: Optional[Path] = typer.Option(None, "--dir", help="Where to put it (default $SCHEDLAB_CACHE/workloads or ~/.cache/schedlab/workloads)."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="Archive base URL (default $SCHEDLAB_ARCHIVE_URL, else the Parallel Workloads Archive)."),
    retries: int = typer.Option(3, "--retries", help="Retries of a broken download (each resumes it)."),
    unverified: bool = typer.Option(False, "--unverified", help="Allow a trace whose checksum schedlab does not know (prints its sha256)."),
) -> None:
    """Download a Parallel Workloads Archive trace into a local cache, verified by checksum; resumable."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    from ..workload.fetch import find_trace, fetch, swf_sha256

    if retries < 0:
        raise WorkloadError(f"--retries must be >= 0, got {retries}")
    trace = find_trace(name)
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(trace.file, total=None)

        def progress(done: int, total: Optional[int]) -> None:
            bar.update(task, completed=done, total=total)

        def retry(attempt: int, reason: str) -> None:
            bar.console.print(f"download broken ({reason}); retry {attempt}/{retries}, resuming")

        path = fetch(trace.name, folder, base_url=base_url, retries=retries, unverified=unverified, progress=progress, on_retry=retry)
    state = "verified" if trace.sha256 else f"NOT verified (sha256 of the uncompressed SWF: {swf_sha256(path.read_bytes())})"
    typer.echo(f"{path} ({path.stat().st_size:,} bytes, {state})")
