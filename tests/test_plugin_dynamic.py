"""A researcher's own dynamic queue order (a key over the job, its wait and the machine state,
recomputed at every pass) and own dispatch rule, from a file outside the package (issue 36 item
2): compiled with numba by us, run by the engine's pass, checked against hand-worked cases and
the naive reference, checked by the validator; bad ones are one-line errors naming the file."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

import schedlab
from support import naive
from conftest import one_line_error, run
from support.naive import naive_simulate, small_workload as _workload
from schedlab.errors import StrategyError
from schedlab.metrics import compute_metrics
from schedlab.sim import Machine, Schedule, ScheduleInvalid, simulate, validate_schedule
from schedlab.strategy import Criterion, Strategy, registry
from test_engine_vs_naive import workloads

#: the user's file outside the package (area, waitwidth, firstfit, shortfill), and one more order
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "my_policies.py"
MIXED = '''

@register_order("mixed", "smallest area while half the machine is free; else largest wait x width on a "
                         "queue of more than 3, else submit time (group tenths)", dynamic=True)
def mixed(width, estimate, group, submit, wait, now, free, queued, machine):
    if 2 * free >= machine:
        return width * estimate
    if queued > 3:
        return -wait * width
    return submit + group / 10
'''
PLUGIN = EXAMPLE.read_text() + MIXED


def _namespace(text):
    """The plugin's plain functions, run as ordinary Python (no registration): the references."""
    def keep(*args, **kwargs):  # the decorators, registering nothing
        return lambda fn: fn

    scope: dict = {"register_order": keep, "register_rule": keep}
    exec(text.replace("from schedlab.strategy import register_order, register_rule", ""), scope)
    return scope


PLAIN = _namespace(PLUGIN)


def _naive_key(fn):
    """tests/support/naive.py's dynamic key ``(w, j, t, free, queued, m)`` calling the plain function by name."""
    names = list(inspect.signature(fn).parameters)

    def key(w, j, t, free, queued, m):
        r = float(w.submit[j])
        fields = {"width": int(w.procs[j]), "estimate": float(w.estimate[j]), "group": int(w.group[j]),
                  "submit": r, "wait": t - r, "now": t, "free": free, "queued": queued, "machine": m}
        return fn(**{p: fields[p] for p in names})

    return key


def _naive_rule(fn, w):
    """tests/support/naive.py's rule ``(queue, running, t, m, free, width, est, start)`` calling the plain
    function on arrays built here from the reference's own state."""
    names = list(inspect.signature(fn).parameters)

    def rule(queue, running, t, m, free, width, est, start):
        ends = sorted((max(start[j] + est[j], t), width[j]) for j in running)
        fields = {"width": np.array([width[j] for j in queue], dtype=np.int64),
                  "estimate": np.array([est[j] for j in queue], dtype=float),
                  "wait": np.array([t - float(w.submit[j]) for j in queue]),
                  "group": np.array([int(w.group[j]) for j in queue], dtype=np.int64),
                  "now": t, "free": free, "machine": m,
                  "run_end": np.array([e for e, _ in ends], dtype=float),
                  "run_width": np.array([x for _, x in ends], dtype=np.int64),
                  "start": np.zeros(len(queue), dtype=np.int64)}
        fn(**{p: fields[p] for p in names})
        return [queue[i] for i in range(len(queue)) if fields["start"][i]]

    return rule


@pytest.fixture(scope="module")
def plugin_file(tmp_path_factory):
    """The plugin, loaded once for the module (compiling four functions); the registry, as before, after."""
    saved = list(registry.USER_ORDERS), list(registry.USER_RULES)
    path = tmp_path_factory.mktemp("plugin") / "my_policies.py"
    path.write_text(PLUGIN)
    assert schedlab.load_plugin(path) == ("area", "waitwidth", "mixed", "firstfit", "shortfill")
    for name in ("waitwidth", "mixed"):
        naive.NAIVE_DYNAMIC[name] = _naive_key(PLAIN[name])
    yield path
    registry.USER_ORDERS[:], registry.USER_RULES[:] = saved
    naive.NAIVE_DYNAMIC.clear()


def _hand(first_runtime):
    """2 processors: job 0 (2 procs) runs from 0 for ``first_runtime``; job A (1 proc, submit 1) and
    job B (2 procs, submit 5) wait, each 4 s long."""
    return _workload([(0, first_runtime, first_runtime, 2), (1, 4, 4, 1), (5, 4, 4, 2)], 2)


