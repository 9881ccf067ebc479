"""The standard-EASY checker (schedlab.sim.easy_check) on hand-worked schedules.

docs/accasim-comparison.md rests on this checker's counts, so it is tested on its own here:
it must pass a legal EASY schedule and flag each of the two deviations it names.
"""

from __future__ import annotations

import numpy as np

from schedlab.sim.easy_check import easy_deviations


def check(rows, m=4):
    """rows: (id, submit, start, end, procs, estimate)."""
    a = np.array(rows, dtype=float).T
    return easy_deviations(a[0].astype(int), a[1], a[2], a[3], a[4].astype(np.int64), a[5], m)


# m = 4.  A (r 0, 3 procs, est 10) runs [0, 10); B (r 1, 4 procs) is blocked: its reservation is 10.
# C (r 2, 1 proc) may backfill at 2 only if it ends (by estimate) by 10, since B leaves no spare processor.
def test_legal_easy_schedule_has_no_deviation():
    # C: estimate 5, runs [2, 7) -> ends before the reservation: legal.  B starts at 10 when A ends.
    found = check([(1, 0, 0, 10, 3, 10), (2, 1, 10, 20, 4, 10), (3, 2, 2, 7, 1, 5)])
    assert found == {"reservation broken": {}, "head held": {}}


def test_backfill_that_delays_the_reservation_is_flagged():
    # C: estimate 20, runs [2, 22): with C on 1 processor B cannot start before 22 -> reservation 10 -> 22
    found = check([(1, 0, 0, 10, 3, 10), (2, 1, 22, 32, 4, 10), (3, 2, 2, 22, 1, 20)])
    assert set(found["reservation broken"]) == {3}
    detail = found["reservation broken"][3]
    assert (detail["head"], detail["reservation_before"], detail["reservation_after"]) == (2, 10.0, 22.0)


def test_head_that_fitted_but_waited_is_flagged():
    # A (4 procs) runs [0, 10); B (2 procs, r 1) fits from 10 but starts only at 15
    found = check([(1, 0, 0, 10, 4, 10), (2, 1, 15, 20, 2, 5)])
    assert found["reservation broken"] == {}
    assert found["head held"][2]["fits_at"] == 10.0 and found["head held"][2]["lost_s"] == 5.0


def test_our_easy_on_a_real_trace_has_no_deviation():
    from conftest import trace_path
    from schedlab.sim import simulate, validate_schedule
    from schedlab.sim.model import Machine
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace

    w = load_trace(str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")))
    s = simulate(w, Machine(100), Strategy("easy"), kill=False)
    validate_schedule(s)
    found = easy_deviations(w.id, w.submit, s.start, s.finish, w.procs, w.estimate, 100)
    assert found == {"reservation broken": {}, "head held": {}}
    # and FCFS, which never backfills, holds no head either
    s = simulate(w, Machine(100), Strategy("fcfs"), kill=False)
    assert easy_deviations(w.id, w.submit, s.start, s.finish, w.procs, w.estimate, 100)["head held"] == {}
