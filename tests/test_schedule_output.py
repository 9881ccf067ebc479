"""Per-job schedule output, tail and per-user metrics, and the schedule plots (simulate --plot,
schedlab plot, run reports): hand-worked cases, plain-Python references, real-trace agreement."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import one_line_error
from schedlab.cli.main import main
from schedlab.metrics import Objective, compute_metrics, user_awrt
from schedlab.metrics.per_job import JOB_COLUMNS, job_table
from schedlab.report.schedule_plots import binned_level, processor_runs
from schedlab.sim.model import Machine, Schedule
from schedlab.workload.model import Workload


def three_jobs(killed=True) -> Schedule:
    # m = 4.  job  r  S   C   p   m_j  user  runtime  estimate  wait  C-r  p*m
    #          A   0  0   10  10  2    1     10       10        0     10   20
    #          B   0  10  20  10  4    2     15       10        10    20   40   (killed at its estimate)
    #          C   5  20  25  5   1    1     5        100       15    20   5
    w = Workload.from_columns({"submit": [0, 0, 5], "runtime": [10, 15, 5], "estimate": [10, 10, 100], "procs": [2, 4, 1],
                               "user": [1, 2, 1], "group": [1, 2, 1]}, machine_procs=4)
    return Schedule(w, Machine(4), None, np.array([0.0, 10, 20]), np.array([10.0, 20, 25]), killed=killed)


def test_tail_and_per_user_metrics_by_hand():
    got = compute_metrics(three_jobs())
    assert got["max_wait"] == 15
    assert got["p95_wait"] == pytest.approx(14.5)  # waits 0, 10, 15: 10 + 0.9 * (15 - 10)
    # user 1: (20*10 + 5*20) / 25 = 12; user 2: 20
    assert user_awrt(three_jobs()) == {1: pytest.approx(12.0), 2: pytest.approx(20.0)}
    assert got["max_user_AWRT"] == pytest.approx(20.0) and got["mean_user_AWRT"] == pytest.approx(16.0)
    assert Objective("p95_wait + 2*max_user_AWRT - mean_user_AWRT + max_wait")(got) == pytest.approx(14.5 + 40 - 16 + 15)


def test_job_table_by_hand():
    t = job_table(three_jobs(), bound=10)
    assert tuple(t.columns) == JOB_COLUMNS
    assert t["wait"].tolist() == [0, 10, 15]
    assert t["response"].tolist() == [10, 20, 20]
    assert t["bounded_slowdown"].tolist() == [1.0, 2.0, 2.0]  # 10/max(10,10), 20/max(10,10), 20/max(5,10)
    assert t["killed_at_estimate"].tolist() == [False, True, False]
    assert not job_table(three_jobs(killed=False))["killed_at_estimate"].any()


@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 50), st.integers(1, 30), st.integers(1, 4), st.integers(0, 3)),
                min_size=1, max_size=30))
def test_user_awrt_agrees_with_a_plain_python_reference(jobs):
    submit = np.array([j[0] for j in jobs], float)
    start = submit + [j[1] for j in jobs]
    finish = start + [j[2] for j in jobs]
    procs = [j[3] for j in jobs]
    user = [j[4] for j in jobs]
    w = Workload.from_columns({"submit": submit, "runtime": finish - start, "estimate": finish - start, "procs": procs, "user": user})
    s = Schedule(w, Machine(4), None, start, finish)
    ref: dict[int, list[float]] = {}
    for r, b, c, m, u in zip(submit, start, finish, procs, user):
        a = ref.setdefault(u, [0.0, 0.0])
        a[0] += (c - b) * m * (c - r)
        a[1] += (c - b) * m
    assert user_awrt(s) == {u: pytest.approx(a[0] / a[1]) for u, a in ref.items()}
    got = compute_metrics(s)
    assert got["max_user_AWRT"] == pytest.approx(max(a[0] / a[1] for a in ref.values()))
    waits = sorted(start - submit)
    assert got["max_wait"] == waits[-1]
    assert waits[int(np.floor(0.95 * (len(waits) - 1)))] <= got["p95_wait"] <= waits[-1]


# ---------------------------------------------------------------------------- plot helpers
def _level_reference(times, deltas, a, b):
    """Plain Python: integrate the step function over [a, b) in tiny exact pieces."""
    events = sorted(zip(times, deltas))
    points = sorted({a, b, *(t for t in times if a < t < b)})
    total = 0.0
    for lo, hi in zip(points, points[1:]):
        level = sum(d for t, d in events if t <= lo)
        total += level * (hi - lo)
    return total / (b - a)


@given(st.lists(st.tuples(st.integers(0, 100), st.integers(-5, 5)), min_size=1, max_size=20), st.integers(2, 8))
def test_binned_level_is_the_exact_time_average(events, bins):
    times = np.array([e[0] for e in events], float)
    deltas = np.array([e[1] for e in events], float)
    edges = np.linspace(-10, 110, bins + 1)
    got = binned_level(times, deltas, edges)
    for k in range(bins):
        assert got[k] == pytest.approx(_level_reference(times, deltas, edges[k], edges[k + 1]), abs=1e-9)


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 20), st.integers(1, 6)), min_size=1, max_size=25))
def test_processor_rows_never_share_a_processor(jobs):
    # build a valid schedule on m = 6 by a plain list scheduler, then check the drawing assignment
    m = 6
    start, finish, procs = [], [], []

    def fits(t, p, q):  # at most m busy at every instant of [t, t + p)
        points = [t] + [s for s in start if t < s < t + p]
        return all(sum(pp for s, f, pp in zip(start, finish, procs) if s <= x < f) + q <= m for x in points)

    for r, p, q in jobs:
        t = r
        while not fits(t, p, q):
            t = min(f for f in finish if f > t)
        start.append(t), finish.append(t + p), procs.append(q)
    runs = processor_runs(np.array(start, float), np.array(finish, float), np.array(procs), m)
    rows = [np.array([first + i for first, count in rr for i in range(count)], dtype=int) for rr in runs]
    for j, r in enumerate(rows):
        assert len(r) == procs[j] and len(set(r.tolist())) == procs[j] and r.max() < m
        for k in range(j):
            if start[j] < finish[k] and start[k] < finish[j]:
                assert not set(r.tolist()) & set(rows[k].tolist())
    # the lowest free rows, in runs that neither touch nor overlap
    for rr in runs:
        assert all(c > 0 for _, c in rr) and all(a + c < b for (a, c), (b, _) in zip(rr, rr[1:]))


def test_processor_runs_need_memory_for_the_jobs_not_the_machine():
    """A Gantt chart of a 10^9-processor machine (``--procs 1000000000``) once allocated a row per
    processor (7.5 GiB) and died; the runs are worked out by hand here."""
    m = 10**9
    start, finish, procs = np.array([0.0, 0, 5, 10]), np.array([10.0, 5, 20, 12]), np.array([3, 4, 6, 2])
    runs = processor_runs(start, finish, procs, m)
    # ties in start go shortest first: job 1 takes rows 0-3, job 0 rows 4-6; at t=5 job 1 frees 0-3 and
    # job 2 (6) takes them and 7-8; at t=10 job 0 frees 4-6 and job 3 takes 4-5
    assert runs == [[(4, 3)], [(0, 4)], [(0, 4), (7, 2)], [(4, 2)]]
    # on m = 8 job 1 (ends first) takes rows 0-1, job 0 2-3, job 2 4-5; job 1 ends at t=1 and job 3
    # (4 processors) takes that hole and rows 6-7 past job 2
    gappy = processor_runs(np.array([0.0, 0, 0, 1]), np.array([9.0, 1, 9, 9]), np.array([2, 2, 2, 4]), 8)
    assert gappy == [[(2, 2)], [(0, 2)], [(4, 2)], [(0, 2), (6, 2)]]


# ---------------------------------------------------------------------------- CLI and reports
def test_simulate_schedule_out_parquet_and_plot(tmp_path, capsys):
    pq, csv_path, plots = tmp_path / "s.parquet", tmp_path / "s.csv", tmp_path / "plots"
    assert main(["simulate", "KTH-SP2", "--policy", "easy", "--json", "--schedule-out", str(pq), "--plot", str(plots)]) == 0
    row = json.loads(capsys.readouterr().out)
    df = pd.read_parquet(pq)
    assert tuple(df.columns) == JOB_COLUMNS
    # the per-job columns and the metrics agree
    assert df["wait"].mean() == pytest.approx(row["mean_wait"]) and df["wait"].max() == row["max_wait"]
    assert np.percentile(df["wait"], 95) == pytest.approx(row["p95_wait"])
    assert df["bounded_slowdown"].mean() == pytest.approx(row["mean_bounded_slowdown"])
    assert df["killed_at_estimate"].sum() == int(((df.runtime > df.estimate)).sum()) > 0
    assert (df.loc[df.killed_at_estimate, "finish"] - df.loc[df.killed_at_estimate, "start"] == df.loc[df.killed_at_estimate, "estimate"]).all()
    for name in ("utilisation.png", "gantt.png", "waits.png", "plots.html"):
        assert (plots / name).stat().st_size > 1000 or name == "plots.html"
    df.to_csv(csv_path, index=False)
    out = tmp_path / "again"
    assert main(["plot", str(pq), str(csv_path), "--procs", "100", "--label", "parquet", "--label", "csv", "--out", str(out)]) == 0
    page = (out / "plots.html").read_text()
    assert page.count("<tr><td>") == 2 and "parquet" in page and f"{row['max_wait']:,.0f}" in page
    # bad input: one line, exit 2
    assert main(["plot", str(pq), "--procs", "50", "--out", str(out)]) == 2
    assert "narrower than a job" in capsys.readouterr().err
    (tmp_path / "junk.csv").write_text("a,b\n1,2\n")
    assert main(["plot", str(tmp_path / "junk.csv"), "--procs", "100", "--out", str(out)]) == 2
    assert "not a schedule table" in capsys.readouterr().err


def test_evolve_run_report_has_schedule_plots(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["evolve", "greedy", "KTH-SP2", "--out", str(out), "--generations", "1", "--mu", "2", "--lambda", "3", "--months", "2"]) == 0
    page = (out / "report.html").read_text()
    for name in ("schedule_utilisation.png", "schedule_gantt.png", "schedule_waits.png"):
        assert f'src="{name}"' in page and (out / name).exists()
    capsys.readouterr()
    assert main(["plot", str(out), "--out", str(tmp_path / "p")]) == 0
    assert "EASY" in (tmp_path / "p" / "plots.html").read_text()


# ---------------------------------------------------------------------------- outputs that cannot be written
def _one_line(capsys, code, *words) -> None:
    one_line_error(code, capsys.readouterr().err, *words)


@pytest.fixture(scope="module")
def kth_schedule(tmp_path_factory):
    """A schedule file of KTH-SP2's first month (for `schedlab plot`)."""
    path = tmp_path_factory.mktemp("sched") / "easy.csv"
    assert main(["simulate", "KTH-SP2", "--months", "1", "--schedule-out", str(path)]) == 0
    return path


