"""Metrics of a grid schedule (:class:`schedlab.grid.sim.GridSchedule`): per site and the ``grid
simulate --json`` document. Here, not in ``grid/``: the simulation packages never import metrics."""

from __future__ import annotations

import numpy as np

from .basic import compute_metrics


def site_metrics(g) -> list[dict]:
    """Per site of grid schedule ``g``: name, procs, jobs, AWRT, UTIL (over jobs executed there),
    migrated_in/out."""
    out = []
    origin = g.trace.origin
    for k, name in enumerate(g.trace.names):
        m = compute_metrics(g.site_schedule(k))
        out.append(
            {
                "name": name,
                "procs": int(g.trace.site_procs[k]),
                "jobs": int(np.sum(g.site == k)),
                "AWRT": m["AWRT"],
                "UTIL": m["UTIL"],
                "migrated_in": int(np.sum((g.site == k) & (origin != k))),
                "migrated_out": int(np.sum((g.site != k) & (origin == k))),
            }
        )
    return out


def grid_summary(g) -> dict:
    """The ``grid simulate --json`` document of grid schedule ``g``: per-site metrics and the overall AWRT."""
    return {"exchange": g.exchange, "sites": site_metrics(g), "AWRT": g.overall_awrt()}
