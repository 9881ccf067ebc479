"""One run shape for every optimizer (issue 46): a :class:`Problem`, an algorithm by name, a termination.

pymoo's ``minimize(problem, algorithm, termination)`` is the model::

    import schedlab as sl
    problem = sl.Problem("greedy", [sl.TraceSpec("KTH-SP2", months=1)], "10*AWRT1 + 4*AWRT2")
    run = sl.minimize(problem, "es", 10, out="RUN", executor="processes:2", mu=3, lam=6)

The problem says what is searched (its ``space``: a row of :data:`SPACES`), on which prepared traces
(:class:`~schedlab.workload.spec.TraceSpec`) and for which objective (an
:class:`~schedlab.metrics.Objective`, parsed once when the problem is made); the algorithm is a row of
:data:`schedlab.strategy.registry.OPTIMIZERS` that searches that space. :func:`minimize` hands them to the
space's driver, the same function the verb calls, so a run folder made from Python resumes, extends
(``extend=True``) and stops on Ctrl-C/SIGTERM exactly as one made by the verb
(:func:`~schedlab.optimize.run.run_generations`, the one generation loop).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RunError
from ..metrics.objective import DEFAULT_OBJECTIVE, Objective
from ..workload.spec import TraceSpec
from .settings import DEFAULT_EXECUTOR, DEFAULT_SEED
from .termination import Termination


@dataclass(frozen=True)
class Space:
    """A search space: what a candidate is, how it is evaluated (``help``), and its setup (``driver``:
    ``(problem, algorithm, generations, out, run_options, settings) -> (config, start)``, ``start(**hooks)``
    running the verb's driver function).
    ``objective``: True when the problem's :class:`Objective` is what is minimised (False: the space's
    objectives are fixed by its paper, e.g. AWRT per grid site)."""

    name: str
    help: str
    driver: Callable[..., Any]
    objective: bool = True


@dataclass(frozen=True)
class Problem:
    """What is searched (``space``, a row of :data:`SPACES`), on which traces (``traces``: one
    :class:`TraceSpec` each, or trace names prepared with the default options), for which objective
    (parsed here, the one place: :meth:`Objective.of`); ``test``: held-out traces (prepared as the
    training traces); ``settings``: the space's own settings (e.g. ``procedure``, ``dispatch`` of the
    greedy space, ``slurm_conf`` of the slurm space, ``method`` of the federation space), named as
    the verb's options."""

    space: str
    traces: Sequence[TraceSpec | str]
    objective: Objective | None = DEFAULT_OBJECTIVE  # type: ignore[assignment]  (text accepted, parsed)
    test: Sequence[str] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        row = space(self.space)
        specs = tuple(t if isinstance(t, TraceSpec) else TraceSpec(t) for t in self.traces)
        if not specs:
            raise RunError("a Problem needs at least one trace")
        options = {dataclasses.replace(s, trace=None) for s in specs}
        if len(options) > 1:
            raise RunError("the traces of a Problem are prepared alike: give every TraceSpec the same options")
        object.__setattr__(self, "traces", specs)
        object.__setattr__(self, "test", tuple(self.test))
        object.__setattr__(self, "settings", dict(self.settings))
        if row.objective:
            object.__setattr__(self, "objective", Objective.of(self.objective or DEFAULT_OBJECTIVE))
        elif self.objective not in (None, DEFAULT_OBJECTIVE):
            raise RunError(f"the {self.space} space minimises its own objectives ({row.help}); give objective=None")
        else:
            object.__setattr__(self, "objective", None)

    @property
    def spec(self) -> TraceSpec:
        """The first trace's spec (every trace is prepared alike)."""
        return self.traces[0]

    @property
    def template(self) -> TraceSpec:
        """How every trace is prepared, without a trace: the ``trace_spec`` of the drivers' configs."""
        return dataclasses.replace(self.spec, trace=None)


@dataclass
class Run:
    """What :func:`minimize` returns: the run folder, whether it stopped early (Ctrl-C/SIGTERM: re-run to
    resume), the best found (a strategy for the greedy and rules spaces) and its value, and the driver's
    own result (``result``: every figure its verb shows)."""

    out: Path
    space: str
    algorithm: str
    interrupted: bool
    best: Any
    best_f: float | None
    result: Any


