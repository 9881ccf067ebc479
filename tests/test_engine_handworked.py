"""Hand-worked schedules: small workloads whose start times are derived by hand in comments.

Notation: job(submit, width m_j, runtime, estimate). Semantics: genetic-fuzzy-rule-based-scheduling
Section 2.1; greedy-es-sorting-criteria Section III-A.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Criterion, Strategy
from schedlab.workload import Workload


def jobs(*rows, group=None):
    """Workload from rows (submit, procs, runtime, estimate)."""
    submit, procs, runtime, estimate = (np.array(c, dtype=float) for c in zip(*rows))
    cols = {"submit": submit, "procs": procs.astype(int), "runtime": runtime, "estimate": estimate}
    if group is not None:
        cols["group"] = group
    return Workload.from_columns(cols, name="hand")


def run(w, m, strategy, kill=True):
    s = simulate(w, Machine(m), strategy, kill=kill)
    validate_schedule(s)
    return s.start.tolist()


# m = 4.  A(0, 3, 10, 10)  B(1, 2, 5, 5)  C(2, 1, 8, 8)
BLOCKING = jobs((0, 3, 10, 10), (1, 2, 5, 5), (2, 1, 8, 8))


def test_fcfs_head_blocks_the_queue():
    # t=0: A starts (1 free). t=1: head B needs 2 > 1: waits. t=2: C would fit, but FCFS starts
    # only the head. t=10: A ends, 4 free: B starts (2 left), then C starts.
    assert run(BLOCKING, 4, Strategy("fcfs")) == [0, 10, 10]


def test_list_skips_a_job_that_does_not_fit():
    # t=1: B (2) does not fit in 1 free processor: skipped. t=2: C (1) fits: starts. t=10: B.
    assert run(BLOCKING, 4, Strategy("list")) == [0, 10, 2]


def test_easy_backfills_a_job_ending_by_the_reservation():
    # t=2: head B is reserved at A's estimated end 10 (1 + 3 = 4 free >= 2, spare 2).
    # C ends by its estimate at 2 + 8 = 10 <= 10 (at the reservation counts): backfilled at 2.
    assert run(BLOCKING, 4, Strategy("easy")) == [0, 10, 2]


def test_easy_backfills_on_the_spare_processors():
    # m = 4. A(0, 2, 10, 10)  B(1, 3, 5, 5)  C(2, 1, 20, 20).
    # t=1: B needs 3 > 2 free: reserved at 10, where 2 + 2 = 4 are free, spare 4 - 3 = 1.
    # t=2: C ends at 22 > 10 but needs only 1 <= spare 1: backfilled at 2. t=10: B starts on 3.
    w = jobs((0, 2, 10, 10), (1, 3, 5, 5), (2, 1, 20, 20))
    assert run(w, 4, Strategy("easy")) == [0, 10, 2]


def test_easy_job_that_would_delay_the_head_must_wait():
    # As above but C needs 2: it fits now (2 free) yet ends at 22 > 10 and 2 > spare 1: waits.
    # t=10: A ends, B starts (1 free); C (2) is the head, reserved at B's end 15: starts 15.
    w = jobs((0, 2, 10, 10), (1, 3, 5, 5), (2, 2, 20, 20))
    assert run(w, 4, Strategy("easy")) == [0, 10, 15]


# m = 4. A(0, 2, 10, 10)  B(1, 3, 5, 5)  C(1, 4, 5, 5)  D(2, 1, 20, 20)
SECOND_IN_LINE = jobs((0, 2, 10, 10), (1, 3, 5, 5), (1, 4, 5, 5), (2, 1, 20, 20))


def test_easy_backfill_may_delay_the_second_job():
    # t=2: head B reserved at 10 with spare 1; D (1 processor, ends 22) uses the spare: starts 2.
    # t=10: B starts (3 + D's 1 = 4 busy). t=15: B ends, but C needs all 4 and D holds one until 22.
    assert run(SECOND_IN_LINE, 4, Strategy("easy")) == [0, 10, 22, 2]


def test_conservative_refuses_the_backfill_easy_allows():
    # Reservations in queue order: B at 10 ([10,15) on 3), C at 15 ([15,20) on all 4).
    # t=2: D needs 1 processor for 20 s: [2,22) crosses C's reservation (0 free in [15,20)), and so
    # does every start before 20: D is reserved at 20. Then B 10, C 15, D 20 as reserved.
    assert run(SECOND_IN_LINE, 4, Strategy("conservative")) == [0, 10, 15, 20]


def test_conservative_recomputes_reservations_when_a_job_ends_early():
    # m = 2. A(0, 2, runtime 5, estimate 10)  B(1, 2, 5, 5): B reserved at A's estimated end 10,
    # but A ends at 5 < 10: reservations are recomputed and B starts at 5.
    w = jobs((0, 2, 5, 10), (1, 2, 5, 5))
    assert run(w, 2, Strategy("conservative")) == [0, 5]


def test_job_is_killed_at_its_estimate():
    # m = 2. A(0, 2, runtime 100, estimate 10), B(0, 2, 5, 5).
    # Killing: A is stopped at 0 + min(100, 10) = 10, so B starts 10 and A's finish is 10.
    # Without killing A runs its 100 s: B starts 100.
    w = jobs((0, 2, 100, 10), (0, 2, 5, 5))
    s = simulate(w, Machine(2), Strategy("fcfs"))
    validate_schedule(s)
    assert s.start.tolist() == [0, 10] and s.finish.tolist() == [10, 15]
    assert run(w, 2, Strategy("fcfs"), kill=False) == [0, 100]


def test_finish_and_arrival_at_one_timestamp():
    # m = 2. A(0, 2, 10, 10)  B(10, 2, 5, 5)  C(10, 1, 3, 3).
    # t=10: first A finishes (2 free), then B and C arrive (trace order), then ONE pass: FCFS
    # starts B (0 free), C waits for B's end at 15.
    w = jobs((0, 2, 10, 10), (10, 2, 5, 5), (10, 1, 3, 3))
    assert run(w, 2, Strategy("fcfs")) == [0, 10, 15]


def test_zero_length_job_frees_its_processors_at_the_same_time():
    # m = 1. A(0, 1, runtime 0, estimate 5), B(0, 1, 4, 4). t=0: A starts and ends at 0 (its
    # finish is an event at 0): a second pass at 0 starts B.
    w = jobs((0, 1, 0, 5), (0, 1, 4, 4))
    assert run(w, 1, Strategy("fcfs")) == [0, 0]


def test_greedy_orders_by_decreasing_criterion():
    # m = 1. A(0, 1, 10, 10) runs. B (group 2), C (group 1), D (group 0 -> group 5's parameters)
    # wait. f2 = K_i + a wait + b p m with a = b = 0 and K = (1, 5, 0, 0, 2): B 5, D 2, C 1.
    # t=10: B starts (ends 110), then D (110 -> 160), then C (160).
    w = jobs((0, 1, 10, 10), (1, 1, 100, 100), (2, 1, 5, 5), (3, 1, 50, 50), group=[1, 2, 1, 0])
    greedy = Strategy.greedy(Criterion("f2", K=(1, 5, 0, 0, 2)))
    assert run(w, 1, greedy) == [0, 10, 160, 110]


def test_greedy_waiting_time_lets_old_jobs_rise():
    # m = 1. A(0, 1, 10, 10); B(1, 1, 10, 10) group 2; C(9, 1, 10, 10) group 1.
    # f4 = w_i (K_i + a wait + b p / m), w = 1, a = 1, b = 0, K = (5, 0, ...).
    # t=10: B: 0 + 9 = 9; C: 5 + 1 = 6 -> B first (10), then C (20). With K_1 = 10 C leads: 11 > 9.
    w = jobs((0, 1, 10, 10), (1, 1, 10, 10), (9, 1, 10, 10), group=[1, 2, 1])
    assert run(w, 1, Strategy.greedy(Criterion("f4", a=1.0, K=(5, 0, 0, 0, 0)))) == [0, 10, 20]
    assert run(w, 1, Strategy.greedy(Criterion("f4", a=1.0, K=(10, 0, 0, 0, 0)))) == [0, 20, 10]


def test_static_orders():
    # m = 2. A(0, 2, 10, 10) runs; then B(1, 2, 30, 30) group 3, C(2, 1, 20, 20) group 2,
    # D(3, 1, 5, 5) group 1 wait; FCFS at t=10 in each order:
    w = jobs((0, 2, 10, 10), (1, 2, 30, 30), (2, 1, 20, 20), (3, 1, 5, 5), group=[1, 3, 2, 1])
    # submit: B (10-40), then C and D at 40
    assert run(w, 2, Strategy("fcfs", "submit")) == [0, 10, 40, 40]
    # procs: C, D (1 each, submit order) at 10; B at max(30, 15) = 30
    assert run(w, 2, Strategy("fcfs", "procs")) == [0, 30, 10, 10]
    # estimate: D (5), C (20) at 10; B (30) when both end: 30
    assert run(w, 2, Strategy("fcfs", "estimate")) == [0, 30, 10, 10]
    # group: D (1), C (2) at 10, B (3) at 30
    assert run(w, 2, Strategy("fcfs", "group")) == [0, 30, 10, 10]


@pytest.mark.parametrize(
    ("row", "m", "message"),
    [
        ((0, 500, 10, 10), 430, "job 1 needs 500 processors but the machine has 430"),
        ((0, 0, 10, 10), 4, "job 1 needs 0 processors"),
        ((0, 1, -5, 10), 4, "job 1 has negative runtime"),
        ((0, 1, 5, -1), 4, "clean the workload first"),
        ((0, 1, float("nan"), 10), 4, "job 1 has no valid runtime"),
    ],
)
def test_unclean_workloads_are_clear_errors(row, m, message):
    with pytest.raises(WorkloadError, match=message):
        simulate(jobs(row), Machine(m), Strategy("easy"))


def test_results_are_in_trace_order_when_the_trace_is_unsorted():
    # Trace order B(5, 1, 1, 1), A(0, 1, 10, 10) on m = 1: A starts 0, B waits until 10.
    w = jobs((5, 1, 1, 1), (0, 1, 10, 10))
    assert run(w, 1, Strategy("fcfs")) == [10, 0]
