"""The gate against EASY (issue 43, items 1, 2, 9): one verdict for every sign of the baseline, one rule for
an objective that cannot be judged, and the collateral (UTIL points, the worst user group's AWRT ratio)."""

from __future__ import annotations

import io
import json
import operator
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import one_line_error, run
from test_simulate_cli import write_swf  # the tiny SWF writer of these CLI tests
from schedlab.metrics import METRIC_NAMES, compute_metrics
from schedlab.optimize import versus_easy as V
from schedlab.sim import simulate
from schedlab.sim.model import Machine
from schedlab.sim.validate import validate_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace

# ---------------------------------------------------------------------------- the hand-made workload
#: 4 processors. Job 1 (user 1) takes 3 processors 0-100; job 2 (user 1) needs all 4 and waits for it,
#: 100-200; job 3 (user 2, 10 s on 1 processor) is submitted at 2. EASY backfills it at once (it ends at 12,
#: before job 2's reservation at 100): response 10. FCFS keeps it behind job 2: 200-210, response 208.
#: Shares of p*m: user 1 700/710 (group 1), user 2 10/710 = 1.4 % (group 3: 1 % <= s < 2 %).
#: UTIL = 710 / (4 * makespan): EASY 710/800 = 88.75 %, FCFS 710/840 = 84.52 % (-4.23 points);
#: AWRT3: EASY 10, FCFS 208 (x20.8); AWRT1 (jobs 1, 2): (300*100 + 400*199)/700 for both.
HAND = [(0, 100, 3, 100, 1), (1, 100, 4, 100, 1), (2, 10, 1, 10, 2)]
UTIL_EASY, UTIL_FCFS = 100 * 710 / 800, 100 * 710 / 840
AWRT1 = (300 * 100 + 400 * 199) / 700


@pytest.fixture
def hand(tmp_path):
    return write_swf(tmp_path / "hand.swf", HAND)


@pytest.fixture
def fcfs_file(tmp_path):
    path = tmp_path / "fcfs.json"
    path.write_text(Strategy("fcfs").to_json())
    return path


def test_the_hand_workload_schedules_as_worked_out(hand):
    w = load_trace(str(hand))
    for name, util, awrt3 in (("easy", UTIL_EASY, 10.0), ("fcfs", UTIL_FCFS, 208.0)):
        s = simulate(w, Machine(4), Strategy(name))
        validate_schedule(s)
        m = compute_metrics(s)
        assert m["UTIL"] == pytest.approx(util) and m["AWRT3"] == pytest.approx(awrt3), name
        assert m["AWRT1"] == pytest.approx(AWRT1) and m["AWRT2"] is None


# ---------------------------------------------------------------------------- items 1, 2: the verdict
def test_gain_is_relative_to_the_size_of_easy_with_the_sign_of_easy_minus_value():
    # issue 43 item 1: -UTIL, EASY's UTIL 67.65, the strategy's 58.30: 13.82 % WORSE, not better
    assert V.gain_pct(-67.65, -58.30) == pytest.approx(-100 * 9.35 / 67.65)
    assert V.worse_than(-67.65, -58.30, 5) and not V.worse_than(-58.30, -67.65, 5)
    assert V.gain_pct(200.0, 150.0) == pytest.approx(25.0) and V.gain_pct(-200.0, -250.0) == pytest.approx(25.0)
    # item 2: a zero baseline has no percentage; the sign of value - EASY decides
    assert V.gain_pct(0.0, 1.23) is None and V.objective_diff(0.0, 1.23) == pytest.approx(1.23)
    assert V.worse_than(0.0, 1e-9, 5) and not V.worse_than(0.0, 0.0, 0) and not V.worse_than(0.0, -3.0, 5)
    # the limit itself is not worse (exact arithmetic): 105 against 100 at 5 %
    assert not V.worse_than(100.0, 105.0, 5) and V.worse_than(100.0, 105.00001, 5)


