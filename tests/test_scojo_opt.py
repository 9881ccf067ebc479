"""The group-optimised SCOJO-PECT and the bottom line in the time-sharing engine (issue 13): a
hand-worked group, real-trace and synthetic runs through the shared validator (which also checks
that no backfill delayed a planned job), determinism, bad options."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import trace_path
from schedlab.errors import StrategyError
from schedlab.sim import validate_schedule
from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import Workload, load_trace
from schedlab.workload.lublin import lublin


def _workload(rows, procs):
    submit, runtime, width = (list(c) for c in zip(*rows))
    return Workload.from_columns({"submit": submit, "runtime": runtime, "estimate": runtime, "procs": width},
                                 machine_procs=procs)


#: a long group of three jobs that the thresholds below let form at time 0
HAND = GroupConfig(group_min=(2, 10), size_factor=(1.0, 1.5), work_lambda=(1.0, 2.0))


def test_hand_worked_group():
    """m = 4, long jobs B (1 wide, 20,000 s), C (1, 40,000 s), A (4, 20,000 s) all submitted at 0,
    in that order; only long jobs, so there is no other slice and no overhead. Plain SCOJO-PECT
    is FIFO: B and C at 0, A at 40,000. The group (3 >= 2 jobs, 6 > 1.0 x 4 processors, work/m =
    35,000 > 1 x 15,000) is searched with response times stretched by 1 / 0.73: A first (bounded
    slowdowns 1.37 + 2.74 + 2.05 = 6.16) beats B, C first (1.37 + 1.37 + 4.11 = 6.85). Its plan: A
    at 0, B and C at 20,000; Fig. 8 keeps all three (utilization 1 at 20,000, 0.75 at 40,000 >= 0.5)."""
    w = _workload([(0, 20000, 1), (0, 40000, 1), (0, 20000, 4)], 4)
    plain = simulate_scojo(w, 4, ScojoConfig())
    validate_schedule(plain)
    assert list(plain.start) == [0.0, 0.0, 40000.0]
    opt = simulate_scojo(w, 4, ScojoConfig(optimizer=HAND))
    validate_schedule(opt)
    assert list(opt.start) == [20000.0, 20000.0, 0.0]
    stats = opt.timeshare.search_stats
    assert stats["groups_long"] == 1 and stats["groups_medium"] == 0 and stats["grouped_jobs"] == 3
    assert stats["explored_nodes"] > 0 and stats["plan_delays"] == 0
    # a smaller group size limit (2) leaves A out of the group: the first two are B and C
    small = simulate_scojo(w, 4, ScojoConfig(optimizer=GroupConfig(group_min=(2, 10), group_max=(2, 20),
                                                                   size_factor=(0.1, 1.5), work_lambda=(0.1, 2.0))))
    validate_schedule(small)
    assert list(small.start) == [0.0, 0.0, 40000.0]


CONFIGS = {
    "opt-dds": ScojoConfig(optimizer=GroupConfig(budget=2000)),
    "opt-lds-no-smart": ScojoConfig(smart_backfill=False, optimizer=GroupConfig(search="lds", budget=2000)),
    "opt-first-level": ScojoConfig(optimizer=GroupConfig(second_level=False)),
    "bottomline": ScojoConfig(optimizer=BottomLineConfig(budget=200)),
    "bottomline-no-smart": ScojoConfig(smart_backfill=False, optimizer=BottomLineConfig(budget=200)),
}


@pytest.fixture(scope="module")
def synthetic():
    return lublin(3000, 128, seed=71)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_synthetic_valid_and_groups(synthetic, name):
    cfg = CONFIGS[name]
    s = simulate_scojo(synthetic, 128, cfg)
    validate_schedule(s)  # includes rule 6: no backfill delayed a planned job
    stats = s.timeshare.search_stats
    assert stats["searches"] > 0 and stats["explored_nodes"] > 0
    if name.startswith("opt"):
        assert stats["groups"] > 0 and stats["groups"] == stats["groups_medium"] + stats["groups_long"]
        assert stats["grouped_jobs"] >= stats["groups"]
        if name != "opt-first-level":
            assert stats["schedules"] > stats["searches"]  # the second level generated schedules


def test_deterministic(synthetic):
    cfg = CONFIGS["opt-dds"]
    a = simulate_scojo(synthetic, 128, cfg)
    b = simulate_scojo(synthetic, 128, cfg)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.finish, b.finish)
    assert a.timeshare.search_stats == b.timeshare.search_stats


@pytest.mark.parametrize("name,procs", [("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152), ("LANL-CM5-1994-4.1-cln.swf.gz", 1024)],
                         ids=["SDSC-BLUE", "LANL-CM5"])
def test_real_trace_head(name, procs):
    w = load_trace(str(trace_path(name)), procs=procs)
    w = w.take(np.arange(3000))
    for cfg in (ScojoConfig(smart_backfill=False, optimizer=GroupConfig(budget=1000)),
                ScojoConfig(optimizer=BottomLineConfig(budget=100))):
        s = simulate_scojo(w, procs, cfg)
        validate_schedule(s)
        assert s.timeshare.search_stats["plan_delays"] == 0


def test_validator_rejects_a_delayed_plan(synthetic):
    from dataclasses import replace

    from schedlab.sim.validate import ScheduleInvalid

    s = simulate_scojo(synthetic.take(np.arange(500)), 128, CONFIGS["opt-dds"])
    bad = dict(s.timeshare.search_stats, plan_delays=1)
    object.__setattr__(s, "timeshare", replace(s.timeshare, search_stats=bad))
    with pytest.raises(ScheduleInvalid, match="delayed a planned job"):
        validate_schedule(s)


@pytest.mark.parametrize("kwargs", [{"search": "bfs"}, {"budget": 0}, {"group_min": (40, 10)},
                                    {"group_max": (100, 20)}, {"select": "best"}, {"force_shift_ratio": -1.0}])
def test_bad_group_options(kwargs):
    with pytest.raises(StrategyError):
        GroupConfig(**kwargs)
