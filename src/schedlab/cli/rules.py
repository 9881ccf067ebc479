"""`schedlab rules ...`: rule-based scheduling (genetic-fuzzy-rule-based-scheduling).

``rules iterative`` (Algorithm 2: a table rule base class by class), ``rules evolve`` (symbiotic
evolution of fuzzy rules), ``rules show`` (a rule base readable, and the strategy in force over a
trace as a figure). A rule base file replays with ``schedlab simulate --strategy``,
``schedlab compare --policies FILE.json`` and ``schedlab evolve compare``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..metrics import DEFAULT_OBJECTIVE
from .._moved import moved
from ..report import runs
from .app import stopped, sub_app
from .options import DASK, SEED, SPLIT_MONTHS, TEST, UTIL_GUARD, WORKERS, TraceOptions, check_output, executor_spec, with_trace_options

rules_app = sub_app("rules", "Rule-based scheduling: 7 state features pick one of 13 strategies per event (the paper: "
                             "Franke et al., 'Development of Scheduling Strategies with Genetic Fuzzy Systems').")


STRATEGIES = typer.Option("all", "--strategies", help="strategy set the rules choose from: all (the paper's 13) or "
                          "backfill (the 8 EASY/CONS strategies: no FCFS dispatch, no Greedy)")
SELECT = typer.Option("train", "--select", help="train (the paper: the best training objective) or test (the base with "
                      "the best held-out objective; needs --test or --split-months)")


def _checked(algorithm, traces, objective, opts: TraceOptions, generations, out, *, test=(), split_months=None,
             **settings):
    """Every cheap check before anything is read, compiled or written: the run, set up (options -> Problem ->
    :func:`schedlab.optimize.problem.setup`)."""
    from ..optimize.problem import Problem, setup
    from ..workload.load import resolve_trace

    problem = Problem("rules", [opts.spec(t, split_months=split_months) for t in traces], objective, test=test)
    plan = setup(problem, algorithm, generations, out=out, **settings)
    for trace in (*traces, *test):
        resolve_trace(trace)
    return plan


def _greedy(path):
    """The Greedy strategy's order from a strategy file (None: the default)."""
    from ..errors import StrategyError
    from ..strategy import Greedy
    from ..strategy import rules as R
    from ..strategy.registry import load_strategy_file

    if path is None:
        return R.DEFAULT_GREEDY
    s = load_strategy_file(path)
    if not isinstance(getattr(s, "order", None), Greedy):
        raise StrategyError(f"{path}: --greedy needs a strategy with a greedy order")
    return s.order


def _warm() -> None:
    from ..strategy import Strategy
    from ..strategy import rules as R
    from .compiling import warm_simulation

    warm_simulation(None, None, [Strategy("easy"), R.TableRuleBase()])


#: names that lived here, at their home (a run's report, callable from Python)
__getattr__ = moved(__name__, {"write_report": "schedlab.report.runs:write_rules_report",
                               "_REPORTS": "schedlab.report.runs:RULES_REPORTS"})


def _print_result(result, objective: str, out: Path) -> None:
    from ..optimize.evolve import WORSE_THAN_EASY_PCT
    from .versus_easy import comparison_table, print_wide

    print_wide(comparison_table(result.comparison, f"{result.best.label} vs EASY — {objective}", "rule base",
                           threshold=WORSE_THAN_EASY_PCT))
    typer.echo(f"best objective {result.best_f:.6g} after {result.evaluations} simulations; rule base: {out / 'best.json'}"
               f" (readable: {out / 'rules.txt'})")


@rules_app.command("iterative")
@with_trace_options
def iterative(
    traces: list[str] = typer.Argument(..., help="training trace(s): SWF path or bundled name; several = sum of objectives"),
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised"),
    out: Path = typer.Option(..., "--out", help="run folder (re-running the same command resumes it)"),
    partitions: Optional[Path] = typer.Option(None, "--partitions", help="JSON bounds per feature, e.g. "
                                              "{\"SD\": [2], \"Um\": [75, 85], \"PRCWQ1\": [20], ...} (default: the paper's Table 2, 192 classes)"),
    opts: TraceOptions = None,
    greedy: Optional[Path] = typer.Option(None, "--greedy", help="strategy JSON with a greedy order: the 13th strategy "
                                          "(default: f2 with K = 5,4,3,2,1 and a = 1e-4 /s)"),
    test: list[str] = TEST,
    split_months: Optional[int] = SPLIT_MONTHS,
    strategies: str = STRATEGIES,
    util_guard: Optional[float] = UTIL_GUARD,
    select: str = SELECT,
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
) -> None:
    """Iterative rule base (the paper's Algorithm 2): every situation class tries all 13 strategies in turn, keeping the best."""
    from ..strategy import rules as R

    spec, workers = executor_spec(workers, dask)
    parts = R.load_partitions(partitions) if partitions is not None else R.TABLE2_PARTITIONS
    plan = _checked("iterative", traces, objective, opts, None, out, test=test, split_months=split_months,
                    executor=spec, workers=workers, strategies=strategies, util_guard=util_guard, select=select,
                    partitions=parts, greedy=_greedy(greedy))
    _warm()
    from .progress import RunProgress

    bar = RunProgress("class")
    try:
        result = plan.run(on_start=lambda total, done: bar.start("iterative", total, done),
                          on_class=lambda row: bar.step("iterative", f"best {row['objective']:.6g}",
                                                        done=row["class"] + 1, elapsed=row.get("elapsed"))).result
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    runs.write_rules_report(result)
    _print_result(result, objective, out)