NAMES = ("UTIL", "AWRT", "AWRT1", "AWWT")
_BIN = {"+": operator.add, "-": operator.sub, "/": operator.truediv}


def _leaf():
    metric = st.sampled_from(NAMES).map(lambda n: (n, lambda m, e, n=n: m[n]))
    easy = st.sampled_from(NAMES).map(lambda n: (f"EASY_{n}", lambda m, e, n=n: e[n]))
    const = st.integers(-20, 20).map(lambda c: (str(c), lambda m, e, c=c: float(c)))
    return st.one_of(metric, easy, const)


def _node(children):
    binary = st.tuples(st.sampled_from(sorted(_BIN)), children, children).map(
        lambda t: (f"({t[1][0]}) {t[0]} ({t[2][0]})", lambda m, e, t=t: _BIN[t[0]](t[1][1](m, e), t[2][1](m, e))))
    neg = children.map(lambda c: (f"-({c[0]})", lambda m, e, c=c: -c[1](m, e)))
    scaled = st.tuples(st.integers(-5, 5), children).map(
        lambda t: (f"{t[0]} * ({t[1][0]})", lambda m, e, t=t: t[0] * t[1][1](m, e)))
    return st.one_of(binary, neg, scaled)


#: objective expressions with an independent evaluator: sums, differences, negations, ratios, constants, EASY_ terms
EXPRESSIONS = st.recursive(_leaf(), _node, max_leaves=6)
_VALUE = st.integers(-400, 4000).map(lambda v: v / 4)


def _metrics(util, awrt, awrt1, awwt, groups):
    out = {name: None for name in METRIC_NAMES}
    out.update(UTIL=util, AWRT=awrt, AWRT1=awrt1, AWWT=awwt, jobs=3.0, procs=4.0)
    out.update({f"AWRT{i}": g for i, g in zip(range(2, 6), groups)})
    return out


METRICS = st.builds(_metrics, st.integers(0, 400).map(lambda v: v / 4), _VALUE, _VALUE, _VALUE,
                    st.lists(st.integers(1, 4000).map(float), min_size=4, max_size=4))


class _Metrics(dict):
    def to_dict(self):
        return dict(self)


def _expected(fn, mine, base, pct):
    """(undefined?, value, easy, worse?) by the expression's own evaluator and the issue's rule:
    worse = value - EASY > pct/100 |EASY| (any value above a zero baseline is worse)."""
    try:
        value, easy = fn(mine, base), fn(base, base)
    except ZeroDivisionError:
        return True, None, None, None
    return False, value, easy, Fraction(value) - Fraction(easy) > Fraction(pct) / 100 * abs(Fraction(easy))


def _check_row(row, value, easy, worse):
    assert row["objective"] == value and row["objective_easy" if "objective_easy" in row else "objective"] is not None
    assert row["worse_than_easy"] is worse, row
    gain = row["objective_improvement_pct"]
    if easy == 0:
        assert gain is None and row["objective_diff"] == value - easy
    else:  # sign of EASY - value, size relative to |EASY|
        assert gain == pytest.approx(100 * (easy - value) / abs(easy))
        assert (gain > 0) == (value < easy) and (gain < 0) == (value > easy)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)
@given(expr=EXPRESSIONS, mine=METRICS, base=METRICS, pct=st.sampled_from([0.0, 5.0, 12.5]))
@example(expr=("-UTIL", lambda m, e: -m["UTIL"]), mine=_metrics(58.30, 1, 1, 1, [1] * 4),
         base=_metrics(67.65, 1, 1, 1, [1] * 4), pct=5.0)  # item 1: negative baseline, worse
@example(expr=("(AWRT1) - (EASY_AWRT1)", lambda m, e: m["AWRT1"] - e["AWRT1"]), mine=_metrics(50, 1, 223, 1, [1] * 4),
         base=_metrics(50, 1, 100, 1, [1] * 4), pct=5.0)  # item 2: zero baseline, 123 % worse
