"""Evolve greedy sorting criteria for an owner's objective: the driver behind `schedlab evolve greedy`.

greedy-es-sorting-criteria, Sections IV-C/IV-D: load the training workload(s) once, check the
objective on the EASY schedule, run the ES (or CMA-ES) through an Executor into a resumable run
folder (procedure ``free`` or ``paper``, see :mod:`schedlab.optimize.greedy`), and finally
compare the best strategy with EASY on every training workload (% improvement per metric, the
paper's Table III and Fig. 1) and write report.html.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RunError
from ..metrics.objective import DEFAULT_OBJECTIVE, Objective
from ..sim.model import Machine
from ..strategy.model import CRITERIA, Strategy
from ..strategy.registry import OPTIMIZERS, make_optimizer, optimizer, optimizer_names
from ..workload.model import Workload
from ..workload.spec import TraceSpec
from .greedy import DISPATCH_CHOICES, GENE_SCALES, PROCEDURES, GreedyEncoding, ParamsEvaluator, TrainingSet, assemblies, strategy_value
from .greedy import __doc__ as GREEDY_DOC
from .heldout import TEST_COLUMNS, HeldOut, load_test_traces
from .versus_easy import COMPARE_METRICS, WORSE_THAN_EASY_PCT, compare_with_easy, metrics_of  # noqa: F401  (re-exported)
from .history import history_csv
from .run import ES_COLUMNS, RunFolder, RunResult, atomic_write_text, optimize
from .settings import (DEFAULT_EXECUTOR, DEFAULT_SEED, NOT_GIVEN, check_template, renamed_executor, stored_trace_spec,
                       takes_trace_spec)



#: fixed settings of each optimizer (registry rows), recorded in config.json so a run can be repeated elsewhere
OPTIMIZER_SETTINGS: dict[str, dict[str, Any]] = {o.name: o.settings for o in OPTIMIZERS if o.box}


@takes_trace_spec
@dataclass(frozen=True)
class EvolveConfig:
    """Everything that determines a greedy optimization's result (stored in config.json)."""

    traces: tuple[str, ...]
    #: parsed on construction (:meth:`Objective.of`); config.json stores its text
    objective: Objective = DEFAULT_OBJECTIVE  # type: ignore[assignment]  (text accepted, parsed)
    generations: int = 100
    mu: int = 15
    lam: int = 105
    optimizer: str = "es"
    seed: int = DEFAULT_SEED
    procedure: str = "free"
    gene_scale: str = "linear"
    #: dispatch under the greedy order: fcfs (paper), easy (EASY backfilling), or search (a gene);
    #: see :mod:`schedlab.optimize.greedy`
    dispatch: str = "fcfs"
    #: held-out traces (:mod:`schedlab.optimize.heldout`): scored on the best each generation, never selected on
    test: tuple[str, ...] = ()
    #: how every trace is prepared: the trace options (``--procs``, ``--months``, ``--scale-to``,
    #: ``--calibrate-load``: method-notes topic 1 step 5, ``--split-months``: train on the first K months of
    #: each trace, test on the rest, ``--format``), its ``trace`` None (:meth:`spec_of` names one trace)
    trace_spec: TraceSpec = TraceSpec()

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", Objective.of(self.objective))
        if self.procedure not in PROCEDURES:
            raise RunError(f"unknown training procedure {self.procedure!r}; choose {' or '.join(PROCEDURES)}")
        if self.gene_scale not in GENE_SCALES:
            raise RunError(f"unknown gene scale {self.gene_scale!r}; choose {' or '.join(GENE_SCALES)}")
        if self.optimizer not in optimizer_names():
            raise RunError(f"unknown optimizer {self.optimizer!r}; choose {' or '.join(optimizer_names())}")
        from .settings import check_seed, check_whole

        for name in ("generations", "mu", "lam"):
            check_whole(f"--{'lambda' if name == 'lam' else name}", getattr(self, name))
        check_seed(self.seed)
        if self.optimizer == "cmaes" and self.lam < 2:  # the cma package refuses a population of one
            raise RunError(f"--lambda must be at least 2 with --optimizer cmaes, got {self.lam}")
        if self.optimizer == "cmaes" and self.mu > self.lam:
            raise RunError(f"--mu {self.mu} exceeds --lambda {self.lam}: CMA-ES selects mu of its lambda candidates")
        if self.dispatch in DISPATCH_CHOICES and self.gene_scale in GENE_SCALES:  # else refused below / above
            from .settings import check_memory

            genes = len(GreedyEncoding(gene_scale=self.gene_scale, dispatch=self.dispatch).names)  # free: the most
            check_memory(f"--lambda {self.lam}", 64.0 * self.lam * genes, "the offspring of a generation")
        if not self.traces:
            raise RunError("give at least one training trace")
        if self.dispatch not in DISPATCH_CHOICES:
            raise RunError(f"unknown --dispatch {self.dispatch!r}; choose {', '.join(DISPATCH_CHOICES)}")
        object.__setattr__(self, "test", tuple(self.test))
        check_template(self.trace_spec, type(self).__name__)

    def to_dict(self) -> dict[str, Any]:
        """config.json's keys, in the order they always had (the trace options among the run's own settings;
        each key added after the first run folders only when given, so those folders keep resuming)."""
        s = self.trace_spec
        d: dict[str, Any] = {
            "traces": list(self.traces), "objective": self.objective.expr, "generations": self.generations,
            "mu": self.mu, "optimizer": self.optimizer, "seed": self.seed, "procs": s.procs, "scale_to": s.scale_to,
            "months": s.months, "procedure": self.procedure, "gene_scale": self.gene_scale}
        if s.calibrate_load:
            d["calibrate_load"] = True
        d["dispatch"] = self.dispatch
        if self.test:  # held-out evaluation
            d["test"] = list(self.test)
        if s.split_months is not None:
            d["split_months"] = s.split_months
        if s.format is not None:  # else sniffed
            d["format"] = s.format
        d.update(kind="greedy", **{"lambda": self.lam}, procedure_reading=_procedure_doc(self.procedure), scale_seed=0,
                 optimizer_settings=optimizer(self.optimizer).settings)  # the row, so a registered one counts too
        return d

    @classmethod
    def from_dict(cls, stored: dict[str, Any], **changes: Any) -> "EvolveConfig":
        """The config of a run's config.json (:meth:`to_dict`; written by any version, old folders too);
        ``changes``: fields to replace, e.g. ``traces``."""
        names = {f.name for f in fields(cls)} - {"trace_spec"}
        kwargs = {k: v for k, v in stored.items() if k in names}
        if "lambda" in stored:
            kwargs["lam"] = stored["lambda"]
        for key in ("traces", "test"):
            if key in kwargs:
                kwargs[key] = tuple(kwargs[key])
        return cls(**{**kwargs, "trace_spec": stored_trace_spec(stored), **changes})

    def spec_of(self, trace: str | None) -> TraceSpec:
        """How ``trace`` is prepared for this run (:attr:`trace_spec` with that trace)."""
        return replace(self.trace_spec, trace=trace)