@rules_app.command("evolve")
@with_trace_options
def evolve(
    traces: list[str] = typer.Argument(..., help="training trace(s): SWF path or bundled name; several = sum of objectives"),
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="objective over the metrics, minimised"),
    out: Path = typer.Option(..., "--out", help="run folder (re-running the same command resumes it)"),
    generations: int = typer.Option(100, "--generations", help="generations (70 rule-base simulations each by default)"),
    rules: int = typer.Option(50, "--rules", help="rules per base N_r"),
    mu: int = typer.Option(50, "--mu", help="parent rules"),
    lam: int = typer.Option(350, "--lambda", help="offspring rules per generation"),
    participations: int = typer.Option(10, "--participations", help="bases each rule takes part in, N_s"),
    rho: int = typer.Option(12, "--rho", help="parents of each offspring rule: \"a single new offspring is recombined "
                            "from rho = 12 parents\"; \"We select rho/2 = 6 parents with a very high degree of "
                            "similarity and the remaining rho/2 = 6 parents randomly\" (the paper's Section 4.3.2); "
                            "2 <= rho <= --mu and --lambda"),
    clusters: int = typer.Option(10, "--clusters", help="k of the selection by clusters: \"Determine k clusters ... "
                                 "based on their GMF-mu-values\" (the paper's Algorithm 4); \"we have chosen k = 10\" (the paper's Section 4.2.5)"),
    cluster_best: int = typer.Option(5, "--cluster-best", help="n of the selection by clusters: \"n represents the "
                                     "number of individuals that are used to determine the mean of the fitness of "
                                     "individuals in all clusters\" (the paper's Algorithm 4); \"and n = 5\" (the paper's Section 4.2.5)"),
    seed: int = SEED,
    opts: TraceOptions = None,
    greedy: Optional[Path] = typer.Option(None, "--greedy", help="strategy JSON with a greedy order: the 13th strategy "
                                          "(default: f2 with K = 5,4,3,2,1 and a = 1e-4 /s)"),
    test: list[str] = TEST,
    split_months: Optional[int] = SPLIT_MONTHS,
    strategies: str = STRATEGIES,
    util_guard: Optional[float] = UTIL_GUARD,
    select: str = SELECT,
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
) -> None:
    """Symbiotic evolution of Gaussian fuzzy rules (the paper's Sections 4.2-4.3) for OBJECTIVE on the training TRACES."""
    from .progress import EvaluationProgress

    if generations < 1:
        from .options import OptionError

        raise OptionError("--generations must be a positive whole number")
    spec, workers = executor_spec(workers, dask)
    plan = _checked("symbiotic", traces, objective, opts, generations, out, test=test, split_months=split_months,
                    executor=spec, workers=workers, seed=seed, strategies=strategies, util_guard=util_guard,
                    select=select, rules=rules, mu=mu, lam=lam, participations=participations, rho=rho, k=clusters,
                    n_best=cluster_best, greedy=_greedy(greedy))
    from ..strategy import rules as R
    from .compiling import warm_simulation
    from ..strategy import Strategy

    warm_simulation(None, None, [Strategy("easy"), R.TableRuleBase(),
                                 R.FuzzyRuleBase([[50.0] * 7], [[10.0] * 7], [[0.0] * 13])])
    bar = EvaluationProgress(plan.settings.bases)
    try:
        result = plan.run(on_start=lambda total, done: bar.start("symbiotic", total, done),
                          on_generation=lambda row: bar.step("symbiotic", row),
                          on_evaluation=lambda g, e: bar.tick("symbiotic", g, e)).result
    finally:
        bar.stop()
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    runs.write_rules_report(result)
    _print_result(result, objective, out)


@rules_app.command("show")
@with_trace_options
def show(
    rulebase: Path = typer.Argument(..., help="rule base JSON (best.json of a rules run)"),
    trace: Optional[str] = typer.Argument(None, help="simulate it on this trace for --plot"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="PNG: the strategy in force over the trace's time"),
    opts: TraceOptions = None,
) -> None:
    """Print a rule base readably; with TRACE and --plot, draw which strategy was in force over time."""
    from ..errors import SchedlabError
    from ..strategy import rules as R

    rb = R.load_rulebase(rulebase)
    if plot is not None and trace is None:
        raise SchedlabError("--plot needs a TRACE to simulate the rule base on")
    if plot is not None:
        check_output(plot, "plot")
    typer.echo(rb.render())
    if trace is not None:
        from ..report.rules_plot import strategy_timeline
        from ..sim.rulebase import simulate_rulebase

        w = opts.load(trace)
        s = simulate_rulebase(w, w.machine_procs, rb, record_features=True)
        share = ", ".join(f"{k} {100 * v:.1f} %" for k, v in sorted(s.plan.share().items(), key=lambda kv: -kv[1]))
        typer.echo(f"{w.name}: {s.plan.times.size} passes; strategies in force: {share}")
        if plot is not None:
            from ..report.run_report import titled
            from .options import echo_wrote

            echo_wrote([strategy_timeline(s.plan, plot, title=f"{titled(w.name, opts.to_dict())}: strategy in force ({rb.label})")])
