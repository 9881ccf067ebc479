"""compute_metrics: hand-computed small schedules and properties (greedy-es-sorting-criteria eq. 5-7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.metrics import METRIC_NAMES, Metrics, compute_metrics
from schedlab.sim.model import Machine, Schedule
from schedlab.workload.model import Workload


def make_schedule(submit, start, finish, procs, group, *, m, runtime=None, estimate=None, killed=True):
    """A hand-built Schedule over Workload.from_columns (no engine needed)."""
    submit = np.asarray(submit, dtype=float)
    start = np.asarray(start, dtype=float)
    finish = np.asarray(finish, dtype=float)
    runtime = finish - start if runtime is None else np.asarray(runtime, dtype=float)
    estimate = runtime if estimate is None else np.asarray(estimate, dtype=float)
    w = Workload.from_columns(
        {"submit": submit, "runtime": runtime, "estimate": estimate, "procs": procs, "group": group},
        machine_procs=m,
    )
    return Schedule(w, Machine(m), None, start, finish, killed=killed)


def four_jobs() -> Schedule:
    # m = 4.  job  r  S   C   p   m_j  group  p*m  C-r  S-r
    #          j1  0  0   10  10  2    1      20   10   0
    #          j2  0  10  20  10  4    2      40   20   10
    #          j3  5  20  20  0   1    1      0    15   15   (ran zero seconds)
    #          j4  2  2   6   4   2    0      8    4    0    (unassigned group)
    return make_schedule([0, 0, 5, 2], [0, 10, 20, 2], [10, 20, 20, 6], [2, 4, 1, 2], [1, 2, 1, 0], m=4)


def test_hand_computed_four_jobs():
    got = compute_metrics(four_jobs())
    # sum p m = 68; span = max C - min (C - p) = 20 - 0; UTIL = 100 * 68 / (4 * 20) = 85 %
    assert got["UTIL"] == pytest.approx(85.0)
    # AWRT = (20*10 + 40*20 + 0*15 + 8*4) / 68 = 1032 / 68
    assert got["AWRT"] == pytest.approx(1032 / 68)
    # group 1 = j1, j3: (20*10 + 0*15) / 20 = 10; group 2 = j2: 20; groups 3-5 have no jobs
    assert got["AWRT1"] == pytest.approx(10.0)
    assert got["AWRT2"] == pytest.approx(20.0)
    assert got["AWRT3"] is None and got["AWRT4"] is None and got["AWRT5"] is None
    # AWWT = (20*0 + 40*10 + 0*15 + 8*0) / 68 = 400 / 68
    assert got["AWWT"] == pytest.approx(400 / 68)
    assert got["mean_wait"] == pytest.approx((0 + 10 + 15 + 0) / 4)
    assert got["mean_response"] == pytest.approx((10 + 20 + 15 + 4) / 4)
    # slowdown over p > 0 only (j3 left out): (10/10 + 20/10 + 4/4) / 3
    assert got["mean_slowdown"] == pytest.approx(4 / 3)
    # bounded, bound 10: max(1, 10/10)=1, 20/10=2, 15/max(0,10)=1.5, max(1, 4/10)=1 -> 5.5 / 4
    assert got["mean_bounded_slowdown"] == pytest.approx(1.375)
    assert got["makespan"] == pytest.approx(20.0)  # max C - min r
    assert got["jobs"] == 4 and got["procs"] == 4


def test_bound_is_configurable():
    # bound 2: j1 1, j2 20/10 = 2, j3 15/max(0,2) = 7.5, j4 4/max(4,2) = 1 -> 11.5 / 4
    got = compute_metrics(four_jobs(), bound=2.0)
    assert got["mean_bounded_slowdown"] == pytest.approx(2.875)
    assert got.bound == 2.0
    # the bound changes nothing else but the per-group bounded slowdowns BSLD1..5
    default = compute_metrics(four_jobs())
    bounded = lambda k: k == "mean_bounded_slowdown" or k.startswith("BSLD")  # noqa: E731
    assert {k: v for k, v in got.items() if not bounded(k)} == {k: v for k, v in default.items() if not bounded(k)}
    assert got["BSLD1"] != default["BSLD1"]
    with pytest.raises(ValueError, match="bound"):
        compute_metrics(four_jobs(), bound=0)


def test_processing_time_is_the_killed_time_not_the_trace_runtime():
    # one job, runtime 100 but estimate 50: killed at 50, so p = 50 everywhere.
    # m = 2, job r=10 S=20 C=70 width 1: UTIL = 100 * 50 / (2 * (70 - 20)) = 50 %
    # AWRT = C - r = 60; AWWT = 10; slowdown = 60 / 50 = 1.2; makespan = 70 - 10 = 60
    s = make_schedule([10], [20], [70], [1], [3], m=2, runtime=[100], estimate=[50])
    got = compute_metrics(s)
    assert got["UTIL"] == pytest.approx(50.0)
    assert got["AWRT"] == pytest.approx(60.0) and got["AWRT3"] == pytest.approx(60.0)
    assert got["AWWT"] == pytest.approx(10.0)
    assert got["mean_slowdown"] == pytest.approx(1.2)
    assert got["mean_bounded_slowdown"] == pytest.approx(1.2)
    assert got["makespan"] == pytest.approx(60.0)


def test_group_with_only_zero_area_jobs_is_undefined():
    # group 4's only job ran 0 s: its weight p m is 0, so AWRT4 = 0/0 -> None, not 0 or NaN
    s = make_schedule([0, 0], [0, 3], [5, 3], [1, 1], [1, 4], m=1)
    got = compute_metrics(s)
    assert got["AWRT1"] == pytest.approx(5.0)
    assert got["AWRT4"] is None
    assert got["mean_slowdown"] == pytest.approx(1.0)  # only job 1 has p > 0: 5 / 5


def test_all_zero_runtime_jobs():
    # nothing ran: UTIL spans no time, AWRT has zero weight, no slowdown; bounded slowdown is
    # (3 - 0)/10 -> max(1, .3) = 1 for both
    s = make_schedule([0, 0], [0, 3], [0, 3], [1, 1], [1, 1], m=1)
    got = compute_metrics(s)
    assert got["UTIL"] == pytest.approx(0.0)  # 0 area over a 3 s span
    assert got["AWRT"] is None and got["AWWT"] is None and got["AWRT1"] is None
    assert got["mean_slowdown"] is None
    assert got["mean_bounded_slowdown"] == pytest.approx(1.0)
    assert got["mean_wait"] == pytest.approx(1.5)


def test_empty_schedule():
    s = make_schedule([], [], [], [], [], m=8)
    got = compute_metrics(s)
    assert got["jobs"] == 0 and got["procs"] == 8
    assert all(got[k] is None for k in METRIC_NAMES if k not in ("jobs", "procs"))


def test_metrics_is_a_read_only_mapping_in_fixed_order():
    got = compute_metrics(four_jobs())
    assert tuple(got) == METRIC_NAMES and len(got) == len(METRIC_NAMES)
    with pytest.raises(TypeError):
        got["AWRT"] = 1.0  # type: ignore[index]
    d = got.to_dict()
    assert list(d) == list(METRIC_NAMES)
    assert isinstance(d["jobs"], int) and isinstance(d["procs"], int)
    d["AWRT"] = -1.0  # a copy: the Metrics is unchanged
    assert got["AWRT"] == pytest.approx(1032 / 68)
    with pytest.raises(ValueError, match="missing"):
        Metrics({"jobs": 1})


# ---------------------------------------------------------------------------- properties
@st.composite
def schedules(draw):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 64))
    ints = st.integers(0, 10_000)
    submit = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    wait = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    p = np.array(draw(st.lists(st.integers(0, 5_000), min_size=n, max_size=n)), dtype=float)
    procs = draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    group = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    start = submit + wait
    return make_schedule(submit, start, start + p, procs, group, m=m)


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


@given(schedules())
def test_response_is_wait_plus_processing(s):
    got = compute_metrics(s)
    p = s.finish - s.start
    area = p * s.workload.procs
    assert _close(got["mean_response"], got["mean_wait"] + p.mean())
    if area.sum() > 0:
        # C - r = (S - r) + p  =>  AWRT = AWWT + sum p^2 m / sum p m
        assert _close(got["AWRT"], got["AWWT"] + float((area * p).sum() / area.sum()))
    # every slowdown is >= 1 because a response is never shorter than the processing time
    assert got["mean_bounded_slowdown"] >= 1.0
    if got["mean_slowdown"] is not None:
        assert got["mean_slowdown"] >= 1.0 - 1e-12


@given(schedules(), st.sets(st.sampled_from(METRIC_NAMES), max_size=4))
def test_only_some_metrics_are_the_same_bits_and_the_rest_none(s, names):
    """compute_metrics(only=...) (schedlab.gym's reward path) gives the requested metrics exactly as the
    whole set does and None for the others (jobs and procs always)."""
    whole, some = compute_metrics(s), compute_metrics(s, only=names)
    expect = set(names) | {"jobs", "procs"}
    for family in ({"mean_bounded_slowdown", *(f"BSLD{i}" for i in range(1, 6))}, {"max_user_AWRT", "mean_user_AWRT"}):
        if family & expect:
            expect |= family  # computed together (one array each)
    for k in METRIC_NAMES:
        assert some[k] == (whole[k] if k in expect else None), k


@given(schedules())
def test_awrt_is_the_weighted_mean_of_the_groups(s):
    got = compute_metrics(s)
    area = (s.finish - s.start) * s.workload.procs
    if area.sum() == 0:
        return
    total = 0.0
    for g in range(6):
        mask = s.workload.group == g
        if g and got[f"AWRT{g}"] is not None:
            total += got[f"AWRT{g}"] * area[mask].sum()
        elif g == 0:
            total += float((area[mask] * (s.finish - s.workload.submit)[mask]).sum())
        else:
            assert area[mask].sum() == 0  # None only for a group without weight
    assert _close(total / area.sum(), got["AWRT"])


@given(schedules(), st.integers(-1000, 1000), st.integers(1, 7), st.randoms(use_true_random=False))
def test_invariant_under_shift_permutation_and_scaled_by_time_units(s, shift, k, rnd):
    base = compute_metrics(s)
    w = s.workload
    order = list(range(len(w)))
    rnd.shuffle(order)
    # shifting every time by a constant and permuting the jobs changes nothing
    moved = make_schedule(w.submit[order] + shift, s.start[order] + shift, s.finish[order] + shift,
                          w.procs[order], w.group[order], m=s.machine.procs)
    got = compute_metrics(moved)
    assert all(_close(got[name], base[name]) for name in METRIC_NAMES)
    # measuring time in units k times smaller: times scale by k, ratios (UTIL, slowdown) do not
    scaled = compute_metrics(make_schedule(w.submit * k, s.start * k, s.finish * k, w.procs, w.group, m=s.machine.procs),
                             bound=10.0 * k)
    for name in ("AWRT", "AWWT", "mean_wait", "mean_response", "makespan", *(f"AWRT{i}" for i in range(1, 6))):
        assert _close(scaled[name], None if base[name] is None else base[name] * k)
    for name in ("UTIL", "mean_slowdown", "mean_bounded_slowdown"):
        assert _close(scaled[name], base[name])


def test_util_of_a_packed_machine_is_100_percent():
    # three full-width jobs back to back on m = 3 keep every processor busy from 0 to 30
    s = make_schedule([0, 0, 0], [0, 10, 20], [10, 20, 30], [3, 3, 3], [1, 2, 3], m=3)
    assert compute_metrics(s)["UTIL"] == pytest.approx(100.0)


# ---------------------------------------------------------------------------- real trace
@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_real_trace_agrees_with_an_independent_pandas_computation(policy):
    from conftest import trace_path
    from schedlab.sim import simulate
    from schedlab.sim.validate import validate_schedule
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace

    w = load_trace(str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")))
    s = simulate(w, Machine(w.machine_procs), Strategy(policy))
    validate_schedule(s)
    got = compute_metrics(s)
    df = s.to_dataframe()
    df["p"] = df.finish - df.start
    df["area"] = df.p * df.procs
    df["resp"] = df.finish - df.submit
    assert got["jobs"] == len(df) == len(w) and got["procs"] == 100
    # a valid schedule never has more than m processors busy, so UTIL <= 100 %
    assert 0 < got["UTIL"] <= 100
    assert got["UTIL"] == pytest.approx(100 * df.area.sum() / (100 * (df.finish.max() - df.start.min())), rel=1e-12)
    assert got["AWRT"] == pytest.approx((df.area * df.resp).sum() / df.area.sum(), rel=1e-12)
    by_group = df.groupby("group").apply(lambda g: (g.area * g.resp).sum() / g.area.sum(), include_groups=False)
    assert set(by_group.index) <= {0, 1, 2, 3, 4, 5}
    for i in range(1, 6):
        assert got[f"AWRT{i}"] == pytest.approx(by_group[i], rel=1e-12)  # KTH has jobs in every group
    # killing at the estimate: p is never longer than the estimate nor the trace runtime
    assert (df.p <= np.minimum(df.runtime, df.estimate)).all()
    assert got["mean_wait"] == pytest.approx((df.start - df.submit).mean())
    assert got["makespan"] == pytest.approx(df.finish.max() - df.submit.min())
