"""The bound's problem (:mod:`schedlab.optimize.bound`): its configuration, the executor payload and
the decoder of a priority order into objective values, and the operators on permutations (order
crossover, insertion, swap, group move and group shift). Everything the search and the head start
(:mod:`schedlab.optimize.bound_head_start`) share lives here, below both; the module docstring of
:mod:`schedlab.optimize.bound` states the method and its readings."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from pymoo.core.crossover import Crossover
from pymoo.core.mutation import Mutation

from .settings import DEFAULT_SEED
from ..errors import RunError
from ..sim.listsched import list_schedule_kernel, processing_times
from ..sim.model import Machine
from ..workload.model import Workload


#: objective names in genotype-space order (minimised; UTIL negated inside the search)
OBJECTIVES: tuple[str, ...] = ("UTIL", "AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5")
#: orders of archive members are kept (checkpoint, replay) only for traces up to this many jobs
KEEP_ORDERS_MAX_JOBS = 5000
#: points of the Monte-Carlo hypervolume estimate
HV_SAMPLES = 20_000
HEURISTICS: tuple[str, ...] = ("easy", "fcfs", "spt", "small-area", "group1-first", "group5-first")
#: the heuristic seeds sort within windows of this many seconds of submit time (one day)
HEURISTIC_WINDOW_S = 86400.0


@dataclass(frozen=True)
class BoundConfig:
    """Everything that determines a bound run's result (stored in config.json)."""

    pop: int = 40
    generations: int = 50
    seed: int = DEFAULT_SEED
    p_crossover: float = 0.9
    sigma: float = 50.0
    window: int = 500
    #: mutation kind probabilities: insertion, swap, group shift; the rest is group move
    p_insert: float = 0.3
    p_swap: float = 0.1
    p_shift: float = 0.3
    #: moves per offspring (``--moves``) and the largest block of a group shift
    moves: int = 1
    block: int = 50
    #: local-improvement steps of each head-start chain (``--head-start``; 0: off)
    head_start: int = 0
    seed_strategies: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        from .settings import check_seed, check_whole

        for name in ("generations", "window", "moves", "block"):
            check_whole(f"--{name}", getattr(self, name))
        check_whole("--pop", self.pop, 4)
        check_seed(self.seed)
        if not 0 < self.sigma < math.inf:  # mutate: |N(0, sigma)| positions, rounded to whole ones
            raise RunError(f"--sigma must be a finite number of positions > 0, got {self.sigma}")
        if not (0 <= self.p_insert and 0 <= self.p_swap and 0 <= self.p_shift
                and self.p_insert + self.p_swap + self.p_shift <= 1):
            raise RunError("mutation probabilities must be >= 0 and sum to at most 1")
        if int(self.head_start) != self.head_start or self.head_start < 0:
            raise RunError(f"--head-start must be a whole number of steps >= 0, got {self.head_start}")
        object.__setattr__(self, "seed_strategies", tuple(self.seed_strategies))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seed_strategies"] = list(self.seed_strategies)
        d["kind"] = "bound"
        d["algorithm"] = "pymoo NSGA-III, Riesz s-energy reference directions"
        return d


@dataclass(frozen=True, eq=False)
class BoundProblem:
    """The executor payload: the columns the decoder and the objectives need."""

    submit: np.ndarray
    p: np.ndarray
    width: np.ndarray
    group: np.ndarray
    m: int

    @classmethod
    def of(cls, workload: Workload, machine: Machine, *, killed: bool = True) -> "BoundProblem":
        return cls(np.asarray(workload.submit, dtype=np.float64), processing_times(workload, killed=killed),
                   np.asarray(workload.procs, dtype=np.int64), np.asarray(workload.group, dtype=np.int64),
                   int(machine.procs))

    @property
    def n(self) -> int:
        return int(self.submit.size)

    def starts(self, order: np.ndarray) -> np.ndarray:
        return list_schedule_kernel(np.asarray(order, dtype=np.int64), self.submit, self.p, self.width, self.m)

    def objectives_of(self, start: np.ndarray) -> np.ndarray:
        """(-UTIL, AWRT, AWRT1..5) of the schedule with these start times (eq. (5)-(7))."""
        from ..metrics.basic import weighted_sum

        finish = start + self.p
        area = self.p * self.width
        response = finish - self.submit
        span = float(finish.max() - start.min())
        total = float(area.sum())
        out = np.zeros(len(OBJECTIVES))
        out[0] = -(100.0 * total / (self.m * span) if span > 0 else 0.0)
        out[1] = weighted_sum(area, response) / total if total > 0 else 0.0
        for i in range(1, 6):
            mask = self.group == i
            wsum = float(area[mask].sum())
            out[1 + i] = weighted_sum(area[mask], response[mask]) / wsum if wsum > 0 else 0.0
        return out


def evaluate_order(problem: BoundProblem, order: np.ndarray) -> np.ndarray:
    """Executor-mappable: the objective vector of one priority order."""
    return problem.objectives_of(problem.starts(order))


