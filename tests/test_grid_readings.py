"""Readings of POOL and RQ (schedlab/grid/readings.py): every reading against the plain-Python
multi-site reference (tests/support/grid_naive.py, hypothesis), hand-worked cases that tell the readings
apart, the option parser, and real traces (every reading valid and conserving jobs)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from conftest import require_workloads
from support.grid_naive import naive_grid
from schedlab.errors import WorkloadError
from schedlab.grid.readings import DEFAULT, ISSUE5, Reading, all_readings
from schedlab.grid.setups import load_sites
from schedlab.grid.sim import GridTrace, simulate_grid
from schedlab.metrics.grid import grid_summary
from test_grid_sim import _by_name, _hand_sites, _site, _validate, tiny_grid

READINGS = [("pool", r) for r in all_readings("pool")] + [("rq", r) for r in all_readings("rq")]


def _names(r: Reading) -> dict:
    return asdict(r)


@settings(max_examples=examples(250), deadline=None)
@given(sites=tiny_grid(), case=st.sampled_from(READINGS))
def test_every_reading_equals_plain_python_reference(sites, case):
    """Start time and site of every job equal the reference's, for every POOL/RQ reading."""
    exchange, reading = case
    if sum(len(s.workload) for s in sites) == 0:
        return
    tr = GridTrace.merge(sites)
    g = simulate_grid(tr, exchange, reading)
    w = tr.workload
    start, site = naive_grid(list(w.submit), list(tr.run), list(w.estimate), list(w.procs), list(tr.origin),
                             list(tr.site_procs), exchange, reading=_names(reading))
    assert list(g.site) == site, reading.label(exchange)
    np.testing.assert_array_equal(g.start, np.array(start, dtype=float), err_msg=reading.label(exchange))
    _validate(g)


# ---------------------------------------------------------------------------- RQ, hand-worked
# _hand_sites (tests/test_grid_sim.py): A m=1, B m=4;  a0@A (0,100,1)  b0@B (0,20,3)  b1@B (1,10,4)
# x@A (2,50,1)  y@A (2,5,1).  Merged order a0 b0 b1 x y.
NONE_RESULT = {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (100, 0), "y": (150, 0)}


def test_rq_default_queue_changed_requests_only_when_own_queue_changes():
    # t=2: x, y arrive at A (A's queue changed; A's budget is 0). B's queue did not change at 2
    #   (no arrival, nothing started), so B does not request. t=20: B starts b1 (its queue
    #   changed) but its budget is 0. t=30: b1 ends; B's queue is empty and stays so: no request.
    #   A keeps x and y: the schedule of `none`.
    g = simulate_grid(_hand_sites(), "rq", "rq-when=queue-changed")
    _validate(g)
    assert _by_name(g) == NONE_RESULT
    assert DEFAULT.rq_when == "queue-changed"


def test_rq_own_arrival_requests_only_at_own_arrivals():
    # B's only arrivals are at 0 and 1 (A's queue is empty then): nothing ever moves.
    g = simulate_grid(_hand_sites(), "rq", "rq-when=own-arrival")
    _validate(g)
    assert _by_name(g) == NONE_RESULT


def test_rq_every_instant_budget():
    # t=2: B requests with budget 1: x moves to the end of B's queue (budget 0), y stays. B's pass:
    #   x ends at 52 > b1's shadow 20, extra 0 -> waits. t=30: b1 ends: B starts x (3 free), and
    #   requests y (budget 3), which starts at once.
    g = simulate_grid(_hand_sites(), "rq", "rq-when=every,rq-take=budget")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (30, 1)}


def test_rq_every_instant_startable():
    # t=2: B (1 free, head b1 reserved at 20, extra 0): x would end at 52 > 20 -> stays home;
    #   y ends at 7 <= 20 -> moves and starts on B at 2. t=7 (y ends): B's head still b1, x still
    #   not startable. t=20: b1 starts (0 free). t=30: B idle: x moves and starts at 30.
    g = simulate_grid(_hand_sites(), "rq", "rq-when=every,rq-take=startable")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (2, 1)}


