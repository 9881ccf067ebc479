"""`schedlab federation platform show|run|compare`: package scheduling on heterogeneous federations
(slowdown-guided-ga-federation)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from ..errors import SchedlabError
from .main import stopped, sub_app
from .options import CALIBRATE_LOAD, DASK, MONTHS, PROCS, SCALE_TO, SEED, WORKERS, TraceOptions, executor_spec

federation_app = sub_app("federation", "Heterogeneous federations: slowdown model, JPR / CBS / METL and the GA over job packages.")
platform_app = typer.Typer(name="platform", help="Federated platforms (clusters, node powers, links).",
                           no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
federation_app.add_typer(platform_app, name="platform")

PLATFORM = typer.Option("default", "--platform", help="Platform file (TOML, or JSON for .json), or 'default' (4 x 64 nodes, powers 1.0/0.8/0.6/0.4, links 100).")


class FederationCliError(SchedlabError, ValueError):
    """A `schedlab federation` option with a value that cannot be used."""


def _platform(spec: str):
    from ..federation.platform import default_platform, load_platform

    return default_platform() if spec == "default" else load_platform(spec)


def _range(text: str, name: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise FederationCliError(f"{name} {text!r}: give LOW,HIGH (two numbers)") from None
    return lo, hi


def _config(trace: str, method: str, package_size: int, jobs: Optional[int], offset: int, procs: Optional[int],
            comm_seed: int, sigma: str, ptbw: str, dynamic: bool, metl_loss: str, cbs_cap: bool, generations: int,
            pop: int, p_mutation: float, p_crossover: float, mutation_reading: str, seed: int,
            comm_file: Optional[str] = None, trace_options: Optional[TraceOptions] = None):
    from ..federation.model import FederationOptions
    from ..optimize.federation_ga import FederationGAConfig
    from ..optimize.federation_run import FederationRunConfig

    opts = trace_options or TraceOptions(procs)
    return FederationRunConfig(
        trace=trace, method=method, package_size=package_size, jobs=jobs,
        offset=offset, procs=procs, comm_seed=comm_seed, sigma_range=_range(sigma, "--sigma"),
        ptbw_range=_range(ptbw, "--ptbw"),
        options=FederationOptions(dynamic=dynamic, metl_loss=metl_loss, cbs_cap_chunk=cbs_cap),
        ga=FederationGAConfig(generations=generations, pop=pop, p_mutation=p_mutation, p_crossover=p_crossover,
                              mutation_reading=mutation_reading, seed=seed),
        comm_file=None if comm_file is None else str(Path(comm_file).resolve()),
        months=opts.months, scale_to=opts.scale_to, calibrate_load=opts.calibrate_load,
    )


def _executor(workers: Optional[int], dask: Optional[str]) -> str:
    spec, workers = executor_spec(workers, dask)
    if spec is not None:
        return spec
    if workers == 1:
        return "serial"
    return "processes" if workers is None else f"processes:{workers}"


class _Bar:
    """Rich progress bar over GA generations (all packages), with ETA; silent for heuristics."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 TextColumn("gen {task.completed:.0f}/{task.total}  best {task.fields[best]}"),
                                 TimeRemainingColumn(), console=Console(stderr=True))
        self.task = None

    def callbacks(self, label: str) -> dict[str, Any]:
        def on_start(total: int, done: int) -> None:
            if self.task is None:
                self.progress.start()
            self.task = self.progress.add_task(label, total=total, completed=done, best="-")

        def on_generation(package: int, row: dict) -> None:
            self.progress.update(self.task, advance=1, best=f"p{package} {row['best']:,.0f}")

        return {"on_start": on_start, "on_generation": on_generation}

    def stop(self) -> None:
        if self.task is not None:
            self.progress.stop()


