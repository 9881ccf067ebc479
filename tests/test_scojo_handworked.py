"""SCOJO-PECT on small cases worked out by hand (the traces of every event are in the comments).

Common set-up: cycle 1000 s, shares long 0.5 / medium 0.5 / short 0 (a short slice then gets the
60 s minimum), switch overhead 60 s, order L, S, M. Estimates are exact. Classes: short < 600 s,
medium < 10,800 s, long >= 10,800 s.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab.errors import StrategyError
from schedlab.sim import ScheduleInvalid, validate_schedule
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import Workload

CFG = ScojoConfig(shares=(0.5, 0.5, 0.0), cycle=1000.0, overhead=60.0)


def wl(submit, runtime, procs, m):
    return Workload.from_columns(
        {"submit": submit, "runtime": runtime, "estimate": runtime, "procs": procs}, machine_procs=m
    )


def intervals(s, j):
    ts = s.timeshare
    k = ts.iv_job == j
    return list(zip(ts.iv_start[k].tolist(), ts.iv_end[k].tolist()))


def test_slice_end_mid_job_suspends_and_resumes_on_same_nodes_with_the_60s_overhead():
    # m = 4. A: long 20,000 s on 2 nodes; B: medium 1,000 s on 4 nodes; both at 0.
    # 0: cycle L 500 / M 500; L slice [0, 500): A on nodes 0, 1 (B does not fit beside it).
    # 500: L -> M: A suspended (holds 0, 1); overhead [500, 560); B starts on 0-3 at 560.
    # 1060: new cycle L/M; B suspended after 500 s; overhead; A resumes on 0, 1 at 1120.
    # 1620: L -> M: A suspended; overhead; B resumes on 0-3 at 1680 with 500 s left, ends 2180.
    # 2180: only L has work: cycle L 1000; overhead (A resumes); A runs from 2240 to the end:
    #       19,000 s left after 1,000 s of progress -> finishes at 21,240.
    s = simulate_scojo(wl([0, 0], [20000, 1000], [2, 4], 4), 4, CFG)
    validate_schedule(s)
    ts = s.timeshare
    assert intervals(s, 0) == [(0, 500), (1120, 1620), (2240, 21240)]
    assert intervals(s, 1) == [(560, 1060), (1680, 2180)]
    assert ts.nodes_of(0).tolist() == [0, 1] and ts.nodes_of(1).tolist() == [0, 1, 2, 3]
    assert ts.preemptions.tolist() == [2, 1]
    assert ts.overheads.tolist() == [500, 1060, 1620, 2180]
    assert s.start.tolist() == [0, 560] and s.finish.tolist() == [21240, 2180]
    # the 60 s overhead: without it every switch is immediate
    s0 = simulate_scojo(wl([0, 0], [20000, 1000], [2, 4], 4), 4, dataclasses.replace(CFG, overhead=0.0))
    validate_schedule(s0)
    assert intervals(s0, 1) == [(500, 1000), (1500, 2000)]
    assert s0.timeshare.overheads.size == 0


def test_short_job_smart_backfilled_into_long_slice_is_suspended_when_owner_returns():
    # m = 2. M1: medium 5,000 s on 2 nodes; L1: long 20,000 s on 1 node (both at 0); S1: short
    # 500 s on 1 node at 1,200.
    # 0: L slice [0, 500): L1 on node 0. 500: L1 suspended, overhead, M1 on 0, 1 at 560.
    # 1060: L slice again: M1 suspended (holds 0, 1), L1 resumes on 0 at 1120.
    # 1200: S1 arrives in the long slice: smart backfilled on the free node 1 (held by the
    #       preempted M1, but not by a preempted short job).
    # 1620: L -> M: the owner of node 1 returns: S1 (420 s done) suspended with L1; M1 resumes at 1680.
    # 2180: new cycle L, S, M: L1 resumes at 2240 and S1 is smart backfilled back on node 1, 80 s left.
    s = simulate_scojo(wl([0, 0, 1200], [5000, 20000, 500], [2, 1, 1], 2), 2, CFG)
    validate_schedule(s)
    ts = s.timeshare
    assert intervals(s, 2) == [(1200, 1620), (2240, 2320)]
    assert ts.nodes_of(2).tolist() == [1]
    assert ts.preemptions[2] == 1
    assert intervals(s, 0)[:2] == [(560, 1060), (1680, 2180)]
    assert intervals(s, 1)[:3] == [(0, 500), (1120, 1620), (2240, 2740)]
    assert ts.job_class.tolist() == [1, 2, 0]


def test_new_job_refused_the_nodes_of_a_preempted_job_of_its_class():
    # m = 2. L1: long 11,000 s on 2 nodes at 0; M1: medium 3,000 s on 1 node at 0; L2: long
    # 11,000 s on 1 node at 700.
    # 500: L1 suspended holding 0, 1; M1 starts on node 0 at 560 (held by a long job, not a medium one).
    # 700: L2 arrives; node 1 is free but held by the preempted L1 of its class: refused. L1
    #      cannot resume (node 0 busy). Node 1 stays idle until 1,060.
    # L1 resumes in every long slice on 0, 1; L2 never gets a node before L1 has finished.
    s = simulate_scojo(wl([0, 0, 700], [11000, 3000, 11000], [2, 1, 1], 2), 2, CFG)
    validate_schedule(s)
    ts = s.timeshare
    assert s.start[2] == s.finish[0]
    on_node1 = [(a, b) for j in range(3) if 1 in ts.nodes_of(j) for a, b in intervals(s, j)]
    assert not any(a < 1060 and b > 700 for a, b in on_node1)
    assert intervals(s, 1)[0] == (560, 1060) and ts.nodes_of(1).tolist() == [0]
    # the validator refuses the schedule that gives L2 the free node 1 at 700 for 300 s (and
    # shortens its real run by as much)
    f = s.finish[0]
    assert intervals(s, 2) == [(f, f + 11000)]
    keep = ts.iv_job != 2
    job = np.concatenate([ts.iv_job[keep], [2, 2]])
    a = np.concatenate([ts.iv_start[keep], [700.0, f + 300]])
    b = np.concatenate([ts.iv_end[keep], [1000.0, f + 11000]])
    o = np.lexsort((a, job))
    ts_bad = dataclasses.replace(ts, node_ids=np.array([0, 1, 0, 1]), iv_job=job[o], iv_start=a[o], iv_end=b[o])
    bad = dataclasses.replace(s, timeshare=ts_bad, start=np.array([s.start[0], s.start[1], 700.0]))
    with pytest.raises(ScheduleInvalid, match="held by a preempted job"):
        validate_schedule(bad)


def test_validator_catches_broken_time_shared_schedules():
    s = simulate_scojo(wl([0, 0], [20000, 1000], [2, 4], 4), 4, CFG)
    ts = s.timeshare
    # progress during the overhead [500, 560): B starts at 530 instead of 560 (and ends 30 s earlier)
    iv_s = ts.iv_start.copy(); iv_e = ts.iv_end.copy()
    k = np.flatnonzero(ts.iv_job == 1)[0]
    iv_s[k] -= 30; iv_e[k] -= 30
    bad = dataclasses.replace(s, timeshare=dataclasses.replace(ts, iv_start=iv_s, iv_end=iv_e),
                              start=np.array([0.0, 530.0]))
    with pytest.raises(ScheduleInvalid, match="switch overhead"):
        validate_schedule(bad)
    # lost progress: B's last interval shortened
    iv_e = ts.iv_end.copy(); iv_e[np.flatnonzero(ts.iv_job == 1)[-1]] -= 10
    bad = dataclasses.replace(s, timeshare=dataclasses.replace(ts, iv_end=iv_e), finish=np.array([21240.0, 2170.0]))
    with pytest.raises(ScheduleInvalid, match="ran 990"):
        validate_schedule(bad)
    # double booking: A's node set moved onto B's while both run (overhead 0 schedule: A's last
    # interval overlaps nothing, so give B A's first-slice time instead)
    iv_s = ts.iv_start.copy(); iv_e = ts.iv_end.copy()
    k = np.flatnonzero(ts.iv_job == 1)[0]
    iv_s[k], iv_e[k] = 0.0, 500.0
    bad = dataclasses.replace(s, timeshare=dataclasses.replace(ts, iv_start=iv_s, iv_end=iv_e), start=np.array([0.0, 0.0]))
    with pytest.raises(ScheduleInvalid, match="double-booked"):
        validate_schedule(bad)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"shares": (0.5, 0.4, 0.2)}, "sum to 1"),
        ({"cycle": -5.0}, "cycle must be a positive"),
        ({"order": "LLS"}, "permutation"),
        ({"suspend": "some"}, "suspend"),
        ({"shares": (0.5, 0.6, -0.1)}, ">= 0"),
    ],
)
def test_bad_config_is_a_clear_error(kwargs, message):
    with pytest.raises(StrategyError, match=message):
        ScojoConfig(**kwargs)


def test_rigid_schedules_unchanged_by_interval_representation():
    from schedlab.metrics import compute_metrics
    from schedlab.sim import Machine, simulate
    from schedlab.strategy import Strategy

    w = wl([0, 10, 20], [100, 50, 30], [2, 2, 1], 4)
    s = simulate(w, Machine(4), Strategy("easy"))
    assert s.timeshare is None
    assert np.array_equal(s.processing, s.finish - s.start)
    m = compute_metrics(s)
    assert m["UTIL"] == pytest.approx(100 * (200 + 100 + 30) / (4 * 100))


def test_time_of_day_share_schedule_sets_slice_lengths_by_hour():
    # m = 4; a long and a wide medium job keep both classes busy for hours. Hour 0: L/M 0.5/0.5,
    # later hours 0.9/0.1. A cycle is L 500 + 60 + M 500 + 60 = 1,120 s in hour 0; new cycles are
    # drawn up at the boundaries 1060, 2180, 3300 (hour 0: slices 500/500, the long one beginning
    # after the overhead at 1120, 2240, 3360) and 4420 (hour 1: slices 900/100).
    table = ((0.5, 0.5, 0.0),) + ((0.9, 0.1, 0.0),) * 23
    cfg = dataclasses.replace(CFG, share_schedule=table)
    s = simulate_scojo(wl([0, 0], [20000, 8000], [2, 4], 4), 4, cfg)
    validate_schedule(s)
    ts = s.timeshare
    slices = list(zip(ts.slice_class.tolist(), (ts.slice_end - ts.slice_begin).tolist(), ts.slice_begin.tolist()))
    assert slices[:8] == [(2, 500, 0), (1, 500, 560), (2, 500, 1120), (1, 500, 1680), (2, 500, 2240), (1, 500, 2800),
                          (2, 500, 3360), (1, 500, 3920)]
    assert slices[8:10] == [(2, 900, 4480), (1, 100, 5440)]
    with pytest.raises(StrategyError, match="24 rows"):
        ScojoConfig(share_schedule=table[:5])
