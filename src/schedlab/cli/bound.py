"""`schedlab bound TRACE --out RUN`: the offline Pareto front of a trace; `schedlab bound plot RUN`:
strategies placed on its projection (greedy-es-sorting-criteria Figs. 4-5)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .app import app, stopped
from .options import DASK, EXTEND, SEED, TRACE_HELP, WORKERS, OptionError, TraceOptions, executor_spec, with_trace_options
from .policies import PLUGIN


@app.command("bound")
@with_trace_options
def bound_command(
    target: str = typer.Argument(..., metavar="TRACE|plot", help=f"{TRACE_HELP} Or 'plot' to place strategies on the front of RUN."),
    run_dir: Optional[Path] = typer.Argument(None, help="With 'plot': the bound RUN folder."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder; required for a TRACE (re-running the same command resumes it). With 'plot': the folder for the chart and its placement JSON (default: RUN), e.g. to place another paper's strategies on a committed front without touching it."),
    generations: int = typer.Option(50, "--generations", help="NSGA-III generations (generation 1 = the seeded population)."),
    pop: int = typer.Option(40, "--pop", help="Population size (= number of reference directions)."),
    seed: int = SEED,
    seed_strategy: List[Path] = typer.Option([], "--seed-strategy", help="Strategy file (e.g. an evolve run's best.json) whose realised order joins the initial population; repeat for several."),
    moves: int = typer.Option(1, "--moves", help="Mutation moves per offspring (insertion, swap, group shift, group move), applied one after the other."),
    head_start: int = typer.Option(0, "--head-start", help="Improve EASY's and the seed strategies' realised orders by this many greedy local-search steps per chain before the search (0: off)."),
    sigma: float = typer.Option(50.0, "--sigma", help="Mutation step: typical distance, in positions of the job order, that an insertion, swap or group shift moves a job (not federation's --sigma)."),
    block: int = typer.Option(50, "--block", help="Largest block of a group shift (jobs of one user group)."),
    window: int = typer.Option(500, "--window", help="Window (positions) of a group move."),
    extend: bool = EXTEND,
    opts: TraceOptions = None,
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
    with_: List[str] = typer.Option([], "--with", help="With 'plot': strategies to place (easy, POLICY/ORDER, greedy, or FILE.json); repeat."),
    plugin: List[Path] = PLUGIN,
    x: str = typer.Option("AWRT1", "--x", help="With 'plot': objective on the x axis (UTIL, AWRT, AWRT1..AWRT5)."),
    y: str = typer.Option("AWRT2", "--y", help="With 'plot': objective on the y axis."),
    trace: Optional[str] = typer.Option(None, "--trace", help="With 'plot': the trace, when the path in the run's config.json does not exist here."),
) -> None:
    """Approximate the offline Pareto front of all feasible schedules of TRACE over UTIL, AWRT, AWRT1..5
    (NSGA-III over job priority orders decoded by a clairvoyant list scheduler); writes front.csv,
    history.csv (hypervolume per generation), hypervolume.png. 'bound plot RUN --with easy --with
    best.json' places strategies on the (--x, --y) projection (front_X_Y.png in RUN)."""
    if target == "plot":
        return _plot(run_dir, with_, x, y, trace, out)
    if run_dir is not None:
        raise OptionError(f"unexpected second argument {str(run_dir)!r}; give one TRACE (or 'plot RUN')")
    if out is None:
        raise OptionError("missing --out RUN: the run folder for the front")
    from ..optimize.problem import Problem, setup
    from ..workload.load import resolve_trace

    spec, workers = executor_spec(workers, dask)
    if moves < 1:
        raise OptionError(f"--moves must be at least 1, got {moves}")
    if head_start < 0:
        raise OptionError(f"--head-start must be >= 0 steps, got {head_start}")
    plan = setup(Problem("bound", [opts.spec(target)], None), "nsga3", generations, out=out, executor=spec,
                 workers=workers, seed=seed, extend=extend, pop=pop, moves=moves, head_start=head_start, sigma=sigma,
                 block=block, window=window, seed_strategies=tuple(str(p) for p in seed_strategy))  # checks the rest
    resolve_trace(target)
    from .progress import RunProgress

    progress = RunProgress()

    def step(row: dict) -> None:
        progress.step("front", f"evals {row['evaluations']}  front {row['front']}  HV {row['hypervolume']:.4f}",
                      done=row["gen"], elapsed=row.get("elapsed"))

    try:
        result = plan.run(on_generation=step, on_start=lambda total, done: progress.start("front", total, done)).result
    finally:
        progress.stop()
    if result.history:  # also when stopped: the folder then shows the run so far
        from ..report.bound_plot import hypervolume_figure
        from ..report.run_report import titled

        hypervolume_figure(result.history, out / "hypervolume.png", setup=titled(result.workload_name, result.config))
    if result.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    last = result.history[-1] if result.history else {}
    typer.echo(f"front of {len(result.archive.F)} schedules after {result.evaluations} evaluations "
               f"({last.get('elapsed', 0.0):.1f} s); hypervolume {last.get('hypervolume', 0.0):.4f}; "
               f"{out / 'front.csv'}")


