"""The README's Python section runs as it stands (issue 36 item 5: whatever a verb does, a notebook
can do with the same objects), and what it prints and writes is what the verbs give."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_block() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the README's Python section holds one python block"
    return blocks[0]


def test_the_readme_python_section_runs_and_agrees_with_the_verbs(tmp_path, monkeypatch, capsys):
    from schedlab.cli.main import main
    from schedlab.sim import validate_schedule

    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(_python_block(), "README.md (Python section)", "exec"), scope)  # noqa: S102
    out = capsys.readouterr().out.splitlines()
    for s in scope["schedules"].values():
        validate_schedule(s)
    # the notebook's figures are the verbs': simulate --policy easy/scojo on the same trace options
    for line, policy in zip(out[:2], ("easy", "scojo")):
        name, value = line.split()
        assert name == policy
        assert main(["simulate", "KTH-SP2", "--months", "2", "--policy", policy, "--objective",
                     "10*AWRT1 + 4*AWRT2", "--json"]) == 0
        import json

        row = json.loads(capsys.readouterr().out)
        assert int(value) == round(row["objective"])
    run = scope["run"]
    assert not run.interrupted and run.best is not None
    assert {"config.json", "history.csv", "best.json"} <= {p.name for p in (tmp_path / "run-ge").iterdir()}
    best, f = out[2].rsplit(" ", 2)[0], float(out[2].rsplit(" ", 2)[1])
    assert f == pytest.approx(run.best_f) and best == str(run.best)
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["gantt.png", "plots.html", "utilisation.png", "waits.png"]


def test_the_readme_python_block_uses_the_face_alone():
    """Issue 46 item 3: the block needed 6 of its 7 import lines below ``schedlab``; a notebook lives on
    ``import schedlab as sl`` (at most two import lines, none below the package)."""
    imports = [line for line in _python_block().splitlines() if re.match(r"\s*(import|from)\s", line)]
    assert len(imports) <= 2, imports
    assert not [line for line in imports if re.search(r"schedlab\.", line)], imports
