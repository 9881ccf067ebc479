"""The offline Pareto bound of a trace: a many-objective search over job priority orders.

greedy-es-sorting-criteria Section V-C (and genetic-fuzzy-rule-based-scheduling Fig. 6) place
EASY and trained strategies in the (AWRT1, AWRT2) plane against "an approximate Pareto front of
feasible schedules that was generated offline from the workload traces", "based on the seven
basic objective functions: UTIL, AWRT, and AWRT1 to AWRT5". Here:

- genotype: a permutation of the jobs (a priority order); decoder: the compiled clairvoyant list
  scheduler :func:`schedlab.sim.listsched.list_schedule` (earliest feasible start in priority
  order, never before submit, actual processing times), so every genotype is a feasible schedule;
- objectives (all minimised): -UTIL, AWRT, AWRT1..AWRT5 (eq. (5)-(7); ``front.csv`` prints UTIL
  itself); a user group without jobs scores 0 (it cannot be traded);
- algorithm: pymoo's **NSGA-III**, not SMS-EMOA. With seven objectives almost every schedule is
  non-dominated, so Pareto rank alone cannot select; NSGA-III's niching on a fixed set of
  reference directions keeps the population spread over all seven trade-offs at O(pop x dirs) per
  generation, whereas SMS-EMOA selects by each point's exclusive hypervolume contribution, whose
  exact computation is exponential in the number of objectives (pymoo falls back to Monte-Carlo
  estimates beyond three, noisy exactly where selection needs precision) and SMS-EMOA adds one
  offspring per step (steady state), which would waste the executor's parallel evaluations.
  Reference directions: Riesz s-energy ("energy"), as many as the population;
- initial population: the orders that EASY, FCFS-by-submit (FCFS realises its queue order), any
  ``seed_strategies`` (e.g. an evolved greedy's best.json) realise (jobs sorted by their start in
  that strategy's simulated schedule), and simple heuristics applied within each day of submit
  times (``HEURISTIC_WINDOW_S``; jobs of earlier days always first): shortest processing time
  first, smallest area p*m first, user group 1 first (then 2, ..., by submit), and group 5
  first. (Sorting the whole trace by p instead puts a job of day 300 before one of day 1: on
  CTC-SP2 such orders decode 100x slower, as the profile cannot be pruned, into schedules 50x
  worse in AWRT, useless as seeds.) The rest of the population are mutated copies of the seeds;
- operators (problem-specific, on permutations): order crossover OX1 (a slice of one parent, the
  other jobs in the other parent's order); mutation: ``moves`` (``--moves K``) moves applied one
  after the other to each offspring (one move changes a few of CTC-SP2's 77,205 positions),
  each drawn from: insertion (a job moved by |N(0, sigma)|
  positions earlier or later), swap of two jobs at most ``sigma`` positions apart, a **group
  move** (in a random window of ``window`` positions all jobs of one random user group are moved
  ahead of (or behind) the others, keeping their relative order), or a **group shift**
  (:func:`group_shift`: a block of up to ``block`` consecutive jobs of one user group, counted in
  that group's own sequence, put together and moved by |N(0, sigma)| positions earlier or later,
  never past another job of its group; every group keeps its own order): priority moves between user groups,
  the trade the AWRT_i objectives measure. All randomness is the algorithm's seeded generator on
  the driver, so offspring do not depend on the executor or the number of workers;
- head start (``head_start`` steps, ``--head-start N``): the realised orders of EASY and of the
  seed strategies are improved before the search starts, so the first population already holds
  schedules at least as good as the online strategies. Reading: "seeded with the orders that
  EASY, the evolved greedy and simple heuristics realise" (issue 16) says nothing of improving
  them; this option is an addition (off by default). (1) Variants: each such order with every
  single user group and every pair of groups first inside each block of 50, 200 or 1000
  consecutive positions (:func:`~schedlab.optimize.bound_head_start.group_first_blocks`: a group move of all windows at once; the
  order is otherwise kept), 45 per order, all evaluated. (2) Chains: each free place of the
  first population (``pop`` minus the plain seeds kept, at least one) is a chain with a weight
  vector ``w`` over the seven objectives (chain 0: equal weights, the others: a flat
  Dirichlet draw); it starts from the variant (or realised order) with the lowest weighted sum
  ``sum_i w_i f_i / |f_i(EASY)|`` (UTIL negated) and improves it greedily for ``N`` steps, each
  step one mutation (``moves`` moves), accepted when it lowers that sum. A chain's last order
  joins the population; every schedule the head start evaluates enters the archive
  (generation 0). Each step of all chains is one executor map: parallel and deterministic.
  (Measured on CTC-SP2 (430): random-move hill climbing alone moves the strategies' orders by
  well under 1 %; the group-priority variants are what reach past the evolved greedy);
- archive: every evaluated schedule's objective vector enters a non-dominated archive; at the end
  (and after every generation) ``front.csv`` holds it, one row per schedule, columns UTIL, AWRT,
  AWRT1..AWRT5 (the orders are kept for traces of at most :data:`KEEP_ORDERS_MAX_JOBS` jobs, so
  small fronts can be replayed and validated);
- hypervolume per generation: the share of the box between the ideal-ish and nadir-ish corners
  fixed by the initial population (each objective's range widened by 10 % on both sides)
  that the archive dominates, estimated with a fixed, seeded set of 20,000 points (the same
  points every generation, so the curve is monotone and exactly repeatable).

A run is a run folder like the others (:class:`schedlab.optimize.run.RunFolder`): config.json,
checkpoint (pickled pymoo algorithm + archive + history, atomically after every generation; during
the head start its chains after every step), history.csv, front.csv, front.png; the same command
resumes exactly; both phases run through the shared run loop; evaluation goes through an
Executor (payload = the problem), so results do not depend on the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import RunError
from ..sim.model import Machine
from ..workload.model import Workload
from .bound_problem import (HEURISTIC_WINDOW_S, HV_SAMPLES, KEEP_ORDERS_MAX_JOBS, OBJECTIVES, BoundConfig, BoundProblem,
                            OrderCrossover, OrderMutation, evaluate_order, mutate_k)
from .order_problem import OrderProblem  # also bound.OrderProblem, which old checkpoints name
from .run import AskTell
from .settings import DEFAULT_EXECUTOR, NOT_GIVEN, renamed_executor


# ---------------------------------------------------------------------------- seeds
def realised_order(start: np.ndarray, submit: np.ndarray) -> np.ndarray:
    """Jobs by start time (ties: submit, then index): the priority order a schedule realises."""
    return np.lexsort((np.arange(start.size), submit, start)).astype(np.int64)


def heuristic_orders(workload: Workload, machine: Machine, problem: BoundProblem,
                     strategies: Sequence[tuple[str, Any]] = ()) -> list[tuple[str, np.ndarray]]:
    """(name, order) of every seed: EASY's and FCFS's realised orders, the given strategies', then
    per day of submit: SPT, smallest area, group 1 first, group 5 first (ties by submit)."""
    from ..sim import simulate
    from ..strategy.model import Strategy

    idx = np.arange(problem.n)
    out = []
    for name, strategy in (("easy", Strategy("easy")), ("fcfs", Strategy("fcfs")), *strategies):
        out.append((name, realised_order(simulate(workload, machine, strategy).start, problem.submit)))
    day = np.floor(problem.submit / HEURISTIC_WINDOW_S)
    out.append(("spt", np.lexsort((idx, problem.submit, problem.p, day))))
    out.append(("small-area", np.lexsort((idx, problem.submit, problem.p * problem.width, day))))
    g = np.where(problem.group > 0, problem.group, 6)
    out.append(("group1-first", np.lexsort((idx, problem.submit, g, day))))
    out.append(("group5-first", np.lexsort((idx, problem.submit, -g, day))))
    return [(k, np.asarray(v, dtype=np.int64)) for k, v in out]


# ---------------------------------------------------------------------------- archive, hypervolume
def non_dominated(F: np.ndarray) -> np.ndarray:
    """Mask of the rows of F (minimised) that no other row dominates (duplicates: the first kept)."""
    F = np.asarray(F, dtype=np.float64)
    keep = np.ones(len(F), dtype=bool)
    for i in range(len(F)):
        if not keep[i]:
            continue
        le = np.all(F <= F[i], axis=1)
        lt = np.any(F < F[i], axis=1)
        if np.any(le & lt & keep):
            keep[i] = False
            continue
        same = np.all(F == F[i], axis=1)
        same[: i + 1] = False
        keep[same] = False
    return keep


@dataclass
class Archive:
    """Non-dominated objective vectors of everything evaluated (orders kept when ``keep_orders``)."""

    F: np.ndarray
    X: np.ndarray | None
    gen: np.ndarray
    source: list[str]

    @classmethod
    def empty(cls, n_obj: int, n_var: int, keep_orders: bool) -> "Archive":
        return cls(np.empty((0, n_obj)), np.empty((0, n_var), dtype=np.int64) if keep_orders else None,
                   np.empty(0, dtype=np.int64), [])

    def add(self, F: np.ndarray, X: np.ndarray, gen: int, source: Sequence[str]) -> None:
        allF = np.vstack([self.F, F])
        keep = non_dominated(allF)
        self.F = allF[keep]
        if self.X is not None:
            self.X = np.vstack([self.X, np.asarray(X, dtype=np.int64)])[keep]
        self.gen = np.concatenate([self.gen, np.full(len(F), gen, dtype=np.int64)])[keep]
        self.source = [s for s, k in zip([*self.source, *source], keep) if k]


def hv_box(F0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) corner of the hypervolume box: the initial population's range widened by 10 %."""
    lo, hi = F0.min(axis=0), F0.max(axis=0)
    pad = 0.1 * np.maximum(hi - lo, np.maximum(np.abs(hi), 1.0) * 1e-3)
    return lo - pad, hi + pad


