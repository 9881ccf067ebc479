"""Cleaning: every removal and change counted under its documented reason."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import trace_path
from schedlab.errors import WorkloadError
from schedlab.workload import Workload, clean, read_swf

# one job per rule, in the order of the module docstring (m = 8)
JOBS = {
    #            ok   cancel  rt=-1  rt=0  procs  fallback  wide  no-est  above  unsorted
    "submit":   [50,  1,      2,     3,    4,     5,        6,    7,      8,     0],
    "runtime":  [10,  -1,     -1,    0,    10,    10,       10,   30,     99,    5],
    "procs":    [2,   -1,     4,     4,    -1,    -1,       9,    2,      1,     1],
    "req_procs":[2,   4,      4,     4,    -1,    3,        9,    2,      1,     1],
    "estimate": [20,  60,     60,    60,   60,    60,       60,   -1,     50,    5],
    "status":   [1,   5,      0,     1,    1,     1,        1,    1,      1,     1],
}


def hand() -> Workload:
    return Workload.from_columns(JOBS, machine_procs=8, name="hand", header=(" MaxProcs: 8",))


def test_each_reason_counted_once():
    out, r = clean(hand())
    assert (r.cancelled, r.runtime, r.procs, r.too_wide, r.missing_estimate) == (1, 2, 1, 1, 0)
    assert (r.estimate_filled, r.procs_from_requested, r.runtime_above_estimate) == (1, 1, 1)
    assert r.unsorted == 2 and r.jobs_in == 10 and r.jobs_out == 5 and r.removed == 5
    # sorted by submit; width from field 8 where field 5 is missing; estimate filled from runtime
    assert out.submit.tolist() == [0, 5, 7, 8, 50]
    assert out.procs.tolist() == [1, 3, 2, 1, 2]
    assert out.estimate.tolist() == [5, 60, 30, 50, 20]
    assert out.runtime.tolist() == [5, 10, 30, 99, 10]  # runtime above estimate is kept unchanged
    assert (out.runtime > 0).all() and (out.estimate > 0).all()
    assert (out.procs >= 1).all() and (out.procs <= out.machine_procs).all()


def test_drop_missing_estimate():
    out, r = clean(hand(), missing_estimate="drop")
    assert r.missing_estimate == 1 and r.estimate_filled == 0 and r.jobs_out == 4
    assert 7.0 not in out.submit


def test_procs_override_changes_too_wide_and_header():
    out, r = clean(hand(), procs=9)
    assert r.too_wide == 0 and r.jobs_out == 6 and out.machine_procs == 9
    assert out.header == (" MaxProcs: 9",)


def test_machine_size_required_and_policy_checked():
    w = hand().replace(machine_procs=None)
    with pytest.raises(WorkloadError, match="has no MaxProcs/MaxNodes header; pass --procs"):
        clean(w)
    assert clean(w, procs=8)[1].jobs_out == 5
    with pytest.raises(WorkloadError, match="missing_estimate"):
        clean(hand(), missing_estimate="zero")


def test_report_renders_as_dict_text_and_table():
    _, r = clean(hand())
    d = r.as_dict()
    assert d["jobs_out"] == 5 and d["cancelled"] == 1 and all(isinstance(v, int) for v in d.values())
    text = str(r)
    assert "cancelled before start" in text and len(text.splitlines()) == len(d)
    assert r.to_table().row_count == len(d)


def test_real_traces_match_manifest_notes():
    # SDSC-SP2: 9.5 % of records are cancelled with runtime and procs -1 (MANIFEST notes)
    w = read_swf(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"))
    _, r = clean(w)
    assert abs(r.cancelled / len(w) - 0.095) < 0.0005
    # LLNL-Thunder is not sorted by submit: 808 inversions; the cleaned trace is sorted
    w = read_swf(trace_path("LLNL-Thunder-2007-1.1-cln.swf.gz"))
    out, r = clean(w)
    assert r.unsorted == 808 and np.all(np.diff(out.submit) >= 0)
    # field 9 present for only 31.9 % of its jobs: the rest get estimate = runtime
    assert r.estimate_filled > 0.6 * len(w)