def _procedure_doc(procedure: str) -> str:
    text = GREEDY_DOC or ""
    start = text.find(f"``{procedure}``")
    end = text.find("\n\n", start)
    return " ".join(text[start:end].split()) if start >= 0 else procedure


def _config_trace(spec: str) -> str:
    """A trace spec as stored in the config: as given (a path, relative if given so, or a bundled name).

    The run's identity is the trace's data (``data_sha256``), not its path, so the config carries
    no absolute path of the machine that ran it and resumes from another folder or by another name.
    """
    return str(spec)


def load_training(config: EvolveConfig) -> tuple[list[Workload], list[Machine]]:
    """Load (and optionally scale) every training trace once; an empty trace is a WorkloadError.
    With ``split_months`` only the first months of each trace (:func:`load_sets` gives the rest)."""
    return load_sets(config)[0]


def load_sets(config: EvolveConfig) -> tuple[tuple[list[Workload], list[Machine]], list[Workload]]:
    """((training workloads, machines), held-out workloads): the ``--split-months`` remainders of
    the training traces, then the ``--test`` traces (:mod:`schedlab.optimize.heldout`)."""
    from ..workload.spec import prepare_trace, split_trace
    from .calibrate import easy_util

    workloads, machines, tests = [], [], []
    for trace in config.traces:
        spec = config.spec_of(trace)
        if spec.split_months is not None:
            w, rest = split_trace(spec, utilisation=easy_util)
            tests.append(rest)
        else:
            w = prepare_trace(spec, utilisation=easy_util)
        workloads.append(w)
        machines.append(Machine(w.machine_procs))
    tests += load_test_traces(config.test, config.trace_spec)
    return (workloads, machines), tests


#: what the strategies ``evolve greedy`` and the ``rules`` commands search are, as a resource note names them
CPU_ONLY_STRATEGIES = "optimizing greedy and rule-base strategies"