def hypervolume_share(F: np.ndarray, box: tuple[np.ndarray, np.ndarray], samples: np.ndarray) -> float:
    """Share of ``samples`` (uniform in the unit box) dominated by a point of F (normalised into the box)."""
    lo, hi = box
    Fn = (np.asarray(F) - lo) / (hi - lo)
    covered = np.zeros(len(samples), dtype=bool)
    for f in Fn:
        covered |= np.all(samples >= f, axis=1)
    return float(covered.mean())


def hv_samples(seed: int, n_obj: int) -> np.ndarray:
    return np.random.default_rng([seed, 0x6876]).random((HV_SAMPLES, n_obj))


# ---------------------------------------------------------------------------- the run
def random_tournament(pop, P, random_state=None, **kwargs) -> np.ndarray:
    """NSGA-III's mating selection without constraints: the winner of each pair drawn at random
    (pymoo's own comparator is a closure that cannot be pickled into a checkpoint)."""
    P = np.asarray(P)
    return P[np.arange(len(P)), (random_state.random(len(P)) < 0.5).astype(int)]


def reference_directions(n_obj: int, n: int, seed: int) -> np.ndarray:
    """``n`` Riesz s-energy reference directions in ``n_obj`` objectives (pymoo's "energy").

    pymoo starts the energy descent from a reduction of a simplex sample that always keeps the
    ``n_obj`` corners; with fewer directions than objectives it has no corner to start from and
    draws the first point from a random generator it never receives (pymoo 0.6.2:
    ``AttributeError: 'NoneType' object has no attribute 'integers'``). There the descent starts
    from ``n`` points drawn from a flat Dirichlet distribution with a generator seeded by ``seed``
    instead (from ``n_obj`` directions on, pymoo's own start, as before)."""
    from pymoo.util.ref_dirs import get_reference_directions

    if n >= n_obj:
        return get_reference_directions("energy", n_obj, n, seed=seed)
    start = np.random.default_rng([seed, 0x72656664]).dirichlet(np.ones(n_obj), n)
    return get_reference_directions("energy", n_obj, n, seed=seed, X=start)


