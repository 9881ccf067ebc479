"""Standard-EASY deviation checker: the decisions of one schedule that standard EASY would not make.

Standard EASY: the head of the queue (submit time, then job id) starts as soon as it fits; a job
may jump the head only if it does not delay the head's reservation, computed from the running
jobs' estimated ends max(start + estimate, t). Unlike :func:`schedlab.sim.validate.validate_schedule`
(which refuses a schedule at its first broken rule), this reports *every* deviation of a schedule
made by any simulator, in two classes:

- ``reservation broken``: a backfill at time t moved the head's reservation later;
- ``head held``: the head fitted after the pass at some time t' but was not started.

Used by benchmarks/experiments/peers/accasim_compare.py (docs/accasim-comparison.md rests on its
counts) to compare AccaSim's EASY with ours job by job. Plain Python/numpy, no engine code.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

import numpy as np


def reservation(t: float, need: int, free: int, running: list[tuple[float, int]]) -> float:
    """Earliest time the head (``need`` processors) fits, from running (estimated end, procs)."""
    if free >= need:
        return t
    for est_end, procs in sorted(running):
        free += procs
        if free >= need:
            return max(est_end, t)
    return float("inf")


def easy_deviations(ids, submit, start, end, procs, estimate, m: int) -> dict[str, dict]:
    """Decisions of one schedule that standard EASY would not make (see the module docstring).

    Returns ``{"reservation broken": {job id: detail}, "head held": {job id: detail}}``.
    Queue order is submit time, then job id. Zero-length jobs hold their processors only during
    the scheduling pass at their start time (AccaSim's semantics; ours has none after cleaning).
    """
    n = len(ids)
    order = np.lexsort((ids, submit))  # queue order
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    est_end = start + estimate

    # --- head held: from the moment every earlier job has started, did the job fit earlier?
    times = np.concatenate([start, end])
    delta = np.concatenate([procs, -procs])
    ev_order = np.argsort(times, kind="stable")
    ev_t = np.unique(times)
    # occupancy after all events at each distinct time (zero-length jobs cancel out)
    cum = np.cumsum(delta[ev_order])
    last_at = np.searchsorted(times[ev_order], ev_t, side="right") - 1
    occ = cum[last_at]
    zero_at = set(start[end == start].tolist())
    prefix = np.maximum.accumulate(np.concatenate([[-np.inf], start[order][:-1]]))
    head_from = np.empty(n)
    head_from[order] = np.maximum(submit[order], prefix)
    held: dict[int, dict] = {}
    for j in np.flatnonzero(start > head_from):
        lo = np.searchsorted(ev_t, head_from[j], side="right") - 1  # state in force at head_from
        hi = np.searchsorted(ev_t, start[j], side="left")
        lo = max(lo, 0)
        fits = np.flatnonzero(occ[lo:hi] <= m - procs[j])
        if fits.size:
            t_fit = max(float(ev_t[lo + fits[0]]), float(head_from[j]))
            held[int(ids[j])] = {"fits_at": t_fit, "started": float(start[j]), "lost_s": float(start[j] - t_fit),
                                 "zero_length_job_at_fit": t_fit in zero_at}
    # --- reservation broken: per start time, does the pass move the head's reservation later?
    broken: dict[int, dict] = {}
    by_time: dict[float, list[int]] = defaultdict(list)
    for j in np.argsort(start, kind="stable"):
        by_time[float(start[j])].append(int(j))
    waiting_sorted = order  # queue order, to find the head after each pass
    running: list[tuple[float, int, float, int]] = []  # (end, j, est_end, procs) heap by end
    busy = 0
    pos = 0
    for t in sorted(by_time):
        while running and running[0][0] <= t:
            busy -= heapq.heappop(running)[3]
        starters = by_time[t]
        # the head after this pass: first job in queue order submitted by t and not yet started
        while pos < n and start[waiting_sorted[pos]] <= t:
            pos += 1
        k = pos
        while k < n and not (submit[waiting_sorted[k]] <= t and start[waiting_sorted[k]] > t):
            if submit[waiting_sorted[k]] > t:
                k = n
                break
            k += 1
        head = int(waiting_sorted[k]) if k < n else -1
        ahead = [j for j in starters if head < 0 or rank[j] < rank[head]]
        jumped = [j for j in starters if head >= 0 and rank[j] > rank[head] and end[j] > start[j]]
        for j in ahead:
            if end[j] > start[j]:
                busy += procs[j]
        state = [(max(e2, t), p2) for (_, _, e2, p2) in running] + [(max(est_end[j], t), procs[j]) for j in ahead
                                                                       if end[j] > start[j]]
        if head >= 0 and jumped:
            before = reservation(t, int(procs[head]), m - busy, state)
            after_state = state + [(max(est_end[j], t), procs[j]) for j in jumped]
            after = reservation(t, int(procs[head]), m - busy - int(sum(procs[j] for j in jumped)), after_state)
            if after > before:
                for j in jumped:
                    if est_end[j] > before:
                        broken[int(ids[j])] = {"t": t, "head": int(ids[head]), "reservation_before": before,
                                               "reservation_after": after}
        for j in starters:
            if end[j] > start[j]:
                if j not in ahead:
                    busy += procs[j]
                heapq.heappush(running, (float(end[j]), int(j), float(est_end[j]), int(procs[j])))
    return {"reservation broken": broken, "head held": held}
