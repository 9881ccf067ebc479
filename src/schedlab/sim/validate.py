"""The one shared schedule validator: every test that simulates calls :func:`validate_schedule`.

Plain Python/numpy on purpose (it is the test oracle, written independently of the kernels).
Rules (DESIGN.md "Semantics that every engine shares"; genetic-fuzzy-rule-based-scheduling 2.1):

1. every job is scheduled exactly once (one finite start and finish per job);
2. no job starts before its submit time;
3. finish = start + min(runtime, estimate) (or + runtime when jobs are not killed);
4. never more than m processors busy (a job of length 0 needs its processors free at its start);
5. per dispatch rule, replaying the schedule event by event (waiting queue in the strategy's
   order at each start time; running jobs' estimated ends max(start + estimate, t)):
   FCFS starts a prefix of the queue at each time; EASY backfilling never delays the head's
   reservation; conservative backfilling never delays any earlier job's reservation.
   At a time where a zero-length job starts, the engine runs several passes (its finish is an
   event at the same time); there only the FCFS prefix rule is checked, since a backfill of an
   earlier pass answers to that pass's head.
"""

from __future__ import annotations

import bisect
import heapq

import numpy as np

from ..strategy.model import Greedy


class ScheduleInvalid(AssertionError):
    """A schedule that breaks a rule; the message names the job and the rule."""


def validate_schedule(schedule, *, replay_until: float | None = None) -> None:
    """Raise :class:`ScheduleInvalid` unless ``schedule`` obeys every rule above.

    Rules 1-4 are always checked on the whole schedule; ``replay_until`` limits the replay of
    rule 5 to the start times up to that time (to keep tests on huge traces short).
    """
    w = schedule.workload
    n = len(w)
    start = np.asarray(schedule.start, dtype=np.float64)
    finish = np.asarray(schedule.finish, dtype=np.float64)
    ids = w.id
    if start.shape != (n,) or finish.shape != (n,):
        raise ScheduleInvalid(f"schedule has {start.shape} starts and {finish.shape} finishes for {n} jobs")
    bad = np.flatnonzero(~np.isfinite(start) | ~np.isfinite(finish))
    if bad.size:
        raise ScheduleInvalid(f"job {ids[bad[0]]} is not scheduled exactly once (start {start[bad[0]]})")
    bad = np.flatnonzero(start < w.submit)
    if bad.size:
        j = bad[0]
        raise ScheduleInvalid(f"job {ids[j]} starts at {start[j]} before its submit time {w.submit[j]}")
    p = np.minimum(w.runtime, w.estimate) if schedule.killed else w.runtime
    bad = np.flatnonzero(finish != start + p)
    if bad.size:
        j = bad[0]
        rule = "start + min(runtime, estimate)" if schedule.killed else "start + runtime"
        raise ScheduleInvalid(f"job {ids[j]} finishes at {finish[j]}, not {rule} = {start[j] + p[j]}")
    _check_capacity(w, start, finish, schedule.machine.procs)
    strategy = schedule.strategy
    if strategy is not None and schedule.site is None and n and strategy.dispatch != "list":
        _Replay(schedule, start, finish).run(np.inf if replay_until is None else replay_until)


def _check_capacity(w, start, finish, m) -> None:
    """Sweep over sorted start/finish events: busy processors never exceed m."""
    width = w.procs.astype(np.int64)
    pos = finish > start
    times = np.concatenate([finish[pos], start[pos]])
    delta = np.concatenate([-width[pos], width[pos]])
    kind = np.concatenate([np.zeros(pos.sum(), np.int8), np.ones(pos.sum(), np.int8)])  # release first
    order = np.lexsort((kind, times))
    times, busy = times[order], np.cumsum(delta[order])
    if busy.size and busy.max() > m:
        k = int(np.argmax(busy > m))
        t = times[k]
        j = np.flatnonzero((start == t) & pos)[0]
        raise ScheduleInvalid(f"{busy[k]} processors busy at time {t} (machine has {m}) when job {w.id[j]} starts")
    zero = np.flatnonzero(~pos)
    if zero.size:  # a zero-length job needs its processors free at its start, besides earlier jobs
        starts, finishes = np.sort(start[pos]), np.sort(finish[pos])
        began = np.concatenate([[0], np.cumsum(width[pos][np.argsort(start[pos], kind="stable")])])
        ended = np.concatenate([[0], np.cumsum(width[pos][np.argsort(finish[pos], kind="stable")])])
        t = start[zero]
        busy_before = began[np.searchsorted(starts, t, side="left")] - ended[np.searchsorted(finishes, t, side="right")]
        bad = np.flatnonzero(busy_before + width[zero] > m)
        if bad.size:
            j = zero[bad[0]]
            raise ScheduleInvalid(f"zero-length job {w.id[j]} starts at {start[j]} on {w.procs[j]} processors "
                                  f"but {busy_before[bad[0]]} of {m} are busy")


