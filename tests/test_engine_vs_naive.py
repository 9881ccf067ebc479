"""The numba engine against the slow reference simulator (tests/support/naive.py): identical start times
for every dispatch rule x every queue order (4 static + greedy), killing on and off."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.naive import naive_simulate
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Criterion, Greedy, Strategy
from schedlab.workload import Workload

RULES = ("fcfs", "list", "easy", "conservative")
STATIC = ("submit", "procs", "estimate", "group")
# Fri 1996-06-28 17:58 US/Eastern: weekday 8-18 -> weekday 18-8 -> (next day) weekend within hours
FRIDAY_EVENING = 835999080


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 16))
    unit = draw(st.sampled_from([1.0, 60.0, 1800.0]))  # 1800 s: greedy crosses time-of-week classes
    ints = lambda lo, hi: st.lists(st.integers(lo, hi), min_size=n, max_size=n)  # noqa: E731
    submit = np.sort(np.array(draw(ints(0, 30)), dtype=float)) * unit  # ties are common
    runtime = np.array(draw(ints(0, 12)), dtype=float) * unit  # runtime 0 included
    estimate = np.array(draw(ints(1, 12)), dtype=float) * unit  # often below runtime
    procs = np.array(draw(ints(1, m)))
    group = np.array(draw(ints(0, 5)))
    if draw(st.booleans()):  # not in submit order in the trace
        perm = np.array(draw(st.permutations(range(n))))
        submit, runtime, estimate, procs, group = (a[perm] for a in (submit, runtime, estimate, procs, group))
    w = Workload.from_columns(
        {"submit": submit, "runtime": runtime, "estimate": estimate, "procs": procs, "group": group},
        machine_procs=m, unix_start=FRIDAY_EVENING, timezone="US/Eastern", name="random",
    )
    return w, m


unit_float = st.floats(0.0, 1.0, allow_nan=False)
five = st.lists(st.floats(0.0, 5.0, allow_nan=False), min_size=5, max_size=5)
criteria = st.builds(
    Criterion, kind=st.sampled_from(["f1", "f2", "f3", "f4"]), a=unit_float, b=unit_float,
    w=st.lists(unit_float, min_size=5, max_size=5), K=five,
)
orders = st.one_of(
    st.sampled_from(STATIC),
    st.builds(Greedy, st.lists(criteria, min_size=1, max_size=1).map(tuple)),
    st.builds(Greedy, st.lists(criteria, min_size=3, max_size=3).map(tuple)),
)


def _check(w, m, strategy, kill):
    schedule = simulate(w, Machine(m), strategy, kill=kill)
    validate_schedule(schedule)
    start, finish = naive_simulate(w, m, strategy, kill=kill)
    np.testing.assert_array_equal(schedule.start, start, err_msg=f"{strategy.label} kill={kill}")
    np.testing.assert_array_equal(schedule.finish, finish)


@pytest.mark.parametrize("rule", RULES)
@given(case=workloads(), order=orders, kill=st.booleans())
def test_engine_matches_naive(rule, case, order, kill):
    _check(*case, Strategy(rule, order), kill)


def test_every_rule_and_order_on_one_busy_workload():
    """A fixed seeded workload through all 4 x 5 x 2 combinations (a deterministic smoke of the matrix)."""
    rng = np.random.default_rng(7)
    n, m = 40, 12
    w = Workload.from_columns(
        {
            "submit": np.sort(rng.integers(0, 20, n)).astype(float) * 1800,
            "runtime": rng.integers(0, 10, n).astype(float) * 1800,
            "estimate": rng.integers(1, 10, n).astype(float) * 1800,
            "procs": rng.integers(1, m + 1, n),
            "group": rng.integers(0, 6, n),
        },
        unix_start=FRIDAY_EVENING, timezone="US/Eastern",
    )
    greedy3 = Greedy((Criterion("f1", a=0.5, b=0.2), Criterion("f2", a=0.1, K=(5, 0, 0, 0, 0)),
                      Criterion("f4", a=0.9, b=0.9, w=(1, 0.5, 0.5, 0.2, 0.1))))
    for rule in RULES:
        for order in (*STATIC, greedy3):
            for kill in (True, False):
                _check(w, m, Strategy(rule, order), kill)