def note_ignored_resources(workloads: Sequence[Workload]) -> None:
    """A :class:`~schedlab.errors.TraceNote` (one line, as ``simulate`` prints it) per training workload whose
    jobs request memory or GPUs: the strategies ``evolve greedy`` and the ``rules`` commands search model CPUs
    only, and an operator of a GPU cluster would otherwise get an optimum for another machine without a word.
    (Not ``evolve slurm``'s: its policy models them where the slurm.conf has them.)"""
    import warnings

    from ..errors import TraceNote
    from ..workload.resources import ignored_note, resources_of

    for workload in workloads:
        line = ignored_note(resources_of(workload), CPU_ONLY_STRATEGIES)
        if line is not None:
            warnings.warn(TraceNote(f"{workload.name or 'the trace'}: {line}"), stacklevel=3)


def workload_fingerprint(workload: Workload) -> str:
    """sha256 of the columns a simulation reads (binds a run folder to its data, not just a path)."""
    import hashlib

    h = hashlib.sha256()
    for name in ("submit", "runtime", "procs", "estimate", "group", "user"):
        h.update(np.ascontiguousarray(getattr(workload, name)).tobytes())
    h.update(f"{workload.machine_procs}|{workload.unix_start}|{workload.timezone}".encode())
    return h.hexdigest()




@dataclass
class EvolveResult:
    """The outcome of :func:`evolve_greedy`."""

    run_dir: Path
    best: Strategy | None
    best_f: float
    interrupted: bool
    runs: dict[str, RunResult] = field(default_factory=dict)
    comparison: list[dict[str, Any]] = field(default_factory=list)
    evaluations: int = 0
    #: what a report of the run draws from (the CLI's, schedlab.report.run_report): the run's config
    #: (config.json without the library versions) and the prepared training set
    config: dict[str, Any] = field(default_factory=dict)
    training: TrainingSet | None = None


ProgressStart = Callable[[str, int, int], None]
ProgressStep = Callable[[str, dict[str, Any]], None]


def prepare(config: EvolveConfig) -> tuple[TrainingSet, list[dict[str, float | None]], HeldOut | None]:
    """Validate everything that can be bad input BEFORE touching a run folder.

    Parses the objective, loads the traces, simulates EASY once per workload and checks that the
    objective is defined on it (e.g. AWRT1 needs group-1 jobs). Returns the executor payload and
    the EASY metrics (computed once, reused for the final comparison, and always shipped with the
    payload, so an ``EASY_*`` name works whichever optimizer evaluates), and the held-out set (None without ``--test``/``--split-months``).
    """
    objective = config.objective
    (workloads, machines), tests = load_sets(config)
    easy = []
    for w, m in zip(workloads, machines):
        metrics = metrics_of(w, m, Strategy("easy"))
        objective(metrics, metrics)  # raises ObjectiveError naming the undefined metric
        easy.append(metrics)
    heldout = HeldOut.build(tests, objective) if tests else None
    training = TrainingSet(tuple(workloads), tuple(machines), objective, tuple(easy))  # EASY_* for every optimizer
    return training, easy, heldout


