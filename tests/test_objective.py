"""Objective expressions: parsed without eval, clear one-line errors, agree with direct arithmetic."""

from __future__ import annotations

import math
import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import ObjectiveError
from schedlab.metrics import DEFAULT_OBJECTIVE, METRIC_NAMES, Objective

VALUES = {name: float(i + 1) * 1.5 for i, name in enumerate(METRIC_NAMES)}


def test_default_objective_is_eq_8():
    obj = Objective(DEFAULT_OBJECTIVE)
    assert DEFAULT_OBJECTIVE == "10*AWRT1 + 4*AWRT2"
    assert obj.names == ("AWRT1", "AWRT2")
    assert obj({**VALUES, "AWRT1": 100.0, "AWRT2": 1000.0}) == 10 * 100 + 4 * 1000
    assert str(obj) == DEFAULT_OBJECTIVE and Objective() == obj


def test_precedence_unary_minus_and_parentheses():
    m = {**VALUES, "AWRT": 6.0, "UTIL": 2.0, "AWWT": 3.0}
    assert Objective("AWRT - UTIL * AWWT")(m) == 6 - 2 * 3
    assert Objective("(AWRT - UTIL) * AWWT")(m) == (6 - 2) * 3
    assert Objective("AWRT / UTIL / AWWT")(m) == 6 / 2 / 3  # left-associative
    assert Objective("-UTIL")(m) == -2.0
    assert Objective("--UTIL + +AWWT")(m) == 5.0
    assert Objective("1e3 * AWRT + .5")(m) == 6000.5
    assert Objective("AWRT + AWRT - AWRT").names == ("AWRT",)


@pytest.mark.parametrize(
    "expr, words",
    [
        ("AWRT6", ["unknown metric 'AWRT6'", "AWRT1", "mean_bounded_slowdown"]),
        ("awrt1", ["unknown metric 'awrt1'"]),
        ("10*AWRT1 +", ["at the end"]),
        ("10*AWRT1 +* 4", ["column 11"]),
        ("(AWRT1", ["never closed"]),
        ("AWRT ** 2", ["'**' not allowed"]),
        ("AWRT // 2", ["'//' not allowed"]),
        ("__import__('os').system('true')", ["function call not allowed"]),
        ("AWRT.real", ["attribute not allowed"]),
        ("AWRT if UTIL else 1", ["not allowed"]),
        ("'AWRT'", ["only numbers"]),
        ("True * AWRT", ["only numbers"]),
        ("AWRT < 3", ["comparison not allowed"]),
        ("", ["empty objective"]),
        ("AWRT\n+ 1", ["one line"]),
        ("[AWRT]", ["not allowed"]),
        # limits: max/min and EASY baselines
        ("abs(AWRT)", ["function call not allowed", "abs()", "max(...) and min(...)"]),
        ("max()", ["max() needs at least one argument"]),
        ("max(AWRT, key=UTIL)", ["no keyword arguments"]),
        ("max(*AWRT)", ["starred argument"]),
        ("max + AWRT", ["max is a function", "call it"]),
        ("EASY_AWRT6", ["unknown metric 'EASY_AWRT6'"]),
        ("EASY_", ["unknown metric 'EASY_'"]),
        ("max(AWRT, AWRT ** 2)", ["'**' not allowed"]),
        ("max(AWRT, 'x')", ["only numbers"]),
    ],
)
def test_bad_expressions_give_one_line_errors(expr, words):
    with pytest.raises(ObjectiveError) as info:
        Objective(expr)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_undefined_metric_is_named():
    obj = Objective("AWRT1 + AWRT3")
    with pytest.raises(ObjectiveError, match=r"uses AWRT3, .*user group 3 has no jobs"):
        obj({**VALUES, "AWRT3": None})
    with pytest.raises(ObjectiveError, match="divides by zero"):
        Objective("AWRT / (UTIL - UTIL)")(VALUES)
    with pytest.raises(ObjectiveError, match="not computed"):
        obj({"AWRT1": 1.0})


def test_never_evaluates_python(monkeypatch):
    import builtins

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec must not be used")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    assert Objective("2 * (AWRT + 1)")({**VALUES, "AWRT": 4.0}) == 10.0


# ------------------------------------------------------------ random expression trees
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}

leaves = st.one_of(
    st.sampled_from(METRIC_NAMES).map(lambda n: ("name", n)),
    st.integers(0, 1000).map(lambda v: ("num", v)),
    st.floats(0.001, 1000, allow_nan=False).map(lambda v: ("num", v)),
)
trees = st.recursive(
    leaves,
    lambda sub: st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(sorted(OPS)), sub, sub),
        st.tuples(st.just("neg"), sub),
    ),
    max_leaves=12,
)


def render(t) -> str:
    kind = t[0]
    if kind == "name":
        return t[1]
    if kind == "num":
        return repr(t[1])
    if kind == "neg":
        return f"-({render(t[1])})"
    return f"({render(t[2])} {t[1]} {render(t[3])})"


