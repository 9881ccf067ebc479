"""Multi-site simulation (none, POOL, RQ): reference comparison, hand-worked cases, real traces."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from support.grid_naive import naive_grid
from schedlab.errors import WorkloadError
from schedlab.grid.kernel import EXCHANGES, grid_kernel
from schedlab.metrics.grid import grid_summary
from conftest import require_workloads
from schedlab.grid.setups import load_sites
from schedlab.grid.sim import GridTrace, Site, check_site_schedules, simulate_grid
from schedlab.metrics import compute_metrics
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy.model import Strategy
from schedlab.workload.model import Workload


def _site(name, procs, rows):
    """rows: (submit, runtime, estimate, procs) per job."""
    sub, rt, est, width = (np.array(c, dtype=float) for c in zip(*rows)) if rows else ([], [], [], [])
    w = Workload.from_columns({"submit": sub, "runtime": rt, "estimate": est, "procs": np.asarray(width, dtype=np.int64)})
    return Site(name, w, procs)


def _validate(g):
    """Every site's schedule through the shared validator (full EASY replay for `none`)."""
    check_site_schedules(g)
    for k in range(len(g.trace.names)):
        validate_schedule(g.site_schedule(k))


@st.composite
def tiny_grid(draw):
    m = [draw(st.integers(1, 5)), draw(st.integers(1, 5))]
    n = draw(st.integers(1, 12))
    jobs = []
    for _ in range(n):
        k = draw(st.integers(0, 1))
        run = draw(st.integers(0, 8))  # zero-length jobs included
        est = run + draw(st.integers(0, 4))
        jobs.append((k, draw(st.integers(0, 20)), run, max(est, 1), draw(st.integers(1, m[k]))))
    sites = [_site(f"s{k}", m[k], [(s, r, e, p) for (kk, s, r, e, p) in jobs if kk == k]) for k in range(2)]
    return sites


@settings(max_examples=examples(60))
@given(sites=tiny_grid(), exchange=st.sampled_from(["none", "pool", "rq"]))
def test_kernel_equals_plain_python_reference(sites, exchange):
    """The compiled grid loop and tests/support/grid_naive.py agree on every start time and site."""
    if sum(len(s.workload) for s in sites) == 0:
        return
    tr = GridTrace.merge(sites)
    g = simulate_grid(tr, exchange)
    w = tr.workload
    run = list(np.minimum(w.runtime, w.estimate))
    start, site = naive_grid(list(w.submit), run, list(w.estimate), list(w.procs), list(tr.origin),
                             list(tr.site_procs), exchange)
    assert list(g.site) == site
    np.testing.assert_array_equal(g.start, np.array(start, dtype=float))
    check_site_schedules(g)


@settings(max_examples=examples(40))
@given(sites=tiny_grid())
def test_none_equals_each_site_simulated_alone(sites):
    """Exchange `none` = `simulate(EASY)` of each site's own trace."""
    if sum(len(s.workload) for s in sites) == 0:
        return
    g = simulate_grid(sites, "none")
    _validate(g)
    assert np.all(g.site == g.trace.origin)
    for k, s in enumerate(sites):
        own = g.trace.workload.take(g.trace.origin == k)
        alone = simulate(own, Machine(s.procs), Strategy("easy"))
        np.testing.assert_array_equal(g.start[g.trace.origin == k], alone.start)


# ---------------------------------------------------------------------------- hand-worked cases
# Site A: m = 1; site B: m = 4.  Jobs (submit, runtime = estimate, procs):
#   a0 @A (0, 100, 1)   b0 @B (0, 20, 3)   b1 @B (1, 10, 4)   x @A (2, 50, 1)   y @A (2, 5, 1)
def _hand_sites():
    A = _site("A", 1, [(0, 100, 100, 1), (2, 50, 50, 1), (2, 5, 5, 1)])
    B = _site("B", 4, [(0, 20, 20, 3), (1, 10, 10, 4)])
    return [A, B]


def _by_name(g):
    """{job: (start, site)} with jobs named as in the comment above (merged order a0 b0 b1 x y)."""
    names = ["a0", "b0", "b1", "x", "y"]
    return {nm: (float(g.start[j]), int(g.site[j])) for j, nm in enumerate(names)}


def test_hand_worked_none():
    # A alone runs a0 0-100, x 100-150, y 150-155; B: b0 0-20, then b1 (all 4) 20-30.
    g = simulate_grid(_hand_sites(), "none")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (100, 0), "y": (150, 0)}


def test_hand_worked_pool():
    # t=0: a0 starts on A, b0 on B (1 of 4 free).  t=1: b1 (4 procs) blocked on B -> pool [b1]
    #   (B's own job: only B's queue matters for it).  Head b1 reserves B at shadow 20 (b0's end),
    #   extra 0.  t=2: x, y arrive at A, A is full -> published: pool [b1, x, y].  Pool pass of B
    #   (1 free): x would end at 52 > 20 and 1 > extra 0 -> not taken; y ends at 7 <= 20 -> y starts
    #   on B at 2.  t=20: b0 ends, b1 starts on B (0 free).  t=30: b1 ends, B's queue is empty, so
    #   x (pooled) starts on B at 30.  A runs only a0.
    g = simulate_grid(_hand_sites(), "pool")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (2, 1)}
    per = {s["name"]: s for s in grid_summary(g)["sites"]}
    assert per["A"]["migrated_out"] == 2 and per["B"]["migrated_in"] == 2 and per["B"]["jobs"] == 4


