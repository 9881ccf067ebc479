"""Policy names, run reports and figures by kind are callable from Python without ``schedlab.cli`` (issue 46
item 2): ``strategy.registry.parse_policy`` reads every kind's policy names through its row's ``policy``
hook; ``schedlab.report.write(run_folder)`` writes what a run's verb writes (report.html and its figures,
or ``plot RUN``'s figures for the kinds without a report); ``Schedule.plot`` draws a schedule."""

from __future__ import annotations

import json
import shutil

import matplotlib
import matplotlib.image
import pytest

from schedlab.errors import StrategyError
from schedlab.strategy import Criterion, Strategy, registry

matplotlib.use("Agg")


# ---------------------------------------------------------------------------- policy names of every kind
@pytest.mark.parametrize("spec, expected", [
    ("easy", Strategy("easy", "submit")),
    (" easy/estimate ", Strategy("easy", "estimate")),
    ("conservative/procs", Strategy("conservative", "procs")),
    # greedy: the Greedy scheduler, f2 with K = 5..1 (group 1 first) and a = b = 0, FCFS dispatch
    ("greedy", Strategy.greedy(Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0)))),
    ("easy/greedy", Strategy.greedy(Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0)), dispatch="easy")),
])
def test_parse_policy_reads_the_rigid_kinds_names(spec, expected):
    assert registry.parse_policy(spec) == expected


@pytest.mark.parametrize("spec, engine, smart, search", [
    ("scojo", "scojo", True, None),
    ("scojo/no-smart-backfill", "scojo", False, None),
    ("scojo-opt/lds", "scojo-opt", True, "lds"),
    ("scojo-bottomline/no-smart-backfill", "scojo-bottomline", False, None),
])
def test_parse_policy_reads_the_time_sharing_names(spec, engine, smart, search):
    from schedlab.strategy.scojo_config import ScojoConfig

    config = registry.parse_policy(spec)
    assert config == ScojoConfig.from_options(engine, smart_backfill=smart, **({"search": search} if search else {}))
    assert config.smart_backfill is smart
    if search:
        assert config.optimizer.search == search


def test_parse_policy_hands_back_the_given_slurm_policy_and_reads_strategy_files(tmp_path):
    site = object()  # the Slurm kind's config comes from the site's slurm.conf, not from the name
    assert registry.parse_policy("slurm", slurm=site) is site
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"kind": "rigid", "dispatch": "easy", "order": "procs"}))
    assert registry.parse_policy(str(path)) == Strategy("easy", "procs")


@pytest.mark.parametrize("spec, kwargs, words", [
    ("fifo", {}, ["unknown policy 'fifo'", "easy", "greedy", "scojo-opt", "slurm", "rulebase"]),
    ("fifo/estimate", {}, ["unknown policy 'fifo'"]),
    ("scojo-opt/fast", {}, ["scojo-opt/fast", "scojo-opt/lds"]),
    ("scojo", {"engines": False}, ["'scojo'", "time-sharing engine"]),
    ("slurm", {}, ["slurm", "--slurm-conf"]),
    ("slurm/estimate", {"slurm": object()}, ["slurm", "no order"]),
    ("greedy/estimate", {}, ["greedy/estimate", "own queue order"]),
    ("missing.json", {}, ["missing.json", "cannot read"]),
])
def test_a_bad_policy_name_is_one_line_naming_it(spec, kwargs, words):
    with pytest.raises(StrategyError) as exc:
        registry.parse_policy(spec, **kwargs)
    text = str(exc.value)
    assert "\n" not in text
    for word in words:
        assert word in text, (word, text)


def test_every_kind_with_policy_names_has_a_policy_hook():
    for kind in registry.KINDS:
        if kind.policies:
            assert kind.policy is not None, kind.name
            registry.resolve(kind.policy)  # names a function that exists


def test_the_old_homes_still_work_with_a_deprecation_warning():
    import schedlab.cli.policies as old

    with pytest.warns(DeprecationWarning, match="schedlab.strategy.registry.parse_policy"):
        parse = old.parse_policy
    with pytest.raises(StrategyError, match="time-sharing engine"):  # its old default: rigid verbs only
        parse("scojo")
    with pytest.warns(DeprecationWarning, match="schedlab.strategy.policies.SCOJO_POLICIES"):
        from schedlab.cli.scojo import SCOJO_POLICIES
    assert "scojo-opt/lds" in SCOJO_POLICIES


