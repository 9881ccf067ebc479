"""``schedlab plot RUN`` draws a run folder of every kind the package writes (issue 36 item 2: "plot
RUN draws any run kind"): the kind in its config.json picks the figures (report/runs.RUN_PLOTS); an
unknown kind or an unfinished folder is one line."""

from __future__ import annotations

import json
import shutil

import matplotlib
import matplotlib.image
import pytest

from conftest import one_line_error, run

matplotlib.use("Agg")

#: kind -> the files plot RUN writes, in order (the tiny run of each kind: support.tiny_runs.RUNS)
RUNS = {
    "greedy": ["utilisation.png", "gantt.png", "waits.png", "plots.html"],
    "rules-symbiotic": ["utilisation.png", "gantt.png", "waits.png", "plots.html", "strategy_timeline.png"],
    "bound": ["hypervolume.png", "front_AWRT1_AWRT2.png"],
    "grid-pareto": ["points.md", "front.png", "hypervolume.png"],
    "federation": ["makespan.png"],
    "federation-compare": ["table.md", "makespan_p15.png", "makespan_p30.png"],
}


@pytest.fixture
def runs(tiny_runs):
    """Every kind's tiny run folder (conftest's ``tiny_runs``: the commands of support.tiny_runs)."""
    return {kind: tiny_runs[kind] for kind in RUNS}


@pytest.fixture
def figures(monkeypatch) -> list:
    """Every matplotlib figure saved from now on, in the order saved."""
    from matplotlib.figure import Figure

    saved: list = []
    original = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (saved.append(self), original(self, *a, **k))[1])
    return saved


@pytest.mark.parametrize("kind", list(RUNS))
def test_plot_run_draws_the_figures_of_its_kind(capsys, tmp_path, runs, kind):
    out = tmp_path / "p"
    code, stdout, err = run(capsys, "plot", runs[kind], "--out", out)
    assert code == 0, err
    names = RUNS[kind]
    assert stdout.splitlines() == [f"wrote {out / name}" for name in names]
    for name in names:
        assert (out / name).stat().st_size > 0
        if name.endswith(".png"):
            image = matplotlib.image.imread(out / name)
            assert image.shape[0] > 100 and image.shape[1] > 100 and image.std() > 0  # drawn, not blank


def test_plot_of_a_federation_run_has_a_bar_per_package(capsys, tmp_path, runs, figures):
    assert run(capsys, "plot", runs["federation"], "--out", tmp_path / "p")[0] == 0
    packages = (runs["federation"] / "packages.csv").read_text().splitlines()[1:]
    (ax,) = figures[-1].axes
    bars = [b.get_height() for b in ax.patches]
    assert len(packages) == 2 and len(bars) == 2
    assert bars == pytest.approx([float(line.split(",")[2]) / 3600.0 for line in packages])


def test_plot_of_a_bound_run_draws_every_front_schedule(capsys, tmp_path, runs, figures):
    assert run(capsys, "plot", runs["bound"], "--out", tmp_path / "p")[0] == 0
    front = (runs["bound"] / "front.csv").read_text().strip().splitlines()[1:]
    hypervolume, projection = figures[-2:]
    assert len(hypervolume.axes[0].lines[0].get_xdata()) == 2  # one point per generation
    assert len(projection.axes[0].collections[0].get_offsets()) == len(front)


def test_plot_of_a_federation_comparison_writes_the_verbs_table(capsys, tmp_path, runs):
    assert run(capsys, "plot", runs["federation-compare"], "--out", tmp_path / "p")[0] == 0
    assert (tmp_path / "p" / "table.md").read_text() == (runs["federation-compare"] / "table.md").read_text()


@pytest.mark.parametrize("kind, missing", [("grid-pareto", "front.csv"), ("federation", "result.json"),
                                           ("bound", "front.csv"), ("greedy", "best.json")])
def test_an_unfinished_run_is_one_line(capsys, tmp_path, runs, kind, missing):
    folder = tmp_path / "run"
    shutil.copytree(runs[kind], folder)
    (folder / missing).unlink()
    code, _, err = run(capsys, "plot", folder, "--out", tmp_path / "p")
    one_line_error(code, err, str(folder), missing)


def test_an_unknown_kind_or_no_run_folder_is_one_line(capsys, tmp_path, runs):
    folder = tmp_path / "run"
    shutil.copytree(runs["bound"], folder)
    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(dict(cfg, kind="nonsense")))
    code, _, err = run(capsys, "plot", folder, "--out", tmp_path / "p")
    one_line_error(code, err, str(folder), "'nonsense' run", "greedy", "bound", "grid-pareto", "federation")
    assert not (tmp_path / "p").exists()  # nothing written
    code, _, err = run(capsys, "plot", tmp_path, "--out", tmp_path / "q")
    one_line_error(code, err, str(tmp_path), "not a run folder")
