"""NSGA-II over grid workload partitions (pymoo) with the paper's problem-specific operators.

nsga2-grid-performance-bounds, Section 4 and 5.2:

- genotype: one integer gene per job of the merged trace (submit order), gene = site index
  (Section 4.1); jobs wider than the chosen site are vetoed back to their origin (a Repair);
- random mutation: each gene changed with probability P_rand = 0.1 to a uniformly chosen *other*
  site (eq. (1) read as "move to another site": for K = 2 a flip, as the task states; eq. (1)
  taken literally, a + floor((K+1) U) mod K, leaves the gene unchanged for 2 of the 3 values when
  K = 2, i.e. flips with P_rand / 3: use ``p_rand = 0.1 / 3`` (``--p-rand``) for that reading);
- shift mutation, Algorithm 1: n_s = floor(|N(0, sigma)| + 0.5) genes, chosen uniformly among
  those not yet on the target site k_s = floor(K U(0,1)) (the paper's (K+1) would index a
  site K that does not exist), are moved to k_s; sigma = 2000;
- every offspring gets the shift mutation with probability P_shift = 0.5, else the random one;
- two-point crossover with probability 0.9; binary tournament without replacement (pymoo's
  TournamentSelection draws random permutations, compared by NSGA-II's rank/crowding rule);
- objectives AWRT_k (eq. (2)), constraints AWRT_k - 100,000 s <= 0 (eq. (4));
- initial population: the no-exchange partition plus mu - 1 copies with 5,000 random genes
  moved to another site (Section 4.6). Beyond the paper, ``seed_with = "rq,pool"`` replaces the
  first of those copies by the partitions the RQ / POOL simulations realised (every job on the
  site where it ran): the front then starts from the heuristics instead of having to find them.

Beside the paper's operators, ``variation = "aware"`` (:class:`AwareMutation`, issue 17) lets a
shift mutation pick long-waiting or small jobs instead of uniform positions.

Hypervolume per generation: pymoo's HV of the feasible non-dominated set against the reference
point (limit, ..., limit) = (100000, 100000), i.e. the corner of the feasible search space.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2, binary_tournament
from pymoo.core.mutation import Mutation
from pymoo.core.problem import Problem
from pymoo.core.repair import Repair
from pymoo.operators.crossover.pntx import TwoPointCrossover
from pymoo.operators.selection.tournament import TournamentSelection

from .settings import DEFAULT_SEED
from ..errors import RunError
from ..grid.kernel import NONE, grid_kernel
from ..grid.partition import AWRT_LIMIT, PartitionProblem
from .run import AskTell


@dataclass(frozen=True)
class GridNSGA2Config:
    """The paper's NSGA-II settings (Section 5.2)."""

    pop: int = 70
    generations: int = 200
    p_rand: float = 0.1
    p_shift: float = 0.5
    sigma: float = 2000.0
    p_crossover: float = 0.9
    initial_flips: int = 5000
    limit: float = AWRT_LIMIT
    seed: int = DEFAULT_SEED
    #: comma-separated exchange policies (pool, rq) whose realised partitions join the initial
    #: population (not in the paper; "" = the paper's initial population)
    seed_with: str = ""
    #: variation operators: "paper" (Section 4.2-4.3) or "aware" (:class:`AwareMutation`, not in
    #: the paper: the shift mutation picks long-waiting or small jobs a third of the time each)
    variation: str = "paper"

    def __post_init__(self) -> None:
        from .settings import check_seed, check_whole

        check_whole("--generations", self.generations)
        check_whole("--pop", self.pop, 2)
        check_seed(self.seed)
        if not 0.0 <= self.p_rand <= 1.0:
            raise RunError(f"--p-rand must lie in [0, 1], got {self.p_rand}")
        try:
            seed_policies(self.seed_with)
        except ValueError as exc:
            raise RunError(f"--seed-with: {exc}") from None
        if self.variation not in VARIATIONS:
            raise RunError(f"--variation {self.variation!r}: choose one of {', '.join(VARIATIONS)}")

    def to_dict(self) -> dict:
        d = asdict(self)
        for key, default in (("seed_with", ""), ("variation", "paper")):
            if d[key] == default:
                del d[key]  # run folders made before the option keep resuming
        return d


