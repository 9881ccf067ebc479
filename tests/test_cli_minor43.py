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


NAME = "CTC-SP2-1996-3.1-cln[months 3-4]"  # workload.spec names a --split-months part so


def _rendered(table, width: int) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(table)
    return console.export_text()


def test_the_versus_easy_table_names_its_units_and_never_cuts_a_workload_name():
    """One unit, seconds, named in the headers (evolve tables had none); the workload name is never cut
    to "CTC-SP2-1996-3.…" (then train and test rows read alike): the table prints as wide as it needs."""
    from schedlab.cli.versus_easy import comparison_table, fitting_width

    row = {"workload": NAME, "set": "test", "objective": 12_345_678.9, "objective_easy": 12_345_678.9,
           **{f"AWRT{g}": 123_456.78 for g in range(1, 6)}, **{f"AWRT{g}_easy": 123_456.78 for g in range(1, 6)},
           **{f"AWRT{g}_improvement_pct": -12.34 for g in range(1, 6)}, "objective_improvement_pct": -12.34,
           "UTIL": 50.0, "UTIL_easy": 60.0, "UTIL_diff_points": -10.0}
    table = comparison_table([row], "t", "rule base", threshold=5.0)
    text = _rendered(table, fitting_width(table))  # the width print_wide gives it: 140 columns or more
    head = text.split("┡")[0]
    assert "AWRT1 s" in head and "UTIL %" in head, head
    first = "".join(line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│"))
    assert "…" not in text and first.replace(" ", "").startswith(NAME.replace(" ", "")), text


def test_the_evolve_slurm_table_is_in_seconds_as_every_other_verb_s():
    """It showed AWRT in hours ("AWRT1 h"): 7,200 s read 2.00."""
    from schedlab.optimize.evolve_slurm import comparison_table_rows

    row = {"set": "train", "workload": NAME, "schedule": "tuned", "objective": 5.0, "gain_vs_easy_pct": 1.0,
           "gain_vs_current_pct": 2.0, "AWRT1": 7200.0, "AWRT2": 3600.0, "AWRT": 5400.0, "UTIL": 61.5}
    head, (cells,) = comparison_table_rows([row])
    shown = dict(zip(head, cells))
    assert shown["AWRT1 s"] == "7,200.00" and shown["AWRT2 s"] == "3,600.00" and shown["AWRT s"] == "5,400.00"
    assert shown["UTIL %"] == "61.50" and shown["workload"] == NAME


def test_a_split_run_is_titled_by_its_training_months():
    """`--months 3 --split-months 2` trains on 2 months; titles said "first 3 months"."""
    from schedlab.report.run_report import setup_words, training_setup

    assert setup_words({"months": 3, "split_months": 2}) == "first 2 months (month 3 held out)"
    assert setup_words({"months": 6, "split_months": 1}) == "first 1 month (months 2-6 held out)"
    assert setup_words({"split_months": 2}) == "first 2 months (the months after held out)"
    assert setup_words({"months": 3}) == "first 3 months"
    assert "first 2 months (month 3 held out)" in training_setup({"traces": ["KTH-SP2"], "months": 3, "split_months": 2})


def test_training_and_held_out_bests_have_their_own_axes(tmp_path):
    """The held-out objective (other months: another scale) was drawn on the training objective's axis."""
    from schedlab.report.run_report import convergence_figure

    rows = [{"gen": g, "best": 10.0 - g, "median": 12.0, "test": 1000.0 + g} for g in (1, 2, 3)]
    panels = convergence_figure({"free": rows}, tmp_path / "c.png", title="t")
    assert panels == [("training objective (lower is better)", ["free best", "free median"]),
                      ("held-out objective", ["free best on the held-out test set"])]
    assert (tmp_path / "c.png").stat().st_size > 0
    alone = convergence_figure({"free": [{k: v for k, v in r.items() if k != "test"} for r in rows]}, tmp_path / "d.png")
    assert alone == [("training objective (lower is better)", ["free best", "free median"])]


def test_evolve_greedy_says_while_it_prepares_the_workloads(capsys, tmp_path, monkeypatch):
    """On full CTC `evolve greedy` was silent 24 s before generation 1 (reading, groups, EASY's
    schedules); a preparation longer than the notice delay now has its line, before the first
    generation's (the delay: the kernels' compile line's)."""
    import time

    from schedlab.cli import compiling
    from schedlab.optimize import evolve

    real = evolve.prepare
    monkeypatch.setattr(evolve, "prepare", lambda config: (time.sleep(compiling.NOTICE_AFTER + 0.5), real(config))[1])
    code, _o, err = run(capsys, "evolve", "greedy", "KTH-SP2", "--months", "1", "--generations", "1", "--mu", "2",
                        "--lambda", "4", "--workers", "1", "--out", tmp_path / "run")
    assert code == 0, err
    lines = err.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("preparing the workloads"))
    assert " done in " in lines[at], lines[at]
    assert at < next(i for i, ln in enumerate(lines) if ln.startswith("free  gen 1/1")), err


