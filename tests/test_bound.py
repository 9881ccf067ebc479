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
from schedlab.optimize.bound import (OBJECTIVES, BoundProblem, evaluate_order, group_move, insertion, non_dominated,
                                     order_crossover)
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
    assert main(["bound", "plot", str(out), "--with", "easy", "--with", "fcfs", "--x", "AWRT1", "--y", "AWRT2"]) == 0
    text = capsys.readouterr().out
    assert "easy: AWRT1" in text and (out / "front_AWRT1_AWRT2.png").read_bytes()[:4] == b"\x89PNG"


def test_bound_bad_input_is_one_line_exit_2(tmp_path, small_trace, capsys):
    out = tmp_path / "run"
    for args, words in ((["bound", str(small_trace)], "--out"),
                        (["bound", str(small_trace), "--out", str(out), "--pop", "2"], "--pop"),
                        (["bound", str(tmp_path / "nope.swf"), "--out", str(out)], "nope.swf"),
                        (["bound", str(small_trace), "--out", str(out), "--seed-strategy", str(tmp_path / "x.json")], "x.json"),
                        (["bound", "plot", str(tmp_path)], "not a bound run"),
                        (["bound", "plot"], "RUN folder")):
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
