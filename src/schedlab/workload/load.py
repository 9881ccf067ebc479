"""`load_trace`: the ready-to-simulate pipeline behind every CLI verb, and the bundled traces."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ..errors import SWFError
from .clean import clean
from .cut import cut_months
from .groups import assign_groups
from .model import Workload
from .swf import read_swf, swf_name

__all__ = ["BUNDLED", "bundled_path", "resolve_trace", "read_trace", "load_trace"]

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


def read_trace(spec: str | os.PathLike, *, procs: int | None = None) -> Workload:
    """:func:`read_swf` of a path or a bundled trace name."""
    return read_swf(resolve_trace(spec), procs=procs)


def load_trace(
    spec: str | os.PathLike | Workload,
    *,
    procs: int | None = None,
    months: int | None = None,
    missing_estimate: str = "runtime",
) -> Workload:
    """Read, clean, optionally cut to the first ``months`` months, and assign user groups.

    ``spec`` is a path, a bundled name (``"KTH-SP2"``) or a Workload; ``procs`` overrides the
    machine size (required when the trace has no MaxProcs/MaxNodes header). Cleaning happens
    before the cut, so the window starts at the first valid job; groups are computed on the
    jobs that remain (greedy-es-sorting-criteria Table II).
    """
    w = spec if isinstance(spec, Workload) else read_trace(spec)
    w, _ = clean(w, procs=procs, missing_estimate=missing_estimate)
    if months is not None:
        w = cut_months(w, months)
    return assign_groups(w)