def test_the_grid_hypervolume_plot_has_a_title_and_units(tmp_path):
    """Two sites, AWRT limit 50,000 s each: the hypervolume is an area of AWRT x AWRT, s^2."""
    from schedlab.report.grid_report import plot_hypervolume

    drawn = plot_hypervolume(tmp_path / "hv.png", [{"gen": 1, "hypervolume": 1.0}, {"gen": 2, "hypervolume": 2.0}],
                             [50_000.0, 50_000.0], ["KTH-SP2", "SDSC-SP2"])
    assert drawn is not None
    title, ylabel = drawn
    assert "Hypervolume" in title and "KTH-SP2 + SDSC-SP2" in title and "50,000, 50,000 s" in title
    assert ylabel == "hypervolume (s^2)"
    assert (tmp_path / "hv.png").stat().st_size > 0


def test_the_readme_main_command_runs_every_policy_its_sentence_names(capsys):
    """README: "compare FCFS, list scheduling, EASY and conservative backfilling and the Greedy
    scheduler"; its command left greedy out."""
    import json
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    sentence, command = re.search(r"Run the main job — (.*?):\n+```sh\n(.*?)\n```", readme, re.S).groups()
    assert "Greedy scheduler" in sentence
    policies = re.search(r"schedlab compare KTH-SP2 --policies (\S+)$", command).group(1).split(",")
    assert policies == ["fcfs", "list", "easy", "conservative", "greedy"]
    code, out, err = run(capsys, "compare", "KTH-SP2", "--months", "1", "--policies", ",".join(policies), "--json")
    assert code == 0, err
    assert [r["strategy"] for r in json.loads(out)["rows"]] == policies


def test_an_undefined_group_names_the_groups_with_jobs_and_an_objective_they_support(capsys, tmp_path):
    """SDSC-BLUE-like: no group-1 jobs, so the default objective 10*AWRT1 + 4*AWRT2 is undefined; the
    error now names the groups that have jobs and an objective over them."""
    from schedlab.metrics import Objective
    from schedlab.metrics.objective import ObjectiveError

    values = {"AWRT": 7.0, "AWRT1": None, "AWRT2": None, "AWRT3": 5.0, "AWRT4": None, "AWRT5": 2.0}
    try:
        Objective("10*AWRT1 + 4*AWRT2")(values)
    except ObjectiveError as exc:
        message = str(exc)
    assert "user group 1 has no jobs; groups with jobs: 3, 5" in message
    assert "--objective '10*AWRT3 + 4*AWRT5'" in message and "\n" not in message
    assert Objective("10*AWRT3 + 4*AWRT5")(values) == 58.0  # the suggestion is defined here
    # the CLI: one user, so group 1 only; the default objective's AWRT2 is undefined
    lines = ["; Version: 2.2", "; MaxProcs: 4"] + [
        f"{i} {i} 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1" for i in range(1, 5)]
    (tmp_path / "one.swf").write_text("\n".join(lines) + "\n")
    code, _o, err = run(capsys, "simulate", tmp_path / "one.swf")  # a warning: the table shows "-"
    assert "groups with jobs: 1;" in err and "--objective 'AWRT1'" in err, err
    code, _o, err = run(capsys, "evolve", "greedy", tmp_path / "one.swf", "--generations", "1", "--mu", "1",
                        "--lambda", "2", "--workers", "1", "--out", tmp_path / "run")  # training refuses it
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--objective 'AWRT1'" in err, err
