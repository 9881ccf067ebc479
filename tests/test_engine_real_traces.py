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
#: METACENTRUM keeps ~5,600 jobs waiting on average: the plain-Python conservative replay walks
#: that queue at every start time (20k jobs take ~90 s), so it replays fewer there
REPLAY_JOBS_CONSERVATIVE = {"METACENTRUM-2009-2.swf.gz": 4_000}
#: conservative backfilling re-places every waiting job at each early finish (O(queue x profile));
#: RICC keeps ~700 jobs running and ~1,650 waiting on average, so its conservative run here
#: covers the first jobs only (a month takes about a minute: a known limit of the profile)
CONSERVATIVE_JOBS = {"RICC-2010-2.swf.gz": 10_000}
TRACES = sorted(p.name for p in WORKLOADS.glob("*.swf.gz")) if WORKLOADS.is_dir() else ["<missing>"]


@functools.lru_cache(maxsize=1)
def cleaned(name: str):
    """The trace read, cleaned and grouped, on its header's machine (headerless: its widest job).

    A trace whose offered load (sum of runtime x width over its span) exceeds 90 % of that
    machine (METACENTRUM's 60-processor widest job carries 300 busy processors on average; the
    synthetic lublin_256 is above 100 %) queues without bound, which tests only patience: it
    runs on a machine sized for 90 % load instead.
    """
    raw = read_trace(trace_path(name))
    w = load_trace(raw, procs=raw.machine_procs or int(job_width(raw).max()))
    load = float(np.sum(w.runtime * w.procs) / max(w.span, 1.0))
    if load > 0.9 * w.machine_procs:
        w = load_trace(raw, procs=int(np.ceil(load / 0.9)))
    return w


def test_the_trace_folder_is_complete():
    assert len(TRACES) >= 17, f"expected the 17 traces of MANIFEST.md in {WORKLOADS}, found {TRACES}"


@pytest.mark.parametrize("rule", ["fcfs", "list", "easy", "conservative"])
@pytest.mark.parametrize("name", TRACES)  # trace by trace, so the cache holds one
def test_trace_simulates_and_validates(name, rule):
    w = cleaned(name)
    if rule == "conservative" and name in CONSERVATIVE_JOBS:
        w = w.take(np.argsort(w.submit, kind="stable")[: CONSERVATIVE_JOBS[name]])
    s = simulate(w, Machine(w.machine_procs), Strategy(rule))
    replay = REPLAY_JOBS_CONSERVATIVE.get(name, REPLAY_JOBS) if rule == "conservative" else REPLAY_JOBS
    until = float(np.sort(w.submit)[min(replay, len(w)) - 1])
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
