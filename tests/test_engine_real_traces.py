"""Every real trace in ../shared/workloads simulates under all four dispatch rules and the
shared validator passes on the whole schedule: capacity, submit, processing times, exactly-once
and each rule's queue/reservation replay (FCFS order, EASY's head reservation, conservative's
earlier reservations) over every start time of the trace.

Machine size: the trace's header (MaxProcs, else MaxNodes), whatever the offered load; a queue
that grows is what the trace asks of the machine, not a reason to change it (lublin_256: header
MaxNodes 256, offered load ~106 % of it). Headerless copies take the size their archive states:
RICC-2010-2 is 8192 processors (1024 nodes x 8 cores; MANIFEST.md, = its widest job) and
METACENTRUM-2009-2 is 806 (14 clusters, 806 processors in total: the Parallel Workloads Archive
page of the log, cs.huji.ac.il/labs/parallel/workload/l_metacentrum; its widest job is 60, on
which the ~300 busy processors of offered load could never run). A headerless trace without a
stated size would get the smallest machine that keeps its offered load <= 100 %.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import BUNDLED_KTH, WORKLOADS, require_workloads, trace_path
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Criterion, Greedy, Strategy
from schedlab.workload import job_width, load_trace, read_trace

#: machine sizes that the archive states for traces whose copy here lost its header
STATED_PROCS = {"METACENTRUM-2009-2.swf.gz": 806, "RICC-2010-2.swf.gz": 8192}
#: conservative backfilling re-places the waiting jobs at each early finish, up to the last one
#: that may still start (O(jobs re-placed x profile)); RICC keeps ~700 jobs running and ~1,650
#: waiting on average and re-places ~275 a pass, so its whole conservative run still takes
#: ~85 s (benchmarks/speed/bench_revs.py, e833eb1): its run here covers the first jobs only, and the
#: whole trace is checked by ``python tests/support/golden_cases.py --check --only RICC``
CONSERVATIVE_JOBS = {"RICC-2010-2.swf.gz": 10_000}
TRACES = sorted(p.name for p in WORKLOADS.glob("*.swf.gz")) if WORKLOADS.is_dir() else ["(no traces folder)"]


@functools.lru_cache(maxsize=1)
def cleaned(name: str):
    """The trace read, cleaned and grouped, on its header's (or archive's stated) machine."""
    raw = read_trace(trace_path(name))
    procs = raw.machine_procs or STATED_PROCS.get(name)
    if procs is None:  # no stated size: the smallest machine that carries the offered load
        w = load_trace(raw, procs=int(job_width(raw).max()))
        procs = max(w.machine_procs, int(np.ceil(np.sum(w.runtime * w.procs) / max(w.span, 1.0))))
    return load_trace(raw, procs=procs)


def test_headerless_traces_get_their_stated_size_and_headers_win():
    assert cleaned("METACENTRUM-2009-2.swf.gz").machine_procs == 806
    assert cleaned("RICC-2010-2.swf.gz").machine_procs == 8192
    assert cleaned("lublin_256.swf.gz").machine_procs == 256  # header MaxNodes, though overloaded


def test_the_trace_folder_is_complete():
    require_workloads()
    assert len(TRACES) >= 17, f"expected the 17 traces of MANIFEST.md in {WORKLOADS}, found {TRACES}"


@pytest.mark.parametrize("rule", ["fcfs", "list", "easy", "conservative"])
# trace by trace, so the cache holds one; the bundled KTH-SP2 in the fast tier, the whole other traces slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n == BUNDLED_KTH.name else pytest.mark.slow) for n in TRACES])
def test_trace_simulates_and_validates(name, rule):
    w = cleaned(name)
    if rule == "conservative" and name in CONSERVATIVE_JOBS:
        w = w.take(np.argsort(w.submit, kind="stable")[: CONSERVATIVE_JOBS[name]])
    s = simulate(w, Machine(w.machine_procs), Strategy(rule))
    validate_schedule(s)
    assert np.all(s.start >= w.submit) and len(s.start) == len(w) > 0


@pytest.mark.parametrize(
    "order",
    [
        Greedy((Criterion("f2", a=0.3, b=0.1, K=(5, 4, 0, 0, 0)),)),
        # a different criterion per time-of-week class: the queue is re-sorted wholesale at
        # every class change (the engine's fallback from its incremental insertion sort)
        Greedy((Criterion("f1", a=0.5, b=0.2, K=(1, 1, 0, 0, 0)), Criterion("f3", a=0.9, w=(1, 0.9, 0.5, 0.5, 0.1)),
                Criterion("f4", a=0.2, b=0.9, K=(0, 0, 0, 2, 5)))),
    ],
    ids=["f2", "f1-f3-f4"],
)
@pytest.mark.slow
def test_greedy_on_ctc_validates(order):
    w = cleaned("CTC-SP2-1996-3.1-cln.swf.gz")
    s = simulate(w, Machine(430), Strategy("fcfs", order))
    validate_schedule(s)
    assert np.all(s.finish >= s.start)
