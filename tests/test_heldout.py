"""Strategies that hold up on unseen workloads: EASY dispatch under the greedy order as a searchable
choice, held-out evaluation (--test, --split-months), and the worse-than-EASY flag and gate."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from schedlab.report.runs import write_evolve_report as write_report
from schedlab.cli.main import main
from schedlab.metrics import Objective, compute_metrics
from schedlab.optimize.evolve import EvolveConfig, evolve_greedy
from schedlab.optimize.greedy import GreedyEncoding
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace, write_swf
from schedlab.workload.cut import cut_months, split_months
from schedlab.workload.spec import TraceSpec, split_trace
from schedlab.workload.model import Workload

from conftest import trace_path

OBJ = "10*AWRT1 + 4*AWRT2"
DAY = 86400.0


@pytest.fixture(scope="module")
def kth2(tmp_path_factory) -> Path:
    """The first two months of the real KTH-SP2 trace (split at month 1 in the tests)."""
    path = tmp_path_factory.mktemp("traces") / "kth-2months.swf"
    write_swf(load_trace("KTH-SP2", months=2), path)
    return path


@pytest.fixture(scope="module")
def ctc1(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("traces") / "ctc-month1.swf"
    write_swf(load_trace(str(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), months=1), path)
    return path


# ------------------------------------------------------------------ dispatch as a gene
def test_dispatch_gene_decodes_to_fcfs_or_easy_and_round_trips():
    enc = GreedyEncoding(dispatch="search")
    assert enc.names[0] == "dispatch" and len(enc) == len(GreedyEncoding()) + 1
    assert (enc.lower[0], enc.upper[0]) == (0.0, 2.0)
    x = (enc.lower + enc.upper) / 2
    x[0] = 0.99
    assert enc.decode(x).dispatch == "fcfs"
    x[0] = 1.0
    easy = enc.decode(x)
    assert easy.dispatch == "easy" and easy.label.startswith("easy/greedy(")
    assert enc.decode(enc.encode(easy)) == easy
    assert GreedyEncoding(dispatch="easy").decode(x[1:]).dispatch == "easy"


def test_easy_under_greedy_order_is_a_valid_easy_schedule_and_never_starves_by_hand():
    """2 processors. Job 0 (group 5, 1 proc, 100 s) at 0; job 1 (group 1, 2 procs, 50 s) at 1;
    job 2 (group 5, 1 proc, 10 s) at 2. Greedy order puts group 1 first. FCFS under that order:
    job 1 heads the queue and blocks job 2 until job 1 ends at 150. EASY under the same order:
    job 2 backfills at 2 (ends 12 <= job 1's reservation at 100)."""
    from schedlab.strategy import Criterion

    w = Workload.from_columns({"submit": [0, 1, 2], "runtime": [100, 50, 10], "procs": [1, 2, 1],
                               "estimate": [100, 50, 10], "group": [5, 1, 5], "user": [5, 1, 5]}, machine_procs=2)
    crit = Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0))
    fcfs = simulate(w, Machine(2), Strategy.greedy(crit))
    easy = simulate(w, Machine(2), Strategy.greedy(crit, dispatch="easy"))
    for s in (fcfs, easy):
        validate_schedule(s)
    assert list(fcfs.start) == [0, 100, 150]
    assert list(easy.start) == [0, 100, 2]


# ------------------------------------------------------------------ time split
def test_split_months_partitions_the_trace_by_hand():
    """Jobs on days 0, 20, 31 and 45 of a trace starting 1 Jan 1970 UTC: month 1 = January."""
    w = Workload.from_columns({"submit": [0.0, 20 * DAY, 31 * DAY, 45 * DAY], "runtime": [1] * 4, "procs": [1] * 4,
                               "group": [1, 2, 3, 4]}, machine_procs=4, unix_start=0, timezone="UTC")
    first, rest = split_months(w, 1)
    assert list(first.submit) == [0.0, 20 * DAY] and list(first.group) == [1, 2]
    assert list(rest.submit) == [0.0, 14 * DAY] and list(rest.group) == [3, 4]  # rebased, groups kept
    assert rest.unix_start == 31 * DAY
    assert list(cut_months(w, 1).submit) == list(first.submit)
    with pytest.raises(Exception, match="positive integer"):
        split_months(w, 0)


