"""The self-adaptive (mu+lambda)-Evolution Strategy of greedy-es-sorting-criteria, with ask/tell.

greedy-es-sorting-criteria, Sections II-B and IV-C, following Beyer & Schwefel (2002), "Evolution
strategies — a comprehensive introduction", Natural Computing 1:3-52:

- an individual is (x, s): n object parameters x and n strategy parameters s (one mutation step
  size per object parameter);
- recombination: every coordinate of the child's x is taken from a parent chosen uniformly among
  all mu parents (*discrete* / dominant recombination, rho = mu); the child's s is the mean of
  the s of 2 parents drawn at random (*intermediate* recombination, rho = 2);
- mutation (log-normal self-adaptation): s'_i = s_i * exp(tau' N(0,1) + tau N_i(0,1)) with the
  global learning rate tau' = 1/sqrt(2 n) and the coordinate-wise tau = 1/sqrt(2 sqrt(n)); then
  x'_i = x_i + s'_i N_i(0,1) (step size first, then object parameters: Beyer & Schwefel, eq. 36);
- plus-selection: the mu best of the mu parents and lambda offspring become the next parents
  (ties: parents before offspring, then index order — a stable sort, so it is deterministic).

Defaults mu = 15, lambda = 105 (mu/lambda = 1/7, Schwefel's recommendation), 100 generations.

Bounds: each parameter lives in [lo_i, hi_i] (greedy-es-sorting-criteria, IV-C: w, a, b in [0, 1],
K in [0, 5]). An offspring that leaves the box is *reflected* back into it (x -> lo + |x - lo|,
x -> hi - |x - hi|, repeated — i.e. folded with period 2 (hi - lo)). Reflection, not clipping:
clipping maps every overshooting mutation to exactly the bound, so many offspring become
identical and the self-adaptation of s receives no signal from them; reflection keeps the
mutation distribution continuous and keeps offspring distinct, while optima on a bound are still
approached arbitrarily closely as s shrinks. Step sizes are kept in [1e-12 (hi-lo), hi - lo].

The first generation (no parents yet) is lambda points drawn uniformly in the box (x0, if given,
replaces the first of them); its step sizes start at ``sigma0 * (hi - lo)``. The optimizer holds
all its state, including its ``np.random.Generator``, as plain picklable attributes, so a pickled
optimizer resumed later continues exactly as the uninterrupted one would.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .run import Optimizer


def check_box(lower: Any, upper: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bounds as float arrays: 1-d, same non-zero length, every upper bound above its lower bound."""
    lo = np.array(lower, dtype=np.float64)
    hi = np.array(upper, dtype=np.float64)
    if lo.shape != hi.shape or lo.ndim != 1 or lo.size == 0:
        raise ValueError("lower and upper must be 1-d arrays of the same, non-zero length")
    if not np.all(hi > lo):
        raise ValueError("every upper bound must exceed its lower bound")
    return lo, hi


