"""`load_trace`: the ready-to-simulate pipeline behind every CLI verb, and the bundled traces."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ..errors import SWFError, WorkloadError
from .clean import clean
from .cut import cut_months
from .groups import assign_groups
from .model import Workload
from .swf import read_swf, swf_name

__all__ = ["BUNDLED", "FORMATS", "bundled_path", "resolve_trace", "read_trace", "load_trace", "sniff_format", "parse_format"]

#: trace formats ``read_trace`` reads; ``auto`` sniffs the file's first line
FORMATS: tuple[str, ...] = ("auto", "swf", "sacct", "pbs")

#: traces shipped inside the package (src/schedlab/workload/data; provenance in its README.md)
BUNDLED: dict[str, str] = {"KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz"}


def bundled_path(name: str) -> Path | None:
    """The file of a bundled trace named ``name`` (case-insensitive; short or archive name)."""
    low = name.strip().lower()
    for short, file in BUNDLED.items():
        if low in {short.lower(), swf_name(file).lower(), file.lower(), file[:-3].lower()}:
            return Path(str(resources.files("schedlab.workload") / "data" / file))
    return None


def resolve_trace(spec: str | os.PathLike) -> Path:
    """A trace file from a path or a bundled name; an existing path wins over a bundled name."""
    path = Path(spec)
    if path.exists():
        return path
    found = bundled_path(str(spec)) if isinstance(spec, str) else None
    if found is not None:
        return found
    names = ", ".join(BUNDLED)
    raise SWFError(spec, None, f"no such file (and not a bundled trace: {names})")


def parse_format(fmt: str | None) -> tuple[str, str | None]:
    """``"sacct:Europe/Berlin"`` -> ``("sacct", "Europe/Berlin")``; ``None`` -> ``("auto", None)``.

    The part after ``:`` is the IANA time zone the accounting file's local times are in (sacct
    and the dates of PBS records; default UTC). SWF carries its own zone in its header.
    """
    name, _, tz = (fmt or "auto").strip().partition(":")
    name = name.lower() or "auto"
    if name not in FORMATS:
        raise WorkloadError(f"unknown trace format {fmt!r}; choose one of {', '.join(FORMATS)} (sacct and pbs take :TIMEZONE)")
    if tz and name in ("swf", "auto"):
        raise WorkloadError(f"trace format {fmt!r}: a time zone goes with sacct: or pbs: only (SWF names its zone in its header)")
    return name, tz or None


def sniff_format(path: str | os.PathLike) -> str:
    """``swf``, ``sacct`` or ``pbs`` from the first non-blank line (SWF when nothing else fits)."""
    from .pbs import looks_like_pbs
    from .sacct import looks_like_sacct
    from .swf import _read_bytes

    data = _read_bytes(Path(path))
    for raw in data[:65536].splitlines():
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue
        if looks_like_sacct(line):
            return "sacct"
        if looks_like_pbs(line):
            return "pbs"
        return "swf"
    return "swf"


def read_trace(spec: str | os.PathLike, *, procs: int | None = None, format: str | None = None) -> Workload:
    """A path or a bundled trace name as a Workload: SWF, Slurm ``sacct`` or PBS accounting.

    ``format`` is ``auto`` (default: sniffed from the first line), ``swf``, ``sacct[:TZ]`` or
    ``pbs[:TZ]`` (see :func:`parse_format`).
    """
    name, tz = parse_format(format)
    path = resolve_trace(spec)
    if name == "auto":
        name = sniff_format(path)
    if name == "sacct":
        from .sacct import read_sacct

        return read_sacct(path, procs=procs, tz=tz)
    if name == "pbs":
        from .pbs import read_pbs

        return read_pbs(path, procs=procs, tz=tz)
    return read_swf(path, procs=procs)


def load_trace(
    spec: str | os.PathLike | Workload,
    *,
    procs: int | None = None,
    months: int | None = None,
    missing_estimate: str = "runtime",
    format: str | None = None,
) -> Workload:
    """Read, clean, optionally cut to the first ``months`` months, and assign user groups.

    ``spec`` is a path, a bundled name (``"KTH-SP2"``) or a Workload; ``procs`` overrides the
    machine size (required when the trace has no MaxProcs/MaxNodes header). Cleaning happens
    before the cut, so the window starts at the first valid job; groups are computed on the
    jobs that remain (greedy-es-sorting-criteria Table II). ``format`` as :func:`read_trace`.
    """
    w = spec if isinstance(spec, Workload) else read_trace(spec, format=format)
    w, _ = clean(w, procs=procs, missing_estimate=missing_estimate)
    if months is not None:
        w = cut_months(w, months)
    return assign_groups(w)
