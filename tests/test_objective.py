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


@given(trees, st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=len(METRIC_NAMES), max_size=len(METRIC_NAMES)))
def test_random_expressions_agree_with_direct_arithmetic(tree, numbers):
    values = dict(zip(METRIC_NAMES, numbers))
    text = render(tree)
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