def test_a_dynamic_key_is_recomputed_at_every_pass_by_hand(plugin_file):
    """wait x width: A's key is -(t - 1), B's -2 (t - 5); A comes first before t = 9, B after.
    Job 0 ending at 8: A (-7) before B (-6): A starts at 8, B (2 procs) at 12 when A ends.
    Job 0 ending at 12: B (-14) before A (-11): B starts at 12, A at 16. No static key over the
    jobs' own fields orders A and B differently in the two cases (their fields are the same)."""
    for first, starts in ((8, [0, 8, 12]), (12, [0, 16, 12])):
        w = _hand(first)
        s = schedlab.simulate(w, Machine(2), Strategy("fcfs", "waitwidth"))
        validate_schedule(s)
        np.testing.assert_array_equal(s.start, starts, err_msg=f"job 0 runs {first} s")
        assert simulate(w, Machine(2), Strategy("fcfs")).start.tolist() == [0, first, first + 4]  # submit order: A first
    assert schedlab.simulate_any(_hand(12), Machine(2), Strategy("easy", "waitwidth")).start.tolist() == [0, 16, 12]


def test_a_user_rule_by_hand(plugin_file):
    """4 processors; job 0 (2 procs) runs 0-10; at 1 job 1 (4 procs, 5 s), job 2 (1 proc, 9 s) and
    job 3 (1 proc, 20 s) wait, 2 processors free. shortfill: the head (job 1) does not fit; job 2
    ends (1 + 9 = 10) by the first running end (10) and starts at 1; job 3 would end at 21: it
    waits. At 10 jobs 0 and 2 end: job 1 starts (10-15), then job 3 at 15. firstfit (start all
    that fit) starts jobs 2 and 3 at 1, so the head finds 3 processors at 10 and starts at 21."""
    w = _workload([(0, 10, 10, 2), (1, 5, 5, 4), (1, 9, 9, 1), (1, 20, 20, 1)], 4)
    s = simulate(w, Machine(4), Strategy("shortfill"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 10, 1, 15])
    s = simulate(w, Machine(4), Strategy("firstfit"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 21, 1, 1])
    np.testing.assert_array_equal(s.start, simulate(w, Machine(4), Strategy("list")).start)


def test_a_rule_sees_overrun_jobs_end_now(tmp_path, monkeypatch):
    """Without killing, job 0 (1 of 2 processors, estimate 5) runs 0-10; job 1 (1 proc) arrives at
    6. A rule that starts only while the first estimated end is not in the past sees job 0's end as
    max(0 + 5, 6) = 6 (the contract of run_end): job 1 starts at 6 (reading 5, it would wait for 10)."""
    monkeypatch.setattr(registry, "USER_RULES", [])
    path = tmp_path / "patient.py"
    path.write_text("from schedlab.strategy import register_rule\n\n\n"
                    "@register_rule('patient', 'x')\ndef patient(width, free, now, run_end, start):\n"
                    "    if run_end.shape[0] == 0 or run_end[0] >= now:\n"
                    "        for i in range(width.shape[0]):\n"
                    "            if width[i] <= free:\n                start[i] = 1\n                free -= width[i]\n")
    schedlab.load_plugin(path)
    w = _workload([(0, 10, 5, 1), (6, 1, 1, 1)], 2)
    s = simulate(w, Machine(2), Strategy("patient"), kill=False)
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 6])


RULES_ORDERS = [("fcfs", "waitwidth"), ("easy", "mixed"), ("conservative", "mixed"), ("list", "mixed"),
                ("firstfit", "waitwidth"), ("shortfill", "mixed"), ("shortfill", "submit"), ("shortfill", "estimate")]


@settings(max_examples=examples(25))
@given(case=workloads(), kill=st.booleans())
def test_dynamic_orders_and_rules_match_the_naive_reference(plugin_file, case, kill):
    w, m = case
    rules = {name: _naive_rule(PLAIN[name], w) for name in ("firstfit", "shortfill")}
    saved = dict(naive.NAIVE_RULES)
    naive.NAIVE_RULES.update(rules)
    try:
        for rule, order in RULES_ORDERS:
            strategy = Strategy(rule, order)
            s = simulate(w, Machine(m), strategy, kill=kill)
            validate_schedule(s)
            np.testing.assert_array_equal(s.start, naive_simulate(w, m, strategy, kill=kill)[0],
                                          err_msg=f"{strategy.label} kill={kill}")
        greedy = Strategy.greedy(Criterion("f1", a=0.5, b=0.2), dispatch="shortfill")  # a user rule on the greedy order
        s = simulate(w, Machine(m), greedy, kill=kill)
        validate_schedule(s)
        np.testing.assert_array_equal(s.start, naive_simulate(w, m, greedy, kill=kill)[0], err_msg="shortfill/greedy")
    finally:
        naive.NAIVE_RULES.clear()
        naive.NAIVE_RULES.update(saved)


