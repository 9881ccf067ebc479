"""`schedlab evolve greedy` (optimize greedy sorting criteria) and `schedlab evolve compare` (vs EASY)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from ..errors import SchedlabError
from ..metrics import DEFAULT_OBJECTIVE
from ..strategy.registry import OPTIMIZERS
from .main import stopped, sub_app
from .options import AS_JSON, DASK, EXTEND, SEED, SPLIT_MONTHS, TEST, WORKERS, TraceOptions, executor_spec, with_trace_options

evolve_app = sub_app("evolve", "Evolve scheduling strategies for an owner's objective (the paper: Franke, Lepping, "
                               "Schwiegelshohn, 'Greedy Scheduling with Complex Objectives').")

_err = Console(stderr=True)


def _out() -> Console:
    """stdout console at least 140 columns wide, so the comparison table never truncates numbers."""
    width = Console().width
    return Console(width=max(width, 140))


class _Progress:
    """evolve's and ``rules evolve``'s callbacks on the shared renderer (:class:`.progress.RunProgress`):
    generation, evaluations, best objective, ETA per (sub-)run."""

    def __init__(self, lam: int) -> None:
        from .progress import RunProgress

        self.lam = lam
        self.view = RunProgress()

    def stop(self) -> None:
        self.view.stop()

    def start(self, label: str, total: int, done: int) -> None:
        self.view.start(label, total, done)

    def tick(self, label: str, generations: int, evaluations: int) -> None:
        """One more evaluation finished: advance by a fraction of a generation (smooth ETA)."""
        in_flight = evaluations - generations * self.lam
        self.view.advance(label, generations + in_flight / self.lam)

    def step(self, label: str, row: dict[str, Any]) -> None:
        self.view.step(label, f"evals {row['evaluations']}  best {row['best']:.6g}", done=row["gen"],
                       elapsed=row.get("elapsed"))


def _comparison_table(rows: list[dict[str, Any]], title: str, label: str = "strategy",
                      threshold: float | None = None) -> Table:
    """``label`` (the strategy), EASY and improvement rows per workload; ``set`` (train/test) when the
    rows have it, and a flag on workloads where the strategy is worse than EASY by more than ``threshold`` %."""
    table = Table(title=title)
    table.add_column("workload")
    sets = any("set" in r for r in rows)
    if sets:
        table.add_column("set")
    table.add_column("schedule")
    cols = ["objective", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL"]
    for c in cols:
        table.add_column(c, justify="right")
    table.add_column("vs EASY")
    from ..report.table import fixed

    fmt = lambda v: "-" if v is None else fixed(v)  # noqa: E731
    for r in rows:
        lead = [r.get("set", "")] if sets else []
        table.add_row(r["workload"], *lead, label, *(fmt(r.get(c)) for c in cols), "")
        table.add_row("", *([""] if sets else []), "EASY", *(fmt(r.get(f"{c}_easy")) for c in cols), "")
        imp = [r.get(f"{c}_improvement_pct") for c in cols[:-1]] + [r.get("UTIL_diff_points")]
        flag = (f"[bold red]WORSE > {threshold:g} %[/]" if r.get("worse_than_easy") else "ok") if threshold is not None else ""
        table.add_row("", *([""] if sets else []), "improvement %", *(fmt(v) for v in imp), flag, end_section=True)
    return table


THRESHOLD = typer.Option(5.0, "--threshold", help="flag workloads where the strategy's objective is worse than EASY's by more than PCT %", metavar="PCT")
FAIL_WORSE_THAN = typer.Option(None, "--fail-worse-than", metavar="PCT",
                               help="exit with code 1 when on any workload the objective is worse than EASY's by more than PCT % (a deployment gate)")


class GateError(SchedlabError, ValueError):
    """A ``--fail-worse-than`` gate that cannot be evaluated (an undefined objective): exit 2, never a pass."""


def check_threshold(threshold: float, fail_worse_than: float | None) -> None:
    """Both thresholds are finite percentages >= 0 (checked before anything runs)."""
    import math

    from .options import OptionError

    for name, v in (("--threshold", threshold), ("--fail-worse-than", fail_worse_than)):
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise OptionError(f"{name} must be a percentage >= 0, got {v:g}")


def gate_objective(objective, metrics, easy, who: str, fail_worse_than: float | None) -> float | None:
    """``objective`` of ``who``'s ``metrics`` (``easy``: EASY's metrics, for ``EASY_*`` names and as the
    baseline). A term can be undefined (AWRT3 when user group 3 has no jobs): without a gate the value
    is None and a warning line says why; a gate (``--fail-worse-than``) that cannot evaluate fails, with
    one line naming the undefined term and ``who`` (exit 2), as ``evolve compare`` does."""
    from ..errors import SchedlabError

    try:
        return objective(metrics, easy, who=who)
    except SchedlabError as exc:
        if fail_worse_than is not None:
            raise GateError(f"--fail-worse-than {fail_worse_than:g} cannot be evaluated: {exc}") from None
        typer.echo(f"warning: {exc}", err=True)
        return None


def gate(worse: list[str], fail_worse_than: float | None) -> None:
    """Exit 1 naming the workloads when the gate ``--fail-worse-than`` failed."""
    if fail_worse_than is not None and worse:
        typer.echo(f"worse than EASY by more than {fail_worse_than:g} % on: {', '.join(worse)}", err=True)
        raise typer.Exit(1)


@evolve_app.command("greedy")
@with_trace_options
def greedy(
    traces: list[str] = typer.Argument(..., help="training trace(s): SWF path or bundled name; several = sum of objectives"),
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised"),
    out: Path = typer.Option(..., "--out", help="run folder (re-running the same command resumes it; with --extend and a larger --generations it continues a finished run)"),
    generations: int = typer.Option(100, "--generations", help="generations (per system for --procedure paper)"),
    mu: int = typer.Option(15, "--mu", help="parents"),
    lam: int = typer.Option(105, "--lambda", help="offspring per generation"),
    optimizer: str = typer.Option("es", "--optimizer", help="; ".join(f"{o.name}: {o.help}" for o in OPTIMIZERS)),
    seed: int = SEED,
    opts: TraceOptions = None,
    dispatch: str = typer.Option("fcfs", "--dispatch", help="dispatch under the greedy order: fcfs (paper), easy (EASY backfilling: no starvation), or search (the ES chooses)"),
    test: list[str] = TEST,
    split_months: Optional[int] = SPLIT_MONTHS,
    procedure: str = typer.Option("free", "--procedure", help="free (criterion per class searched), paper (4 runs + best of 64), or f1..f4 (that criterion in every class)"),
    gene_scale: str = typer.Option("linear", "--gene-scale", help="linear (paper) or log: genes of a, b spread over decades"),
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
    extend: bool = EXTEND,
) -> None:
    """Evolve the parameters of the greedy sorting criteria for OBJECTIVE on the training TRACES."""
    from ..optimize.evolve import WORSE_THAN_EASY_PCT, EvolveConfig, evolve_greedy
    from ..strategy import Strategy
    from .compiling import warm_simulation
    from .simulate import DEFAULT_GREEDY

    spec, workers = executor_spec(workers, dask)
    config = EvolveConfig(
        traces=tuple(traces), objective=objective, generations=generations, mu=mu, lam=lam, optimizer=optimizer,
        seed=seed, procedure=procedure, gene_scale=gene_scale, dispatch=dispatch, test=tuple(test),
        split_months=split_months, **opts.settings(),
    )
    from ..metrics import Objective
    from ..workload.load import resolve_trace

    Objective(objective)  # cheap mistakes first: no compile wait before a typo's error
    for trace in (*traces, *test):
        resolve_trace(trace)
    warm_simulation(None, None, [Strategy("easy"), Strategy.greedy(DEFAULT_GREEDY)])
    bar = _Progress(lam)
    try:
        result = evolve_greedy(config, out, executor_spec=spec, workers=workers, on_start=bar.start, on_generation=bar.step,
                               on_evaluation=bar.tick, extend=extend)
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    _out().print(_comparison_table(result.comparison, f"{result.best.label} vs EASY — {objective}",
                                   threshold=WORSE_THAN_EASY_PCT))
    typer.echo(f"best objective {result.best_f:.6g} after {result.evaluations} evaluations; best strategy: {out / 'best.json'}")


@evolve_app.command("compare")
@with_trace_options
def compare(
    strategy: Path = typer.Argument(..., help="trained strategy (best.json of a run)"),
    traces: list[str] = typer.Argument(..., help="workloads to apply it to"),
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised"),
    opts: TraceOptions = None,
    threshold: float = THRESHOLD,
    fail_worse_than: Optional[float] = FAIL_WORSE_THAN,
    as_json: bool = AS_JSON,
) -> None:
    """Apply a trained strategy to other workloads: % improvement over EASY per workload and metric (as the paper's Figs. 2-3).

    Workloads where the strategy's objective is worse than EASY's by more than --threshold % are
    flagged; with --fail-worse-than PCT the command exits 1 when any workload is worse by more than PCT %."""
    import json

    from ..optimize.evolve import EvolveConfig, compare_with_easy, load_training
    from .simulate import load_strategy_file

    check_threshold(threshold, fail_worse_than)
    chosen = load_strategy_file(strategy)
    from ..metrics import Objective

    obj = Objective(objective)
    config = EvolveConfig(traces=tuple(traces), objective=objective, **opts.settings())
    workloads, machines = load_training(config)
    rows = compare_with_easy(chosen, workloads, machines, objective, threshold=threshold)
    gated = fail_worse_than if fail_worse_than is not None else threshold
    worse = [r["workload"] for r in rows if r["objective_improvement_pct"] is not None and r["objective_improvement_pct"] < -gated]
    if as_json:
        doc = {"strategy": chosen.label, "strategy_file": str(strategy), "objective_expression": str(obj),
               "trace_options": opts.to_dict(), "threshold_pct": threshold,
               "worse_than_easy": [r["workload"] for r in rows if r["worse_than_easy"]], "rows": rows}
        typer.echo(json.dumps(doc, allow_nan=False))
    else:
        _out().print(_comparison_table(rows, f"{chosen.label} vs EASY — {objective}", threshold=threshold))
    gate(worse, fail_worse_than)
