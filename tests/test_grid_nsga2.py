"""NSGA-II over partitions: the paper's operators, determinism across executors, resume after SIGKILL."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import require_workloads
from schedlab.errors import RunError
from schedlab.grid.partition import PartitionProblem
from schedlab.optimize.grid_pareto import pareto
from schedlab.report.grid_report import write_front_report
from schedlab.grid.setups import load_grid
from schedlab.optimize.nsga2_grid import (
    GridNSGA2Config,
    GridMutation,
    hypervolume,
    initial_population,
    make_algorithm,
    objectives,
    random_mutation,
    shift_mutation,
    weighted_shift,
)

SITES = ["KTH-SP2:100", "SDSC-SP2:128"]


@pytest.fixture(scope="module")
def grid():
    require_workloads()  # SDSC-SP2 is a shared trace
    return load_grid(sites=SITES, months=1)


def test_shift_mutation_moves_exactly_n_s_genes_to_one_site():
    """Algorithm 1: n_s = floor(|N(0, sigma)| + 0.5) genes not on k_s are set to k_s."""
    x = np.random.default_rng(0).integers(0, 2, 20_000).astype(np.int8)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        twin = np.random.default_rng(seed)
        n_s = int(np.floor(abs(twin.normal(0.0, 2000.0)) + 0.5))
        k_s = int(np.floor(2 * twin.random()))
        y = shift_mutation(x, 2, 2000.0, rng)
        changed = np.flatnonzero(y != x)
        assert changed.size == n_s
        assert np.all(y[changed] == k_s)


def test_weighted_shift_moves_n_s_genes_of_positive_weight_to_one_site():
    """The aware shift: n_s genes as Algorithm 1, only where weight > 0, heavier genes first."""
    x = np.zeros(10_000, dtype=np.int8)
    weight = np.zeros(10_000)
    weight[:3000] = 1.0
    weight[:500] = 1000.0
    for seed in range(4):
        twin = np.random.default_rng(seed)
        n_s = min(int(np.floor(abs(twin.normal(0.0, 400.0)) + 0.5)), 3000)
        k_s = int(np.floor(2 * twin.random()))
        y = weighted_shift(x, 2, 400.0, weight, np.random.default_rng(seed))
        changed = np.flatnonzero(y != x)
        assert changed.size == (n_s if k_s == 1 else 0)  # all genes are on site 0 already
        assert np.all(weight[changed] > 0)
        if changed.size >= 100:  # the 500 heavy genes (1/6 of the eligible) are taken first
            assert np.mean(changed < 500) > 0.9 * min(1.0, 500 / changed.size)


def test_aware_variation_is_seeded_and_differs_from_the_paper(grid, tmp_path):
    a = pareto(grid, tmp_path / "a", GridNSGA2Config(pop=6, generations=2, seed=4, variation="aware"))
    b = pareto(grid, tmp_path / "b", GridNSGA2Config(pop=6, generations=2, seed=4, variation="aware"))
    p = pareto(grid, tmp_path / "p", GridNSGA2Config(pop=6, generations=2, seed=4))
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert _files(tmp_path / "a")["points.csv"] != _files(tmp_path / "p")["points.csv"]
    assert a.evaluations == p.evaluations == 12
    with pytest.raises(RunError, match="--variation 'smart'"):
        GridNSGA2Config(variation="smart")


def test_random_mutation_flips_each_gene_with_p_rand():
    x = np.zeros(100_000, dtype=np.int8)
    y = random_mutation(x, 2, 0.1, np.random.default_rng(1))
    assert set(np.unique(y)) <= {0, 1}
    assert abs((y != x).mean() - 0.1) < 0.005  # binomial sd ~ 0.001
    z = random_mutation(np.zeros(30_000, dtype=np.int8), 3, 0.5, np.random.default_rng(2))
    moved = z[z != 0]
    assert set(np.unique(moved)) == {1, 2}  # K = 3: always to another site, both equally likely
    assert abs((moved == 1).mean() - 0.5) < 0.02


def test_grid_mutation_chooses_shift_with_p_shift(grid):
    problem = PartitionProblem.from_trace(grid)
    algorithm, prob = make_algorithm(problem, GridNSGA2Config(pop=4, generations=2))
    X = np.tile(grid.origin.astype(np.int8), (400, 1))
    Y = GridMutation(0.1, 0.5, 2000.0)._do(prob, X, random_state=np.random.default_rng(3))
    changed = (Y != X)
    one_sided = np.array([len(np.unique(Y[i][changed[i]])) == 1 for i in range(len(Y))])
    many = changed.sum(axis=1) > 0.05 * X.shape[1]  # random mutation changes ~10% of the genes
    # random mutations (~half) flip ~10% in both directions; shifts move to a single site
    assert 0.4 < (many & ~one_sided).mean() < 0.6


def test_initial_population_is_easy_plus_5000_flips(grid):
    problem = PartitionProblem.from_trace(grid)
    X = initial_population(problem, 5, 1000, np.random.default_rng(0))
    np.testing.assert_array_equal(X[0], grid.origin)
    for row in X[1:]:
        assert (row != grid.origin).sum() == 1000  # no job of this month is too wide to move
    assert len({row.tobytes() for row in X}) == 5


def test_seed_with_puts_the_realised_heuristic_partitions_in_the_initial_population(grid):
    """--seed-with rq,pool: rows 1 and 2 are where RQ / POOL ran each job; the other rows are unchanged."""
    from schedlab.grid.sim import simulate_grid

    problem = PartitionProblem.from_trace(grid)
    plain = initial_population(problem, 5, 1000, np.random.default_rng(0))
    seeded = initial_population(problem, 5, 1000, np.random.default_rng(0), seed_with="rq,pool")
    rq, pool = simulate_grid(grid, "rq").site, simulate_grid(grid, "pool").site
    assert (rq != grid.origin).sum() > 0 and (pool != grid.origin).sum() > 0  # both policies move jobs
    np.testing.assert_array_equal(seeded[1], rq)  # a job RQ moved fits its new site: no veto
    np.testing.assert_array_equal(seeded[2], pool)
    np.testing.assert_array_equal(seeded[[0, 3, 4]], plain[[0, 3, 4]])
    with pytest.raises(ValueError, match="'steal'"):
        initial_population(problem, 5, 10, np.random.default_rng(0), seed_with="rq,steal")


def test_objectives_and_constraints():
    F, G = objectives([(np.array([50_000.0, 70_000.0]), False), (np.array([120_000.0, 10.0]), False),
                       (np.array([100_001.0, 3.0]), True)], 100_000.0)
    np.testing.assert_array_equal(F[0], [50_000.0, 70_000.0])
    assert np.all(G[0] < 0) and G[1][0] > 0 and G[2][0] > 0
    assert np.all(F[1:] == 1e12)  # infeasible = the paper's infinite value
    assert hypervolume(np.array([[50_000.0, 70_000.0]]), np.array([100_000.0, 100_000.0])) == pytest.approx(
        50_000.0 * 30_000.0)
    assert hypervolume(F[1:], np.array([100_000.0, 100_000.0])) == 0.0


def _files(run):
    out = {}
    for name in ("front.csv", "points.csv", "references.json"):  # points.md: of the report, from these
        out[name] = (run / name).read_text()
    with open(run / "history.csv") as fh:
        out["history"] = [{k: v for k, v in r.items() if k != "elapsed"} for r in csv.DictReader(fh)]
    return out


@pytest.mark.slow  # starts a process pool and a local dask cluster
def test_same_seed_same_front_on_every_executor(grid, tmp_path):
    cfg = GridNSGA2Config(pop=6, generations=3, seed=5)
    serial = pareto(grid, tmp_path / "serial", cfg, executor="serial")
    procs = pareto(grid, tmp_path / "procs", cfg, executor="processes:2")
    dask = pareto(grid, tmp_path / "dask", cfg, executor="dask")
    for other in (procs, dask):
        np.testing.assert_array_equal(serial.front_F, other.front_F)
        np.testing.assert_array_equal(serial.front_X, other.front_X)
    a, b, c = (_files(tmp_path / n) for n in ("serial", "procs", "dask"))
    assert a == b == c
    assert serial.evaluations == 18 and len(serial.history) == 3
    # the front is feasible and mutually non-dominated
    F = serial.front_F
    assert np.all(F <= cfg.limit)
    for i in range(len(F)):
        assert not any(np.all(F[j] <= F[i]) and np.any(F[j] < F[i]) for j in range(len(F)) if j != i)
    other_seed = pareto(grid, tmp_path / "seed6", GridNSGA2Config(pop=6, generations=3, seed=6))
    assert _files(tmp_path / "seed6")["points.csv"] != a["points.csv"]
    assert other_seed.evaluations == 18
    refs = json.loads((tmp_path / "serial" / "references.json").read_text())
    write_front_report(tmp_path / "serial", serial, refs, grid.names, cfg.limit)  # what `grid pareto` adds
    for name in ("front.png", "hypervolume.png", "points.md", "config.json", "checkpoint"):
        assert (tmp_path / "serial" / name).stat().st_size > 0
    assert (tmp_path / "serial" / "points.md").read_text().count("| front ") == len(serial.front_F)
    with pytest.raises(RunError, match="different config"):
        pareto(grid, tmp_path / "serial", GridNSGA2Config(pop=7, generations=3, seed=5))
    with pytest.raises(RunError, match="add --extend to continue it to 4 generations"):
        pareto(grid, tmp_path / "serial", GridNSGA2Config(pop=6, generations=4, seed=5))


def _cli(out, generations):
    return [sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())",
            "grid", "pareto", "--site", SITES[0], "--site", SITES[1], "--months", "1", "--out", str(out),
            "--generations", str(generations), "--pop", "10", "--seed", "11"]


@pytest.mark.slow  # three grid pareto runs in fresh processes, one killed
def test_resume_after_sigkill_ends_like_uninterrupted(tmp_path):
    require_workloads()  # SDSC-SP2 is a shared trace
    gens = 15
    whole = tmp_path / "whole"
    assert subprocess.run(_cli(whole, gens), capture_output=True, timeout=300).returncode == 0
    killed = tmp_path / "killed"
    victim = subprocess.Popen(_cli(killed, gens), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not ((killed / "history.csv").exists()
                                           and len((killed / "history.csv").read_text().splitlines()) > 4):
        time.sleep(0.01)
    assert victim.poll() is None, "the run ended before it could be killed"
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    done = len((killed / "history.csv").read_text().splitlines()) - 1
    assert 4 <= done < gens
    resumed = subprocess.run(_cli(killed, gens), capture_output=True, timeout=300, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert _files(killed) == _files(whole)
