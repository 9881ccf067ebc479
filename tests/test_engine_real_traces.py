"""Every real trace in ../shared/workloads simulates under all four dispatch rules and the
shared validator passes: capacity, submit, processing times and exactly-once on the whole
schedule; each rule's queue/reservation replay over the first REPLAY_JOBS jobs' time span (the
replay is plain Python, about 50 us a job; the whole-trace replay is in the note's figures)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import WORKLOADS, trace_path
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Criterion, Greedy, Strategy
from schedlab.workload import job_width, load_trace, read_trace

REPLAY_JOBS = 20_000
TRACES = sorted(p.name for p in WORKLOADS.glob("*.swf.gz")) if WORKLOADS.is_dir() else ["<missing>"]


@functools.lru_cache(maxsize=1)
def cleaned(name: str):
    """The trace read, cleaned and grouped; headerless traces run on their widest job."""
    raw = read_trace(trace_path(name))
    procs = raw.machine_procs or int(job_width(raw).max())
    return load_trace(raw, procs=procs)


def test_the_trace_folder_is_complete():
    assert len(TRACES) >= 17, f"expected the 17 traces of MANIFEST.md in {WORKLOADS}, found {TRACES}"


@pytest.mark.parametrize("rule", ["fcfs", "list", "easy", "conservative"])
@pytest.mark.parametrize("name", TRACES)  # trace by trace, so the cache holds one
def test_trace_simulates_and_validates(name, rule):
    w = cleaned(name)
    s = simulate(w, Machine(w.machine_procs), Strategy(rule))
    until = float(np.sort(w.submit)[min(REPLAY_JOBS, len(w)) - 1])
    validate_schedule(s, replay_until=until)
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
def test_greedy_on_ctc_validates(order):
    w = cleaned("CTC-SP2-1996-3.1-cln.swf.gz")
    s = simulate(w, Machine(430), Strategy("fcfs", order))
    validate_schedule(s, replay_until=float(np.sort(w.submit)[REPLAY_JOBS - 1]))
    assert np.all(s.finish >= s.start)
