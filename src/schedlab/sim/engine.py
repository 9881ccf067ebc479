"""The event-driven simulation engine: ``simulate(workload, machine, strategy) -> Schedule``.

Semantics (genetic-fuzzy-rule-based-scheduling Section 2.1, greedy-es-sorting-criteria II-A):
rigid jobs on m identical processors; job j needs m_j processors for p_j = min(runtime,
estimate) seconds when jobs are killed at their estimate (``kill=True``), else runtime. The
scheduler sees only the estimate. At one timestamp all finishes are processed, then all
arrivals, then ONE scheduling pass (:func:`schedlab.sim.dispatch.schedule_pass`). A job of
processing time 0 holds its processors during the pass that starts it; its finish is an event at
the same timestamp, so another pass follows at that time (the scheduler only learns at the
finish that the job took no time).

Design for what comes next:

- the dispatch rule and queue order are per-pass *codes* (``schedule_pass(J, S, G, dispatch,
  order, now)``), so a fuzzy rule base can pick one of its 13 strategies at every event;
- all per-machine state lives in one ``Site`` bundle (:mod:`schedlab.sim.state`), so a grid
  loop keeps one per site over shared ``Jobs`` and reuses ``release_finished``/``enqueue``/
  ``schedule_pass`` unchanged.
"""

from __future__ import annotations

import numpy as np

from ..errors import StrategyError, WorkloadError
from ..strategy import registry
from ..strategy.model import Greedy, Strategy
from ..workload.model import Workload
from .loop import site_loop
from .model import Machine, Schedule
from .state import (
    DISPATCH_CODES, FINISH, O_GREEDY, ORDER_CODES, RULE_INPUTS, START, UERR, UJOB, UAT, UVAL, UserPolicy, greedy_params, make_jobs,
    new_site,
)


def check_workload(workload: Workload, machine: Machine) -> None:
    """Raise a one-line :class:`WorkloadError` for a workload the engine cannot simulate."""
    name = workload.name or "workload"
    cols = {"submit": workload.submit, "runtime": workload.runtime, "estimate": workload.estimate}
    for col, values in cols.items():
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise WorkloadError(f"{name}: job {workload.id[bad[0]]} has no valid {col} ({values[bad[0]]})")
    checks = (
        (workload.procs <= 0, lambda k: f"needs {workload.procs[k]} processors (must be positive)"),
        (workload.procs > machine.procs,
         lambda k: f"needs {workload.procs[k]} processors but the machine has {machine.procs}"),
        (workload.runtime < 0, lambda k: f"has negative runtime {workload.runtime[k]}"),
        (workload.estimate <= 0,
         lambda k: f"has no positive runtime estimate ({workload.estimate[k]}); clean the workload first"),
    )
    for mask, message in checks:
        bad = np.flatnonzero(mask)
        if bad.size:
            more = f" (and {bad.size - 1} more jobs)" if bad.size > 1 else ""
            raise WorkloadError(f"{name}: job {workload.id[bad[0]]} {message(bad[0])}{more}")


def _segments(workload: Workload, order: Greedy, t0: float, t1: float):
    """Time-of-week segments for a greedy order with one criterion per class, else None."""
    if len(set(order.per_class())) == 1:
        return None, None
    from .. import workload as wl

    return wl.time_of_week_segments(workload, t0, t1)


def prepare(workload: Workload, machine: Machine, strategy: Strategy, *, kill: bool = True, ranks=False):
    """The engine bundles for a run: (J, S, G, dispatch code, order code, perm).

    Jobs in submit order (``perm`` maps them back to the trace); the queue starts sorted by the
    strategy's static order (submit for greedy); ``G`` holds the greedy order's parameters and
    time-of-week segments (None for a static order: the engine is then compiled without
    the greedy kernels). A loop that switches rule or order from pass to pass (a rule base)
    starts from these and passes other codes to ``schedule_pass``; if one of them may be the
    greedy order, it prepares with a greedy strategy so that ``G`` is not None; ``ranks`` (for
    loops that switch orders on long queues) as in :func:`~schedlab.sim.state.make_jobs`.
    """
    n = len(workload)
    perm = np.argsort(workload.submit, kind="stable")
    submit = workload.submit[perm]
    est = workload.estimate[perm]
    runtime = workload.runtime[perm]
    proc = np.minimum(runtime, est) if kill else runtime
    J = make_jobs(submit, est, proc, workload.procs[perm], workload.group[perm], ranks=ranks)
    dispatch = DISPATCH_CODES.get(strategy.dispatch)
    if dispatch is None:  # a user rule (schedlab.strategy.register_rule): its code after the built-in ones
        dispatch = registry.rule_code(strategy.dispatch)
    if isinstance(strategy.order, Greedy):
        order = O_GREEDY
        horizon = float(submit[-1] + np.sum(proc)) + 1.0 if n else 1.0
        seg_t, seg_c = _segments(workload, strategy.order, float(submit[0]) if n else 0.0, horizon)
        G = greedy_params(strategy.order, seg_t, seg_c)
    else:
        order = ORDER_CODES.get(strategy.order)
        if order is None:  # a user order (schedlab.strategy.register_order): its code after greedy
            order = registry.order_code(strategy.order)
        G = None  # no greedy kernels compiled for a static order (:func:`schedlab.sim.dispatch.schedule_pass`)
    G = user_policy(strategy, G)
    S = new_site(n, machine.procs, kill, order)
    return J, S, G, dispatch, order, perm


