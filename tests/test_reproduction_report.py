"""docs/reproduction.md under issue 45's rubric: every verdict is a rubric word, every *differs,
explained* verdict links the committed result of the run that switched its reading, and the counts at
the top are the ones its tables give. The rules are first checked on a small hand-written report."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from schedlab.papers.verdicts import RUBRIC, VerdictError, check, current_summary, main, parse, summary, write_summary

REPORT = Path(__file__).resolve().parents[1] / "docs" / "reproduction.md"

SMALL = """# report

{begin}
stale
{end}

## AA: first paper

| item | ours | verdict |
|---|---|---|
| Table 1 | 1 | reproduced |
| Table 2 | 2 | reproduced (CTC; KTH); not made (SDSC95: missing) |
| Fig. 1 | 3 | differs, explained ([switched](results/run.json)) |

## BB: second paper

| item | verdict |
|---|---|
| Fig. 2 | reproduced in direction (AWRT_2 +13 against +9 %) |
| Fig. 3 | differs, explained (another log) |
| Fig. 4 | explained in part (a reading) |
"""


def small_report(tmp_path: Path, run_file: bool = True) -> Path:
    from schedlab.papers.verdicts import BEGIN, END

    (tmp_path / "results").mkdir()
    if run_file:
        (tmp_path / "results" / "run.json").write_text("{}")
    path = tmp_path / "report.md"
    path.write_text(SMALL.format(begin=BEGIN, end=END))
    return path


def test_clauses_split_outside_parentheses_and_take_the_longest_word(tmp_path):
    clauses = parse(small_report(tmp_path).read_text())
    # Table 2's "(CTC; KTH)" is one note: the cell has two clauses, not three
    assert [(c.paper, c.item, c.word) for c in clauses] == [
        ("AA", "Table 1", "reproduced"),
        ("AA", "Table 2", "reproduced"),
        ("AA", "Table 2", "not made"),
        ("AA", "Fig. 1", "differs, explained"),
        ("BB", "Fig. 2", "reproduced in direction"),
        ("BB", "Fig. 3", "differs, explained"),
        ("BB", "Fig. 4", None),
    ]
    assert clauses[1].text == "reproduced (CTC; KTH)"


def test_check_names_a_foreign_word_and_an_explained_verdict_without_its_run(tmp_path):
    path = small_report(tmp_path)
    problems = check(path)
    assert len(problems) == 2
    assert "'Fig. 3'" in problems[0] and "links no result" in problems[0]
    assert "'Fig. 4'" in problems[1] and "not one of the rubric's words" in problems[1]


def test_check_names_an_explained_verdict_whose_run_file_is_missing(tmp_path):
    path = small_report(tmp_path, run_file=False)
    problems = check(path)
    assert any("'Fig. 1'" in p and "results/run.json" in p for p in problems)


def test_summary_counts_clauses_per_paper_and_word(tmp_path):
    path = small_report(tmp_path)
    text = path.read_text().replace("| Fig. 4 | explained in part (a reading) |", "| Fig. 4 | illustration |")
    # by hand: AA reproduced 2, not made 1, explained 1; BB in direction 1, explained 1, illustration 1
    header, rule, aa, bb, total = summary(parse(text)).splitlines()
    assert header == "| paper | " + " | ".join(RUBRIC) + " | all |"
    assert aa == "| AA | 2 | 0 | 1 | 0 | 0 | 1 | 0 | 4 |"
    assert bb == "| BB | 0 | 1 | 1 | 0 | 0 | 0 | 1 | 3 |"
    assert total == "| all | 2 | 1 | 2 | 0 | 0 | 1 | 1 | 7 |"
    written = write_summary(text)
    assert "stale" not in written and current_summary(written) == summary(parse(text))
    assert write_summary(written) == written


def test_bad_report_is_one_line_error(tmp_path, capsys):
    path = small_report(tmp_path)
    with pytest.raises(VerdictError, match=r":\d+: verdict 'explained in part \(a reading\)' is not one"):
        summary(parse(path.read_text(), path), path)
    path.write_text("no markers\n")
    assert main([str(path), "--write"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no summary block" in err


def test_report_states_the_rubric_before_the_tables():
    head = REPORT.read_text().split("\n## ")[0]
    for word in RUBRIC:
        assert f"*{word}*" in head, word


def test_report_verdicts_follow_the_rubric():
    assert check(REPORT) == []


def test_report_explained_runs_are_committed():
    clauses = [c for c in parse(REPORT.read_text()) if c.word == "differs, explained"]
    targets = sorted({t.split("#")[0] for c in clauses for t in c.links})
    if not targets:
        return
    try:
        out = subprocess.run(["git", "ls-files", "--error-unmatch", *targets], cwd=REPORT.parent,
                             capture_output=True, text=True, check=False)
    except OSError:
        pytest.skip("git is not available")
    if "not a git repository" in out.stderr:
        pytest.skip("not a git checkout")
    assert out.returncode == 0, out.stderr


def test_report_summary_is_generated_from_its_tables():
    text = REPORT.read_text()
    assert current_summary(text, REPORT) == summary(parse(text, REPORT), REPORT)
