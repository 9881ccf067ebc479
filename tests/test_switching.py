"""Switching dispatch rule and queue order from pass to pass (what a rule-based scheduler does):
a compiled loop built from the engine's own operations only (``schedlab.sim.ops``) against the
switching naive reference (tests/support/naive.py, ``switch=``), on random small workloads: every rule,
static and greedy orders, killing on and off. The same loop checks the engine's start log (the
jobs each pass started, which the rule-based loop reads).

The loop counts a pass only when a job waits (``ops.waiting``: the queue without the started
jobs a greedy pass leaves in it); reading the raw queue length instead runs extra passes after a
greedy pass and shifts the switching sequence (the reference counts waiting jobs)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from support.naive import naive_simulate
from schedlab._config import njit
from schedlab.sim import Machine, validate_schedule
from schedlab.sim.dispatch import schedule_pass
from schedlab.sim.engine import check_workload, prepare
from schedlab.sim.model import Schedule
from schedlab.sim.ops import enqueue, next_finish, release_finished, waiting
from schedlab.sim.state import DISPATCH_CODES, FIN_N, FINISH, NLOG, O_GREEDY, ORDER_CODES, START, STARTLOG, SUBMIT
from schedlab.strategy import Greedy, Strategy
from schedlab.workload import Workload
from test_engine_vs_naive import STATIC, criteria, workloads

RULES = ("fcfs", "list", "easy", "conservative")


@njit
def switching_loop(J, S, G, rules, orders):
    """The single-site event loop with the k-th pass run by ``rules[k % len]``/``orders[k % len]``.

    Returns how many entries of the engine's start log (``S.i[STARTLOG, :S.ctr[NLOG]]`` after a
    pass) were wrong: a job listed twice, or listed without having started at that pass's time,
    plus every job that started without being listed (the rule-based loop reads its feature
    deltas from that log)."""
    submit = J.f[SUBMIT]
    n = submit.shape[0]
    logged = np.zeros(n, dtype=np.int64)
    bad = 0
    i = 0
    k = 0
    while i < n or S.ctr[FIN_N] > 0:
        now = np.inf
        if i < n:
            now = submit[i]
        t = next_finish(S)
        if t <= now:
            now = t
            release_finished(J, S, now)
        while i < n and submit[i] <= now:
            enqueue(J, S, i)
            i += 1
        if waiting(S) > 0:
            schedule_pass(J, S, G, rules[k % rules.shape[0]], orders[k % orders.shape[0]], now)
            for h in range(S.ctr[NLOG]):
                j = S.i[STARTLOG, h]
                if logged[j] != 0 or S.f[START, j] != now:
                    bad += 1
                logged[j] = 1
            k += 1
    for j in range(n):
        if logged[j] == 0:
            bad += 1
    return bad


def simulate_switching(w, m, strategies, kill):
    """(start, finish) in trace order; one greedy order at most (its parameters live in G)."""
    greedy = next((s for s in strategies if isinstance(s.order, Greedy)), strategies[0])
    J, S, G, _d, _o, perm = prepare(w, Machine(m), greedy, kill=kill)
    rules = np.array([DISPATCH_CODES[s.dispatch] for s in strategies], dtype=np.int64)
    orders = np.array([O_GREEDY if isinstance(s.order, Greedy) else ORDER_CODES[s.order] for s in strategies],
                      dtype=np.int64)
    bad_log = switching_loop(J, S, G, rules, orders)
    assert bad_log == 0, f"{bad_log} wrong start-log entries"
    start, finish = np.empty(len(w)), np.empty(len(w))
    start[perm], finish[perm] = S.f[START], S.f[FINISH]
    return start, finish


@st.composite
def switch_plans(draw):
    greedy = Greedy(tuple(draw(st.lists(criteria, min_size=1, max_size=3).filter(lambda c: len(c) != 2))))
    order = st.one_of(st.sampled_from(STATIC), st.just(greedy))
    plan = draw(st.lists(st.builds(Strategy, st.sampled_from(RULES), order), min_size=1, max_size=6))
    return plan


@settings(max_examples=examples(300))
@given(case=workloads(), plan=switch_plans(), kill=st.booleans())
def test_switching_rule_and_order_matches_switching_reference(case, plan, kill):
    w, m = case
    check_workload(w, Machine(m))
    start, finish = simulate_switching(w, m, plan, kill)
    # the shared validator: capacity, submit, exactly once, processing times (no single rule to replay)
    validate_schedule(Schedule(w, Machine(m), None, start, finish, killed=kill))
    ref_start, ref_finish = naive_simulate(w, m, plan[0], kill=kill, switch=plan)
    labels = [s.label for s in plan]
    np.testing.assert_array_equal(start, ref_start, err_msg=f"{labels} kill={kill}")
    np.testing.assert_array_equal(finish, ref_finish)


def test_switching_by_hand():
    """Hand-worked: m = 4; job A (w 4, runs [0, 10)), B (w 2, est 5, submit 1), C (w 1, est 20,
    submit 1), D (w 2, est 3, submit 2). Passes at t = 0 (A starts), 1, 2, 10 (A ends).

    Plan fcfs, fcfs, list/estimate, easy: pass 0 (t=0, FCFS) starts A; pass 1 (t=1, FCFS): B
    does not fit; pass 2 (t=2, list by estimate D, B, C): nothing fits; pass 3 (t=10, EASY by
    submit B, C, D), 4 free: B (2) and C (1) start, D (2) does not fit the 1 left and becomes the
    head; pass 4 (t=15, B ends, FCFS again) starts D. So A = 0, B = C = 10, D = 15."""
    w = Workload.from_columns({"submit": np.array([0.0, 1, 1, 2]), "runtime": np.array([10.0, 5, 20, 3]),
                               "estimate": np.array([10.0, 5, 20, 3]), "procs": np.array([4, 2, 1, 2])},
                              machine_procs=4)
    plan = [Strategy("fcfs"), Strategy("fcfs"), Strategy("list", "estimate"), Strategy("easy")]
    start, _ = simulate_switching(w, 4, plan, True)
    np.testing.assert_array_equal(start, [0, 10, 10, 15])
    np.testing.assert_array_equal(naive_simulate(w, 4, plan[0], switch=plan)[0], [0, 10, 10, 15])
