"""`schedlab federation run` / `compare`: one method on one workload as a resumable run folder, and
the paper's comparison over consecutive workloads and package sizes (Figs. 1, 4, 5).

A run folder holds ``config.json`` (trace, job window, platform, communication draws, model
options, GA settings, data fingerprint, library versions), ``checkpoint`` (GA runs: after every
generation), ``history.csv`` (GA: one row per package and generation), ``packages.csv`` (one row
per package: makespan, seconds) and at the end ``result.json`` ({"method", "makespan", "jobs",
"package_size", "seconds"}, with GA runs also "workers" and, when the count was chosen by the run,
"workers_choice": the measured evaluation behind it) and ``orders.json`` (the start order of every package).
Re-running the same command on the folder resumes it (a finished run is read back).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._signals import stop_in
from ..errors import RunError, WorkloadError
from ..federation.jobs import COMM_READING, PACKAGE_CARRY_READING, PACKAGE_READING, FederatedJobs, packages
from ..federation.model import GA_METHODS, METHODS, FederationOptions
from ..federation.platform import Platform
from ..federation.schedule import FederatedSchedule, PackageProblem, carry_over, schedule_workload
from ..workload.spec import TraceSpec
from .federation_ga import FederationGAConfig, run_package_ga
from .run import RunFolder
from .settings import DEFAULT_EXECUTOR, NOT_GIVEN, renamed_executor, takes_trace_spec


@takes_trace_spec(trace=True)
@dataclass(frozen=True)
class FederationRunConfig:
    """Everything that determines one federation run's result (stored in config.json)."""

    #: the trace and how it is prepared (``--procs``, ``--months``, ``--scale-to``, ``--calibrate-load``,
    #: ``--format``), before the job window is taken; one window, so no ``--split-months``
    trace_spec: TraceSpec
    method: str
    package_size: int
    jobs: int | None = None
    offset: int = 0
    comm_seed: int = 0
    sigma_range: tuple[float, float] = (0.1, 0.5)
    ptbw_range: tuple[float, float] = (1.0, 10.0)
    options: FederationOptions = field(default_factory=FederationOptions)
    ga: FederationGAConfig = field(default_factory=FederationGAConfig)
    #: a CSV file ``id,sigma,ptbw`` giving sigma_j and PTBW_j per SWF job id instead of drawing them
    comm_file: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.trace_spec, (str, os.PathLike)):  # the trace given first, as before trace_spec
            import warnings

            warnings.warn("FederationRunConfig(TRACE, ...) is now FederationRunConfig(TraceSpec(TRACE, ...), ...); "
                          "a bare trace goes in the next release", DeprecationWarning, stacklevel=4)
            object.__setattr__(self, "trace_spec", TraceSpec(self.trace_spec))
        if not isinstance(self.trace_spec, TraceSpec) or self.trace_spec.trace is None:
            raise RunError("FederationRunConfig: trace_spec must be a TraceSpec that names the trace")
        if self.trace_spec.split_months is not None:
            raise RunError("--split-months: a federation run schedules one window of the trace; give --offset and --jobs")
        if self.method not in METHODS:
            raise RunError(f"unknown method {self.method!r}; choose one of {', '.join(METHODS)}")
        if int(self.package_size) != self.package_size or self.package_size < 1:
            raise RunError(f"--package-size must be a positive whole number, got {self.package_size}")
        if self.jobs is not None and (int(self.jobs) != self.jobs or self.jobs < 1):
            raise RunError(f"--jobs must be a positive whole number, got {self.jobs}")
        if int(self.offset) != self.offset or self.offset < 0:
            raise RunError(f"--offset must be a whole number >= 0, got {self.offset}")

    def to_dict(self) -> dict[str, Any]:
        s = self.trace_spec
        d: dict[str, Any] = {
            "kind": "federation", "trace": str(s.trace), "method": self.method, "package_size": self.package_size,
            "jobs": self.jobs, "offset": self.offset, "procs": s.procs, "comm_seed": self.comm_seed,
            "sigma_range": list(self.sigma_range), "ptbw_range": list(self.ptbw_range),
            "options": self.options.to_dict(), "comm_reading": COMM_READING,
            "package_reading": PACKAGE_CARRY_READING if self.options.package_start == "carry" else PACKAGE_READING,
        }
        if self.method in GA_METHODS:
            d["ga"] = self.ga.to_dict()
        for key in ("months", "scale_to", "calibrate_load"):  # only when given, so older run folders keep resuming
            if getattr(s, key):
                d[key] = getattr(s, key)
        if s.format is not None:  # only when given, so older run folders keep resuming
            d["format"] = s.format
        if self.comm_file is not None:  # only when given, so that run folders without it keep resuming
            d["comm_file"] = self.comm_file
            d["comm_file_sha256"] = hashlib.sha256(Path(self.comm_file).read_bytes()).hexdigest()
        return d


