"""The self-adaptive (mu+lambda)-ES and the CMA-ES adapter: convergence, bounds, determinism, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.optimize.cmaes import CMAES
from schedlab.strategy.registry import make_optimizer
from schedlab.optimize.es import SelfAdaptiveES


def sphere(x: np.ndarray) -> float:
    return float(np.sum((x - 0.3) ** 2))


def rosenbrock(x: np.ndarray) -> float:
    return float(np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


def run(opt, f, gens):
    for _ in range(gens):
        x = opt.ask()
        opt.tell(x, [f(row) for row in x])
    return opt


@pytest.mark.parametrize("cls", [SelfAdaptiveES, CMAES])
def test_converges_on_sphere(cls):
    opt = run(cls([-5] * 6, [5] * 6, mu=15, lam=105, seed=3), sphere, 80)
    assert opt.best_f < 1e-8
    assert np.allclose(opt.best_x, 0.3, atol=1e-4)
    assert opt.evaluations == 80 * 105 and opt.generation == 80


@pytest.mark.parametrize("cls", [SelfAdaptiveES, CMAES])
def test_converges_on_rosenbrock(cls):
    first = cls([-2] * 2, [2] * 2, mu=15, lam=105, seed=5)
    first.tell(first.ask(), [rosenbrock(r) for r in first.ask()])
    start = first.best_f
    opt = run(cls([-2] * 2, [2] * 2, mu=15, lam=105, seed=5), rosenbrock, 150)
    assert opt.best_f < 1e-4 < start
    assert np.allclose(opt.best_x, 1.0, atol=0.02)


@pytest.mark.parametrize("cls", [SelfAdaptiveES, CMAES])
def test_same_seed_same_result_other_seed_other_result(cls):
    a = run(cls([-5] * 4, [5] * 4, mu=5, lam=30, seed=11), rosenbrock, 20)
    b = run(cls([-5] * 4, [5] * 4, mu=5, lam=30, seed=11), rosenbrock, 20)
    c = run(cls([-5] * 4, [5] * 4, mu=5, lam=30, seed=12), rosenbrock, 20)
    assert a.best_f == b.best_f and np.array_equal(a.best_x, b.best_x)
    assert not np.array_equal(a.best_x, c.best_x)


@pytest.mark.parametrize("cls", [SelfAdaptiveES, CMAES])
def test_pickled_optimizer_resumes_exactly(cls):
    whole = run(cls([0] * 3, [1] * 3, mu=4, lam=12, seed=2), sphere, 12)
    half = run(cls([0] * 3, [1] * 3, mu=4, lam=12, seed=2), sphere, 5)
    resumed = run(pickle.loads(pickle.dumps(half)), sphere, 7)
    assert resumed.best_f == whole.best_f and np.array_equal(resumed.best_x, whole.best_x)


@pytest.mark.parametrize("cls", [SelfAdaptiveES, CMAES])
def test_offspring_stay_in_bounds_when_optimum_is_outside(cls):
    lo, hi = np.array([0.0, 0.0, 0.0]), np.array([1.0, 5.0, 1.0])
    opt = cls(lo, hi, mu=5, lam=35, seed=0)
    for _ in range(60):
        x = opt.ask()
        assert np.all(x >= lo) and np.all(x <= hi)
        opt.tell(x, [float(np.sum((r - np.array([-1.0, 7.0, 0.5])) ** 2)) for r in x])
    # the constrained optimum sits on the bounds (0, 5, 0.5): reflection approaches it closely
    assert np.allclose(opt.best_x, [0.0, 5.0, 0.5], atol=1e-3)


def test_es_operators_follow_the_paper():
    es = SelfAdaptiveES([0] * 36, [1] * 36, mu=15, lam=105, seed=1)
    assert es.tau_global == pytest.approx(1 / np.sqrt(72))
    assert es.tau_local == pytest.approx(1 / np.sqrt(2 * 6))
    x0 = es.ask()
    assert x0.shape == (105, 36)
    es.tell(x0, np.arange(105.0))  # row i has fitness i: plus selection keeps rows 0..14
    assert np.array_equal(es.parents_x, x0[:15])
    child = es.ask()
    # discrete recombination + mutation: every child coordinate lies near SOME parent's coordinate
    near = np.abs(child[:, None, :] - es.parents_x[None, :, :]).min(axis=1)
    assert np.quantile(near, 0.5) < 0.2
    # plus selection: an offspring generation that is all worse keeps the parents unchanged
    es.tell(child, np.full(105, 1e9))
    assert np.array_equal(es.parents_x, x0[:15])
    with pytest.raises(RuntimeError):
        es.tell(child, np.zeros(105))  # tell without ask


def test_tell_rejects_foreign_candidates_and_make_optimizer_names():
    es = SelfAdaptiveES([0, 0], [1, 1], mu=2, lam=4, seed=0)
    x = es.ask()
    with pytest.raises(ValueError):
        es.tell(x + 0.01, np.zeros(4))
    assert isinstance(make_optimizer("cmaes", [0, 0], [1, 1], mu=2, lam=4, seed=0), CMAES)
    with pytest.raises(ValueError, match="unknown optimizer"):
        make_optimizer("pso", [0, 0], [1, 1], mu=2, lam=4, seed=0)


@given(
    lo=st.floats(-1e3, 1e3),
    width=st.floats(1e-3, 1e3),
    xs=st.lists(st.floats(-1e7, 1e7), min_size=1, max_size=20),
)
def test_reflection_lands_in_the_box_and_fixes_points_inside(lo, width, xs):
    es = SelfAdaptiveES([lo], [lo + width], mu=1, lam=1, seed=0)
    x = np.array(xs)[:, None]
    y = es._reflect(x)
    assert np.all(y >= lo - 1e-9 * max(1.0, abs(lo))) and np.all(y <= lo + width + 1e-9 * max(1.0, abs(lo) + width))
    inside = (x >= lo) & (x <= lo + width)
    assert np.allclose(y[inside], x[inside])
    # a reflection is an isometry near the bound: a point just outside maps just inside
    assert es._reflect(np.array([[lo - 0.25 * width]]))[0, 0] == pytest.approx(lo + 0.25 * width)
    assert es._reflect(np.array([[lo + 1.25 * width]]))[0, 0] == pytest.approx(lo + 0.75 * width)
