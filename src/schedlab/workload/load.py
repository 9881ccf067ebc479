"""`load_trace`: the ready-to-simulate pipeline behind every CLI verb, and the bundled traces."""

from __future__ import annotations

import os
import warnings
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import SWFError, TraceNote, WorkloadError
from .clean import clean, job_width, require_machine, too_wide_jobs
from .cut import cut_months
from .groups import assign_groups
from .model import Workload
from .swf import read_swf, swf_name

__all__ = ["BUNDLED", "FORMATS", "bundled_path", "resolve_trace", "trace_folders", "workloads_dir", "read_trace", "load_trace", "note_trace", "read_cleaned", "refuse_too_wide",
           "sniff_format", "parse_format"]

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


def workloads_dir() -> Path:
    """The shared trace folder: $SCHEDLAB_WORKLOADS, $SCHEDLAB_SHARED/workloads, or ../shared/workloads."""
    if os.environ.get("SCHEDLAB_WORKLOADS"):
        return Path(os.environ["SCHEDLAB_WORKLOADS"]).expanduser()
    if os.environ.get("SCHEDLAB_SHARED"):
        return Path(os.environ["SCHEDLAB_SHARED"]).expanduser() / "workloads"
    for base in (Path.cwd(), Path(__file__).resolve().parents[3]):
        cand = base.parent / "shared" / "workloads"
        if cand.is_dir():
            return cand
    return Path.cwd().parent / "shared" / "workloads"


def _in_folder(name: str, folder: Path) -> Path | None:
    """The trace file in ``folder`` named ``name``: its archive name exactly, else a unique prefix
    (``SDSC-SP2`` -> ``SDSC-SP2-1998-4.2-cln.swf.gz``); an ambiguous prefix is an error naming the files."""
    if not folder.is_dir():
        return None
    low = name.strip().lower()
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith((".swf", ".swf.gz")))
    exact = [p for p in files if low in (p.name.lower(), swf_name(p).lower())]
    if exact:
        return exact[0]
    hits = [p for p in files if p.name.lower().startswith(low)]
    if len(hits) > 1:
        raise WorkloadError(f"trace name {name!r} is ambiguous in {folder}: {', '.join(p.name for p in hits)}")
    return hits[0] if hits else None


def trace_folders() -> list[tuple[str, Path]]:
    """Where a trace name is looked up after the bundled traces, in order: the fetch cache, the workloads folder."""
    from .._cache import fetched_traces

    return [("fetched traces", fetched_traces()), ("workloads folder", workloads_dir())]


def resolve_trace(spec: str | os.PathLike) -> Path:
    """A trace file from a path or a name, the one place every verb and the grid setups resolve names.

    In order: an existing path; a bundled trace (``KTH-SP2``); a trace fetched into the cache
    (``schedlab workload fetch``, :func:`schedlab._cache.fetched_traces`); a file of the
    workloads folder (:func:`workloads_dir`). In a folder, the archive name matches exactly
    (``CTC-SP2-1996-3.1-cln``) or as a unique prefix (``SDSC-SP2``). An unknown name is one error
    line saying where it was looked for.
    """
    path = Path(spec)
    if path.exists():
        return path
    if not isinstance(spec, str):
        raise SWFError(spec, None, "no such file")
    found = bundled_path(spec)
    if found is not None:
        return found
    if not spec.strip() or any(sep in spec for sep in ("/", os.sep)):  # a path, not a name
        raise SWFError(spec, None, f"no such file (and not a bundled trace: {', '.join(BUNDLED)})")
    looked = [f"bundled traces ({', '.join(BUNDLED)})"]
    for label, folder in trace_folders():
        found = _in_folder(spec, folder)
        if found is not None:
            return found
        looked.append(f"{label} {folder}" + ("" if folder.is_dir() else " (missing)"))
    raise SWFError(spec, None, f"no such file or trace name; looked in: {'; '.join(looked)}")


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


