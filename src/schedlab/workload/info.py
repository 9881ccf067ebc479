"""`workload_info`: the summary behind ``schedlab workload info`` (jobs, load, estimates, groups)."""

from __future__ import annotations

import numpy as np

from ..errors import SchedlabError
from .clean import job_width
from .groups import DEFAULT_THRESHOLDS, assign_groups, group_shares
from .model import Workload
from .swf import parse_header

__all__ = ["workload_info", "info_rows"]


def workload_info(workload: Workload, *, thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS, paper_sizes: bool = True) -> dict:
    """Summary of a trace as a JSON-ready dict.

    ``jobs`` counts all records; the statistics use the *valid* jobs (runtime > 0 and width > 0,
    width = field 5, else field 8). Offered load = sum p_j m_j / (m * span), span = last - first
    submit (None without a machine size). Estimate availability = share of jobs with field 9 > 0;
    accuracy = median of runtime / estimate over valid jobs that have one. Users = distinct user
    ids >= 0 (the archive's count); ``unknown_user_jobs`` = jobs without a user id (< 0), which
    the groups count as one more, unknown user (a Lublin model trace: 0 users + the unknown one). Groups (greedy-es-sorting-criteria Table II) come from the ``group`` column when it
    is filled, else are computed on the valid jobs. ``header_procs`` is the header's MaxProcs (else
    MaxNodes); with ``paper_sizes`` (a trace as read, not cut or scaled), ``papers_procs`` maps every
    other machine size the papers' set-up record (:mod:`schedlab.papers`) runs this trace on to the
    papers, e.g. ``{"430": ["GE", "GF", "NG"]}`` for CTC-SP2 (header: 338, its batch partition).
    """
    w = workload
    width = job_width(w)
    valid = (w.runtime > 0) & (width > 0)
    area = np.where(valid, w.runtime, 0.0) * np.where(valid, width, 0)
    span = w.span
    m = w.machine_procs
    has_est = w.estimate > 0
    both = valid & has_est
    ratio = w.runtime[both] / w.estimate[both]
    info = {
        "name": w.name,
        "jobs": len(w),
        "valid_jobs": int(valid.sum()),
        "machine_procs": m,
        "max_job_procs": int(width.max()) if len(w) else 0,
        "span_days": span / 86400.0,
        "offered_load": float(area.sum() / (m * span)) if m and span > 0 else None,
        "estimate_share": float(has_est.mean()) if len(w) else 0.0,
        "median_runtime_over_estimate": float(np.median(ratio)) if len(ratio) else None,
        "runtime_above_estimate_share": float((ratio > 1).mean()) if len(ratio) else None,
        "users": int(len(np.unique(w.user[w.user >= 0]))),
        "unknown_user_jobs": int((w.user < 0).sum()),
        "unsorted": int(np.count_nonzero(w.submit[1:] < w.submit[:-1])),
        "unix_start": w.unix_start,
        "timezone": w.timezone,
        "header_procs": parse_header(w.header)["machine_procs"],
        "papers_procs": {},
        "groups": {},
    }
    from .resources import resource_summary, resources_of

    resources = resource_summary(resources_of(w))
    if resources:  # a trace without resources: the summary as before
        info["resources"] = resources
    if paper_sizes and w.name:
        from ..papers import paper_sizes as sizes_of

        info["papers_procs"] = {str(k): v for k, v in sizes_of(w.name).items() if k != info["header_procs"]}
    if (w.group > 0).any():
        grouped = w.replace(procs=width).take(valid)
    elif valid.any():
        try:
            grouped = assign_groups(w.replace(procs=width).take(valid), thresholds)
        except SchedlabError:
            grouped = None
    else:
        grouped = None
    if grouped is not None:
        info["groups"] = {str(g): v for g, v in group_shares(grouped).items()}
    return info


def _fmt(value, spec: str = ",") -> str:
    if value is None:
        return "unknown"
    return format(value, spec)


