"""Node sets and queues of the time-sharing engine (SCOJO-PECT; the event order and the rules are
stated once, in the docstring of :mod:`schedlab.sim.timeshare`).

A job holds a node *set* (``nodes[off[j]:off[j] + w[j]]``): a preempted job resumes on exactly its
nodes, and those nodes stay ``held[class, node]`` by it meanwhile; ``node_run[node]`` is the job
running there (-1: free); ``free_elig[k]`` counts the free nodes a waiting job of class k may take
(not held by a preempted k-job). Every start, resume, suspension and finish goes through
:func:`_occupy` / :func:`_vacate` (via :func:`_launch` for starts), so these counts stay right.
Also the growable record arrays (:func:`_grow`, :func:`_record`) and queue compaction.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_layout import RUNNING


@njit
def _grow(a, need):
    """``a`` if index ``need`` fits, else a copy of twice the size."""
    if need < a.shape[0]:
        return a
    b = np.empty(max(2 * a.shape[0], need + 16), a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _occupy(j, cls_j, nodes, off, w, node_run, held, free_elig):
    """Start or resume job j on its node set (resume: clears its hold)."""
    for q in range(off[j], off[j] + w[j]):
        x = nodes[q]
        node_run[x] = j
        for k in range(3):
            if held[k, x] == -1:
                free_elig[k] -= 1
        if held[cls_j, x] == j:
            held[cls_j, x] = -1


@njit
def _vacate(j, cls_j, hold, nodes, off, w, node_run, held, free_elig):
    """Finish (hold False) or suspend (hold True: the job keeps its nodes) job j."""
    for q in range(off[j], off[j] + w[j]):
        x = nodes[q]
        node_run[x] = -1
        if hold:
            held[cls_j, x] = j
        for k in range(3):
            if held[k, x] == -1:
                free_elig[k] += 1


@njit
def _pick_nodes(j, k, nodes, off, w, node_run, held):
    """Job j (class k) takes the lowest-numbered free nodes not held by preempted k-jobs."""
    q = off[j]
    end = off[j] + w[j]
    x = 0
    while q < end:
        if node_run[x] == -1 and held[k, x] == -1:
            nodes[q] = x
            q += 1
        x += 1


@njit
def _pick_unheld(j, nodes, off, w, node_run, held):
    """Job j takes the lowest-numbered free nodes that no preempted job holds; how many it found
    (fewer than its width: the node list is incomplete and the job must not start)."""
    q = off[j]
    end = off[j] + w[j]
    for x in range(node_run.shape[0]):
        if q == end:
            break
        if node_run[x] == -1 and held[0, x] == -1 and held[1, x] == -1 and held[2, x] == -1:
            nodes[q] = x
            q += 1
    return q - off[j]


@njit
def _nodes_free(j, nodes, off, w, node_run):
    for q in range(off[j], off[j] + w[j]):
        if node_run[nodes[q]] != -1:
            return False
    return True


@njit
def _launch(j, k, t, fresh, nodes, off, w, node_run, held, free_elig, status, seg, last, first, run, run_n, n_run_cls):
    """Start (``fresh``: on the lowest eligible nodes) or resume job j of class k at t; new run_n."""
    if fresh:
        _pick_nodes(j, k, nodes, off, w, node_run, held)
        first[j] = t
    _occupy(j, k, nodes, off, w, node_run, held, free_elig)
    status[j] = RUNNING
    seg[j] = t
    last[j] = t
    run[run_n] = j
    n_run_cls[k] += 1
    return run_n + 1


@njit
def _compact(queue, qn, status, keep):
    """Drop the jobs of ``queue[:qn]`` whose status is not ``keep`` (order kept); the new length."""
    a = 0
    for qq in range(qn):
        if status[queue[qq]] == keep:
            queue[a] = queue[qq]
            a += 1
    return a


@njit
def _record(iv_job, iv_s, iv_e, niv, j, a, b):
    """Append the interval [a, b) of job j (arrays grown as needed)."""
    iv_job = _grow(iv_job, niv)
    iv_s = _grow(iv_s, niv)
    iv_e = _grow(iv_e, niv)
    iv_job[niv] = j
    iv_s[niv] = a
    iv_e[niv] = b
    return iv_job, iv_s, iv_e, niv + 1


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _progress(j, t, seg, done, iv_job, iv_s, iv_e, niv):
    """Bank the progress job j made in its current run segment up to t (when it is suspended or
    paused): the interval [seg[j], t) is recorded and added to ``done[j]``."""
    if t > seg[j]:
        iv_job, iv_s, iv_e, niv = _record(iv_job, iv_s, iv_e, niv, j, seg[j], t)
        done[j] += t - seg[j]
    return iv_job, iv_s, iv_e, niv
