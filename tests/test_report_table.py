"""Metric tables: Rich rendering (best value marked, fits the terminal) and CSV written atomically."""

from __future__ import annotations

import csv
import io

import pytest
from rich.console import Console

from schedlab.report.table import format_value, metrics_csv, metrics_table, write_metrics_csv

ROWS = [
    ("easy", {"UTIL": 69.9, "AWRT": 75641.2, "AWRT1": 67397.0, "AWRT5": None, "mean_bounded_slowdown": 92.834}),
    ("fcfs", {"UTIL": 69.85, "AWRT": 407859.0, "AWRT1": 505675.0, "AWRT5": None, "mean_bounded_slowdown": 6821.9}),
]


def render(table, width=200) -> str:
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor")
    console.print(table)
    return console.file.getvalue()


def test_format_value():
    assert format_value("AWRT", 75641.24) == "75,641"
    assert format_value("AWRT", 12.345) == "12.35"
    assert format_value("UTIL", 69.904) == "69.90"
    assert format_value("jobs", 28467.0) == "28,467"
    assert format_value("AWRT3", None) == "-"
    assert format_value("sim_seconds", 0.12345) == "0.123"


def test_best_value_of_each_column_is_marked():
    table = metrics_table(ROWS, columns=("UTIL", "AWRT", "AWRT5"))
    plain = Console(file=io.StringIO(), width=200)
    plain.print(table)
    text = plain.file.getvalue()
    assert "75,641" in text and "407,859" in text and "69.90" in text
    styled = render(table)
    # higher UTIL and lower AWRT win (bold green = ESC[1;32m); an undefined column has no winner
    assert "\x1b[1;32m69.90" in styled and "\x1b[1;32m75,641" in styled
    assert "\x1b[1;32m407,859" not in styled and "\x1b[1;32m69.85" not in styled


def test_csv_has_all_columns_and_full_precision(tmp_path):
    text = metrics_csv(ROWS, columns=("UTIL", "AWRT", "AWRT5", "mean_bounded_slowdown"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["strategy"] for r in rows] == ["easy", "fcfs"]
    assert float(rows[0]["AWRT"]) == 75641.2 and rows[0]["AWRT5"] == ""
    assert float(rows[0]["mean_bounded_slowdown"]) == 92.834
    out = write_metrics_csv(tmp_path / "t.csv", ROWS, columns=("UTIL", "AWRT"))
    assert out.read_text().splitlines()[0] == "strategy,UTIL,AWRT"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # no temporary file left behind


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    import os

    from schedlab.report import table

    target = tmp_path / "t.csv"
    target.write_text("old\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        table.write_text_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_compare_table_drops_columns_to_fit_a_narrow_terminal(monkeypatch, capsys):
    from schedlab.cli import simulate as cli

    full = {k: 1000.0 + i for i, k in enumerate(("UTIL", "AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "AWWT",
                                                 "mean_wait", "mean_response", "mean_slowdown",
                                                 "mean_bounded_slowdown", "makespan", "objective", "sim_seconds"))}
    buf = io.StringIO()
    monkeypatch.setattr(cli, "_console", lambda file=None: Console(file=buf, width=110))
    cli._print_table([("easy", full), ("fcfs", full)], title="t", caption="c", label="strategy")
    text, notice = buf.getvalue().rstrip("\n").rsplit("\n", 1)
    assert max(len(line) for line in text.splitlines()) <= 110
    assert "AWRT1" in text and "objective" in text and "UTIL" in text  # the telling columns stay
    assert "makespan" not in text and "makespan s" in notice  # the least telling ones go first, and are named


def test_no_negative_zero():
    """A value that rounds to zero prints as 0.00 (UTIL -0.00 was a difference of -1e-14 points)."""
    from schedlab.cli.versus_easy import comparison_table

    assert format_value("UTIL", -1e-12) == "0.00" and format_value("vs_easy_pct", -0.004) == "0.00"
    assert format_value("AWRT", -0.4) == "-0.40" and format_value("objective", -120.4) == "-120"
    assert format_value("vs_easy_pct", -0.006) == "-0.01" and format_value("sim_seconds", -0.0) == "0.000"
    row = {"workload": "w", "UTIL": 61.9, "UTIL_easy": 61.9, "UTIL_diff_points": -1.4e-14, "objective_improvement_pct": -0.001}
    text = render(comparison_table([row], "t"))
    assert "-0.00" not in text and text.count("0.00") >= 2


def test_compare_table_in_a_pipe_is_readable_and_says_what_it_hides(capsys, monkeypatch):
    from schedlab.cli.main import main

    for columns, width in ((None, 120), ("80", 80)):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert main(["compare", "KTH-SP2", "--months", "1"]) == 0
        lines = capsys.readouterr().out.rstrip("\n").splitlines()
        assert max(len(line) for line in lines) <= width, max(lines, key=len)
        header = next(line for line in lines if "strategy" in line and "\u2503" in line)
        assert "objective" in header and "AWRT1" in header  # the telling columns stay
        assert f"did not fit in {width} characters" in lines[-1] and "--csv FILE or --json" in lines[-1], lines[-1]
    assert main(["simulate", "KTH-SP2", "--months", "1"]) == 0  # simulate has no --csv
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert "did not fit in 80 characters" in last and last.endswith(": --json gives every column"), last


def test_json_names_the_trace_alike_in_simulate_and_compare(capsys, tmp_path):
    import json
    import shutil

    from conftest import BUNDLED_KTH
    from schedlab.cli.main import main

    copy = tmp_path / "kth.swf.gz"
    shutil.copy(BUNDLED_KTH, copy)
    for trace, name in (("KTH-SP2", "KTH-SP2-1996-2.1-cln"), (str(copy), "kth")):
        assert main(["simulate", trace, "--months", "1", "--json"]) == 0
        one = json.loads(capsys.readouterr().out)
        assert main(["compare", trace, "--months", "1", "--policies", "easy", "--json"]) == 0
        many = json.loads(capsys.readouterr().out)
        assert one["trace"] == many["trace"] == name, (one["trace"], many["trace"])