def _plot(run_dir: Optional[Path], strategies: List[str], x: str, y: str, trace: Optional[str],
          out: Optional[Path] = None) -> None:
    from ..metrics import compute_metrics
    import json

    from .._atomic import atomic_write_text
    from ..optimize.bound import OBJECTIVES, BoundProblem, placement, read_front, workload_of, zero_wait_floors
    from ..optimize.settings import stored_trace_spec
    from ..report.bound_plot import front_figure
    from ..report.run_report import titled
    from ..sim import Machine
    from ..sim.strategies import simulate_any  # a policy or a strategy file of any kind
    from ..strategy.registry import parse_policy

    if run_dir is None:
        raise OptionError("bound plot needs the RUN folder: schedlab bound plot RUN --with easy")
    for name, v in (("--x", x), ("--y", y)):
        if v not in OBJECTIVES:
            raise OptionError(f"{name} {v!r}: choose one of {', '.join(OBJECTIVES)}")
    # a strategy file is labelled by its run folder (RUN/best.json -> RUN), a policy by its name
    chosen = [(Path(s).parent.name if s.endswith(".json") and Path(s).parent.name else s, parse_policy(s, engines=False))
              for s in strategies]
    cfg, front = read_front(run_dir)
    w = workload_of(stored_trace_spec(cfg, trace or cfg["trace"]))
    from ..optimize.evolve import workload_fingerprint

    if workload_fingerprint(w) != cfg.get("data_sha256"):
        raise OptionError(f"{trace or cfg['trace']}: not the data the front of {run_dir} was computed on")
    m = Machine(w.machine_procs)
    placed = {}
    for label, strategy in chosen:
        metrics = compute_metrics(simulate_any(w, m, strategy))
        placed[label] = {k: float(metrics[k]) for k in OBJECTIVES}
    floors = zero_wait_floors(BoundProblem.of(w, m))
    dest = Path(out) if out is not None else Path(run_dir)
    dest.mkdir(parents=True, exist_ok=True)
    path = front_figure(front, OBJECTIVES, x, y, placed, dest / f"front_{x}_{y}.png",
                        title=f"{titled(w.name or 'trace', cfg)}: {len(w):,} jobs on {m.procs:,} processors", floors=floors)
    places = {label: placement(front, OBJECTIVES, x, y, metrics) for label, metrics in placed.items()}
    doc = {"x": x, "y": y, "front_schedules": int(len(front)), "zero_wait_floors": floors,
           "definition": ("inside_x: largest relative improvement in x of a front schedule at least as good in y "
                          "((x_s - x_f) / x_s; UTIL: (x_f - x_s) / x_s); inside_y likewise; inside_both: largest "
                          "min(gain x, gain y) over the front; dominating: front schedules at least as good in both; "
                          "positive = the front lies inside the strategy, null = no front schedule as good in the other"),
           "strategies": {label: {**places[label], "metrics": placed[label]} for label in placed}}
    jpath = dest / f"placement_{x}_{y}.json"
    atomic_write_text(jpath, json.dumps(doc, indent=2) + "\n")
    pct = lambda v: "  n/a" if v is None else f"{100 * v:5.1f}%"  # noqa: E731
    for label, p in places.items():
        typer.echo(f"{label}: {x} {p[x]:,.0f}  {y} {p[y]:,.0f}  UTIL {placed[label]['UTIL']:.2f}; front inside by "
                   f"{pct(p['inside_x'])} in {x}, {pct(p['inside_y'])} in {y}, {pct(p['inside_both'])} in both; "
                   f"{p['dominating']} of {len(front)} front schedules at least as good in both")
    typer.echo(f"wrote {path} and {jpath}")
