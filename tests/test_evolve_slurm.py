"""`schedlab evolve slurm` (issue 37 item 4): the searched space's decode, slurm.conf.fragment and
sacctmgr.sh (written, parsed back by our own readers, simulated: the run's tuned objective exactly),
resume after Ctrl-C, 1 vs 2 workers, and bad input before any write. Tiny budgets on the first two
months of the bundled KTH-SP2 (one training month, one held out). Every schedule the tests simulate
goes through the shared validator."""

from __future__ import annotations

import csv
import html
import json
import math

import numpy as np
import pytest

from schedlab.sim.validate import validate_schedule
from schedlab.slurm.tuning import (SPACE, SlurmEncoding, TuningError, fragment_text, knobs, read_sacctmgr,
                                   sacctmgr_text)

CONF = "PriorityType=priority/multifactor\nSchedulerType=sched/backfill\nSchedulerParameters=bf_interval=30,bf_continue\n"


def config(tmp_path, **kw):
    from schedlab.optimize.evolve_slurm import SlurmTuneConfig
    from schedlab.workload.spec import TraceSpec

    conf = tmp_path / "site.conf"
    if not conf.exists():
        conf.write_text(CONF)
    settings = dict(traces=("KTH-SP2",), slurm_conf=str(conf), trace_spec=TraceSpec(months=2, split_months=1),
                    generations=2, mu=2, lam=4, slurm_option="queue_map=default", seed=3)
    settings.update(kw)
    return SlurmTuneConfig(**settings)


def history(folder):
    """history.csv without the elapsed column (wall time legitimately differs)."""
    with (folder / "history.csv").open() as fh:
        return [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(fh)]


# ------------------------------------------------------------------ the space
def test_decode_respects_every_range_rounds_and_spreads_decades():
    enc = SlurmEncoding(SPACE, ())
    rng = np.random.default_rng(5)
    lo, hi = enc.lower, enc.upper
    for x in [lo, hi, *(lo + (hi - lo) * rng.random(len(SPACE)) for _ in range(200)), lo - 3, hi + 3]:
        values = enc.decode(x)
        for k in SPACE:
            v = values[k.name]
            assert isinstance(v, int) and k.low <= v <= k.high, (k.name, v)
        assert enc.decode(enc.encode(values)) == values  # what is written is what was simulated
    mid = enc.decode((lo + hi) / 2)
    assert mid["bf_window"] == round(math.sqrt(1 * 43200))  # log scale: the middle gene is the geometric mean
    assert mid["bf_max_job_test"] == 1000
    assert mid["ug3"] == 500  # linear
    assert enc.decode(lo)["PriorityWeightAge"] == 0 and enc.decode(hi)["PriorityWeightAge"] == 100_000  # log0 reaches 0
    assert enc.decode(lo)["PriorityDecayHalfLife"] == 60 and enc.decode(hi)["bf_window"] == 43_200


def test_a_subset_of_parameters_keeps_the_others_fixed_and_an_unknown_name_is_refused():
    chosen = knobs("bf_window, priorityweightage")
    assert [k.name for k in chosen] == ["PriorityWeightAge", "bf_window"]
    enc = SlurmEncoding(chosen, (("PriorityWeightQOS", 7),))
    assert enc.decode(enc.upper) == {"PriorityWeightQOS": 7, "PriorityWeightAge": 100_000, "bf_window": 43_200}
    with pytest.raises(TuningError, match="unknown parameter 'bf_windw'"):
        knobs("PriorityWeightAge,bf_windw")