def test_the_validator_replays_the_dynamic_order(plugin_file):
    """The submit-order schedule of the second hand case, labelled as waitwidth, is refused (A
    starts at 12 ahead of B, which the key puts first then); the true one passes."""
    w = _hand(12)
    fifo = simulate(w, Machine(2), Strategy("fcfs"))
    forged = Schedule(w, Machine(2), Strategy("fcfs", "waitwidth"), fifo.start, fifo.finish, killed=True)
    with pytest.raises(ScheduleInvalid, match="FCFS"):
        validate_schedule(forged)
    validate_schedule(simulate(w, Machine(2), Strategy("fcfs", "waitwidth")))


@pytest.mark.slow  # four verbs on a month of KTH-SP2, the plugin's kernels compiled in this process
def test_the_cli_and_the_api_run_them(plugin_file, tmp_path, capsys):
    """simulate --plugin FILE --policy RULE --order KEY gives the API's validated schedule; compare
    takes RULE/KEY; evolve compare replays a strategy file naming them (and without --plugin it
    is one line); --policy help lists both; bound takes the option too."""
    from schedlab.workload import read_trace, write_swf
    from schedlab.workload.cut import cut_months

    trace = tmp_path / "kth-1month.swf"
    write_swf(cut_months(read_trace("KTH-SP2"), 1), trace)
    w = schedlab.load_trace(str(trace))
    machine = Machine(w.machine_procs)
    for policy, order in (("easy", "mixed"), ("shortfill", "waitwidth")):
        out_csv = tmp_path / f"{policy}-{order}.csv"
        code, out, err = run(capsys, "simulate", trace, "--plugin", plugin_file, "--policy", policy, "--order", order,
                             "--json", "--schedule-out", out_csv)
        assert code == 0, err
        assert json.loads(out)["strategy"] == f"{policy}/{order}"
        s = schedlab.simulate(w, machine, Strategy(policy, order))
        validate_schedule(s)
        np.testing.assert_array_equal(np.loadtxt(out_csv, delimiter=",", skiprows=1, usecols=2), s.start)
    assert not np.array_equal(s.start, simulate(w, machine, Strategy("easy")).start)
    code, out, err = run(capsys, "compare", trace, "--plugin", plugin_file, "--policies", "easy,easy/mixed,shortfill/waitwidth",
                         "--json")  # not the table: its cells are cut to the terminal's width
    assert code == 0, err
    rows = {r["strategy"]: r for r in json.loads(out)["rows"]}
    assert set(rows) == {"easy", "easy/mixed", "shortfill/waitwidth"}
    assert rows["shortfill/waitwidth"]["AWRT"] == pytest.approx(compute_metrics(s)["AWRT"], rel=1e-12)  # the API's schedule
    code, out, err = run(capsys, "simulate", "--plugin", plugin_file, "--policy", "help")
    assert code == 0
    for words in ("shortfill", "start the head while it fits", "waitwidth", "dynamic: largest wait"):
        assert words in out, words
    strategy_file = tmp_path / "mine.json"
    strategy_file.write_text(Strategy("shortfill", "mixed").to_json())
    code, out, err = run(capsys, "evolve", "compare", strategy_file, trace, "--plugin", plugin_file, "--json")
    assert code == 0, err
    assert json.loads(out)["strategy"] == "shortfill/mixed"
    code, out, err = run(capsys, "bound", "plot", "--plugin", plugin_file, "--with", "shortfill/mixed")
    one_line_error(code, err, "RUN folder")  # the option is taken; the command then wants its run folder


def test_a_strategy_file_naming_them_needs_the_plugin(plugin_file, tmp_path, capsys, monkeypatch):
    strategy_file = tmp_path / "mine.json"
    strategy_file.write_text(Strategy("shortfill", "mixed").to_json())
    monkeypatch.setattr(registry, "USER_RULES", [])
    monkeypatch.setattr(registry, "USER_ORDERS", [])
    code, out, err = run(capsys, "evolve", "compare", strategy_file, "KTH-SP2", "--months", "1")
    one_line_error(code, err, str(strategy_file), "shortfill")


