"""`schedlab workload` commands: info, clean, cut, group, scale, convert, fetch (thin layer over schedlab.workload)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import WorkloadError
from .app import sub_app
from .options import (AS_JSON, DEFAULT_SEED, OUTPUT, TRACE_HELP, OptionError, TraceOptions, check_output, non_negative_seed,
                      positive, with_trace_options)

workload_app = sub_app("workload", "Inspect and prepare workload traces: info, clean, cut, group, scale, convert (Slurm/PBS), fetch.")

TRACE = typer.Argument(..., help=TRACE_HELP)


def _console():
    from rich.console import Console

    console = Console(file=sys.stdout)
    return console if console.is_terminal else Console(file=sys.stdout, width=200)


def _write(workload, output: Path) -> None:
    """Write the trace atomically, the output path checked first; then one line saying what was written."""
    from ..workload import write_swf
    from ..workload.swf import current_header

    workload = workload.replace(header=current_header(workload))  # no stale MaxRecords/StartTime/EndTime
    write_swf(workload, output)
    typer.echo(f"wrote {output} ({len(workload):,} jobs, {workload.machine_procs} processors)")


def _reshaped(workload, opts: TraceOptions):
    """``--months`` then ``--scale-to`` of a cleaned workload (the verb's own step comes first)."""
    from ..workload import assign_groups, cut_months

    if opts.months is not None:
        workload = assign_groups(cut_months(workload, opts.months))
    return opts.rescale(workload)


@workload_app.command("info")
@with_trace_options
def info_command(
    trace: str = TRACE,
    as_json: bool = AS_JSON,
    opts: TraceOptions = None,
) -> None:
    """Summarise a trace: jobs, machine size, span, offered load, estimates, users, user groups.

    With --months or --scale-to, the summary is of the trace as simulate would run it (cleaned, cut, scaled).
    """
    from rich.table import Table

    from ..workload import read_trace, workload_info
    from ..workload.info import info_rows

    reshaped = opts.months is not None or opts.scale_to is not None
    info = workload_info(opts.load(trace) if reshaped else read_trace(trace, procs=opts.procs, format=opts.fmt), paper_sizes=not reshaped)
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
@with_trace_options
def clean_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    opts: TraceOptions = None,
    missing_estimate: str = typer.Option("runtime", "--missing-estimate", help="Jobs without estimate: 'runtime' (use runtime) or 'drop'."),
) -> None:
    """Remove jobs that cannot be simulated and print how many for each reason (then --months, --scale-to)."""
    from ..workload import clean, read_trace

    check_output(output, "trace")
    cleaned, report = clean(read_trace(trace, format=opts.fmt), procs=opts.procs, missing_estimate=missing_estimate)
    out = _reshaped(cleaned, opts) if (opts.months or opts.scale_to) else cleaned
    _console().print(report.to_table(title=f"cleaning {cleaned.name}"))
    _write(out, output)


@workload_app.command("cut")
@with_trace_options
def cut_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    opts: TraceOptions = None,
    after_months: Optional[int] = typer.Option(
        None, "--after-months", metavar="S",
        help="Drop the first S calendar months: keep months S+1..N (to the end without --months), the test "
             "window of --split-months S, so a run's test row replays on the written trace."),
) -> None:
    """Keep the jobs of calendar months 1..N (--months; S+1..N with --after-months S); submit times rebased to 0."""
    from ..workload import cut_months, read_trace
    from ..workload.cut import cut_window

    positive("--after-months", after_months)
    if after_months is not None and opts.months is not None and after_months >= opts.months:
        raise OptionError(f"--after-months {after_months} keeps no month of --months {opts.months}")
    if opts.months is None and after_months is None:
        raise OptionError("cut needs --months N (the calendar months to keep) or --after-months S")
    check_output(output, "trace")
    if opts.scale_to is not None:  # scaling needs a cleaned trace
        if after_months is None:
            out = opts.load(trace)
        else:  # the test part of --split-months S, scaled as a split run scales it
            from ..optimize.calibrate import easy_util
            from ..workload.spec import split_trace

            out = split_trace(opts.spec(trace, split_months=after_months), utilisation=easy_util)[1]
    elif after_months is None:
        out = cut_months(read_trace(trace, procs=opts.procs, format=opts.fmt), opts.months)
    else:
        out = cut_window(read_trace(trace, procs=opts.procs, format=opts.fmt), after_months, opts.months)
        if len(out) == 0:
            raise WorkloadError(f"{trace}: months {after_months + 1}-{opts.months or ''} hold no jobs")
    _write(out, output)