def test_split_windows_are_the_calendar_of_months_and_each_is_grouped_on_its_own_jobs_by_hand():
    """A trace from 1 Jan 1970 UTC with jobs on days 10, 20 (January), 40, 50 (February), 70 (March), 100.
    --months 3 --split-months 1: training = January = days 10 and 20, as --months 1 gives; the
    old split counted month 1 from the first job after the 3-month cut (11 Jan - 11 Feb: days 10,
    20 and 40). Groups on January alone: user 1 (area 100) has 100/101 of it -> group 1, user 2
    (area 1, 0.99 %) -> group 4; on the whole window user 2's 10,000 s in February makes user 2
    group 1 and user 1 (100/10,201 = 0.98 %) group 4. Test = February-March, grouped on itself:
    user 2 (10,000 + 50) -> group 1, user 3 (50, 0.497 %) -> group 4."""
    from schedlab.workload.spec import prepare_trace

    w = Workload.from_columns({"submit": [10 * DAY, 20 * DAY, 40 * DAY, 50 * DAY, 70 * DAY, 100 * DAY],
                               "runtime": [100, 1, 10000, 50, 50, 1], "procs": [1] * 6, "estimate": [20000] * 6,
                               "user": [1, 2, 2, 2, 3, 3], "status": [1] * 6},
                              machine_procs=4, unix_start=0, timezone="UTC", name="hand", header=(" MaxProcs: 4",))
    train, test = split_trace(TraceSpec(w, months=3, split_months=1))
    assert list(train.submit) == [0.0, 10 * DAY] and list(train.user) == [1, 2] and list(train.group) == [1, 4]
    assert train.unix_start == 10 * DAY
    assert list(test.submit) == [0.0, 10 * DAY, 30 * DAY] and list(test.group) == [1, 1, 4]
    assert train.name == "hand[months 1-1: 1970-01-01 – 1970-02-01]"
    assert test.name == "hand[months 2-3: 1970-02-01 – 1970-04-01]"
    alone = prepare_trace(TraceSpec(w, months=1))
    for col in ("submit", "runtime", "user", "group"):
        assert list(getattr(alone, col)) == list(getattr(train, col)), col
    assert (alone.unix_start, alone.header) == (train.unix_start, train.header)


def test_split_training_part_is_exactly_months_k_on_kth():
    """KTH-SP2 starts 1996-09-23 14:00:31 (UnixStartTime), its first job 6.9 days later: the training
    part of --months 3 --split-months 2 must be the 2 months --months 2 keeps, not 2 months from that job."""
    from schedlab.workload.spec import prepare_trace

    train, test = split_trace(TraceSpec("KTH-SP2", months=3, split_months=2))
    alone = prepare_trace(TraceSpec("KTH-SP2", months=2))
    assert len(train) == len(alone)
    for col in ("id", "submit", "runtime", "procs", "estimate", "user", "group"):
        assert np.array_equal(getattr(train, col), getattr(alone, col)), col
    assert "1996-09-23 14:00 – 1996-11-23 14:00" in train.name
    assert "1996-11-23 14:00 – 1996-12-23 14:00" in test.name
    # the test part is the third calendar month: the jobs of --months 3 that --months 2 does not keep
    assert len(test) == len(prepare_trace(TraceSpec("KTH-SP2", months=3))) - len(alone)


def test_split_training_row_replays_with_months_k_through_the_cli(tmp_path, capsys):
    """A tiny split training on KTH-SP2; its train row's objective is what `evolve compare best.json
    KTH-SP2 --months 1` reports for the same strategy (same jobs, same groups: one calendar), and its
    test row what `evolve compare` reports on `workload cut --after-months 1 --months 2` (month 2)."""
    out = tmp_path / "run"
    assert main(["evolve", "greedy", "KTH-SP2", "--months", "2", "--split-months", "1", "--out", str(out),
                 "--generations", "1", "--mu", "1", "--lambda", "2", "--workers", "1", "--objective", OBJ]) == 0
    rows = json.loads((out / "comparison.json").read_text())
    train = [r for r in rows if r["set"] == "train"]
    assert len(train) == 1
    capsys.readouterr()
    assert main(["evolve", "compare", str(out / "best.json"), "KTH-SP2", "--months", "1", "--objective", OBJ, "--json"]) == 0
    replay = json.loads(capsys.readouterr().out)["rows"][0]
    assert replay["jobs"] == train[0]["jobs"]
    assert replay["objective"] == train[0]["objective"]
    assert replay["objective_easy"] == train[0]["objective_easy"]
    assert "[months 1-1: 1996-09-23 14:00 – 1996-10-23 14:00]" in train[0]["workload"]  # the label states the dates
    test = [r for r in rows if r["set"] == "test"]
    assert len(test) == 1 and "[months 2-2: 1996-10-23 14:00 – 1996-11-23 14:00]" in test[0]["workload"]
    month2 = tmp_path / "month2.swf"
    assert main(["workload", "cut", "KTH-SP2", "--after-months", "1", "--months", "2", "-o", str(month2)]) == 0
    capsys.readouterr()
    assert main(["evolve", "compare", str(out / "best.json"), str(month2), "--objective", OBJ, "--json"]) == 0
    replay = json.loads(capsys.readouterr().out)["rows"][0]
    assert (replay["jobs"], replay["objective"], replay["objective_easy"]) == (
        test[0]["jobs"], test[0]["objective"], test[0]["objective_easy"])


