"""SCOJO-PECT on the real traces of the thesis' experiments: SDSC-BLUE (1152) and LANL-CM5 (1024).
The first 4,000 jobs of each (keeps the suite fast; the whole traces run in benchmarks/), every
schedule through the shared validator."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import trace_path
from schedlab.metrics.timeshare import timeshare_metrics
from schedlab.sim import validate_schedule
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import load_trace


@pytest.fixture(scope="module", params=[("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152), ("LANL-CM5-1994-4.1-cln.swf.gz", 1024)],
                ids=["SDSC-BLUE", "LANL-CM5"])
def head(request):
    name, procs = request.param
    w = load_trace(str(trace_path(name)), procs=procs)
    return w.take(np.arange(4000)), procs


@pytest.mark.parametrize("cfg", [ScojoConfig(), ScojoConfig(smart_backfill=False), ScojoConfig(suspend="needed", cycle=1800)],
                         ids=["default", "no-smart", "needed-1800"])
def test_real_trace_head_valid(head, cfg):
    w, m = head
    s = simulate_scojo(w, m, cfg)
    validate_schedule(s)
    ts = s.timeshare
    assert ts.preemptions.sum() > 0
    # a job runs once more than it was suspended, or more often (pauses during switch overheads)
    assert np.all(np.bincount(ts.iv_job, minlength=len(w)) >= ts.preemptions + 1)
    # response includes suspended time: it is at least wait + run time
    assert np.all(s.finish - w.submit >= s.start - w.submit + s.processing - 1e-6)
    keys = timeshare_metrics(s)
    assert keys["preemptions"] == int(ts.preemptions.sum()) and keys["slices"] > 0
