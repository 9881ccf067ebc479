"""schedlab.workload.sacct_write: an SWF trace written as ``sacct --parsable2`` reads back as the same jobs.

docs/results/slurm-tuned/kth-sacct/ tunes Slurm on KTH-SP2 converted this way and compares with
the SWF-based run, so the comparison rests on this round trip: every job's submit instant, wait,
run time, processors used and requested, estimate, user and user group (as the account) must
come back from schedlab's sacct reader as they went in.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from schedlab.workload import sacct_write
from schedlab.workload.groups import assign_groups
from schedlab.workload.load import load_trace
from schedlab.workload.sacct import parse_sacct
from schedlab.workload.timezone import trace_epoch

N = 300


@pytest.fixture(scope="module")
def kth():
    """The first N cleaned jobs of KTH-SP2, user groups assigned on those jobs."""
    w = load_trace("KTH-SP2", months=1)
    return assign_groups(w.take(np.arange(N)))


def listing(w, label):
    """{name: number} of the reader's ``Schedlab<label>:`` header line."""
    line = next(h for h in w.header if h.strip().startswith(f"Schedlab{label}:"))
    return {k: int(v) for k, v in (item.split("=") for item in line.split(":", 1)[1].split())}


@pytest.mark.parametrize("tz", ["UTC", "Europe/Stockholm"])
def test_round_trip_gives_the_same_jobs(kth, tmp_path, tz):
    path = sacct_write.write_sacct(kth, tmp_path / "kth.sacct.gz", tz=tz)
    back, report = parse_sacct(path, procs=100, tz=tz)
    assert report.jobs == N and not report.skipped
    assert back.id.tolist() == kth.id.tolist()  # same order: by submit, ties by job number
    # the same instants: the reader's epoch is the first submit, the cut's its own UnixStartTime
    assert np.array_equal(trace_epoch(back) + back.submit, trace_epoch(kth) + kth.submit)
    for col in ("wait", "runtime", "procs", "req_procs", "estimate"):
        assert np.array_equal(getattr(back, col), getattr(kth, col)), col
    # users are renumbered 1, 2, ... in order of first appearance: a one-to-one map of the SWF ids
    pairs = set(zip(kth.user.tolist(), back.user.tolist()))
    assert len(pairs) == len(set(kth.user.tolist())) == len(set(back.user.tolist()))
    # accounts ug1..ug5 are numbered in order of first appearance too (SWF field 13 of the read-back
    # trace); the header line names them, and each job's account is its user group
    accounts = {number: int(name[2:]) for name, number in listing(back, "Accounts").items()}
    assert [accounts[a] for a in back.unix_group.tolist()] == kth.group.tolist()
    # and the user groups schedlab computes from the read-back jobs are the same
    assert np.array_equal(assign_groups(back).group, kth.group)


def test_timeout_state_and_limits(kth):
    lines = sacct_write.sacct_lines(kth)
    header = lines[0].split("|")
    assert header == "JobIDRaw|JobID|User|Group|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|ReqCPUS|State".split("|")
    rows = [dict(zip(header, line.split("|"))) for line in lines[1:]]
    for j, row in enumerate(rows):
        reached = kth.runtime[j] >= kth.estimate[j]
        assert row["State"] == ("TIMEOUT" if reached else "COMPLETED")
        assert re.fullmatch(r"(\d+-)?\d\d:\d\d:\d\d", row["Timelimit"])
        assert row["Partition"] == "batch" and row["QOS"] == "normal"  # KTH has no queues
    assert sacct_write.duration(2 * 86400 + 3 * 3600 + 4 * 60 + 5) == "2-03:04:05"
    assert sacct_write.duration(59) == "00:00:59"