def make_algorithm(problem: BoundProblem, config: BoundConfig, seeds: Sequence[tuple[str, np.ndarray]],
                   improved: Sequence[tuple[str, np.ndarray]] = ()):
    """NSGA-III with the order operators; its first population = the seeds (the first
    ``pop - len(improved)`` of them), the head start's ``improved`` orders, then mutated copies."""
    import sys

    from pymoo.algorithms.moo.nsga3 import NSGA3
    from pymoo.operators.selection.tournament import TournamentSelection

    rng = np.random.default_rng([config.seed, 0x626F756E64])
    plain = list(seeds)[: max(0, config.pop - len(improved))]
    X0 = [s for _, s in plain] + [s for _, s in improved]
    names = [k for k, _ in plain] + [k for k, _ in improved]
    X0, names = X0[: config.pop], names[: config.pop]
    while len(X0) < config.pop:
        k = len(X0) % len(seeds)
        x = seeds[k][1]
        for _ in range(1 + int(rng.integers(5))):
            x = mutate_k(x, problem.group, rng, config)
        X0.append(x)
        names.append(f"{seeds[k][0]}+mutation")
    ref_dirs = reference_directions(len(OBJECTIVES), config.pop, config.seed)
    algorithm = NSGA3(ref_dirs=ref_dirs, pop_size=config.pop, sampling=np.array(X0, dtype=np.int64),
                      selection=TournamentSelection(func_comp=random_tournament),
                      crossover=OrderCrossover(config.p_crossover),
                      mutation=OrderMutation(problem.group, config),
                      eliminate_duplicates=False)
    # the run loop counts generations; the algorithm must not depend on the budget, so that a run
    # extended to more generations equals one run of the larger budget
    algorithm.setup(OrderProblem(problem.n, len(OBJECTIVES)), termination=("n_gen", sys.maxsize), seed=config.seed,
                    verbose=False)
    return algorithm, names


