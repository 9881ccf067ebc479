"""CMA-ES (the `cma` package) behind the same ask/tell interface as :class:`SelfAdaptiveES`.

A stronger optimizer to compare the paper's (mu+lambda)-ES with (greedy-es-sorting-criteria,
Section II-B mentions that other heuristics could be used). Hansen's CMA-ES runs in the unit box
[0, 1]^n (x0 = the box centre unless given, sigma0 relative to the box) with ``cma``'s
``BoundTransform`` keeping every candidate inside the bounds; candidates are mapped linearly to
[lower, upper]. Population size = lambda (mu = lambda/2 by ``cma``'s default weights).

Randomness: ``cma`` normally seeds the *global* ``numpy.random``; we switch that off
(``seed=nan``) and hand it a normal sampler drawing from our own ``np.random.Generator`` instead,
so two optimizers never share random state and a pickled optimizer resumes exactly.
Its linear algebra goes through numpy's BLAS, whose kernel (chosen per CPU) rounds the last bit
of each product its own way: the same seed replays bit for bit on one machine (any number of
workers), and on a machine with another kernel agrees to about 1e-15 relative at first, the
simulated objectives usually equal (README, Replays; ``uses_blas``).
Early termination criteria of ``cma`` are disabled: the run stops after its generation budget,
like the ES.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .run import Optimizer


class _GeneratorRandn:
    """Picklable ``randn(*shape)`` drawing from a private np.random.Generator (cma's ``randn`` option)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape: int) -> np.ndarray:
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        return self.rng.standard_normal(shape)


class CMAES(Optimizer):
    """``cma.CMAEvolutionStrategy`` with bounds, popsize = lambda and a private seed; ``ask()``/``tell()``."""

    name = "cmaes"
    #: ``cma``'s sampling, mean and covariance updates are numpy dot/matrix products (BLAS): the run
    #: replays bit for bit under the kernel that recorded it, to the last bit only near it elsewhere
    uses_blas = True

    def __init__(
        self,
        lower: np.ndarray | list[float],
        upper: np.ndarray | list[float],
        *,
        mu: int | None = None,
        lam: int = 105,
        seed: int = 0,
        sigma0: float = 0.3,
        x0: np.ndarray | list[float] | None = None,
    ) -> None:
        import cma

        from .es import check_box

        self.lower, self.upper = check_box(lower, upper)
        self.span = self.upper - self.lower
        self.n = int(self.lower.size)
        self.lam = int(lam)
        self.mu = int(mu) if mu else self.lam // 2
        self.seed = int(seed)
        z0 = np.full(self.n, 0.5) if x0 is None else (np.asarray(x0, dtype=np.float64) - self.lower) / self.span
        opts = {
            "bounds": [0.0, 1.0],
            "popsize": self.lam,
            "CMA_mu": self.mu,
            "seed": math.nan,
            "randn": _GeneratorRandn(self.seed),
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
            "maxiter": math.inf,
            "maxfevals": math.inf,
            "tolx": 0,
            "tolfun": 0,
            "tolfunhist": 0,
            "tolflatfitness": 10**9,
            "tolstagnation": 10**9,
            "tolupsigma": math.inf,
            "tolconditioncov": math.inf,
        }
        self.es = cma.CMAEvolutionStrategy(np.clip(z0, 0, 1).tolist(), float(sigma0), opts)
        self.generation = 0
        self.evaluations = 0
        self._pending: tuple[list[np.ndarray], np.ndarray] | None = None
        self._best_x: np.ndarray | None = None
        self._best_f = math.inf

    def ask(self) -> np.ndarray:
        """The lambda candidates of this generation in [lower, upper], shape (lambda, n)."""
        if self._pending is None:
            z = self.es.ask()
            x = self.lower + np.clip(np.asarray(z), 0.0, 1.0) * self.span
            self._pending = (z, x)
        return self._pending[1].copy()

    def tell(self, x: np.ndarray, f: np.ndarray | list[float]) -> None:
        if self._pending is None:
            raise RuntimeError("tell() without a preceding ask()")
        z, px = self._pending
        if not np.array_equal(np.asarray(x, dtype=np.float64), px):
            raise ValueError("tell() must receive the candidates returned by the last ask()")
        f = np.asarray(f, dtype=np.float64)
        f = np.where(np.isfinite(f), f, np.finfo(np.float64).max)
        self.es.tell(z, f.tolist())
        i = int(np.argmin(f))  # first of equal minima
        if f[i] < self._best_f:
            self._best_f, self._best_x = float(f[i]), px[i].copy()
        self._pending = None
        self.generation += 1
        self.evaluations += self.lam

    @property
    def best_x(self) -> np.ndarray | None:
        return None if self._best_x is None else self._best_x.copy()

    @property
    def best_f(self) -> float:
        return self._best_f

    def stop(self) -> dict[str, Any]:
        return {}

    def state_summary(self) -> dict[str, float]:
        return {"sigma": float(self.es.sigma)}

