"""The one shared schedule validator: every test that simulates calls :func:`validate_schedule`.

It is the test oracle, written independently of the engine (no engine code is imported): plain
Python/numpy, except the reservation arithmetic (EASY's head reservation, conservative's walk of
the queue through the availability profile), which are literal array versions of the textbook
rules compiled with numba so that every test can replay whole real traces. It is only run where
a job starts ahead of a waiting one (a backfill); a start time whose starters are the queue's
first jobs is legal under every rule.

Rules (DESIGN.md "Semantics that every engine shares"; genetic-fuzzy-rule-based-scheduling 2.1):

1. every job is scheduled exactly once (one finite start and finish per job);
2. no job starts before its submit time;
3. finish = start + min(runtime, estimate) (or + runtime when jobs are not killed);
4. never more than m processors busy (a job of length 0 needs its processors free at its start);
5. per dispatch rule (for a rule base: the rule its plan says was in force at each start time), replaying the schedule event by event (waiting queue in the strategy's
   order at each start time; running jobs' estimated ends max(start + estimate, t)):
   FCFS starts a prefix of the queue at each time; EASY backfilling never delays the head's
   reservation; conservative backfilling never delays any earlier job's reservation.
   At a time where a zero-length job starts, the engine runs several passes (its finish is an
   event at the same time); there only the FCFS prefix rule is checked, since a backfill of an
   earlier pass answers to that pass's head.
   A user's dynamic order (schedlab.strategy.register_order(dynamic=True)) is replayed with the
   user's plain Python key on the replayed state (wait, free processors, queue length at t); at
   a time where a zero-length job starts under it nothing of rule 5 is checked (the second pass
   sees another state, so another order). A user's dispatch rule (register_rule) answers to
   rules 1-4 only (its registry row's replay is "any": its choices are its own; the engine
   refuses a start wider than the free processors).
"""

from __future__ import annotations

import bisect
import heapq

import numpy as np

from .._config import njit
from ..strategy import registry
from ..strategy.model import Greedy
from .invalid import ScheduleInvalid  # re-exported: ``from schedlab.sim.validate import ScheduleInvalid``


def validate_schedule(schedule, *, replay_until: float | None = None) -> None:
    """Raise :class:`ScheduleInvalid` unless ``schedule`` obeys every rule above.

    Every rule is checked on the whole schedule; ``replay_until`` (an option for quick looks at
    huge schedules, not used by the tests) stops the replay of rule 5 after that start time.
    """
    if getattr(schedule, "timeshare", None) is not None:  # preemptive schedules: sim/validate_ts.py
        from .validate_ts import validate_timeshared

        return validate_timeshared(schedule)
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
    plan = getattr(schedule, "plan", None)
    if plan is not None and schedule.site is None and n:  # a rule base: the rule in force per start time
        _check_plan(schedule, plan)
        _Replay(schedule, start, finish, plan).run(np.inf if replay_until is None else replay_until)
    elif strategy is not None and schedule.site is None and n and registry.rule(strategy.dispatch).replay != "any":
        _Replay(schedule, start, finish).run(np.inf if replay_until is None else replay_until)


def _check_plan(schedule, plan) -> None:
    """A rule-based schedule's plan: pass times never decrease, and every job starts at the time
    of the pass that the plan says started it."""
    times = np.asarray(plan.times, dtype=np.float64)
    if times.size and np.any(np.diff(times) < 0):
        raise ScheduleInvalid("rule plan: pass times go back in time")
    sp = np.asarray(plan.start_pass)
    bad = np.flatnonzero((sp < 0) | (sp >= times.size))
    if bad.size:
        raise ScheduleInvalid(f"rule plan: job {schedule.workload.id[bad[0]]} was started by no pass")
    bad = np.flatnonzero(times[sp] != schedule.start)
    if bad.size:
        j = bad[0]
        raise ScheduleInvalid(f"rule plan: job {schedule.workload.id[j]} starts at {schedule.start[j]} but its pass "
                              f"ran at {times[sp[j]]}")


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