class PartitionNSGA2Problem(Problem):
    """min (AWRT_1, ..., AWRT_K) over partitions, s.t. AWRT_k <= limit (eq. (3), (4)).

    Evaluation happens outside pymoo (ask/tell through an Executor); ``_evaluate`` is only used
    when pymoo is driven directly, serially.
    """

    def __init__(self, payload: PartitionProblem) -> None:
        self.payload = payload
        K = payload.n_sites
        super().__init__(n_var=payload.n_jobs, n_obj=K, n_ieq_constr=K, xl=0, xu=K - 1, vtype=int)

    def _evaluate(self, X, out, *args, **kwargs):
        F, G = objectives([self.payload.evaluate_raw(x) for x in X], self.payload.limit)
        out["F"], out["G"] = F, G


def objectives(results, limit: float) -> tuple[np.ndarray, np.ndarray]:
    """F (AWRT_k) and G (AWRT_k - limit) from evaluate_raw results; aborted runs are infeasible.

    An aborted run holds lower bounds of AWRT_k; its G keeps them (so less-violating partitions
    rank first among the infeasible), its F is set to inf-like 1e12 (the paper's infinite value).
    """
    awrt = np.array([r[0] for r in results], dtype=np.float64)
    aborted = np.array([r[1] for r in results], dtype=bool)
    G = awrt - limit
    G[aborted] = np.maximum(G[aborted], 0.0)
    F = awrt.copy()
    F[aborted | np.any(awrt > limit, axis=1)] = 1e12
    return F, G


class VetoRepair(Repair):
    """Jobs wider than their chosen site go back to their origin (Section 4.1)."""

    def _do(self, problem, X, **kwargs):
        return veto(problem.payload, X)


def veto(payload: PartitionProblem, X: np.ndarray) -> np.ndarray:
    """Genes (int8, one row per individual) with every too-wide job sent back to its origin
    (:meth:`PartitionProblem.veto`, row by row)."""
    return payload.veto(X).astype(np.int8)


def random_mutation(x: np.ndarray, K: int, p_rand: float, rng: np.random.Generator) -> np.ndarray:
    """Each gene moved with probability p_rand to a uniformly chosen other site (Section 4.2)."""
    x = x.copy()
    hit = rng.random(x.size) < p_rand
    x[hit] = (x[hit] + rng.integers(1, K, size=int(hit.sum()))) % K if K > 1 else x[hit]
    return x


