"""The shared validator rejects every kind of broken schedule, naming the job and the rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.sim import Machine, Schedule, ScheduleInvalid, simulate, validate_schedule
from schedlab.sim.validate import conservative_check
from schedlab.strategy import Criterion, Strategy
from schedlab.workload import Workload


def jobs(*rows, group=None):
    """Workload from rows (submit, procs, runtime, estimate)."""
    submit, procs, runtime, estimate = (np.array(c, dtype=float) for c in zip(*rows))
    cols = {"submit": submit, "procs": procs.astype(int), "runtime": runtime, "estimate": estimate}
    if group is not None:
        cols["group"] = group
    return Workload.from_columns(cols)


def schedule(w, m, strategy, start, kill=True):
    start = np.asarray(start, dtype=float)
    p = np.minimum(w.runtime, w.estimate) if kill else w.runtime
    return Schedule(w, Machine(m), strategy, start, start + p, killed=kill)


W3 = jobs((0, 2, 10, 10), (1, 3, 5, 5), (2, 2, 20, 20))  # on m = 4


def test_accepts_the_engine_schedule():
    validate_schedule(simulate(W3, Machine(4), Strategy("easy")))
    validate_schedule(schedule(W3, 4, Strategy("easy"), [0, 10, 15]))


def test_unscheduled_job():
    with pytest.raises(ScheduleInvalid, match="job 2 is not scheduled exactly once"):
        validate_schedule(schedule(W3, 4, Strategy("easy"), [0, np.nan, 15]))


def test_start_before_submit():
    with pytest.raises(ScheduleInvalid, match="job 3 starts at 1.0 before its submit time 2.0"):
        validate_schedule(schedule(W3, 4, None, [0, 10, 1]))


def test_finish_must_be_start_plus_processing_time():
    w = jobs((0, 1, 100, 10))
    s = Schedule(w, Machine(1), None, np.array([0.0]), np.array([100.0]), killed=True)
    with pytest.raises(ScheduleInvalid, match=r"job 1 finishes at 100.0, not start \+ min\(runtime, estimate\)"):
        validate_schedule(s)
    validate_schedule(Schedule(w, Machine(1), None, np.array([0.0]), np.array([100.0]), killed=False))


def test_capacity():
    # A (2) runs [0, 10); B (3) started at 5 would need 5 > 4 processors
    with pytest.raises(ScheduleInvalid, match="5 processors busy at time 5.0 .machine has 4. when job 2 starts"):
        validate_schedule(schedule(W3, 4, None, [0, 5, 15]))
    # back to back at the same time is fine: A ends at 10 when B starts
    validate_schedule(schedule(W3, 4, None, [0, 10, 15]))


def test_zero_length_job_needs_free_processors():
    w = jobs((0, 4, 10, 10), (0, 1, 0, 5))
    with pytest.raises(ScheduleInvalid, match="zero-length job 2 starts at 3.0 on 1 processors but 4 of 4"):
        validate_schedule(schedule(w, 4, None, [0, 3]))
    validate_schedule(schedule(w, 4, None, [0, 10]))


def test_fcfs_starts_in_queue_order():
    # FCFS: C starts at 2 while B (ahead in the queue) waits
    with pytest.raises(ScheduleInvalid, match="FCFS: job 3 starts at 2.0 before job 2"):
        validate_schedule(schedule(jobs((0, 3, 10, 10), (1, 2, 5, 5), (2, 1, 8, 8)), 4, Strategy("fcfs"), [0, 10, 2]))


def test_fcfs_with_greedy_order_starts_a_prefix_of_the_resorted_queue():
    # m = 1, A runs until 10; B group 2 (K 5) outranks C group 1 (K 1): C may not start first
    w = jobs((0, 1, 10, 10), (1, 1, 10, 10), (2, 1, 10, 10), group=[1, 2, 1])
    greedy = Strategy.greedy(Criterion("f2", K=(1, 5, 0, 0, 0)))
    validate_schedule(schedule(w, 1, greedy, [0, 10, 20]))
    with pytest.raises(ScheduleInvalid, match="FCFS: job 3 starts at 10.0 before job 2"):
        validate_schedule(schedule(w, 1, greedy, [0, 20, 10]))


def test_easy_must_not_delay_the_head():
    # t=2: C (2 processors until 22) would leave B (3) only 2 free at A's end 10: delays B to 22
    with pytest.raises(ScheduleInvalid, match=r"EASY: backfilling job\(s\) \[3\] at 2.0 delays the reservation "
                                              r"of head job 2 at 10.0: only 2 of its 3 processors are free"):
        validate_schedule(schedule(W3, 4, Strategy("easy"), [0, 22, 2]))


def test_conservative_must_not_delay_any_earlier_reservation():
    # EASY's legal schedule delays the second job C (reserved at 15) with D's backfill
    w = jobs((0, 2, 10, 10), (1, 3, 5, 5), (1, 4, 5, 5), (2, 1, 20, 20))
    validate_schedule(schedule(w, 4, Strategy("easy"), [0, 10, 22, 2]))
    with pytest.raises(ScheduleInvalid, match="conservative: job 4 starts at 2.0 but its earliest start .* is 20.0"):
        validate_schedule(schedule(w, 4, Strategy("conservative"), [0, 10, 22, 2]))
    validate_schedule(schedule(w, 4, Strategy("conservative"), [0, 10, 15, 20]))


def test_conservative_reservations_follow_the_queue_order():
    # m = 4, A (4 procs) runs [0, 10); C (3 procs, est 5) arrives at 1 before B (2 procs, est 10).
    # In submit order C is reserved at 10 and B at 15; ordered by width B comes first (10), C at 20
    w = jobs((0, 4, 10, 10), (1, 3, 5, 5), (2, 2, 10, 10))
    validate_schedule(schedule(w, 4, Strategy("conservative"), [0, 10, 15]))
    validate_schedule(schedule(w, 4, Strategy("conservative", "procs"), [0, 20, 10]))
    with pytest.raises(ScheduleInvalid, match="conservative: job 2 starts at 10.0 but its earliest start .* is 20.0"):
        validate_schedule(schedule(w, 4, Strategy("conservative", "procs"), [0, 10, 15]))


def test_easy_head_follows_the_queue_order():
    # the same jobs under EASY: by width B is the head at 10, and C may only backfill if it ends
    # by B's reservation; starting C (ends 15) at 10 leaves B 1 of 2 processors at 10
    w = jobs((0, 4, 10, 10), (1, 3, 5, 5), (2, 2, 10, 10))
    validate_schedule(schedule(w, 4, Strategy("easy"), [0, 10, 15]))
    with pytest.raises(ScheduleInvalid, match=r"EASY: backfilling job\(s\) \[2\] at 10.0 delays the reservation "
                                              r"of head job 3 at 10.0: only 1 of its 2"):
        validate_schedule(schedule(w, 4, Strategy("easy", "procs"), [0, 10, 15]))


def test_the_whole_schedule_is_replayed():
    # 3,000 one-processor jobs queue on m = 1; swapping the last two breaks FCFS only at the end
    n = 3000
    w = jobs(*[(i * 1e-3, 1, 10, 10) for i in range(n)])
    s = simulate(w, Machine(1), Strategy("fcfs"))
    validate_schedule(s)
    start = s.start.copy()
    start[[-2, -1]] = start[[-1, -2]]
    broken = schedule(w, 1, Strategy("fcfs"), start)
    with pytest.raises(ScheduleInvalid, match=f"FCFS: job {n} starts at {start[-1]} before job {n - 1}"):
        validate_schedule(broken)
    validate_schedule(broken, replay_until=start[-1] - 1)  # the option that stops the replay early


def brute_force_reservations(running, queue, m, t):
    """Each queued (width, duration) in order at the first of t and the booked ends where it
    fits beside every earlier booking at every booking start in its window (no profile)."""
    booked = [(t, end, w) for end, w in running]
    out = []
    for w, d in queue:
        for s in sorted({t} | {b for _, b, _ in booked}):
            points = [s] + [a for a, _, _ in booked if s < a < s + d]
            if all(sum(v for a, b, v in booked if a <= x < b) + w <= m for x in points):
                break
        else:
            raise AssertionError("the empty machine after the last booking must fit every job")
        booked.append((s, s + d, w))
        out.append(s)
    return out


@given(
    m=st.integers(1, 6),
    running=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 6)), max_size=5),
    queue=st.lists(st.tuples(st.integers(1, 6), st.integers(0, 15)), min_size=1, max_size=8),
    data=st.data(),
)
def test_conservative_walk_agrees_with_a_brute_force_reservation(m, running, queue, data):
    running = sorted((end, min(w, m)) for end, w in running)  # the replay hands them by estimated end
    while sum(w for _, w in running) > m:
        running.pop()
    queue = [(min(w, m), d) for w, d in queue]
    t = 0.0
    expected = brute_force_reservations(running, queue, m, t)
    # jobs: the running ones (start 0, estimate = end), then the queue (estimate = duration)
    est = np.array([e for e, _ in running] + [d for _, d in queue], dtype=float)
    procs = np.array([w for _, w in running] + [w for w, _ in queue], dtype=np.int64)
    start = np.zeros(len(est))
    walk = np.arange(len(running), len(est))
    flagged = data.draw(st.integers(0, len(queue) - 1))
    starts_now = np.zeros(len(queue), dtype=np.bool_)
    starts_now[flagged] = True
    i, s = conservative_check(np.arange(len(running)), walk, starts_now, start, est, procs, m, t)
    if expected[flagged] == t:
        assert i == -1
    else:
        assert (i, s) == (flagged, expected[flagged])