# ------------------------------------------------------------------ held-out runs
def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open()))


def test_test_scores_are_recorded_never_selected_on_and_resume_exactly(tmp_path, kth2, ctc1):
    base = dict(traces=(str(kth2),), objective=OBJ, generations=3, mu=2, lam=4, seed=3, dispatch="search")
    plain = evolve_greedy(EvolveConfig(**base), tmp_path / "plain", workers=1)
    cfg = EvolveConfig(**base, trace_spec=TraceSpec(split_months=1), test=(str(ctc1),))
    held = evolve_greedy(cfg, tmp_path / "held", workers=1)
    write_report(held)  # what `evolve greedy` writes after the run

    # the split trains on month 1 only: a different problem than the whole two months
    month1, month2 = split_trace(TraceSpec(str(kth2), split_months=1))  # each grouped on its own jobs
    rows = _rows(tmp_path / "held" / "history.csv")
    assert [r["gen"] for r in rows] == ["1", "2", "3"]
    assert {"test", "test_easy", "test_gain_pct"} <= set(rows[0])
    # every test column is the best-so-far strategy scored on (month 2 of KTH) + (CTC month 1)
    enc = GreedyEncoding(dispatch="search")
    obj = Objective(OBJ)
    ctc = load_trace(str(ctc1))
    tests = [month2.replace(name="m2"), ctc]
    easy_total = sum(obj(compute_metrics(simulate(t, Machine(t.machine_procs), Strategy("easy")))) for t in tests)
    for r in rows:
        x = np.array([float(r[n]) for n in enc.names])
        best = enc.decode(x)
        total = 0.0
        for t in tests:
            s = simulate(t, Machine(t.machine_procs), best)
            validate_schedule(s)
            total += obj(compute_metrics(s))
        assert float(r["test"]) == pytest.approx(total, rel=1e-12)
        assert float(r["test_easy"]) == pytest.approx(easy_total, rel=1e-12)
        assert float(r["test_gain_pct"]) == pytest.approx(100 * (easy_total - total) / easy_total, rel=1e-9)
        # and the training column is month 1 alone
        s = simulate(month1, Machine(month1.machine_procs), best)
        assert float(r["best"]) == pytest.approx(obj(compute_metrics(s)), rel=1e-12)
    sets = [(r["set"], r["workload"]) for r in held.comparison]
    assert [s for s, _ in sets] == ["train", "test", "test"]
    report = (tmp_path / "held" / "report.html").read_text()
    assert "<td>test</td>" in report and "<td>train</td>" in report

    # never used for selection: the same run on the whole trace without test sets has its own
    # history, and a run with only --test (no split) has exactly the plain run's training columns
    only_test = evolve_greedy(EvolveConfig(**base, test=(str(ctc1),)), tmp_path / "only", workers=1)
    a = [(h["best"], h["median"], h["params"]) for h in plain.runs["free"].history]
    b = [(h["best"], h["median"], h["params"]) for h in only_test.runs["free"].history]
    assert a == b
    assert held.best_f != plain.best_f

    # stopped after generation 1 and resumed: the same history, test columns included
    def stop(label, row):
        if row["gen"] == 1:
            raise KeyboardInterrupt

    part = evolve_greedy(cfg, tmp_path / "resumed", workers=1, on_generation=stop)
    assert part.interrupted
    evolve_greedy(cfg, tmp_path / "resumed", workers=1)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "elapsed"} for r in rs]  # noqa: E731
    assert strip(_rows(tmp_path / "resumed" / "history.csv")) == strip(rows)


