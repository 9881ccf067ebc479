"""Extending a finished run to a larger --generations (issue 17): evolve and grid pareto continue
from their last checkpoint, and the extended run equals an uninterrupted run of the larger budget."""

from __future__ import annotations

import json

import pytest

from conftest import one_line_error, require_workloads, run
from schedlab.errors import RunError
from schedlab.grid.setups import load_grid
from schedlab.optimize.grid_pareto import pareto
from schedlab.optimize.nsga2_grid import GridNSGA2Config
from test_evolve_cli import _args, _history, kth_file  # noqa: F401  (fixture)
from test_grid_nsga2 import SITES, _files


def _with_generations(args: list[str], n: int) -> list[str]:
    args = list(args)
    args[args.index("--generations") + 1] = str(n)
    return args


def test_evolve_extend_equals_an_uninterrupted_run(tmp_path, kth_file, capsys):  # noqa: F811
    whole, short = tmp_path / "whole", tmp_path / "short"
    assert run(capsys, *_with_generations(_args(kth_file, whole), 4))[0] == 0
    assert run(capsys, *_with_generations(_args(kth_file, short), 2))[0] == 0
    assert len(_history(short)) == 3  # header + 2 generations

    # a larger budget without --extend is refused, nothing touched
    before = (short / "checkpoint").read_bytes()
    code, _out, err = run(capsys, *_with_generations(_args(kth_file, short), 4))
    one_line_error(code, err, "--generations 2, given 4", "--extend")
    assert (short / "checkpoint").read_bytes() == before

    code, _out, err = run(capsys, *_with_generations(_args(kth_file, short), 4), "--extend")
    assert code == 0, err
    assert _history(short) == _history(whole)
    assert (short / "best.json").read_text() == (whole / "best.json").read_text()
    assert json.loads((short / "config.json").read_text())["generations"] == 4
    # the extended run is now an ordinary run of 4 generations: the plain command resumes it
    assert run(capsys, *_with_generations(_args(kth_file, short), 4))[0] == 0
    code, _out, err = run(capsys, *_with_generations(_args(kth_file, short), 3), "--extend")
    one_line_error(code, err, "already has a budget of 4")


def test_grid_pareto_extend_equals_an_uninterrupted_run(tmp_path):
    require_workloads()  # SDSC-SP2 is a shared trace
    grid = load_grid(sites=SITES, months=1)
    whole = pareto(grid, tmp_path / "whole", GridNSGA2Config(pop=6, generations=5, seed=3))
    short = pareto(grid, tmp_path / "short", GridNSGA2Config(pop=6, generations=2, seed=3))
    assert short.generations == 2 and short.evaluations == 12
    with pytest.raises(RunError, match="add --extend"):
        pareto(grid, tmp_path / "short", GridNSGA2Config(pop=6, generations=5, seed=3))
    longer = pareto(grid, tmp_path / "short", GridNSGA2Config(pop=6, generations=5, seed=3), extend=True)
    assert longer.resumed_from == 2 and longer.generations == 5 and longer.evaluations == 30
    assert _files(tmp_path / "short") == _files(tmp_path / "whole")
    assert (longer.front_F == whole.front_F).all() and (longer.front_X == whole.front_X).all()
    assert json.loads((tmp_path / "short" / "config.json").read_text())["nsga2"]["generations"] == 5
