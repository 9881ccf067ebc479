"""GA-Random / GA-METL: operators, GA-METL <= METL, determinism across executors, exact resume."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import trace_path
from schedlab.federation import default_platform, validate_federated
from schedlab.optimize.federation_ga import FederationGAConfig, SwapMutation, uniform_order_crossover
from schedlab.optimize.federation_run import FederationRunConfig, load_jobs, run_federation


def test_uniform_order_crossover_by_hand():
    # mask keeps a's jobs at positions 0 and 2 (0 and 2); the missing jobs 1, 3, 4 follow b's order 4, 3, 1
    a, b = np.array([0, 1, 2, 3, 4]), np.array([4, 3, 2, 1, 0])
    child = uniform_order_crossover(a, b, np.array([1, 0, 1, 0, 0], dtype=bool))
    assert child.tolist() == [0, 4, 2, 3, 1]


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.permutations(list(range(n))), st.permutations(list(range(n))),
                                                      st.lists(st.booleans(), min_size=n, max_size=n))))
def test_uniform_order_crossover_gives_a_permutation_keeping_masked_jobs(case):
    a, b, mask = (np.array(x) for x in case)
    mask = mask.astype(bool)
    child = uniform_order_crossover(a, b, mask)
    assert sorted(child.tolist()) == list(range(a.size))
    assert np.array_equal(child[mask], a[mask])
    rest = child[~mask].tolist()
    assert rest == [j for j in b.tolist() if j in set(rest)]  # in b's order


def test_swap_mutation_swaps_two_jobs_per_mutated_individual():
    X = np.tile(np.arange(30), (50, 1))
    rng = np.random.default_rng(3)
    Y = SwapMutation(prob=1.0)._do(None, X, random_state=rng)
    diff = (Y != X).sum(axis=1)
    assert np.all(diff == 2)
    assert all(sorted(y.tolist()) == list(range(30)) for y in Y)
    G = SwapMutation(prob=0.0, reading="gene")._do(None, X, random_state=rng)
    assert np.array_equal(G, X)


HPC2N = "HPC2N-2002-2.2-cln.swf.gz"


def _config(method, **kw):
    ga = FederationGAConfig(**{"generations": 6, "pop": 12, "seed": 3, **kw.pop("ga", {})})
    return FederationRunConfig(trace=str(trace_path(HPC2N)), method=method, package_size=kw.pop("package_size", 40),
                               jobs=kw.pop("jobs", 80), offset=kw.pop("offset", 0), ga=ga, **kw)


@pytest.mark.parametrize("offset", [0, 4000, 9000])
def test_ga_metl_never_worse_than_metl(tmp_path, offset):
    pf = default_platform()
    metl = run_federation(_config("metl", offset=offset), pf, tmp_path / "metl")
    ga = run_federation(_config("ga-metl", offset=offset), pf, tmp_path / "ga")
    validate_federated(metl.schedule)
    validate_federated(ga.schedule)
    for m, g in zip(metl.schedule.package_makespan, ga.schedule.package_makespan):
        assert g <= m
    assert [p["metl_makespan"] for p in ga.packages] == metl.schedule.package_makespan.tolist()
    assert ga.result["makespan"] <= metl.result["makespan"]


def test_same_seed_same_result_serial_and_two_processes(tmp_path):
    pf = default_platform()
    a = run_federation(_config("ga-random"), pf, tmp_path / "serial")
    b = run_federation(_config("ga-random"), pf, tmp_path / "procs", executor_spec="processes:2")
    assert a.result["makespan"] == b.result["makespan"]
    assert (tmp_path / "serial" / "orders.json").read_text() == (tmp_path / "procs" / "orders.json").read_text()
    c = run_federation(_config("ga-random", ga={"seed": 4}), pf, tmp_path / "other")
    assert (tmp_path / "other" / "orders.json").read_text() != (tmp_path / "serial" / "orders.json").read_text()


def _history(folder):
    return [line.rsplit(",", 1)[0] for line in (folder / "history.csv").read_text().splitlines()]


@pytest.mark.parametrize("stop_after", [(0, 2), (1, 4)])
def test_interrupted_run_resumes_to_the_identical_result(tmp_path, stop_after):
    pf = default_platform()
    whole = run_federation(_config("ga-metl"), pf, tmp_path / "whole")

    def stop(package, row):
        if (package, row["gen"]) == stop_after:
            raise KeyboardInterrupt

    cut = run_federation(_config("ga-metl"), pf, tmp_path / "cut", on_generation=stop)
    assert cut.interrupted and not (tmp_path / "cut" / "result.json").exists()
    again = run_federation(_config("ga-metl"), pf, tmp_path / "cut")
    assert again.result["makespan"] == whole.result["makespan"]
    assert (tmp_path / "cut" / "orders.json").read_text() == (tmp_path / "whole" / "orders.json").read_text()
    assert _history(tmp_path / "cut") == _history(tmp_path / "whole")
    # a finished run folder is read back, not recomputed
    assert run_federation(_config("ga-metl"), pf, tmp_path / "cut").result == again.result


def test_every_method_on_a_real_window_gives_valid_schedules(tmp_path):
    pf = default_platform()
    cfg = _config("jpr", jobs=300, package_size=100, offset=2000)
    jobs = load_jobs(cfg)
    assert len(jobs) == 300 and jobs.tasks.max() <= pf.n_nodes
    makespans = {}
    for method in ("jpr", "cbs", "metl", "ga-random", "ga-metl"):
        for dynamic in (False, True):
            from schedlab.federation import FederationOptions

            c = _config(method, jobs=300, package_size=100, offset=2000, options=FederationOptions(dynamic=dynamic))
            r = run_federation(c, pf, tmp_path / f"{method}-{dynamic}", jobs=jobs)
            validate_federated(r.schedule)
            assert r.result["jobs"] == 300 and r.result["package_size"] == 100
            makespans[method, dynamic] = r.result["makespan"]
    # slowdowns are >= 1 on normalized powers, so no makespan is below the sum over packages of the
    # longest base time (the GAs reach this bound on this window; float sums of the dynamic model differ by ulps)
    floor = sum(jobs.base[i:i + 100].max() for i in range(0, 300, 100))
    assert all(m >= floor * (1 - 1e-12) for m in makespans.values())
    assert makespans["ga-metl", False] <= makespans["metl", False]