def front_csv(archive: Archive) -> str:
    """front.csv: one row per non-dominated schedule, UTIL (in %, maximised), AWRT, AWRT1..5 (s)."""
    lines = [",".join(OBJECTIVES)]
    order = np.lexsort(archive.F.T[::-1]) if len(archive.F) else np.arange(0)
    for f in archive.F[order]:
        lines.append(",".join(repr(float(v)) for v in (-f[0], *f[1:])))
    return "\n".join(lines) + "\n"


def history_csv(rows: Sequence[dict[str, Any]]) -> str:
    """history.csv: gen, evaluations, hypervolume share, front size, best value per objective, elapsed
    (the one history writer, :func:`schedlab.optimize.history.history_csv`)."""
    from .history import history_csv as write

    return write(rows, ["gen", "evaluations", "hypervolume", "front", *(f"best_{k}" for k in OBJECTIVES), "elapsed"])


@dataclass
class BoundResult:
    archive: Archive
    history: list[dict[str, Any]]
    generations: int
    evaluations: int
    interrupted: bool = False
    resumed_from: int = 0
    #: the run's config (config.json without the library versions) and its prepared workload's
    #: name: what a report of the run names (set by :func:`bound`)
    config: dict[str, Any] = field(default_factory=dict)
    workload_name: str = ""


