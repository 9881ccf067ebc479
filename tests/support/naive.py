"""A slow, obviously-correct reference simulator: plain Python, recomputes everything each pass.

Written independently of the numba kernels (schedlab.sim.dispatch) from the semantics alone
(genetic-fuzzy-rule-based-scheduling Section 2.1, greedy-es-sorting-criteria II-A/III-A):

- time jumps to the next arrival or finish; at one time: finishes, then arrivals, then ONE pass;
- a job of processing time 0 holds its processors during the pass that starts it; its finish is
  the next event, at the same time (so another pass follows at that time);
- the scheduler sees estimates only: a running job's estimated end is max(start + estimate, now).
"""

from __future__ import annotations

import numpy as np

from schedlab.strategy import registry
from schedlab.strategy.model import Greedy
from schedlab.workload import time_of_week_class


def naive_simulate(workload, procs: int, strategy, kill: bool = True, switch=None):
    """(start, finish) arrays in trace order.

    ``switch``: a list of strategies; the k-th pass (counting only passes with a waiting job)
    uses ``switch[k % len(switch)]`` instead of ``strategy`` (per-pass switching of rule and
    order, as a rule-based scheduler does); or a callable ``switch(t, waiting, running, done,
    start, finish) -> Strategy`` asked before every pass with a waiting job (``done``: the
    finished jobs).
    """
    w = workload
    n = len(w)
    submit = [float(x) for x in w.submit]
    est = [float(x) for x in w.estimate]
    width = [int(x) for x in w.procs]
    proc = [min(float(r), e) if kill else float(r) for r, e in zip(w.runtime, est)]
    rank = {j: r for r, j in enumerate(sorted(range(n), key=lambda j: (submit[j], j)))}
    start = [None] * n
    finish = [None] * n
    arrived = [False] * n
    waiting: list[int] = []
    running: list[int] = []
    passes = 0
    while any(s is None for s in start):
        times = [submit[j] for j in range(n) if not arrived[j]] + [finish[j] for j in running]
        t = min(times)
        running = [j for j in running if finish[j] > t]  # all finishes first
        for j in range(n):  # then all arrivals
            if not arrived[j] and submit[j] <= t:
                arrived[j] = True
                waiting.append(j)
        now_strategy = strategy
        if callable(switch) and waiting:  # a rule base: it sees the state just before the pass
            done = [j for j in range(n) if start[j] is not None and j not in running]
            now_strategy = switch(t, list(waiting), list(running), done, start, finish)
            passes += 1
        elif switch is not None and waiting:
            now_strategy = switch[passes % len(switch)]
            passes += 1
        free = procs - sum(width[j] for j in running)  # a dynamic user order's state at the pass
        queue = _ordered(w, now_strategy.order, waiting, t, rank, (free, len(waiting), procs))
        started = _dispatch(now_strategy.dispatch, queue, running, t, procs, width, est, start)
        for j in started:
            start[j] = t
            finish[j] = t + proc[j]
            waiting.remove(j)
            running.append(j)
    return np.array(start, dtype=float), np.array(finish, dtype=float)


def _ordered(w, order, waiting, t, rank, state):
    if not isinstance(order, Greedy) and order in NAIVE_DYNAMIC:  # key(w, j, t, free, queued, m)
        return sorted(waiting, key=lambda j: (NAIVE_DYNAMIC[order](w, j, t, *state), rank[j]))
    if isinstance(order, Greedy):
        crit = order.per_class()[int(time_of_week_class(w, t))]

        def key(j):
            # f_k(j, t) = alpha t + beta (greedy-es-sorting-criteria III-A, rearranged as in
            # schedlab.sim.greedy); sorted by decreasing value, then decreasing beta, then submit order
            g = int(w.group[j]) if 1 <= int(w.group[j]) <= 5 else 5
            K, wt = crit.K[g - 1], crit.w[g - 1]
            r, p, m = float(w.submit[j]), float(w.estimate[j]), float(w.procs[j])
            a, b = crit.a, crit.b
            if crit.kind == "f1":
                alpha, beta = wt * a / p, wt * (K - a * r / p + b * p / m)
            elif crit.kind == "f2":
                alpha, beta = a, K - a * r + b * p * m
            elif crit.kind == "f3":
                alpha, beta = wt * a / (p * m), wt * (K - a * r / (p * m))
            else:
                alpha, beta = wt * a, wt * (K - a * r + b * p / m)
            return (-(alpha * t + beta), -beta, rank[j])

        return sorted(waiting, key=key)
    key = NAIVE_ORDERS[order]
    return sorted(waiting, key=lambda j: (key(w, j), rank[j]))


