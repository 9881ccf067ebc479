"""GA-Random and GA-METL: a permutation GA over the job order of each package (pymoo, ask/tell).

slowdown-guided-ga-federation, Sect. 3 and Table 1:

- chromosome: the order in which the package's jobs start; decoded by the compiled strict-order
  builder with Algorithm 1 allocation (:func:`schedlab.federation.kernel.makespan_in_order`),
  fitness = the package makespan (minimised);
- initial population: random permutations (pymoo's ``PermutationRandomSampling``); GA-METL
  replaces the first individual by METL's order ("one of the individuals in the initial
  population is created by ... METL");
- crossover (probability 80 %), :class:`UniformOrderCrossover`: "First a mask of random binary
  values is generated. For every position with value 1, the job of the first parent is placed
  into the offspring. For the missing jobs, the order of the second parent is chosen.
  Additionally, some parents are not crossed but copied to the next generation." (pymoo's
  Crossover copies the parents of the 20 % of matings it does not cross);
- mutation (1 %), :class:`SwapMutation`: "a mutation is the swapping of two jobs in a given
  assignment" (see ``mutation_reading``);
- selection: "the standard tournament selection algorithm" -- pymoo's TournamentSelection
  (binary by default) with :func:`tournament_winner` (smaller makespan wins, ties at random);
- survival: pymoo's GA default (FitnessSurvival: the best ``pop`` of parents and offspring).
  The paper does not name a replacement scheme; this elitist one keeps the METL individual until
  something better is found, so GA-METL <= METL by construction;
- 500 iterations, population 200 (Table 1): ``generations`` counts pymoo generations, the initial
  population being the first, so a run makes ``generations x pop`` evaluations (100,000).

Every package runs its own GA, seeded by (seed, package index). Fitness values are computed
through an Executor (payload: every package's :class:`PackageProblem`; item: (package, order)).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from pymoo.algorithms.soo.nonconvex.ga import GA
from pymoo.core.crossover import Crossover
from pymoo.core.mutation import Mutation
from pymoo.core.problem import Problem
from pymoo.operators.sampling.rnd import PermutationRandomSampling
from pymoo.operators.selection.tournament import TournamentSelection

from ..errors import RunError

MUTATION_READINGS = ("individual", "gene")


@dataclass(frozen=True)
class FederationGAConfig:
    """Settings of the GA (slowdown-guided-ga-federation, Table 1), recorded in config.json.

    ``mutation_reading`` -- Table 1 gives "Mutation Frequency 1%" and Sect. 3 "a mutation is the
    swapping of two jobs in a given assignment". ``"individual"`` (default): each offspring is
    mutated with probability ``p_mutation`` by one swap of two random positions; ``"gene"``:
    every position is swapped with a random other position with probability ``p_mutation``.
    """

    generations: int = 500
    pop: int = 200
    p_mutation: float = 0.01
    p_crossover: float = 0.8
    tournament: int = 2
    mutation_reading: str = "individual"
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("generations", "pop", "tournament"):
            v = getattr(self, name)
            if int(v) != v or v < (2 if name != "generations" else 1):
                raise RunError(f"GA {name} must be a whole number >= {2 if name != 'generations' else 1}, got {v}")
        if self.pop % 2:
            raise RunError(f"GA population must be even (two offspring per mating), got {self.pop}")
        for name in ("p_mutation", "p_crossover"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise RunError(f"GA {name} must lie in [0, 1], got {getattr(self, name)}")
        if self.mutation_reading not in MUTATION_READINGS:
            raise RunError(f"mutation reading {self.mutation_reading!r}: choose {' or '.join(MUTATION_READINGS)}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------------------ operators


def uniform_order_crossover(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Offspring: a's job where mask is 1, the other jobs in b's order in the remaining positions."""
    child = np.empty_like(a)
    child[mask] = a[mask]
    taken = np.zeros(a.size, dtype=bool)
    taken[a[mask]] = True
    child[~mask] = b[~taken[b]]
    return child


class UniformOrderCrossover(Crossover):
    """Two parents -> two offspring with one random binary mask (the paper's crossover, both roles)."""

    def __init__(self, prob: float = 0.8, **kwargs) -> None:
        super().__init__(2, 2, prob=prob, **kwargs)

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        _, n_matings, n_var = X.shape
        Y = np.empty((2, n_matings, n_var), dtype=X.dtype)
        masks = random_state.random((n_matings, n_var)) < 0.5
        for i in range(n_matings):
            a, b = X[0, i], X[1, i]
            Y[0, i] = uniform_order_crossover(a, b, masks[i])
            Y[1, i] = uniform_order_crossover(b, a, masks[i])
        return Y


class SwapMutation(Mutation):
    """Swap of two jobs: per individual (one swap with probability prob) or per gene (see FederationGAConfig)."""

    def __init__(self, prob: float = 0.01, reading: str = "individual") -> None:
        self.reading = reading
        self.p_gene = prob
        super().__init__(prob=prob if reading == "individual" else 1.0)

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        Y = X.copy()
        n = X.shape[1]
        if n < 2:
            return Y
        for y in Y:
            if self.reading == "individual":
                i, j = random_state.choice(n, 2, replace=False)
                y[i], y[j] = y[j], y[i]
            else:
                for i in np.flatnonzero(random_state.random(n) < self.p_gene):
                    j = (i + random_state.integers(1, n)) % n
                    y[i], y[j] = y[j], y[i]
        return Y