# options shared by run and compare
_O = {
    "jobs": typer.Option(None, "--jobs", help="Number of jobs (the first after --offset, in submit order, of the cleaned trace)."),
    "offset": typer.Option(0, "--offset", help="Skip this many jobs of the cleaned trace first."),
    "procs": PROCS,
    "months": MONTHS,
    "scale_to": SCALE_TO,
    "calibrate_load": CALIBRATE_LOAD,
    "comm_file": typer.Option(None, "--comm", help="CSV id,sigma,ptbw giving each job's communication attributes (instead of drawing them)."),
    "comm_seed": typer.Option(0, "--comm-seed", help="Seed of the per-job communication draws (sigma_j, PTBW_j)."),
    "sigma": typer.Option("0.1,0.5", "--sigma", help="sigma_j ~ U(LOW,HIGH): communication fraction (method-notes topic 6)."),
    "ptbw": typer.Option("1,10", "--ptbw", help="PTBW_j ~ U(LOW,HIGH): per-task inter-cluster bandwidth demand."),
    "dynamic": typer.Option(False, "--dynamic", help="Dynamic slowdown model (recomputed at every start/finish) instead of static at start."),
    "metl_loss": typer.Option("absolute", "--metl-loss", help="METL loss: absolute (T - Tb/Gmax) or relative."),
    "cbs_cap": typer.Option(True, "--cbs-cap/--cbs-literal", help="CBS big chunk capped at the largest cluster (default) or literal 75 %."),
    "generations": typer.Option(500, "--generations", help="GA generations (initial population included; paper: 500)."),
    "pop": typer.Option(200, "--pop", help="GA population (paper: 200)."),
    "p_mutation": typer.Option(0.01, "--p-mutation", help="Mutation probability (paper: 1 %)."),
    "p_crossover": typer.Option(0.8, "--p-crossover", help="Crossover probability (paper: 80 %)."),
    "mutation_reading": typer.Option("individual", "--mutation-reading", help="individual (one swap per mutated offspring) or gene."),
    "checkpoint_every": typer.Option(None, "--checkpoint-every", min=1, help="GA checkpoint every N generations (default: every 5 s of work; the result does not depend on it)."),
    "seed": SEED,
    "workers": WORKERS,
    "dask": DASK,
}


@platform_app.command("show")
def platform_show(
    file: str = typer.Argument("default", help="Platform file, or 'default'."),
    as_json: bool = typer.Option(False, "--json", help="Print the platform as JSON."),
) -> None:
    """Validate a platform file and show its clusters, node powers and link bandwidths."""
    pf = _platform(file)
    if as_json:
        typer.echo(json.dumps(pf.to_dict()))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{pf.name}: {pf.n_clusters} clusters, {pf.n_nodes} nodes")
    for col in ("cluster", "nodes", "power (min-max)", "link bandwidth"):
        table.add_column(col, justify="left" if col == "cluster" else "right")
    for r in pf.describe():
        power = f"{r['power_min']:.3g}" if r["power_min"] == r["power_max"] else f"{r['power_min']:.3g}-{r['power_max']:.3g}"
        table.add_row(r["cluster"], str(r["nodes"]), power, f"{r['bandwidth']:g}")
    Console(file=sys.stdout, width=100).print(table)


@federation_app.command("run")
def run_command(
    trace: str = typer.Argument(..., help="SWF trace (path or bundled name)."),
    method: str = typer.Option(..., "--method", help="jpr, cbs, metl, ga-random or ga-metl."),
    package_size: int = typer.Option(..., "--package-size", help="Jobs per package."),
    out: Path = typer.Option(..., "--out", help="Run folder (re-running the same command resumes it)."),
    platform: str = PLATFORM,
    as_json: bool = typer.Option(False, "--json", help='Print {"method", "makespan", "jobs", "package_size", "seconds"}.'),
    jobs: Optional[int] = _O["jobs"], offset: int = _O["offset"], procs: Optional[int] = _O["procs"], months: Optional[int] = _O["months"],
    scale_to: Optional[int] = _O["scale_to"], calibrate_load: bool = _O["calibrate_load"],
    comm_file: Optional[str] = _O["comm_file"],
    comm_seed: int = _O["comm_seed"], sigma: str = _O["sigma"], ptbw: str = _O["ptbw"], dynamic: bool = _O["dynamic"],
    metl_loss: str = _O["metl_loss"], cbs_cap: bool = _O["cbs_cap"], generations: int = _O["generations"],
    pop: int = _O["pop"], p_mutation: float = _O["p_mutation"], p_crossover: float = _O["p_crossover"],
    mutation_reading: str = _O["mutation_reading"], seed: int = _O["seed"], workers: Optional[int] = _O["workers"],
    dask: Optional[str] = _O["dask"], checkpoint_every: Optional[int] = _O["checkpoint_every"],
) -> None:
    """Schedule a workload's packages with one method; makespan summed over the packages."""
    from ..optimize.federation_run import run_federation

    pf = _platform(platform)
    cfg = _config(trace, method, package_size, jobs, offset, procs, comm_seed, sigma, ptbw, dynamic, metl_loss, cbs_cap,
                  generations, pop, p_mutation, p_crossover, mutation_reading, seed, comm_file,
                  TraceOptions(procs, months, scale_to, calibrate_load))
    bar = _Bar()
    try:
        res = run_federation(cfg, pf, out, executor_spec=_executor(workers, dask),
                            checkpoint_every=checkpoint_every, **bar.callbacks(method))
    finally:
        bar.stop()
    if res.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    if as_json:  # the five keys (result.json also holds cpu_seconds)
        typer.echo(json.dumps({k: res.result[k] for k in ("method", "makespan", "jobs", "package_size", "seconds")}))
        return
    r = res.result
    typer.echo(f"{r['method']}: makespan {r['makespan']:,.0f} s over {r['jobs']} jobs in packages of "
               f"{r['package_size']} ({r['seconds']:.1f} s); run folder {out}")