class BoundAskTell(AskTell):
    """pymoo's NSGA-III over priority orders in the terms of the shared run loop
    (:func:`schedlab.optimize.run.run_generations`): every evaluated schedule also enters the
    non-dominated archive; a row carries the archive's hypervolume share and best values."""

    def __init__(self, algorithm, names, archive, rows: list[dict[str, Any]], box, samples,
                 evaluations0: int = 0) -> None:
        self.algorithm, self.names, self.archive, self.rows, self.box, self.samples = (
            algorithm, names, archive, rows, box, samples)
        self.evaluations0 = evaluations0  # the head start's evaluations (counted in every row)
        self._pop = None

    @property
    def generation(self) -> int:
        return len(self.rows)

    @property
    def evaluations(self) -> int:
        return self.rows[-1]["evaluations"] if self.rows else self.evaluations0

    def ask(self) -> np.ndarray:
        self._pop = self.algorithm.ask()
        return np.asarray(self._pop.get("X")).astype(np.int64, copy=False)

    def tell(self, x: np.ndarray, results: Sequence[Any]) -> None:
        from pymoo.core.evaluator import Evaluator
        from pymoo.problems.static import StaticProblem

        F = np.asarray(results, dtype=np.float64).reshape(len(x), len(OBJECTIVES))
        Evaluator().eval(StaticProblem(self.algorithm.problem, F=F), self._pop)
        self.algorithm.tell(infills=self._pop)
        gen = len(self.rows) + 1
        if self.box is None:
            self.box = hv_box(F)
        self.archive.add(F, x, gen, self.names if gen == 1 else [f"gen{gen}"] * len(x))
        self._n = len(x)

    def row(self, elapsed: float) -> dict[str, Any]:
        F = self.archive.F
        return {"gen": len(self.rows) + 1, "evaluations": self.evaluations + self._n,
                "hypervolume": hypervolume_share(F, self.box, self.samples), "front": int(len(F)),
                **{f"best_{k}": float(-F[:, 0].min() if k == "UTIL" else F[:, i].min())
                   for i, k in enumerate(OBJECTIVES)},
                "elapsed": elapsed}

    def checkpoint(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "names": self.names, "archive": self.archive, "history": rows,
                "box": self.box, "evaluations0": self.evaluations0}


def run_bound(run, problem: BoundProblem, config: BoundConfig, seeds: Sequence[tuple[str, np.ndarray]], executor,
              *, on_generation=None, on_start=None) -> BoundResult:
    """Run or resume NSGA-III for ``config.generations`` generations in ``run`` (a RunFolder).

    Each generation goes through the shared run loop (:func:`schedlab.optimize.run.run_generations`,
    :class:`BoundAskTell`): ask -> evaluate through ``executor`` -> tell -> archive -> history.csv,
    front.csv -> checkpoint (the commit point). Generation 1 evaluates the seeded population.
    """
    from .bound_head_start import head_start
    from .run import run_generations

    state = run.load_checkpoint()
    if state is None or state.get("phase") == "head-start":
        archive = Archive.empty(len(OBJECTIVES), problem.n, problem.n <= KEEP_ORDERS_MAX_JOBS)
        hs = head_start(problem, config, seeds, executor, run, state)
        if hs is None:  # stopped: the head start's last step is checkpointed
            return BoundResult(archive, [], 0, 0, True, 0)
        if len(hs.F):
            archive.add(hs.F, hs.X, 0, hs.source)
        algorithm, names = make_algorithm(problem, config, seeds, hs.improved)
        rows: list[dict[str, Any]] = []
        box = None
        evaluations0 = len(hs.F)
    else:
        algorithm, names, archive, rows, box = (state["algorithm"], state["names"], state["archive"],
                                                list(state["history"]), state["box"])
        evaluations0 = int(state.get("evaluations0", 0))
    resumed_from = len(rows)
    samples = hv_samples(config.seed, len(OBJECTIVES))
    if on_start is not None:
        on_start(config.generations, len(rows))
    elapsed0 = rows[-1]["elapsed"] if rows else 0.0
    adapter = BoundAskTell(algorithm, names, archive, rows, box, samples, evaluations0)

    def write_files(rows: list[dict[str, Any]]) -> None:
        run.write_text("history.csv", history_csv(rows))
        run.write_text("front.csv", front_csv(adapter.archive))

    interrupted = run_generations(run, adapter, evaluate_order, executor, config.generations, rows, elapsed0,
                                  write_files=write_files, on_generation=on_generation)
    return BoundResult(archive, rows, len(rows), rows[-1]["evaluations"] if rows else 0, interrupted, resumed_from)


