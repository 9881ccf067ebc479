"""Run folders for long optimizations: config, atomic checkpoint after every generation, resume.

A run folder holds (DESIGN.md, "Runs")::

    config.json   everything needed to repeat the run (problem, optimizer, seed, ...) + library versions
    checkpoint    pickle of the optimizer (incl. its np.random.Generator) and the history so far,
                  written atomically (temp file in the folder + os.replace) after EVERY generation
    history.csv   one row per generation: gen, evaluations, best, median, sigma, elapsed, best params
    best.json     the best solution so far (for greedy runs: a Strategy, replayable with
                  ``schedlab simulate TRACE --strategy best.json``)

Re-running with the same config resumes from the checkpoint; since the checkpoint is taken after
``tell`` and the optimizer owns all randomness, the resumed run ends exactly where an
uninterrupted one would (only the ``elapsed`` column differs). A folder holding a different
config, or not a run folder at all, is a :class:`RunError` and is left untouched.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import sys
import time
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import RunError

CHECKPOINT_FORMAT = 1
#: config keys that do not change results (how it is executed), ignored when comparing configs
EXECUTION_KEYS = ("versions", "executor", "workers", "dask", "created")
from .._atomic import atomic_write_bytes, atomic_write_text  # noqa: E402  (re-exported)
from .._signals import raise_pending, stop_in, stop_signals  # noqa: E402
from .termination import EVERY_GENERATION, CheckpointPolicy, LoopState, Termination  # noqa: E402,F401  (re-exported)

#: history.csv columns of an ES-like run before its extra and param columns (:func:`history_csv`)
ES_COLUMNS = ("gen", "evaluations", "best", "median", "sigma", "elapsed")

RUN_FILES = ("config.json", "checkpoint", "history.csv", "best.json", "report.html")

#: what a run writes before its first generation: a fresh folder holding only these got nowhere
SETUP_FILES = frozenset({"config.json", "references.json"})

#: run folders this process started afresh, oldest first (see :func:`discard_unstarted_runs`)
_FRESH: list["RunFolder"] = []


def forget_fresh_runs() -> None:
    """Start a new command: runs started before it are not :func:`discard_unstarted_runs`' business."""
    _FRESH.clear()


def discard_unstarted_runs() -> list[Path]:
    """Remove what runs started afresh in this process left behind when they failed before any result.

    A fresh run folder holds its config.json from the start, so a run that failed in its first
    generation (a setting the optimizer could not use, memory) would make the corrected command
    meet "holds a run of a different config". The CLI calls this on every error: a fresh folder
    that still holds nothing but :data:`SETUP_FILES` loses them (it held nothing when the run
    opened it, so they are the run's own), and the folder goes too when the run made it (newest
    first, so a sub-run's folder is gone before its parent is looked at). Folders with any other
    file (a checkpoint, history, a figure, a sub-run) are kept: their run got somewhere.
    """
    removed = []
    while _FRESH:
        run = _FRESH.pop()
        try:
            names = {p.name for p in run.path.iterdir() if not p.name.startswith(".")}
            if not names <= SETUP_FILES:
                continue
            for name in names:
                (run.path / name).unlink()
            if run.made_folder:
                run.path.rmdir()
            removed.append(run.path)
        except OSError:  # gone already, or not ours to clean: leave it as it is
            continue
    return removed