def user_policy(strategy: Strategy, G):
    """``G`` of a run (None or the greedy parameters), as a :class:`~.state.UserPolicy` when the
    strategy's rule or order is a user's compiled one (:mod:`.user`); else ``G`` unchanged."""
    rule = registry.rule(strategy.dispatch)
    row = None if isinstance(strategy.order, Greedy) else registry.order(strategy.order)
    dynamic = row is not None and row.dynamic is not None
    if rule.compiled is None and not dynamic:
        return G
    if G is None:
        G = greedy_params(Greedy())  # never read: the order is not greedy
    key, no_rule = _placeholders()
    return UserPolicy(G.p, G.seg_t, G.seg_c, row.compiled if dynamic else key,
                      rule.compiled if rule.compiled is not None else no_rule,
                      registry.order_code(strategy.order) if dynamic else -1,
                      sum({RULE_INPUTS[t] for t in rule.takes if t in RULE_INPUTS}))


_PLACEHOLDERS: list = []


def _placeholders():
    """A key and a rule of the declared signatures for the part a user policy leaves built in (never
    called: the codes select the built-in kernels), compiled once per process."""
    if not _PLACEHOLDERS:
        from ..strategy.user_code import KEY_FIELDS, RULE_FIELDS, compile_user

        def no_key():
            return 0.0

        def no_rule(start):
            pass

        _PLACEHOLDERS[:] = (compile_user(no_key, KEY_FIELDS, "float64", what="key", where=__name__),
                            compile_user(no_rule, RULE_FIELDS, "int64", what="rule", where=__name__))
    return tuple(_PLACEHOLDERS)


def user_failure(workload: Workload, strategy: Strategy, S, perm) -> None:
    """Raise the failure of a user's key or rule the run recorded (``ctr[UERR]``), or a job a user's
    rule never started, as one line naming the user's file (:mod:`.user`)."""
    code = int(S.ctr[UERR])
    if code == 0:
        rule = registry.rule(strategy.dispatch)
        never = np.flatnonzero(np.isnan(S.f[START])) if rule.source is not None else ()
        if len(never):
            k = perm[never[0]]
            raise StrategyError(f"{rule.source}: dispatch rule {rule.name!r} never started job {workload.id[k]} "
                                f"({workload.procs[k]} processors, submitted at {workload.submit[k]:g}) "
                                f"although the machine ran empty ({len(never)} jobs never started)")
        return
    k = perm[S.ctr[UJOB]]
    job, at, value = workload.id[k], float(S.x[UAT]), float(S.x[UVAL])
    if code == 1:
        row = registry.order(strategy.order)
        raise StrategyError(f"{row.source}: queue order {row.name!r}: key gives {value} for job {job} at time "
                            f"{at:g} (keys must be finite; a key that raises gives nan)")
    rule = registry.rule(strategy.dispatch)
    if code == 3:
        raise StrategyError(f"{rule.source}: dispatch rule {rule.name!r} raised an exception at time {at:g} "
                            f"({len(S.f[START]) - int(np.isnan(S.f[START]).sum())} jobs started by then; call the "
                            f"function in plain Python on the same arguments to see it)")
    raise StrategyError(f"{rule.source}: dispatch rule {rule.name!r} started job {job} ({workload.procs[k]} "
                        f"processors) at time {at:g} with only {value:g} free")


def simulate(workload: Workload, machine: Machine, strategy: Strategy, *, kill: bool = True) -> Schedule:
    """Simulate ``strategy`` on ``machine`` for ``workload``; the Schedule is in trace order.

    genetic-fuzzy-rule-based-scheduling Section 2.1 (dispatch rules), Section 4 (orders);
    greedy-es-sorting-criteria Section III-A (greedy criteria f1..f4 per time-of-week class).
    p_j = min(runtime, estimate) when ``kill`` (the default), else runtime.
    """
    if not isinstance(machine, Machine):
        machine = Machine(machine)
    if not isinstance(strategy, Strategy):
        raise TypeError(f"strategy must be a schedlab Strategy, got {type(strategy).__name__}")
    check_workload(workload, machine)
    n = len(workload)
    J, S, G, dispatch, order, perm = prepare(workload, machine, strategy, kill=kill)
    if n:
        site_loop(J, S, G, dispatch, order, np.zeros(n, dtype=np.int64), 0, np.inf, 0.0)
        if G is not None and isinstance(G, UserPolicy):
            user_failure(workload, strategy, S, perm)
    start = np.empty(n)
    finish = np.empty(n)
    start[perm] = S.f[START]
    finish[perm] = S.f[FINISH]
    return Schedule(workload, machine, strategy, start, finish, killed=bool(kill))
