"""`schedlab simulate --policy scojo` and `compare --policies ...,scojo`: keys, agreement with the
API, one-line errors for bad shares, a negative cycle and unclean traces."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import one_line_error, run
from schedlab.cli.simulate import JSON_KEYS
from schedlab.errors import WorkloadError
from schedlab.metrics import compute_metrics
from schedlab.metrics.timeshare import timeshare_metrics
from schedlab.sim import validate_schedule
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import Workload, read_swf, write_swf
from schedlab.workload.lublin import lublin


@pytest.fixture(scope="module")
def lublin_swf(tmp_path_factory):
    path = tmp_path_factory.mktemp("lublin") / "l.swf"
    write_swf(lublin(600, 128, seed=35), path)
    return path


def test_json_has_usual_keys_and_time_sharing_keys_matching_the_api(capsys, lublin_swf):
    code, out, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo", "--shares", "0.6,0.3,0.1",
                       "--cycle", "1800", "--json")
    assert code == 0
    row = json.loads(out)
    assert list(row)[: len(JSON_KEYS)] == list(JSON_KEYS)
    assert set(row["bsld"]) == {"short", "medium", "long"}
    assert set(row["bsld_by_class_width"]["long"]) == {"narrow", "medium", "wide"}
    s = simulate_scojo(read_swf(lublin_swf), 128, ScojoConfig(shares=(0.6, 0.3, 0.1), cycle=1800))
    validate_schedule(s)
    ts = timeshare_metrics(s)
    assert row["preemptions"] == ts["preemptions"] > 0
    assert row["bsld"] == pytest.approx(ts["bsld"])
    assert row["mean_response"] == pytest.approx(compute_metrics(s)["mean_response"])
    # response includes suspended time: the mean response exceeds the mean of wait + run time
    p = s.processing
    assert row["mean_response"] > float(np.mean(s.start - s.workload.submit + p))


def test_no_smart_backfill_changes_the_schedule(capsys, lublin_swf):
    _, a, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo", "--json")
    _, b, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo", "--no-smart-backfill", "--json")
    assert json.loads(a)["mean_wait"] != json.loads(b)["mean_wait"]


def test_compare_has_a_scojo_row(capsys, lublin_swf, tmp_path):
    out_csv = tmp_path / "c.csv"
    code, out, _ = run(capsys, "compare", lublin_swf, "--policies", "easy,scojo,scojo/no-smart-backfill", "--csv", out_csv)
    assert code == 0 and "scojo" in out
    text = out_csv.read_text().splitlines()
    assert [line.split(",")[0] for line in text[1:]] == ["easy", "scojo", "scojo/no-smart-backfill"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--shares", "0.5,0.4,0.2"], ["sum to 1"]),
        (["--shares", "0.5,0.5"], ["--shares"]),
        (["--cycle", "-10"], ["--cycle"]),
    ],
)
def test_bad_options_one_line_exit_2(capsys, lublin_swf, args, words):
    code, _, err = run(capsys, "simulate", lublin_swf, "--policy", "scojo", *args)
    one_line_error(code, err, *words)


def test_unclean_trace_one_line_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n2 5 0 oops 2\n")
    code, _, err = run(capsys, "simulate", bad, "--policy", "scojo")
    one_line_error(code, err, "bad.swf")
    wide = tmp_path / "wide.swf"
    wide.write_text("; MaxProcs: 4\n1 0 0 100 8 -1 -1 8 100 -1 1 1 1 1 1 1 -1 -1\n")
    code, _, err = run(capsys, "simulate", wide, "--policy", "scojo", "--procs", "4")
    one_line_error(code, err, "wider than the machine")
    # the API refuses an unclean workload too
    w = Workload.from_columns({"submit": [0, 1], "runtime": [10, -1], "estimate": [10, 10], "procs": [1, 1]})
    with pytest.raises(WorkloadError, match="negative runtime"):
        simulate_scojo(w, 4)


def test_gantt_figure_written_and_bad_windows_refused(capsys, lublin_swf, tmp_path):
    png = tmp_path / "g.png"
    code, _, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo", "--gantt", png, "--gantt-window", "0,50000")
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "simulate", lublin_swf, "--policy", "scojo", "--gantt", png, "--gantt-window", "9,3")
    one_line_error(code, err, "--gantt-window")
    code, _, err = run(capsys, "simulate", lublin_swf, "--policy", "easy", "--shares", "0.5,0.5,0")
    one_line_error(code, err, "--policy scojo")


def test_scojo_opt_and_bottomline_json_match_the_api(capsys, lublin_swf, tmp_path):
    """--policy scojo-opt / scojo-bottomline: the scojo keys plus "groups" and "pruned_share", equal
    to the API's counters; compare has their rows."""
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig

    code, out, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo-opt", "--search", "lds", "--budget", "500",
                       "--group-sizes", "20,20", "--json")
    assert code == 0
    row = json.loads(out)
    s = simulate_scojo(read_swf(lublin_swf), 128,
                       ScojoConfig(optimizer=GroupConfig(search="lds", budget=500, group_max=(20, 20), group_min=(5, 10))))
    validate_schedule(s)
    st = s.timeshare.search_stats
    assert row["groups"] == st["groups"] > 0 and row["pruned_share"] == pytest.approx(st["pruned_share"])
    assert row["strategy"] == "scojo-opt" and row["bsld"] == pytest.approx(timeshare_metrics(s)["bsld"])
    code, out, _ = run(capsys, "simulate", lublin_swf, "--policy", "scojo-bottomline", "--budget", "50",
                       "--no-smart-backfill", "--json")
    row = json.loads(out)
    s = simulate_scojo(read_swf(lublin_swf), 128, ScojoConfig(smart_backfill=False, optimizer=BottomLineConfig(budget=50)))
    assert code == 0 and row["groups"] == 0 and row["mean_wait"] == pytest.approx(compute_metrics(s)["mean_wait"])
    out_csv = tmp_path / "c.csv"
    code, out, _ = run(capsys, "compare", lublin_swf, "--policies", "scojo,scojo-opt/first-level,scojo-bottomline",
                       "--csv", out_csv)
    assert code == 0
    assert [x.split(",")[0] for x in out_csv.read_text().splitlines()[1:]] == [
        "scojo", "scojo-opt/first-level", "scojo-bottomline"]


@pytest.mark.parametrize("argv, words", [
    (["--policy", "scojo-opt", "--search", "bfs"], ["--search"]),
    (["--policy", "scojo-opt", "--budget", "0"], ["--budget"]),
    (["--policy", "scojo-opt", "--group-sizes", "30"], ["--group-sizes"]),
    (["--policy", "scojo-bottomline", "--first-level-only"], ["--policy scojo-opt"]),
    (["--policy", "scojo", "--budget", "10"], ["scojo-opt"]),
    (["--policy", "easy", "--search", "dds"], ["scojo-opt"]),
])
def test_bad_opt_options_one_line_exit_2(capsys, lublin_swf, argv, words):
    code, _, err = run(capsys, "simulate", lublin_swf, *argv)
    one_line_error(code, err, *words)