def earliest_start(times: list, free: list, width: int, duration: float) -> int:
    """Index k of the earliest profile step with >= width processors free during
    [times[k], times[k] + duration); ``free[k]`` is free during [times[k], times[k+1])."""
    k = 0
    while True:
        while free[k] < width:
            k += 1
        end = times[k] + duration
        last = k + 1
        while last < len(times) and times[last] < end and free[last] >= width:
            last += 1
        if last == len(times) or times[last] >= end:
            return k
        k = last  # step `last` lacks processors: start after it


def book(times: list, free: list, k: int, width: int, duration: float) -> None:
    """Take ``width`` processors during [times[k], times[k] + duration) (in place)."""
    end = times[k] + duration
    last = bisect.bisect_left(times, end)
    if last == len(times) or times[last] != end:
        times.insert(last, end)
        free.insert(last, free[last - 1])
    for i in range(k, last):
        free[i] -= width


class _Replay:
    """Replays a schedule start time by start time with the waiting queue in strategy order."""

    def __init__(self, schedule, start, finish):
        self.s = schedule
        self.w = w = schedule.workload
        self.start, self.finish = start, finish
        self.m = schedule.machine.procs
        self.dispatch = schedule.strategy.dispatch
        self.order = schedule.strategy.order
        self.killed = schedule.killed
        n = len(w)
        rank = np.empty(n, dtype=np.int64)
        rank[np.argsort(w.submit, kind="stable")] = np.arange(n)  # ties: submit, then trace order
        self.rank = rank
        if isinstance(self.order, Greedy):
            self.key = None
            self._classes(start, finish)
        else:
            group = np.where((w.group >= 1) & (w.group <= 5), w.group, 6)
            primary = {"submit": np.zeros(n), "procs": w.procs, "estimate": w.estimate, "group": group}[self.order]
            self.key = list(zip(primary.tolist(), rank.tolist()))

    def _classes(self, start, finish):
        crits = self.order.per_class()
        self.crits = crits
        self.seg = None
        if len(set(crits)) > 1:
            from .. import workload as wl

            lo = float(self.w.submit.min())
            self.seg = wl.time_of_week_segments(self.w, lo, float(finish.max()) + 1.0)

    def greedy_order(self, waiting: np.ndarray, t: float) -> np.ndarray:
        """Waiting jobs by decreasing criterion value at t (greedy-es-sorting-criteria III-A)."""
        c = 0
        if self.seg is not None:
            bounds, classes = self.seg
            c = int(classes[np.searchsorted(bounds, t, side="right") - 1])
        cr = self.crits[c]
        w = self.w
        g = w.group[waiting]
        gi = np.where((g >= 1) & (g <= 5), g, 5) - 1
        K, wt = np.asarray(cr.K)[gi], np.asarray(cr.w)[gi]
        r = w.submit[waiting]
        p = w.estimate[waiting]
        m = w.procs[waiting].astype(float)
        a, b = cr.a, cr.b
        # f_k = alpha t + beta, term for term as in schedlab.sim.greedy (so all round alike)
        alpha, beta = {
            "f1": lambda: (wt * a / p, wt * (K - a * r / p + b * p / m)),
            "f2": lambda: (np.full(len(waiting), a), K - a * r + b * p * m),
            "f3": lambda: (wt * a / (p * m), wt * (K - a * r / (p * m))),
            "f4": lambda: (wt * a, wt * (K - a * r + b * p / m)),
        }[cr.kind]()
        value = alpha * t + beta
        return waiting[np.lexsort((self.rank[waiting], -beta, -value))]

    def run(self, until: float) -> None:
        w, start, finish = self.w, self.start, self.finish
        arrivals = np.argsort(w.submit, kind="stable")
        times = np.unique(start)
        by_start = np.argsort(start, kind="stable")
        bounds = np.searchsorted(start[by_start], times, side="right")
        queue: list = []  # static orders: sorted (key, job); greedy: job list
        running: list = []  # heap of (finish, job)
        running_set: set = set()
        a = 0
        lo = 0
        for ti, t in enumerate(times):
            if t > until:
                break
            while a < len(arrivals) and w.submit[arrivals[a]] <= t:
                j = int(arrivals[a])
                if self.key is None:
                    queue.append(j)
                else:
                    bisect.insort(queue, (self.key[j], j))
                a += 1
            while running and running[0][0] <= t:
                running_set.discard(heapq.heappop(running)[1])
            starters = by_start[lo:bounds[ti]]
            lo = bounds[ti]
            if self.key is None:
                ordered = self.greedy_order(np.asarray(queue, dtype=np.int64), t).tolist()
            else:
                ordered = [j for _, j in queue]
            self.check(t, ordered, set(starters.tolist()), running_set)
            started = set(starters.tolist())
            if self.key is None:
                queue = [j for j in queue if j not in started]
            else:
                queue = [item for item in queue if item[1] not in started]
            for j in starters:
                if finish[j] > t:
                    heapq.heappush(running, (finish[j], int(j)))
                    running_set.add(int(j))

    def check(self, t, ordered, starters, running) -> None:
        missing = starters.difference(ordered)
        if missing:
            j = missing.pop()
            raise ScheduleInvalid(f"job {self.w.id[j]} starts at {t} but is not waiting then")
        k = 0
        while k < len(ordered) and ordered[k] in starters:
            k += 1
        if k == len(starters):
            return  # only a prefix of the queue starts: fine for every rule
        if self.dispatch != "fcfs" and any(self.finish[j] == t for j in starters):
            return  # several passes at t (a zero-length job started): see the module docstring
        ids = self.w.id
        if self.dispatch == "fcfs":
            j = next(j for j in ordered[k:] if j in starters)
            raise ScheduleInvalid(f"FCFS: job {ids[j]} starts at {t} before job {ids[ordered[k]]}, "
                                  "which is ahead of it in the queue")
        if self.dispatch == "easy":
            self.check_easy(t, ordered, k, starters, running)
        elif self.dispatch == "conservative":
            self.check_conservative(t, ordered, starters, running)

    def check_easy(self, t, ordered, k, starters, running) -> None:
        """The head's reservation (earliest start by the estimated ends of the jobs running
        before the backfill) leaves the head enough processors with the backfilled jobs added."""
        w = self.w
        head = ordered[k]
        need = w.procs[head]
        busy = np.fromiter(running, dtype=np.int64, count=len(running))
        busy = np.concatenate([busy, np.asarray(ordered[:k], dtype=np.int64)])
        ends = np.maximum(self.start[busy] + w.estimate[busy], t)  # a job started at t: t + estimate
        width = w.procs[busy]
        o = np.argsort(ends, kind="stable")
        avail = self.m - width.sum() + np.cumsum(width[o])
        reservation = float(ends[o][np.argmax(avail >= need)]) if self.m - width.sum() < need else t
        backfilled = np.asarray([j for j in ordered[k + 1:] if j in starters], dtype=np.int64)
        still_busy = width[ends > reservation].sum() + w.procs[backfilled][
            t + w.estimate[backfilled] > reservation].sum()
        if self.m - still_busy < need:
            ids = w.id
            raise ScheduleInvalid(
                f"EASY: backfilling job(s) {[int(ids[j]) for j in backfilled]} at {t} delays the reservation "
                f"of head job {ids[head]} at {reservation}: only {self.m - still_busy} of its {need} "
                "processors are free then")

    def check_conservative(self, t, ordered, starters, running) -> None:
        """Walking the queue in order, each job is reserved at its earliest start given the
        earlier reservations; a job starting at t must have t as that earliest start."""
        w = self.w
        jobs = np.fromiter(running, dtype=np.int64, count=len(running))
        ends = np.maximum(self.start[jobs] + w.estimate[jobs], t)
        o = np.argsort(ends, kind="stable")
        uniq, inv = np.unique(ends[o], return_inverse=True)
        freed = np.bincount(inv, weights=w.procs[jobs][o]).astype(np.int64)
        free_now = self.m - int(w.procs[jobs].sum())
        if uniq.size and uniq[0] == t:
            times = uniq.tolist()
            free = (free_now + np.cumsum(freed)).tolist()
        else:
            times = [t] + uniq.tolist()
            free = [free_now] + (free_now + np.cumsum(freed)).tolist()
        last = max(i for i, j in enumerate(ordered) if j in starters)
        for j in ordered[: last + 1]:
            width, duration = int(w.procs[j]), float(w.estimate[j])
            k = earliest_start(times, free, width, duration)
            if j in starters and times[k] != t:
                raise ScheduleInvalid(
                    f"conservative: job {w.id[j]} starts at {t} but its earliest start that delays no "
                    f"earlier reservation is {times[k]}")
            book(times, free, k, width, duration)
