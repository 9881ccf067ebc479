"""The group search of the optimised SCOJO-PECT (issue 13): visit orders of LDS and DDS against
the textbook enumerations, branch and bound against exhaustive search, force shifting by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.sim import groupsearch as gs

from support.groupsearch_naive import exhaustive_best, korf_lds, place, total_bsld, walsh_dds


def _profile(m, busy):
    rel_t = np.array([u for _, u in busy] or [0.0], np.float64)
    rel_w = np.array([wd for wd, _ in busy] or [0], np.int64)
    T = np.empty(64, np.float64)
    F = np.empty(64, np.int64)
    P = gs.profile_build(m, rel_t, rel_w, len(busy), T, F)
    return T, F, P


def _search(widths, ests, wait0, m, busy, mode, budget=10 ** 9, prune=True, fs=0.0, tau=600.0, keep=1, rec_rows=0,
            order=None):
    n = len(widths)
    order = np.arange(n) if order is None else np.asarray(order, np.int64)
    T, F, P = _profile(m, busy)
    top_e = np.empty(keep)
    top_a = np.empty(keep)
    top_o = np.empty((keep, n), np.int64)
    stats = np.zeros(3, np.int64)
    rec = np.full((rec_rows, n), -1, np.int64)
    kept = gs.tree_search(order, n, np.array(widths, np.int64), np.array(ests, np.float64),
                          np.array(wait0, np.float64), 1.0, tau, False, 0.0, T, F, P, mode, budget, prune, fs,
                          top_e, top_a, top_o, stats, rec)
    return kept, top_a, top_o, stats, [tuple(int(x) for x in r) for r in rec if r[0] >= 0]


def _visits(n, mode):
    return _search([1] * n, [1.0] * n, [0.0] * n, 100, [], mode, prune=False, rec_rows=1000)[4]


def test_three_jobs_by_hand():
    """Jobs a, b, c in heuristic order; discrepancies of the six leaves in depth-first order are
    0, 1, 1, 2, 1, 2 (thesis 6.4.2). LDS: 0 discrepancies, then the three with 1, then the two
    with 2. DDS: the heuristic path; then a discrepancy at depth 0 (b, c first, heuristic below);
    then any first job with a discrepancy at depth 1."""
    assert _visits(3, gs.LDS) == [(0, 1, 2), (0, 2, 1), (1, 0, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)]
    assert _visits(3, gs.DDS) == [(0, 1, 2), (1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0), (2, 1, 0)]
    assert _visits(3, gs.ALL) == list(itertools.permutations(range(3)))


@pytest.mark.parametrize("n", [1, 2, 4, 5, 6])
def test_visit_orders_equal_textbook(n):
    assert _visits(n, gs.LDS) == korf_lds(n)
    assert _visits(n, gs.DDS) == walsh_dds(n)
    assert sorted(_visits(n, gs.DDS)) == list(itertools.permutations(range(n)))  # every leaf once


def test_budget_stops_after_that_many_schedules():
    _, _, _, stats, visits = _search([1] * 5, [1.0] * 5, [0.0] * 5, 100, [], gs.DDS, budget=7, prune=False,
                                     rec_rows=1000)
    assert visits == walsh_dds(5)[:7] and stats[2] == 7


def test_placement_matches_reference_by_hand():
    """m = 4, two processors busy until 10. A (4 wide, 10 s) starts at 10, B (2, 12 s) does not fit
    in the 10 s hole before A and starts at 20; B then A: B at 0, A at 12."""
    T, F, P = _profile(4, [(2, 10.0)])
    w = np.array([4, 2], np.int64)
    est = np.array([10.0, 12.0])
    starts = np.empty(2)
    Tw, Fw = np.empty(64), np.empty(64, np.int64)
    gs.evaluate(np.array([0, 1]), 2, w, est, np.zeros(2), 1.0, 1.0, False, 0.0, T, F, P, Tw, Fw, starts)
    assert list(starts) == [10.0, 20.0] == place([0, 1], [4, 2], [10.0, 12.0], 4, [(2, 10.0)])
    gs.evaluate(np.array([1, 0]), 2, w, est, np.zeros(2), 1.0, 1.0, False, 0.0, T, F, P, Tw, Fw, starts)
    assert list(starts) == [0.0, 12.0] == place([1, 0], [4, 2], [10.0, 12.0], 4, [(2, 10.0)])


def test_force_shifting_by_hand():
    """The example above plus C (1 wide, 1000 s). On the heuristic path (A, B, C), B has a 10 s hole
    before its start 20 and 12 <= 1.5 x 10: force shifting evaluates (B, A, C) (bounded slowdown
    with tau 1: B 12/12 = 1, A 22/10 = 2.2) as the second schedule of a budget of 2; with a ratio
    of 1.1 (12 > 11) nothing is shifted and LDS's second schedule is (A, C, B)."""
    args = ([4, 2, 1], [10.0, 12.0, 1000.0], [0.0] * 3, 4, [(2, 10.0)])
    kept, top_a, top_o, _, visits = _search(*args, gs.LDS, budget=2, prune=False, fs=1.5, tau=1.0, keep=3,
                                            rec_rows=10)
    assert visits == [(0, 1, 2)] and kept == 2
    assert tuple(top_o[0]) == (1, 0, 2)
    assert top_a[0] == pytest.approx(total_bsld((1, 0, 2), *args, tau=1.0))
    kept, top_a, top_o, _, visits = _search(*args, gs.LDS, budget=2, prune=False, fs=1.1, tau=1.0, keep=3,
                                            rec_rows=10)
    assert visits == [(0, 1, 2), (0, 2, 1)] and (1, 0, 2) not in {tuple(r) for r in top_o[:kept]}


