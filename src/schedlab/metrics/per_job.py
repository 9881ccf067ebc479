"""Per-job outcomes of a schedule: the table behind ``schedlab simulate --schedule-out``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..sim.model import Schedule

__all__ = ["JOB_COLUMNS", "job_table", "table_summary"]

#: columns of :func:`job_table`, in order
JOB_COLUMNS: tuple[str, ...] = (
    "id", "submit", "start", "finish", "procs", "runtime", "estimate", "user", "group",
    "wait", "response", "bounded_slowdown", "killed_at_estimate",
)


def job_table(schedule: "Schedule", *, bound: float = 10.0):
    """One row per job: the schedule, plus wait S - r, response C - r, bounded slowdown
    max(1, (C - r) / max(p, bound)) with p = C - S, and ``killed_at_estimate`` (the job was
    killed at its estimate: jobs are killed and its runtime exceeds its estimate, so p = estimate).

    The same definitions as :func:`schedlab.metrics.compute_metrics`, so the means of these
    columns are its ``mean_wait``, ``mean_response`` and ``mean_bounded_slowdown``.

    A run with resources (issue 47) adds the columns of
    :func:`schedlab.metrics.resources.job_resource_columns` (``alloc_cpus``, ``alloc_gpus``,
    ``alloc_mem_mb`` of a run that allocated nodes, ``partition``, ``qos``) and, when it allocated
    nodes, ``table.attrs["capacity"]`` (column -> the nodes' total), which the plots read; any other
    run's table is as before.
    """
    if not float(bound) > 0.0:
        raise ValueError(f"bounded-slowdown bound must be > 0 seconds, got {bound}")
    df = schedule.to_dataframe()
    w = schedule.workload
    start = np.asarray(schedule.start, dtype=np.float64)
    finish = np.asarray(schedule.finish, dtype=np.float64)
    submit = np.asarray(w.submit, dtype=np.float64)
    response = finish - submit
    df["wait"] = start - submit
    df["response"] = response
    df["bounded_slowdown"] = np.maximum(1.0, response / np.maximum(finish - start, float(bound)))
    df["killed_at_estimate"] = bool(schedule.killed) & (np.asarray(w.runtime) > np.asarray(w.estimate))
    run = getattr(schedule, "slurm", None)
    if run is not None and any(getattr(run, "pending_reason", ())):
        df["pending_reason"] = list(run.pending_reason)  # --policy slurm: the limit that held the job (slurm.limits)
    from .resources import job_resource_columns

    columns, capacity = job_resource_columns(schedule)  # a run with resources: allocated amounts, partition, qos
    for name, values in columns.items():
        df[name] = values
    extra = [c for c in df.columns if c not in JOB_COLUMNS]  # e.g. ``site`` of grid schedules, ``pending_reason``
    out = df[list(JOB_COLUMNS) + extra]
    if capacity:
        out.attrs["capacity"] = capacity  # what the plots draw the allocated amounts against
    return out


def table_summary(table, m: int) -> dict[str, float]:
    """UTIL (eq. (5), percent), mean/p95/max wait of a per-job table (as :func:`compute_metrics`)."""
    start, finish, submit, procs = (np.asarray(table[c], dtype=np.float64) for c in ("start", "finish", "submit", "procs"))
    wait = start - submit
    span = float(finish.max() - start.min()) if len(start) else 0.0
    return {
        "jobs": float(len(start)),
        "UTIL": 100.0 * float(((finish - start) * procs).sum()) / (m * span) if span > 0 else float("nan"),
        "mean_wait": float(wait.mean()),
        "p95_wait": float(np.percentile(wait, 95)),
        "max_wait": float(wait.max()),
    }
