"""`schedlab evolve greedy` (optimize greedy sorting criteria) and `schedlab evolve compare` (vs EASY)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from ..metrics import DEFAULT_OBJECTIVE
from ..strategy.registry import OPTIMIZERS
from .app import stopped, sub_app
from .options import AS_JSON, DASK, EXTEND, SEED, SPLIT_MONTHS, TEST, WORKERS, TraceOptions, executor_spec, with_trace_options
from .policies import DEFAULT_GREEDY, PLUGIN, load_strategy_file
from .progress import EvaluationProgress
from .versus_easy import check_threshold, comparison_table, gate, wide_console

evolve_app = sub_app("evolve", "Evolve scheduling strategies for an owner's objective (the paper: Franke, Lepping, "
                               "Schwiegelshohn, 'Greedy Scheduling with Complex Objectives').")

_err = Console(stderr=True)


THRESHOLD = typer.Option(5.0, "--threshold", help="flag workloads where the strategy's objective is worse than EASY's by more than PCT %", metavar="PCT")
FAIL_WORSE_THAN = typer.Option(None, "--fail-worse-than", metavar="PCT",
                               help="exit with code 1 when on any workload the objective is worse than EASY's by more than PCT % (a deployment gate)")


def write_report(result) -> None:
    """report.html of a finished ``evolve greedy`` run (:class:`schedlab.optimize.evolve.EvolveResult`)
    with its schedule plots: EASY vs the evolved strategy on the first training trace."""
    from ..optimize.evolve import schedule_tables
    from ..report.run_report import write_run_report
    from ..report.schedule_plots import write_schedule_plots

    w, m = result.training.workloads[0], result.training.machines[0]
    paths = write_schedule_plots(schedule_tables(result.best, w, m), m.procs, result.run_dir,
                                 title=f"{w.name}: EASY vs the evolved strategy", prefix="schedule_")
    write_run_report(result.run_dir, result.config, {k: r.history for k, r in result.runs.items()}, result.comparison,
                     result.best, schedule_plots=[p.name for p in paths])


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
    bar = EvaluationProgress(lam)
    try:
        result = evolve_greedy(config, out, executor_spec=spec, workers=workers, on_start=bar.start, on_generation=bar.step,
                               on_evaluation=bar.tick, extend=extend)
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    write_report(result)
    wide_console().print(comparison_table(result.comparison, f"{result.best.label} vs EASY — {objective}",
                                          threshold=WORSE_THAN_EASY_PCT))
    typer.echo(f"best objective {result.best_f:.6g} after {result.evaluations} evaluations; best strategy: {out / 'best.json'}")


@evolve_app.command("compare")
@with_trace_options
def compare(
    strategy: Path = typer.Argument(..., help="trained strategy (best.json of a run, or any rigid strategy file)"),
    traces: list[str] = typer.Argument(..., help="workloads to apply it to"),
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised"),
    plugin: list[Path] = PLUGIN,
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
        wide_console().print(comparison_table(rows, f"{chosen.label} vs EASY — {objective}", threshold=threshold))
    gate(worse, fail_worse_than)
