"""Time-of-week classes of simulation time (greedy-es-sorting-criteria, Sect. III-A).

The queue is reordered by a different criterion in three situations: weekends (class 0), week
days between 8 am and 6 pm (class 1) and week days between 6 pm and 8 am (class 2), local time in
the trace's time zone (its TimeZoneString; zoneinfo makes the switch points DST-correct).
Simulation time t stands for the epoch second ``unix_start + t``; a trace without
UnixStartTime/TimeZoneString is taken to start at epoch 0 UTC.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from ..errors import WorkloadError
from .model import Workload
from .timezone import trace_epoch, trace_zone

__all__ = ["TIME_OF_WEEK_CLASSES", "time_of_week_class", "time_of_week_segments"]

#: class index -> meaning (the order of `Greedy.per_class()`)
TIME_OF_WEEK_CLASSES: tuple[str, ...] = ("weekend", "weekday 8-18", "weekday 18-8")
WEEKEND, DAY, NIGHT = 0, 1, 2
#: local hours at which the class may change, and the class from then on for a week day
_SWITCHES = ((0, NIGHT), (8, DAY), (18, NIGHT))


def time_of_week_segments(workload: Workload, t_start: float, t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Piecewise-constant classes on [t_start, t_end]: ``(bounds float64[k], classes int64[k])``.

    Time t (seconds of simulation time) is in class ``classes[i]`` for
    ``bounds[i] <= t < bounds[i+1]`` (the last segment runs past ``t_end``); ``bounds[0] == t_start``
    and consecutive classes differ, so a year has about 3 * 52 * 5 ~ 800 bounds.
    """
    t_start, t_end = float(t_start), float(t_end)
    if not (np.isfinite(t_start) and np.isfinite(t_end)) or t_end < t_start:
        raise WorkloadError(f"need finite t_start <= t_end, got [{t_start}, {t_end}]")
    zone = trace_zone(workload)
    epoch = trace_epoch(workload)
    first = datetime.fromtimestamp(epoch + t_start, tz=zone).date()
    last = datetime.fromtimestamp(epoch + t_end, tz=zone).date()
    days = (last - first).days + 1
    times: list[float] = []
    classes: list[int] = []
    for d in range(days):
        day = first + timedelta(days=d)
        weekend = day.weekday() >= 5
        for hour, cls in _SWITCHES:
            local = datetime(day.year, day.month, day.day, hour, tzinfo=zone)
            times.append(local.timestamp() - epoch)
            classes.append(WEEKEND if weekend else cls)
    bounds = np.asarray(times, dtype=np.float64)
    cls_arr = np.asarray(classes, dtype=np.int64)
    # the class at t_start is that of the last switch at or before it
    i0 = max(int(np.searchsorted(bounds, t_start, side="right")) - 1, 0)
    inside = (bounds > t_start) & (bounds <= t_end)
    bounds = np.concatenate(([t_start], bounds[inside]))
    cls_arr = np.concatenate((cls_arr[i0 : i0 + 1], cls_arr[inside]))
    change = np.ones(len(bounds), dtype=bool)
    change[1:] = cls_arr[1:] != cls_arr[:-1]
    return bounds[change], cls_arr[change]


def time_of_week_class(workload: Workload, t: float | np.ndarray) -> int | np.ndarray:
    """The time-of-week class (0 weekend, 1 weekday 8-18, 2 weekday 18-8) of simulation time t.

    Vectorised: an array of times gives an int64 array of classes.
    """
    arr = np.asarray(t, dtype=np.float64)
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.int64)
    if not np.isfinite(arr).all():
        raise WorkloadError("time-of-week class needs finite times")
    bounds, classes = time_of_week_segments(workload, float(arr.min()), float(arr.max()))
    out = classes[np.searchsorted(bounds, arr, side="right") - 1]
    return int(out) if arr.ndim == 0 else out