def _dispatch(rule, queue, running, t, m, width, est, start):
    """The jobs that rule ``rule`` (a registry row's ``naive`` name) starts at t."""
    free = m - sum(width[j] for j in running)
    return NAIVE_RULES[registry.rule(rule).naive](queue, running, t, m, free, width, est, start)


def _fcfs(queue, running, t, m, free, width, est, start):
    started = []
    for j in queue:
        if width[j] > free:
            break
        started.append(j)
        free -= width[j]
    return started


def _list(queue, running, t, m, free, width, est, start):
    started = []
    for j in queue:
        if width[j] <= free:
            started.append(j)
            free -= width[j]
    return started


def _easy(queue, running, t, m, free, width, est, start):
    started = _fcfs(queue, running, t, m, free, width, est, start)
    free -= sum(width[j] for j in started)
    if len(started) == len(queue):
        return started
    head = queue[len(started)]
    # the head's reservation from the estimated ends of everything running now
    ends = sorted(
        [(max(start[j] + est[j], t), width[j]) for j in running] + [(t + est[j], width[j]) for j in started]
    )
    avail = free
    shadow = None
    for e, wj in ends:
        if shadow is not None and e > shadow:
            break
        avail += wj
        if shadow is None and avail >= width[head]:
            shadow = e
    extra = avail - width[head]
    for j in queue[len(started) + 1:]:
        if width[j] <= free:
            if t + est[j] <= shadow:
                started.append(j)
                free -= width[j]
            elif width[j] <= extra:
                started.append(j)
                free -= width[j]
                extra -= width[j]
    return started


def _conservative(queue, running, t, m, free, width, est, start):
    # blocks (begin, end, width) of running jobs and of reservations in queue order
    started = []
    blocks = [(t, max(start[j] + est[j], t), width[j]) for j in running]
    for j in queue:
        s = _earliest(blocks, t, est[j], width[j], m)
        blocks.append((s, s + est[j], width[j]))
        if s == t and width[j] <= free:
            started.append(j)
            free -= width[j]
    return started


#: the reference of each dispatch rule, by its registry row's ``naive`` name
NAIVE_RULES = {"fcfs": _fcfs, "list": _list, "easy": _easy, "conservative": _conservative}
#: the static sort key of each queue order, by registry name (written here from the paper, not read from the rows)
NAIVE_ORDERS = {
    "submit": lambda w, j: 0,
    "procs": lambda w, j: int(w.procs[j]),
    "estimate": lambda w, j: float(w.estimate[j]),
    "group": lambda w, j: int(w.group[j]) if 1 <= int(w.group[j]) <= 5 else 6,
}


#: a dynamic order's key ``(w, j, t, free, queued, m)`` by name (the tests add a user's: free
#: processors and waiting jobs at the pass, before it starts anything; m the machine size)
NAIVE_DYNAMIC: dict = {}


def _earliest(blocks, t, duration, need, m):
    """Earliest s >= t with `need` processors free throughout [s, s + duration)."""
    candidates = sorted({t} | {e for _, e, _ in blocks if e >= t})

    def free_at(x):
        return m - sum(wj for b, e, wj in blocks if b <= x < e)

    for s in candidates:
        checks = [s] + [c for c in candidates if s < c < s + duration]
        if all(free_at(c) >= need for c in checks):
            return s
    raise AssertionError("unreachable: the empty machine fits every job")  # pragma: no cover


def random_small_workload(rng):
    """(workload, m): up to 29 jobs on up to 11 processors, small integer times (ties, zero
    runtimes), groups 0..5: the random cases the registry's extension tests check rows on."""
    from schedlab.workload import Workload

    n, m = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    w = Workload.from_columns({"submit": np.sort(rng.integers(0, 40, n)).astype(float),
                               "runtime": rng.integers(0, 15, n).astype(float),
                               "estimate": rng.integers(1, 15, n).astype(float),
                               "procs": rng.integers(1, m + 1, n), "group": rng.integers(0, 6, n)}, machine_procs=m)
    return w, m


def small_workload(rows, m):
    """A hand-worked case: rows (submit, runtime, estimate, procs), all of user group 1, on m processors."""
    from schedlab.workload import Workload

    a = np.array(rows, dtype=float)
    return Workload.from_columns({"submit": a[:, 0], "runtime": a[:, 1], "estimate": a[:, 2],
                                  "procs": a[:, 3].astype(np.int64), "group": np.ones(len(rows), dtype=np.int64)},
                                 machine_procs=m)
