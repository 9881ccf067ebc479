"""Scaling a trace to another machine size (Ernemann, Song, Yahyapour, JSSPP 2003; method-notes topic 1).

Copy-or-enlarge model: with f_adj >= f = m'/m, each job (in submit order) is, with probability q,
copied c = floor(f_adj) + Bernoulli(f_adj - floor(f_adj)) times (same submit, runtime, estimate,
width, user), otherwise enlarged once to m_j' = min(m', max(1, round(m_j * f_adj))) (requested
processors alike). Both branches multiply the expected area sum p_j m_j by f_adj; q alone sets the
job count: E[n'] = n (1 + q (f_adj - 1)).

Defaults [method-notes DEF]: f_adj = f. q: when the target is 1024 processors and the trace is one
of :data:`SCALED_JOB_COUNTS` (the published scaled traces), q is calibrated so that E[n'] equals
the published count n': q = (n'/n - 1) / (f_adj - 1), clipped to [0, 1]; otherwise q = 0.5.
The published scaling also raised f_adj above f until EASY on the scaled trace matched a target
utilisation (CTC: 66.99 %): :func:`schedlab.workload.calibrate.scale_to_util` (``--calibrate-load``)
calls this function with ever better ``f_adj``, measuring each try with the simulator it is handed.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import WorkloadError
from .clean import require_machine
from .model import Workload
from .swf import set_header_value

__all__ = ["SCALED_JOB_COUNTS", "DEFAULT_Q", "known_trace", "calibrate_q", "scale"]

#: scaled traces on 1024 processors (greedy-es-sorting-criteria Table I):
#: id -> (name prefixes of the PWA archive file, published machine size m, published job count n')
SCALED_JOB_COUNTS: dict[str, tuple[tuple[str, ...], int, int]] = {
    "CTC": (("CTC-SP2",), 430, 136_471),
    "KTH": (("KTH-SP2",), 100, 167_375),
    "LANL": (("LANL-CM5",), 1024, 201_378),
    "SDSC00": (("SDSC-SP2",), 128, 310_745),
    "SDSC95": (("SDSC-Par-1995",), 416, 131_762),
    "SDSC96": (("SDSC-Par-1996",), 416, 66_185),
}
SCALED_TARGET_PROCS = 1024
DEFAULT_Q = 0.5


def known_trace(name: str) -> str | None:
    """The id in :data:`SCALED_JOB_COUNTS` of a trace name such as ``CTC-SP2-1996-3.1-cln``."""
    low = name.lower()
    for key, (prefixes, _, _) in SCALED_JOB_COUNTS.items():
        if any(low.startswith(p.lower()) for p in prefixes):
            return key
    return None


#: the most jobs a scaled trace may hold (a year of the largest shared traces scaled to 1024
#: processors has under a million; more than this exhausts memory before it says anything useful)
MAX_SCALED_JOBS = 50_000_000


def calibrate_q(n: int, n_target: int, f_adj: float) -> float:
    """Copy probability q with E[n'] = n (1 + q (f_adj - 1)) = n_target, clipped to [0, 1]."""
    if f_adj == 1 or n <= 0:
        return DEFAULT_Q
    return float(min(1.0, max(0.0, (n_target / n - 1.0) / (f_adj - 1.0))))


def scale(workload: Workload, procs: int, *, f_adj: float | None = None, q: float | None = None, seed: int = 0) -> Workload:
    """The trace scaled to a machine of ``procs`` processors by copying or enlarging jobs.

    Ernemann et al. 2003, as specified in method-notes topic 1 (see the module docstring for the
    model and defaults). Expects a cleaned workload (every job 1 <= width <= machine size).
    Deterministic for ``seed``; jobs renumbered 1..n' in stable submit order; ``preceding`` and
    ``think`` (job-number references) are set to -1; header MaxProcs (and MaxNodes) set to ``procs``.
    """
    m = require_machine(workload, None)
    procs = int(procs)
    if procs <= 0:
        raise WorkloadError(f"target machine size must be positive, got {procs}")
    w = workload.sorted_by_submit()
    if len(w) and (w.procs.min() < 1 or w.procs.max() > m):
        raise WorkloadError(f"{w.name or 'the trace'}: jobs with processors outside 1..{m}; clean it first")
    f = procs / m
    f_adj = f if f_adj is None else float(f_adj)
    if not (math.isfinite(f_adj) and f_adj > 0):
        raise WorkloadError(f"f_adj must be a positive number, got {f_adj}")
    if q is None:
        key = known_trace(w.name)
        if key is not None and procs == SCALED_TARGET_PROCS:
            q = calibrate_q(len(w), SCALED_JOB_COUNTS[key][2], f_adj)
        else:
            q = DEFAULT_Q
    q = float(q)
    if not 0 <= q <= 1:
        raise WorkloadError(f"copy probability q must be in [0, 1], got {q}")

    if int(seed) != seed or seed < 0:
        raise WorkloadError(f"scaling seed must be 0 or a positive whole number, got {seed}")
    n = len(w)
    expected = n * (1 + q * (f_adj - 1))  # E[n'] (module docstring)
    if expected > MAX_SCALED_JOBS:
        raise WorkloadError(
            f"scaling {n:,} jobs from {m:,} to {procs:,} processors (f_adj {f_adj:.4g}, q {q:.3g}) would make about "
            f"{expected:,.0f} jobs; at most {MAX_SCALED_JOBS:,} are simulated"
        )
    rng = np.random.default_rng(seed)
    copy = (rng.random(n) < q) & (w.procs <= procs)  # shrinking: too-wide jobs are resized, not copied
    base = math.floor(f_adj)
    copies = base + (rng.random(n) < (f_adj - base)).astype(np.int64)
    repeat = np.where(copy, copies, 1)
    if f_adj == 1.0:
        repeat[:] = 1
        copy[:] = False
    width = np.where(copy, w.procs, np.clip(np.rint(w.procs * f_adj), 1, procs)).astype(np.int64)
    req = np.where(copy | (w.req_procs <= 0), w.req_procs, np.clip(np.rint(w.req_procs * f_adj), 1, procs)).astype(np.int64)
    out = w.replace(procs=width, req_procs=req).take(np.repeat(np.arange(n), repeat))
    k = len(out)
    header = set_header_value(out.header, "MaxProcs", procs)
    if any(h.strip().startswith("MaxNodes") for h in header):
        header = set_header_value(header, "MaxNodes", procs)
    header += (f" Note: scaled by schedlab from {m} to {procs} processors (Ernemann et al. 2003: f_adj={f_adj:.6g}, q={q:.6g}, seed={seed})",)
    return out.replace(
        id=np.arange(1, k + 1, dtype=np.int64),
        preceding=np.full(k, -1, dtype=np.int64),
        think=np.full(k, -1.0),
        machine_procs=procs,
        header=header,
    )