def evolve_greedy(
    config: EvolveConfig,
    out: str | Path,
    *,
    executor: str | None = DEFAULT_EXECUTOR,
    workers: int | None = None,
    on_start: ProgressStart | None = None,
    on_generation: ProgressStep | None = None,
    on_evaluation: Callable[[str, int, int], None] | None = None,
    extend: bool = False,
    util_guard: float | None = None,
    preparing: Callable[[Callable[[], Any]], Any] | None = None,
    executor_spec: Any = NOT_GIVEN,
) -> EvolveResult:
    """Run or resume a greedy optimization into run folder ``out``; compare the best with EASY (the
    report: :func:`schedlab.report.run_report.write_run_report`, from the result's config and training set).

    ``extend``: continue a run folder made with fewer generations to ``config.generations``.
    ``util_guard``: train on the objective with the utilisation guard of ``rules --util-guard``
    (:func:`schedlab.optimize.versus_easy.guarded_objective`, default None: off, the paper); the final table and
    comparison.json are on the objective without it, as for ``rules``.
    ``preparing(fn)`` runs the preparation ``fn`` (traces read and cut, user groups, EASY's schedules:
    tens of seconds on a full trace), e.g. saying so while it lasts (:func:`schedlab.cli.compiling.say_while`);
    default: just run it."""
    import dataclasses

    from ..execute import make_executor

    executor = renamed_executor(executor, executor_spec, "evolve_greedy")
    objective = config.objective  # parsed once, by the config
    if util_guard is not None:
        from .versus_easy import UTIL_GUARD_READING, check_util_guard, guarded_objective

        check_util_guard(util_guard)
        config = dataclasses.replace(config, objective=guarded_objective(objective, util_guard))
    training, easy, heldout = (preparing or (lambda fn: fn()))(lambda: prepare(config))
    note_ignored_resources(training.workloads)
    cfg = dataclasses.replace(config, objective=objective).to_dict() if util_guard is not None else config.to_dict()
    if util_guard is not None:  # only when given: run folders made before the guard keep resuming
        cfg.update(util_guard=float(util_guard), util_guard_reading=UTIL_GUARD_READING,
                   training_objective=training.objective.expr)
    cfg["traces"] = [_config_trace(t) for t in config.traces]
    cfg.update(training_identity(training))
    cfg.update(heldout_config(config, heldout))
    run = RunFolder(out, cfg, budget=("generations",), extend=extend)
    result = EvolveResult(run_dir=run.path, best=None, best_f=math.inf, interrupted=False, config=cfg, training=training)
    with make_executor(executor, workers=workers, payload=training) as executor:
        single = config.procedure != "paper"  # one ES run in the run folder itself
        gs, dispatch = config.gene_scale, config.dispatch
        if config.procedure == "free":
            encodings = {"free": GreedyEncoding(gene_scale=gs, dispatch=dispatch)}
        elif single:
            encodings = {config.procedure: GreedyEncoding.uniform(config.procedure, gene_scale=gs, dispatch=dispatch)}
        else:
            encodings = {k: GreedyEncoding.uniform(k, gene_scale=gs, dispatch=dispatch) for k in CRITERIA}
        for label, enc in encodings.items():
            sub = run if single else RunFolder(run.path / label, dict(cfg, system=label), budget=("generations",),
                                               extend=extend)
            res = optimize(
                sub,
                lambda enc=enc: make_optimizer(
                    config.optimizer, enc.lower, enc.upper, mu=config.mu, lam=config.lam, seed=config.seed
                ),
                ParamsEvaluator(enc),
                executor,
                config.generations,
                param_names=enc.names,
                best_json=lambda x, f, enc=enc: enc.decode(x).to_json() + "\n",
                on_start=(lambda total, done, label=label: on_start(label, total, done)) if on_start else None,
                on_generation=(lambda row, label=label: on_generation(label, row)) if on_generation else None,
                on_evaluation=(lambda g, e, label=label: on_evaluation(label, g, e)) if on_evaluation else None,
                **heldout_extra(heldout, enc.decode),
            )
            result.runs[label] = res
            result.evaluations += res.evaluations
            if res.interrupted:
                result.interrupted = True
                break
        if result.interrupted:
            return result
        if single:
            res = result.runs[config.procedure]
            result.best, result.best_f = encodings[config.procedure].decode(res.best_x), res.best_f
        else:
            result.best, result.best_f = _assemble(run, encodings, result.runs, executor)
            result.evaluations += len(CRITERIA) ** 3
    run.write_text("best.json", result.best.to_json() + "\n")
    result.comparison = train_test_comparison(result.best, training, easy, heldout, objective)
    run.write_text("comparison.json", json.dumps(result.comparison, indent=2) + "\n")
    return result


def training_identity(training: TrainingSet) -> dict[str, Any]:
    """The training keys of a run's config.json that bind it to its data (``jobs``, ``machine_procs``,
    ``data_sha256``: the traces' data, not their paths). Shared by ``evolve greedy``, ``evolve slurm``
    and the ``rules`` commands."""
    return {"jobs": [len(w) for w in training.workloads], "machine_procs": [m.procs for m in training.machines],
            "data_sha256": [workload_fingerprint(w) for w in training.workloads]}


def heldout_config(config: EvolveConfig, heldout: HeldOut | None) -> dict[str, Any]:
    """The held-out keys of a run's config.json (``test``, ``split_months``, ``test_data_sha256``),
    each only when given: run folders made before held-out evaluation keep resuming. Shared by
    ``evolve greedy`` and the ``rules`` commands."""
    d: dict[str, Any] = {}
    if config.test:
        d["test"] = [_config_trace(t) for t in config.test]
    if config.trace_spec.split_months is not None:
        d["split_months"] = config.trace_spec.split_months
    if heldout is not None:
        d["test_data_sha256"] = [workload_fingerprint(w) for w in heldout.workloads]
    return d


