"""The compiled SCOJO-PECT engine against the plain-Python reference (tests/support/scojo_naive.py) on
random small workloads: identical interval schedules (node sets, intervals, slices, overheads)."""

from __future__ import annotations


import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from schedlab.sim import validate_schedule
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import Workload
from support.scojo_naive import naive_scojo

# runtimes spanning the three classes (short < 600 <= medium < 10,800 <= long), small machines
job = st.tuples(
    st.integers(0, 4000),  # submit
    st.sampled_from([0, 30, 200, 590, 700, 2000, 5000, 11000, 15000]),  # runtime
    st.integers(1, 6),  # procs
    st.sampled_from([1.0, 1.0, 1.5, 3.0]),  # estimate / runtime
)
config = st.builds(
    ScojoConfig,
    shares=st.sampled_from([(0.73, 0.265, 0.005), (0.5, 0.5, 0.0), (0.4, 0.3, 0.3), (0.2, 0.2, 0.6)]),
    cycle=st.sampled_from([600.0, 1000.0, 3600.0]),
    overhead=st.sampled_from([0.0, 60.0]),
    smart_backfill=st.booleans(),
    order=st.sampled_from(["LSM", "SML"]),
    suspend=st.sampled_from(["all", "needed"]),
)


@given(jobs=st.lists(job, min_size=1, max_size=14), m=st.integers(6, 8), cfg=config)
def test_compiled_engine_equals_plain_python_reference(jobs, m, cfg):
    submit = [j[0] for j in jobs]
    runtime = [j[1] for j in jobs]
    procs = [j[2] for j in jobs]
    estimate = [max(1.0, np.ceil(r * f)) for r, f in zip(runtime, (j[3] for j in jobs))]
    w = Workload.from_columns({"submit": submit, "runtime": runtime, "estimate": estimate, "procs": procs},
                              machine_procs=m)
    s = simulate_scojo(w, m, cfg)
    validate_schedule(s)
    ref = naive_scojo(w, m, cfg)
    ts = s.timeshare
    assert s.start.tolist() == ref["first"]
    assert s.finish.tolist() == ref["finish"]
    for j in range(len(w)):
        assert ts.nodes_of(j).tolist() == ref["nodes"][j], j
        k = ts.iv_job == j
        assert list(zip(ts.iv_start[k].tolist(), ts.iv_end[k].tolist())) == ref["intervals"][j], j
    assert ts.preemptions.tolist() == ref["preemptions"]
    assert ts.overheads.tolist() == ref["overheads"]
    assert list(zip(ts.slice_class.tolist(), ts.slice_begin.tolist(), ts.slice_end.tolist())) == ref["slices"]


def test_reference_reproduces_a_hand_worked_case():
    # the first hand-worked case (tests/test_scojo_handworked.py): the reference on its own
    w = Workload.from_columns({"submit": [0, 0], "runtime": [20000, 1000], "estimate": [20000, 1000], "procs": [2, 4]})
    ref = naive_scojo(w, 4, ScojoConfig(shares=(0.5, 0.5, 0.0), cycle=1000.0))
    assert ref["intervals"] == [[(0, 500), (1120, 1620), (2240, 21240)], [(560, 1060), (1680, 2180)]]
    assert ref["overheads"] == [500, 1060, 1620, 2180]