@workload_app.command("group")
@with_trace_options
def group_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    opts: TraceOptions = None,
) -> None:
    """Clean, assign the 5 user groups, print their shares, write the trace (groups in a header line)."""
    from ..workload import group_shares

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
@with_trace_options
def scale_command(
    trace: str = TRACE,
    output: Path = OUTPUT,
    opts: TraceOptions = None,
    scale_seed: int = typer.Option(0, "--scale-seed", callback=non_negative_seed, help="Seed of the scaling (0, as every verb's --scale-to)."),
    f_adj: Optional[float] = typer.Option(None, "--f-adj", help="Adjusted scaling factor (default m'/m)."),
    q: Optional[float] = typer.Option(None, "--q", help="Copy probability (default: calibrated to the published job count, else 0.5)."),
) -> None:
    """Clean the trace and scale it to --scale-to processors (Ernemann et al. 2003); --procs is the input's size."""
    from ..workload import assign_groups, clean, cut_months, read_trace, scale
    from ..workload.load import refuse_too_wide

    if opts.scale_to is None:
        raise OptionError("scale needs --scale-to M (the target machine size)")
    if opts.calibrate_load and (f_adj is not None or q is not None):
        raise OptionError("--calibrate-load chooses the scaling factor itself: drop --f-adj / --q")
    check_output(output, "trace")
    if opts.calibrate_load:
        scaled = opts.load(trace)
    else:
        raw = read_trace(trace, format=opts.fmt)
        refuse_too_wide(raw, opts.procs, trace, opts.fmt)  # as every verb that loads a trace: never dropped silently
        cleaned, _ = clean(raw, procs=opts.procs)
        if opts.months is not None:
            cleaned = assign_groups(cut_months(cleaned, opts.months))
        scaled = scale(cleaned, opts.scale_to, f_adj=f_adj, q=q, seed=scale_seed)
    _write(scaled, output)


@workload_app.command("convert")
def convert_command(
    file: Path = typer.Argument(..., help="A Slurm 'sacct --parsable2' file or a PBS/Torque/PBS Pro accounting log."),
    source: str = typer.Option(..., "--from", help="Input format: sacct or pbs (sacct:ZONE / pbs:ZONE for local times not in UTC)."),
    output: Path = OUTPUT,
    procs: Optional[int] = typer.Option(None, "--procs", "-m", help="Machine size m, written as MaxProcs (accounting files do not say)."),
    tz: Optional[str] = typer.Option(None, "--tz", help="IANA time zone of the file's local times (default UTC; same as --from sacct:ZONE)."),
    bad_lines: str = typer.Option("error", "--bad-lines", help="A line that cannot be read: 'error' (one line naming file and line, nothing written) or 'skip' (count it, name the first, go on: a log with a line cut by a crash)."),
) -> None:
    """Convert Slurm or PBS accounting to SWF (with a header); print what was skipped and what cleaning will do.

    A job wider than --procs is an error before anything is written (as every verb that reads a trace
    refuses it), not an SWF whose header contradicts its jobs. Jobs that ran without a time limit
    are written with estimate -1 and counted; the last line says what each policy gives them."""
    from ..workload import clean, write_swf

    check_output(output, "trace")
    from ..workload.load import parse_format
    from ..workload.pbs import parse_pbs
    from ..workload.sacct import parse_sacct

    positive("--procs", procs)
    name, zone = parse_format(source)
    if name not in ("sacct", "pbs"):
        raise WorkloadError(f"--from {source!r}: choose sacct or pbs")
    if tz and zone and tz != zone:
        raise WorkloadError(f"--tz {tz} contradicts --from {source}")
    reader = parse_sacct if name == "sacct" else parse_pbs
    workload, read = reader(file, procs=procs, tz=tz or zone, bad_lines=bad_lines)
    if procs is not None:
        from ..workload.load import refuse_too_wide

        refuse_too_wide(workload, procs, file, name)  # a header's MaxProcs never below its widest job
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
    if read.first_damaged:
        typer.echo(f"{read.skipped['damaged lines']:,} damaged lines skipped (--bad-lines skip); the first: {read.first_damaged}")
    if read.no_limit:
        typer.echo(f"{read.no_limit:,} jobs ran without a time limit (UNLIMITED, Partition_Limit or none), written with estimate -1 "
                   "and listed as SchedlabNoLimit: --policy slurm gives them their partition's DefaultTime, else MaxTime "
                   "(--slurm-option unlimited_estimate=partition, Slurm's reading; or max-time, runtime); every other policy "
                   "their runtime, as 'kept: no estimate, set to runtime' above ('workload clean --missing-estimate drop' removes them)")
    from ..workload.resources import swf_loss_note

    lost = swf_loss_note(workload.resources)
    if lost is not None:
        typer.echo(f"note: {lost}")
    typer.echo(f"wrote {output} ({len(workload):,} jobs, {workload.machine_procs or 'unknown'} processors, time zone {workload.timezone})")


