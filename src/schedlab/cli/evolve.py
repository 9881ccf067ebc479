"""`schedlab evolve greedy` (optimize greedy sorting criteria) and `schedlab evolve compare` (vs EASY)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from ..metrics import DEFAULT_OBJECTIVE
from ..strategy.registry import OPTIMIZERS
from .app import stopped, sub_app
from .options import (AS_JSON, DASK, EXTEND, SEED, SLURM_OPTION, SLURM_SHARES, SPLIT_MONTHS, TEST, UTIL_GUARD, WORKERS, TraceOptions,
                      executor_spec, with_trace_options)
from ..strategy.policies import DEFAULT_GREEDY
from ..strategy.registry import load_strategy_file
from .._moved import moved
from ..report import runs
from .policies import PLUGIN
from .progress import EvaluationProgress
from .versus_easy import (MAX_GROUP_RATIO, MAX_UTIL_DROP, check_guards, check_threshold, comparison_table, gate, mark_guards,
                          print_wide, wide_console)

evolve_app = sub_app("evolve", "Evolve scheduling strategies for an owner's objective (the paper: Franke, Lepping, "
                               "Schwiegelshohn, 'Greedy Scheduling with Complex Objectives').")

_err = Console(stderr=True)


THRESHOLD = typer.Option(5.0, "--threshold", help="flag workloads where the strategy's objective is worse than EASY's by more than PCT %", metavar="PCT")
FAIL_WORSE_THAN = typer.Option(None, "--fail-worse-than", metavar="PCT",
                               help="exit with code 1 when on any workload the objective is worse than EASY's by more than PCT % (a deployment gate)")


TRAINING_TRACES = typer.Argument(..., help="training trace(s): SWF path or bundled name; several = sum of objectives")
OBJECTIVE = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised")
RUN_OUT = typer.Option(..., "--out", help="run folder (re-running the same command resumes it; with --extend and a larger --generations it continues a finished run)")
OPTIMIZER_HELP = "; ".join(f"{o.name}: {o.help}" for o in OPTIMIZERS if o.box)
#: names that lived here, at their home (a run's report, callable from Python)
__getattr__ = moved(__name__, {"write_report": "schedlab.report.runs:write_evolve_report",
                               "write_slurm_report": "schedlab.report.runs:write_slurm_report"})


def _preparing(fn):
    """Run the preparation ``fn`` of a training run, saying so while it lasts (full traces: tens of seconds)."""
    from .compiling import say_while

    return say_while("preparing the workloads (reading the traces, user groups, EASY's schedules)", fn)[0]


@evolve_app.command("greedy")
@with_trace_options
def greedy(
    traces: list[str] = TRAINING_TRACES,
    objective: str = OBJECTIVE,
    out: Path = RUN_OUT,
    generations: int = typer.Option(100, "--generations", help="generations (per system for --procedure paper)"),
    mu: int = typer.Option(15, "--mu", help="parents"),
    lam: int = typer.Option(105, "--lambda", help="offspring per generation"),
    optimizer: str = typer.Option("es", "--optimizer", help=OPTIMIZER_HELP),
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
    util_guard: Optional[float] = UTIL_GUARD,
) -> None:
    """Evolve the parameters of the greedy sorting criteria for OBJECTIVE on the training TRACES."""
    from ..optimize.evolve import WORSE_THAN_EASY_PCT
    from ..optimize.problem import Problem, setup
    from ..strategy import Strategy
    from .compiling import warm_simulation

    spec, workers = executor_spec(workers, dask)
    problem = Problem("greedy", [opts.spec(t, split_months=split_months) for t in traces], objective, test=test)
    plan = setup(problem, optimizer, generations, out=out, executor=spec, workers=workers, seed=seed, extend=extend,
                 mu=mu, lam=lam, procedure=procedure, gene_scale=gene_scale, dispatch=dispatch, util_guard=util_guard)
    from ..workload.load import resolve_trace

    for trace in (*traces, *test):
        resolve_trace(trace)
    warm_simulation(None, None, [Strategy("easy"), Strategy.greedy(DEFAULT_GREEDY)])
    bar = EvaluationProgress(lam)
    try:
        result = plan.run(on_start=bar.start, on_generation=bar.step, on_evaluation=bar.tick, preparing=_preparing).result
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    runs.write_evolve_report(result)
    print_wide(comparison_table(result.comparison, f"{result.best.label} vs EASY — {objective}",
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
    max_util_drop: Optional[float] = MAX_UTIL_DROP,
    max_group_ratio: Optional[float] = MAX_GROUP_RATIO,
    as_json: bool = AS_JSON,
) -> None:
    """Apply a trained strategy to other workloads: % improvement over EASY per workload and metric (as the paper's Figs. 2-3).

    Workloads where the strategy's objective is worse than EASY's by more than --threshold % of |EASY| are
    flagged, and those where UTIL falls more than 1 point below EASY's or a user group's AWRT is more than
    twice EASY's are marked (COLLATERAL); with --fail-worse-than PCT the command exits 1 when any workload is
    worse by more than PCT %, with --max-util-drop / --max-group-ratio when the collateral crosses them."""
    import json

    from ..optimize.evolve import EvolveConfig, compare_with_easy, load_training

    from ..optimize.versus_easy import worse_than

    check_threshold(threshold, fail_worse_than)
    check_guards(max_util_drop, max_group_ratio)
    chosen = load_strategy_file(strategy)
    config = EvolveConfig(traces=tuple(traces), objective=objective, trace_spec=opts.spec())
    obj = config.objective
    workloads, machines = load_training(config)
    rows = compare_with_easy(chosen, workloads, machines, obj, threshold=threshold)
    worse = [r["workload"] for r in rows
             if fail_worse_than is not None and worse_than(r["objective_easy"], r["objective"], fail_worse_than)]
    guarded = [f"{r['workload']}: {text}" for r in rows for text in mark_guards(r, max_util_drop, max_group_ratio)]
    if as_json:
        doc = {"strategy": chosen.label, "strategy_file": str(strategy), "objective_expression": str(obj),
               "trace_options": opts.to_dict(), "threshold_pct": threshold,
               "worse_than_easy": [r["workload"] for r in rows if r["worse_than_easy"]],
               "collateral": {r["workload"]: r["collateral"] for r in rows if r["collateral"]}, "rows": rows}
        typer.echo(json.dumps(doc, allow_nan=False))
    else:
        print_wide(comparison_table(rows, f"{chosen.label} vs EASY — {objective}", threshold=threshold))
    gate(worse, fail_worse_than, guarded)


@evolve_app.command("slurm")
@with_trace_options
def slurm(
    traces: list[str] = TRAINING_TRACES,
    slurm_conf: Path = typer.Option(..., "--slurm-conf", help="the site's current slurm.conf excerpt (Priority*, SchedulerParameters, NodeName, PartitionName lines): the search starts there and the report compares with it"),
    objective: str = OBJECTIVE,
    out: Path = RUN_OUT,
    generations: int = typer.Option(30, "--generations", help="generations"),
    mu: int = typer.Option(6, "--mu", help="parents"),
    lam: int = typer.Option(12, "--lambda", help="offspring per generation"),
    optimizer: str = typer.Option("cmaes", "--optimizer", help=OPTIMIZER_HELP),
    params: Optional[str] = typer.Option(None, "--params", metavar="NAME,...", help="search only these parameters (default: all of schedlab.slurm.tuning.SPACE; the others keep the site's value); also a partition's PART:PriorityJobFactor|PriorityTier|MaxTime and a user group's QOS limit ugK:MaxJobsPU|GrpTRES=cpu|GrpTRES=gres/gpu|MaxTRESPU=cpu"),
    seed: int = SEED,
    opts: TraceOptions = None,
    slurm_shares: Optional[Path] = SLURM_SHARES,
    slurm_qos: Optional[Path] = typer.Option(None, "--slurm-qos", help="the site's QOS priorities and limits, a 'sacctmgr -P show qos' dump: the search starts from the user groups' QOS (ug1..ug5) there; --params ugK:MaxJobsPU etc. tune their limits (written to sacctmgr.sh and qos.tuned.txt)"),
    slurm_option: Optional[str] = SLURM_OPTION,
    test: list[str] = TEST,
    split_months: Optional[int] = SPLIT_MONTHS,
    greedy: Optional[Path] = typer.Option(None, "--greedy", help="an evolved greedy strategy (best.json of 'evolve greedy') the report compares too"),
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
    extend: bool = EXTEND,
) -> None:
    """Tune the site's own Slurm settings (priority weights, PriorityDecayHalfLife, PriorityMaxAge,
    bf_window, bf_max_job_test, the QOS priority of each user group) for OBJECTIVE on the training
    TRACES; the run folder gets slurm.conf.fragment, sacctmgr.sh and a report against the current
    configuration and EASY."""
    from ..optimize.evolve_slurm import base_policy, comparison_table_rows
    from ..optimize.problem import Problem, setup
    from ..workload.load import resolve_trace

    spec, workers = executor_spec(workers, dask)
    problem = Problem("slurm", [opts.spec(t, split_months=split_months) for t in traces], objective, test=test)
    chosen = load_strategy_file(greedy) if greedy is not None else None
    plan = setup(problem, optimizer, generations, out=out, executor=spec, workers=workers, seed=seed, extend=extend,
                 slurm_conf=str(slurm_conf), mu=mu, lam=lam, params=params, slurm_option=slurm_option,
                 slurm_shares=None if slurm_shares is None else str(slurm_shares), greedy=chosen,
                 **({} if slurm_qos is None else {"slurm_qos": str(slurm_qos)}))
    base, _ = base_policy(plan.config)
    for line in base.conf.ignored:
        typer.echo(f"ignored: {line}", err=True)
    for trace in (*traces, *test):
        resolve_trace(trace)
    bar = EvaluationProgress(lam)
    try:
        result = plan.run(on_start=bar.start, on_generation=bar.step, on_evaluation=bar.tick).result
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    runs.write_slurm_report(result)
    from rich.markup import escape
    from rich.table import Table

    head, cells = comparison_table_rows(result.comparison)
    table = Table(title=f"Slurm: current vs tuned vs EASY — {objective}")
    for h in head:
        table.add_column(h, justify="left" if h in ("set", "workload", "schedule") else "right",
                         overflow="fold" if h == "workload" else "ellipsis")  # a name wraps, never cut
    for i, row in enumerate(cells):
        table.add_row(*map(escape, row), end_section=i + 1 == len(cells) or cells[i + 1][:2] != row[:2])
    wide_console().print(table)
    typer.echo(f"best objective {result.best_f:.6g} after {result.run.evaluations} evaluations; "
               f"apply {out / 'slurm.conf.fragment'} and {out / 'sacctmgr.sh'}")