def shift_mutation(x: np.ndarray, K: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1: move n_s = floor(|N(0, sigma)| + 0.5) random genes not on site k_s to k_s."""
    x = x.copy()
    n_s = int(np.floor(abs(rng.normal(0.0, sigma)) + 0.5))
    k_s = int(np.floor(K * rng.random()))
    eligible = np.flatnonzero(x != k_s)
    n_s = min(n_s, eligible.size)
    if n_s:
        x[rng.choice(eligible, n_s, replace=False)] = k_s
    return x


class GridMutation(Mutation):
    """Shift mutation with probability P_shift, else random mutation (Section 4.2)."""

    def __init__(self, p_rand: float = 0.1, p_shift: float = 0.5, sigma: float = 2000.0) -> None:
        super().__init__(prob=1.0)
        self.p_rand, self.p_shift, self.sigma = p_rand, p_shift, sigma

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        rng = random_state
        K = problem.n_obj
        out = np.empty_like(X)
        for i, x in enumerate(np.asarray(X).astype(np.int8, copy=False)):
            if rng.random() < self.p_shift:
                out[i] = self._shift(x, K, rng)
            else:
                out[i] = random_mutation(x, K, self.p_rand, rng)
        return out

    def _shift(self, x: np.ndarray, K: int, rng: np.random.Generator) -> np.ndarray:
        return shift_mutation(x, K, self.sigma, rng)


def weighted_shift(x: np.ndarray, K: int, sigma: float, weight: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1 with the n_s genes drawn with probability proportional to ``weight`` (without
    replacement: Efraimidis-Spirakis keys u^(1/w)) among the genes not on k_s with weight > 0."""
    x = x.copy()
    n_s = int(np.floor(abs(rng.normal(0.0, sigma)) + 0.5))
    k_s = int(np.floor(K * rng.random()))
    eligible = np.flatnonzero((x != k_s) & (weight > 0))
    n_s = min(n_s, eligible.size)
    if n_s:
        keys = np.log(rng.random(eligible.size)) / weight[eligible]
        x[eligible[np.argpartition(-keys, n_s - 1)[:n_s]]] = k_s
    return x


class AwareMutation(GridMutation):
    """Problem-aware variation (issue 17, not in the paper), beside the paper's operators.

    As :class:`GridMutation` (shift with P_shift, else random), but a shift mutation is, with
    probability 1/3 each: the paper's (uniform positions); *longest waiting* (positions drawn in
    proportion to the job's wait in the no-exchange EASY schedule: jobs that waited long at home
    go to the other site); *small jobs* (uniform among jobs with at most the median width and at
    most the median estimate: jobs that can backfill on the other site)."""

    def __init__(self, wait: np.ndarray, small: np.ndarray, p_rand: float = 0.1, p_shift: float = 0.5,
                 sigma: float = 2000.0) -> None:
        super().__init__(p_rand, p_shift, sigma)
        self.wait = np.asarray(wait, dtype=np.float64)
        self.small = np.asarray(small, dtype=np.float64)

    def _shift(self, x: np.ndarray, K: int, rng: np.random.Generator) -> np.ndarray:
        which = rng.integers(3)
        if which == 0:
            return shift_mutation(x, K, self.sigma, rng)
        return weighted_shift(x, K, self.sigma, self.wait if which == 1 else self.small, rng)


def aware_weights(payload: PartitionProblem) -> tuple[np.ndarray, np.ndarray]:
    """(wait, small) of :class:`AwareMutation`: each job's wait in the no-exchange EASY schedule
    and a 0/1 mask of the jobs with at most the median width and estimate."""
    start, _site, _awrt, _ab = grid_kernel(payload.submit, payload.run, payload.est, payload.procs, payload.origin,
                                           payload.site_procs, NONE, np.inf)
    wait = np.maximum(start - payload.submit, 0.0)
    small = (payload.procs <= np.median(payload.procs)) & (payload.est <= np.median(payload.est))
    return wait, small.astype(np.float64)


VARIATIONS = ("paper", "aware")


def seed_policies(seed_with: str) -> tuple[str, ...]:
    """The exchange policies named in ``seed_with`` ("rq,pool"); ValueError on anything else."""
    names = tuple(s.strip().lower() for s in seed_with.split(",") if s.strip())
    bad = [n for n in names if n not in ("pool", "rq")]
    if bad:
        raise ValueError(f"cannot seed the population with {', '.join(map(repr, bad))}: choose among pool, rq")
    return names


def initial_population(
    payload: PartitionProblem, pop: int, flips: int, rng: np.random.Generator, seed_with: str = ""
) -> np.ndarray:
    """The no-exchange partition plus pop - 1 copies with ``flips`` random genes moved (Section 4.6).

    With ``seed_with`` (e.g. "rq,pool"), rows 1, 2, ... are then replaced by the partitions those
    exchange policies realise (:meth:`PartitionProblem.realised`); the random draws do not change.
    """
    base = payload.origin.astype(np.int8)
    K = payload.n_sites
    X = np.repeat(base[None, :], pop, axis=0)
    flips = min(flips, base.size)
    for i in range(1, pop):
        idx = rng.choice(base.size, flips, replace=False)
        X[i, idx] = (X[i, idx] + rng.integers(1, K, size=flips)) % K
    for i, policy in enumerate(seed_policies(seed_with)[: pop - 1], start=1):
        X[i] = payload.realised(policy)
    return veto(payload, X)


def make_algorithm(payload: PartitionProblem, config: GridNSGA2Config) -> tuple[NSGA2, PartitionNSGA2Problem]:
    """pymoo NSGA-II with the paper's operators, set up for ask/tell (seeded by ``config.seed``)."""
    problem = PartitionNSGA2Problem(payload)
    rng = np.random.default_rng([config.seed, 0x67726964])
    X0 = initial_population(payload, config.pop, config.initial_flips, rng, config.seed_with)
    algorithm = NSGA2(
        pop_size=config.pop,
        sampling=X0,
        selection=TournamentSelection(func_comp=binary_tournament, pressure=2),
        crossover=TwoPointCrossover(prob=config.p_crossover),
        mutation=(GridMutation(config.p_rand, config.p_shift, config.sigma) if config.variation == "paper"
                  else AwareMutation(*aware_weights(payload), config.p_rand, config.p_shift, config.sigma)),
        repair=VetoRepair(),
        eliminate_duplicates=False,
    )
    # the run loop counts generations; the algorithm itself must not depend on the budget, so that
    # a run extended to more generations equals one run with the larger budget
    algorithm.setup(problem, termination=("n_gen", sys.maxsize), seed=config.seed, verbose=False)
    return algorithm, problem


def hypervolume(F: np.ndarray, ref: np.ndarray) -> float:
    """pymoo's HV of the points of F that lie below ``ref`` in every objective (0 if none)."""
    from pymoo.indicators.hv import HV

    F = np.asarray(F, dtype=np.float64).reshape(-1, ref.size)
    F = F[np.all(F < ref, axis=1)]
    return float(HV(ref_point=ref)(F)) if F.size else 0.0


# ---------------------------------------------------------------------------- runs (ask/tell)


@dataclass
class ParetoResult:
    """Outcome of :func:`run_pareto`: the final feasible front and the per-generation history."""

    front_F: np.ndarray
    front_X: np.ndarray
    history: list[dict]
    points: list[dict]
    generations: int
    evaluations: int
    interrupted: bool = False
    resumed_from: int = 0


def _front(algorithm) -> tuple[np.ndarray, np.ndarray]:
    """Feasible non-dominated solutions of the current population (pymoo's ``opt``), sorted by AWRT_1."""
    opt = algorithm.opt
    F = np.asarray(opt.get("F"), dtype=np.float64)
    X = np.asarray(opt.get("X"))
    ok = np.asarray(opt.get("FEAS")).ravel().astype(bool)
    F, X = F[ok], X[ok]
    order = np.lexsort(F.T[::-1]) if F.size else np.arange(0)
    return F[order], X[order]


class NSGA2AskTell(AskTell):
    """pymoo's NSGA-II in the terms of the shared run loop (:func:`schedlab.optimize.run.run_generations`).

    ``ask`` -> the offspring's genes (int8 rows); ``tell`` -> objectives from the executor's
    ``evaluate_raw`` results, pymoo's tell; ``row`` -> hypervolume and front of the generation;
    the checkpoint holds the pickled algorithm (incl. its np.random.Generator), the history and
    every evaluated point. Generation 1 is the initial population (pymoo's count)."""

    def __init__(self, algorithm, problem, limit: float, history: list, points: list) -> None:
        self.algorithm, self.problem, self.limit = algorithm, problem, float(limit)
        self.points = points
        self.generation = len(history)
        self.K = problem.n_obj
        self._pop = None
        self._F = np.empty((0, self.K))

    @property
    def evaluations(self) -> int:
        return len(self.points)

    def ask(self) -> np.ndarray:
        self._pop = self.algorithm.ask()
        return np.asarray(self._pop.get("X")).astype(np.int8, copy=False)

    def tell(self, X, results) -> None:
        from pymoo.core.evaluator import Evaluator
        from pymoo.problems.static import StaticProblem

        F, G = objectives(results, self.limit)
        Evaluator().eval(StaticProblem(self.problem, F=F, G=G), self._pop)
        self.algorithm.tell(infills=self._pop)
        self.generation += 1
        for f, g in zip(F, G):
            self.points.append({"gen": self.generation, "feasible": bool(np.all(g <= 0)),
                                **{f"AWRT_{k + 1}": float(f[k]) for k in range(self.K)}})
        self._F = F

    def row(self, elapsed: float) -> dict:
        K, F = self.K, self._F
        front_F, _ = _front(self.algorithm)
        return {
            "gen": self.generation,
            "evaluations": len(self.points),
            "hypervolume": hypervolume(front_F, np.full(K, self.limit)),
            "front": int(len(front_F)),
            "feasible": int(sum(1 for f in F if np.all(f <= self.limit))),
            **{f"best_AWRT_{k + 1}": float(front_F[:, k].min()) if len(front_F) else float("inf") for k in range(K)},
            "elapsed": elapsed,
        }

    def checkpoint(self, rows: list) -> dict:
        return {"algorithm": self.algorithm, "history": rows, "points": self.points}


def run_pareto(run, payload: PartitionProblem, config: GridNSGA2Config, executor, *, on_generation=None) -> ParetoResult:
    """Run, resume or extend NSGA-II to ``config.generations`` generations in ``run`` (a RunFolder).

    Each generation goes through the shared run loop (:func:`schedlab.optimize.run.run_generations`,
    the ES's): ask -> evaluate the offspring through ``executor`` (payload = the
    PartitionProblem) -> tell -> write history.csv and points.csv -> checkpoint (the commit
    point). Ctrl-C or SIGTERM stops after the last complete generation.
    """
    from ..grid.partition import evaluate_partition
    from .run import run_generations

    state = run.load_checkpoint()
    if state is None:
        algorithm, problem = make_algorithm(payload, config)
        rows: list[dict] = []
        points: list[dict] = []
    else:
        algorithm, problem = state["algorithm"], state["algorithm"].problem
        rows, points = list(state["history"]), list(state["points"])
    resumed_from = len(rows)
    K = payload.n_sites
    adapter = NSGA2AskTell(algorithm, problem, config.limit, rows, points)

    def write_files(rows: list[dict]) -> None:
        run.write_text("history.csv", history_csv(rows))
        run.write_text("points.csv", points_csv(points, K))

    interrupted = run_generations(run, adapter, evaluate_partition, executor, config.generations, rows,
                                  rows[-1]["elapsed"] if rows else 0.0, write_files=write_files,
                                  on_generation=on_generation)
    front_F, front_X = _front(algorithm)
    return ParetoResult(
        front_F=front_F,
        front_X=front_X,
        history=rows,
        points=points,
        generations=len(rows),
        evaluations=len(points),
        interrupted=interrupted,
        resumed_from=resumed_from,
    )


# ---------------------------------------------------------------------------- run files
def _csv(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def history_csv(rows: Sequence[dict]) -> str:
    """One row per generation: gen, evaluations, hypervolume, front size, feasible, best AWRT_k, elapsed
    (the one history writer, :func:`schedlab.optimize.history.history_csv`; elapsed as repr)."""
    from .history import history_csv as write

    return write(rows, list(rows[0]), elapsed_format=None) if rows else ""


def points_csv(points: Sequence[dict], K: int) -> str:
    """Every evaluated partition: gen, feasible, AWRT_1..AWRT_K (1e12 = infeasible, the paper's 'infinite')."""
    keys = ["gen", "feasible", *(f"AWRT_{k + 1}" for k in range(K))]
    return _csv(keys, [[p["gen"], int(p["feasible"]), *(repr(p[f"AWRT_{k + 1}"]) for k in range(K))] for p in points])


def front_csv(F: np.ndarray, X: np.ndarray, origin: np.ndarray, names: Sequence[str]) -> str:
    """The final front: AWRT per site, jobs per site and jobs moved away from their origin."""
    K = len(names)
    keys = [*(f"AWRT_{n}" for n in names), *(f"jobs_{n}" for n in names), "migrated"]
    rows = []
    for f, x in zip(F, X):
        rows.append([*(repr(float(v)) for v in f), *(int(np.sum(x == k)) for k in range(K)), int(np.sum(x != origin))])
    return _csv(keys, rows)