@workload_app.command("fetch")
def fetch_command(
    name: str = typer.Argument(..., help="Archive name, e.g. CTC-SP2-1996-3.1-cln (a unique prefix such as CTC-SP2 is enough)."),
    folder: Optional[Path] = typer.Option(None, "--dir", help="Where to put it (default $SCHEDLAB_CACHE_DIR/workloads or ~/.cache/schedlab/workloads, where every verb finds it by name)."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="Archive base URL (default $SCHEDLAB_ARCHIVE_URL, else the Parallel Workloads Archive)."),
    retries: int = typer.Option(3, "--retries", help="Retries of a broken download (each resumes it)."),
    unverified: bool = typer.Option(False, "--unverified", help="Allow a trace whose checksum schedlab does not know (prints its sha256)."),
) -> None:
    """Download a Parallel Workloads Archive trace into a local cache, verified by checksum; resumable."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    from ..workload.fetch import bundled_file, find_trace, fetch, swf_sha256

    if retries < 0:
        raise WorkloadError(f"--retries must be >= 0, got {retries}")
    trace = find_trace(name)
    if bundled_file(trace) is not None:  # shipped with schedlab: no network
        path = fetch(trace.name, folder)
        typer.echo(f"{trace.name} is bundled with schedlab and needs no fetch (every verb takes its name); copied to {path}")
        return
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


generate_app = typer.Typer(name="generate", help="Generate synthetic workloads: lublin, gpu-cluster.", no_args_is_help=True,
                           add_completion=False, pretty_exceptions_enable=False)
workload_app.add_typer(generate_app, name="generate")


@generate_app.command("lublin")
def generate_lublin_command(
    output: Path = OUTPUT,
    jobs: int = typer.Option(10_000, "--jobs", "-n", help="Number of jobs."),
    procs: int = typer.Option(128, "--procs", "-m", help="Machine size (nodes, 1 or more); UHi = log2(procs), UMed = UHi - 2.5 clamped into [ULow, UHi] on small machines."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", callback=non_negative_seed, help="Random seed (the workload is deterministic for it)."),
    params: str = typer.Option("typeless", "--params", help="Parameter set: typeless (thesis Table 5) | batch | interactive."),
) -> None:
    """Generate a Lublin-Feitelson workload (m_lublin99.c) and write it as SWF; the header records model and seed."""
    from ..workload.lublin import PARAMETER_SETS, lublin

    positive("--procs", procs)
    check_output(output, "trace")
    if jobs < 1:
        raise WorkloadError(f"--jobs must be at least 1, got {jobs}")
    if params not in PARAMETER_SETS:
        raise WorkloadError(f"--params must be one of {', '.join(PARAMETER_SETS)}, got {params!r}")
    workload = lublin(jobs, procs, seed=seed, params=params)
    _write(workload, output)


def _gpu_cluster_options() -> dict:
    """One ``--NAME`` option per :class:`~schedlab.workload.gpucluster.GpuClusterParams` field, its default shown."""
    from ..workload.gpucluster import PARAMETERS

    kinds = {"int": int, "float": float}
    return {name: (kinds[str(kind)], typer.Option(default, f"--{name.replace('_', '-')}", help=f"{text[0].upper()}{text[1:]}."))
            for name, kind, default, text in PARAMETERS}


def _with_gpu_cluster_options(command):
    from ..workload.gpucluster import GpuClusterParams
    from .options import spliced

    return spliced(command, "params", _gpu_cluster_options(), lambda values: GpuClusterParams(**values))


@generate_app.command("gpu-cluster")
@_with_gpu_cluster_options
def generate_gpu_cluster_command(
    output: Path = OUTPUT,
    seed: int = typer.Option(DEFAULT_SEED, "--seed", callback=non_negative_seed, help="Random seed (the workload is deterministic for it)."),
    params=None,
    slurm_conf_out: Optional[Path] = typer.Option(None, "--slurm-conf-out", help="Also write a slurm.conf of the machine (nodes with RealMemory and Gres=gpu:N, partitions cpu and gpu)."),
) -> None:
    """Generate a synthetic GPU-cluster workload (CPU and GPU partitions, memory and GPUs, users over a QOS
    MaxJobsPerUser) and write it as SWF: memory in field 10, GPUs in the SchedlabGPUs header line."""
    from ..workload.gpucluster import gpu_cluster, slurm_conf_text

    check_output(output, "trace")
    if slurm_conf_out is not None:
        check_output(slurm_conf_out, "slurm.conf")
    try:
        params.check()
    except ValueError as exc:
        raise WorkloadError(f"--{str(exc).split()[0].replace('_', '-')}: {exc}") from None
    workload = gpu_cluster(params, seed=seed)
    _write(workload, output)
    if slurm_conf_out is not None:
        from .._atomic import atomic_write_bytes

        atomic_write_bytes(slurm_conf_out, slurm_conf_text(params).encode(), fsync=False)
        typer.echo(f"wrote {slurm_conf_out} (slurm.conf of the machine)")
