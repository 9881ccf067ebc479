"""`schedlab grid simulate|pareto`: grids of independent EASY sites (nsga2-grid-performance-bounds)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import SchedlabError
from .app import stopped, sub_app
from .options import DASK, EXTEND, FORMAT, SEED, WORKERS, executor_spec

grid_app = sub_app("grid", "Grids of independent EASY sites: job exchange (none, POOL, RQ) and NSGA-II Pareto fronts of "
                           "partitions (the paper: Grimme et al., 'Discovering Performance Bounds for Grid Scheduling "
                           "by using Evolutionary Multiobjective Optimization').")

SETUP = typer.Option(None, "--setup", help="A grid of the paper's Table 1: I, II, III or IV (11-month traces); give --setup or --site.")
SITE = typer.Option(None, "--site", help="A site TRACE:PROCS (repeat, at least twice), e.g. --site KTH-SP2:100; give --setup or --site.")
MONTHS = typer.Option(11, "--months", help="Cut every trace to its first N calendar months (0 = whole trace).")


class GridOptionError(SchedlabError, ValueError):
    """A `schedlab grid` option with a value that cannot be used."""


def _trace(setup: Optional[str], site: Optional[List[str]], months: int, fmt: Optional[str]):
    """The grid of the sites, each trace prepared as every verb prepares a TRACE (in ``--format`` ``fmt``)."""
    from ..grid.setups import load_grid

    if months < 0:
        raise GridOptionError(f"--months must be >= 0, got {months}")
    return load_grid(setup, site or (), months=months or None, format=fmt)


def _check_reading(reading: str, exchange: str) -> None:
    """Refuse a --reading that ``exchange`` does not read (it would be accepted and change nothing)."""
    from ..grid.readings import NAMED, POLICY_OPTIONS

    text = reading.strip()
    reads = [n.replace("_", "-") for n in POLICY_OPTIONS[exchange]]
    if text in NAMED:
        if exchange == "none" and text != "default":
            raise GridOptionError(f"--reading {text}: a reading of POOL and RQ; --exchange none reads none")
        return
    for part in text.split(","):
        name = part.partition("=")[0].strip()
        if name and name not in reads:
            raise GridOptionError(f"--reading {part.strip()}: --exchange {exchange} does not read {name} "
                                  f"({'it reads ' + ', '.join(reads) if reads else 'it reads no option'})")


@grid_app.command("simulate")
def simulate_command(
    setup: Optional[str] = SETUP,
    site: Optional[List[str]] = SITE,
    exchange: str = typer.Option("none", "--exchange", help="Job exchange: none (sites alone), pool or rq."),
    reading: str = typer.Option("default", "--reading", help="How POOL or RQ reads the paper's one-paragraph description where it is ambiguous: default (the reading closest to the text), issue5 (an older reading, kept for comparison), or OPTION=VALUE,... -- RQ: rq-seq=local-first|interleaved (own pass before requests, or site by site), rq-when=every|queue-changed|own-arrival (when a site requests remote jobs), rq-take=budget|startable (which remote jobs move); POOL: pool-take=backfill|idle (when a site takes pooled jobs), pool-keep=persistent|once (how long a job stays pooled). --exchange none reads none."),
    months: int = MONTHS,
    fmt: Optional[str] = FORMAT,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
) -> None:
    """Simulate the grid with one exchange policy; per-site jobs, AWRT, UTIL, migrations and overall AWRT."""
    from ..grid.kernel import EXCHANGES
    from ..grid.readings import Reading
    from ..grid.sim import simulate_grid
    from ..metrics.grid import grid_summary

    if exchange not in EXCHANGES:
        raise GridOptionError(f"--exchange {exchange!r}: choose one of {', '.join(EXCHANGES)}")
    try:
        parsed = Reading.parse(reading)
    except SchedlabError as exc:
        raise GridOptionError(f"--reading: {exc}") from None
    _check_reading(reading, exchange)
    from .compiling import warm_grid

    trace = _trace(setup, site, months, fmt)
    warm_grid(trace, [exchange])
    summary = grid_summary(simulate_grid(trace, exchange, parsed))
    if as_json:
        doc = {"grid": setup.upper() if setup else " ".join(site or ()), "months": months or None, "exchange": exchange,
               "reading": parsed.label(exchange), "sites": summary["sites"], "AWRT": summary["AWRT"]}
        typer.echo(json.dumps(doc))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"grid, exchange {exchange}" + (f" ({parsed.label(exchange)})" if exchange != "none" else ""))
    for col in ("site", "procs", "jobs", "AWRT (s)", "UTIL (%)", "migrated in", "migrated out"):
        table.add_column(col, justify="left" if col == "site" else "right")
    for s in summary["sites"]:
        table.add_row(s["name"], str(s["procs"]), f"{s['jobs']:,}", f"{s['AWRT']:,.0f}", f"{s['UTIL']:.2f}",
                      f"{s['migrated_in']:,}", f"{s['migrated_out']:,}")
    table.add_row("overall", "", f"{sum(s['jobs'] for s in summary['sites']):,}", f"{summary['AWRT']:,.0f}", "", "", "")
    Console(file=sys.stdout, width=120).print(table)


@grid_app.command("pareto")
def pareto_command(
    out: Path = typer.Option(..., "--out", help="Run folder (created; re-running the same command resumes it)."),
    setup: Optional[str] = SETUP,
    site: Optional[List[str]] = SITE,
    months: int = MONTHS,
    fmt: Optional[str] = FORMAT,
    generations: int = typer.Option(200, "--generations", help="NSGA-II generations (the initial population is 1)."),
    pop: int = typer.Option(70, "--pop", help="Population size mu."),
    seed: int = SEED,
    p_rand: float = typer.Option(0.1, "--p-rand", help="Random mutation: probability that a gene moves to another site."),
    seed_with: str = typer.Option("", "--seed-with", help="Also start from the partitions these exchange policies realise: pool, rq or rq,pool (not in the paper)."),
    variation: str = typer.Option("paper", "--variation", help="Variation operators: paper (the paper's Sections 4.2-4.3) or aware (shift mutation also picks long-waiting or small jobs; not in the paper)."),
    workers: Optional[int] = WORKERS,
    dask: Optional[str] = DASK,
    extend: bool = EXTEND,
) -> None:
    """NSGA-II Pareto front of AWRT per site over job-to-site partitions (paper's operators); resumable."""
    from ..grid.setups import site_specs
    from ..optimize.problem import Problem
    from ..optimize.problem import setup as set_up
    from ..workload.spec import TraceSpec

    executor, workers = executor_spec(workers, dask)
    label = setup.upper() if setup else " ".join(site or ())
    sites = site or [f"{t}:{p}" for t, p in site_specs(setup)]  # the Problem names the grid's sites either way
    problem = Problem("grid", [TraceSpec(s, months=months if months > 0 else None, format=fmt) for s in sites], None)

    def plan(**grid):
        return set_up(problem, "nsga2", generations, out=out, executor=executor, workers=workers, seed=seed,
                      extend=extend, pop=pop, p_rand=p_rand, seed_with=seed_with, variation=variation, label=label,
                      **grid)

    config = plan().config  # every setting checked before anything is read or written
    trace = _trace(setup, site, months, fmt)
    from .compiling import warm_grid

    warm_grid(trace, ["none", "pool", "rq"])

    from .progress import RunProgress

    progress = RunProgress()

    def show(row: dict) -> None:
        if "front" not in progress.runs:  # pareto() has no start callback: the first generation starts it
            progress.start("front", generations, row["gen"] - 1)
        minima = ", ".join(f"{row[k]:,.0f}" for k in row if k.startswith("best_AWRT"))
        progress.step("front", f"evals {row['evaluations']}  front {row['front']}  HV {row['hypervolume']:.4g}  "
                      f"lowest AWRT per site over the front ({minima})", done=row["gen"], elapsed=row.get("elapsed"))

    try:
        result = plan(grid=trace).run(on_generation=show).result  # the one entry of every optimizer
    finally:
        progress.stop()
    _front_report(out, result, trace, config)  # also of a stopped run: the front so far
    if result.interrupted:
        raise stopped(f"checkpoint of generation {result.generations} saved in {out}; re-run the same command to resume")
    _grid_report(out, trace)
    typer.echo(f"wrote {out}: {len(result.front_F)} front points after {result.generations} generations "
               f"({result.evaluations} evaluations), report.html")


def _front_report(out: Path, result, trace, config) -> None:
    """points.md, front.png and hypervolume.png of the run (its references.json: the heuristics' points)."""
    from ..report.grid_report import write_front_report

    references = json.loads((Path(out) / "references.json").read_text())
    write_front_report(out, result, references, trace.names, config.limit)


def _grid_report(out: Path, trace) -> None:
    """report.html of the run, with schedule plots per site of the no-exchange (EASY) and RQ grids."""
    from ..grid.sim import simulate_grid
    from ..metrics.per_job import job_table
    from ..report.grid_report import write_grid_report
    from ..report.schedule_plots import write_schedule_plots

    grids = {"no exchange (EASY)": simulate_grid(trace, "none"), "RQ": simulate_grid(trace, "rq")}
    plots = {}
    for k, name in enumerate(trace.names):
        tables = {label: job_table(g.site_schedule(k)) for label, g in grids.items()}
        paths = write_schedule_plots(tables, int(trace.site_procs[k]), out, title=f"site {name}", prefix=f"site{k + 1}_")
        plots[f"{k + 1} ({name})"] = [p.name for p in paths]
    config = json.loads((Path(out) / "config.json").read_text())
    comparison = json.loads((Path(out) / "comparison.json").read_text())
    write_grid_report(out, config, comparison, plots)
