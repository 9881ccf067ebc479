"""A researcher's own queue order from a file outside the package (issue 36 item 2): registered by
name from that file (``--plugin FILE``, ``schedlab.load_plugin``), simulated by the built-in
kernels, checked against a hand-worked case and the naive reference, and checked by the validator."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import schedlab
from conftest import one_line_error, run
from support.naive import NAIVE_ORDERS, naive_simulate, random_small_workload, small_workload as _workload
from schedlab.errors import StrategyError
from schedlab.sim import Machine, Schedule, ScheduleInvalid, simulate, validate_schedule
from schedlab.strategy import Strategy, registry

AREA = '''
from schedlab.strategy import register_order


@register_order("area", "smallest estimated area (processors x estimate) first")
def area(width, estimate, group, rank):
    return width * estimate
'''


@pytest.fixture(autouse=True)
def no_user_orders():
    """Every test starts and ends with the built-in orders only (registration is process-wide)."""
    saved = list(registry.USER_ORDERS)
    registry.USER_ORDERS.clear()
    yield
    registry.USER_ORDERS[:] = saved


@pytest.fixture
def area_file(tmp_path):
    path = tmp_path / "my_orders.py"
    path.write_text(AREA)
    return path


def test_the_api_runs_a_user_order_by_hand(area_file):
    """4 processors; job 0 (4 procs) runs 0-10; at 10 three jobs wait: 1 (2 x 10 = 20), 2 (1 x 30 = 30),
    3 (4 x 4 = 16). Smallest area first: 3 starts at 10 (ends 14), then 1 and 2 at 14; by submit
    order 1 and 2 start at 10 and 3 waits until 2 ends at 40."""
    assert schedlab.load_plugin(area_file) == ("area",)
    w = _workload([(0, 10, 10, 4), (1, 10, 10, 2), (2, 30, 30, 1), (3, 4, 4, 4)], 4)
    s = schedlab.simulate(w, Machine(4), Strategy("fcfs", "area"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 14, 14, 10])
    fifo = simulate(w, Machine(4), Strategy("fcfs"))
    np.testing.assert_array_equal(fifo.start, [0, 10, 10, 40])
    assert schedlab.simulate_any(w, Machine(4), Strategy("easy", "area")).start.tolist() == [0, 14, 14, 10]


def test_the_user_order_matches_the_naive_reference_on_random_workloads(area_file, monkeypatch):
    schedlab.load_plugin(area_file)
    monkeypatch.setitem(NAIVE_ORDERS, "area", lambda w, j: float(w.procs[j]) * float(w.estimate[j]))
    rng = np.random.default_rng(36)
    for case in range(30):
        w, m = random_small_workload(rng)
        for rule in registry.rule_names():
            st = Strategy(rule, "area")
            s = simulate(w, Machine(m), st)
            validate_schedule(s)
            np.testing.assert_array_equal(s.start, naive_simulate(w, m, st)[0], err_msg=f"case {case} {rule}")


def test_a_key_may_read_the_submit_times(tmp_path, monkeypatch):
    """A key with a ``submit`` parameter gets the submit times: latest submit first (LIFO) matches
    the naive reference; writing into its arguments changes nothing of the workload."""
    path = tmp_path / "lifo.py"
    path.write_text(textwrap.dedent('''
        from schedlab.strategy import register_order

        @register_order("lifo", "latest submit first")
        def lifo(width, estimate, group, rank, submit):
            width[:] = 0  # the engine's and the validator's columns are not the key's arguments
            return -submit
        '''))
    assert schedlab.load_plugin(path) == ("lifo",)
    monkeypatch.setitem(NAIVE_ORDERS, "lifo", lambda w, j: -float(w.submit[j]))
    w = _workload([(0, 10, 10, 4), (1, 10, 10, 2), (2, 30, 30, 1), (3, 4, 4, 4)], 4)
    s = simulate(w, Machine(4), Strategy("fcfs", "lifo"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 14, 14, 10])  # at 10 the queue is 3, 2, 1: 3 runs 10-14, then 2 and 1
    rng = np.random.default_rng(7)
    for case in range(15):
        w, m = random_small_workload(rng)
        procs = w.procs.copy()
        for rule in ("easy", "conservative"):
            st = Strategy(rule, "lifo")
            s = simulate(w, Machine(m), st)
            validate_schedule(s)
            np.testing.assert_array_equal(s.start, naive_simulate(w, m, st)[0], err_msg=f"case {case} {rule}")
        np.testing.assert_array_equal(w.procs, procs)


def test_the_validator_checks_the_user_order(area_file):
    """The submit-order schedule of the hand-worked case, labelled as the area order, is refused."""
    schedlab.load_plugin(area_file)
    w = _workload([(0, 10, 10, 4), (1, 10, 10, 2), (2, 30, 30, 1), (3, 4, 4, 4)], 4)
    fifo = simulate(w, Machine(4), Strategy("fcfs"))
    forged = Schedule(w, Machine(4), Strategy("fcfs", "area"), fifo.start, fifo.finish, killed=True)
    with pytest.raises(ScheduleInvalid):
        validate_schedule(forged)


def test_the_cli_runs_a_user_order(area_file, tmp_path, capsys):
    """``simulate --plugin FILE --order area`` gives the API's (validated) schedule; compare takes
    ``POLICY/area``; ``--policy help`` lists the order with its file."""
    from schedlab.workload import read_trace, write_swf
    from schedlab.workload.cut import cut_months

    trace = tmp_path / "kth-1month.swf"
    write_swf(cut_months(read_trace("KTH-SP2"), 1), trace)
    out_csv = tmp_path / "schedule.csv"
    code, out, err = run(capsys, "simulate", trace, "--plugin", area_file, "--order", "area", "--json",
                         "--schedule-out", out_csv)
    assert code == 0, err
    assert json.loads(out)["strategy"] == "easy/area"
    w = schedlab.load_trace(str(trace))
    s = schedlab.simulate(w, Machine(w.machine_procs), Strategy("easy", "area"))
    validate_schedule(s)
    starts = np.loadtxt(out_csv, delimiter=",", skiprows=1, usecols=2)
    np.testing.assert_array_equal(starts, s.start)
    assert not np.array_equal(s.start, simulate(w, Machine(w.machine_procs), Strategy("easy")).start)
    code, out, err = run(capsys, "compare", trace, "--plugin", area_file, "--policies", "easy,easy/area,fcfs/area")
    assert code == 0, err
    assert "easy/area" in out and "fcfs/area" in out
    code, out, err = run(capsys, "simulate", "--plugin", area_file, "--policy", "help")
    assert code == 0 and "area" in out and "smallest estimated area" in out and str(area_file) in out.replace("\n", "")


def test_an_unknown_order_names_the_plugin_orders_once_loaded(area_file):
    with pytest.raises(StrategyError, match="area") as none_yet:
        Strategy("easy", "area")
    assert "area" in str(none_yet.value).split("choose one of")[0]  # not listed before the plugin is loaded
    schedlab.load_plugin(area_file)
    with pytest.raises(StrategyError, match="choose one of submit, procs, estimate, group, area"):
        Strategy("easy", "areaa")


BAD = {
    "syntax": ("def area(:\n", ["syntax error"], ":1"),
    "raises": ("import math\nraise RuntimeError('no licence')\n", ["RuntimeError", "no licence"], ":2"),
    "shape": ("from schedlab.strategy import register_order\n"
              "register_order('wide', 'x', lambda width, estimate, group, rank: [width, estimate])\n",
              ["'wide'", "shape"], ""),
    "nan": ("from schedlab.strategy import register_order\n"
            "register_order('nan', 'x', lambda width, estimate, group, rank: estimate * float('nan'))\n",
            ["'nan'", "finite"], ""),
    "clash": ("from schedlab.strategy import register_order\n"
              "register_order('estimate', 'x', lambda width, estimate, group, rank: estimate)\n",
              ["'estimate'", "built-in"], ""),
    "alias": ("from schedlab.strategy import register_order\n"
              "register_order('sjf', 'x', lambda width, estimate, group, rank: estimate)\n", ["'sjf'", "built-in"], ""),
    "key fails": ("from schedlab.strategy import register_order\n\n\n"
                  "def k(width, estimate, group, rank):\n    return width / undefined_name\n\n\n"
                  "register_order('bad', 'x', k)\n", ["'bad'", "NameError", ":5"], ""),
    "nothing": ("x = 1\n", ["registers no queue order"], ""),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_plugin_is_one_line_naming_the_file(case, tmp_path, capsys, monkeypatch):
    text, words, line = BAD[case]
    path = tmp_path / "bad_plugin.py"
    path.write_text(text)
    with pytest.raises(StrategyError) as exc:
        schedlab.load_plugin(path)
    assert str(exc.value).startswith(f"{path}{line}"), str(exc.value)
    monkeypatch.chdir(tmp_path)  # a relative path is named as given, with its line
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--plugin", "bad_plugin.py", "--order", "area")
    one_line_error(code, err, f"error: bad_plugin.py{line}", *words)
    assert registry.USER_ORDERS == [] or case == "nothing"


def test_a_missing_plugin_file(tmp_path, capsys):
    code, out, err = run(capsys, "compare", "KTH-SP2", "--plugin", tmp_path / "nope.py")
    one_line_error(code, err, "nope.py", "no such plugin file")


def test_a_key_failing_on_the_real_jobs_is_one_line(tmp_path, capsys):
    """A key that passes the registration sample but gives NaN for some job of the trace."""
    path = tmp_path / "odd.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from schedlab.strategy import register_order

        @register_order("odd", "NaN for 1-processor jobs")
        def odd(width, estimate, group, rank):
            return np.where(width == 1, np.nan, estimate)
        '''))
    path.write_text(path.read_text().replace("width == 1", "width == 3"))
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--plugin", path, "--order", "odd")
    one_line_error(code, err, str(path), "'odd'", "nan", "finite")


@pytest.mark.parametrize("params", ["estimate, width, group, rank", "rank, group, width, estimate",
                                    "estimate", "submit, estimate", "width, estimate, group, rank"])
def test_a_static_key_gets_its_columns_by_name_in_any_order(params, tmp_path):
    """Issue 43 item 3: the columns reach a static key by parameter name, not by position. The
    hand-worked case of test_the_api_runs_a_user_order_by_hand, ordered by estimate: at 10 jobs 1
    (estimate 10, 2 procs), 2 (30, 1 proc) and 3 (4, 4 procs) wait; smallest estimate first starts 3
    at 10 (ends 14), then 1 and 2 at 14. Keyed by width instead (the old positional binding of
    ``(estimate, width, ...)``) 2 and 1 start at 10 and 3 waits until 40."""
    path = tmp_path / "sjf2.py"
    path.write_text(f"from schedlab.strategy import register_order\n\n\n"
                    f"@register_order('sjf2', 'smallest estimate first')\ndef sjf2({params}):\n    return estimate\n")
    assert schedlab.load_plugin(path) == ("sjf2",)
    w = _workload([(0, 10, 10, 4), (1, 10, 10, 2), (2, 30, 30, 1), (3, 4, 4, 4)], 4)
    for rule in ("fcfs", "easy"):
        s = simulate(w, Machine(4), Strategy(rule, "sjf2"))
        validate_schedule(s)
        np.testing.assert_array_equal(s.start, [0, 14, 14, 10], err_msg=rule)
    key = registry.order_keys(registry.order("sjf2"), np.array([1, 4]), np.array([7.0, 3.0]), np.array([2, 3]),
                              np.array([0, 1]), np.array([0.0, 5.0]))
    np.testing.assert_array_equal(key, [7.0, 3.0])


@pytest.mark.parametrize("params, bad", [("estimate, grp", "'grp'"), ("estimate, width=1", "'width'"),
                                         ("*columns", "'columns'")])
def test_a_static_key_with_an_unknown_parameter_is_one_line(params, bad, tmp_path, capsys):
    """A misspelled name (``grp``), a default or a variadic parameter is refused at registration, in
    one line naming the file, the order and the function, as a dynamic key's (README)."""
    path = tmp_path / "sjf2.py"
    path.write_text(f"from schedlab.strategy import register_order\n\n\n"
                    f"@register_order('sjf2', 'x')\ndef sjf2({params}):\n    return 0.0\n")
    with pytest.raises(StrategyError) as exc:
        schedlab.load_plugin(path)
    assert str(exc.value).startswith(f"{path}: queue order 'sjf2': sjf2: "), str(exc.value)
    assert bad in str(exc.value)
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--months", "1", "--plugin", path, "--order", "sjf2")
    one_line_error(code, err, str(path), "'sjf2'", bad)
    assert registry.USER_ORDERS == []