def library_versions() -> dict[str, str]:
    """Versions of the libraries that can change a run's numbers (recorded, not compared)."""
    import platform
    from importlib import metadata

    from .._blas import blas_kernel

    out = {"python": platform.python_version(), "blas": blas_kernel()}
    for name in ("schedlab", "numpy", "numba", "cma", "distributed"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    try:  # the source commit, when running from a git checkout
        import subprocess

        here = Path(__file__).resolve().parent
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        if rev.returncode == 0:
            out["schedlab_git"] = rev.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def _canonical(config: dict[str, Any]) -> dict[str, Any]:
    """What a config means: execution keys dropped, the objective parsed (so spacing or ``10`` vs
    ``10.0`` do not matter)."""
    out = json.loads(json.dumps({k: v for k, v in config.items() if k not in EXECUTION_KEYS}, sort_keys=True))
    if isinstance(out.get("objective"), str):
        from ..errors import ObjectiveError
        from ..metrics import Objective

        try:
            out["objective"] = Objective.of(out["objective"]).canonical()
        except ObjectiveError:
            pass
    return out


TRACE_LABEL_KEYS = ("traces", "trace", "grid")
"""Config keys that only name the data (a path, a bundled name, a grid's ``NAME:PROCS`` list)."""


def config_differences(stored: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """The keys whose meaning differs, as ``key: stored X, given Y``. The traces are compared by the
    content hash of their data (``data_sha256``) when both configs have it: a path and the bundled
    name of the same data are the same trace, so the keys that only label it
    (:data:`TRACE_LABEL_KEYS`, and the ``name`` of each of a grid's ``sites``) are not compared."""
    a, b = _canonical(stored), _canonical(given)
    if "data_sha256" in a and a.get("data_sha256") == b.get("data_sha256"):
        for key in TRACE_LABEL_KEYS:
            a.pop(key, None)
            b.pop(key, None)
        for c in (a, b):
            if isinstance(c.get("sites"), list):
                c["sites"] = [{k: v for k, v in s.items() if k != "name"} if isinstance(s, dict) else s
                              for s in c["sites"]]
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return [f"{k}: stored {_short(stored.get(k))}, given {_short(given.get(k))}" for k in keys]


def _short(value: Any, width: int = 70) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _split_budget(config: dict[str, Any], budget: tuple[str, ...] | None) -> tuple[Any, dict[str, Any]]:
    """(the budget value, the config without it); (None, config) without a budget key."""
    if not budget:
        return None, config
    rest = json.loads(json.dumps(config))
    node = rest
    for key in budget[:-1]:
        node = node.get(key, {}) if isinstance(node, dict) else {}
    value = node.pop(budget[-1], None) if isinstance(node, dict) else None
    return value, rest


def _with_budget(config: dict[str, Any], budget: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(config))
    node = out
    for key in budget[:-1]:
        node = node[key]
    node[budget[-1]] = value
    return out


#: a refused folder's message names at most this many differing config keys
SHOW_DIFFERENCES = 3


def _kind(config: dict[str, Any]) -> str:
    """The verb that makes a run of a config's ``kind`` (``greedy`` -> ``'evolve greedy'``)."""
    kind = config.get("kind")
    verbs = {"greedy": "evolve greedy", "bound": "bound", "grid-pareto": "grid pareto", "federation": "federation run",
             "rules-iterative": "rules iterative", "rules-symbiotic": "rules evolve", "slurm-tune": "evolve slurm"}
    return repr(verbs.get(kind, kind)) if kind is not None else "different kind of"


class RunFolder:
    """A run folder bound to one config: created if new, checked if existing (different config -> RunError).

    ``budget``: the path of the config key that holds the run's length (``("generations",)``,
    ``("nsga2", "generations")``). A stored run whose config differs only there is refused with a
    hint, or, with ``extend=True`` and a larger budget, continued: config.json then records the
    new budget (the run's history holds every generation; the optimizers do not depend on the
    budget, so the extended run ends where an uninterrupted run of the larger budget would).
    """

    def __init__(self, path: str | os.PathLike, config: dict[str, Any], *, budget: tuple[str, ...] | None = None,
                 extend: bool = False) -> None:
        self.path = Path(path)
        self.config = dict(config)
        self.config.setdefault("versions", library_versions())
        self.budget, self.extend = budget, extend
        self.extended_from: int | None = None
        #: the ``versions`` the folder's config.json recorded when the run started (empty for a new run)
        self.stored_versions: dict[str, str] = {}
        self._open()

    def _open(self) -> None:
        path = self.path
        cfg_path = path / "config.json"
        if path.exists() and not path.is_dir():
            raise RunError(f"{path}: run folder path exists and is not a folder")
        if cfg_path.exists():
            try:
                old = json.loads(cfg_path.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise RunError(f"{cfg_path}: cannot read the run config ({exc}); not touching this folder") from exc
            if old.get("kind") != self.config.get("kind"):  # another verb's run: that alone decides
                raise RunError(f"{path}: holds a run of {_kind(old)}, not of {_kind(self.config)}; "
                               "use another --out folder or delete this one")
            stored_budget, old_rest = _split_budget(old, self.budget)
            given_budget, given_rest = _split_budget(self.config, self.budget)
            differences = config_differences(old_rest, given_rest)
            if differences:
                more = f"; and {len(differences) - SHOW_DIFFERENCES} more" if len(differences) > SHOW_DIFFERENCES else ""
                raise RunError(
                    f"{path}: holds a run of a different config ({'; '.join(differences[:SHOW_DIFFERENCES])}{more}); "
                    "use another --out folder or delete this one"
                )
            if not os.access(path, os.W_OK):
                raise RunError(f"{path}: run folder is not writable")
            if stored_budget != given_budget:
                if not self.extend:
                    raise RunError(f"{path}: holds a run of --generations {stored_budget}, given {given_budget}; "
                                   f"add --extend to continue it to {given_budget} generations")
                if given_budget < stored_budget:
                    raise RunError(f"{path}: --extend {given_budget} generations: the run already has a budget of "
                                   f"{stored_budget}; give a larger --generations")
                self.extended_from = stored_budget
                self.write_text("config.json", json.dumps(_with_budget(old, self.budget, given_budget), indent=2,
                                                          sort_keys=True) + "\n")
            self.stored_versions = dict(old.get("versions") or {})
            self.resumed = True
            return
        if path.is_dir() and any(p.name in RUN_FILES or not p.name.startswith(".") for p in path.iterdir()):
            raise RunError(f"{path}: folder is not empty and holds no schedlab run (no config.json); not touching it")
        self.made_folder = not path.exists()
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not os.access(path, os.W_OK):
                raise PermissionError("permission denied")
            atomic_write_text(cfg_path, json.dumps(self.config, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise RunError(f"{path}: cannot write the run folder ({exc.strerror or exc})") from exc
        self.resumed = False
        _FRESH.append(self)

    # ------------------------------------------------------------------ files
    def file(self, name: str) -> Path:
        return self.path / name

    def write_text(self, name: str, text: str) -> None:
        try:
            atomic_write_text(self.path / name, text)
        except OSError as exc:
            raise RunError(f"{self.path / name}: cannot write ({exc.strerror or exc})") from exc

    def load_checkpoint(self) -> dict[str, Any] | None:
        path = self.path / "checkpoint"
        if not path.exists():
            return None
        try:
            with path.open("rb") as fh:
                state = pickle.load(fh)
        except Exception as exc:  # a checkpoint is always written atomically, so this is foreign data
            raise RunError(f"{path}: unreadable checkpoint ({type(exc).__name__}); not touching this folder") from exc
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise RunError(f"{path}: checkpoint of an unknown format; not touching this folder")
        return state

    def save_checkpoint(self, state: dict[str, Any]) -> None:
        state = dict(state, format=CHECKPOINT_FORMAT)
        try:
            atomic_write_bytes(self.path / "checkpoint", pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            raise RunError(f"{self.path / 'checkpoint'}: cannot write ({exc.strerror or exc})") from exc


def history_csv(rows: Sequence[dict[str, Any]], param_names: Sequence[str], extra_names: Sequence[str] = ()) -> str:
    """history.csv text: gen, evaluations, best, median, sigma, elapsed, the ``extra_names`` columns
    (e.g. held-out test scores; empty when undefined), then the best params (repr floats); written by
    the one history writer (:func:`schedlab.optimize.history.history_csv`)."""
    from .history import history_csv as write

    def flat(row: dict[str, Any]) -> dict[str, Any]:
        extra = row.get("extra", {})
        return {**row, **{k: None if extra.get(k) is None else float(extra[k]) for k in extra_names},
                **{n: float(p) for n, p in zip(param_names, row["params"])}}

    return write(map(flat, rows), [*ES_COLUMNS, *extra_names, *param_names])


@dataclass
class RunResult:
    """Outcome of :func:`optimize`: the best solution, the per-generation history, and how it ended."""

    best_x: np.ndarray
    best_f: float
    history: list[dict[str, Any]]
    generations: int
    evaluations: int
    elapsed: float
    interrupted: bool = False
    resumed_from: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Optimizer(Protocol):
    """An ask/tell optimizer of real vectors with one value each (pymoo's ``Algorithm.ask``/``tell``
    is the model), as :class:`ESAskTell` and :func:`optimize` drive it: :class:`~schedlab.optimize.es.SelfAdaptiveES`,
    :class:`~schedlab.optimize.cmaes.CMAES`, :class:`~schedlab.optimize.gfs.SymbioticGFS`.

    It owns all its randomness (a pickled optimizer resumes exactly); ``ask`` returns the
    candidates of the next generation, ``tell`` takes them back with their values (smaller is
    better; not finite = failed) and advances ``generation`` by one and ``evaluations`` by their
    number; ``best_x``/``best_f`` are the best so far, ``lower`` the lower bounds (one per gene)
    and ``state_summary()`` the figures of its state a history shows (``sigma``)."""

    generation: int
    evaluations: int
    #: True when the optimizer's own arithmetic goes through BLAS (:mod:`schedlab._blas`): it replays
    #: bit for bit only under the BLAS kernel that started it; a resume under another kernel says so
    uses_blas: bool = False
    best_x: np.ndarray
    best_f: float
    lower: np.ndarray

    @abstractmethod
    def ask(self) -> Any: ...

    @abstractmethod
    def tell(self, x: Any, f: Any) -> None: ...

    @abstractmethod
    def state_summary(self) -> dict[str, float]: ...


@runtime_checkable
class AskTell(Protocol):
    """What :func:`run_generations` drives: one optimizer and its run state in the loop's terms
    (pymoo's ``Algorithm.ask``/``tell`` is the model). Implemented by :class:`ESAskTell` (every
    :class:`Optimizer`), :class:`schedlab.optimize.bound.BoundAskTell` (NSGA-III over priority orders) and
    :class:`schedlab.optimize.bound_head_start.HeadStartAskTell` (its head start),
    :class:`schedlab.optimize.nsga2_grid.NSGA2AskTell` (NSGA-II over grid partitions),
    :class:`schedlab.optimize.gfs_iterative.IterativeAskTell` (the iterative GFS, one situation class a
    generation) and :class:`schedlab.optimize.federation_ga.PackageGAAskTell` (one package's federation GA).

    ``generation``: generations told so far; ``evaluations``: candidates evaluated so far (the
    loop's :class:`Termination` and progress count from both). ``ask()``: the
    candidates of the next generation (a sequence the executor maps the evaluation over; may be empty);
    ``tell(x, results)``: those candidates with their evaluations' results, in order (one
    generation more); ``row(elapsed)``: the history row of the generation just told;
    ``checkpoint(rows)``: the picklable state that resumes the run exactly after that generation,
    with ``rows`` (the history) in it. All randomness lives in what the checkpoint holds."""

    generation: int
    evaluations: int

    @abstractmethod
    def ask(self) -> Any: ...

    @abstractmethod
    def tell(self, x: Any, results: Sequence[Any]) -> None: ...

    @abstractmethod
    def row(self, elapsed: float) -> dict[str, Any]: ...

    @abstractmethod
    def checkpoint(self, rows: list[dict[str, Any]]) -> dict[str, Any]: ...


@stop_signals()  # SIGTERM (batch systems) stops like Ctrl-C: the one place for every optimizer
def run_generations(
    run: RunFolder,
    adapter: AskTell,
    evaluate: Callable[[Any, Any], Any],
    executor: Any,
    termination: Termination | int,
    rows: list[dict[str, Any]],
    elapsed0: float,
    *,
    write_files: Callable[[list[dict[str, Any]]], None],
    on_generation: Callable[[dict[str, Any]], None] | None = None,
    on_evaluation: Callable[[int, int], None] | None = None,
    checkpoint: CheckpointPolicy = EVERY_GENERATION,
) -> bool:
    """The run loop every optimizer shares: until ``termination`` is done (:class:`Termination`; an
    int: that many generations, i.e. until ``adapter.generation`` reaches it):
    ``adapter.ask()`` -> ``evaluate(payload, x)`` mapped over the candidates by ``executor`` ->
    ``adapter.tell(x, results)`` -> append ``adapter.row(elapsed)`` to ``rows`` ->
    ``write_files(rows)`` -> checkpoint ``adapter.checkpoint(rows)`` (the commit point; when the
    ``checkpoint`` policy says so, default after every generation) -> ``on_generation(row)``; a resumed (or finished) run first reports its last stored row there,
    so a progress display shows the run's figures, not blanks. ``on_evaluation(generation,
    evaluations)`` reports every finished evaluation. Ctrl-C or SIGTERM stops after the last committed generation, whose checkpoint is
    on disk; returns True when stopped so.

    ``adapter`` is an :class:`AskTell` (the protocol says what each member does): it holds an
    ask/tell optimizer and its randomness."""
    termination = Termination.of(termination)
    t0 = time.perf_counter()
    saved_at, saved_gen = t0, adapter.generation

    def done() -> bool:
        return termination.done(LoopState(adapter.generation, adapter.evaluations, elapsed0 + time.perf_counter() - t0))

    try:
        if rows and on_generation is not None:
            on_generation(rows[-1])
        while not done():
            raise_pending()  # a SIGTERM a garbage-collector callback swallowed stops the run here
            x = adapter.ask()
            if not len(x):  # nothing to evaluate this generation (the iterative GFS's unreached class)
                results = []
            elif on_evaluation is not None:
                gen, base = adapter.generation, adapter.evaluations
                tick = lambda k, gen=gen, base=base: on_evaluation(gen, base + k)  # noqa: E731
                results = executor.map(evaluate, list(x), progress=tick)
            else:
                results = executor.map(evaluate, list(x))
            adapter.tell(x, results)
            row = adapter.row(elapsed0 + time.perf_counter() - t0)
            rows.append(row)
            write_files(rows)
            if checkpoint.due(adapter.generation - saved_gen, time.perf_counter() - saved_at, done()):
                run.save_checkpoint(adapter.checkpoint(rows))
                saved_at, saved_gen = time.perf_counter(), adapter.generation
            if on_generation is not None:
                on_generation(row)
    except BaseException as exc:
        if stop_in(exc) is None:
            raise
        return True  # the checkpoint of the last committed generation is already on disk
    return False


class ESAskTell(AskTell):
    """An :class:`Optimizer` (ES, CMA-ES, symbiotic GFS: real vectors, one value each) in :func:`run_generations`'s terms;
    its checkpoint holds the optimizer (incl. its np.random.Generator) and the history."""

    def __init__(self, opt: Optimizer, extra: Callable[[np.ndarray], dict[str, float | None]] | None = None,
                 rows: list[dict[str, Any]] | None = None) -> None:
        self.opt = opt
        self._f = np.empty(0)
        self.extra = extra  # held-out scores of the best so far (optimize()'s ``extra``)
        self.rows = rows if rows is not None else []  # the run's history, for the extra shortcut

    @property
    def generation(self) -> int:
        return self.opt.generation

    @property
    def evaluations(self) -> int:
        return self.opt.evaluations

    def ask(self) -> np.ndarray:
        return self.opt.ask()

    def tell(self, x: np.ndarray, results: Sequence[float]) -> None:
        self._f = np.asarray(results, dtype=np.float64)
        self.opt.tell(x, self._f)

    def row(self, elapsed: float) -> dict[str, Any]:
        opt, fin = self.opt, self._f[np.isfinite(self._f)]
        row: dict[str, Any] = {
            "gen": opt.generation,
            "evaluations": opt.evaluations,
            "best": opt.best_f,
            "median": float(np.median(fin)) if fin.size else math.inf,
            "sigma": opt.state_summary()["sigma"],
            "elapsed": elapsed,
            "params": [float(v) for v in opt.best_x],
        }
        if self.extra is not None:  # same best as the generation before: same (pure) scores
            rows = self.rows
            same = rows and np.array_equal(rows[-1]["params"], row["params"]) and "extra" in rows[-1]
            row["extra"] = dict(rows[-1]["extra"]) if same else self.extra(np.asarray(opt.best_x))
        return row

    def checkpoint(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {"optimizer": self.opt, "history": rows, "elapsed": rows[-1]["elapsed"]}


def blas_change_note(run: RunFolder, opt: Any) -> str | None:
    """The one-line note for a run of a BLAS-dependent optimizer (``uses_blas``) resumed under another
    BLAS kernel than the one it started under (:mod:`schedlab._blas`), else None."""
    from .._blas import blas_kernel

    started, now = run.stored_versions.get("blas"), blas_kernel()
    if not getattr(opt, "uses_blas", False) or started is None or started == now:
        return None
    return (f"note: {run.path} was started under BLAS {started} and resumes under {now}; "
            f"{getattr(opt, 'name', type(opt).__name__)}'s linear algebra rounds the last bit by kernel, so the "
            "resumed run can differ from an uninterrupted one (README, Replays)")


def _note_blas_change(run: RunFolder, opt: Any) -> None:
    note = blas_change_note(run, opt)
    if note is not None:
        print(note, file=sys.stderr, flush=True)


def optimize(
    run: RunFolder,
    new_optimizer: Callable[[], Optimizer],
    evaluate: Callable[[Any, np.ndarray], float],
    executor: Any,
    termination: Termination | int,
    *,
    param_names: Sequence[str] | None = None,
    best_json: Callable[[np.ndarray, float], str] | None = None,
    on_generation: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_evaluation: Callable[[int, int], None] | None = None,
    extra: Callable[[np.ndarray], dict[str, float | None]] | None = None,
    extra_names: Sequence[str] = (),
) -> RunResult:
    """Run (or resume, or extend) ask -> evaluate on ``executor`` -> tell until ``termination`` (a
    :class:`Termination`, or an int: that many generations) is done.

    ``evaluate(payload, x)`` is mapped over the offspring by the executor (pure: same x, same
    value). After every generation history.csv and best.json are rewritten and then the
    checkpoint (the commit point). ``on_evaluation(done_generations, evaluations)`` reports every
    finished evaluation (for progress bars). ``extra(best_x)`` adds columns ``extra_names`` to
    each generation's row (held-out scores of the best so far, :mod:`schedlab.optimize.heldout`):
    computed on the driver after ``tell``, stored in the checkpoint, never shown to the optimizer.
    Ctrl-C or SIGTERM stops after the last complete generation, whose checkpoint is on disk, and
    returns with ``interrupted=True`` (:func:`run_generations`).
    """
    state = run.load_checkpoint()
    if state is None:
        opt = new_optimizer()
        rows: list[dict[str, Any]] = []
        elapsed0 = 0.0
    else:
        opt, rows, elapsed0 = state["optimizer"], list(state["history"]), float(state["elapsed"])
        _note_blas_change(run, opt)
    names = list(param_names) if param_names is not None else [f"x{i}" for i in range(len(opt.lower))]
    resumed_from = len(rows)

    def write_files(rows: list[dict[str, Any]]) -> None:
        run.write_text("history.csv", history_csv(rows, names, extra_names))
        if best_json is not None:
            run.write_text("best.json", best_json(opt.best_x, opt.best_f))

    if rows:  # the files may be one generation ahead of a checkpoint interrupted mid-write
        write_files(rows)
    termination = Termination.of(termination)
    if on_start is not None:  # (total generations or None, generations done)
        on_start(termination.generations, len(rows))
    interrupted = run_generations(run, ESAskTell(opt, extra, rows), evaluate, executor, termination, rows, elapsed0,
                                  write_files=write_files, on_generation=on_generation, on_evaluation=on_evaluation)
    return RunResult(
        best_x=opt.best_x,
        best_f=opt.best_f,
        history=rows,
        generations=opt.generation,
        evaluations=opt.evaluations,
        elapsed=rows[-1]["elapsed"] if rows else 0.0,
        interrupted=interrupted,
        resumed_from=resumed_from,
    )