def test_sacctmgr_script_sets_each_groups_qos_priority_and_default_qos():
    values = {f"ug{g}": p for g, p in zip(range(1, 6), (900, 0, 12, 1000, 5))}
    text = sacctmgr_text(values, {1: "physics", 2: "chem", 3: "bio", 4: "cs", 5: "math"})
    assert text.startswith("#!/bin/sh\n")
    assert "sacctmgr -i modify qos where name=ug1 set priority=900\n" in text
    assert "sacctmgr -i modify account where name=physics set qos+=ug1 defaultqos=ug1\n" in text
    assert "sacctmgr -i modify qos where name=ug4 set priority=1000\n" in text
    assert "sacctmgr -i modify account where name=math set qos+=ug5 defaultqos=ug5\n" in text
    assert "sacctmgr -n -P show qos ug2 format=name | grep -qx ug2 || sacctmgr -i add qos ug2\n" in text
    assert read_sacctmgr(text) == values


def test_the_fragment_keeps_the_sites_scheduler_parameters_and_replaces_the_searched_ones():
    from schedlab.slurm.conf import parse_conf

    values = dict(SlurmEncoding(SPACE, ()).decode(SlurmEncoding(SPACE, ()).lower), bf_window=2880, bf_max_job_test=77,
                  PriorityDecayHalfLife=1441, PriorityMaxAge=90, PriorityWeightJobSize=123)
    current = "SchedulerParameters=bf_interval=60,bf_window=100,bf_continue,bf_window=200\nPriorityWeightAge=5\n"
    text = fragment_text(values, current)
    assert "SchedulerParameters=bf_interval=60,bf_continue,bf_window=2880,bf_max_job_test=77\n" in text
    assert "PriorityDecayHalfLife=1-00:01:00\n" in text and "PriorityMaxAge=0-01:30:00\n" in text
    conf = parse_conf(current + text, "site+fragment")
    assert conf.sched["bf_window"] == 2880 and conf.sched["bf_max_job_test"] == 77 and conf.sched["bf_interval"] == 60
    assert conf.decay_half_life == 1441 * 60 and conf.max_age == 90 * 60
    assert conf.weights == {"age": 0, "fairshare": 0, "jobsize": 123, "partition": 0, "qos": 0}


# ------------------------------------------------------------------ runs
@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    from schedlab.optimize.evolve_slurm import evolve_slurm

    tmp = tmp_path_factory.mktemp("slurm-tune")
    cfg = config(tmp)
    return cfg, evolve_slurm(cfg, tmp / "run", workers=1)


def test_the_written_fragment_and_sacctmgr_script_simulate_to_the_recorded_tuned_objective(finished):
    from schedlab.metrics import Objective, compute_metrics
    from schedlab.optimize.evolve_slurm import prepare
    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm

    cfg, result = finished
    run = result.run_dir
    assert not result.interrupted and result.run.generations == 2 and result.run.evaluations == 8
    site = (run.parent / "site.conf").read_text()
    conf = parse_conf(site + (run / "slurm.conf.fragment").read_text(), "site+fragment")
    qos = read_sacctmgr((run / "sacctmgr.sh").read_text())
    assert set(qos) == {f"ug{g}" for g in range(1, 6)}
    policy = SlurmPolicy(conf, SlurmOptions(account_from="group", queue_map="default"), qos_priority=qos)
    training = prepare(cfg).payload.training
    (w,), (m,) = training.workloads, training.machines
    schedule = simulate_slurm(w, m, policy)
    validate_schedule(schedule)
    recorded = float(history(run)[-1]["best"])
    assert Objective(cfg.objective)(compute_metrics(schedule)) == recorded == result.best_f
    best = json.loads((run / "best.json").read_text())
    assert best["settings"] == result.values and best["objective_value"] == recorded
    # the site's own configuration, as the report shows it, is a different schedule here
    current = simulate_slurm(w, m, SlurmPolicy(parse_conf(site, "site"), SlurmOptions(account_from="group",
                                                                                    queue_map="default")))
    validate_schedule(current)
    rows = {(r["set"], r["schedule"]): r for r in result.comparison}
    assert rows[("train", "current")]["objective"] == Objective(cfg.objective)(compute_metrics(current))
    assert rows[("train", "tuned")]["objective"] == recorded
    assert {s for s, _ in rows} == {"train", "test"} and {k for _, k in rows} == {"EASY", "current", "tuned"}
    assert "| test | KTH-SP2" in (run / "report.md").read_text() and not (run / "report.html").exists()
    assert result.resources == [] and "Utilisation per resource" not in (run / "report.md").read_text()  # CPU-only
    from schedlab.report.runs import write_slurm_report  # report/ draws report.html (optimize does not import report)

    write_slurm_report(result)
    assert result.fragment == (run / "slurm.conf.fragment").read_text()
    page = (run / "report.html").read_text()
    assert html.escape(result.fragment.strip().splitlines()[-1]) in page and "EASY, the site's configuration" in page


