"""The ``--format`` option of every verb that reads a TRACE (SWF, Slurm sacct, PBS accounting)."""

from __future__ import annotations

import typer

FORMAT_HELP = (
    "Trace format: auto (sniffed from the first line), swf, sacct or pbs; sacct/pbs take the time zone "
    "of their local times, e.g. sacct:Europe/Berlin (default UTC)."
)

FORMAT = typer.Option(None, "--format", help=FORMAT_HELP)