groups = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 8), min_size=n, max_size=n),
    st.lists(st.sampled_from([60.0, 300.0, 900.0, 3600.0, 7200.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 100.0, 5000.0]), min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(1, 4), st.sampled_from([100.0, 1000.0, 4000.0])), max_size=3),
))


@settings(max_examples=examples(60), deadline=None)
@given(groups, st.sampled_from([gs.ALL, gs.LDS, gs.DDS]), st.randoms(use_true_random=False))
def test_branch_and_bound_equals_exhaustive(case, mode, rnd):
    widths, ests, wait0, busy = case
    m = 8 + sum(wd for wd, _ in busy)
    best = exhaustive_best(widths, ests, wait0, m, busy)
    heuristic = list(range(len(widths)))
    rnd.shuffle(heuristic)  # any heuristic order: the jobs are addressed through it
    kept, top_a, top_o, stats, _ = _search(widths, ests, wait0, m, busy, mode, order=heuristic)
    assert kept >= 1
    assert top_a[0] == pytest.approx(best)
    assert total_bsld(tuple(top_o[0]), widths, ests, wait0, m, busy) == pytest.approx(best)
    assert 0 <= stats[1] <= stats[0]


def test_pruning_prunes():
    """Equal jobs that cannot run side by side: after the first schedule, every path whose prefix
    already costs more is cut; the best is still found."""
    n = 6
    widths, ests, wait0 = [8] * n, [600.0 * (j + 1) for j in range(n)], [0.0] * n
    kept, top_a, _, stats, _ = _search(widths, ests, wait0, 8, [], gs.ALL)
    assert stats[1] > 0 and stats[0] < sum(len(list(itertools.permutations(range(n), k))) for k in range(1, n + 1))
    assert top_a[0] == pytest.approx(exhaustive_best(widths, ests, wait0, 8, []))


def test_group_finish_by_hand():
    """m = 4; jobs [0,10) x4, [10,20) x4, [20,30) x1: utilization 1, 1, then 0.75 at 30: a drop of
    0.25 > 0.1, and 0.75 >= 0.5 -> the group finishes at 30; with minUtil 0.8 at 20."""
    v = np.array([0.0, 10.0, 20.0])
    e = np.array([10.0, 20.0, 30.0])
    wd = np.array([4, 4, 1], np.int64)
    assert gs.group_finish(v, e, wd, 3, 4, 0.1, 0.5) == 30.0
    assert gs.group_finish(v, e, wd, 3, 4, 0.1, 0.8) == 20.0
    assert gs.group_finish(v, e, wd, 3, 4, 0.5, 0.8) == 30.0  # no drastic drop: the last finish
