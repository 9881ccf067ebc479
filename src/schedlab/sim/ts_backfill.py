"""Backfilling of the time-sharing engine (SCOJO-PECT; steps (c) and (d) of rule 4 in the
docstring of :mod:`schedlab.sim.timeshare`, where the event order is stated once).

EASY within the slice's class: the first waiting job that does not fit gets a reservation
(computed in the loop's body, step (c) of :func:`schedlab.sim.ts_loop._run`: shadow time from the
running jobs' estimated ends, extra nodes); later jobs start if they end by the shadow time or use
only extra nodes (:func:`_backfill`). Smart backfilling (step (d) there) offers the other classes'
preempted, then waiting jobs under the same reservation through the same function.
"""

from __future__ import annotations


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