def test_rq_startable_leaves_unstartable_jobs_home_where_budget_moves_them():
    # A: m=1 runs a0 (0-12); u (1 proc, 50 s) arrives at A at 1.  B: m=2 runs r (1 proc, 0-10);
    # h (2 procs, 5 s, submit 0.5) is B's head, reserved at 10 with extra 0; v (2 procs, 100 s)
    # arrives at B at 1, so B's queue changed at 1 and B requests with budget 1.
    # queue-changed + budget: u moves to the end of B's queue and cannot backfill (ends 51 > 10);
    #   h runs 10-15, v 15-115, u starts at 115 on B (A, idle from 12 with an unchanged empty
    #   queue, never requests it back).
    # queue-changed + startable: B's EASY would not start u at 1, so u stays home: 12 on A.
    # every instant: A requests u back at 12 (budget) or keeps it (startable): 12 on A.
    A = _site("A", 1, [(0, 12, 12, 1), (1, 50, 50, 1)])
    B = _site("B", 2, [(0, 10, 10, 1), (0.5, 5, 5, 2), (1, 100, 100, 2)])
    names = ["a0", "r", "h", "u", "v"]

    def by(reading):
        g = simulate_grid([A, B], "rq", reading)
        _validate(g)
        return {nm: (float(g.start[j]), int(g.site[j])) for j, nm in enumerate(names)}

    budget = by("rq-when=queue-changed,rq-take=budget")
    assert budget["u"] == (115, 1) and budget["h"] == (10, 1) and budget["v"] == (15, 1)
    assert by("rq-when=queue-changed,rq-take=startable")["u"] == (12, 0)
    assert by("rq-when=every,rq-take=budget")["u"] == (12, 0)
    assert by("rq-when=every,rq-take=startable")["u"] == (12, 0)


def test_rq_local_first_versus_interleaved_sequencing():
    # A (site 0, m=2) and B (site 1, m=2) idle; b (1 proc, 10 s) arrives at B at 0.
    # interleaved: A passes, then requests with budget 2 before B has passed: b moves to A and
    #   starts there. local-first: B's own pass starts b at 0 on B first.
    A = _site("A", 2, [])
    B = _site("B", 2, [(0, 10, 10, 1)])
    first = simulate_grid([A, B], "rq", "rq-seq=local-first,rq-when=every")
    inter = simulate_grid([A, B], "rq", "rq-seq=interleaved,rq-when=every")
    _validate(first)
    _validate(inter)
    assert list(first.site) == [1] and list(first.start) == [0]
    assert list(inter.site) == [0] and list(inter.start) == [0]


def test_rq_local_first_passes_a_robbed_site_again():
    # V (site 0, m=3): r (2 procs, 0-10) runs; h (3 procs) and n (1 proc, 100 s) arrive at 1:
    #   h is blocked (reserved at 10, extra 0), n cannot backfill (ends 101 > 10).
    # R (site 1, m=3) idle.  t=1: R requests h (budget 3) and starts it.  local-first: V's queue
    #   changed, so V passes again at the end of the round: n (now the head, 1 free) starts at 1.
    #   interleaved (issue 5): no pass follows; n starts at V's next pass, when h ends at 6.
    V = _site("V", 3, [(0, 10, 10, 2), (1, 5, 5, 3), (1, 100, 100, 1)])
    R = _site("R", 3, [])
    first = simulate_grid([V, R], "rq", "rq-seq=local-first,rq-when=every")
    inter = simulate_grid([V, R], "rq", "rq-seq=interleaved,rq-when=every")
    for g in (first, inter):
        _validate(g)
    assert list(first.site) == [0, 1, 0] and list(first.start) == [0, 1, 1]
    assert list(inter.site) == [0, 1, 0] and list(inter.start) == [0, 1, 6]


def test_issue5_reading_is_the_old_hand_worked_rq():
    # the hand-worked RQ case of issue 5 (tests/test_grid_sim.py before issue 17) under ISSUE5
    g = simulate_grid(_hand_sites(), "rq", ISSUE5)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (30, 1)}
    assert simulate_grid(_hand_sites(), "rq", "issue5").start.tolist() == g.start.tolist()