BAD = {  # the plugin's text, the words of its one-line error, the line it names
    "key does not compile": ("from schedlab.strategy import register_order\n\n\n"
                             "@register_order('bad', 'x', dynamic=True)\ndef bad(width, wait):\n"
                             "    return 'wide' + width\n", ["'bad'", "does not compile", "wait: float64"], ":6"),
    "unknown parameter": ("from schedlab.strategy import register_order\n\n\n"
                          "@register_order('bad', 'x', dynamic=True)\ndef bad(wait, speed):\n    return wait\n",
                          ["'bad'", "unknown parameter 'speed'", "queued"], ""),
    "rule without start": ("from schedlab.strategy import register_rule\n\n\n"
                           "@register_rule('bad', 'x')\ndef bad(width, free):\n    return 0\n",
                           ["'bad'", "must take 'start'"], ""),
    "rule clashes": ("from schedlab.strategy import register_rule\n\n\n"
                     "@register_rule('greedy', 'x')\ndef bad(start):\n    pass\n", ["'greedy'", "built-in policy"], ""),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_dynamic_plugin_is_one_line_naming_the_file(case, tmp_path, capsys, monkeypatch):
    text, words, line = BAD[case]
    monkeypatch.setattr(registry, "USER_RULES", [])
    monkeypatch.setattr(registry, "USER_ORDERS", [])
    path = tmp_path / "bad_plugin.py"
    path.write_text(text)
    with pytest.raises(StrategyError) as exc:
        schedlab.load_plugin(path)
    assert str(exc.value).startswith(f"{path}{line}"), str(exc.value)
    assert "\n" not in str(exc.value)
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--plugin", path, "--policy", "bad")
    one_line_error(code, err, f"error: {path}{line}", *words)
    assert registry.USER_ORDERS == [] and registry.USER_RULES == []


FAILS = {  # a plugin whose key or rule fails at run time on _hand(8): its (rule, order) and error words
    "key gives nan": ("from schedlab.strategy import register_order\n\n\n"
                      "@register_order('ratio', 'x', dynamic=True)\ndef ratio(wait, free):\n    return wait / free\n",
                      ("fcfs", "ratio"), ["queue order 'ratio'", "key gives nan for job 2 at time 1", "finite"]),
    "key raises": ("from schedlab.strategy import register_order\n\n\n"
                   "@register_order('picky', 'x', dynamic=True)\ndef picky(width):\n"
                   "    if width > 1:\n        raise ValueError('too wide')\n    return 0.0\n",
                   ("easy", "picky"), ["queue order 'picky'", "key gives nan for job 1 at time 0", "raises"]),
    "rule starts a job that does not fit": (
        "from schedlab.strategy import register_rule\n\n\n"
        "@register_rule('everything', 'x')\ndef everything(start):\n    start[:] = 1\n",
        ("everything", "submit"), ["dispatch rule 'everything' started job 2 (1 processors) at time 1 with only 0 free"]),
    "rule never starts": ("from schedlab.strategy import register_rule\n\n\n"
                          "@register_rule('idle', 'x')\ndef idle(start):\n    pass\n",
                          ("idle", "submit"), ["dispatch rule 'idle' never started job 1", "3 jobs never started"]),
    "rule raises": ("from schedlab.strategy import register_rule\n\n\n"
                    "@register_rule('boom', 'x')\ndef boom(width, free, start):\n    if width.shape[0] > 1:\n"
                    "        raise ValueError('long queue')\n    if width[0] <= free:\n        start[0] = 1\n",
                    ("boom", "submit"), ["dispatch rule 'boom' raised an exception at time 5"]),
}


@pytest.mark.parametrize("case", sorted(FAILS))
def test_a_failing_key_or_rule_is_one_line_not_a_corrupt_schedule(case, tmp_path, monkeypatch):
    """_hand(8): job 1 (2 procs) starts at 0, job 2 (1 proc) arrives at 1 with 0 free, job 3 at 5."""
    text, (rule, order), words = FAILS[case]
    monkeypatch.setattr(registry, "USER_RULES", [])
    monkeypatch.setattr(registry, "USER_ORDERS", [])
    path = tmp_path / "failing.py"
    path.write_text(text)
    schedlab.load_plugin(path)
    with pytest.raises(StrategyError) as exc:
        simulate(_hand(8), Machine(2), Strategy(rule, order))
    message = str(exc.value)
    assert message.startswith(str(path)) and "\n" not in message, message
    for word in words:
        assert word in message, (word, message)
