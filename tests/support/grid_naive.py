"""Slow, obvious reference of the multi-site grid simulation (none, POOL, RQ) in plain Python.

Written from the rules in schedlab/grid/kernel.py's docstring, with plain lists and no event
heap: time jumps to the next submit or finish; at each instant finishes, then arrivals, then one
scheduling round over the sites in order.
"""

from __future__ import annotations

import math


def naive_grid(submit, run, est, procs, origin, site_procs, exchange, rules=None, reading=None):
    """Return (start, site) lists for jobs sorted by submit (ties: site, trace order).

    ``reading``: dict of the exchange readings (schedlab/grid/readings.py option names and value
    names, e.g. {"rq_when": "every"}); missing options take the recommended defaults.

    ``rules[k]``: the dispatch rule of site k (a registry name; default EASY everywhere), run on
    the site's queue in its list order (submit order, requested jobs appended at the end) by the
    single-site reference (tests/support/naive.py)."""
    from support.naive import NAIVE_RULES

    rules = rules or ["easy"] * len(site_procs)
    rd = {"rq_seq": "local-first", "rq_when": "queue-changed", "rq_take": "budget",
          "pool_take": "backfill", "pool_keep": "persistent", **(reading or {})}
    n = len(submit)
    K = len(site_procs)
    start = [None] * n
    site = [None] * n
    queues = [[] for _ in range(K)]
    running = [[] for _ in range(K)]  # job indices
    pool: list[int] = []

    def free(k):
        return site_procs[k] - sum(procs[j] for j in running[k])

    def begin(j, k, t):
        start[j] = t
        site[j] = k
        running[k].append(j)
        for q in queues:
            if j in q:
                q.remove(j)
        if j in pool:
            pool.remove(j)

    def reservation(k, head, t):
        if free(k) >= procs[head]:
            return t, free(k) - procs[head]
        ends = sorted({max(start[j] + est[j], t) for j in running[k]})
        for e in ends:
            avail = free(k) + sum(procs[j] for j in running[k] if max(start[j] + est[j], t) <= e)
            if avail >= procs[head]:
                return max(e, t), avail - procs[head]
        return math.inf, 0

    def easy(k, t):
        if rules[k] != "easy":
            free_k = free(k)
            for j in NAIVE_RULES[rules[k]](list(queues[k]), list(running[k]), t, site_procs[k], free_k, procs, est, start):
                begin(j, k, t)
            return
        q = queues[k]
        while q and procs[q[0]] <= free(k):
            begin(q[0], k, t)
        if q:
            shadow, extra = reservation(k, q[0], t)
            for j in list(q[1:]):
                if procs[j] > free(k):
                    continue
                if t + est[j] <= shadow:
                    begin(j, k, t)
                elif procs[j] <= extra:
                    begin(j, k, t)
                    extra -= procs[j]

    nxt = 0
    while nxt < n or any(running):
        cands = [start[j] + run[j] for k in range(K) for j in running[k]]
        if nxt < n:
            cands.append(submit[nxt])
        t = min(cands)  # a zero-length job's finish is an event at its start time
        changed = set()
        for k in range(K):
            still = [j for j in running[k] if start[j] + run[j] > t]
            if len(still) < len(running[k]):
                changed.add(k)
            running[k] = still
        arrived = []
        while nxt < n and submit[nxt] <= t:
            queues[origin[nxt]].append(nxt)
            changed.add(origin[nxt])
            arrived.append(nxt)
            nxt += 1
        if exchange == "none":
            # each site alone: a site passes only at its own events, as the single-site engine
            for k in sorted(changed):
                easy(k, t)
        elif exchange == "pool":
            if rd["pool_keep"] == "once":
                pool.clear()  # offered only in the round it was published
            for k in range(K):
                easy(k, t)
            pool.extend(j for j in arrived if start[j] is None)
            for k in range(K):
                blocked = bool(queues[k])
                if blocked and rd["pool_take"] == "idle":
                    continue
                shadow, extra = reservation(k, queues[k][0], t) if blocked else (math.inf, 0)
                for j in list(pool):
                    if origin[j] == k or procs[j] > free(k):
                        continue
                    if not blocked or t + est[j] <= shadow:
                        begin(j, k, t)
                    elif procs[j] <= extra:
                        begin(j, k, t)
                        extra -= procs[j]
        else:
            own = {origin[j] for j in arrived}
            touched = set(own)  # sites whose own queue changed at this instant

            def local(k):
                before = len(queues[k])
                easy(k, t)
                if len(queues[k]) < before:
                    touched.add(k)

            first = rd["rq_seq"] == "local-first"
            robbed = set()
            if first:
                for k in range(K):
                    local(k)
            for k in range(K):
                if not first or k in robbed:
                    robbed.discard(k)
                    local(k)
                if rd["rq_when"] == "queue-changed" and k not in touched:
                    continue
                if rd["rq_when"] == "own-arrival" and k not in own:
                    continue
                budget = free(k)
                strict = rd["rq_take"] == "startable" and bool(queues[k])
                shadow, extra = reservation(k, queues[k][0], t) if strict else (math.inf, 0)
                moved = []
                for other in range(K):
                    if other == k:
                        continue
                    for j in list(queues[other]):
                        if procs[j] > budget:
                            continue
                        if strict and t + est[j] > shadow:
                            if procs[j] > extra:
                                continue
                            extra -= procs[j]
                        queues[other].remove(j)
                        touched.add(other)
                        robbed.add(other)
                        moved.append(j)
                        budget -= procs[j]
                if moved:
                    queues[k].extend(moved)
                    easy(k, t)
            if first:
                for k in sorted(robbed):
                    easy(k, t)
    return start, site
