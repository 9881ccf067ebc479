"""The figures people read (issue 32): every axis has numbers, abbreviations are explained, steps are
whole numbers, titles fit the figure and say when only the first months of a trace were used; and
``schedlab plot RUN`` draws a rules run (its rule base against EASY) as it draws an evolve run."""

from __future__ import annotations

import json
import re

import matplotlib
import pytest

from conftest import run
from schedlab.metrics.per_job import job_table, table_summary
from schedlab.sim import validate_schedule
from schedlab.sim.rulebase import simulate_rulebase
from schedlab.strategy import rules as R
from schedlab.workload import load_trace

matplotlib.use("Agg")


def _recording(mp: pytest.MonkeyPatch) -> list:
    """Record every matplotlib figure saved from now on (drawn, in the order saved)."""
    from matplotlib.figure import Figure

    saved: list = []
    original = Figure.savefig

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        saved.append(self)

    mp.setattr(Figure, "savefig", record)
    return saved


@pytest.fixture
def figures(monkeypatch):
    return _recording(monkeypatch)


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()]


def _whole_number_ticks(ax) -> bool:
    lo, hi = ax.get_xlim()
    return all(float(t).is_integer() for t in ax.get_xticks() if lo <= t <= hi)


def _title_fits(fig) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    box = fig.axes[0].title.get_window_extent(FigureCanvasAgg(fig).get_renderer())
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width, (box, fig.bbox)


def _by_xlabel(figs, words: str):
    return next(ax for fig in figs for ax in fig.axes if words in ax.get_xlabel())


@pytest.fixture(scope="module")
def iterative_run(tmp_path_factory):
    """A ``rules iterative`` run on KTH-SP2's first month (12 situation classes) and the figures it saved."""
    from schedlab.cli.main import main

    folder = tmp_path_factory.mktemp("rules")
    parts = {f: [] for f in R.FEATURES} | {"SD": [2], "Um": [50, 90], "PRCWQ1": [30]}
    (folder / "parts.json").write_text(json.dumps(parts))
    with pytest.MonkeyPatch.context() as mp:
        figs = _recording(mp)
        assert main(["rules", "iterative", "KTH-SP2", "--months", "1", "--partitions", str(folder / "parts.json"),
                     "--workers", "1", "--out", str(folder / "run")]) == 0
    return folder / "run", figs


def test_rules_timeline_numbers_its_share_axis_and_explains_its_features(figures, tmp_path):
    from schedlab.report.rules_plot import strategy_timeline

    w = load_trace("KTH-SP2", months=1)
    s = simulate_rulebase(w, w.machine_procs, R.TableRuleBase(), record_features=True)
    validate_schedule(s)
    strategy_timeline(s.plan, tmp_path / "t.png")
    share = _by_xlabel(figures, "% of passes")
    labels = [t.get_text() for t in share.get_xticklabels() if t.get_visible()]
    assert labels and all(re.fullmatch(r"\d+", x) for x in labels), labels
    texts = _texts(figures[-1])
    assert any(t.startswith("SD: ") and "slowdown" in t for t in texts), texts
    assert any(t.startswith("U_m: ") and "utilisation" in t for t in texts), texts


def test_iterative_run_counts_classes_in_whole_numbers_and_names_the_months(iterative_run):
    _, figs = iterative_run
    steps = _by_xlabel(figs, "situation classes")
    assert "generation" not in steps.get_xlabel() and _whole_number_ticks(steps), steps.get_xticks()
    assert "first 1 month" in steps.get_title()
    timeline = _by_xlabel(figs, "% of passes").figure
    assert any("first 1 month" in t for t in _texts(timeline)), _texts(timeline)


def test_generation_axes_have_whole_number_ticks(figures, tmp_path):
    from schedlab.report.bound_plot import hypervolume_figure
    from schedlab.report.run_report import convergence_figure

    history = [{"gen": g, "best": 10.0 - g, "median": 12.0 - g, "hypervolume": 0.1 * g} for g in (1, 2)]
    convergence_figure({"symbiotic": history}, tmp_path / "c.png")
    hypervolume_figure(history, tmp_path / "h.png", setup="KTH-SP2 (first 1 month)")
    for fig in figures:
        ax = fig.axes[0]
        assert ax.get_xlabel() == "generation" and _whole_number_ticks(ax), ax.get_xticks()
    assert "first 1 month" in figures[1].axes[0].get_title()