@example(expr=("(AWRT1) / (0)", lambda m, e: m["AWRT1"] / 0), mine=_metrics(50, 1, 1, 1, [1] * 4),
         base=_metrics(50, 1, 1, 1, [1] * 4), pct=5.0)  # minor item: undefined on every schedule
def test_verdict_of_every_verb_follows_the_sign_and_size_of_value_minus_easy(
        expr, mine, base, pct, capsys, tmp_path, monkeypatch, hand, fcfs_file):
    """compare, evolve compare (its JSON and the gate's exit code), the optimizers' table and report
    (rows of compare_with_easy, as evolve greedy and rules make them) and evolve slurm's table, on
    metrics given by hand (the schedules are not the point): the verdict is value - EASY against |EASY|."""
    import schedlab.cli.compiling as compiling
    import schedlab.cli.simulate as cli_simulate
    from schedlab.report import run_report

    text, fn = expr
    undefined, value, easy, worse = _expected(fn, mine, base, pct)
    pick = lambda label: _Metrics(base if label == "easy" else mine)  # noqa: E731
    monkeypatch.setattr(compiling, "warm_simulation", lambda *a, **k: 0.0)
    monkeypatch.setattr(cli_simulate, "run_strategy", lambda w, m, s, **k: (s.label, 0.0))
    monkeypatch.setattr(cli_simulate, "compute_metrics", lambda schedule, bound=10.0: pick(schedule))
    import schedlab.metrics.resources as R

    monkeypatch.setattr(R, "resource_metrics", lambda schedule: {})  # the stand-in schedules carry no resources
    monkeypatch.setattr(V, "metrics_of", lambda w, m, s: pick(s.label))
    gate = ["--fail-worse-than", f"{pct:g}", "--threshold", f"{pct:g}", "--json"]

    code, out, err = run(capsys, "compare", hand, "--policies", "fcfs", "--objective", text, *gate)
    if undefined:  # one rule: refused with one line, nothing printed that reads as a pass
        one_line_error(code, err, "divides by zero")
        assert out == ""
        one_line_error(*run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", text, *gate)[::2], "divides by zero")
        return
    row = json.loads(out)["rows"][0]
    _check_row(row, value, easy, worse)
    assert row["vs_easy_pct"] == row["objective_improvement_pct"]
    assert code == (1 if worse else 0), err

    code, out, err = run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", text, *gate)
    doc = json.loads(out)
    _check_row(doc["rows"][0], value, easy, worse)
    assert doc["rows"][0]["objective_easy"] == easy and doc["worse_than_easy"] == (["hand"] if worse else [])
    assert code == (1 if worse else 0), err

    # the optimizers' terminal table and report.html (evolve greedy, rules iterative/evolve)
    w = load_trace(str(hand))
    rows = V.compare_with_easy(Strategy("fcfs"), [w], [Machine(4)], text, threshold=pct)
    from rich.console import Console

    from schedlab.cli.versus_easy import comparison_table

    console = Console(width=300, record=True, file=io.StringIO())
    console.print(comparison_table(rows, "t", threshold=pct))
    assert ("WORSE >" in console.export_text()) is worse
    monkeypatch.setattr(run_report, "convergence_figure", lambda *a, **k: None)
    monkeypatch.setattr(run_report, "awrt_groups_figure", lambda *a, **k: None)
    page = run_report.write_run_report(tmp_path, {"objective": text}, {}, rows, None).read_text()
    assert ("worse than EASY</b>" in page) is worse
    # evolve slurm's table: the gain's sign
    from schedlab.optimize.evolve_slurm import comparison_rows

    tuned = [dict(rows[0], set="train")]
    gains = [r["gain_vs_easy_pct"] for r in comparison_rows({"current": tuned, "tuned": tuned})]
    assert gains[-1] is None if easy == 0 else (gains[-1] > 0) == (value < easy)


# ---------------------------------------------------------------------------- items 1, 2 on a real schedule
def test_negative_objective_gates_a_worse_strategy(capsys, hand, fcfs_file):
    """-UTIL: FCFS's UTIL is 4.23 points below EASY's: 100 (-88.75 + 84.52) / 88.75 = -4.76 %, worse."""
    expected = 100 * (-UTIL_EASY + UTIL_FCFS) / UTIL_EASY
    code, out, err = run(capsys, "compare", hand, "--policies", "fcfs", "--objective", "-UTIL", "--fail-worse-than", "4",
                         "--json")
    assert json.loads(out)["rows"][0]["vs_easy_pct"] == pytest.approx(expected) and code == 1, err
    assert "worse than EASY by more than 4 % on: fcfs" in err
    code, out, err = run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", "-UTIL", "--fail-worse-than", "4")
    assert code == 1 and "WORSE > 5 %" not in out and "-4.76" in out, out
    assert run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", "-UTIL", "--fail-worse-than", "5")[0] == 0


def test_zero_baseline_gates_by_the_sign_and_shows_the_difference(capsys, hand, fcfs_file):
    """AWRT3 - EASY_AWRT3: EASY's objective is 0, FCFS's 208 - 10 = 198: worse, whatever the percentage."""
    args = ("--objective", "AWRT3 - EASY_AWRT3", "--fail-worse-than", "50")
    code, out, err = run(capsys, "compare", hand, "--policies", "fcfs,easy", *args, "--json")
    rows = {r["strategy"]: r for r in json.loads(out)["rows"]}
    assert code == 1 and rows["fcfs"]["worse_than_easy"] and rows["fcfs"]["vs_easy_diff"] == pytest.approx(198.0), err
    assert not rows["easy"]["worse_than_easy"] and rows["easy"]["vs_easy_diff"] == 0.0
    code, out, err = run(capsys, "evolve", "compare", fcfs_file, hand, *args)
    assert code == 1 and "worse +198.00" in out and "WORSE > 5 %" in out, out


def test_an_objective_undefined_on_every_schedule_is_one_line_in_every_verb(capsys, hand, fcfs_file, tmp_path):
    for argv in (("simulate", hand), ("compare", hand), ("evolve", "compare", fcfs_file, hand),
                 ("evolve", "greedy", hand, "--generations", "1", "--out", tmp_path / "run"),
                 ("rules", "iterative", hand, "--out", tmp_path / "rules")):
        code, out, err = run(capsys, *argv, "--objective", "AWRT1 / (2 - 2)")
        one_line_error(code, err, "divides by zero", "(2 - 2)")
        assert out == ""
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------------------- item 9: the collateral
def test_collateral_is_shown_marked_and_gated(capsys, hand, fcfs_file):
    """FCFS equals EASY on AWRT1 (the objective: 'ok') but loses 4.23 UTIL points and serves group 3
    20.8 times slower: marked by default; --max-util-drop / --max-group-ratio fail the gate below it."""
    code, out, err = run(capsys, "compare", hand, "--policies", "fcfs,conservative", "--objective", "AWRT1", "--json")
    doc = json.loads(out)
    rows = {r["strategy"]: r for r in doc["rows"]}
    assert code == 0 and not rows["fcfs"]["worse_than_easy"], err
    assert rows["fcfs"]["UTIL_diff_points"] == pytest.approx(UTIL_FCFS - UTIL_EASY)
    assert rows["fcfs"]["worst_group"] == "AWRT3" and rows["fcfs"]["worst_group_awrt_ratio"] == pytest.approx(20.8)
    assert len(doc["collateral"]["fcfs"]) == 2 and "conservative" not in doc["collateral"]  # same schedule as EASY
    assert rows["conservative"]["worst_group_awrt_ratio"] == 1.0 and rows["conservative"]["collateral"] == []
    code, out, _ = run(capsys, "compare", hand, "--policies", "fcfs,conservative", "--objective", "AWRT1")
    assert "fcfs*" in out and "conservative*" not in out and "-4.23" in out and "20.80" in out
    # the caption wraps at the terminal's width (80 columns without one): read it as words
    assert "* = collateral beyond the marks: fcfs: UTIL -4.23 points (drop > 1), AWRT3 x20.80 EASY's (> 2)" in " ".join(out.split())
    for guard, limit, fails in (("--max-util-drop", "4", True), ("--max-util-drop", "5", False),
                                ("--max-group-ratio", "20", True), ("--max-group-ratio", "21", False)):
        for verb in (("compare", hand, "--policies", "fcfs,conservative"), ("evolve", "compare", fcfs_file, hand)):
            code, out, err = run(capsys, *verb, "--objective", "AWRT1", guard, limit)
            assert code == (1 if fails else 0), (verb, guard, limit, err)
            assert ("beyond the collateral guards" in err) is fails
    code, out, _ = run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", "AWRT1", "--json")
    row = json.loads(out)["rows"][0]
    assert row["collateral"] == ["UTIL -4.23 points (drop > 1)", "AWRT3 x20.80 EASY's (> 2)"]
    code, out, _ = run(capsys, "evolve", "compare", fcfs_file, hand, "--objective", "AWRT1")
    assert out.count("COLLATERAL") == 2 and "AWRT3 x20.80" in out and "-4.23" in out  # (the verdict column wraps)
    assert all(line.rstrip()[-1:] in "┓┃┩│┘" for line in out.splitlines()[1:] if line.strip())  # not cropped
    one_line_error(*run(capsys, "compare", hand, "--max-group-ratio", "0.5")[::2], "--max-group-ratio")


def test_collateral_in_the_optimizers_report(tmp_path, hand, monkeypatch):
    from schedlab.report import run_report

    w = load_trace(str(hand))
    rows = [dict(r, set="train") for r in V.compare_with_easy(Strategy("fcfs"), [w], [Machine(4)], "AWRT1")]
    monkeypatch.setattr(run_report, "convergence_figure", lambda *a, **k: None)
    monkeypatch.setattr(run_report, "awrt_groups_figure", lambda *a, **k: None)
    page = run_report.write_run_report(tmp_path, {"objective": "AWRT1"}, {}, rows, None).read_text()
    assert "COLLATERAL UTIL -4.23 points" in page and "AWRT3 x20.80" in page and "-4.23" in page
    same = [dict(r, set="train") for r in V.compare_with_easy(Strategy("conservative"), [w], [Machine(4)], "AWRT1")]
    page = run_report.write_run_report(tmp_path, {"objective": "AWRT1"}, {}, same, None).read_text()
    assert "COLLATERAL" not in page and "AWRT1 x1.00" in page


def test_evolve_greedy_trains_under_the_util_guard(tmp_path, capsys, hand):
    """--util-guard: the run trains on the guarded objective (as rules --util-guard) and reports the plain one."""
    out = tmp_path / "run"
    code, _, err = run(capsys, "evolve", "greedy", hand, "--objective", "AWRT1", "--generations", "1", "--mu", "2",
                       "--lambda", "2", "--util-guard", "0.5", "--out", out)
    assert code == 0, err
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["objective"] == "AWRT1" and cfg["util_guard"] == 0.5
    assert cfg["training_objective"] == "(AWRT1) * (1 + max(0, EASY_UTIL - UTIL - 0.5))"
    comparison = json.loads((out / "comparison.json").read_text())
    assert comparison[0]["objective_easy"] == pytest.approx(AWRT1)  # the plain objective, not the guarded one
    one_line_error(*run(capsys, "evolve", "greedy", hand, "--util-guard", "-1", "--out", tmp_path / "x")[::2],
                   "--util-guard")
