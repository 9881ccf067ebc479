"""The resumable engine (schedlab.sim.step): job decisions on the queue's first job are FCFS / EASY
exactly (job for job against ``simulate`` on real traces, against the naive reference on random
small workloads); hand-worked decisions off the head; snapshot/restore resumes exactly."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from conftest import BUNDLED_KTH, trace_path
from support.naive import naive_simulate, random_small_workload, small_workload
from schedlab.sim import Machine, Schedule, simulate, validate_schedule
from schedlab.sim import step
from schedlab.sim.engine import prepare
from schedlab.sim.ops import queue
from schedlab.sim.state import START
from schedlab.strategy import Strategy
from schedlab.workload import load_trace
from schedlab.workload.lublin import lublin

BACKFILL = {"fcfs": step.BF_NONE, "easy": step.BF_EASY, "conservative": step.BF_CONSERVATIVE}


def first_job_run(w, m, rule, kill):
    """(Schedule in trace order, decisions) of the queue's first job at every job decision."""
    machine = Machine(m)
    J, S, _G, _d, _o, perm = prepare(w, machine, Strategy(rule), kill=kill)
    cur, tf = step.new_cursor()
    steps = step.run_first(J, S, cur, tf, BACKFILL[rule]) if len(w) else 0
    start = np.empty(len(w))
    start[perm] = S.f[START]
    p = np.minimum(w.runtime, w.estimate) if kill else w.runtime
    return Schedule(w, machine, Strategy(rule), start, start + p, killed=kill), steps


@functools.lru_cache(maxsize=None)
def real(name):
    if name == "lublin":
        return lublin(5000, 128, seed=7)
    w = load_trace(str(BUNDLED_KTH if name == BUNDLED_KTH.name else trace_path(name)))
    return w


@pytest.mark.parametrize("kill", [True, False])
@pytest.mark.parametrize("rule", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("name", [BUNDLED_KTH.name, "SDSC-SP2-1998-4.2-cln.swf.gz", "lublin_256.swf.gz", "lublin"])
def test_first_job_policy_is_fcfs_and_easy_on_real_traces(name, rule, kill):
    w = real(name)
    m = w.machine_procs
    got, steps = first_job_run(w, m, rule, kill)
    ref = simulate(w, Machine(m), Strategy(rule), kill=kill)
    same = got.start == ref.start
    assert same.all(), f"{(~same).sum()} of {len(w)} starts differ"
    assert steps >= int(np.unique(got.start).size) - 1  # at least one decision per start time (+ edge)
    validate_schedule(got)


@settings(max_examples=examples(150), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rule=st.sampled_from(["fcfs", "easy", "conservative"]), kill=st.booleans())
def test_first_job_policy_matches_the_naive_reference(seed, rule, kill):
    w, m = random_small_workload(np.random.default_rng(seed))
    got, _ = first_job_run(w, m, rule, kill)
    start, _finish = naive_simulate(w, m, Strategy(rule), kill=kill)
    np.testing.assert_array_equal(got.start, start)
    validate_schedule(got)


def _engine(w, kill=True):
    J, S, _G, _d, _o, _perm = prepare(w, Machine(w.machine_procs), Strategy("fcfs"), kill=kill)
    cur, tf = step.new_cursor()
    return J, S, cur, tf


def test_a_job_off_the_head_that_fits_starts_and_a_blocked_one_is_easy_s_head():
    # m = 4. A (t=0, 2 procs, 10 s) runs. At t=1: B (4 procs, est 10), C (2, est 20), D (2, est 5).
    w = small_workload([(0, 10, 10, 2), (1, 10, 10, 4), (1, 20, 20, 2), (1, 5, 5, 2)], 4)
    J, S, cur, tf = _engine(w)
    A, B, C, D = 0, 1, 2, 3
    act = lambda j: step.act_job(J, S, cur, tf, j, step.BF_EASY, step.SD_JOB)  # noqa: E731
    assert step.advance(J, S, cur, tf, True, step.SD_JOB) and tf[step.T_NOW] == 0
    assert act(A) and tf[step.T_NOW] == 1 and list(queue(S)) == [B, C, D]  # nothing waits at 0: on to 1
    snap = step.snapshot(S, cur, tf)
    # 1) B named though it does not fit: its reservation is A's end, 10, with 0 processors spare;
    #    C (1 + 20 > 10) may not backfill, D (1 + 5 <= 10) may. Next decision: D's end, 6, where C
    #    fits (B named again: C still may not), then 10 (B starts), then 20 (C starts) = EASY
    assert act(B) and S.f[START, D] == 1 and tf[step.T_NOW] == 6
    assert act(B) and np.isnan(S.f[START, C]) and tf[step.T_NOW] == 10
    assert act(B) and tf[step.T_NOW] == 20
    assert not act(C)
    assert list(S.f[START]) == [0, 10, 20, 1]
    step.restore(S, cur, tf, snap)
    assert tf[step.T_NOW] == 1 and list(queue(S)) == [B, C, D] and np.isnan(S.f[START, D])
    # 2) C named (it fits): it fills the machine; at 10 A ends, B (4) does not fit, D (2) does: D
    #    named, starts; D's end at 15 is no decision (only B waits, and does not fit); C's end at 21 is
    assert act(C) and S.f[START, C] == 1 and tf[step.T_NOW] == 10 and list(queue(S)) == [B, D]
    assert act(D) and S.f[START, D] == 10 and tf[step.T_NOW] == 21
    assert not act(B)
    assert list(S.f[START]) == [0, 21, 1, 10]


def test_fcfs_names_of_a_blocked_head_start_nothing():
    # m = 4: A (0, 3 procs, 10 s); B (1, 2 procs) blocked; C (1, 1 proc, est 1) fits. Without
    # backfilling, naming B starts nothing (FCFS); naming C starts it (the policy's own choice).
    w = small_workload([(0, 10, 10, 3), (1, 5, 5, 2), (1, 1, 1, 1)], 4)
    J, S, cur, tf = _engine(w)
    act = lambda j: step.act_job(J, S, cur, tf, j, step.BF_NONE, step.SD_JOB)  # noqa: E731
    step.advance(J, S, cur, tf, True, step.SD_JOB)
    assert act(0) and tf[step.T_NOW] == 1
    snap = step.snapshot(S, cur, tf)
    assert act(1) and tf[step.T_NOW] == 10 and np.isnan(S.f[START, 2])  # the next decision: A's end
    step.restore(S, cur, tf, snap)
    assert act(2) and S.f[START, 2] == 1


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rule=st.sampled_from(["fcfs", "easy", "conservative"]), cut=st.integers(0, 40))
def test_snapshot_and_restore_resume_exactly(seed, rule, cut):
    """A random policy run to the end from a snapshot twice (the same choices) gives the same
    starts as without; a different branch from it leaves the restored copy untouched."""
    w, m = random_small_workload(np.random.default_rng(seed))
    J, S, cur, tf = _engine(w)
    rng = np.random.default_rng(seed)
    choices = rng.integers(0, 1000, 200)

    def play(k0, picks):
        k = k0
        more = cur[step.C_AT] == 1 or step.advance(J, S, cur, tf, True, step.SD_JOB)
        while more:
            q = queue(S)
            more = step.act_job(J, S, cur, tf, q[picks[k % len(picks)] % q.shape[0]], BACKFILL[rule], step.SD_JOB)
            k += 1
        return S.f[START].copy()

    more = step.advance(J, S, cur, tf, True, step.SD_JOB)
    k = 0
    while more and k < cut:
        q = queue(S)
        more = step.act_job(J, S, cur, tf, q[choices[k] % q.shape[0]], BACKFILL[rule], step.SD_JOB)
        k += 1
    snap = step.snapshot(S, cur, tf)
    first = play(k, choices)
    step.restore(S, cur, tf, snap)
    play(k, choices[::-1] + 1)  # another branch
    step.restore(S, cur, tf, snap)
    again = play(k, choices)
    np.testing.assert_array_equal(first, again)
    assert not np.isnan(first).any()