@njit
def running_profile(running, extra, start, estimate, procs, m, t):
    """Free processors as a step function of time from the busy jobs alone: ``free[k]`` during
    [times[k], times[k+1]), each job freeing its processors at max(start + estimate, t).

    ``running`` comes sorted by start + estimate (the replay keeps it so; checked here), the
    few ``extra`` jobs in any order; the two are merged by estimated end.
    """
    ends = np.maximum(start[running] + estimate[running], t)
    for i in range(1, ends.size):
        if ends[i] < ends[i - 1]:
            raise AssertionError("validator: running jobs out of estimated-end order")
    extra = extra[np.argsort(start[extra] + estimate[extra])]
    extra_ends = np.maximum(start[extra] + estimate[extra], t)
    n = running.size + extra.size
    times = np.empty(n + 1)
    free = np.empty(n + 1, dtype=np.int64)
    times[0] = t
    free[0] = m - procs[running].sum() - procs[extra].sum()
    p = 1
    a = b = 0
    for _ in range(n):
        if b == extra.size or (a < running.size and ends[a] <= extra_ends[b]):
            end, width = ends[a], procs[running[a]]
            a += 1
        else:
            end, width = extra_ends[b], procs[extra[b]]
            b += 1
        if end == times[p - 1]:
            free[p - 1] += width
        else:
            times[p] = end
            free[p] = free[p - 1] + width
            p += 1
    return times[:p], free[:p]


@njit
def easy_check(running, ahead, head, backfilled, start, estimate, procs, m, t):
    """EASY's head reservation, from the estimated ends of the jobs running before the backfill
    (``running`` and the queue jobs ``ahead`` of the head, started at t), and the processors the
    head finds free then once the ``backfilled`` jobs (started at t) are added.

    Returns (reservation, free at it); the backfill is legal iff free >= procs[head]
    (Mu'alem & Feitelson 2001, EASY: backfill only if the first job's reservation is not delayed).
    """
    times, free = running_profile(running, ahead, start, estimate, procs, m, t)
    k = 0
    while free[k] < procs[head]:  # the last step is the empty machine
        k += 1
    reservation = times[k]
    still_busy = m - free[k]
    for j in backfilled:
        if t + estimate[j] > reservation:
            still_busy += procs[j]
    return reservation, m - still_busy


@njit
def conservative_check(running, walk, starts_now, start, estimate, procs, m, t):
    """Reserve each job of ``walk`` (the queue in order) at its earliest start that delays no
    earlier reservation, in the profile of the ``running`` jobs' estimated ends.

    Returns (i, s): the first job i flagged in ``starts_now`` whose earliest start s is not t,
    or (-1, t). Mu'alem & Feitelson 2001; the textbook profile walk, on arrays.
    """
    times, free = running_profile(running, running[:0], start, estimate, procs, m, t)
    P = times.size
    T = np.empty(P + walk.size + 1)
    F = np.empty(P + walk.size + 1, dtype=np.int64)
    T[:P] = times
    F[:P] = free
    for i in range(walk.size):
        w, d = procs[walk[i]], estimate[walk[i]]
        k = 0
        while True:  # earliest step k with >= w free during [T[k], T[k] + d)
            while k < P and F[k] < w:
                k += 1
            if k == P:
                return i, np.inf  # wider than the machine
            end = T[k] + d
            last = k + 1
            while last < P and T[last] < end and F[last] >= w:
                last += 1
            if last == P or T[last] >= end:
                break
            k = last  # step `last` lacks processors: start after it
        if starts_now[i] and T[k] != t:
            return i, T[k]
        end = T[k] + d  # book w processors during [T[k], end)
        last = np.searchsorted(T[:P], end)
        if last == P or T[last] != end:
            T[last + 1:P + 1] = T[last:P].copy()
            F[last + 1:P + 1] = F[last:P].copy()
            T[last] = end
            F[last] = F[last - 1]
            P += 1
        F[k:last] -= w
    return -1, t


