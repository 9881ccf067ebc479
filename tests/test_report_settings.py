"""Reports state what ran (issue 43 item 7): the settings block and run line of a ``rules iterative``
and a ``rules evolve`` report.html, ``evolve slurm``'s config.json start point and its AWRT chart.
Tiny budgets on the first month of the bundled KTH-SP2."""

from __future__ import annotations

import html
import json
import re

from conftest import run

PARTS = {"SD": [2], "Um": [50, 90], "PRCWQ1": [], "PRCWQ2": [30], "PRCWQ3": [], "PRCWQ4": [], "PRCWQ5": []}


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_a_rules_iterative_report_states_algorithm_2_and_its_simulations(capsys, tmp_path):
    """12 situation classes (SD 2 ranges x Um 3 x PRCWQ2 2); each visited class simulates the 13
    strategies on the one training workload, so the run line's simulations are 13 x the visited
    classes (history.csv's visited column), the console's count; no optimizer, mu or seed exists."""
    (tmp_path / "parts.json").write_text(json.dumps(PARTS))
    out = tmp_path / "R"
    code, stdout, err = run(capsys, "rules", "iterative", "KTH-SP2", "--months", "1", "--partitions",
                            tmp_path / "parts.json", "--out", out, "--workers", "1")
    assert code == 0, err
    visited = sum(line.split(",")[2] == "True" for line in (out / "history.csv").read_text().splitlines()[1:])
    assert 0 < visited <= 12
    assert f"after {13 * visited} simulations" in stdout
    page = _text((out / "report.html").read_text())
    assert "None" not in page.split("Against EASY")[0], page[:2000]
    assert "Algorithm 2" in page and "12 situation classes" in page and "13 strategies" in page
    assert f"iterative: 12 situation classes, {13 * visited} simulations" in page


def test_a_rules_evolve_report_states_the_symbiotic_settings_given(capsys, tmp_path):
    out = tmp_path / "R"
    code, _o, err = run(capsys, "rules", "evolve", "KTH-SP2", "--months", "1", "--generations", "1", "--workers", "1",
                        "--rules", "5", "--mu", "10", "--lambda", "10", "--participations", "2", "--rho", "4",
                        "--seed", "7", "--out", out)
    assert code == 0, err
    head = _text((out / "report.html").read_text()).split("Against EASY")[0]
    assert "None" not in head, head
    for words in ("5 rules per base", "mu=10", "lambda=10", "rho=4", "generations=1", "seed=7"):
        assert words in head, (words, head)