# ---------------------------------------------------------------------------- Schedule.plot
def test_schedule_plot_draws_a_schedule_against_another(tmp_path):
    from schedlab.sim import simulate
    from schedlab.sim.model import Machine
    from schedlab.sim.validate import validate_schedule
    from schedlab.workload.lublin import lublin

    w = lublin(200, 32, seed=3)
    m = Machine(32)
    easy, fcfs = simulate(w, m, Strategy("easy")), simulate(w, m, Strategy("fcfs"))
    validate_schedule(easy)
    validate_schedule(fcfs)
    paths = fcfs.plot(tmp_path / "fig", versus={"EASY": easy}, title="FCFS against EASY")
    assert [p.name for p in paths] == ["utilisation.png", "gantt.png", "waits.png", "plots.html"]
    for p in paths[:3]:
        image = matplotlib.image.imread(p)
        assert image.shape[0] > 100 and image.std() > 0  # drawn, not blank
    page = paths[3].read_text()
    # the summary table: one row per schedule, this one under its strategy's label
    assert "<td>EASY</td>" in page and f"<td>{fcfs.strategy.label}</td>" in page and "FCFS against EASY" in page


# ---------------------------------------------------------------------------- schedlab.report.write(run_folder)
#: kind -> the command making a tiny run of it (support.tiny_runs); the first four write report.html
from support.tiny_runs import RUNS  # noqa: E402

REPORTS = ("greedy", "rules-symbiotic", "rules-iterative", "slurm-tune")


@pytest.fixture
def runs(tiny_runs):
    """Every kind's tiny run folder, made once by its verb (conftest's ``tiny_runs``)."""
    return tiny_runs


def _files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("kind", REPORTS)
def test_write_of_a_run_folder_writes_the_verbs_report(tmp_path, runs, kind):
    """report.html and every figure the verb wrote, byte for byte, from the folder alone (a copy of the
    same name, its report and figures removed)."""
    import schedlab.report

    made = _files(runs[kind])
    copy = tmp_path / runs[kind].name
    shutil.copytree(runs[kind], copy)
    drawn = [p for p in copy.iterdir() if p.suffix in (".png", ".html")]
    assert copy / "report.html" in drawn and any(p.suffix == ".png" for p in drawn)
    for p in drawn:
        p.unlink()
    written = schedlab.report.write(copy)
    assert sorted(written) == sorted(drawn)
    again = _files(copy)
    assert again.keys() == made.keys()
    for name in made:
        assert again[name] == made[name], name


@pytest.mark.parametrize("kind", [k for k in RUNS if k not in REPORTS])
def test_write_of_a_run_without_report_draws_what_plot_draws(capsys, tmp_path, runs, kind):
    import schedlab.report
    from conftest import run

    assert run(capsys, "plot", runs[kind], "--out", tmp_path / "cli")[0] == 0
    written = schedlab.report.write(runs[kind], tmp_path / "py")
    cli = _files(tmp_path / "cli")
    assert sorted(p.name for p in written) == sorted(str(n) for n in cli)
    assert _files(tmp_path / "py") == cli


def test_write_of_no_run_folder_is_one_line(tmp_path):
    import schedlab.report
    from schedlab.errors import SchedlabError

    with pytest.raises(SchedlabError, match="not a run folder"):
        schedlab.report.write(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"kind": "toy"}))
    with pytest.raises(SchedlabError, match="a 'toy' run; plot draws runs of kind greedy"):
        schedlab.report.write(tmp_path)


def test_the_side_tables_are_named_by_the_registry():
    # the tables issue 46 lists, each found through the registry: the paper's 13 rule-base strategies
    # (3 dispatch rules x 4 orders + Greedy), the five federation methods, the grid's three exchanges
    assert len(registry.table("rule-base strategies")) == 13 and registry.table("rule-base strategies")[-1] == "greedy"
    assert set(registry.table("federation methods")) == {"jpr", "cbs", "metl", "ga-random", "ga-metl"}
    assert registry.table("grid exchanges") == ("none", "pool", "rq")
    assert "scojo-opt/lds" in registry.table("time-sharing policies")
    assert set(registry.table("run reports")) < set(registry.table("run figures"))
    assert "federation-compare" in registry.table("run figures")
    assert set(registry.table("rules reports")) == {"rules-iterative", "rules-symbiotic"}
    with pytest.raises(KeyError, match="tables: rule-base strategies"):
        registry.table("exchanges")