class _Jobs:
    """The jobs of a sorted ((key, rank), job) queue, read by position or slice on demand."""

    def __init__(self, queue):
        self.queue = queue

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [item[1] for item in self.queue[i]]
        return self.queue[i][1]


class _Replay:
    """Replays a schedule start time by start time with the waiting queue in strategy order.

    Static orders keep the queue as a sorted list of ((key, arrival rank), job): a job's queue
    position is a bisection, so a start time whose starters are the queue's first jobs costs
    O(starters log queue); the queue is only read out where someone jumps ahead (a backfill).
    """

    def __init__(self, schedule, start, finish, plan=None):
        self.s = schedule
        self.w = w = schedule.workload
        self.start, self.finish = start, finish
        self.m = schedule.machine.procs
        self.plan = plan
        self.killed = schedule.killed
        self.est = np.ascontiguousarray(w.estimate, dtype=np.float64)
        self.procs = np.ascontiguousarray(w.procs, dtype=np.int64)
        n = len(w)
        rank = np.empty(n, dtype=np.int64)
        rank[np.argsort(w.submit, kind="stable")] = np.arange(n)  # ties: submit, then trace order
        self.rank = rank
        # the strategies to replay: the schedule's one, or every one a rule base's plan used
        strategies = [schedule.strategy] if plan is None else plan.strategies()
        self.keys = {}  # static order -> sort key per job
        self.greedy = None
        self.dynamic = {}  # a user's dynamic order -> its plain Python key (registry row)
        for strategy in strategies:
            if isinstance(strategy.order, Greedy):
                self.greedy = self.order = strategy.order
                self._classes(start, finish)
            elif registry.order(strategy.order).dynamic is not None:
                self.dynamic[strategy.order] = registry.order(strategy.order).dynamic
            elif strategy.order not in self.keys:
                row = registry.order(strategy.order)  # the order's sort key (registry row, built in or a user's)
                primary = registry.order_keys(row, w.procs, w.estimate, w.group, rank, w.submit)
                self.keys[strategy.order] = list(zip(primary.tolist(), rank.tolist()))
        self._use(strategies[0] if strategies else None)

    def _use(self, strategy) -> None:
        """Replay the next start time with ``strategy``'s rule and order."""
        self.strategy = strategy
        if strategy is not None:
            self.dispatch = strategy.dispatch
            self.replay = registry.rule(self.dispatch).replay  # the rule's check (its registry row)
            self.order = strategy.order

    def _in_force(self, t: float):
        """The plan's strategy at start time t (None when passes of different strategies ran at t,
        which only zero-length jobs cause: then only capacity is checked at t); ScheduleInvalid
        when no pass ran at t."""
        times = self.plan.times
        lo, hi = np.searchsorted(times, t, side="left"), np.searchsorted(times, t, side="right")
        if lo == hi:
            raise ScheduleInvalid(f"rule plan: a job starts at {t} but no scheduling pass ran then")
        codes = np.unique(self.plan.codes[lo:hi])
        return self.plan.strategy(codes[0]) if codes.size == 1 else None

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

    def dynamic_order(self, waiting: list, t: float, free: int) -> list:
        """Waiting jobs by a user's dynamic key at t (smaller first, then submit order): the user's
        plain Python function, called by parameter name as the engine calls its compiled form
        (schedlab.strategy.user_code.KEY_FIELDS), here in plain Python on the replayed state."""
        import inspect

        fn = self.dynamic[self.order]
        params = list(inspect.signature(fn).parameters)
        w = self.w
        queued, m = len(waiting), int(self.m)

        def key(j):
            r = float(w.submit[j])
            fields = {"width": int(w.procs[j]), "estimate": float(w.estimate[j]), "group": int(w.group[j]),
                      "submit": r, "wait": t - r, "now": t, "free": free, "queued": queued, "machine": m}
            return float(fn(**{p: fields[p] for p in params}))

        return sorted(waiting, key=lambda j: (key(j), self.rank[j]))

    def run(self, until: float) -> None:
        w, start, finish = self.w, self.start, self.finish
        n = len(w)
        arrivals = np.argsort(w.submit, kind="stable")
        arrive = w.submit[arrivals].tolist()
        arrivals = arrivals.tolist()
        times = np.unique(start)
        by_start = np.argsort(start, kind="stable")
        bounds = np.searchsorted(start[by_start], times, side="right").tolist()
        by_start = by_start.tolist()
        finish_l = finish.tolist()
        keys = self.keys
        waiting = np.zeros(n, dtype=bool)
        starting = np.zeros(n, dtype=bool)  # greedy: marks this time's starters
        queues: dict = {order: [] for order in keys}  # per static order: sorted ((key, rank), job)
        pool: list = []  # greedy: the waiting jobs
        running: list = []  # heap of (finish, job)
        # busy[:nb]: the running jobs sorted by start + estimate (their keys in ends[:nb])
        busy = np.empty(n, dtype=np.int64)
        ends = np.empty(n)
        est_end = (start + self.est).tolist()
        nb = 0
        a = lo = 0
        for ti, t in enumerate(times.tolist()):
            if t > until:
                break
            while a < n and arrive[a] <= t:
                j = arrivals[a]
                waiting[j] = True
                if self.greedy is not None or self.dynamic:
                    pool.append(j)
                for order, queue in queues.items():
                    bisect.insort(queue, (keys[order][j], j))
                a += 1
            while running and running[0][0] <= t:
                j = heapq.heappop(running)[1]
                i = int(np.searchsorted(ends[:nb], est_end[j]))
                while busy[i] != j:
                    i += 1
                busy[i:nb - 1] = busy[i + 1:nb]
                ends[i:nb - 1] = ends[i + 1:nb]
                nb -= 1
            starters = by_start[lo:bounds[ti]]
            lo = bounds[ti]
            if not waiting[starters].all():
                j = next(j for j in starters if not waiting[j])
                raise ScheduleInvalid(f"job {w.id[j]} starts at {t} but is not waiting then")
            if self.plan is not None:
                self._use(self._in_force(t))
            several = False  # a user's dynamic key may see another state at a second pass at t
            if self.strategy is None:
                pass  # passes of different strategies at t (zero-length jobs): capacity only
            elif self.order in self.dynamic:
                ordered = self.dynamic_order(pool, t, self.m - int(self.procs[busy[:nb]].sum()))
                starting[starters] = True
                pos = np.flatnonzero(starting[ordered]).tolist()
                starting[starters] = False
                several = any(finish_l[j] == t for j in starters)
            elif isinstance(self.order, Greedy):
                ordered = self.greedy_order(np.asarray(pool, dtype=np.int64), t)
                starting[starters] = True
                pos = np.flatnonzero(starting[ordered]).tolist()
                starting[starters] = False
                ordered = ordered.tolist()
            else:
                queue, key = queues[self.order], keys[self.order]
                pos = sorted(bisect.bisect_left(queue, (key[j], j)) for j in starters)
                ordered = _Jobs(queue)
            if self.strategy is not None and self.replay != "any" and pos[-1] != len(pos) - 1 and not several:
                self.check(t, ordered, pos, starters, busy[:nb])  # not a prefix of the queue: check the rule
            waiting[starters] = False
            if self.greedy is not None or self.dynamic:
                started = set(starters)
                pool = [j for j in pool if j not in started]
            for order, queue in queues.items():
                key = keys[order]
                for p in sorted((bisect.bisect_left(queue, (key[j], j)) for j in starters), reverse=True):
                    del queue[p]
            for j in starters:
                if finish_l[j] > t:
                    heapq.heappush(running, (finish_l[j], j))
                    i = int(np.searchsorted(ends[:nb], est_end[j], side="right"))
                    busy[i + 1:nb + 1] = busy[i:nb]
                    ends[i + 1:nb + 1] = ends[i:nb]
                    busy[i], ends[i] = j, est_end[j]
                    nb += 1

    def check(self, t, ordered, pos, starters, running) -> None:
        """``ordered`` is the queue at t up to the last starter, ``pos`` the starters' sorted
        positions in it; they are not its first ``len(pos)`` jobs."""
        k = 0
        while pos[k] == k:
            k += 1  # ordered[k] is the first waiting job that does not start now
        if self.replay != "prefix" and any(self.finish[j] == t for j in starters):
            return  # several passes at t (a zero-length job started): see the module docstring
        ids = self.w.id
        if self.replay == "prefix":
            j = ordered[pos[k]]
            raise ScheduleInvalid(f"{self.dispatch.upper()}: job {ids[j]} starts at {t} before job {ids[ordered[k]]}, "
                                  "which is ahead of it in the queue")
        if self.replay == "easy":
            self.check_easy(t, ordered, k, [ordered[p] for p in pos[k:]], running)
        elif self.replay == "conservative":
            self.check_conservative(t, ordered, pos, running)
        elif self.replay != "any":  # a rule's own check, "module:function" in its registry row
            registry.resolve(self.replay)(self, t, ordered, k, pos, starters, running)

    def check_easy(self, t, ordered, k, backfilled, running) -> None:
        """The head's reservation (earliest start by the estimated ends of the jobs running
        before the backfill) leaves the head enough processors with the backfilled jobs added."""
        w = self.w
        head = ordered[k]
        backfilled = np.asarray(backfilled, dtype=np.int64)
        reservation, free = easy_check(running,
                                       np.asarray(ordered[:k], dtype=np.int64), head, backfilled,
                                       self.start, self.est, self.procs, self.m, t)
        if free < w.procs[head]:
            ids = w.id
            raise ScheduleInvalid(
                f"EASY: backfilling job(s) {[int(ids[j]) for j in backfilled]} at {t} delays the reservation "
                f"of head job {ids[head]} at {reservation}: only {free} of its {w.procs[head]} "
                "processors are free then")

    def check_conservative(self, t, ordered, pos, running) -> None:
        """Walking the queue in order, each job is reserved at its earliest start given the
        earlier reservations; a job starting at t must have t as that earliest start."""
        walk = np.asarray(ordered[: pos[-1] + 1], dtype=np.int64)  # jobs behind the last starter: moot
        starts_now = np.zeros(walk.size, dtype=np.bool_)
        starts_now[pos] = True
        i, s = conservative_check(running, walk, starts_now,
                                  self.start, self.est, self.procs, self.m, float(t))
        if i >= 0:
            raise ScheduleInvalid(
                f"conservative: job {self.w.id[walk[i]]} starts at {t} but its earliest start that delays no "
                f"earlier reservation is {s}")