def load_jobs(config: FederationRunConfig) -> FederatedJobs:
    """The cleaned trace's jobs [offset, offset + jobs) in submit order, with their communication draws."""
    from ..workload.spec import prepare_trace
    from .calibrate import easy_util

    trace = config.trace_spec.trace
    w = prepare_trace(config.trace_spec, utilisation=easy_util)
    n = len(w)
    if config.offset >= n:
        raise WorkloadError(f"{trace}: --offset {config.offset} but the cleaned trace has {n} jobs")
    stop = n if config.jobs is None else min(n, config.offset + config.jobs)
    if config.jobs is not None and stop - config.offset < config.jobs:
        raise WorkloadError(f"{trace}: asked for {config.jobs} jobs from {config.offset}, only {stop - config.offset} left")
    w = w.take(np.arange(config.offset, stop))
    given = read_comm_file(config.comm_file, w.id) if config.comm_file is not None else (None, None)
    jobs = FederatedJobs.from_workload(w, seed=config.comm_seed, sigma_range=config.sigma_range,
                                       ptbw_range=config.ptbw_range, sigma=given[0], ptbw=given[1])
    return FederatedJobs(jobs.id, jobs.submit, jobs.tasks, jobs.base, jobs.sigma, jobs.ptbw,
                         f"{Path(trace).name} jobs {config.offset + 1}-{stop}")


def read_comm_file(path: str, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sigma_j and PTBW_j of the jobs ``ids`` from a CSV ``id,sigma,ptbw`` (header line first); one-line errors."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read the communication file ({exc.strerror or exc})") from None
    if not lines or [c.strip() for c in lines[0].split(",")] != ["id", "sigma", "ptbw"]:
        raise WorkloadError(f"{path}:1: the first line must be the header id,sigma,ptbw")
    table: dict[int, tuple[float, float]] = {}
    for no, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            a, b, c = line.split(",")
            table[int(a)] = (float(b), float(c))
        except ValueError:
            raise WorkloadError(f"{path}:{no}: expected id,sigma,ptbw (an integer and two numbers), got {line!r}") from None
        if not (0.0 <= table[int(a)][0] <= 1.0) or not table[int(a)][1] >= 0.0:
            raise WorkloadError(f"{path}:{no}: sigma must lie in [0, 1] and ptbw be >= 0, got {line!r}")
    missing = [int(i) for i in ids if int(i) not in table]
    if missing:
        raise WorkloadError(f"{path}: no line for job {missing[0]} ({len(missing)} job(s) of the window missing)")
    return (np.array([table[int(i)][0] for i in ids]), np.array([table[int(i)][1] for i in ids]))


def jobs_fingerprint(jobs: FederatedJobs) -> str:
    h = hashlib.sha256()
    for a in (jobs.id, jobs.tasks, jobs.base, jobs.sigma, jobs.ptbw):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


@dataclass
class FederationRunResult:
    """Outcome of :func:`run_federation` (``result`` is what result.json / --json hold)."""

    run_dir: Path
    result: dict[str, Any]
    schedule: FederatedSchedule | None
    interrupted: bool = False
    packages: list[dict[str, Any]] = field(default_factory=list)


def _history_text(old: str, package: int, rows: Sequence[dict[str, Any]]) -> str:
    """history.csv with every row of packages before ``package`` kept from ``old`` plus ``rows`` (the
    one history writer, :func:`schedlab.optimize.history.history_csv`)."""
    from .history import history_csv

    kept = [line for line in old.splitlines()[1:] if line and int(line.split(",")[0]) < package]
    header, _, body = history_csv(rows, ["package", "gen", "evaluations", "best", "median", "elapsed"]).partition("\n")
    return header + "\n" + "".join(k + "\n" for k in kept) + body