def test_federation_titles_fit_and_name_the_months(figures, capsys, tmp_path):
    out = tmp_path / "fc"
    code, _, err = run(capsys, "federation", "compare", "KTH-SP2", "--months", "1", "--out", out, "--jobs", "60",
                       "--workloads", "1", "--package-size", "20", "--methods", "jpr,cbs", "--workers", "1")
    assert code == 0, err
    title = figures[-1].axes[0].get_title()
    assert "first 1 month" in title and "packages of 20 jobs" in title
    _title_fits(figures[-1])
    # the y axis says which makespan the bars are: the paper's (default) or the per-package sum
    assert figures[-1].axes[0].get_ylabel() == "makespan (hours, max F - min I over the workload)"
    code, _, err = run(capsys, "federation", "compare", "KTH-SP2", "--months", "1", "--out", tmp_path / "sum", "--jobs", "60",
                       "--workloads", "1", "--package-size", "20", "--methods", "jpr", "--workers", "1",
                       "--package-start", "barrier", "--makespan", "package-sum")
    assert code == 0, err
    assert figures[-1].axes[0].get_ylabel() == "makespan (hours, summed over packages)"
    # a long platform name wraps instead of running off the figure
    from schedlab.report.federation import plot_makespan

    rows = json.loads((out / "results.json").read_text())
    plot_makespan(tmp_path / "m.png", rows, "makespan per workload, packages of 20 jobs (" + "a-very-long-platform-name " * 4 + ")")
    _title_fits(figures[-1])


def test_simulate_titles_name_the_months(figures, capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "KTH-SP2", "--months", "1", "--policy", "scojo", "--gantt", tmp_path / "g.png",
                       "--plot", tmp_path / "p")
    assert code == 0, err
    assert "(first 1 month)" in figures[0].axes[0].get_title()  # the Gantt chart of --gantt
    assert "(first 1 month)" in (tmp_path / "p" / "plots.html").read_text().split("<h1>")[1].split("</h1>")[0]


def test_plot_of_a_rules_run_draws_its_rule_base_against_easy(capsys, tmp_path, iterative_run):
    folder, _ = iterative_run
    code, out, err = run(capsys, "plot", folder, "--out", tmp_path / "p")
    assert code == 0, err
    assert out.splitlines() == [f"wrote {tmp_path / 'p' / name}" for name in ("utilisation.png", "gantt.png", "waits.png", "plots.html",
                                                                            "strategy_timeline.png")]
    page = (tmp_path / "p" / "plots.html").read_text()
    assert "EASY vs the rule base of run" in page and "first 1 month" in page
    w = load_trace("KTH-SP2", months=1)
    s = simulate_rulebase(w, w.machine_procs, R.load_rulebase(folder / "best.json"))
    validate_schedule(s)
    v = table_summary(job_table(s), w.machine_procs)
    assert (f"<tr><td>rule base</td><td>{int(v['jobs']):,}</td><td>{v['UTIL']:.2f}</td><td>{v['mean_wait']:,.0f}</td>"
            in page), page


def test_gains_figure_draws_each_series_gain_per_paper_trace(figures, tmp_path):
    """GE Figs. 2-3 side by side: the gain is recomputed from the two objectives (not the stored
    percentage), traces go by the paper's id, and a series missing a trace draws no bar for it."""
    from schedlab.report.run_report import gains_figure, objective_gains

    single = objective_gains([
        {"workload": "../shared/workloads/CTC-SP2-1996-3.1-cln.swf.gz", "objective": 80.0, "objective_easy": 100.0,
         "objective_improvement_pct": 99.0},
        {"workload": "SDSC-SP2-1998-4.2-cln", "objective": 150.0, "objective_easy": 100.0},
    ])
    assert single == {"CTC": pytest.approx(20.0), "SDSC00": pytest.approx(-50.0)}
    multi = objective_gains([{"workload": "runs/CTC-SP2-430.swf.gz", "objective": 90.0, "objective_easy": 100.0},
                             {"workload": "mine.swf", "objective": 1.0, "objective_easy": 4.0}])
    assert multi == {"CTC": pytest.approx(10.0), "mine.swf": pytest.approx(75.0)}
    with pytest.raises(ValueError, match="CTC"):
        objective_gains([{"workload": "CTC-SP2-a", "objective": 1, "objective_easy": 2},
                         {"workload": "CTC-SP2-b", "objective": 1, "objective_easy": 2}])
    rows = gains_figure({"one": single, "all": multi}, tmp_path / "g.png", "t")
    assert rows == [("CTC", [single["CTC"], multi["CTC"]]), ("SDSC00", [-50.0, None]), ("mine.swf", [None, 75.0])]
    (fig,) = figures
    heights = sorted(round(p.get_height(), 6) for p in fig.axes[0].patches)
    assert heights == [-50.0, 10.0, 20.0, 75.0]
    assert (tmp_path / "g.png").exists()