def heldout_extra(heldout: HeldOut | None, decode: Callable[[np.ndarray], Any]) -> dict[str, Any]:
    """:func:`schedlab.optimize.run.optimize`'s ``extra``/``extra_names``: the held-out scores of the
    best so far (``decode``: parameter vector -> strategy or rule base); none without a held-out set."""
    if heldout is None:
        return {"extra": None, "extra_names": ()}
    return {"extra": lambda x: heldout.scores(decode(x)), "extra_names": TEST_COLUMNS}


def train_test_comparison(best: Any, training: TrainingSet, easy: Sequence[dict[str, float | None]],
                          heldout: HeldOut | None, objective: Objective) -> list[dict[str, Any]]:
    """The final table's rows: ``best`` vs EASY on every training workload (``set`` = train), then on
    every held-out workload (``set`` = test)."""
    rows = [dict(r, set="train") for r in
            compare_with_easy(best, training.workloads, training.machines, objective, easy=easy)]
    if heldout is not None:
        rows += heldout.compare(best, objective)
    return rows


def schedule_tables(best: Strategy, workload: Workload, machine: Machine) -> dict[str, Any]:
    """The per-job tables of EASY and ``best`` on ``workload`` (:func:`schedlab.metrics.per_job.job_table`),
    labelled as a run's report plots them (:func:`schedlab.report.schedule_plots.write_schedule_plots`)."""
    from ..metrics.per_job import job_table
    from ..sim import simulate

    return {label: job_table(simulate(workload, machine, s)) for label, s in (("EASY", Strategy("easy")), ("evolved", best))}


#: the run kinds of ``rules iterative`` and ``rules evolve`` (their best.json is a rule base)
RULES_KINDS = ("rules-iterative", "rules-symbiotic")


def run_workload(run_dir: str | Path, trace: str | None = None) -> tuple[Workload, Machine, Strategy]:
    """The first training workload of an evolve or rules run folder (as the run prepared it) and its
    best strategy (a rule base for ``rules`` runs); ``trace`` replaces the trace path stored in
    config.json (e.g. on another machine)."""
    from ..strategy import rules as R

    run_dir = Path(run_dir)
    try:
        cfg = json.loads((run_dir / "config.json").read_text())
        kind = cfg.get("kind") if isinstance(cfg, dict) else None
        if kind not in ("greedy", *RULES_KINDS):  # the kind decides how best.json reads: check it first
            raise RunError(f"{run_dir}: a {kind!r} run; schedule plots of evolve (greedy) and rules runs only")
        text = (run_dir / "best.json").read_text()
        best = R.rulebase_from_dict(json.loads(text)) if kind in RULES_KINDS else Strategy.from_json(text)
    except FileNotFoundError as exc:
        raise RunError(f"{run_dir}: not a finished evolve or rules run ({Path(exc.filename).name} missing)") from None
    except (ValueError, OSError) as exc:
        raise RunError(f"{run_dir}: cannot read the run: {exc}") from None
    traces = (trace,) if trace else (cfg["traces"][0],)
    if kind in RULES_KINDS:  # only the traces and their options: the rest are the rules run's own settings
        config = EvolveConfig(traces=traces, objective=cfg["objective"], trace_spec=stored_trace_spec(cfg))
    else:
        config = EvolveConfig.from_dict(cfg, traces=traces)
    workloads, machines = load_training(config)
    return workloads[0], machines[0], best


def _assemble(run: RunFolder, encodings, runs: dict[str, RunResult], executor) -> tuple[Strategy, float]:
    """Paper procedure step 3: evaluate the 64 per-situation assemblies of the four systems; keep the best."""
    systems = {k: encodings[k].decode(runs[k].best_x) for k in encodings}
    combos = assemblies(systems)
    values = executor.map(strategy_value, [s for _, s in combos])
    lines = ["weekend,day,night,objective"] + [f"{a},{b},{c},{v!r}" for ((a, b, c), _), v in zip(combos, values)]
    atomic_write_text(run.path / "assemblies.csv", "\n".join(lines) + "\n")
    run.write_text("history.csv", history_csv(({"system": k, **r} for k in encodings for r in runs[k].history),
                                              ["system", *ES_COLUMNS]))
    i = int(np.argmin(values))  # first of equal minima: lowest criterion indices win ties
    return combos[i][1], float(values[i])