def refuse_too_wide(raw: Workload, procs: int | None = None, source: str | os.PathLike | None = None,
                    format: str | None = None, *, site: str | None = None) -> None:
    """Refuse a trace with a job wider than the machine, whether its size is ``procs`` (``--procs``,
    or the size of the grid site named ``site``) or the header's MaxProcs: one line naming the file,
    the line (SWF) or job, and the sizes.

    The cleaning step would drop such jobs (its ``too_wide`` reason); every simulating verb and the
    grid's sites refuse them instead, so a machine too small for the trace is never simulated on a
    silently thinned trace. The one check of every trace (:func:`load_trace`).
    """
    m = require_machine(raw, procs)
    wide = too_wide_jobs(raw, m)
    if wide.size == 0:
        return
    first = int(wide[0])
    width = job_width(raw)
    where = str(source) if source is not None else (raw.name or "the trace")
    if source is not None and parse_format(format)[0] in ("auto", "swf"):
        from .swf import job_line

        try:
            path = resolve_trace(source)
            line = job_line(path, first) if sniff_format(path) == "swf" else None
        except (OSError, SWFError):
            line = None
        where += f":{line}" if line is not None else ""
    widest = int(width[wide].max())
    if site is not None:
        origin, remedy = f"site {site} of {m:,} processors", f"give the site at least {widest:,} processors"
    else:
        origin = f"--procs {m}" if procs is not None else f"MaxProcs {m} of the header"
        remedy = f"give --procs at least {widest:,}"
    more = f"; {wide.size:,} jobs are wider" if wide.size > 1 else ""
    raise WorkloadError(f"{where}: job {int(raw.id[first])} needs {int(width[first]):,} processors, wider than "
                        f"the machine ({origin}){more}; {remedy}")


def read_cleaned(
    spec: str | os.PathLike | Workload,
    *,
    procs: int | None = None,
    missing_estimate: str = "runtime",
    format: str | None = None,
    site: str | None = None,
) -> Workload:
    """Read, refuse a too-wide job (:func:`refuse_too_wide`) and clean: the whole trace, before any cut
    or grouping (the stages of :func:`load_trace` that every calendar window shares)."""
    w = spec if isinstance(spec, Workload) else read_trace(spec, format=format)
    refuse_too_wide(w, procs, None if isinstance(spec, Workload) else spec, format, site=site)
    note_trace(w, procs)
    w, _ = clean(w, procs=procs, missing_estimate=missing_estimate)
    return w


#: A header machine more than this many times wider than the widest job gets a note: UTIL is measured
#: against the header's size, and a header claiming MaxProcs 100000 for jobs of at most 100
#: processors (a typo, or a log of a partition of a larger machine) makes UTIL 0.06 % without a word.
WIDE_HEADER_FACTOR = 100


def note_trace(raw: Workload, procs: int | None = None) -> None:
    """Notes (:class:`~schedlab.errors.TraceNote`, one line each) on what the reading would otherwise pass
    without a word: jobs with a negative runtime, which cleaning drops (SWF's -1 = unknown included),
    and, when the machine size is the header's, a machine more than :data:`WIDE_HEADER_FACTOR` times
    wider than the widest job."""
    name = raw.name or "the trace"
    negative = np.flatnonzero(raw.runtime < 0)
    if negative.size:
        first = int(negative[0])
        warnings.warn(TraceNote(f"{name}: {negative.size:,} job{'s' if negative.size > 1 else ''} with a negative runtime (job {int(raw.id[first])}: "
                                f"{raw.runtime[first]:g} s; SWF's -1 is 'unknown') {'are' if negative.size > 1 else 'is'} dropped as unusable; "
                                f"'schedlab workload clean' counts every job it drops"), stacklevel=3)
    if procs is None and raw.machine_procs is not None and len(raw):
        width = job_width(raw)[raw.runtime > 0]
        widest = int(width.max()) if width.size else 0
        if widest > 0 and raw.machine_procs > WIDE_HEADER_FACTOR * widest:
            warnings.warn(TraceNote(f"{name}: the header's machine of {raw.machine_procs:,} processors is "
                                    f"{raw.machine_procs / widest:,.0f} times the widest job ({widest:,}); UTIL is "
                                    f"measured against {raw.machine_procs:,} processors (--procs gives another size)"),
                          stacklevel=3)


def load_trace(
    spec: str | os.PathLike | Workload,
    *,
    procs: int | None = None,
    months: int | None = None,
    missing_estimate: str = "runtime",
    format: str | None = None,
    site: str | None = None,
) -> Workload:
    """Read, clean, optionally cut to the first ``months`` months, and assign user groups.

    ``spec`` is a path, a bundled name (``"KTH-SP2"``) or a Workload; ``procs`` overrides the
    machine size (required when the trace has no MaxProcs/MaxNodes header). Cleaning happens
    before the cut, so the window starts at the first valid job; groups are computed on the
    jobs that remain (greedy-es-sorting-criteria Table II). ``format`` as :func:`read_trace`.
    A job wider than the machine is an error (:func:`refuse_too_wide`; ``site``: the grid site it is), never
    silently dropped. The stage of :func:`schedlab.workload.spec.prepare_trace` before splitting and scaling.
    """
    w = read_cleaned(spec, procs=procs, missing_estimate=missing_estimate, format=format, site=site)
    if months is not None:
        w = cut_months(w, months)
    return assign_groups(w)