# ---------------------------------------------------------------------------- driver
def workload_of(trace, **trace_options) -> Workload:
    """The bound's trace (a :class:`~schedlab.workload.spec.TraceSpec`, or a name or path prepared with the
    default options), prepared as every verb prepares one (:func:`schedlab.workload.spec.prepare_trace`).
    The trace options as keywords (``procs=``, ``months=``, ...) still work for one release, with a
    DeprecationWarning."""
    from ..workload.spec import prepare_trace
    from .calibrate import easy_util

    return prepare_trace(_trace_spec(trace, trace_options, "workload_of"), utilisation=easy_util)


def _trace_spec(trace, options: dict[str, Any], where: str):
    """``trace`` if it is a TraceSpec already, else the TraceSpec of the name or path; ``options``: the
    flattened trace options of before (issue 46), read with a DeprecationWarning."""
    from ..workload.spec import TraceSpec
    from .settings import TRACE_KEYS

    unknown = sorted(set(options) - set(TRACE_KEYS))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    if options:
        import warnings

        given = ", ".join(f"{k}=..." for k in options)
        warnings.warn(f"{where}(TRACE, {given}) is now {where}(TraceSpec(TRACE, {given})); the trace options as "
                      "keywords go in the next release", DeprecationWarning, stacklevel=3)
        if isinstance(trace, TraceSpec):
            raise RunError(f"{where}: give the trace options in the TraceSpec only, not also as {', '.join(sorted(options))}")
    return trace if isinstance(trace, TraceSpec) else TraceSpec(trace, **options)


def bound(trace, out, config: BoundConfig, *, executor=DEFAULT_EXECUTOR, workers=None, on_generation=None,
          on_start=None, extend=False, executor_spec=NOT_GIVEN, **trace_options) -> BoundResult:
    """Load the trace (a :class:`~schedlab.workload.spec.TraceSpec`, or a name or path prepared with the
    default options; the trace options as keywords still work for one release, with a DeprecationWarning),
    build the seeds, open the run folder (all checks first), run or resume; the
    hypervolume figure is drawn from the result by the CLI (:func:`schedlab.report.bound_plot.hypervolume_figure`).
    ``extend``: continue a stored run to a larger ``config.generations`` (equal to one run of it)."""
    from ..execute import make_executor
    from .evolve import workload_fingerprint
    from .run import RunFolder

    spec = _trace_spec(trace, trace_options, "bound")
    strategies = [(f"strategy:{i + 1}", _load_strategy(p)) for i, p in enumerate(config.seed_strategies)]
    w = workload_of(spec)
    machine = Machine(w.machine_procs)
    problem = BoundProblem.of(w, machine)
    from .settings import check_memory

    # the orders of parents, offspring and their merge (int64), and the energy descent's pairwise terms
    check_memory(f"--pop {config.pop}", 40.0 * config.pop * problem.n + 224.0 * config.pop ** 2,
                 f"a population of orders of {problem.n:,} jobs")
    seeds = heuristic_orders(w, machine, problem, strategies)
    cfg = config.to_dict()
    cfg.update(trace=str(spec.trace), procs=spec.procs, months=spec.months, scale_to=spec.scale_to,
               calibrate_load=spec.calibrate_load, jobs=len(w), machine_procs=machine.procs, data_sha256=workload_fingerprint(w),
               seed_strategies=[_strategy_label(p) for p in config.seed_strategies])
    if spec.format is not None:  # only when given, so older run folders keep resuming
        cfg["format"] = spec.format
    run = RunFolder(out, cfg, budget=("generations",), extend=extend)
    with make_executor(renamed_executor(executor, executor_spec, "bound"), workers=workers, payload=problem) as executor:
        result = run_bound(run, problem, config, seeds, executor, on_generation=on_generation, on_start=on_start)
    result.config, result.workload_name = cfg, w.name or "trace"
    return result