def test_the_run_states_its_start_and_charts_the_current_configuration(finished, monkeypatch):
    """Issue 43 item 7: config.json said ``"x0": "box centre"`` while the search starts from the
    site's configuration, and awrt_groups.png called the tuned Slurm "evolved greedy" with no bar
    for the current configuration."""
    from schedlab.report.runs import write_slurm_report
    from schedlab.report import run_report

    cfg, result = finished
    start = json.loads((result.run_dir / "config.json").read_text())["optimizer_settings"]["x0"]
    assert "site's current configuration (site.conf)" in start and "box centre" not in start
    rows = {(r["set"], r["schedule"]): r for r in result.comparison}
    # es: the site's configuration is generation 1's first candidate, so that generation's best is no worse
    assert float(history(result.run_dir)[0]["best"]) <= rows[("train", "current")]["objective"]
    drawn = []
    figure = run_report.awrt_groups_figure
    monkeypatch.setattr(run_report, "awrt_groups_figure", lambda *a, **k: drawn.append(figure(*a, **k)))
    write_slurm_report(result)
    (panels,) = drawn
    assert [title.split(" (")[-1] for title, _ in panels] == ["train)", "test)"]
    for (title, bars), part in zip(panels, ("train", "test")):
        assert list(bars) == ["tuned slurm", "current slurm", "EASY"], title
        for label, schedule in (("tuned slurm", "tuned"), ("current slurm", "current"), ("EASY", "EASY")):
            assert bars[label] == [rows[(part, schedule)][f"AWRT{g}"] / 3600.0 for g in range(1, 6)], (title, label)
    page = (result.run_dir / "report.html").read_text()
    assert "first point: " + html.escape(start) in page


def test_plot_draws_an_evolve_slurm_run_folder(finished, monkeypatch, capsys, tmp_path):
    """README: `schedlab plot RUN --out DIR` takes "a run folder of any kind"; it refused evolve
    slurm's. It draws the report's AWRT chart from comparison.json (nothing simulated again)."""
    from conftest import run
    from schedlab.report import run_report

    _, result = finished
    drawn = []
    figure = run_report.awrt_groups_figure
    monkeypatch.setattr(run_report, "awrt_groups_figure", lambda *a, **k: drawn.append(figure(*a, **k)))
    code, out, err = run(capsys, "plot", result.run_dir, "--out", tmp_path / "plots")
    assert code == 0, err
    assert (tmp_path / "plots" / "convergence.png").stat().st_size > 0
    (panels,) = drawn
    rows = {(r["set"], r["schedule"]): r for r in result.comparison}
    for (title, bars), part in zip(panels, ("train", "test")):
        assert list(bars) == ["tuned slurm", "current slurm", "EASY"], title
        assert bars["current slurm"] == [rows[(part, "current")][f"AWRT{g}"] / 3600.0 for g in range(1, 6)]
        assert bars["EASY"] == [rows[(part, "EASY")][f"AWRT{g}"] / 3600.0 for g in range(1, 6)]