# ---------------------------------------------------------------------------- POOL, hand-worked
def test_pool_idle_takes_only_with_an_empty_own_queue():
    # t=2: pool [b1, x, y]; B has b1 waiting -> takes nothing (backfill would take y at 2).
    #   t=20: b1 starts on B. t=30: b1 ends, B's queue is empty: x and y (pooled) start on B at 30.
    g = simulate_grid(_hand_sites(), "pool", "pool-take=idle")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (30, 1)}


def test_pool_once_offers_a_job_only_in_its_publishing_round():
    # t=2: pool [x, y] (b1, published at 1, was dropped); B backfills y (ends 7 <= 20) at 2; x is
    #   not taken then and is never offered again: it runs at home after a0, at 100.
    g = simulate_grid(_hand_sites(), "pool", "pool-keep=once")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (100, 0), "y": (2, 1)}


def test_pool_default_is_issue5_reading():
    # the hand-worked POOL case of tests/test_grid_sim.py: x at 30 on B (persistent pool)
    g = simulate_grid(_hand_sites(), "pool")
    assert _by_name(g)["x"] == (30, 1)
    assert DEFAULT.label("pool") == ISSUE5.label("pool")


# ---------------------------------------------------------------------------- options
def test_reading_texts_parse_and_bad_ones_are_one_line_errors():
    r = Reading.parse("rq-when=every, rq-take=startable")
    assert (r.rq_when, r.rq_take, r.rq_seq) == ("every", "startable", DEFAULT.rq_seq)
    assert Reading.parse("issue5") == ISSUE5 and Reading.parse("") == DEFAULT
    assert Reading.parse(r.label()) == r
    with pytest.raises(WorkloadError, match="rq-when='sometimes': choose one of every, queue-changed, own-arrival"):
        Reading.parse("rq-when=sometimes")
    with pytest.raises(WorkloadError, match="expected OPTION=VALUE"):
        Reading.parse("fast")
    assert len(all_readings("rq")) == 12 and len(all_readings("pool")) == 4
    assert len({r.codes().tobytes() for r in all_readings("rq")}) == 12


# ---------------------------------------------------------------------------- real traces
@pytest.fixture(scope="module")
def real_sites():
    require_workloads()
    return load_sites([("KTH-SP2", 100), ("SDSC-SP2", 128)], months=1)


@pytest.mark.parametrize("exchange,reading", [(e, r.label(e)) for e, r in READINGS])
def test_every_reading_on_real_traces(real_sites, exchange, reading):
    """Valid per site, every job once, migrations consistent; local-first RQ never takes a job
    that its own site started at its arrival instant (no job migrates with zero wait at origin's
    free capacity is hard to state per job: checked as jobs conserved + validator)."""
    g = simulate_grid(real_sites, exchange, reading)
    _validate(g)
    s = grid_summary(g)
    assert sum(x["jobs"] for x in s["sites"]) == sum(len(x.workload) for x in real_sites)
    assert s["sites"][0]["migrated_out"] == s["sites"][1]["migrated_in"]


def test_kernel_without_a_reading_runs_the_recommended_default():
    """grid_kernel(reading=None) reads the codes of readings.DEFAULT (held below both modules)."""
    from schedlab.grid.kernel import EXCHANGES, grid_kernel
    from schedlab.grid.reading_codes import DEFAULT_CODES

    np.testing.assert_array_equal(DEFAULT.codes(), DEFAULT_CODES)
    assert DEFAULT.codes().tolist() != ISSUE5.codes().tolist()
    tr = GridTrace.merge(_hand_sites())
    w = tr.workload
    args = (np.ascontiguousarray(w.submit, dtype=np.float64), tr.run, np.ascontiguousarray(w.estimate, dtype=np.float64),
            np.ascontiguousarray(w.procs, dtype=np.int64), tr.origin, tr.site_procs, EXCHANGES["rq"], np.inf)
    plain, by_default = grid_kernel(*args), grid_kernel(*args, reading=DEFAULT)
    for a, b in zip(plain, by_default):
        np.testing.assert_array_equal(a, b)