# ---------------------------------------------------------------------------- operators
def order_crossover(a: np.ndarray, b: np.ndarray, i: int, j: int) -> np.ndarray:
    """OX1: child[i:j] = a[i:j]; the other positions take b's remaining jobs in b's order."""
    child = np.empty_like(a)
    seg = a[i:j]
    taken = np.zeros(a.size, dtype=bool)
    taken[seg] = True
    rest = b[~taken[b]]
    child[:i] = rest[:i]
    child[i:j] = seg
    child[j:] = rest[i:]
    return child


def insertion(x: np.ndarray, src: int, dst: int) -> np.ndarray:
    """Job at position src moved to position dst (the jobs in between shift by one)."""
    job = x[src]
    y = np.delete(x, src)
    return np.insert(y, dst, job)


def group_move(x: np.ndarray, group: np.ndarray, lo: int, hi: int, g: int, ahead: bool) -> np.ndarray:
    """In positions [lo, hi), the jobs of user group g first (ahead) or last, each side keeping its order."""
    y = x.copy()
    win = x[lo:hi]
    mine = group[win] == g
    parts = (win[mine], win[~mine]) if ahead else (win[~mine], win[mine])
    y[lo:hi] = np.concatenate(parts)
    return y


def group_shift(x: np.ndarray, group: np.ndarray, g: int, first: int, count: int, shift: int) -> np.ndarray:
    """Group g's jobs number ``first`` .. ``first + count - 1`` (in the order they have in x)
    taken out and put back together, starting ``shift`` positions from where the first of
    them was (negative: earlier), clipped so the block passes no other job of group g (nor an
    end): group g's own order, the block's and the other jobs' relative orders are all kept;
    only how group g's block interleaves with the other groups changes. A group with no job
    there: x unchanged."""
    allpos = np.flatnonzero(group[x] == g)
    pos = allpos[first: first + count]
    if pos.size == 0:
        return x.copy()
    block = x[pos]
    rest = np.delete(x, pos)
    lo = int(allpos[first - 1]) + 1 if first > 0 else 0
    after = first + pos.size
    hi = int(allpos[after]) - pos.size if after < allpos.size else rest.size
    at = int(np.clip(pos[0] + shift, lo, hi))
    return np.concatenate([rest[:at], block, rest[at:]])


class OrderCrossover(Crossover):
    """OX1 on two parents -> two children (pymoo operator)."""

    def __init__(self, prob: float = 0.9) -> None:
        super().__init__(2, 2, prob=prob)

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        _, n_matings, n = X.shape
        out = np.empty_like(X)
        for k in range(n_matings):
            i, j = np.sort(random_state.choice(n + 1, 2, replace=False))
            out[0, k] = order_crossover(X[0, k], X[1, k], i, j)
            out[1, k] = order_crossover(X[1, k], X[0, k], i, j)
        return out


class OrderMutation(Mutation):
    """``moves`` moves per offspring, each insertion, swap, group shift or group move (module docstring)."""

    def __init__(self, group: np.ndarray, config: "BoundConfig") -> None:
        super().__init__(prob=1.0)
        self.group, self.config = group, config

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        out = np.asarray(X).copy()
        for r in range(out.shape[0]):
            out[r] = mutate_k(out[r], self.group, random_state, self.config)
        return out


def mutate_k(x: np.ndarray, group: np.ndarray, rng: np.random.Generator, config: "BoundConfig") -> np.ndarray:
    """``config.moves`` moves of :func:`mutate`, one after the other."""
    for _ in range(config.moves):
        x = mutate(x, group, rng, config.sigma, config.window, config.p_insert, config.p_swap, config.p_shift,
                   config.block)
    return x


def mutate(x: np.ndarray, group: np.ndarray, rng: np.random.Generator, sigma: float, window: int,
           p_insert: float, p_swap: float, p_shift: float = 0.0, block: int = 50) -> np.ndarray:
    """One move: insertion (p_insert), swap (p_swap), group shift (p_shift), else group move."""
    n = x.size
    if n < 2:
        return x.copy()
    u = rng.random()
    if u < p_insert:
        src = int(rng.integers(n))
        step = max(1, int(abs(rng.normal(0.0, sigma)) + 0.5)) * (1 if rng.random() < 0.5 else -1)
        return insertion(x, src, int(np.clip(src + step, 0, n - 1)))
    if u < p_insert + p_swap:
        i = int(rng.integers(n))
        j = int(np.clip(i + rng.integers(-int(sigma), int(sigma) + 1), 0, n - 1))
        y = x.copy()
        y[i], y[j] = y[j], y[i]
        return y
    if u < p_insert + p_swap + p_shift:
        g = int(group[x[int(rng.integers(n))]])  # a group drawn by its share of jobs
        size = int(np.count_nonzero(group == g))
        first = int(rng.integers(size))
        count = 1 + int(rng.integers(block))
        step = max(1, int(abs(rng.normal(0.0, sigma)) + 0.5)) * (1 if rng.random() < 0.5 else -1)
        return group_shift(x, group, g, first, count, step)
    lo = int(rng.integers(n))
    hi = min(n, lo + max(2, window))
    return group_move(x, group, lo, hi, int(rng.integers(1, 6)), bool(rng.random() < 0.5))
