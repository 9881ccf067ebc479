"""Issue 43's minor CLI items: what the help, the tables and the progress lines say matches what the
commands take and do."""

from __future__ import annotations

from conftest import run


def test_an_on_off_flag_shows_no_value_type_in_the_help(capsys, monkeypatch):
    """The help showed ``--json <bool>`` while ``--json true`` is refused; a flag takes no value."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0
    line = next(x for x in out.splitlines() if "--json " in x)
    assert "<bool>" not in out and "bool" not in line.split("Print")[0], line
    assert "<int>" in next(x for x in out.splitlines() if "--procs" in x)  # options with a value keep their type
    code, _o, err = run(capsys, "simulate", "KTH-SP2", "--months", "1", "--json", "true")
    assert code == 2 and "true" in err