def test_held_out_options_are_checked_before_anything_is_written(tmp_path, kth2, capsys):
    out = tmp_path / "run"
    args = ["evolve", "greedy", str(kth2), "--out", str(out), "--generations", "1", "--mu", "1", "--lambda", "2"]
    for extra, words in ((["--split-months", "0"], "--split-months"), (["--dispatch", "sjf"], "--dispatch"),
                         (["--split-months", "2", "--months", "2"], "leaves no test months"),
                         (["--test", str(tmp_path / "missing.swf")], "missing.swf"),
                         (["--split-months", "5"], "no jobs after the split")):
        capsys.readouterr()
        assert main(args + extra) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], err
        assert not (out / "config.json").exists()


# ------------------------------------------------------------------ worse-than-EASY flag and gate
@pytest.fixture
def starving(tmp_path) -> tuple[Path, Path]:
    """2 processors: job 0 (1 proc, 100 s) at 0, job 1 (2 procs, 100 s) at 1, job 2 (1 proc, 10 s) at 2.
    FCFS: starts 0, 100, 200 -> responses 100, 199, 208; EASY backfills job 2 at 2 -> response 10.
    Weights p m: 100, 200, 10. AWRT FCFS = (10000 + 39800 + 2080) / 310 = 167.35...;
    EASY = (10000 + 39800 + 100) / 310 = 160.97...: FCFS worse by 3.97 %."""
    w = Workload.from_columns({"submit": [0, 1, 2], "runtime": [100, 100, 10], "procs": [1, 2, 1],
                               "estimate": [100, 100, 10], "user": [1, 2, 3]}, machine_procs=2, name="hand",
                              header=(" MaxProcs: 2",))
    trace = tmp_path / "hand.swf"
    write_swf(w, trace)
    strategy = tmp_path / "fcfs.json"
    strategy.write_text(Strategy("fcfs").to_json())
    return trace, strategy


WORSE = 100 * ((10000 + 39800 + 2080) / 310 - (10000 + 39800 + 100) / 310) / ((10000 + 39800 + 100) / 310)


def test_evolve_compare_flags_and_gates_by_hand(starving, capsys):
    trace, strategy = starving
    assert WORSE == pytest.approx(3.9679, abs=1e-4)
    args = ["evolve", "compare", str(strategy), str(trace), "--objective", "AWRT"]
    assert main(args + ["--json"]) == 0  # 3.97 % worse: not flagged at the default 5 %
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"][0]["objective_improvement_pct"] == pytest.approx(-WORSE)
    assert doc["worse_than_easy"] == [] and doc["threshold_pct"] == 5.0
    assert main(args + ["--json", "--threshold", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["worse_than_easy"] == ["hand"] and doc["rows"][0]["worse_than_easy"] is True
    assert main(args + ["--threshold", "3"]) == 0
    assert "WORSE > 3 %" in capsys.readouterr().out
    assert main(args + ["--fail-worse-than", "4"]) == 0
    assert main(args + ["--fail-worse-than", "3.9"]) == 1
    assert "worse than EASY by more than 3.9 % on: hand" in capsys.readouterr().err
    assert main(args + ["--fail-worse-than", "-1"]) == 2


def test_compare_flags_and_gates_by_hand(starving, capsys):
    trace, _ = starving
    args = ["compare", str(trace), "--policies", "fcfs,easy", "--objective", "AWRT"]
    assert main(args + ["--json", "--threshold", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["strategy"]: r for r in doc["rows"]}
    assert rows["fcfs"]["vs_easy_pct"] == pytest.approx(-WORSE) and rows["fcfs"]["worse_than_easy"]
    assert rows["easy"]["vs_easy_pct"] == 0.0 and not rows["easy"]["worse_than_easy"]
    assert doc["worse_than_easy"] == ["fcfs"]
    assert main(args + ["--threshold", "3"]) == 0
    out = capsys.readouterr().out
    assert "(WORSE)" in out and "vs EASY %" in out
    assert main(args + ["--fail-worse-than", "3.9"]) == 1
    assert main(args + ["--fail-worse-than", "4"]) == 0
    capsys.readouterr()
    # EASY_* names in compare: the objective relative to EASY's own value
    assert main(["compare", str(trace), "--policies", "fcfs,easy", "--objective", "AWRT / EASY_AWRT", "--json"]) == 0
    rows = {r["strategy"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["easy"]["objective"] == 1.0 and rows["fcfs"]["objective"] == pytest.approx(1 + WORSE / 100)
