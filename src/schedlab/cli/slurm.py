"""``schedlab slurm check``: a site's accounting log against ``--policy slurm`` (issue 44 item 3).
A thin layer over :mod:`schedlab.slurm.check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .app import sub_app
from .options import AS_JSON, FORMAT, PROCS, SLURM_CONF, SLURM_ASSOC, SLURM_OPTION, SLURM_QOS, SLURM_SHARES, OptionError, check_output

slurm_app = sub_app("slurm", "A site's Slurm: check --policy slurm against the site's own accounting log.")


@slurm_app.command("check")
def check_command(
    log: str = typer.Argument(..., help="The site's accounting log: sacct --parsable2 (add Eligible,Reservation to "
                                        "--format to have unexplained jobs explained; Restarts where sacct has it, 22.05's has not), or an SWF trace with recorded waits.",
                              show_default=False),
    fmt: Optional[str] = FORMAT,
    procs: Optional[int] = PROCS,
    out: Optional[Path] = typer.Option(None, "--out", help="Also write report.md, jobs.csv and check.png into this folder."),
    as_json: bool = AS_JSON,
    slurm_conf: Optional[Path] = SLURM_CONF,
    slurm_shares: Optional[Path] = SLURM_SHARES,
    slurm_option: Optional[str] = SLURM_OPTION,
    slurm_qos: Optional[Path] = SLURM_QOS,
    slurm_assoc: Optional[Path] = SLURM_ASSOC,
) -> None:
    """Simulate the log's jobs with the site's slurm.conf and set simulated beside recorded starts:
    per-job start error, mean wait and AWRT per partition and user group, the jobs the model
    cannot explain and why, a plot."""
    from ..optimize.calibrate import easy_util
    from ..slurm.check import check_log, read_extras, text_report, write_outputs
    from ..slurm.policy import load_policy
    from ..workload.spec import TraceSpec, prepare_trace

    if slurm_conf is None:
        raise OptionError("slurm check needs --slurm-conf FILE (the site's slurm.conf)")
    policy = load_policy(slurm_conf, shares=slurm_shares, options=slurm_option, qos=slurm_qos, assoc=slurm_assoc)
    for line in policy.conf.ignored:
        typer.echo(f"ignored: {line}", err=True)
    if out is not None:
        check_output(out, "check report", folder=True)
    if procs is None and policy.conf.node_cpus and _is_sacct(log, fmt):
        procs = int(sum(policy.conf.node_cpus))  # a sacct log names no machine size: the slurm.conf's nodes do
    workload = prepare_trace(TraceSpec(log, format=fmt, procs=procs), utilisation=easy_util)
    path = Path(log)
    extras = read_extras(path, tz=(fmt or "").partition(":")[2] or None) if path.is_file() else {}
    report = check_log(workload, policy, extras=extras)
    for line in report.notes:
        typer.echo(f"note: {line}", err=True)
    if as_json:
        typer.echo(json.dumps({"summary": report.summary(),
                               "sets": [{"set": k, "name": n, **g} for (k, n), g in report.groups.items()],
                               "unexplained": report.unexplained()}, indent=2))
    else:
        typer.echo(text_report(report, path.name), nl=False)
    if out is not None:
        for p in write_outputs(report, out, path.name):
            typer.echo(f"wrote {p}", err=True)


def _is_sacct(log: str, fmt: Optional[str]) -> bool:
    """Whether the log is read as sacct (named so, or sniffed from its first line)."""
    if fmt:
        return fmt.partition(":")[0] == "sacct"
    from ..workload.sacct import looks_like_sacct

    try:
        with open(log, errors="replace") as fh:
            return looks_like_sacct(fh.readline())
    except OSError:
        return False  # (the reader names the problem)
