"""The offline bound: the compiled list scheduler against a plain-Python one, every front
schedule through the shared validator, the order operators, and a tiny resumable run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.cli.main import main
from schedlab.metrics import compute_metrics
from schedlab.optimize.bound import non_dominated, placement, zero_wait_floors
from schedlab.optimize.bound_problem import (OBJECTIVES, BoundConfig, BoundProblem, OrderMutation, evaluate_order, group_move,
                                             group_shift, insertion, mutate_k, order_crossover)
from schedlab.optimize.bound_head_start import group_first_blocks
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.sim.listsched import list_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace, write_swf
from schedlab.workload.model import Workload


def naive_list_schedule(order, submit, p, width, m):
    """Plain Python: each job in order at the earliest t >= submit (a submit or a finish of a placed
    job) where, at t and at every placed start inside [t, t + p), the busy processors plus its own fit."""
    p = [float(v) for v in p]
    placed = []  # (start, finish, width)
    start = [None] * len(order)

    def busy(x):
        return sum(w for s, f, w in placed if s <= x < f)

    for j in order:
        candidates = sorted({submit[j], *(f for _, f, _ in placed if f >= submit[j])})
        for t in candidates:
            checks = [t] + [s for s, _, _ in placed if t < s < t + p[j]]
            if all(busy(x) + width[j] <= m for x in checks):
                start[j] = t
                break
        # a zero-length job holds its processors for the instant of its start (the validator's rule)
        placed.append((start[j], start[j] + p[j] if p[j] > 0 else float(np.nextafter(start[j], np.inf)), width[j]))
    return start


def workload_of(jobs, m):
    submit, runtime, procs, group = zip(*jobs)
    return Workload.from_columns({"submit": list(submit), "runtime": list(runtime), "procs": list(procs),
                                  "estimate": list(runtime), "group": list(group), "user": list(group)},
                                 machine_procs=m)


@st.composite
def instances(draw):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 14))
    jobs = [(draw(st.integers(0, 30)), draw(st.integers(0, 20)), draw(st.integers(1, m)), draw(st.integers(1, 5)))
            for _ in range(n)]
    order = draw(st.permutations(list(range(n))))
    return jobs, m, order


@given(instances())
def test_compiled_decoder_equals_plain_python_list_scheduler(inst):
    jobs, m, order = inst
    w = workload_of(jobs, m)
    s = list_schedule(w, Machine(m), order)
    validate_schedule(s)
    want = naive_list_schedule(order, [j[0] for j in jobs], [j[1] for j in jobs], [j[2] for j in jobs], m)
    assert list(s.start) == want


def test_decoder_by_hand():
    """3 processors. Jobs (submit, p, procs): 0 (0, 10, 2), 1 (0, 5, 2), 2 (1, 3, 1), 3 (2, 4, 3).
    Order 3, 0, 1, 2: job 3 at 2 (the only one placed) -> [2, 6) on 3; job 0 needs 2 for 10 from 0:
    [0, 2) is free but [2, 6) is full -> at 6; job 1 (2 for 5): 0 clashes with job 3 at 2 ->
    6 clashes with job 0 (2 + 2 > 3) -> 16; job 2 (1 for 3) from 1: [1, 4) meets job 3 at 2 ->
    6: job 0 holds 2 of 3 -> [6, 9) fits."""
    w = workload_of([(0, 10, 2, 1), (0, 5, 2, 1), (1, 3, 1, 2), (2, 4, 3, 3)], 3)
    s = list_schedule(w, Machine(3), [3, 0, 1, 2])
    validate_schedule(s)
    assert list(s.start) == [6, 16, 6, 2]


def test_objectives_equal_compute_metrics_and_realised_orders_rebuild_easy():
    w = load_trace("KTH-SP2", months=1)
    m = Machine(w.machine_procs)
    problem = BoundProblem.of(w, m)
    easy = simulate(w, m, Strategy("easy"))
    order = np.lexsort((np.arange(len(w)), w.submit, easy.start))
    s = list_schedule(w, m, order)
    validate_schedule(s)
    got = dict(zip(OBJECTIVES, evaluate_order(problem, order)))
    want = compute_metrics(s)
    for k in OBJECTIVES:
        assert (-got[k] if k == "UTIL" else got[k]) == pytest.approx(want[k], rel=1e-12)
    # clairvoyant list scheduling of EASY's own order is never worse on AWRT than EASY itself here
    assert want["AWRT"] <= compute_metrics(easy)["AWRT"]


def test_order_operators_keep_permutations_by_hand():
    a, b = np.array([0, 1, 2, 3, 4, 5]), np.array([5, 4, 3, 2, 1, 0])
    assert list(order_crossover(a, b, 2, 4)) == [5, 4, 2, 3, 1, 0]
    assert list(insertion(a, 1, 4)) == [0, 2, 3, 4, 1, 5]
    group = np.array([1, 2, 1, 2, 1, 2])
    assert list(group_move(a, group, 1, 5, 2, True)) == [0, 1, 3, 2, 4, 5]
    assert list(group_move(a, group, 0, 6, 1, False)) == [1, 3, 5, 0, 2, 4]
    F = np.array([[1, 2], [2, 1], [2, 2], [1, 2], [0, 3]])
    assert list(non_dominated(F)) == [True, True, False, False, True]


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory) -> Path:
    """300 jobs of the real KTH-SP2 trace (first month), an SWF file."""
    w = load_trace("KTH-SP2", months=1)
    path = tmp_path_factory.mktemp("traces") / "kth300.swf"
    write_swf(w.take(np.arange(300)), path)
    return path


def test_tiny_bound_run_front_validates_resumes_and_plots(tmp_path, small_trace, capsys):
    from schedlab.optimize.bound import BoundConfig, bound

    out = tmp_path / "run"
    args = ["bound", str(small_trace), "--out", str(out), "--generations", "4", "--pop", "8", "--seed", "2", "--workers", "1"]
    assert main(args) == 0
    rows = list(csv.DictReader((out / "front.csv").open()))
    assert list(rows[0]) == list(OBJECTIVES) and rows
    hist = list(csv.DictReader((out / "history.csv").open()))
    assert [r["gen"] for r in hist] == ["1", "2", "3", "4"]
    hv = [float(r["hypervolume"]) for r in hist]
    assert all(b >= a for a, b in zip(hv, hv[1:])) and hv[0] > 0  # archive only grows in dominance
    assert (out / "hypervolume.png").read_bytes()[:4] == b"\x89PNG"

    # every front schedule (the archive keeps orders of small traces) passes the validator and
    # has the objectives front.csv prints; EASY's realised order was a seed
    import pickle

    state = pickle.loads((out / "checkpoint").read_bytes())
    archive = state["archive"]
    w = load_trace(str(small_trace))
    m = Machine(w.machine_procs)
    assert len(archive.F) == len(rows)
    for f, x in zip(archive.F, archive.X):
        s = list_schedule(w, m, x)
        validate_schedule(s)
        got = compute_metrics(s)
        assert got["UTIL"] == pytest.approx(-f[0], rel=1e-12) and got["AWRT1"] == pytest.approx(f[2], rel=1e-12)
    assert set(state["names"][:2]) == {"easy", "fcfs"}
    # no front point is dominated by EASY's own online schedule in all seven objectives... and
    # EASY's online schedule is never better than the whole front (the bound bounds it)
    easy = compute_metrics(simulate(w, m, Strategy("easy")))
    e = np.array([-easy["UTIL"], *(easy[k] for k in OBJECTIVES[1:])])
    assert np.any(np.all(archive.F <= e + 1e-9, axis=1))

    # resume: stop after generation 2, re-run -> the same front and history as uninterrupted
    cfg = BoundConfig(pop=8, generations=4, seed=2)

    def stop(row):
        if row["gen"] == 2:
            raise KeyboardInterrupt

    part = bound(str(small_trace), tmp_path / "resumed", cfg, workers=1, on_generation=stop)
    assert part.interrupted and part.generations == 2
    bound(str(small_trace), tmp_path / "resumed", cfg, workers=1)
    strip = lambda p: [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(p.open())]  # noqa: E731
    assert strip(tmp_path / "resumed" / "history.csv") == strip(out / "history.csv")
    assert (tmp_path / "resumed" / "front.csv").read_text() == (out / "front.csv").read_text()
    # two workers: the same front
    assert main(args[:-2] + ["--workers", "2", "--out", str(tmp_path / "two")]) == 0
    assert (tmp_path / "two" / "front.csv").read_text() == (out / "front.csv").read_text()

    capsys.readouterr()
    # strategy files of every kind with a file form are placed too (RUN/best.json is labelled RUN)
    from schedlab.sim.strategies import simulate_any, strategy_to_dict
    from schedlab.sim.timeshare import ScojoConfig
    from schedlab.strategy.rules import TableRuleBase

    others = {"ts": ScojoConfig(), "rb": TableRuleBase()}
    for name, strategy in others.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "best.json").write_text(json.dumps(strategy_to_dict(strategy)))
    assert main(["bound", "plot", str(out), "--with", "easy", "--with", "fcfs", "--x", "AWRT1", "--y", "AWRT2",
                 "--with", str(tmp_path / "ts" / "best.json"), "--with", str(tmp_path / "rb" / "best.json")]) == 0
    text = capsys.readouterr().out
    assert "easy: AWRT1" in text and (out / "front_AWRT1_AWRT2.png").read_bytes()[:4] == b"\x89PNG"
    placed = json.loads((out / "placement_AWRT1_AWRT2.json").read_text())["strategies"]
    for name, strategy in others.items():
        s = simulate_any(w, m, strategy)
        validate_schedule(s)
        assert f"{name}: AWRT1" in text and placed[name]["metrics"]["AWRT1"] == compute_metrics(s)["AWRT1"]

    # --out puts the chart and its placement elsewhere and leaves RUN's own as they were
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert main(["bound", "plot", str(out), "--with", "easy", "--x", "AWRT1", "--y", "AWRT3", "--out", str(tmp_path / "elsewhere")]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    moved = json.loads((tmp_path / "elsewhere" / "placement_AWRT1_AWRT3.json").read_text())
    from schedlab.strategy.registry import parse_policy

    easy = simulate_any(w, m, parse_policy("easy"))
    validate_schedule(easy)
    assert moved["y"] == "AWRT3" and moved["strategies"]["easy"]["metrics"]["AWRT3"] == compute_metrics(easy)["AWRT3"]
    assert (tmp_path / "elsewhere" / "front_AWRT1_AWRT3.png").read_bytes()[:4] == b"\x89PNG"


def test_bound_bad_input_is_one_line_exit_2(tmp_path, small_trace, capsys):
    out = tmp_path / "run"
    for args, words in ((["bound", str(small_trace)], "--out"),
                        (["bound", str(small_trace), "--out", str(out), "--pop", "2"], "--pop"),
                        (["bound", str(tmp_path / "nope.swf"), "--out", str(out)], "nope.swf"),
                        (["bound", str(small_trace), "--out", str(out), "--seed-strategy", str(tmp_path / "x.json")], "x.json"),
                        (["bound", "plot", str(tmp_path)], "not a bound run"),
                        (["bound", "plot"], "RUN folder"),
                        (["bound", str(small_trace), "--out", str(out), "--moves", "0"], "--moves"),
                        (["bound", str(small_trace), "--out", str(out), "--head-start", "-1"], "--head-start"),
                        (["bound", str(small_trace), "--out", str(out), "--sigma", "0"], "--sigma"),
                        (["bound", str(small_trace), "--out", str(out), "--block", "0"], "--block")):
        capsys.readouterr()
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], err
    assert not out.exists()


def test_zero_length_job_keeps_its_processors_at_its_instant_by_hand():
    """2 processors; order: job 0 (submit 0, p 2, 1 proc), job 1 (submit 1, p 0, 1 proc), job 2
    (submit 0, p 2, 1 proc), job 3 (submit 0, p 2, 1 proc). Job 1 takes the free processor at 1
    for an instant, so job 2 cannot cover time 1 with it: it starts right after that instant
    (found by hypothesis: before the fix job 2 ran [0, 2) and 3 processors were busy at 1)."""
    w = workload_of([(0, 2, 1, 1), (1, 0, 1, 1), (0, 2, 1, 1), (0, 2, 1, 1)], 2)
    s = list_schedule(w, Machine(2), [0, 1, 2, 3])
    validate_schedule(s)
    after = float(np.nextafter(1.0, np.inf))
    assert list(s.start) == [0.0, 1.0, after, 2.0]


def test_group_shift_by_hand_keeps_the_block_and_the_others_in_order():
    """Groups of positions 0..7: 1 2 1 2 1 2 1 1. Group 1's jobs 1..2 (in its own sequence: the
    jobs 2 and 4) shifted 3 later: the rest 0 1 3 5 6 7 keeps its order, the block (2, 4) goes
    in, in its order, at position 2 + 3 = 5 of the rest, clipped to 4: before job 6 of group 1
    (the block never passes its own group). Group 2's jobs 0..1 (1, 3) shifted 10 earlier:
    clipped to the front."""
    x = np.arange(8)
    group = np.array([1, 2, 1, 2, 1, 2, 1, 1])
    assert list(group_shift(x, group, 1, 1, 2, 3)) == [0, 1, 3, 5, 2, 4, 6, 7]
    assert list(group_shift(x, group, 1, 1, 2, 1)) == [0, 1, 3, 2, 4, 5, 6, 7]
    assert list(group_shift(x, group, 2, 0, 2, -10)) == [1, 3, 0, 2, 4, 5, 6, 7]
    assert list(group_shift(x, group, 1, 1, 2, -10)) == [0, 2, 4, 1, 3, 5, 6, 7]  # not before job 0 (group 1)
    assert list(group_shift(x, group, 1, 3, 2, 99)) == list(x)  # block (6, 7) put back at the end: unchanged
    assert list(group_shift(x, group, 3, 0, 2, 1)) == list(x)  # no job of group 3


def test_group_first_blocks_by_hand():
    """Groups 2 1 1 2 3 1 2 1, blocks of 3: [0 1 2] -> 1 2 | 0; [3 4 5] -> 5 | 3 4; [6 7] -> 7 | 6;
    with groups (1, 3): block 2 becomes 4 5 | 3."""
    x = np.arange(8)
    group = np.array([2, 1, 1, 2, 3, 1, 2, 1])
    assert list(group_first_blocks(x, group, (1,), 3)) == [1, 2, 0, 5, 3, 4, 7, 6]
    assert list(group_first_blocks(x, group, (1, 3), 3)) == [1, 2, 0, 4, 5, 3, 7, 6]
    assert list(group_first_blocks(x[::-1], group, (2,), 8)) == [6, 3, 0, 7, 5, 4, 2, 1]


def _cfg(**kw):
    base = dict(pop=8, generations=2, seed=1, sigma=5.0, window=20, block=6)
    base.update(kw)
    return BoundConfig(**base)


@pytest.mark.parametrize("kind", ["insert", "swap", "shift", "move"])
def test_each_mutation_kind_with_k_moves_is_a_deterministic_permutation(kind):
    probs = {"insert": (1, 0, 0), "swap": (0, 1, 0), "shift": (0, 0, 1), "move": (0, 0, 0)}[kind]
    cfg = _cfg(p_insert=probs[0], p_swap=probs[1], p_shift=probs[2], moves=5)
    rng0 = np.random.default_rng(0)
    group = rng0.integers(1, 6, 200)
    x = rng0.permutation(200)
    a = [mutate_k(x, group, np.random.default_rng(s), cfg) for s in range(20)]
    b = [mutate_k(x, group, np.random.default_rng(s), cfg) for s in range(20)]
    for y, z in zip(a, b):
        assert sorted(y) == list(range(200)) and list(y) == list(z)
    assert sum(not np.array_equal(y, x) for y in a) >= 15  # it does move jobs
    assert len({tuple(y) for y in a}) > 10  # and differently per seed
    if kind in ("shift", "move"):  # moves between groups: every group keeps its own order
        for y in a:
            for g in range(1, 6):
                assert list(y[group[y] == g]) == list(x[group[x] == g])
    # five moves change more of the order than one
    one = _cfg(p_insert=probs[0], p_swap=probs[1], p_shift=probs[2], moves=1)
    moved = lambda c: np.mean([np.count_nonzero(mutate_k(x, group, np.random.default_rng(s), c) != x)  # noqa: E731
                               for s in range(20)])
    assert moved(cfg) > moved(one)
    # the pymoo operator: the same offspring as mutate_k on the same generator
    X = np.array([x, x[::-1]])
    got = OrderMutation(group, cfg)._do(None, X, random_state=np.random.default_rng(7))
    rng = np.random.default_rng(7)
    assert np.array_equal(got, np.array([mutate_k(X[0], group, rng, cfg), mutate_k(X[1], group, rng, cfg)]))


def test_placement_on_a_hand_made_front():
    """Strategy at (AWRT1, AWRT2) = (100, 200). Front points (x, y): (90, 210) worse in y,
    (80, 190) better in both (gains 20 %, 5 %), (95, 150) (5 %, 25 %), (120, 100) worse in x.
    inside_x = max x-gain with y <= 200: 20 %; inside_y = max y-gain with x <= 100: 25 %;
    inside_both = max over points of min(x-gain, y-gain) = max(-5, 5, 5, -20) % = 5 %."""
    cols = ("UTIL", "AWRT1", "AWRT2")
    front = np.array([[50, 90, 210], [50, 80, 190], [50, 95, 150], [50, 120, 100]], dtype=float)
    p = placement(front, cols, "AWRT1", "AWRT2", {"AWRT1": 100.0, "AWRT2": 200.0})
    assert p["inside_x"] == pytest.approx(0.20) and p["inside_y"] == pytest.approx(0.25)
    assert p["inside_both"] == pytest.approx(0.05) and p["dominating"] == 2
    # a strategy better than the whole front: the front does not bound it there
    q = placement(front, cols, "AWRT1", "AWRT2", {"AWRT1": 50.0, "AWRT2": 90.0})
    assert q["inside_x"] is None and q["inside_y"] is None and q["dominating"] == 0
    assert q["inside_both"] == pytest.approx(-0.9)  # best min-gain: (95, 150): min(-0.9, -0.67)
    # UTIL is maximised: a front point with more UTIL is a gain
    u = placement(front, cols, "UTIL", "AWRT1", {"UTIL": 40.0, "AWRT1": 100.0})
    assert u["inside_x"] == pytest.approx(0.25) and u["inside_y"] == pytest.approx(0.20)


def test_zero_wait_floors_by_hand():
    """Jobs (submit, p, procs, group): (0, 10, 2, 1), (5, 20, 1, 1), (0, 4, 1, 2) on 2 processors.
    Group 1: area-weighted mean p = (20*10 + 20*20) / 40 = 15; group 2: 4; all: (200+400+16)/44."""
    w = workload_of([(0, 10, 2, 1), (5, 20, 1, 1), (0, 4, 1, 2)], 2)
    f = zero_wait_floors(BoundProblem.of(w, Machine(2)))
    assert f["AWRT1"] == pytest.approx(15.0) and f["AWRT2"] == pytest.approx(4.0) and f["AWRT3"] == 0.0
    assert f["AWRT"] == pytest.approx(616 / 44)
    # no schedule is below them: the list schedule of any order
    s = list_schedule(w, Machine(2), [2, 1, 0])
    validate_schedule(s)
    got = compute_metrics(s)
    assert all(got[k] >= f[k] - 1e-9 for k in ("AWRT", "AWRT1", "AWRT2"))


def test_a_stopped_head_start_resumes_from_its_last_step(tmp_path, small_trace, monkeypatch):
    """The head start runs through the shared run loop: Ctrl-C in its second step leaves the
    checkpoint of its first (before: nothing, the next run redid it all), and the same command
    then ends like an uninterrupted run."""
    import pickle

    from schedlab.optimize import bound as B
    from schedlab.optimize import bound_head_start as H

    cfg = _cfg(generations=2, head_start=3, moves=2)
    B.bound(str(small_trace), tmp_path / "whole", cfg, workers=1)
    real, calls = H.mutate_k, []

    def stop_in_step_two(*a):
        calls.append(1)
        if len(calls) == 3:  # 8 - 6 seeds = 2 chains a step: the third call is step 2's
            raise KeyboardInterrupt
        return real(*a)

    monkeypatch.setattr(H, "mutate_k", stop_in_step_two)
    assert B.bound(str(small_trace), tmp_path / "stopped", cfg, workers=1).interrupted
    state = pickle.loads((tmp_path / "stopped" / "checkpoint").read_bytes())
    assert state["phase"] == "head-start" and state["head_start"]["generation"] == 2  # the variants, step 1
    monkeypatch.setattr(H, "mutate_k", real)
    again = B.bound(str(small_trace), tmp_path / "stopped", cfg, workers=1)
    assert not again.interrupted and again.generations == 2
    strip = lambda p: [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(p.open())]  # noqa: E731
    assert strip(tmp_path / "stopped" / "history.csv") == strip(tmp_path / "whole" / "history.csv")
    assert (tmp_path / "stopped" / "front.csv").read_text() == (tmp_path / "whole" / "front.csv").read_text()


@pytest.mark.slow  # three bound runs
def test_head_start_improves_each_chain_and_extend_equals_an_uninterrupted_run(tmp_path, small_trace, capsys):
    from schedlab.errors import RunError
    from schedlab.execute import make_executor
    from schedlab.optimize.bound import bound, heuristic_orders
    from schedlab.optimize.bound_head_start import head_start, head_start_variants
    from schedlab.optimize.bound import workload_of as bound_workload

    w = bound_workload(str(small_trace))
    m = Machine(w.machine_procs)
    problem = BoundProblem.of(w, m)
    seeds = heuristic_orders(w, m, problem)
    cfg = _cfg(pop=10, head_start=4, moves=3, p_shift=0.5, p_insert=0.2, p_swap=0.1)
    two = [*seeds, ("strategy:1", seeds[1][1])]  # FCFS's order posing as a seed strategy
    with make_executor(None, workers=1, payload=problem) as ex:
        hs = head_start(problem, cfg, two, ex)
    with make_executor(None, workers=2, payload=problem) as ex:
        again = head_start(problem, cfg, two, ex)
    variants = head_start_variants(two, problem.group)
    assert len(variants) == 2 + 2 * 15 * 3  # EASY's and the strategy's order, each with 15 group sets x 3 blocks
    assert [k for k, _ in variants[:3]] == ["easy", "strategy:1", "easy+groups1-first/50"]
    assert len(hs.improved) == 10 - len(two) == 3 and all(k.endswith("+head-start") for k, _ in hs.improved)
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(hs.improved, again.improved))
    assert np.array_equal(hs.F, again.F) and hs.source == again.source  # 1 or 2 workers: the same
    assert len(hs.F) == len(variants) + 4 * 3 and hs.source[: len(variants)] == [k for k, _ in variants]
    assert hs.source[len(variants):] == [k for k, _ in hs.improved] * 4  # each chain step labelled by its chain
    F0 = np.array(hs.F[: len(variants)])
    for (_, x), (first, last) in zip(hs.improved, hs.scores):
        assert last <= first
        s = list_schedule(w, m, x)
        validate_schedule(s)
        assert sorted(x) == list(range(len(w)))
    # chain 0 weighs the seven objectives equally and starts from the best variant under them
    assert hs.scores[0][0] == pytest.approx(min(np.mean(f / np.abs(F0[0])) for f in F0))
    # a head-started run of 2 generations extended to 4 equals one run of 4
    full = bound(str(small_trace), tmp_path / "full", _cfg(generations=4, head_start=3, moves=2), workers=1)
    short_cfg = _cfg(generations=2, head_start=3, moves=2)
    short = bound(str(small_trace), tmp_path / "short", short_cfg, workers=1)
    assert short.generations == 2 and short.archive.gen.min() >= 0
    # every schedule the head start evaluated entered the archive: each is in it or dominated by it
    with make_executor(None, workers=1, payload=problem) as ex:
        hs_full = head_start(problem, _cfg(generations=4, head_start=3, moves=2), seeds, ex)
    assert all(np.any(np.all(full.archive.F <= f, axis=1)) for f in hs_full.F)
    assert (full.archive.gen == 0).any()
    with pytest.raises(RunError, match="add --extend"):
        bound(str(small_trace), tmp_path / "short", _cfg(generations=4, head_start=3, moves=2), workers=1)
    longer = bound(str(small_trace), tmp_path / "short", _cfg(generations=4, head_start=3, moves=2), workers=1,
                   extend=True)
    assert longer.resumed_from == 2 and longer.generations == 4
    strip = lambda p: [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(p.open())]  # noqa: E731
    assert strip(tmp_path / "short" / "history.csv") == strip(tmp_path / "full" / "history.csv")
    assert (tmp_path / "short" / "front.csv").read_text() == (tmp_path / "full" / "front.csv").read_text()
    assert json.loads((tmp_path / "short" / "config.json").read_text())["generations"] == 4
    # generation 1 counts the head start: EASY's order and its 45 variants + 3 steps of (8 - 6 seeds)
    # chains, then the population of 8
    assert len(seeds) == 6 and int(strip(tmp_path / "full" / "history.csv")[0]["evaluations"]) == 46 + 3 * 2 + 8

    # the CLI: --moves, --head-start, --extend; plot writes the placement JSON with the floors
    args = ["bound", str(small_trace), "--out", str(tmp_path / "cli"), "--generations", "2", "--pop", "8", "--seed", "1",
            "--moves", "2", "--head-start", "2", "--workers", "1"]
    assert main(args) == 0
    args[args.index("--generations") + 1] = "3"
    assert main(args) == 2 and "--extend" in capsys.readouterr().err
    assert main(args + ["--extend"]) == 0
    assert len(list(csv.DictReader((tmp_path / "cli" / "history.csv").open()))) == 3
    # two workers, 3 generations at once: the same front as one worker extended from 2 to 3
    two = [a if a != str(tmp_path / "cli") else str(tmp_path / "cli2") for a in args[:-2]] + ["--workers", "2"]
    assert main(two) == 0
    assert (tmp_path / "cli2" / "front.csv").read_text() == (tmp_path / "cli" / "front.csv").read_text()
    capsys.readouterr()
    assert main(["bound", "plot", str(tmp_path / "cli"), "--with", "easy", "--x", "AWRT1", "--y", "AWRT2"]) == 0
    doc = json.loads((tmp_path / "cli" / "placement_AWRT1_AWRT2.json").read_text())
    front = np.array([[float(v) for v in r.values()] for r in csv.DictReader((tmp_path / "cli" / "front.csv").open())])
    easy = doc["strategies"]["easy"]
    assert easy == {**placement(front, OBJECTIVES, "AWRT1", "AWRT2", easy["metrics"]), "metrics": easy["metrics"]}
    assert doc["zero_wait_floors"] == pytest.approx(zero_wait_floors(problem))
    assert np.all(front[:, 2] >= doc["zero_wait_floors"]["AWRT1"] - 1e-6)
    assert "inside by" in capsys.readouterr().out


def test_mutation_kinds_are_chosen_by_their_probabilities(monkeypatch):
    """p_shift = 1: every one of the K moves is a group shift; p_shift = 0: never one."""
    import schedlab.optimize.bound_problem as b

    calls = []
    real = b.group_shift
    monkeypatch.setattr(b, "group_shift", lambda *a: calls.append(a) or real(*a))
    rng0 = np.random.default_rng(1)
    group, x = rng0.integers(1, 6, 100), rng0.permutation(100)
    mutate_k(x, group, np.random.default_rng(2), _cfg(p_insert=0, p_swap=0, p_shift=1, moves=4))
    assert len(calls) == 4
    for g, first, count, shift in (c[2:] for c in calls):
        assert 1 <= g <= 5 and 1 <= count <= 6 and shift != 0 and 0 <= first < np.count_nonzero(group == g)
    calls.clear()
    mutate_k(x, group, np.random.default_rng(2), _cfg(p_insert=0.5, p_swap=0.2, p_shift=0, moves=6))
    assert calls == []


@pytest.mark.slow  # a bound run on a generated trace
def test_pop_below_the_number_of_objectives_runs_and_history_keeps_the_best_util(tmp_path):
    """Issue 32, severes 3 and 6: --pop 4 to 6 (fewer reference directions than the seven
    objectives) ended in "AttributeError: 'NoneType' object has no attribute 'integers'" although
    4 is the documented minimum; history.csv's best_UTIL held the front's lowest UTIL."""
    out = tmp_path / "B"
    assert main(["bound", "KTH-SP2", "--months", "1", "--generations", "1", "--pop", "4", "--workers", "1",
                 "--out", str(out)]) == 0
    front = [float(r["UTIL"]) for r in csv.DictReader((out / "front.csv").open())]
    hist = list(csv.DictReader((out / "history.csv").open()))
    assert len(hist) == 1 and int(hist[0]["evaluations"]) == 4
    assert min(front) < max(front) and float(hist[0]["best_UTIL"]) == max(front)
    from schedlab.optimize.bound import reference_directions

    for n in (4, 5, 6, 7, 9):
        dirs = reference_directions(len(OBJECTIVES), n, 1)
        assert dirs.shape == (n, len(OBJECTIVES)) and np.all(dirs >= 0) and np.allclose(dirs.sum(axis=1), 1.0)
        assert len(np.unique(dirs.round(9), axis=0)) == n  # spread, no direction twice
        assert np.array_equal(dirs, reference_directions(len(OBJECTIVES), n, 1))  # seeded


def test_history_best_values_of_a_hand_made_front():
    """best_UTIL is the highest UTIL of the front (UTIL is negated inside the search), the other
    best_ columns the lowest value: two schedules, one with the higher UTIL, one with the lower AWRTs."""
    from schedlab.optimize.bound import Archive, BoundAskTell, history_csv, hv_box, hv_samples

    F = np.array([[-80.0, 5000.0, 100.0, 200.0, 300.0, 400.0, 500.0],
                  [-60.0, 3000.0, 90.0, 210.0, 280.0, 390.0, 550.0]])
    archive = Archive.empty(len(OBJECTIVES), 0, keep_orders=False)
    archive.add(F, None, 1, ["high UTIL", "low AWRT"])
    assert len(archive.F) == 2  # neither dominates the other
    adapter = BoundAskTell(None, ["high UTIL", "low AWRT"], archive, [], hv_box(F), hv_samples(1, len(OBJECTIVES)))
    adapter._n = 2
    row = adapter.row(0.0)
    assert row["best_UTIL"] == 80.0
    assert [row[f"best_{k}"] for k in OBJECTIVES[1:]] == [3000.0, 90.0, 200.0, 280.0, 390.0, 500.0]
    written = next(csv.DictReader(history_csv([row]).splitlines()))
    assert float(written["best_UTIL"]) == 80.0