def _take(settings: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    return {k: settings.pop(k) for k in list(settings) if k in names}


def _refuse_rest(settings: dict[str, Any], where: str) -> None:
    if settings:
        raise RunError(f"{where}: unknown setting(s) {', '.join(sorted(settings))}")


_EVOLVE_FIELDS = ("mu", "lam", "procedure", "gene_scale", "dispatch")
#: a driver's progress hooks (``run(**hooks)``): how it reports, never what it computes
_HOOKS = ("on_start", "on_generation", "on_evaluation", "on_class", "preparing", "warm", "checkpoint_every")


def _evolve_config(problem: Problem, algorithm: str, generations: int | None, seed: int, settings: dict[str, Any]):
    from .evolve import EvolveConfig

    fields_ = _take(settings, _EVOLVE_FIELDS)
    return EvolveConfig(traces=tuple(str(s.trace) for s in problem.traces), objective=problem.objective,
                        generations=1 if generations is None else generations, optimizer=algorithm if algorithm in ("es", "cmaes") else "es",
                        seed=seed, test=problem.test, trace_spec=problem.template, **fields_)


# Each space's setup: (problem, algorithm, generations, out, run options, settings) -> (the driver's config,
# the algorithm's settings or None, ``start(**hooks) -> (driver result, best, best value)``); every setting is checked when the config is
# built, before anything is read, compiled or written.
def _greedy(problem, algorithm, generations, out, run, settings):
    from .evolve import evolve_greedy

    util_guard = settings.pop("util_guard", None)
    if util_guard is not None:
        from .versus_easy import check_util_guard

        check_util_guard(util_guard)
    config = _evolve_config(problem, algorithm, generations, run.pop("seed"), settings)
    _refuse_rest(settings, "the greedy space")

    def start(**hooks):
        r = evolve_greedy(config, out, util_guard=util_guard, **run, **hooks)
        return r, r.best, r.best_f
    return config, None, start


def _slurm(problem, algorithm, generations, out, run, settings):
    from .evolve_slurm import SlurmTuneConfig, evolve_slurm

    greedy = settings.pop("greedy", None)
    config = SlurmTuneConfig(traces=tuple(str(s.trace) for s in problem.traces), objective=problem.objective,
                             generations=generations, optimizer=algorithm, seed=run.pop("seed"), test=problem.test,
                             trace_spec=problem.template,
                             **_take(settings, ("slurm_conf", "mu", "lam", "params", "slurm_shares", "slurm_option",
                                                "slurm_qos")))
    _refuse_rest(settings, "the slurm space")

    def start(**hooks):
        r = evolve_slurm(config, out, greedy=greedy, **run, **hooks)
        return r, r.values, r.best_f
    return config, None, start


def _rules(problem, algorithm, generations, out, run, settings):
    from . import gfs

    remedies = _take(settings, ("strategies", "util_guard", "select", "greedy"))
    gfs.check_rules_options(remedies.get("strategies", "all"), remedies.get("util_guard"),
                            remedies.get("select", "train"), bool(problem.test or problem.spec.split_months))
    seed = run.pop("seed")
    if run.pop("extend", False):
        raise RunError(f"{algorithm}: a rules run does not extend; start another run folder")
    if algorithm == "iterative":
        partitions = settings.pop("partitions", gfs.R.TABLE2_PARTITIONS)
        config = _evolve_config(problem, "es", generations, seed, settings)
        _refuse_rest(settings, "the rules space (iterative)")

        def start(**hooks):
            r = gfs.rules_iterative(config, out, partitions, **run, **remedies, **hooks)
            return r, r.best, r.best_f
        return config, None, start
    gfs_settings = gfs.GFSSettings(**_take(settings, [f.name for f in dataclasses.fields(gfs.GFSSettings)]))
    config = _evolve_config(problem, "es", generations, seed, settings)
    _refuse_rest(settings, "the rules space (symbiotic)")

    def start(**hooks):
        r = gfs.rules_evolve(config, out, gfs_settings, **run, **remedies, **hooks)
        return r, r.best, r.best_f
    return config, gfs_settings, start


def _bound(problem, algorithm, generations, out, run, settings):
    from .bound import bound
    from .bound_problem import BoundConfig

    config = BoundConfig(generations=generations, seed=run.pop("seed"),
                         **_take(settings, [f.name for f in dataclasses.fields(BoundConfig)]))
    _refuse_rest(settings, "the bound space")
    if len(problem.traces) != 1:
        raise RunError("the bound space reads one trace")
    if problem.spec.split_months is not None:
        raise RunError("the bound space reads one window of its trace: give no split_months")

    def start(**hooks):
        return bound(problem.spec, out, config, **run, **hooks), None, None
    return config, config, start


def _grid(problem, algorithm, generations, out, run, settings):
    from .grid_pareto import pareto
    from .nsga2_grid import GridNSGA2Config

    grid = settings.pop("grid", None)  # a prepared GridTrace, else the traces as NAME:PROCS sites
    setup_name = settings.pop("setup", None)
    config = GridNSGA2Config(generations=generations, seed=run.pop("seed"),
                             **_take(settings, [f.name for f in dataclasses.fields(GridNSGA2Config)]))
    label = settings.pop("label", "")
    _refuse_rest(settings, "the grid space")
    unused = [f"{k}={v!r}" for k, v in vars(problem.template).items() if k not in ("trace", "months", "format")
              and v not in (None, False)]
    if unused:  # the sites are NAME:PROCS traces, each cut to months and read in format (grid.setups.load_grid)
        raise RunError(f"the grid space prepares its site traces with months and format only; got {', '.join(unused)}")

    def start(**hooks):
        from ..grid.setups import load_grid

        trace = grid if grid is not None else load_grid(setup_name, [str(s.trace) for s in problem.traces],
                                                        months=problem.spec.months, format=problem.spec.format)
        return pareto(trace, out, config, label=label, **run, **hooks), None, None
    return config, config, start


def _federation(problem, algorithm, generations, out, run, settings):
    from .federation_ga import FederationGAConfig
    from .federation_run import FederationRunConfig, run_federation

    ga = FederationGAConfig(generations=generations, seed=run.pop("seed"),
                            **_take(settings, ("pop", "p_mutation", "p_crossover", "tournament", "mutation_reading")))
    if run.pop("extend", False):
        raise RunError("ga: a federation run does not extend; start another run folder")
    if "package_size" not in settings:
        raise RunError("the federation space needs package_size (jobs per package)")
    config = FederationRunConfig(problem.spec, ga=ga, method=settings.pop("method", "ga-random"),
                                 package_size=settings.pop("package_size"),
                                 **_take(settings, ("jobs", "offset", "comm_seed", "sigma_range", "ptbw_range",
                                                    "options", "comm_file")))
    platform = settings.pop("platform", None)
    _refuse_rest(settings, "the federation space")

    def start(**hooks):
        from ..federation import default_platform

        return run_federation(config, platform or default_platform(), out, **run, **hooks), None, None
    return config, ga, start


#: the search spaces; an algorithm of :data:`~schedlab.strategy.registry.OPTIMIZERS` names those it searches
SPACES: tuple[Space, ...] = (
    Space("greedy", "the weights of the greedy sorting criteria (evolve greedy)", _greedy),
    Space("slurm", "a site's Slurm priority and backfill settings (evolve slurm)", _slurm),
    Space("rules", "a fuzzy rule base choosing among 13 strategies (rules iterative, rules evolve)", _rules),
    Space("bound", "priority orders of one trace, minimising AWRT per user group: the Pareto bound (bound)",
          _bound, objective=False),
    Space("grid", "job-to-site partitions of a grid, minimising AWRT per site (grid pareto)", _grid, objective=False),
    Space("federation", "one package's job order in a federation, minimising makespan (federation run)",
          _federation, objective=False),
)


def space(name: str) -> Space:
    for row in SPACES:
        if row.name == name:
            return row
    raise RunError(f"unknown search space {name!r}; choose {', '.join(s.name for s in SPACES)}")


@dataclass
class Setup:
    """A run set up and checked, not started (:func:`setup`): ``config`` is the driver's config (what
    config.json records); :meth:`run` starts, resumes or extends it. A verb sets up first (every bad
    option refused before anything is read, compiled or written), then runs with its progress hooks."""

    problem: Problem
    algorithm: str
    out: Path
    config: Any
    #: the algorithm's own settings object where it has one (GFSSettings, BoundConfig, GridNSGA2Config, FederationGAConfig)
    settings: Any
    _start: Callable[..., tuple[Any, Any, float | None]]

    def run(self, **hooks: Any) -> Run:
        """Run the driver; ``hooks``: its progress callbacks (``on_start``, ``on_generation``, ...)."""
        unknown = set(hooks) - set(_HOOKS)
        if unknown:
            raise RunError(f"unknown progress hook(s) {', '.join(sorted(unknown))}; choose {', '.join(_HOOKS)}")
        result, best, best_f = self._start(**hooks)
        return Run(self.out, self.problem.space, self.algorithm, bool(getattr(result, "interrupted", False)), best,
                   best_f, result)


def setup(problem: Problem, algorithm: str, termination: Termination | int | None, *, out: str | os.PathLike,
          executor: str | None = DEFAULT_EXECUTOR, workers: int | None = None, seed: int = DEFAULT_SEED,
          extend: bool = False, **settings: Any) -> Setup:
    """:func:`minimize`'s arguments checked and turned into the space's driver config (nothing read or written)."""
    from ..strategy.registry import OPTIMIZERS

    row = space(problem.space)
    names = [o.name for o in OPTIMIZERS if problem.space in o.spaces]
    if algorithm not in names:
        raise RunError(f"unknown optimizer {algorithm!r} for the {problem.space} space; choose {' or '.join(names)}")
    term = Termination.of(termination) if termination is not None else None
    if term is not None and (term.generations is None or term.evaluations is not None or term.seconds is not None):
        raise RunError(f"{algorithm}: a run folder's budget is a number of generations; give termination=N")
    generations = term.generations if term is not None else None
    if generations is None and algorithm != "iterative":  # the iterative GFS walks its classes once
        raise RunError(f"{algorithm}: give a termination (a number of generations)")
    run = {"executor": executor, "workers": workers, "seed": seed, "extend": extend}
    both = set(problem.settings) & set(settings)
    if both:
        raise RunError(f"{', '.join(sorted(both))}: given both in the Problem's settings and to minimize; give it once")
    config, algorithm_settings, start = row.driver(problem, algorithm, generations, Path(out), run,
                                                   {**problem.settings, **settings})
    _check_run_folder(Path(out))
    return Setup(problem, algorithm, Path(out), config, algorithm_settings, start)


def _check_run_folder(path: Path) -> None:
    """Refuse, before any trace is read or kernel compiled, a run folder that cannot be made, with the
    words the run loop uses (:class:`~schedlab.optimize.run.RunFolder`). Only making it tells (``/proc/x``
    looks writable to every check short of that), so the folders made here are removed again: nothing
    is left behind."""
    made = [p for p in (path, *path.parents) if not p.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"{path}: cannot write the run folder ({exc.strerror or exc})") from None
    for p in made:  # deepest first
        p.rmdir()


def minimize(problem: Problem, algorithm: str, termination: Termination | int | None, *, out: str | os.PathLike,
             executor: str | None = DEFAULT_EXECUTOR, workers: int | None = None, seed: int = DEFAULT_SEED,
             extend: bool = False, **settings: Any) -> Run:
    """Run, resume or extend ``algorithm`` (a name of :data:`schedlab.strategy.registry.OPTIMIZERS`) on
    ``problem`` until ``termination`` (generations: an int or ``Termination(generations=N)``; the stored
    budget of a run folder; None only for the iterative GFS, which walks its classes once) into run folder ``out``.

    ``executor``: as :func:`schedlab.execute.make_executor` (``serial``, ``processes:N``, ``dask:ADDRESS``;
    default :data:`~schedlab.optimize.settings.DEFAULT_EXECUTOR`, all cores); results do not depend on it.
    ``seed``: default :data:`~schedlab.optimize.settings.DEFAULT_SEED`. ``settings``: the algorithm's
    settings (``mu``, ``lam``, ``pop``, the symbiotic GFS's ``rules``, ...), beside the space's settings the
    Problem holds, as the verb's options name them; an unknown one is refused. Same arguments, same folder: resumes where it stopped.
    The one entry of every optimizer: ``setup(...).run()``, which the verbs call with their progress hooks."""
    return setup(problem, algorithm, termination, out=out, executor=executor, workers=workers, seed=seed,
                 extend=extend, **settings).run()