def test_a_blocked_job_off_the_head_is_the_reserved_head_for_easy():
    # m = 4: A (t=0, 3 procs, 10 s) runs. At t=1: B (2 procs, est 100), C (4, est 10), E (1, est 50);
    # 1 processor free, E fits. Naming C: C's reservation is A's end (10) with 0 spare, so E
    # (1 + 50 > 10, 1 > 0 spare) may not start. Had B been the head (reservation 10, 2 spare), E would.
    w = small_workload([(0, 10, 10, 3), (1, 100, 100, 2), (1, 10, 10, 4), (1, 50, 50, 1)], 4)
    J, S, cur, tf = _engine(w)
    act = lambda j: step.act_job(J, S, cur, tf, j, step.BF_EASY, step.SD_JOB)  # noqa: E731
    step.advance(J, S, cur, tf, True, step.SD_JOB)
    assert act(0) and tf[step.T_NOW] == 1
    snap = step.snapshot(S, cur, tf)
    assert act(2) and np.isnan(S.f[START, 3]) and tf[step.T_NOW] == 10
    step.restore(S, cur, tf, snap)
    assert act(1) and S.f[START, 3] == 1  # B named: E fits in B's 2 spare processors


def test_conservative_names_the_first_reservation_and_the_queue_order_comes_back():
    # m = 4: A (t=0, 3 procs, 10 s) runs. At t=1: B (4 procs, est 10), C (1, est 5), D (1, est 20);
    # 1 processor free. Queue order (B named): B holds 10-20, C (1-6) starts at 1, D cannot end by
    # 10 and waits for B's end: C 1, B 10, D 20. D named: D holds the free processor 1-21, B then
    # waits for D's end (21), C for A's end (10): nothing but D starts at 1, the next decision is 10
    # (C fits), where B named again holds 21 and C starts: D 1, C 10, B 21.
    w = small_workload([(0, 10, 10, 3), (1, 10, 10, 4), (1, 5, 5, 1), (1, 20, 20, 1)], 4)
    J, S, cur, tf = _engine(w)
    A, B, C, D = 0, 1, 2, 3
    act = lambda j: step.act_job(J, S, cur, tf, j, step.BF_CONSERVATIVE, step.SD_JOB)  # noqa: E731
    assert step.advance(J, S, cur, tf, True, step.SD_JOB) and act(A) and tf[step.T_NOW] == 1
    snap = step.snapshot(S, cur, tf)
    while act(queue(S)[0]):
        pass
    assert list(S.f[START]) == [0, 10, 1, 20]
    step.restore(S, cur, tf, snap)
    assert act(D) and tf[step.T_NOW] == 10 and list(queue(S)) == [B, C]
    assert act(B) and S.f[START, C] == 10
    while act(queue(S)[0]):
        pass
    assert list(S.f[START]) == [0, 21, 10, 1]