def test_ctrl_c_then_the_same_command_ends_like_an_uninterrupted_run(finished, tmp_path):
    from schedlab.optimize.evolve_slurm import evolve_slurm

    cfg, whole = finished
    (tmp_path / "site.conf").write_text(CONF)

    def press_ctrl_c(label, generation, evaluations):
        if evaluations == 6:  # inside generation 2: generation 1 is committed
            raise KeyboardInterrupt

    part = evolve_slurm(config(tmp_path), tmp_path / "run", workers=1, on_evaluation=press_ctrl_c)
    assert part.interrupted and part.run.generations == 1
    assert not (tmp_path / "run" / "slurm.conf.fragment").exists()
    rest = evolve_slurm(config(tmp_path), tmp_path / "run", workers=1)
    assert not rest.interrupted and rest.run.resumed_from == 1
    assert history(tmp_path / "run") == history(whole.run_dir)
    for name in ("slurm.conf.fragment", "sacctmgr.sh", "best.json"):
        assert (tmp_path / "run" / name).read_text() == (whole.run_dir / name).read_text()


def test_same_seed_same_result_on_one_and_two_workers(finished, tmp_path):
    from schedlab.optimize.evolve_slurm import evolve_slurm

    _, one = finished
    (tmp_path / "site.conf").write_text(CONF)
    two = evolve_slurm(config(tmp_path), tmp_path / "run", workers=2)
    assert two.values == one.values and two.best_f == one.best_f
    assert history(tmp_path / "run") == history(one.run_dir)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("conf, extra, words", [
    ("PriorityType=priority/multifactor\nbf_window 30\n", [], ["site.conf:2: expected Key=Value, got 'bf_window'"]),
    (CONF, ["--params", "PriorityWeightAge,Nope"], ["--params", "unknown parameter 'Nope'", "bf_max_job_test"]),
    ("NodeName=n[1-4] CPUs=25\nPartitionName=small Nodes=n[1-2] Default=YES\n", [],
     ["job", "CPUs but partition small has 50"]),
    (CONF, ["--slurm-option", "queue_map=nowhere"], ["queue_map='nowhere'"]),
])
def test_bad_input_is_one_line_before_any_write(tmp_path, capsys, conf, extra, words):
    from conftest import one_line_error

    from schedlab.cli.main import main

    (tmp_path / "site.conf").write_text(conf)
    out = tmp_path / "run"
    args = ["evolve", "slurm", "KTH-SP2", "--months", "1", "--slurm-conf", str(tmp_path / "site.conf"),
            "--out", str(out), "--generations", "1", "--lambda", "2", "--mu", "1", "--workers", "1"]
    if "--slurm-option" not in extra:
        args += ["--slurm-option", "queue_map=default"]
    code = main(args + extra)
    one_line_error(code, capsys.readouterr().err, *words)
    assert not out.exists()


def test_the_largest_documented_bf_max_job_test_costs_about_what_the_default_costs():
    # bf_max_job_test's documented Max is 1,000,000; each backfill pass that started a job grew its buffers by
    # that many entries (zero-filled), so a tuning run at the top of the range took ~200x the CPU for the same
    # schedule (KTH-SP2, 4 months: 9.4 s vs 0.05 s). The buffers now double.
    import time

    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm
    from schedlab.workload.spec import TraceSpec, prepare_trace

    w = prepare_trace(TraceSpec("KTH-SP2", months=1))
    cost, starts = {}, {}
    for test in (500, 1_000_000):
        policy = SlurmPolicy(parse_conf(f"SchedulerParameters=bf_max_job_test={test}\n", "t.conf"),
                             SlurmOptions(queue_map="default"))
        simulate_slurm(w, w.machine_procs, policy)  # compiled and warm
        t = time.process_time()
        s = simulate_slurm(w, w.machine_procs, policy)
        cost[test] = time.process_time() - t
        validate_schedule(s)
        starts[test] = s.start
    assert np.array_equal(starts[500], starts[1_000_000])  # KTH's queue never holds 500 jobs
    assert cost[1_000_000] < 10 * cost[500] + 0.05, cost