class SelfAdaptiveES(Optimizer):
    """(mu+lambda)-ES with one self-adaptive step size per parameter; ``ask()`` / ``tell(X, f)`` (minimises)."""

    name = "es"

    def __init__(
        self,
        lower: np.ndarray | list[float],
        upper: np.ndarray | list[float],
        *,
        mu: int = 15,
        lam: int = 105,
        seed: int = 0,
        sigma0: float = 0.2,
        x0: np.ndarray | list[float] | None = None,
    ) -> None:
        self.lower, self.upper = check_box(lower, upper)
        if int(mu) != mu or int(lam) != lam or mu < 1 or lam < 1:
            raise ValueError(f"mu and lambda must be positive whole numbers, got mu={mu}, lambda={lam}")
        self.n = int(self.lower.size)
        self.mu, self.lam = int(mu), int(lam)
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.tau_global = 1.0 / math.sqrt(2.0 * self.n)
        self.tau_local = 1.0 / math.sqrt(2.0 * math.sqrt(self.n))
        self.span = self.upper - self.lower
        self.sigma_min = 1e-12 * self.span
        self.sigma_max = self.span.copy()
        self.sigma0 = float(sigma0)
        self.x0 = None if x0 is None else self._reflect(np.asarray(x0, dtype=np.float64)[None, :])[0]
        self.generation = 0  # number of completed tell() calls
        self.evaluations = 0
        self.parents_x: np.ndarray | None = None
        self.parents_s: np.ndarray | None = None
        self.parents_f: np.ndarray | None = None
        self._pending: tuple[np.ndarray, np.ndarray] | None = None

    # ------------------------------------------------------------------ operators
    def _reflect(self, x: np.ndarray) -> np.ndarray:
        """Fold x into [lower, upper] by repeated reflection at the bounds (period 2 (hi - lo))."""
        y = np.mod(x - self.lower, 2.0 * self.span)
        y = np.where(y > self.span, 2.0 * self.span - y, y)
        return self.lower + y

    def ask(self) -> np.ndarray:
        """The lambda offspring of this generation, shape (lambda, n); asking twice returns the same ones."""
        if self._pending is not None:
            return self._pending[0].copy()
        rng = self.rng
        if self.parents_x is None:
            x = self.lower + rng.random((self.lam, self.n)) * self.span
            if self.x0 is not None:
                x[0] = self.x0
            s = np.tile(self.sigma0 * self.span, (self.lam, 1))
        else:
            # discrete recombination over all mu parents for x, intermediate of 2 parents for s
            # (fewer than mu parents while lambda < mu: the first generation has only lambda points)
            parents = len(self.parents_x)
            pick = rng.integers(0, parents, size=(self.lam, self.n))
            x = self.parents_x[pick, np.arange(self.n)[None, :]]
            pair = rng.integers(0, parents, size=(self.lam, 2))
            s = 0.5 * (self.parents_s[pair[:, 0]] + self.parents_s[pair[:, 1]])
            # log-normal self-adaptation, then mutate x with the new step sizes
            glob = rng.standard_normal((self.lam, 1))
            loc = rng.standard_normal((self.lam, self.n))
            s = s * np.exp(self.tau_global * glob + self.tau_local * loc)
            s = np.clip(s, self.sigma_min, self.sigma_max)
            x = self._reflect(x + s * rng.standard_normal((self.lam, self.n)))
        self._pending = (x, s)
        return x.copy()

    def tell(self, x: np.ndarray, f: np.ndarray | list[float]) -> None:
        """Plus-selection: keep the mu best of parents and the offspring just asked for."""
        if self._pending is None:
            raise RuntimeError("tell() without a preceding ask()")
        px, ps = self._pending
        x = np.asarray(x, dtype=np.float64)
        if x.shape != px.shape or not np.array_equal(x, px):
            raise ValueError("tell() must receive the offspring returned by the last ask()")
        f = np.asarray(f, dtype=np.float64)
        if f.shape != (self.lam,):
            raise ValueError(f"tell() needs {self.lam} fitness values, got shape {f.shape}")
        f = np.where(np.isnan(f), np.inf, f)
        if self.parents_x is None:
            all_x, all_s, all_f = px, ps, f
        else:
            all_x = np.concatenate([self.parents_x, px])
            all_s = np.concatenate([self.parents_s, ps])
            all_f = np.concatenate([self.parents_f, f])
        keep = np.argsort(all_f, kind="stable")[: self.mu]
        self.parents_x, self.parents_s, self.parents_f = all_x[keep], all_s[keep], all_f[keep]
        self._pending = None
        self.generation += 1
        self.evaluations += self.lam

    # ------------------------------------------------------------------ results
    @property
    def best_x(self) -> np.ndarray | None:
        return None if self.parents_x is None else self.parents_x[0].copy()

    @property
    def best_f(self) -> float:
        return math.inf if self.parents_f is None else float(self.parents_f[0])

    def stop(self) -> dict[str, Any]:
        """Reasons to stop early (none but a collapsed population: every step size at its floor)."""
        if self.parents_s is not None and np.all(self.parents_s <= self.sigma_min * (1 + 1e-9)):
            return {"sigma_min": True}
        return {}

    def state_summary(self) -> dict[str, float]:
        """Small numbers for progress/history: median step size relative to the box."""
        if self.parents_s is None:
            return {"sigma": self.sigma0}
        return {"sigma": float(np.median(self.parents_s / self.span))}