def _load_strategy(path: str):
    """A strategy JSON file; a one-line StrategyError naming the file when it cannot be read."""
    from pathlib import Path

    from ..errors import StrategyError
    from ..strategy.model import Strategy

    try:
        return Strategy.from_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read strategy file: {exc.strerror or exc}") from None
    except (ValueError, StrategyError) as exc:
        raise StrategyError(f"{path}: not a strategy file: {exc}") from None


def _strategy_label(path: str) -> str:
    """A seed strategy as recorded in config.json: its JSON (so the run is bound to the strategy, not a path)."""
    return _load_strategy(path).to_json()


def read_front(run_dir) -> tuple[dict[str, Any], np.ndarray]:
    """(config, front rows as an array with columns :data:`OBJECTIVES`) of a bound run folder."""
    import json
    from pathlib import Path

    run_dir = Path(run_dir)
    try:
        cfg = json.loads((run_dir / "config.json").read_text())
        lines = (run_dir / "front.csv").read_text().strip().splitlines()
    except FileNotFoundError as exc:
        raise RunError(f"{run_dir}: not a bound run ({Path(exc.filename).name} missing)") from None
    if cfg.get("kind") != "bound":
        raise RunError(f"{run_dir}: a {cfg.get('kind')!r} run, not a bound run")
    if lines[0].split(",") != list(OBJECTIVES):
        raise RunError(f"{run_dir / 'front.csv'}: unexpected header {lines[0]!r}")
    return cfg, np.array([[float(v) for v in ln.split(",")] for ln in lines[1:]]).reshape(-1, len(OBJECTIVES))


# ---------------------------------------------------------------------------- placement
def zero_wait_floors(problem: BoundProblem) -> dict[str, float]:
    """AWRT and AWRT1..5 if every job started at its submit (response = processing time): no
    schedule of the trace, feasible or not, can be below these (a group without jobs: 0)."""
    from ..metrics.basic import weighted_sum

    area = problem.p * problem.width
    out = {"AWRT": weighted_sum(area, problem.p) / float(area.sum()) if area.sum() > 0 else 0.0}
    for i in range(1, 6):
        mask = problem.group == i
        w = float(area[mask].sum())
        out[f"AWRT{i}"] = weighted_sum(area[mask], problem.p[mask]) / w if w > 0 else 0.0
    return out


def _gain(name: str, strategy: float, front: np.ndarray) -> np.ndarray:
    """Relative improvement of front values over the strategy's (UTIL up, the others down)."""
    d = front - strategy if name == "UTIL" else strategy - front
    return d / abs(strategy) if strategy != 0 else np.where(d > 0, np.inf, 0.0)


def placement(front: np.ndarray, columns: Sequence[str], x: str, y: str, point: dict[str, float]) -> dict[str, Any]:
    """How far inside the front lies below a strategy at ``point`` in the (x, y) projection.

    - ``inside_x``: the largest relative improvement in x, ``(x_s - x_f) / x_s`` (UTIL:
      ``(x_f - x_s) / x_s``), among front schedules at least as good in y; ``inside_y`` likewise;
    - ``inside_both``: the largest ``min(gain in x, gain in y)`` over the front: the front holds a
      schedule better by at least this share in both at once (Chebyshev distance, relative);
    - ``dominating``: how many front schedules are at least as good in both.

    Positive: the front lies inside (better than) the strategy; 0 or negative: it does not bound
    it there; ``None``: no front schedule is at least as good in the other objective."""
    ix, iy = list(columns).index(x), list(columns).index(y)
    gx, gy = _gain(x, point[x], front[:, ix]), _gain(y, point[y], front[:, iy])
    okx, oky = gy >= 0, gx >= 0
    both = np.minimum(gx, gy)
    return {x: point[x], y: point[y],
            "inside_x": float(gx[okx].max()) if okx.any() else None,
            "inside_y": float(gy[oky].max()) if oky.any() else None,
            "inside_both": float(both.max()) if len(both) else None,
            "dominating": int((okx & oky).sum())}