SIM = ["simulate", "KTH-SP2", "--months", "1"]
SCOJO = [*SIM, "--policy", "scojo"]


@pytest.mark.parametrize("argv, words", [
    ([*SIM, "--plot", "{file}/sub"], ["{file}/sub", "is a file, not a folder"]),
    ([*SIM, "--plot", "{file}"], ["{file}", "is a file, not a folder"]),
    (["plot", "{sched}", "--procs", "100", "--out", "{file}/sub"], ["{file}/sub", "is a file, not a folder"]),
    ([*SCOJO, "--gantt", "{tmp}/missing/g.png"], ["g.png", "folder {tmp}/missing does not exist"]),
    ([*SCOJO, "--gantt", "{file}/g.png"], ["g.png", "is a file, not a folder"]),
    ([*SIM, "--schedule-out", "{tmp}/missing/s.csv"], ["s.csv", "does not exist"]),
])
def test_an_output_that_cannot_be_written_is_one_line_before_any_work(capsys, tmp_path, kth_schedule, argv, words):
    file = tmp_path / "a_file"
    file.write_text("keep\n")
    fill = {"file": str(file), "tmp": str(tmp_path), "sched": str(kth_schedule)}
    code = main([a.format(**fill) for a in argv])
    _one_line(capsys, code, *(w.format(**fill) for w in words))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"] and file.read_text() == "keep\n"