# ------------------------------------------------------------------------------ nodes and resources
#: the resources a node holds, by :class:`~schedlab.sim.model.Node` field, with the words of the messages
_NODE_RESOURCES = (("cpus", "CPUs", ""), ("mem", "memory", " MB"), ("gpus", "GPUs", ""))


def validate_node_allocation(machine, alloc, start, finish, *, workload=None, partitions=None, exclusive=None) -> None:
    """Raise :class:`ScheduleInvalid` (one line naming job, node, resource and instant) unless the node
    allocation ``alloc`` (:class:`~schedlab.sim.model.NodeAllocation`) of jobs running from ``start``
    to ``finish`` (per job index) fits ``machine`` (:class:`~schedlab.sim.model.NodeMachine`):

    1. every row names a job of ``start`` and a node of the machine, with at least 1 CPU there and
       no negative memory or GPUs (Slurm gives a job at least one CPU on each of its nodes);
    2. at no instant does any node hold more CPUs, memory or GPUs than it has: a job holds its
       amounts from its start to its finish, releases come before starts at the same instant, and a
       zero-length job needs its amounts free at its start (as the CPU rule 4 above);
    3. with ``workload`` (its :attr:`~schedlab.workload.model.Workload.resources`, if any): every job
       of positive width has rows, and its CPUs over its nodes are its width (``procs``), its memory
       at least its requested memory and its GPUs at least its requested GPUs (where the trace says);
       a job marked exclusive shares none of its nodes with another job while it runs;
    4. with ``partitions`` (a partition name per job, '' for any): every node of a job is in its partition;
    5. with ``exclusive`` (a flag per job, e.g. a Slurm run's jobs of an OverSubscribe=EXCLUSIVE
       partition): those jobs too share none of their nodes while they run.

    Independent of any engine; the CPU validator :func:`validate_schedule` is unchanged by it.
    """
    nodes = machine.nodes
    start = np.asarray(start, dtype=np.float64)
    finish = np.asarray(finish, dtype=np.float64)
    job, node = np.asarray(alloc.job, np.int64), np.asarray(alloc.node, np.int64)
    amounts = {"cpus": np.asarray(alloc.cpus, np.float64), "mem": np.asarray(alloc.mem, np.float64),
               "gpus": np.asarray(alloc.gpus, np.float64)}
    ids = workload.id if workload is not None else np.arange(start.shape[0])
    bad = np.flatnonzero((job < 0) | (job >= start.shape[0]))
    if bad.size:
        raise ScheduleInvalid(f"allocation row {bad[0]} names job index {job[bad[0]]}, not one of the {start.shape[0]} jobs")
    bad = np.flatnonzero((node < 0) | (node >= len(nodes)))
    if bad.size:
        raise ScheduleInvalid(f"job {ids[job[bad[0]]]} is allocated node index {node[bad[0]]}, not one of the machine's {len(nodes)}")
    for key, word, unit in _NODE_RESOURCES:
        low = 1 if key == "cpus" else 0
        bad = np.flatnonzero(amounts[key] < low)
        if bad.size:
            k = bad[0]
            raise ScheduleInvalid(f"job {ids[job[k]]} gets {amounts[key][k]:g}{unit} {word} on node {nodes[node[k]].name} "
                                  f"(at least {low})")
    if partitions is not None:
        for k in range(job.shape[0]):
            part = partitions[job[k]]
            if part and part not in nodes[node[k]].partitions:
                raise ScheduleInvalid(f"job {ids[job[k]]} of partition {part} runs on node {nodes[node[k]].name}, which is "
                                      f"in {', '.join(nodes[node[k]].partitions) or 'no partition'}")
    if workload is not None:
        _check_job_totals(workload, job, node, amounts, nodes)
    _check_node_capacity(nodes, job, node, amounts, start, finish, ids)
    excl = np.zeros(start.shape[0], dtype=bool)
    if workload is not None and workload.resources is not None:
        excl |= workload.resources.exclusive == 1
    if exclusive is not None:
        excl |= np.asarray(exclusive, dtype=bool)
    if excl.any():
        _check_exclusive(excl, ids, job, node, start, finish, nodes)


