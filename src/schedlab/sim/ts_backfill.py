"""Backfilling of the time-sharing engine (SCOJO-PECT; steps (c) and (d) of rule 4 in the
docstring of :mod:`schedlab.sim.timeshare`, where the event order is stated once).

EASY within the slice's class: the first waiting job that does not fit gets a reservation
(:func:`_reservation`: shadow time from the running jobs' estimated ends, extra nodes); later jobs
start if they end by the shadow time or use only extra nodes (:func:`_backfill`). Smart
backfilling (:func:`_smart_backfill`) offers the other classes' preempted, then waiting jobs
under the same reservation.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_layout import PREEMPTED, WAITING
from .ts_nodes import _launch, _nodes_free


@njit
def _backfill(queue, qn, q0, k, fresh, t, shadow, extra, est, done, nodes, off, w, node_run, held, free_elig, status,
              seg, last, first, run, run_n, n_run_cls, inplan):
    """Backfill from ``queue[q0:qn]`` (waiting jobs if ``fresh``, else preempted ones on their own
    nodes) of class k, in queue order, respecting the reservation (shadow, extra); (run_n, extra)."""
    for qq in range(q0, qn):
        j = queue[qq]
        if fresh:
            if status[j] != WAITING or w[j] > free_elig[k] or inplan[j]:
                continue
        elif status[j] != PREEMPTED or not _nodes_free(j, nodes, off, w, node_run):
            continue
        before = t + (est[j] - done[j]) <= shadow
        if before or w[j] <= extra:
            if not before:
                extra -= w[j]
            run_n = _launch(j, k, t, fresh, nodes, off, w, node_run, held, free_elig, status, seg, last, first,
                            run, run_n, n_run_cls)
    return run_n, extra


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _reservation(h, c, m, run, run_n, seg, est, done, off, w, nodes, held, free_elig, ends, wid):
    """EASY's reservation for the waiting class-c job h that does not fit: (shadow time, extra
    nodes), counting only the nodes of running jobs not held by preempted c-jobs; (inf, m) when the
    running jobs never free enough."""
    shadow = np.inf
    extra = m
    avail = free_elig[c]
    for r in range(run_n):
        j = run[r]
        ends[r] = seg[j] + (est[j] - done[j])
        cnt = 0
        for qq in range(off[j], off[j] + w[j]):
            if held[c, nodes[qq]] == -1:
                cnt += 1
        wid[r] = cnt
    ordr = np.argsort(ends[:run_n])
    for a in range(run_n):
        avail += wid[ordr[a]]
        if avail >= w[h]:
            shadow = ends[ordr[a]]
            break
    if shadow < np.inf:
        extra = free_elig[c] - w[h]
        for r in range(run_n):
            if ends[r] <= shadow:
                extra += wid[r]
    return shadow, extra


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _smart_backfill(c, t, shadow, extra, wq, wq_n, pq, pq_n, est, done, nodes, off, w, node_run, held, free_elig, status,
                    seg, last, first, run, run_n, n_run_cls, inplan):
    """Step (d): preempted jobs of the other classes on their own nodes, then their waiting jobs,
    short first, each only within the slice class's reservation; (run_n, extra)."""
    for fresh in (False, True):
        for k in range(3):
            if k == c:
                continue
            queue, qn = (wq[k], wq_n[k]) if fresh else (pq[k], pq_n[k])
            run_n, extra = _backfill(queue, qn, 0, k, fresh, t, shadow, extra, est, done, nodes, off, w, node_run, held,
                                     free_elig, status, seg, last, first, run, run_n, n_run_cls, inplan)
    return run_n, extra