@pytest.mark.parametrize("argv, target", [
    ([*SIM, "--plot", "{tmp}/new/plots"], "{tmp}/new/plots/utilisation.png"),
    (["plot", "{sched}", "--procs", "100", "--out", "{tmp}/p"], "{tmp}/p/utilisation.png"),
    ([*SCOJO, "--gantt", "{tmp}/g.png"], "{tmp}/g.png"),
])
def test_a_write_that_fails_anyway_is_one_line_naming_the_file(capsys, tmp_path, kth_schedule, monkeypatch, argv, target):
    """A read-only folder or a full disk passes the checks made before the work (root may write
    anywhere as far as os.access can tell): the write itself fails, in one line naming the file."""
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")

    fill = {"tmp": str(tmp_path), "sched": str(kth_schedule)}
    argv = [a.format(**fill) for a in argv]
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    _one_line(capsys, main(argv), f"{target.format(**fill)}: cannot write", "Read-only file system")


def test_every_file_written_gets_a_wrote_line(capsys, tmp_path):
    plots, sched, gantt = tmp_path / "plots", tmp_path / "s.csv", tmp_path / "g.png"
    assert main([*SCOJO, "--plot", str(plots), "--schedule-out", str(sched), "--gantt", str(gantt)]) == 0
    out = capsys.readouterr().out
    expected = [gantt, sched, *(plots / name for name in ("utilisation.png", "gantt.png", "waits.png", "plots.html"))]
    assert [line for line in out.splitlines() if line.startswith("wrote ")] == [f"wrote {p}" for p in expected]
    assert all(p.exists() for p in expected)
    # with --json stdout stays one JSON document; the wrote lines go to stderr
    assert main([*SIM, "--json", "--schedule-out", str(sched)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["jobs"] > 0 and err.splitlines() == [f"wrote {sched}"]
    table = tmp_path / "t.csv"
    assert main(["compare", "KTH-SP2", "--months", "1", "--policies", "easy", "--csv", str(table), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["rows"] and err.splitlines() == [f"wrote {table}"] and table.read_text().startswith("strategy,")