def tournament_winner(pop, P, random_state=None, **kwargs) -> np.ndarray:
    """Winner of each tournament (row of P): the smallest makespan; ties broken at random.

    (pymoo's own comparison is wrapped by a local decorator and cannot be pickled with a checkpoint.)
    """
    F = np.asarray(pop.get("F"), dtype=np.float64)[:, 0]
    out = np.empty(P.shape[0], dtype=np.int64)
    for i, row in enumerate(P):
        f = F[row]
        tied = row[f == f.min()]
        out[i] = tied[0] if tied.size == 1 else tied[random_state.integers(tied.size)]
    return out[:, None]


class OrderProblem(Problem):
    """The pymoo view of one package: n_var = jobs, one objective (makespan); evaluated outside pymoo."""

    def __init__(self, n_jobs: int) -> None:
        super().__init__(n_var=n_jobs, n_obj=1, xl=0, xu=max(n_jobs - 1, 0), vtype=int)


def package_seed(seed: int, package: int) -> int:
    """The pymoo seed of package p's GA (independent streams per package)."""
    return int(np.random.SeedSequence([int(seed), int(package), 0x6741]).generate_state(1)[0])


def make_algorithm(n_jobs: int, config: FederationGAConfig, package: int, seed_order: np.ndarray | None) -> GA:
    """pymoo GA with the paper's operators, set up for ask/tell; ``seed_order`` (METL) becomes individual 0."""
    problem = OrderProblem(n_jobs)
    rng = np.random.default_rng(package_seed(config.seed, package))
    X0 = PermutationRandomSampling().do(problem, config.pop, random_state=rng).get("X").astype(np.int64)
    if seed_order is not None:
        X0[0] = seed_order
    algorithm = GA(
        pop_size=config.pop,
        sampling=X0,
        selection=TournamentSelection(func_comp=tournament_winner, pressure=config.tournament),
        crossover=UniformOrderCrossover(prob=config.p_crossover),
        mutation=SwapMutation(prob=config.p_mutation, reading=config.mutation_reading),
        eliminate_duplicates=False,
    )
    algorithm.setup(problem, termination=("n_gen", config.generations), seed=package_seed(config.seed, package),
                    verbose=False)
    return algorithm


def evaluate_order(payload, item) -> float:
    """Executor function: makespan of package ``item[0]`` started in order ``item[1]``."""
    package, order = item
    return payload[package].makespan(order)


def best_of(algorithm) -> tuple[np.ndarray, float]:
    opt = algorithm.opt
    return np.asarray(opt[0].X, dtype=np.int64), float(opt[0].F[0])


def ga_generation(algorithm, package: int, executor, problem: Problem, progress=None) -> np.ndarray:
    """One ask -> evaluate (executor) -> tell step; returns the fitness values of the evaluated individuals."""
    from pymoo.core.evaluator import Evaluator
    from pymoo.problems.static import StaticProblem

    pop = algorithm.ask()
    X = np.asarray(pop.get("X")).astype(np.int64, copy=False)
    F = np.asarray(executor.map(evaluate_order, [(package, x) for x in X], progress=progress), dtype=np.float64)
    Evaluator().eval(StaticProblem(problem, F=F[:, None]), pop)
    algorithm.tell(infills=pop)
    return F


def run_package_ga(run, state: dict, package: int, n_jobs: int, config: FederationGAConfig, executor,
                   seed_order: np.ndarray | None, *, on_generation=None, on_evaluation=None) -> dict:
    """Run (or resume from ``state``) the GA of one package; checkpoint after every generation.

    ``state`` is the run's checkpoint dict; its ``current`` entry holds this package's algorithm
    and history rows. Returns the finished ``current`` entry (best order, best makespan, rows).
    """
    cur = state.get("current")
    if cur is None or cur["package"] != package:
        cur = {"package": package, "algorithm": make_algorithm(n_jobs, config, package, seed_order), "rows": [],
               "elapsed": 0.0, "cpu": 0.0}
    algorithm = cur["algorithm"]
    problem = algorithm.problem
    t0, elapsed0 = time.perf_counter(), cur["elapsed"]
    c0, cpu0 = time.process_time(), cur.get("cpu", 0.0)  # CPU of this process (the GA with a serial executor)
    while len(cur["rows"]) < config.generations:
        gen = len(cur["rows"])
        tick = None
        if on_evaluation is not None:
            tick = lambda k, gen=gen: on_evaluation(package, gen, k)  # noqa: E731
        F = ga_generation(algorithm, package, executor, problem, tick)
        _, best = best_of(algorithm)
        cur["elapsed"] = elapsed0 + time.perf_counter() - t0
        cur["cpu"] = cpu0 + time.process_time() - c0
        cur["rows"].append({"package": package, "gen": gen + 1, "evaluations": (gen + 1) * config.pop,
                            "best": best, "median": float(np.median(F)), "elapsed": cur["elapsed"]})
        state["current"] = cur
        run.save_checkpoint(state)
        if on_generation is not None:
            on_generation(package, cur["rows"][-1])
    cur["best_order"], cur["best"] = best_of(algorithm)
    return cur
