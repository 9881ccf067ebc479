"""Time-of-week classes (greedy-es-sorting-criteria Sect. III-A) in the trace's own time zone."""

from __future__ import annotations

import time
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.workload import TIME_OF_WEEK_CLASSES, Workload, time_of_week_class, time_of_week_segments


def naive_class(t: float, start: int, zone: str) -> int:
    """Reference: the local wall clock of one instant, read with datetime."""
    local = datetime.fromtimestamp(start + t, tz=ZoneInfo(zone))
    if local.weekday() >= 5:
        return 0
    return 1 if 8 <= local.hour < 18 else 2


def trace(zone: str | None = "US/Eastern", start: int | None = 835823160) -> Workload:
    return Workload.from_columns({"submit": [0.0]}, unix_start=start, timezone=zone)


def test_class_names():
    assert TIME_OF_WEEK_CLASSES == ("weekend", "weekday 8-18", "weekday 18-8")


@pytest.mark.parametrize("zone,start", [("US/Eastern", 835823160), ("Europe/Stockholm", 843480031), ("US/Pacific", 1078605840)])
def test_vectorised_class_matches_wall_clock_over_a_year(zone, start):
    rng = np.random.default_rng(1)
    t = np.sort(rng.uniform(0, 366 * 86400, 3000))
    # also exact switch instants and the second before them, on DST change days
    w = trace(zone, start)
    bounds, _ = time_of_week_segments(w, 0, 366 * 86400)
    t = np.concatenate([t, bounds, bounds - 1])
    t = t[t >= 0]
    got = time_of_week_class(w, t)
    want = np.array([naive_class(x, start, zone) for x in t])
    assert got.dtype == np.int64 and np.array_equal(got, want)


def test_known_instants_and_dst():
    w = trace("US/Eastern", 0)
    ts = lambda *a: datetime(*a, tzinfo=ZoneInfo("US/Eastern")).timestamp()  # noqa: E731
    assert time_of_week_class(w, ts(1997, 4, 7, 7, 59, 59)) == 2  # Monday after spring-forward
    assert time_of_week_class(w, ts(1997, 4, 7, 8)) == 1
    assert time_of_week_class(w, ts(1997, 4, 4, 18)) == 2  # Friday evening
    assert time_of_week_class(w, ts(1997, 4, 5, 12)) == 0  # Saturday
    assert isinstance(time_of_week_class(w, ts(1997, 4, 5, 12)), int)
    # Sunday 6 April 1997 has 23 hours (spring forward): the switches follow the local clock
    b, c = time_of_week_segments(w, ts(1997, 4, 5, 12), ts(1997, 4, 8, 0))
    assert b.tolist() == [ts(1997, 4, 5, 12), ts(1997, 4, 7, 0), ts(1997, 4, 7, 8), ts(1997, 4, 7, 18)]
    assert c.tolist() == [0, 2, 1, 2]
    assert b[2] - b[1] == 8 * 3600 and ts(1997, 4, 7, 0) - ts(1997, 4, 6, 0) == 23 * 3600


def test_unknown_start_is_epoch_zero_utc():
    w = trace(None, None)  # 1 Jan 1970 00:00 UTC was a Thursday
    assert time_of_week_class(w, np.array([0.0, 8 * 3600, 18 * 3600, 2 * 86400])).tolist() == [2, 1, 2, 0]


def test_segments_shape_and_cost():
    w = trace()
    t0 = time.perf_counter()
    b, c = time_of_week_segments(w, 1234.5, 365 * 86400)
    took = time.perf_counter() - t0
    assert b[0] == 1234.5 and b.dtype == np.float64 and c.dtype == np.int64
    assert np.all(np.diff(b) > 0) and np.all(c[1:] != c[:-1]) and b[-1] <= 365 * 86400
    assert 600 <= len(b) <= 640  # 12 switches a week
    assert took < 0.2
    # a single instant: one segment
    b, c = time_of_week_segments(w, 100.0, 100.0)
    assert b.tolist() == [100.0] and c.tolist() == [naive_class(100.0, 835823160, "US/Eastern")]


def test_bad_input():
    with pytest.raises(WorkloadError, match="time zone"):
        time_of_week_class(trace("Mars/Olympus"), 0.0)
    with pytest.raises(WorkloadError):
        time_of_week_segments(trace(), 10.0, 5.0)
    with pytest.raises(WorkloadError):
        time_of_week_class(trace(), np.array([np.nan]))
