"""Static partitions: evaluation = simulating the split traces separately; veto; AWRT limit."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.grid.partition import PartitionProblem, evaluate_partition, split_trace
from conftest import require_workloads
from schedlab.grid.setups import load_grid
from schedlab.metrics import compute_metrics
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy.model import Strategy


@pytest.fixture(scope="module")
def grid():
    # one month of KTH-SP2 (100 procs) and SDSC-SP2 (128 procs)
    require_workloads()  # SDSC-SP2 is a shared trace
    return load_grid(sites=["KTH-SP2:100", "SDSC-SP2:128"], months=1)


def _random_partition(grid, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, len(grid)).astype(np.int8)


@pytest.mark.parametrize("seed", [1, 2])
def test_evaluation_equals_simulating_split_traces(grid, seed):
    problem = PartitionProblem.from_trace(grid, limit=np.inf)
    genes = _random_partition(grid, seed)
    awrt, aborted = problem.evaluate_raw(genes)
    assert not aborted
    parts = split_trace(grid, genes)
    assert sum(len(p) for p in parts) == len(grid)
    sched = problem.schedule(genes, grid)
    for k, part in enumerate(parts):
        alone = simulate(part, Machine(int(grid.site_procs[k])), Strategy("easy"))
        validate_schedule(alone)
        validate_schedule(sched.site_schedule(k))  # full EASY replay per site
        assert awrt[k] == pytest.approx(compute_metrics(alone)["AWRT"], rel=1e-12)
        np.testing.assert_array_equal(sched.start[sched.site == k], alone.start)


def test_veto_sends_too_wide_jobs_home():
    require_workloads()
    grid = load_grid(sites=["KTH-SP2:100", "CTC-SP2:430"], months=1)
    problem = PartitionProblem.from_trace(grid)
    everything_to_kth = np.zeros(len(grid), dtype=np.int8)
    assigned = problem.veto(everything_to_kth)
    wide = grid.workload.procs > 100
    assert wide.sum() > 0  # CTC has jobs wider than KTH's 100 processors
    assert np.all(assigned[wide] == 1) and np.all(grid.origin[wide] == 1)
    assert np.all(assigned[~wide] == 0)
    # the vetoed partition and the raw one evaluate identically
    np.testing.assert_array_equal(problem.evaluate_raw(everything_to_kth)[0], problem.evaluate_raw(assigned)[0])


def test_no_exchange_partition_is_the_none_policy(grid):
    from schedlab.grid.sim import simulate_grid
    from schedlab.metrics.grid import grid_summary

    problem = PartitionProblem.from_trace(grid, limit=np.inf)
    awrt = problem.evaluate(grid.origin)
    summary = grid_summary(simulate_grid(grid, "none"))
    np.testing.assert_allclose(awrt, [s["AWRT"] for s in summary["sites"]], rtol=1e-12)


def test_limit_makes_overloaded_partitions_infeasible(grid):
    """Everything on KTH (100 procs) overloads it: AWRT above the limit -> inf (eq. (4)), and the
    early stop only happens when the exact AWRT really exceeds the limit."""
    exact = PartitionProblem.from_trace(grid, limit=np.inf)
    genes = np.zeros(len(grid), dtype=np.int8)
    full, _ = exact.evaluate_raw(genes)
    limit = float(full[0]) / 2
    limited = dataclasses.replace(exact, limit=limit)
    lower, aborted = limited.evaluate_raw(genes)
    assert aborted and limit < lower[0] <= full[0]
    assert np.all(np.isinf(limited.evaluate(genes)))
    # a partition whose AWRTs are all under the limit is evaluated exactly
    ok = dataclasses.replace(exact, limit=float(max(exact.evaluate(grid.origin))) * 1.01)
    np.testing.assert_array_equal(ok.evaluate(grid.origin), exact.evaluate(grid.origin))
    assert evaluate_partition(ok, grid.origin)[1] is False


def test_bad_partitions_are_errors(grid):
    problem = PartitionProblem.from_trace(grid)
    with pytest.raises(WorkloadError, match="one site per job"):
        problem.evaluate(np.zeros(3, dtype=np.int8))
    with pytest.raises(WorkloadError, match="0..1"):
        problem.evaluate(np.full(len(grid), 2))