def _check_job_totals(w, job, node, amounts, nodes) -> None:
    """Rule 3 of :func:`validate_node_allocation`: a job's amounts over its nodes against its width and request."""
    n = len(w)
    cpus = np.bincount(job, weights=amounts["cpus"], minlength=n)
    bad = np.flatnonzero((w.procs > 0) & (cpus != w.procs))
    if bad.size:
        j = bad[0]
        raise ScheduleInvalid(f"job {w.id[j]} gets {cpus[j]:g} CPUs on its nodes, not its {w.procs[j]} processors")
    res = w.resources
    if res is None:
        return
    for key, request, word, unit in (("mem", res.req_mem, "memory", " MB"), ("gpus", res.req_gpus, "GPUs", "")):
        if not any(getattr(v, "mem" if key == "mem" else "gpus") > 0 for v in nodes):
            continue  # a machine without that resource (CR_CPU; no Gres=gpu) cannot hold a request for it
        got = np.bincount(job, weights=amounts[key], minlength=n)
        bad = np.flatnonzero((request > 0) & (got < request))
        if bad.size:
            j = bad[0]
            raise ScheduleInvalid(f"job {w.id[j]} gets {got[j]:g}{unit} {word} on its nodes, less than the {request[j]:g}{unit} "
                                  "it requested")


