"""Calendar-month cuts and user groups (greedy-es-sorting-criteria Table II)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.workload import Workload, assign_groups, cut_months, group_shares
from schedlab.workload.cut import add_months

DAY = 86400.0


def test_add_months_clamps_day():
    tz = ZoneInfo("Europe/Stockholm")
    assert add_months(datetime(2021, 1, 31, 12, tzinfo=tz), 1) == datetime(2021, 2, 28, 12, tzinfo=tz)
    assert add_months(datetime(2021, 11, 5, tzinfo=tz), 3) == datetime(2022, 2, 5, tzinfo=tz)


def test_cut_is_calendar_months_in_local_time_across_dst():
    # trace starts 1996-09-23 14:00:31 CEST (KTH-SP2's UnixStartTime); 2 months later is
    # 1996-11-23 14:00:31 CET: 61 days + 1 hour (DST ended on Oct 27), in local wall-clock time
    start = 843480031
    end = datetime(1996, 11, 23, 14, 0, 31, tzinfo=ZoneInfo("Europe/Stockholm")).timestamp() - start
    assert end == 61 * DAY + 3600
    submit = [100.0, 5000.0, end - 1, end, end + 10]
    w = Workload.from_columns(
        {"submit": submit, "runtime": [1] * 5, "procs": [1] * 5},
        unix_start=start,
        timezone="Europe/Stockholm",
        header=(" UnixStartTime: 843480031",),
    )
    c = cut_months(w, 2)
    assert len(c) == 3
    assert c.submit.tolist() == [0.0, 4900.0, end - 101]
    assert c.unix_start == start + 100 and c.header == (" UnixStartTime: 843480131",)


def test_cut_without_time_zone_uses_utc_and_checks_months():
    w = Workload.from_columns({"submit": [0.0, 30 * DAY, 31 * DAY, 40 * DAY], "runtime": [1] * 4, "procs": [1] * 4})
    assert len(cut_months(w, 1)) == 2  # epoch 0 = 1 Jan 1970 UTC; 1 Feb is day 31
    with pytest.raises(WorkloadError):
        cut_months(w, 0)


def shares_workload(shares: dict[int, float]) -> Workload:
    users = list(shares)
    # one job per user with runtime*procs proportional to the share (procs 1)
    return Workload.from_columns(
        {"user": users, "runtime": [shares[u] * 1e6 for u in users], "procs": [1] * len(users), "submit": [0] * len(users)}
    )


def test_more_months_than_the_calendar_holds_keep_the_whole_trace():
    w = Workload.from_columns({"submit": np.array([0.0, 5e7]), "runtime": np.ones(2), "procs": np.ones(2, dtype=np.int64)},
                              machine_procs=4)
    assert len(cut_months(w, 10**9)) == 2 and len(cut_months(w, 1)) == 1


def test_group_boundaries_follow_table_ii():
    shares = {1: 0.081, 2: 0.08, 3: 0.02, 4: 0.0199, 5: 0.01, 6: 0.0099, 7: 0.001, 8: 0.0009}
    rest = 1 - sum(shares.values())
    shares[9] = rest  # one heavy user takes the rest (> 8 %)
    g = assign_groups(shares_workload(shares))
    assert dict(zip(g.user.tolist(), g.group.tolist())) == {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4, 8: 5, 9: 1}


def test_groups_sum_user_consumption_and_unknown_user_is_one_pseudo_user():
    # user -1 twice: together 10 % (> 8 %) though each job is 5 %
    w = Workload.from_columns({"user": [-1, -1, 3, 4], "runtime": [5, 5, 50, 40], "procs": [1, 1, 1, 1], "submit": [0] * 4})
    assert assign_groups(w).group.tolist() == [1, 1, 1, 1]
    w = Workload.from_columns({"user": [-1, 7, 3], "runtime": [10, 10, 960], "procs": [1, 2, 1], "submit": [0] * 3})
    assert assign_groups(w).group.tolist() == [3, 2, 1]  # shares 1 %, 2 %, 96 %: boundaries inclusive


def test_custom_thresholds_and_validation():
    w = shares_workload({1: 0.5, 2: 0.3, 3: 0.2})
    assert assign_groups(w, thresholds=(0.4, 0.25)).group.tolist() == [1, 2, 3]
    for bad in [(0.01, 0.08), (), (1.5,), (0.08, 0.08)]:
        with pytest.raises(WorkloadError):
            assign_groups(w, thresholds=bad)


def test_group_shares_report():
    w = assign_groups(shares_workload({1: 0.5, 2: 0.05, 3: 0.015, 4: 0.005, 5: 0.0005, 6: 0.4295}))
    s = group_shares(w)
    assert sorted(s) == [1, 2, 3, 4, 5]
    assert s[1]["users"] == 2 and s[1]["jobs"] == 2 and s[1]["area_share"] == pytest.approx(0.9295)
    assert sum(v["job_share"] for v in s.values()) == pytest.approx(1.0)
    assert sum(v["area_share"] for v in s.values()) == pytest.approx(1.0)
    empty = group_shares(w.replace(group=np.where(w.group == 4, 2, w.group)))
    assert empty[4]["jobs"] == 0


def test_windows_are_one_calendar_and_labels_state_their_dates_by_hand():
    """Jobs on days 5, 40, 70 and 100 of a trace starting 1 Jan 1970 UTC (January 31 days, February 28):
    months 2-3 = 1 Feb - 1 Apr (days 31-90) hold days 40 and 70; months 1-1 day 5 alone."""
    from schedlab.workload.cut import cut_window, window_label

    w = Workload.from_columns({"submit": [5 * DAY, 40 * DAY, 70 * DAY, 100 * DAY], "runtime": [1] * 4, "procs": [1] * 4},
                              unix_start=0, timezone="UTC")
    assert cut_window(w, 1, 3).submit.tolist() == [0.0, 30 * DAY] and cut_window(w, 1, 3).unix_start == 40 * DAY
    assert cut_window(w, 0, 1).submit.tolist() == cut_months(w, 1).submit.tolist() == [0.0]
    assert window_label(w, 1, 3) == "1970-02-01 – 1970-04-01"
    assert window_label(w, 0, 1) == "1970-01-01 – 1970-02-01" == cut_months(w, 1).window
    # no Unix start: trace-relative days
    bare = w.replace(unix_start=None)
    assert window_label(bare, 0, 1) == "days 0 – 31"
    with pytest.raises(WorkloadError, match="empty"):
        cut_window(w, 3, 3)


def test_months_past_the_trace_label_the_real_span_with_a_note(capsys):
    """Issue 43: --months 100 on the 11-month KTH-SP2 said 'first 100 months'. The trace starts
    1996-09-23 14:00:31 CEST; its last job is submitted 1997-08-29 10:34 CEST."""
    from schedlab.cli.main import main

    assert main(["simulate", "KTH-SP2", "--months", "100"]) == 0
    out, err = capsys.readouterr()
    assert "first 100 months asked: 1996-09-23 14:00 – 1997-08-29 10:34, end of trace" in " ".join(out.split())
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert notes == ["note: KTH-SP2-1996-2.1-cln: months 1-100 reach past its last job; the window kept is "
                     "1996-09-23 14:00 – 1997-08-29 10:34, to the end of the trace"], err
    from schedlab.errors import TraceNote

    w = Workload.from_columns({"submit": [0.0, 3 * DAY], "runtime": [1] * 2, "procs": [1] * 2},
                              unix_start=0, timezone="UTC", name="short")
    with pytest.warns(TraceNote, match="short: months 1-2 reach past its last job; the window kept is "
                                       "1970-01-01 00:00 – 1970-01-04 00:00, to the end of the trace"):
        cut = cut_months(w, 2)
    assert cut.window == "1970-01-01 00:00 – 1970-01-04 00:00, end of trace"
    assert main(["simulate", "KTH-SP2", "--months", "2"]) == 0
    out, err = capsys.readouterr()
    assert "note:" not in err and "(first 2 months)" in out