@federation_app.command("compare")
def compare_command(
    trace: str = typer.Argument(..., help="SWF trace (path or bundled name), e.g. HPC2N."),
    out: Path = typer.Option(..., "--out", help="Folder of the comparison (one resumable run folder per workload/method)."),
    package_size: List[int] = typer.Option([100, 1000], "--package-size", help="Package size (repeat for several)."),
    jobs: int = typer.Option(2000, "--jobs", help="Jobs per workload window."),
    workloads: int = typer.Option(6, "--workloads", help="Number of consecutive windows (Wk-1, Wk-2, ...)."),
    methods: str = typer.Option("jpr,cbs,metl,ga-random,ga-metl", "--methods", help="Comma-separated methods."),
    platform: str = PLATFORM,
    offset: int = _O["offset"], procs: Optional[int] = _O["procs"], months: Optional[int] = _O["months"],
    scale_to: Optional[int] = _O["scale_to"], calibrate_load: bool = _O["calibrate_load"],
    comm_file: Optional[str] = _O["comm_file"],
    comm_seed: int = _O["comm_seed"], sigma: str = _O["sigma"], ptbw: str = _O["ptbw"], dynamic: bool = _O["dynamic"],
    metl_loss: str = _O["metl_loss"], cbs_cap: bool = _O["cbs_cap"], generations: int = _O["generations"],
    pop: int = _O["pop"], p_mutation: float = _O["p_mutation"], p_crossover: float = _O["p_crossover"],
    mutation_reading: str = _O["mutation_reading"], seed: int = _O["seed"], workers: Optional[int] = _O["workers"],
    dask: Optional[str] = _O["dask"], checkpoint_every: Optional[int] = _O["checkpoint_every"],
) -> None:
    """Makespan per workload and method (table + bar charts as the paper's Figs. 1, 4, 5)."""
    from ..optimize.federation_run import compare_federation

    pf = _platform(platform)
    names = [m.strip().lower() for m in methods.split(",") if m.strip()]
    if not names:
        raise FederationCliError("--methods: name at least one method")
    cfg = _config(trace, names[0], package_size[0], jobs, offset, procs, comm_seed, sigma, ptbw, dynamic, metl_loss,
                  cbs_cap, generations, pop, p_mutation, p_crossover, mutation_reading, seed, comm_file,
                  TraceOptions(procs, months, scale_to, calibrate_load))
    bar = _Bar()
    try:
        compare_federation(cfg, pf, out, package_sizes=package_size, workloads=workloads, methods=names,
                           executor_spec=_executor(workers, dask), progress=bar.callbacks,
                           checkpoint_every=checkpoint_every)
    except KeyboardInterrupt:
        bar.stop()
        raise stopped(f"finished runs are kept in {out}; re-run the same command to resume")
    bar.stop()
    typer.echo((out / "table.md").read_text())
    typer.echo(f"wrote {out}/table.md, results.json and the figures")