def test_hand_worked_rq():
    # t=2: A's EASY pass starts nothing (0 free, budget 0).  B's pass starts nothing; B's virtual
    #   budget is its 1 free processor: A's queue is [x, y]; x (1 proc) is moved to the END of B's
    #   queue (budget 0), so y stays at A.  B's second EASY pass: x does not end by b1's shadow 20
    #   and extra is 0 -> x waits in B's queue.  (POOL started y here; RQ's budget ignores the
    #   reservation, spends it on x and so y is not requested.)  t=20: b0 ends; b1 starts on B.
    #   t=30: b1 ends; B's pass starts x (3 free), then B requests y (budget 3) and starts it too.
    #   (Issue 5's reading; every reading: tests/test_grid_readings.py.)
    g = simulate_grid(_hand_sites(), "rq", "issue5")
    _validate(g)
    assert _by_name(g) == {"a0": (0, 0), "b0": (0, 1), "b1": (20, 1), "x": (30, 1), "y": (30, 1)}


def test_rq_budget_is_virtual():
    # A: m = 1 busy 0-100 (a0).  B: m = 2 idle.  u, v, w (1 proc, 10 s) arrive at A at t=1.
    # RQ at t=1: B's budget 2 takes u and v (budget 0) -> both start on B at 1; w is NOT moved.
    # t=11: u, v end; B requests w and starts it at 11.
    A = _site("A", 1, [(0, 100, 100, 1), (1, 10, 10, 1), (1, 10, 10, 1), (1, 10, 10, 1)])
    B = _site("B", 2, [])
    g = simulate_grid([A, B], "rq", "rq-when=every")  # B's own queue never changes
    _validate(g)
    assert list(g.start) == [0, 1, 1, 11] and list(g.site) == [0, 1, 1, 1]


def test_pool_origin_may_still_start_its_pooled_job():
    # A: m=2 runs a0 (2 procs, 0-10); a1 (2 procs) arrives at 1 -> pooled.  B: m=1 cannot take it
    # (too narrow).  A starts a1 itself at 10.
    A = _site("A", 2, [(0, 10, 10, 2), (1, 5, 5, 2)])
    B = _site("B", 1, [(0, 3, 3, 1)])
    g = simulate_grid([A, B], "pool")
    _validate(g)
    assert list(g.start) == [0, 0, 10] and list(g.site) == [0, 1, 0]


# ---------------------------------------------------------------------------- real traces
@pytest.fixture(scope="module")
def real_sites():
    require_workloads()  # SDSC-SP2 is a shared trace
    return load_sites([("KTH-SP2", 100), ("SDSC-SP2", 128)], months=1)


def test_real_traces_none_equals_simulate_per_site(real_sites):
    g = simulate_grid(real_sites, "none")
    _validate(g)
    summary = grid_summary(g)
    for k, s in enumerate(real_sites):
        own = g.trace.workload.take(g.trace.origin == k)
        alone = simulate(own, Machine(s.procs), Strategy("easy"))
        validate_schedule(alone)
        np.testing.assert_array_equal(g.start[g.trace.origin == k], alone.start)
        assert summary["sites"][k]["AWRT"] == pytest.approx(compute_metrics(alone)["AWRT"], rel=1e-12)
        assert summary["sites"][k]["jobs"] == len(s.workload)


@pytest.mark.parametrize("exchange", ["pool", "rq"])
def test_real_traces_exchange(real_sites, exchange):
    """POOL/RQ on real traces: valid per site (capacity, submit, once, finish), jobs conserved,
    migrations consistent, and overall AWRT is the area-weighted mean of the sites' AWRT."""
    g = simulate_grid(real_sites, exchange)
    _validate(g)
    s = grid_summary(g)
    n = sum(len(x.workload) for x in real_sites)
    assert sum(x["jobs"] for x in s["sites"]) == n
    assert s["sites"][0]["migrated_out"] == s["sites"][1]["migrated_in"] > 0
    assert s["sites"][1]["migrated_out"] == s["sites"][0]["migrated_in"]
    for k, x in enumerate(s["sites"]):
        assert x["jobs"] == len(real_sites[k].workload) - x["migrated_out"] + x["migrated_in"]
    area = np.minimum(g.trace.workload.runtime, g.trace.workload.estimate) * g.trace.workload.procs
    weights = [area[g.site == k].sum() for k in range(2)]
    assert s["AWRT"] == pytest.approx(np.dot(weights, [x["AWRT"] for x in s["sites"]]) / sum(weights), rel=1e-9)


def test_bad_grids_are_one_line_errors():
    w = Workload.from_columns({"submit": [0.0], "runtime": [5.0], "estimate": [5.0], "procs": [8]})
    with pytest.raises(WorkloadError, match="needs 8 processors, the site has 4"):
        Site("A", w, 4)
    with pytest.raises(WorkloadError, match="at least 2 sites"):
        GridTrace.merge([Site("A", w, 8)])
    with pytest.raises(WorkloadError, match="unknown exchange"):
        simulate_grid([Site("A", w, 8), Site("B", w, 8)], "steal")


def test_kernel_rejects_nothing_silently_on_empty_site():
    # a site without jobs of its own still takes work under RQ (and has AWRT of what it ran)
    A = _site("A", 1, [(0, 10, 10, 1), (0, 10, 10, 1)])
    B = _site("B", 1, [])
    g = simulate_grid([A, B], "rq", "rq-when=every")  # B's own queue never changes
    _validate(g)
    assert list(g.site) == [0, 1] and list(g.start) == [0, 0]
    none = simulate_grid([A, B], "none")
    assert list(none.start) == [0, 10]
    start, site, awrt, aborted = grid_kernel(
        none.trace.workload.submit, none.trace.run, none.trace.workload.estimate, none.trace.workload.procs,
        none.trace.origin, none.trace.site_procs, EXCHANGES["none"], np.inf)
    assert not aborted and np.isnan(awrt[1]) and awrt[0] == pytest.approx(15.0)