def _check_node_capacity(nodes, job, node, amounts, start, finish, ids) -> None:
    """Rule 2: per node and resource, a sweep over the allocation rows' starts and finishes.

    A job holds its resources over [start, finish): at an instant, releases come before starts. A
    zero-length job needs its resources free beside the jobs that started before its instant and run
    past it, as :func:`_check_capacity` reads it for processors (the engines start it, end it, then
    start the next job at the same instant), so it never conflicts with a job starting then.
    """
    s, f = start[job], finish[job]
    positive = f > s
    pos = np.flatnonzero(positive)
    zero = np.flatnonzero(~positive)
    # one check per zero-length job and node (its rows there summed), at its instant
    _, first, of_pair = np.unique(np.stack([job[zero], node[zero]]), axis=1, return_index=True, return_inverse=True)
    check = zero[first]
    # events (node, time, kind): 0 release, 1 a zero-length job's check (after the releases, before the
    # starts: the running sum then holds the rows running across the instant), 2 start
    times = np.concatenate([f[pos], s[check], s[pos]])
    kind = np.concatenate([np.zeros(pos.size, np.int64), np.ones(check.size, np.int64), np.full(pos.size, 2, np.int64)])
    where = np.concatenate([node[pos], node[check], node[pos]])
    rows = np.concatenate([pos, check, pos])
    order = np.lexsort((kind, times, where))
    times, kind, where, rows = times[order], kind[order], where[order], rows[order]
    nothing = np.zeros(pos.size)
    for key, word, unit in _NODE_RESOURCES:
        cap = np.array([float(getattr(x, key)) for x in nodes])
        amount = amounts[key]
        own = np.bincount(of_pair.ravel(), weights=amount[zero], minlength=check.size)
        used = np.cumsum(np.concatenate([-amount[pos], np.zeros(check.size), amount[pos]])[order])
        total = used + np.concatenate([nothing, own, nothing])[order]  # each node's events sum to zero
        over = np.flatnonzero((kind > 0) & (total > cap[where] * (1 + 1e-12) + 1e-9))
        if over.size:
            at = over[times[over] == times[over].min()]  # the earliest instant a node is over; a start first
            k = at[np.argmax(kind[at] == 2)]
            raise ScheduleInvalid(f"job {ids[job[rows[k]]]} starts at {times[k]:g} on node {nodes[where[k]].name} with "
                                  f"{total[k]:g}{unit} of its {cap[where[k]]:g}{unit} {word} in use")


def _check_exclusive(excl, ids, job, node, start, finish, nodes) -> None:
    """Rules 3 and 5, exclusive jobs (``excl``): no other job on one of their nodes while they run (zero-length jobs at their start)."""
    for k in np.flatnonzero(excl[job]):
        j, x = job[k], node[k]
        same = np.flatnonzero((node == x) & (job != j))
        others = job[same]
        lo, hi = start[j], max(finish[j], start[j])
        clash = others[(start[others] < hi) & (np.maximum(finish[others], start[others]) > lo) |
                       ((start[others] == lo) & ((finish[others] == start[others]) | (finish[j] == start[j])))]
        if clash.size:
            o = clash[0]
            raise ScheduleInvalid(f"job {ids[o]} runs on node {nodes[x].name} at {max(start[o], lo):g} beside exclusive job {ids[j]}")