def direct(t, values):
    kind = t[0]
    if kind == "name":
        return values[t[1]]
    if kind == "num":
        return float(t[1])
    if kind == "neg":
        return -direct(t[1], values)
    left, right = direct(t[2], values), direct(t[3], values)
    if t[1] == "/" and right == 0:
        raise ZeroDivisionError
    return OPS[t[1]](left, right)


def names_in(t) -> bool:
    return t[0] == "name" or (t[0] == "neg" and names_in(t[1])) or (t[0] == "bin" and (names_in(t[2]) or names_in(t[3])))


def divides_by_a_constant_zero(t) -> bool:
    """Some division's divisor names no metric and is 0 (``jobs / 0``, ``x / (0 * 3)``), or a constant
    divides by zero: undefined on every schedule, so the text is refused when parsed."""
    if t[0] in ("name", "num"):
        return False
    if t[0] == "neg":
        return divides_by_a_constant_zero(t[1])
    if divides_by_a_constant_zero(t[2]) or divides_by_a_constant_zero(t[3]):
        return True
    return t[1] == "/" and not names_in(t[3]) and direct(t[3], {}) == 0


@given(trees, st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=len(METRIC_NAMES), max_size=len(METRIC_NAMES)))
def test_random_expressions_agree_with_direct_arithmetic(tree, numbers):
    values = dict(zip(METRIC_NAMES, numbers))
    text = render(tree)
    if divides_by_a_constant_zero(tree):
        with pytest.raises(ObjectiveError, match="divides by zero"):
            Objective(text)
        return
    obj = Objective(text)
    assert set(obj.names) == {n for n in METRIC_NAMES if n in text.replace("(", " ").replace(")", " ").split()}
    try:
        expected = direct(tree, values)
    except ZeroDivisionError:
        with pytest.raises(ObjectiveError, match="divides by zero"):
            obj(values)
        return
    got = obj(values)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected


# ------------------------------------------------------------ limits: max/min, EASY_* baselines
def test_max_min_and_easy_baseline_worked_by_hand():
    obj = Objective("10*AWRT1 + 4*AWRT2 + 100*max(0, AWRT5 - 2*EASY_AWRT5)")
    assert obj.names == ("AWRT1", "AWRT2", "AWRT5", "EASY_AWRT5") and obj.needs_easy
    mine = {**VALUES, "AWRT1": 1.0, "AWRT2": 2.0, "AWRT5": 50.0}
    # AWRT5 = 50 within twice EASY's 30: no penalty -> 10 + 8
    assert obj(mine, {**VALUES, "AWRT5": 30.0}) == 18.0
    # twice EASY's 20 is 40 < 50: penalty 100 * 10
    assert obj(mine, {**VALUES, "AWRT5": 20.0}) == 18.0 + 1000.0
    assert Objective("min(AWRT1, AWRT2, 0.5)")(mine) == 0.5
    assert Objective("max(AWRT1)")(mine) == 1.0
    assert not Objective("max(AWRT1, p95_wait) + max_wait").needs_easy


def test_per_group_bounded_slowdown_is_a_metric():
    assert {f"BSLD{i}" for i in range(1, 6)} <= set(METRIC_NAMES)
    assert Objective("BSLD1 + EASY_BSLD2").names == ("BSLD1", "EASY_BSLD2")


def test_easy_names_need_a_baseline_and_name_it():
    obj = Objective("AWRT1 - EASY_AWRT3")
    with pytest.raises(ObjectiveError, match="uses EASY_AWRT3, but no EASY baseline"):
        obj(VALUES)
    with pytest.raises(ObjectiveError, match=r"uses EASY_AWRT3, which is undefined for the EASY schedule \(user group 3"):
        obj(VALUES, {**VALUES, "AWRT3": None})
    assert Objective("max(AWRT, 1)").canonical() == Objective("max(AWRT,1.0)").canonical()


def test_bsld_per_group_by_hand():
    """Two jobs of group 1 and one of group 2 on 2 processors, all submitted at 0, bound 10 s:
    job 0 (group 1) runs [0, 100): bsld max(1, 100/100) = 1; job 1 (group 1) runs [100, 105):
    response 105 / max(5, 10) = 10.5; job 2 (group 2) waits until 105, runs 20 s:
    125 / 20 = 6.25. BSLD1 = (1 + 10.5) / 2 = 5.75, BSLD2 = 6.25, BSLD3 undefined."""
    import numpy as np

    from schedlab.metrics import compute_metrics
    from schedlab.sim import Machine, simulate
    from schedlab.sim.validate import validate_schedule
    from schedlab.strategy import Strategy
    from schedlab.workload.model import Workload

    w = Workload.from_columns({"submit": [0, 0, 0], "runtime": [100, 5, 20], "procs": [2, 2, 2],
                               "estimate": [100, 5, 20], "group": [1, 1, 2], "user": [1, 1, 2]}, machine_procs=2)
    s = simulate(w, Machine(2), Strategy("fcfs"))
    validate_schedule(s)
    assert np.array_equal(s.start, [0, 100, 105])
    got = compute_metrics(s)
    assert got["BSLD1"] == pytest.approx(5.75) and got["BSLD2"] == pytest.approx(6.25) and got["BSLD3"] is None
    assert got["max_wait"] == 105.0
