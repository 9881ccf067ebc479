"""Shares, cycles and slice switches of the time-sharing engine (SCOJO-PECT; rules 2 and 3 of the
docstring of :mod:`schedlab.sim.timeshare`, where the event order is stated once).

A cycle gives each class with work one slice, its length from the class's share
(:func:`_new_cycle`); at a slice boundary the outgoing class's running jobs and the jobs in the
incoming class's way are chosen (:func:`_mark_suspensions`) and suspended to disk, keeping their
nodes (:func:`_suspend_marked`); a switch that suspends or resumes anything pauses every job for
the overhead (:func:`_pause`).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_layout import PREEMPTED
from .ts_nodes import _progress, _vacate


@njit
def _new_cycle(t, work, share_table, order, cycle, min_slice, cyc_cls, cyc_len):
    """Slices of a new cycle starting at t for the classes with work; returns their number."""
    hour = int(t // 3600.0) % 24
    total = 0.0
    for k in range(3):
        if work[k]:
            total += share_table[hour, k]
    cn = 0
    for o in range(3):
        k = order[o]
        if work[k]:
            lam = share_table[hour, k] / total * cycle if total > 0.0 else 0.0
            cyc_cls[cn] = k
            cyc_len[cn] = max(min_slice, lam)
            cn += 1
    return cn


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _mark_suspensions(c, nx, suspend_all, run, run_n, cls, off, w, nodes, held, wq, wq_n, free_elig, last, mark, tmp):
    """Rule 3 at a switch from class c to class nx: mark (``mark[j]``) the running c-jobs
    (``suspend_all``) and every running job of a third class on nodes held by preempted nx-jobs;
    then, while the first waiting nx-job does not fit on the free nodes not held by preempted
    nx-jobs, running jobs of the other classes, latest (re)started first."""
    for r in range(run_n):
        j = run[r]
        if cls[j] == c and suspend_all:
            mark[j] = True
        elif cls[j] != nx:
            for q in range(off[j], off[j] + w[j]):
                if held[nx, nodes[q]] >= 0:
                    mark[j] = True
                    break
    if wq_n[nx] > 0:
        h = wq[nx, 0]
        avail = free_elig[nx]
        nc = 0
        for r in range(run_n):
            j = run[r]
            if mark[j]:
                for q in range(off[j], off[j] + w[j]):
                    if held[nx, nodes[q]] == -1:
                        avail += 1
            elif cls[j] != nx:
                tmp[nc] = j
                nc += 1
        if w[h] > avail and nc > 0:
            cand = np.sort(tmp[:nc])[::-1]  # job descending, then stable by last descending
            keys = np.empty(nc, np.float64)
            for a in range(nc):
                keys[a] = -last[cand[a]]
            ordc = np.argsort(keys, kind="mergesort")
            for a in range(nc):
                j = cand[ordc[a]]
                mark[j] = True
                for q in range(off[j], off[j] + w[j]):
                    if held[nx, nodes[q]] == -1:
                        avail += 1
                if w[h] <= avail:
                    break


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _suspend_marked(t, run, run_n, mark, tmp, cls, seg, done, status, npre, pq, pq_n, n_run_cls, nodes, off, w, node_run,
                    held, free_elig, iv_job, iv_s, iv_e, niv):
    """Suspend the marked running jobs at t in job order (each keeps its nodes and joins its class's
    preempted queue); (run_n, how many, the interval record)."""
    ns = 0
    for r in range(run_n):
        if mark[run[r]]:
            tmp[ns] = run[r]
            ns += 1
    sus = np.sort(tmp[:ns])
    for a in range(ns):
        j = sus[a]
        mark[j] = False
        iv_job, iv_s, iv_e, niv = _progress(j, t, seg, done, iv_job, iv_s, iv_e, niv)
        _vacate(j, cls[j], True, nodes, off, w, node_run, held, free_elig)
        status[j] = PREEMPTED
        pq[cls[j], pq_n[cls[j]]] = j
        pq_n[cls[j]] += 1
        npre[j] += 1
        n_run_cls[cls[j]] -= 1
        for r in range(run_n):
            if run[r] == j:
                run_n -= 1
                run[r] = run[run_n]
                break
    return run_n, ns, iv_job, iv_s, iv_e, niv


@njit(inline="always")  # a part of the loop's body: no call in the hot path
def _pause(t, overhead, run, run_n, seg, done, iv_job, iv_s, iv_e, niv):
    """The switch overhead from t: every running job stops progressing until t + overhead."""
    for r in range(run_n):
        j = run[r]
        iv_job, iv_s, iv_e, niv = _progress(j, t, seg, done, iv_job, iv_s, iv_e, niv)
        seg[j] = t + overhead
    return iv_job, iv_s, iv_e, niv