def _start(unix_start: int | None, timezone: str | None) -> str:
    """The recording's start as a date and time in the trace's time zone (UTC when unknown), with the epoch."""
    if unix_start is None:
        return "unknown"
    from datetime import datetime, timezone as tz

    try:
        from zoneinfo import ZoneInfo

        zone = ZoneInfo(timezone) if timezone else tz.utc
    except Exception:  # unknown zone name: show UTC
        zone, timezone = tz.utc, None
    when = datetime.fromtimestamp(int(unix_start), zone)
    return f"{when:%Y-%m-%d %H:%M:%S} {timezone or 'UTC'} (Unix time {int(unix_start)})"


def size_note(header_procs: int | None, papers_procs: dict) -> str:
    """'338 processors in the header; the papers use 430 (GE, GF, NG)' (papers_procs: size -> papers)."""
    head = f"{header_procs:,} processors in the header" if header_procs else "no machine size in the header"
    used = "; ".join(f"{int(m):,} ({', '.join(p)})" for m, p in sorted(papers_procs.items(), key=lambda kv: int(kv[0])))
    return f"{head}; the papers use {used}"


def info_rows(info: dict) -> list[tuple[str, str]]:
    """The summary as (label, text) rows for a table."""
    m = info["machine_procs"]
    rows = [
        ("jobs", f"{info['jobs']:,} ({info['valid_jobs']:,} with runtime > 0 and processors > 0)"),
        ("machine size", f"{m:,} processors" if m else "unknown (no MaxProcs/MaxNodes header; pass --procs)"),
        ("largest job", f"{info['max_job_procs']:,} processors"),
        ("span", f"{info['span_days']:.1f} days"),
        ("offered load", _fmt(info["offered_load"], ".3f") + " (sum runtime*procs / (m*span))"),
        ("estimates present", f"{100 * info['estimate_share']:.1f} % of jobs"),
        ("median runtime/estimate", _fmt(info["median_runtime_over_estimate"], ".3f")),
        ("runtime > estimate", _fmt(None if info["runtime_above_estimate_share"] is None else 100 * info["runtime_above_estimate_share"], ".1f") + " % of estimated jobs"),
        ("users", f"{info['users']:,}" + (f" + 1 unknown ({info['unknown_user_jobs']:,} jobs have no user id; "
                                           "the groups count them as one user)" if info["unknown_user_jobs"] else "")),
        ("time zone", f"{info['timezone'] or 'unknown (UTC)'}"),
        ("start", _start(info["unix_start"], info["timezone"])),
    ]
    if info.get("papers_procs"):
        rows.append(("papers' machine size", size_note(info.get("header_procs"), info["papers_procs"])))
    if info["unsorted"]:
        rows.append(("unsorted submits", f"{info['unsorted']:,} inversions"))
    rows += resource_rows(info.get("resources", {}))
    for g, s in info["groups"].items():
        rows.append(
            (f"group {g}", f"{s['users']:,} users, {100 * s['job_share']:.1f} % of jobs, {100 * s['area_share']:.1f} % of runtime*procs")
        )
    return rows


def resource_rows(res: dict) -> list[tuple[str, str]]:
    """Rows of :func:`~schedlab.workload.resources.resource_summary` (none for a trace without resources)."""
    rows = []
    for key, label in (("memory_requested", "memory requested"), ("memory_allocated", "memory allocated"),
                       ("memory_used", "memory used")):
        if key in res:
            r = res[key]
            rows.append((label, f"{r['jobs']:,} jobs, median {r['median_mb']:,.0f} MB, largest {r['max_mb']:,.0f} MB (per job)"))
    for key, label in (("gpus_requested", "GPUs requested"), ("gpus_allocated", "GPUs allocated")):
        if key in res:
            r = res[key]
            rows.append((label, f"{r['jobs']:,} jobs, {r['total']:,} GPUs in all, largest {r['max']:,}"))
    for key, label in (("nodes_requested", "nodes requested"), ("nodes_allocated", "nodes allocated")):
        if key in res:
            r = res[key]
            rows.append((label, f"{r['jobs']:,} jobs, {r['multi_node_jobs']:,} on more than one node, largest {r['max']:,}"))
    if "exclusive_jobs" in res:
        rows.append(("exclusive nodes", f"{res['exclusive_jobs']:,} jobs"))
    if res.get("gres"):
        rows.append(("GRES", ", ".join(res["gres"])))
    return rows
