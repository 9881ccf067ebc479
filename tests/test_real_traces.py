"""Every real trace of ../shared/workloads/MANIFEST.md loads with the MANIFEST's figures, and the
11-month workloads of nsga2-grid-performance-bounds Table 1 come out with that table's job counts."""

from __future__ import annotations

import json
import re

import pytest

from conftest import WORKLOADS, require_workloads, trace_path
from schedlab.cli.main import main
from schedlab.workload import load_trace, read_swf, workload_info


def manifest() -> dict[str, dict]:
    """The two tables of MANIFEST.md, merged per file."""
    rows: dict[str, dict] = {}
    for line in (WORKLOADS / "MANIFEST.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or not cells[0].endswith(".swf.gz"):
            continue
        row = rows.setdefault(cells[0], {})
        if len(cells) == 10:
            row.update(maxprocs=cells[3], jobs=int(cells[4]), span=float(cells[5]), est_present=float(cells[6]))
        elif len(cells) == 8:
            row.update(header_lines=int(cells[3]), unix_start=cells[4], timezone=cells[5], users=int(cells[6]))
    return rows


require_workloads()  # every test here is about the shared traces: skip (or fail in CI) the module without them
MANIFEST = manifest()
_CACHE: dict[str, object] = {}


def raw(name: str):
    """Each trace is read once per test session."""
    if name not in _CACHE:
        _CACHE[name] = read_swf(trace_path(name))
    return _CACHE[name]


def test_manifest_lists_every_file():
    assert len(MANIFEST) == 17 and all(len(r) == 8 for r in MANIFEST.values())
    assert set(MANIFEST) == {p.name for p in WORKLOADS.glob("*.swf.gz")}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_trace_loads_with_manifest_figures(name):
    want = MANIFEST[name]
    w = raw(name)
    assert len(w) == want["jobs"]
    assert len(w.header) == want["header_lines"]
    assert w.unix_start == (None if want["unix_start"] == "—" else int(want["unix_start"]))
    assert w.timezone == (None if want["timezone"] == "—" else want["timezone"])
    m = re.match(r"\d+", want["maxprocs"])
    if m:
        assert w.machine_procs == int(m.group())
    # the summary behind `schedlab workload info`
    info = workload_info(w)
    assert info["jobs"] == want["jobs"] and info["users"] == want["users"]
    assert round(info["span_days"], 1) == want["span"]
    assert round(100 * info["estimate_share"], 1) == want["est_present"]
    assert json.loads(json.dumps(info, allow_nan=False)) == info
    if info["groups"]:
        assert sum(g["jobs"] for g in info["groups"].values()) == info["valid_jobs"]


def test_info_cli_on_real_traces(capsys):
    name = "LLNL-Thunder-2007-1.1-cln.swf.gz"
    assert main(["workload", "info", str(trace_path(name)), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["jobs"] == MANIFEST[name]["jobs"] and info["users"] == MANIFEST[name]["users"]
    assert info["unsorted"] == 808  # MANIFEST notes: submit times not sorted
    name = "METACENTRUM-2009-2.swf.gz"  # no header: info works, machine size unknown
    assert main(["workload", "info", str(trace_path(name))]) == 0
    out = capsys.readouterr().out
    assert f"{MANIFEST[name]['jobs']:,}" in out and "pass --procs" in out


# nsga2-grid-performance-bounds Table 1: label -> (file, machine size, months or None = whole trace, jobs)
TABLE1 = {
    "KTH-11": ("KTH-SP2-1996-2.1-cln.swf.gz", 100, None, 28_479),
    "SDSC00-11": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128, 11, 29_810),
    "CTC-11": ("CTC-SP2-1996-3.1-cln.swf.gz", 430, None, 77_199),
    "SDSC03-11": ("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152, 11, 65_584),
    "SDSC05-11": ("SDSC-DS-2004-2.1-cln.swf.gz", 1664, 11, 74_903),
}
#: the counts our pipeline gives (clean with missing estimates dropped, then cut from the log's start)
TABLE1_OURS = {"KTH-11": 28_467, "SDSC00-11": 29_171, "CTC-11": 77_199, "SDSC03-11": 64_088, "SDSC05-11": 74_441}


@pytest.mark.slow
@pytest.mark.parametrize("label", sorted(TABLE1))
def test_table1_job_counts_within_3_percent(label):
    name, procs, months, jobs = TABLE1[label]
    w = load_trace(raw(name), procs=procs, months=months, missing_estimate="drop")
    assert abs(len(w) / jobs - 1) < 0.03
    assert len(w) == TABLE1_OURS[label]  # regression guard: change only on purpose
    assert w.machine_procs == procs and (months is None or w.submit[0] == 0) and set(w.group.tolist()) <= {1, 2, 3, 4, 5}
    # the default policy (estimate = runtime) is within 3 % as well
    assert abs(len(load_trace(raw(name), procs=procs, months=months)) / jobs - 1) < 0.03
