"""GA-Random / GA-METL: operators, GA-METL <= METL, determinism across executors, exact resume."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import trace_path
from schedlab.federation import default_platform, validate_federated
from schedlab.optimize.federation_ga import (
    FederationGAConfig,
    GAState,
    SwapMutation,
    ga_generation,
    make_algorithm,
    uniform_order_crossover,
)
from schedlab.optimize.federation_run import FederationRunConfig, load_jobs, run_federation
from schedlab.workload.spec import TraceSpec
from schedlab.optimize.perm_kernels import uox_pairs


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


def uox_reference(a, b, mask):
    """Plain-Python uniform-mask order crossover: a's jobs where mask, the rest in b's order."""
    kept = {int(a[k]) for k in range(len(a)) if mask[k]}
    rest = iter([int(j) for j in b if int(j) not in kept])
    return [int(a[k]) if mask[k] else next(rest) for k in range(len(a))]


@given(st.integers(1, 30), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_compiled_crossover_of_a_batch_matches_the_plain_reference(n, m, seed):
    rng = np.random.default_rng(seed)
    A = np.array([rng.permutation(n) for _ in range(m)])
    B = np.array([rng.permutation(n) for _ in range(m)])
    masks, cross = rng.random((m, n)) < 0.5, rng.random(m) < 0.7
    Y0, Y1 = uox_pairs(A, B, masks, cross)
    for i in range(m):
        assert Y0[i].tolist() == (uox_reference(A[i], B[i], masks[i]) if cross[i] else A[i].tolist())
        assert Y1[i].tolist() == (uox_reference(B[i], A[i], masks[i]) if cross[i] else B[i].tolist())


class _Direct:
    """A serial executor stand-in evaluating a synthetic fitness with many ties (payload unused)."""

    @staticmethod
    def fitness(x):
        return float(int(np.dot(x[: max(1, x.size // 2)], np.arange(1, max(1, x.size // 2) + 1))) % 5)

    def map(self, fn, items, progress=None):  # items: (package, a chunk of the population, carry)
        return [np.array([self.fitness(x) for x in X]) for _, X, _ in items]


@pytest.mark.parametrize("n, seed, ga", [
    (12, 0, {}),
    (30, 5, {"p_crossover": 0.5, "p_mutation": 0.3}),
    (9, 2, {"mutation_reading": "gene", "p_mutation": 0.2, "tournament": 3}),
    (2, 1, {"p_mutation": 1.0}),
])
def test_array_generation_loop_reproduces_pymoo_ga_exactly(n, seed, ga):
    """Same seed -> the same population and fitness, generation by generation, as pymoo's GA loop."""
    from pymoo.core.evaluator import Evaluator
    from pymoo.problems.static import StaticProblem

    config = FederationGAConfig(generations=12, pop=16, seed=seed, **ga)
    order = np.arange(n)[::-1].copy()
    algorithm = make_algorithm(n, config, 3, order)
    state = GAState.new(n, config, 3, order)
    ex = _Direct()
    for gen in range(config.generations):
        pop = algorithm.ask()
        F = np.array([ex.fitness(x) for x in pop.get("X")])
        Evaluator().eval(StaticProblem(algorithm.problem, F=F[:, None]), pop)
        algorithm.tell(infills=pop)
        Fo = ga_generation(state, 3, ex, config)
        assert np.array_equal(Fo, F), gen
        assert np.array_equal(state.X, algorithm.pop.get("X")), gen
        assert np.array_equal(state.F, algorithm.pop.get("F")[:, 0]), gen
        assert np.array_equal(state.best()[0], algorithm.opt[0].X)
    # a pymoo checkpoint converts to the same state and continues identically
    conv = GAState.from_pymoo(algorithm)
    assert np.array_equal(conv.X, state.X) and conv.rng.bit_generator.state == state.rng.bit_generator.state


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
    return FederationRunConfig(TraceSpec(str(trace_path(HPC2N))), method=method, package_size=kw.pop("package_size", 40),
                               jobs=kw.pop("jobs", 80), offset=kw.pop("offset", 0), ga=ga, **kw)


@pytest.mark.parametrize("offset", [0, 4000, 9000])
def test_ga_metl_never_worse_than_metl(tmp_path, offset):
    # package by package only under the barrier reading: under "carry" a package's start state
    # depends on the orders of the packages before it, which differ between METL and the GA
    from schedlab.federation import FederationOptions

    pf = default_platform()
    barrier = FederationOptions(package_start="barrier")
    metl = run_federation(_config("metl", offset=offset, options=barrier), pf, tmp_path / "metl")
    ga = run_federation(_config("ga-metl", offset=offset, options=barrier), pf, tmp_path / "ga")
    validate_federated(metl.schedule)
    validate_federated(ga.schedule)
    for m, g in zip(metl.schedule.package_makespan, ga.schedule.package_makespan):
        assert g <= m
    assert [p["metl_makespan"] for p in ga.packages] == metl.schedule.package_makespan.tolist()
    assert ga.result["makespan"] <= metl.result["makespan"]


def test_same_seed_same_result_serial_and_two_processes(tmp_path):
    pf = default_platform()
    a = run_federation(_config("ga-random"), pf, tmp_path / "serial", executor="serial")  # the default is all cores
    b = run_federation(_config("ga-random"), pf, tmp_path / "procs", executor="processes:2")
    assert a.result["makespan"] == b.result["makespan"]
    # GA CPU time is recorded only when this process did all the work
    assert a.result["cpu_seconds"] > 0 and "cpu_seconds" not in b.result
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

            c = _config(method, jobs=300, package_size=100, offset=2000, options=FederationOptions(dynamic=dynamic, package_start="barrier"))
            r = run_federation(c, pf, tmp_path / f"{method}-{dynamic}", jobs=jobs)
            validate_federated(r.schedule)
            assert r.result["jobs"] == 300 and r.result["package_size"] == 100
            makespans[method, dynamic] = r.result["makespan"]
    # slowdowns are >= 1 on normalized powers, so no makespan is below the sum over packages of the
    # longest base time (the GAs reach this bound on this window; float sums of the dynamic model differ by ulps)
    floor = sum(jobs.base[i:i + 100].max() for i in range(0, 300, 100))
    assert all(m >= floor * (1 - 1e-12) for m in makespans.values())
    assert makespans["ga-metl", False] <= makespans["metl", False]
