"""The paper's grid setups I-IV (Table 1) and free compositions ``TRACE:PROCS``.

nsga2-grid-performance-bounds, Section 5.1-5.2 and Table 1: every site's trace is the first
11 calendar months of its recording (``cut_months(w, 11)``, submit rebased to 0), cleaned as by
:func:`schedlab.workload.load.load_trace`, simulated on the machine size of the table.
Trace names resolve as in every verb (:func:`schedlab.workload.load.resolve_trace`): a path, a
bundled name, a fetched trace, or a file in the workloads folder whose name starts with the given
prefix (``SDSC-SP2`` -> ``SDSC-SP2-1998-4.2-cln.swf.gz``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import WorkloadError
from ..workload.load import resolve_trace, workloads_dir  # noqa: F401  (workloads_dir: re-exported)
from .sim import GridTrace, Site

#: months of every trace in the paper's setups (Section 5.1)
MONTHS = 11

#: Table 1 takes KTH-SP2 and CTC-SP2 whole: both recordings span about 11 months, and its
#: KTH-11 (28,479) and CTC-11 (77,199) are the whole cleaned traces (28,467 and 77,205 here);
#: an 11-calendar-month cut would drop KTH's last 6 days (434 jobs).
WHOLE_IN_PAPER = frozenset({"KTH-SP2", "CTC-SP2"})

#: Table 1: setup -> ((trace, processors), ...)
SETUPS: dict[str, tuple[tuple[str, int], ...]] = {
    "I": (("KTH-SP2", 100), ("SDSC-SP2", 128)),
    "II": (("KTH-SP2", 100), ("CTC-SP2", 430)),
    "III": (("KTH-SP2", 100), ("SDSC-BLUE", 1152)),
    "IV": (("SDSC-BLUE", 1152), ("SDSC-DS", 1664)),
}


def resolve_site_trace(name: str) -> Path:
    """The file of a site's trace: as every verb resolves a trace (:func:`schedlab.workload.load.resolve_trace`)."""
    return resolve_trace(name)


def parse_site(spec: str) -> tuple[str, int]:
    """``TRACE:PROCS`` -> (trace, procs); a bad spec is a WorkloadError."""
    trace, sep, procs = spec.rpartition(":")
    if not sep or not trace:
        raise WorkloadError(f"--site {spec!r}: expected TRACE:PROCS, e.g. KTH-SP2:100")
    try:
        m = int(procs)
    except ValueError:
        raise WorkloadError(f"--site {spec!r}: processors {procs!r} is not a whole number") from None
    if m <= 0:
        raise WorkloadError(f"--site {spec!r}: processors must be positive")
    return trace, m


def site_specs(setup: str | None = None, sites: Sequence[str] = ()) -> tuple[tuple[str, int], ...]:
    """The (trace, procs) list of ``--setup`` or of repeated ``--site``; exactly one of them, K >= 2."""
    if setup and sites:
        raise WorkloadError("give either --setup or --site, not both")
    if setup:
        key = setup.strip().upper()
        if key not in SETUPS:
            raise WorkloadError(f"unknown setup {setup!r}; choose one of {', '.join(SETUPS)}")
        return SETUPS[key]
    specs = tuple(parse_site(s) for s in sites)
    if len(specs) < 2:
        raise WorkloadError("a grid needs at least 2 sites: give --setup I..IV or --site TRACE:PROCS at least twice")
    return specs


def load_sites(specs: Sequence[tuple[str, int]], months: int | None = MONTHS, format: str | None = None) -> list[Site]:
    """Load each site's trace (cleaned, cut to ``months``) for its machine size.

    With the paper's 11 months, the traces Table 1 takes whole (:data:`WHOLE_IN_PAPER`) are not cut.
    Each trace is prepared as every verb prepares one (:func:`schedlab.workload.spec.prepare_trace`,
    in ``format``): a trace with jobs wider than its site is refused, not silently thinned out by the cleaning.
    """
    from ..workload.spec import TraceSpec, prepare_trace

    out = []
    for trace, procs in specs:
        cut = None if months == MONTHS and trace.upper() in WHOLE_IN_PAPER else months
        name = trace if not Path(trace).exists() else Path(trace).name.split(".swf")[0]
        w = prepare_trace(TraceSpec(trace, format=format, procs=procs, months=cut), site=name)
        out.append(Site(name=name, workload=w, procs=procs))
    return out


def load_grid(setup: str | None = None, sites: Sequence[str] = (), months: int | None = MONTHS,
              format: str | None = None) -> GridTrace:
    """The merged :class:`GridTrace` of a setup (``"I"``..``"IV"``) or of ``TRACE:PROCS`` specs."""
    return GridTrace.merge(load_sites(site_specs(setup, sites), months=months, format=format))