def _packages_csv(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["package,jobs,makespan,seconds,metl_makespan"]
    for r in rows:
        metl = "" if r.get("metl_makespan") is None else repr(r["metl_makespan"])
        lines.append(f"{r['package']},{r['jobs']},{r['makespan']!r},{r['seconds']:.3f},{metl}")
    return "\n".join(lines) + "\n"


def run_federation(
    config: FederationRunConfig,
    platform: Platform,
    out: str | Path,
    *,
    executor: str | None = DEFAULT_EXECUTOR,
    workers: int | None = None,
    jobs: FederatedJobs | None = None,
    on_start: Callable[[int, int, int], None] | None = None,
    on_generation: Callable[[int, dict], None] | None = None,
    on_evaluation: Callable[[int, int, int], None] | None = None,
    checkpoint_every: int | None = None,
    warm: Callable[[Callable[[], None]], Any] | None = None,
    executor_spec: Any = NOT_GIVEN,
) -> FederationRunResult:
    """Run (or resume, or read back) ``config.method`` on the configured workload into run folder ``out``.

    ``checkpoint_every``: GA checkpoint interval in generations (None: every few seconds, see
    :func:`~schedlab.optimize.federation_ga.run_package_ga`); it does not change the result.
    ``warm(fn)`` runs the kernels' warm-up ``fn`` (compilation, before anything is timed), e.g.
    saying so while it lasts (:func:`schedlab.cli.compiling.warm_up`); default: just run it.
    """
    executor_spec = renamed_executor(executor, executor_spec, "run_federation")  # the spec, or "auto"
    from ..execute import SerialExecutor, make_executor

    jobs = jobs if jobs is not None else load_jobs(config)
    jobs.check_fits(platform)
    slices = packages(len(jobs), config.package_size)
    config.options.check_packages(len(slices))
    if config.method in GA_METHODS:  # a package's GA holds parents, offspring and their merge (int64 orders)
        from .settings import check_memory

        longest = max(sl.stop - sl.start for sl in slices)
        check_memory(f"--pop {config.ga.pop} with packages of {longest:,} jobs", 40.0 * config.ga.pop * longest,
                     "the GA's population of job orders")
    cfg = config.to_dict()
    cfg["platform"] = platform.to_dict()
    cfg["n_jobs"] = len(jobs)
    cfg["data_sha256"] = jobs_fingerprint(jobs)
    run = RunFolder(out, cfg)
    if run.file("result.json").exists():
        result = json.loads(run.file("result.json").read_text())
        orders = [np.asarray(o, dtype=np.int64) for o in json.loads(run.file("orders.json").read_text())]
        sched = schedule_workload(jobs, platform, config.method, config.package_size, options=config.options,
                                  orders=orders if config.method in GA_METHODS else None)
        return FederationRunResult(run.path, result, sched)
    method = config.method
    (warm or (lambda fn: fn()))(lambda: _warm_up(jobs, platform, config))
    if method not in GA_METHODS:
        t0, c0 = time.perf_counter(), time.process_time()
        sched = schedule_workload(jobs, platform, method, config.package_size, options=config.options)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        pkg_rows = [{"package": p, "jobs": sl.stop - sl.start, "makespan": float(sched.package_makespan[p]),
                     "seconds": seconds / len(slices), "metl_makespan": None} for p, sl in enumerate(slices)]
        return _finish(run, config, jobs, sched, seconds, pkg_rows, cpu)
    problems = tuple(PackageProblem(jobs.take(sl), platform, config.options, method) for sl in slices)
    state = run.load_checkpoint() or {"done": [], "current": None}
    if on_start is not None:  # (generations of all packages, those done, generations per package)
        on_start(len(slices) * config.ga.generations, len(state["done"]) * config.ga.generations
                 + (len(state["current"]["rows"]) if state.get("current") else 0), config.ga.generations)
    choice = None
    if executor_spec == "auto":  # --workers not given: from the measured cost of an evaluation
        choice = choose_workers(problems[len(state["done"]) if len(state["done"]) < len(problems) else 0], config.ga.pop)
        executor_spec, workers = ("serial", 1) if choice["workers"] == 1 else (f"processes:{choice['workers']}", None)
    carry_reading = config.options.package_start == "carry"
    try:
        with make_executor(executor_spec, workers=workers, payload=problems) as executor:
            serial = isinstance(executor, SerialExecutor)  # process CPU = the GA's CPU only without workers
            for p in range(len(state["done"]), len(slices)):
                carry = (carry_over(jobs, platform, config.options, method, [d["order"] for d in state["done"]])
                         if carry_reading else None)
                problem = problems[p].with_carry(carry)
                seed_order, metl_mk = None, None
                if method == "ga-metl":
                    seed_order = problem.metl_order()
                    metl_mk = problem.makespan(seed_order)
                cur, stopped = run_package_ga(run, state, p, len(problems[p]), config.ga, executor, seed_order,
                                              on_generation=on_generation, on_evaluation=on_evaluation,
                                              checkpoint_every=checkpoint_every, carry=carry)
                if stopped:  # the GA's last checkpoint is on disk
                    return FederationRunResult(run.path, {}, None, interrupted=True, packages=list(state["done"]))
                old = run.file("history.csv").read_text() if run.file("history.csv").exists() else ""
                run.write_text("history.csv", _history_text(old, p, cur["rows"]))
                state["done"].append({"package": p, "jobs": len(problems[p]), "makespan": cur["best"],
                                      "seconds": cur["elapsed"], "cpu_seconds": cur.get("cpu") if serial else None,
                                      "metl_makespan": metl_mk,
                                      "order": cur["best_order"]})
                state["current"] = None
                run.write_text("packages.csv", _packages_csv(state["done"]))
                run.save_checkpoint(state)
    except BaseException as exc:
        if stop_in(exc) is None:
            raise
        return FederationRunResult(run.path, {}, None, interrupted=True, packages=list(state["done"]))
    orders = [d["order"] for d in state["done"]]
    sched = schedule_workload(jobs, platform, method, config.package_size, options=config.options, orders=orders)
    for d, mk in zip(state["done"], sched.package_makespan):
        if abs(d["makespan"] - mk) > 1e-6 * max(1.0, mk):  # the decoder is deterministic: a mismatch is a bug
            raise RunError(f"{run.path}: package {d['package']} rebuilt to makespan {mk}, the GA found {d['makespan']}")
    seconds = float(sum(d["seconds"] for d in state["done"]))
    cpus = [d.get("cpu_seconds") for d in state["done"]]
    cpu = None if None in cpus else float(sum(cpus))
    return _finish(run, config, jobs, sched, seconds, state["done"], cpu,
                   {"workers": executor_workers(executor_spec, workers), **({"workers_choice": choice} if choice else {})})


#: estimated cost of sending a generation's population to a pool of local worker processes and
#: collecting the fitness values: a fixed round trip per worker plus the population's bytes. Set
#: from one measurement on the shared 2-core machine (load ~4): 200 orders of a 100-job package took
#: 5.9 ms per generation serially and 6.7 ms (median; 3.3 ms best) with 2 workers, i.e. ~3.7 ms of
#: dispatch beside half the evaluations; the estimate for 2 workers here is 4.3 ms
DISPATCH_SECONDS_PER_WORKER = 2e-3
DISPATCH_SECONDS_PER_BYTE = 2e-9


def choose_workers(problem: PackageProblem, pop: int, *, cores: int | None = None, repeat: int = 20) -> dict[str, Any]:
    """The local worker count for a GA generation of ``pop`` evaluations of ``problem``, from the
    measured evaluation time (not the core count): w workers pay off when the evaluation time they
    save, T (1 - 1/w) with T = pop x one evaluation, exceeds the dispatch cost w x
    :data:`DISPATCH_SECONDS_PER_WORKER` + population bytes x :data:`DISPATCH_SECONDS_PER_BYTE`;
    1 worker (in this process) otherwise. Returns {"workers", "evaluation_ms", "generation_ms",
    "dispatch_ms"} (the dispatch estimate of the chosen count, or of 2 workers when 1 is chosen)."""
    import os

    cores = cores or os.cpu_count() or 1
    X = np.tile(np.arange(len(problem), dtype=np.int64), (repeat, 1))
    rng = np.random.default_rng(0)
    for x in X:
        rng.shuffle(x)
    problem.makespans(X[:1])  # compiled (or loaded) before timing
    t0 = time.perf_counter()
    problem.makespans(X)
    one = (time.perf_counter() - t0) / repeat
    return workers_for(one, pop, len(problem), cores)


def workers_for(evaluation_seconds: float, pop: int, n_jobs: int, cores: int) -> dict[str, Any]:
    """:func:`choose_workers`'s rule on a given evaluation time (seconds) and core count."""
    T = evaluation_seconds * pop

    def dispatch(w: int) -> float:
        return w * DISPATCH_SECONDS_PER_WORKER + pop * n_jobs * 8 * DISPATCH_SECONDS_PER_BYTE

    best, best_time = 1, T
    for w in range(2, max(1, cores) + 1):
        t = T / w + dispatch(w)
        if t < best_time:
            best, best_time = w, t
    return {"workers": best, "evaluation_ms": evaluation_seconds * 1e3, "generation_ms": T * 1e3,
            "dispatch_ms": dispatch(max(best, 2)) * 1e3}


def executor_workers(spec: str | None, workers: int | None) -> int | None:
    """Worker processes of an executor spec (1 = this process; None when not known: all cores / Dask)."""
    import os

    if spec in ("serial", "auto") or (spec is None and workers == 1):
        return 1
    if spec and spec.startswith("processes:"):
        return int(spec.split(":", 1)[1])
    if spec in (None, "processes"):
        return workers or os.cpu_count()
    return workers


def _warm_up(jobs: FederatedJobs, platform: Platform, config: FederationRunConfig) -> None:
    """Compile (or load) the kernels on a one-job package so that the timings exclude compilation."""
    tiny = PackageProblem(jobs.take(slice(0, 1)), platform, config.options, config.method)
    tiny.build(None if config.method in ("jpr", "cbs", "metl") else np.zeros(1, dtype=np.int64))
    tiny.makespan(np.zeros(1, dtype=np.int64))
    if config.method in GA_METHODS:  # the GA's own compiled parts: population fitness, order crossover, METL's seed order
        from .federation_ga import uniform_order_crossover

        one = np.zeros(1, dtype=np.int64)
        tiny.makespans(one[None])  # else compiled inside the first GA's timed generations (~5 s of its CPU)
        uniform_order_crossover(one, one, np.ones(1, dtype=np.bool_))
        if config.method == "ga-metl":
            tiny.metl_order()


def _finish(run: RunFolder, config: FederationRunConfig, jobs: FederatedJobs, sched: FederatedSchedule,
            seconds: float, pkg_rows: list[dict[str, Any]], cpu_seconds: float | None,
            extra: dict[str, Any] | None = None) -> FederationRunResult:
    result = {"method": config.method, "makespan": sched.makespan, "jobs": len(jobs),
              "package_size": config.package_size, "seconds": seconds}
    if cpu_seconds is not None:  # GA runs with worker processes: their CPU is not this process's
        result["cpu_seconds"] = cpu_seconds
    result.update(extra or {})
    run.write_text("packages.csv", _packages_csv(pkg_rows))
    run.write_text("orders.json", json.dumps([[int(v) for v in o] for o in sched.orders]) + "\n")
    run.write_text("result.json", json.dumps(result, indent=2) + "\n")
    return FederationRunResult(run.path, result, sched, packages=pkg_rows)


def compare_federation(
    base: FederationRunConfig,
    platform: Platform,
    out: str | Path,
    *,
    package_sizes: Sequence[int],
    workloads: int,
    methods: Sequence[str],
    generations: Sequence[int] | None = None,
    pops: Sequence[int] | None = None,
    executor: str | None = DEFAULT_EXECUTOR,
    workers: int | None = None,
    on_run: Callable[[str, int, str], None] | None = None,
    progress: Callable[[str], Any] | None = None,
    checkpoint_every: int | None = None,
    report_only: bool = False,
    missing: list[str] | None = None,
    executor_spec: Any = NOT_GIVEN,
) -> list[dict[str, Any]]:
    """The paper's comparison: ``workloads`` consecutive windows of ``base.jobs`` jobs from
    ``base.offset`` (Wk-1, Wk-2, ...), every method and package size, each a run folder
    ``out/p{size}/Wk-{i}/{method}`` (resumable); writes results.json and returns its rows (the table
    and figures: :func:`schedlab.report.federation.write_comparison_report`).

    ``generations`` / ``pops``: the GA settings to sweep (Figs. 2 and 3; default: ``base.ga``'s one
    value); one of them may hold several values. A sweep gives each GA method one run folder per
    value, ``out/p{size}/Wk-{i}/{method}-g{generations}-pop{pop}``, and its rows the keys
    ``generations`` and ``pop``; the heuristics (no GA setting) run once per workload and size. With
    one value of each, folders and rows are those of a comparison without a sweep.

    ``progress(label)`` may return a dict of run_federation callbacks (on_start, on_generation,
    on_evaluation, warm) for that run. ``report_only``: run nothing, report the finished run folders
    (the labels of the others are appended to ``missing``).
    """
    from .run import atomic_write_text

    executor = renamed_executor(executor, executor_spec, "compare_federation")
    if base.jobs is None:
        raise RunError("compare needs --jobs (the size of each workload window)")
    if workloads < 1:
        raise RunError(f"--workloads must be >= 1, got {workloads}")
    for m in methods:
        if m not in METHODS:
            raise RunError(f"unknown method {m!r}; choose among {', '.join(METHODS)}")
    settings = ga_settings(base, package_sizes, generations, pops,
                           with_ga=any(m in GA_METHODS for m in methods))
    sweep = len(settings) > 1
    out = Path(out)
    if report_only and not out.is_dir():
        raise RunError(f"{out}: no comparison folder to report on (--report-only runs nothing)")
    windows = []
    for w in range(workloads):  # load and check every window before any run starts
        cfg = replace(base, offset=base.offset + w * base.jobs, method=methods[0], package_size=package_sizes[0])
        jobs = load_jobs(cfg)
        jobs.check_fits(platform)
        windows.append((f"Wk-{w + 1}", cfg.offset, jobs))
    # Every GA setting of a sweep is its own run, also along generations (Fig. 2): the GA of a package
    # does not depend on the generation budget until it ends (run_package_ga: seeded by seed and
    # package, the budget only stops the loop), so package 1 alone at generation g of a longer run is
    # a g-generation run. But under --package-start carry package p is released on the platform the
    # best orders of packages 0..p-1 left (run_federation's carry_over of state["done"]), and those are
    # the orders found at the END of their GAs: package 2 of a 500-generation run starts from another
    # platform state than package 2 of a 100-generation run, so the workload makespan (and, through the
    # carried jobs, even the package makespans) at generation g cannot be read from a longer run.
    # (Under --package-start barrier they could, from history.csv's best per generation; not done,
    # to keep one rule for every reading.)
    rows: list[dict[str, Any]] = []
    for size in package_sizes:
        for label, offset, jobs in windows:
            for k, (gens, pop) in enumerate(settings):
                for m in methods:
                    ga = m in GA_METHODS
                    if not ga and k > 0:  # a heuristic has no GA setting: once per workload and size
                        continue
                    name = f"{m}-g{gens}-pop{pop}" if ga and sweep else m
                    cfg = replace(base, offset=offset, method=m, package_size=size,
                                  ga=replace(base.ga, generations=gens, pop=pop))
                    folder = out / f"p{size}" / label / name
                    if report_only and not (folder / "result.json").exists():
                        if missing is not None:
                            missing.append(f"p{size} {label} {name}")
                        continue
                    if on_run is not None:
                        on_run(label, size, m)
                    callbacks = progress(f"p{size} {label} {name}") if progress is not None else {}
                    res = run_federation(cfg, platform, folder, executor=executor,
                                         workers=workers, jobs=jobs, checkpoint_every=checkpoint_every, **(callbacks or {}))
                    if res.interrupted:
                        raise KeyboardInterrupt
                    rows.append({"workload": label, "offset": offset, **res.result,
                                 **({"generations": gens, "pop": pop} if ga and sweep else {})})
    atomic_write_text(out / "results.json", json.dumps(rows, indent=2) + "\n")
    return rows


def ga_settings(base: FederationRunConfig, package_sizes: Sequence[int], generations: Sequence[int] | None,
                pops: Sequence[int] | None, *, with_ga: bool = True) -> list[tuple[int, int]]:
    """The (generations, pop) settings of a comparison, every value checked before anything is written:
    package sizes, generations and populations valid and not repeated, at most one of generations and
    pop swept (a sweep's figure has one x axis), and the largest population's orders fitting in memory."""
    from .settings import check_memory

    generations = [base.ga.generations] if generations is None else list(generations)
    pops = [base.ga.pop] if pops is None else list(pops)
    for option, values in (("--package-size", package_sizes), ("--generations", generations), ("--pop", pops)):
        if not values:
            raise RunError(f"{option}: give at least one value")
        twice = sorted({v for v in values if list(values).count(v) > 1})
        if twice:
            raise RunError(f"{option} {twice[0]} is given twice; give each value once")
    for size in package_sizes:
        replace(base, package_size=size)  # the size's own check
    for gens in generations:
        replace(base.ga, generations=gens)
    for pop in pops:
        replace(base.ga, pop=pop)
    if len(generations) > 1 and len(pops) > 1:
        raise RunError("--generations and --pop: sweep one of them at a time (repeat one option, give the other once)")
    if with_ga:
        check_memory(f"--pop {max(pops)} with packages of {max(package_sizes):,} jobs",
                     40.0 * max(pops) * min(max(package_sizes), base.jobs or max(package_sizes)),
                     "the GA's population of job orders")
    return [(g, p) for g in generations for p in pops]
