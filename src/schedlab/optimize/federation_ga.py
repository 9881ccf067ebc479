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
through an Executor (payload: every package's :class:`PackageProblem`; item: (package, a chunk of
the population, the carried-over jobs)), one compiled call per chunk (:func:`evaluate_population`).

The generation loop (:func:`breed`, :func:`survive`) works on plain arrays: pymoo's own ask/tell
loop keeps a Population of Individual objects and costs ~45 ms per generation of 200 (more than
the fitness of a 100-job package). It makes exactly pymoo's random draws in pymoo's order (binary
tournament on ``random_permutations``, Crossover's 80 % coin per mating, the crossover masks, the
mutation's per-offspring draws, FitnessSurvival's stable sort), so a seed gives the same
generations as :func:`make_algorithm` run through pymoo's GA (tested), while the combinatorial work
(order crossover) is compiled with numba.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from pymoo.algorithms.soo.nonconvex.ga import GA
from pymoo.core.crossover import Crossover
from pymoo.core.mutation import Mutation
from pymoo.operators.sampling.rnd import PermutationRandomSampling
from pymoo.operators.selection.tournament import TournamentSelection

from ..errors import RunError
from .perm_kernels import uox_pairs
from .order_problem import OrderProblem
from .run import AskTell
from .settings import DEFAULT_SEED

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
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        from .settings import check_seed, check_whole

        check_whole("--generations", self.generations)
        check_whole("--pop", self.pop, 2)
        check_whole("the GA's tournament size", self.tournament, 2)
        check_seed(self.seed)
        if self.pop % 2:
            raise RunError(f"--pop must be even (two offspring per mating), got {self.pop}")
        for name in ("p_mutation", "p_crossover"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise RunError(f"--{name.replace('_', '-')} must lie in [0, 1], got {getattr(self, name)}")
        if self.mutation_reading not in MUTATION_READINGS:
            raise RunError(f"--mutation-reading {self.mutation_reading!r}: choose {' or '.join(MUTATION_READINGS)}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------------------ operators


def uniform_order_crossover(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Offspring: a's job where mask is 1, the other jobs in b's order in the remaining positions."""
    a = np.asarray(a, dtype=np.int64)[None]
    b = np.asarray(b, dtype=np.int64)[None]
    return uox_pairs(a, b, np.asarray(mask, dtype=np.bool_)[None], np.ones(1, dtype=np.bool_))[0][0]


def crossover_matings(A: np.ndarray, B: np.ndarray, p_crossover: float, rng: np.random.Generator) -> np.ndarray:
    """pymoo's Crossover.do with :class:`UniformOrderCrossover` on matings (A[i], B[i]), same draws.

    Returns the offspring (2m, n): first child of every mating, then the second child; a mating
    that is not crossed (probability 1 - p_crossover) copies its parents.
    """
    m, n = A.shape
    cross = rng.random(m) < p_crossover
    if not cross.any():
        return np.concatenate([A, B])
    masks = rng.random((m, n)) < 0.5
    Y0, Y1 = uox_pairs(A, B, masks, cross)
    return np.concatenate([Y0, Y1])


class UniformOrderCrossover(Crossover):
    """Two parents -> two offspring with one random binary mask (the paper's crossover, both roles)."""

    def __init__(self, prob: float = 0.8, **kwargs) -> None:
        super().__init__(2, 2, prob=prob, **kwargs)

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        _, n_matings, n_var = X.shape
        masks = random_state.random((n_matings, n_var)) < 0.5
        A = np.ascontiguousarray(X[0], dtype=np.int64)
        B = np.ascontiguousarray(X[1], dtype=np.int64)
        Y0, Y1 = uox_pairs(A, B, masks, np.ones(n_matings, dtype=np.bool_))
        return np.stack([Y0, Y1]).astype(X.dtype, copy=False)


def swap_candidates(X: np.ndarray, reading: str, p_gene: float, rng: np.random.Generator) -> np.ndarray:
    """Every row of X with its swap(s) applied (pymoo's Mutation then keeps a row with probability prob)."""
    Y = X.copy()
    n = X.shape[1]
    if n < 2:
        return Y
    for y in Y:
        if reading == "individual":
            i, j = rng.choice(n, 2, replace=False)
            y[i], y[j] = y[j], y[i]
        else:
            for i in np.flatnonzero(rng.random(n) < p_gene):
                j = (i + rng.integers(1, n)) % n
                y[i], y[j] = y[j], y[i]
    return Y


class SwapMutation(Mutation):
    """Swap of two jobs: per individual (one swap with probability prob) or per gene (see FederationGAConfig)."""

    def __init__(self, prob: float = 0.01, reading: str = "individual") -> None:
        self.reading = reading
        self.p_gene = prob
        super().__init__(prob=prob if reading == "individual" else 1.0)

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        return swap_candidates(X, self.reading, self.p_gene, random_state)


def mutate(X: np.ndarray, config: FederationGAConfig, rng: np.random.Generator) -> np.ndarray:
    """pymoo's Mutation.do with :class:`SwapMutation`, same draws: candidates for all, then the coin per row."""
    Y = swap_candidates(X, config.mutation_reading, config.p_mutation, rng)
    prob = config.p_mutation if config.mutation_reading == "individual" else 1.0
    mut = rng.random(size=X.shape[0]) <= prob
    return np.where(mut[:, None], Y, X)


def tournament_winners(F: np.ndarray, P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Winner of each tournament (row of P): the smallest F; ties broken at random (one draw per tied row)."""
    f = F[P]
    best = f.min(axis=1)
    out = P[np.arange(P.shape[0]), f.argmin(axis=1)]
    n_tied = (f == best[:, None]).sum(axis=1)
    for i in np.flatnonzero(n_tied > 1):  # in row order, as the per-row loop draws them
        tied = P[i][f[i] == best[i]]
        out[i] = tied[rng.integers(tied.size)]
    return out


def tournament_winner(pop, P, random_state=None, **kwargs) -> np.ndarray:
    """pymoo comparison for TournamentSelection: :func:`tournament_winners` on the population's F.

    (pymoo's own comparison is wrapped by a local decorator and cannot be pickled with a checkpoint.)
    """
    F = np.asarray(pop.get("F"), dtype=np.float64)[:, 0]
    return tournament_winners(F, np.asarray(P), random_state)[:, None]


def select_parents(F: np.ndarray, n_matings: int, pressure: int, rng: np.random.Generator) -> np.ndarray:
    """pymoo's TournamentSelection._do (two parents per mating), same draws: (n_matings, 2) indices into F."""
    n_random = n_matings * 2 * pressure
    n_perms = -(-n_random // F.size)
    P = np.concatenate([rng.permutation(F.size) for _ in range(n_perms)])[:n_random].reshape(n_matings * 2, pressure)
    return tournament_winners(F, P, rng).reshape(n_matings, 2)


def breed(X: np.ndarray, F: np.ndarray, config: FederationGAConfig, rng: np.random.Generator) -> np.ndarray:
    """One generation's offspring (pop x n) from population X with fitness F: selection, crossover, mutation."""
    parents = select_parents(F, config.pop // 2, config.tournament, rng)
    off = crossover_matings(X[parents[:, 0]], X[parents[:, 1]], config.p_crossover, rng)
    return mutate(off, config, rng)


def survive(X: np.ndarray, F: np.ndarray, Xo: np.ndarray, Fo: np.ndarray, pop: int) -> tuple[np.ndarray, np.ndarray]:
    """pymoo's FitnessSurvival: the ``pop`` best of parents then offspring (stable sort, so ties keep parents first)."""
    Xa = np.concatenate([X, Xo])
    Fa = np.concatenate([F, Fo])
    S = np.argsort(Fa, kind="stable")[:pop]
    return Xa[S], Fa[S]


def package_seed(seed: int, package: int) -> int:
    """The pymoo seed of package p's GA (independent streams per package)."""
    return int(np.random.SeedSequence([int(seed), int(package), 0x6741]).generate_state(1)[0])


def initial_population(n_jobs: int, config: FederationGAConfig, package: int, seed_order: np.ndarray | None) -> np.ndarray:
    """pymoo's PermutationRandomSampling (own stream), ``seed_order`` (METL) as individual 0."""
    rng = np.random.default_rng(package_seed(config.seed, package))
    X0 = PermutationRandomSampling().do(OrderProblem(n_jobs), config.pop, random_state=rng).get("X").astype(np.int64)
    if seed_order is not None:
        X0[0] = seed_order
    return X0


def make_algorithm(n_jobs: int, config: FederationGAConfig, package: int, seed_order: np.ndarray | None) -> GA:
    """The same GA on pymoo's own ask/tell loop (the reference :func:`breed`/:func:`survive` reproduce)."""
    problem = OrderProblem(n_jobs)
    algorithm = GA(
        pop_size=config.pop,
        sampling=initial_population(n_jobs, config, package, seed_order),
        selection=TournamentSelection(func_comp=tournament_winner, pressure=config.tournament),
        crossover=UniformOrderCrossover(prob=config.p_crossover),
        mutation=SwapMutation(prob=config.p_mutation, reading=config.mutation_reading),
        eliminate_duplicates=False,
    )
    algorithm.setup(problem, termination=("n_gen", config.generations), seed=package_seed(config.seed, package),
                    verbose=False)
    return algorithm


def evaluate_orders(payload, item) -> np.ndarray:
    """Executor function: makespans of package ``item[0]`` for every order (row) of ``item[1]``, on
    the platform ``item[2]`` (a :class:`~schedlab.federation.schedule.Carry`, or None) leaves."""
    package, X, carry = item
    return payload[package].with_carry(carry).makespans(X)


def population_chunks(X: np.ndarray, workers: int) -> list[np.ndarray]:
    """The rows of X in ``workers`` consecutive chunks (fewer for a smaller population): one compiled
    call per worker, so a generation costs one dispatch per worker, not one per individual."""
    return [c for c in np.array_split(X, max(1, min(workers, len(X)))) if len(c)]


def chunk_evaluations(n: int, chunks: int, done: int) -> int:
    """Evaluations of a population of ``n`` split in ``chunks`` once ``done`` chunks finished (progress)."""
    return min(n, done * -(-n // chunks))


def evaluate_population(executor, package: int, X: np.ndarray, carry=None, progress=None) -> np.ndarray:
    """Fitness of every row of X, one executor task per chunk (:func:`population_chunks`)."""
    chunks = population_chunks(X, getattr(executor, "workers", 1))
    tick = None
    if progress is not None:  # progress counts evaluations
        tick = lambda k: progress(chunk_evaluations(len(X), len(chunks), k))  # noqa: E731
    parts = executor.map(evaluate_orders, [(package, c, carry) for c in chunks], progress=tick)
    return np.concatenate(parts).astype(np.float64, copy=False)


@dataclass
class GAState:
    """The GA of one package between generations (what a checkpoint holds): population, fitness, stream."""

    X: np.ndarray | None
    F: np.ndarray | None
    rng: np.random.Generator
    X0: np.ndarray

    @classmethod
    def new(cls, n_jobs: int, config: FederationGAConfig, package: int, seed_order: np.ndarray | None) -> GAState:
        return cls(None, None, np.random.default_rng(package_seed(config.seed, package)),
                   initial_population(n_jobs, config, package, seed_order))

    @classmethod
    def from_pymoo(cls, algorithm) -> GAState:
        """A pymoo GA after at least one tell (checkpoints written before the array loop) as a state."""
        X = np.asarray(algorithm.pop.get("X")).astype(np.int64)
        return cls(X, np.asarray(algorithm.pop.get("F"), dtype=np.float64)[:, 0], algorithm.random_state, X[:0])

    def best(self) -> tuple[np.ndarray, float]:
        i = int(np.argmin(self.F))  # first of the best, as pymoo's filter_optimum
        return self.X[i].copy(), float(self.F[i])

    def offspring(self, config: FederationGAConfig) -> np.ndarray:
        """The individuals the next generation evaluates: the initial population, then bred ones."""
        return self.X0 if self.X is None else breed(self.X, self.F, config, self.rng)

    def take(self, Xo: np.ndarray, Fo: np.ndarray, config: FederationGAConfig) -> None:
        """The evaluated offspring enter the population."""
        if self.X is None:  # pymoo's GA keeps the evaluated initial population as it is
            self.X, self.F, self.X0 = Xo, Fo, Xo[:0]
        else:
            self.X, self.F = survive(self.X, self.F, Xo, Fo, config.pop)


def ga_generation(ga: GAState, package: int, executor, config: FederationGAConfig, progress=None,
                  carry=None) -> np.ndarray:
    """One generation: breed (or the initial population), evaluate through the executor, survive.

    Returns the fitness values of the evaluated individuals."""
    Xo = ga.offspring(config)
    Fo = evaluate_population(executor, package, Xo, carry, progress)
    ga.take(Xo, Fo, config)
    return Fo


#: default checkpoint interval of a GA run: at most this many seconds of work are lost by a kill
CHECKPOINT_SECONDS = 5.0


class PackageGAAskTell(AskTell):
    """One package's GA in the terms of the shared run loop (:func:`schedlab.optimize.run.run_generations`):
    ``ask`` -> the offspring in one executor task per worker (:func:`population_chunks`), ``tell``
    -> survival; a row is the package's generation (best, median makespan); the checkpoint is the
    whole federation run's state, this package's GA in its ``current`` entry."""

    def __init__(self, state: dict, cur: dict, config: FederationGAConfig, workers: int, carry=None) -> None:
        self.state, self.cur, self.config, self.workers, self.carry = state, cur, config, workers, carry
        self.c0, self.cpu0 = time.process_time(), cur.get("cpu", 0.0)  # CPU of this process (GA with a serial executor)
        self._X = self._F = np.empty(0)
        self.chunks = 1

    @property
    def generation(self) -> int:
        return len(self.cur["rows"])

    @property
    def evaluations(self) -> int:
        return len(self.cur["rows"]) * self.config.pop

    def ask(self) -> list[tuple]:
        self._X = self.cur["ga"].offspring(self.config)
        chunks = population_chunks(self._X, self.workers)
        self.chunks = len(chunks)
        return [(self.cur["package"], c, self.carry) for c in chunks]

    def tell(self, x, results) -> None:
        self._F = np.concatenate(results).astype(np.float64, copy=False)
        self.cur["ga"].take(self._X, self._F, self.config)

    def row(self, elapsed: float) -> dict[str, Any]:
        cur = self.cur
        _, best = cur["ga"].best()
        cur["elapsed"] = elapsed
        cur["cpu"] = self.cpu0 + time.process_time() - self.c0
        self.state["current"] = cur
        gen = len(cur["rows"]) + 1
        return {"package": cur["package"], "gen": gen, "evaluations": gen * self.config.pop, "best": best,
                "median": float(np.median(self._F)), "elapsed": elapsed}

    def checkpoint(self, rows: list[dict[str, Any]]) -> dict:
        return self.state  # its current package's rows are ``rows``


def run_package_ga(run, state: dict, package: int, n_jobs: int, config: FederationGAConfig, executor,
                   seed_order: np.ndarray | None, *, on_generation=None, on_evaluation=None,
                   checkpoint_every: int | None = None, carry=None) -> tuple[dict, bool]:
    """Run (or resume from ``state``) the GA of one package through the shared run loop
    (:func:`schedlab.optimize.run.run_generations`, :class:`PackageGAAskTell`).

    ``state`` is the run's checkpoint dict; its ``current`` entry holds this package's GA state
    and history rows. The checkpoint is written every ``checkpoint_every`` generations, or when
    None every :data:`CHECKPOINT_SECONDS` of wall time (and by the caller when the package ends);
    a resumed run continues the saved stream, so its result is identical whatever the interval.
    ``carry``: the jobs of earlier packages still running at this package's release (package_start
    "carry"; None: an empty platform). Returns the finished ``current`` entry (best order, best
    makespan, rows) and whether Ctrl-C or SIGTERM stopped the GA (then the entry is unfinished).
    """
    from .run import CheckpointPolicy, run_generations

    cur = state.get("current")
    if cur is None or cur["package"] != package:
        cur = {"package": package, "ga": GAState.new(n_jobs, config, package, seed_order), "rows": [],
               "elapsed": 0.0, "cpu": 0.0}
    if "algorithm" in cur:  # a checkpoint of the pymoo loop
        cur["ga"] = GAState.from_pymoo(cur.pop("algorithm"))
    adapter = PackageGAAskTell(state, cur, config, getattr(executor, "workers", 1), carry)
    resumed = cur["rows"][-1] if cur["rows"] else None
    shown = None
    if on_generation is not None:  # a resumed package's stored row is not a new step
        def shown(row):
            if row is not resumed:
                on_generation(package, row)
    counted = None
    if on_evaluation is not None:  # the loop counts executor tasks (chunks); progress counts evaluations
        def counted(gen, tasks):
            on_evaluation(package, gen, chunk_evaluations(len(adapter._X), adapter.chunks, tasks - adapter.evaluations))
    policy = CheckpointPolicy(every=checkpoint_every, seconds=CHECKPOINT_SECONDS, last=False)
    interrupted = run_generations(run, adapter, evaluate_orders, executor, config.generations, cur["rows"],
                                  cur["elapsed"], write_files=lambda rows: None, on_generation=shown,
                                  on_evaluation=counted, checkpoint=policy)
    if not interrupted:
        cur["best_order"], cur["best"] = cur["ga"].best()
    return cur, interrupted
