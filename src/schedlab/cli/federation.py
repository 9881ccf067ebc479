"""`schedlab federation platform show|run|compare`: package scheduling on heterogeneous federations
(slowdown-guided-ga-federation)."""

from __future__ import annotations

import functools
import json
import math
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from .._signals import stop_in
from ..errors import SchedlabError
from .app import stopped, sub_app
from .options import DASK, SEED, TRACE_HELP, WORKERS, TraceOptions, executor_spec, non_negative_seed, spliced, with_trace_options

federation_app = sub_app("federation", "Heterogeneous federations: slowdown model, JPR / CBS / METL and the GA over job "
                                       "packages (the paper: Gabaldon et al., 'Slowdown-Guided Genetic Algorithm for Job "
                                       "Scheduling in Federated Environments').")
platform_app = typer.Typer(name="platform", help="Federated platforms (clusters, node powers, links).",
                           no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                           context_settings={"help_option_names": ["-h", "--help"]})
federation_app.add_typer(platform_app, name="platform")

PLATFORM = typer.Option("default", "--platform", help="Platform file (TOML, or JSON for .json; format: 'schedlab federation platform show --help'), or 'default' (4 x 64 nodes, powers 1.0/0.8/0.6/0.4, links 100).")


class FederationCliError(SchedlabError, ValueError):
    """A `schedlab federation` option with a value that cannot be used."""


def _platform(spec: str):
    from ..federation.platform import default_platform, load_platform

    return default_platform() if spec == "default" else load_platform(spec)


def _range(text: str, name: str, high: float = math.inf) -> tuple[float, float]:
    """LOW,HIGH of a uniform draw: finite, 0 <= LOW <= HIGH (<= ``high``)."""
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise FederationCliError(f"{name} {text!r}: give LOW,HIGH (two numbers)") from None
    if not (0 <= lo <= hi <= high and math.isfinite(hi)):
        raise FederationCliError(f"{name} {text!r}: give finite LOW,HIGH with 0 <= LOW <= HIGH"
                                 + (f" <= {high:g}" if math.isfinite(high) else ""))
    return lo, hi


def _config(trace: str, method: str, package_size: int, jobs: Optional[int], o: dict[str, Any], opts: TraceOptions):
    """The run configuration from a command's own arguments, its shared options ``o`` (see :func:`_shared`)
    and its trace options ``opts``."""
    from ..federation.model import FederationOptions
    from ..optimize.federation_ga import FederationGAConfig
    from ..optimize.federation_run import FederationRunConfig
    from ..optimize.settings import check_seed, check_whole

    check_seed(o["comm_seed"], "--comm-seed")
    if o["checkpoint_every"] is not None:
        check_whole("--checkpoint-every", o["checkpoint_every"])
    return FederationRunConfig(
        opts.spec(trace), method=method, package_size=package_size, jobs=jobs,
        offset=o["offset"], comm_seed=o["comm_seed"], sigma_range=_range(o["sigma"], "--sigma", 1.0),
        ptbw_range=_range(o["ptbw"], "--ptbw"),
        options=FederationOptions(dynamic=o["dynamic"], metl_loss=o["metl_loss"], cbs_cap_chunk=o["cbs_cap"],
                                  package_start=o["package_start"], makespan=o["makespan"]),
        ga=FederationGAConfig(generations=o["generations"], pop=o["pop"], p_mutation=o["p_mutation"],
                              p_crossover=o["p_crossover"], mutation_reading=o["mutation_reading"], seed=o["seed"]),
        comm_file=None if o["comm_file"] is None else str(Path(o["comm_file"]).resolve()),
    )


def _executor(workers: Optional[int], dask: Optional[str]) -> str:
    spec, workers = executor_spec(workers, dask)
    if spec is not None:
        return spec
    if workers == 1:
        return "serial"
    return "auto" if workers is None else f"processes:{workers}"  # auto: chosen from a measured evaluation


def _start(cfg, pf, out: Path, executor: str):
    """How ``federation run`` starts ``cfg``: a GA method through the one entry of every optimizer
    (:func:`schedlab.optimize.problem.setup`, the federation space, algorithm ``ga``), so the verb's run
    folder is ``schedlab.minimize``'s; JPR, CBS and METL are heuristics, not optimizers (no generations,
    no row of OPTIMIZERS): their driver is called directly. Returns ``start(**hooks) -> FederationRunResult``."""
    from ..federation.model import GA_METHODS
    from ..optimize.federation_run import run_federation

    if cfg.method not in GA_METHODS:
        return functools.partial(run_federation, cfg, pf, out, executor=executor)
    from ..optimize.problem import Problem, setup

    ga = cfg.ga
    problem = Problem("federation", [cfg.trace_spec], None, settings={
        "method": cfg.method, "package_size": cfg.package_size, "jobs": cfg.jobs, "offset": cfg.offset,
        "comm_seed": cfg.comm_seed, "sigma_range": cfg.sigma_range, "ptbw_range": cfg.ptbw_range,
        "options": cfg.options, "comm_file": cfg.comm_file, "platform": pf})
    plan = setup(problem, "ga", ga.generations, out=out, executor=executor, seed=ga.seed, pop=ga.pop,
                 p_mutation=ga.p_mutation, p_crossover=ga.p_crossover, tournament=ga.tournament,
                 mutation_reading=ga.mutation_reading)
    return lambda **hooks: plan.run(**hooks).result


class _Bar:
    """Progress of the GA over all packages (:class:`.progress.RunProgress`), and the kernels' warm-up
    line (:func:`.compiling.warm_up`); heuristics have no generations, only the warm-up."""

    def __init__(self) -> None:
        from .progress import PLAIN_EVERY, RunProgress

        self.view = RunProgress(every=PLAIN_EVERY)  # GA generations take milliseconds: no line for each

    def callbacks(self, label: str) -> dict[str, Any]:
        from .compiling import warm_up

        def on_generation(package: int, row: dict) -> None:
            self.view.step(label, f"best {row['best']:,.0f}")  # the count names the package

        def on_start(total: int, done: int, generations: int) -> None:
            # the run's steps are its packages' generations: say which package and which of its generations
            def count(d: int, t: int) -> str:
                p = max(1, -(-d // generations))
                return f"package {p}/{t // generations} gen {d - (p - 1) * generations}/{generations}"

            self.view.start(label, total, done, count=count)

        return {"on_start": on_start, "on_generation": on_generation, "warm": functools.partial(warm_up, "federation")}

    def stop(self) -> None:
        self.view.stop()


# options shared by run and compare: name -> (type, option); see _shared
_SHARED: dict[str, tuple[Any, Any]] = {
    "offset": (int, typer.Option(0, "--offset", help="Skip this many jobs of the cleaned trace first.")),
    "comm_file": (Optional[str], typer.Option(None, "--comm", help="CSV id,sigma,ptbw giving each job's communication fraction and bandwidth demand (instead of drawing them; see --sigma, --ptbw).")),
    "comm_seed": (int, typer.Option(0, "--comm-seed", callback=non_negative_seed, help="Seed of the per-job draws of --sigma and --ptbw.")),
    "sigma": (str, typer.Option("0.1,0.5", "--sigma", metavar="LOW,HIGH", help="Communication fraction: the share (0-1) of a job's run time spent communicating, drawn per job uniformly from LOW..HIGH (SWF traces do not record it; not bound's --sigma).")),
    "ptbw": (str, typer.Option("1,10", "--ptbw", metavar="LOW,HIGH", help="Bandwidth demand of each task on inter-cluster links, drawn per job uniformly from LOW..HIGH, in the unit of the platform's link bandwidths.")),
    "dynamic": (bool, typer.Option(False, "--dynamic", help="Dynamic slowdown model (recomputed at every start/finish) instead of static at start.")),
    "metl_loss": (str, typer.Option("absolute", "--metl-loss", help="METL loss: absolute (T - Tb/Gmax) or relative.")),
    "cbs_cap": (bool, typer.Option(True, "--cbs-cap/--cbs-literal", help="CBS big chunk capped at the largest cluster (default) or literal 75 %.")),
    "package_start": (str, typer.Option("carry", "--package-start", help="carry: a package starts when the previous one's last job has started, on the platform it left; barrier: on the empty platform when it has finished.")),
    "makespan": (str, typer.Option("workload", "--makespan", help="workload: max F - min I over all jobs (the paper); package-sum: the package makespans summed.")),
    "generations": (int, typer.Option(500, "--generations", help="GA generations (initial population included; paper: 500).")),
    "pop": (int, typer.Option(200, "--pop", help="GA population (paper: 200).")),
    "p_mutation": (float, typer.Option(0.01, "--p-mutation", help="Mutation probability (paper: 1 %).")),
    "p_crossover": (float, typer.Option(0.8, "--p-crossover", help="Crossover probability (paper: 80 %).")),
    "mutation_reading": (str, typer.Option("individual", "--mutation-reading", help="individual (one swap per mutated offspring) or gene.")),
    "checkpoint_every": (Optional[int], typer.Option(None, "--checkpoint-every", help="GA checkpoint every N generations (default: every 5 s of work; the result does not depend on it).")),
    "seed": (int, SEED),
    "workers": (Optional[int], WORKERS),
    "dask": (Optional[str], DASK),
}


#: compare's form of the shared options: --generations and --pop take several values (a sweep)
_SWEPT: dict[str, tuple[Any, Any]] = {
    **_SHARED,
    "generations": (List[int], typer.Option([500], "--generations", help="GA generations (initial population included; paper: 500); repeat for a sweep, one run per value (the paper's Fig. 2).")),
    "pop": (List[int], typer.Option([200], "--pop", help="GA population (paper: 200); repeat for a sweep, one run per value (the paper's Fig. 3).")),
}


def _shared(command, options: dict[str, tuple[Any, Any]] = _SHARED):
    """``command`` with the ``options`` (default :data:`_SHARED`) in its Typer signature; it receives
    their values as one dict, its keyword parameter ``o``."""
    return spliced(command, "o", options, dict)


@platform_app.command("show")
def platform_show(
    file: str = typer.Argument("default", help="Platform file, or 'default'."),
    as_json: bool = typer.Option(False, "--json", help="Print the platform as JSON."),
) -> None:
    """Validate a platform file and show its clusters, node powers and link bandwidths.

    A platform file is TOML (JSON for a .json name) with the keys: name (optional); normalize_power (optional, default true: divide every power by the largest, so the fastest node has power 1); clusters, one table per cluster, with name, nodes and power (the relative speed of each node, default 1) or powers (a list, one per node); links, one table per cluster, with cluster (its name) and bandwidth (the capacity of the cluster's one link to the others, in the unit of --ptbw).

    'schedlab federation platform show default --json' prints the default platform in this format; docs/federation-platform.md has a TOML example."""
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
@_shared
@with_trace_options
def run_command(
    trace: str = typer.Argument(..., help=TRACE_HELP, show_default=False),
    method: str = typer.Option(..., "--method", help="jpr, cbs, metl, ga-random or ga-metl."),
    package_size: int = typer.Option(..., "--package-size", help="Jobs per package."),
    out: Path = typer.Option(..., "--out", help="Run folder (re-running the same command resumes it)."),
    platform: str = PLATFORM,
    as_json: bool = typer.Option(False, "--json", help='Print {"method", "makespan", "jobs", "package_size", "seconds"}.'),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="Number of jobs (the first after --offset, in submit order, of the cleaned trace)."),
    o: Optional[dict] = None,
    opts: TraceOptions = None,
) -> None:
    """Schedule a workload's packages with one method; makespan summed over the packages."""
    pf = _platform(platform)
    cfg = _config(trace, method, package_size, jobs, o, opts)
    start = _start(cfg, pf, out, _executor(o["workers"], o["dask"]))
    bar = _Bar()
    try:
        res = start(checkpoint_every=o["checkpoint_every"], **bar.callbacks(method))
    finally:
        bar.stop()
    if res.interrupted:
        raise stopped(f"checkpoint saved in {out}; re-run the same command to resume")
    if as_json:  # the five keys (result.json also holds cpu_seconds)
        typer.echo(json.dumps({k: res.result[k] for k in ("method", "makespan", "jobs", "package_size", "seconds")}))
        return
    r = res.result
    workers = f", {r['workers']} worker(s)" if "workers" in r else ""
    typer.echo(f"{r['method']}: makespan {r['makespan']:,.0f} s over {r['jobs']} jobs in packages of "
               f"{r['package_size']} ({r['seconds']:.1f} s{workers}); run folder {out}")


@federation_app.command("compare")
@functools.partial(_shared, options=_SWEPT)
@with_trace_options
def compare_command(
    trace: str = typer.Argument(..., help=TRACE_HELP, show_default=False),
    out: Path = typer.Option(..., "--out", help="Folder of the comparison (one resumable run folder per workload/method)."),
    package_size: List[int] = typer.Option([100, 1000], "--package-size", help="Package size (repeat for several)."),
    jobs: int = typer.Option(2000, "--jobs", help="Jobs per workload window."),
    workloads: int = typer.Option(6, "--workloads", help="Number of consecutive windows (Wk-1, Wk-2, ...)."),
    methods: str = typer.Option("jpr,cbs,metl,ga-random,ga-metl", "--methods", help="Comma-separated methods."),
    platform: str = PLATFORM,
    report_only: bool = typer.Option(False, "--report-only", help="Run nothing: table and figures of the finished run folders only (the others are listed)."),
    o: Optional[dict] = None,
    opts: TraceOptions = None,
) -> None:
    """Makespan per workload and method (a table, and bar charts like the paper's Figs. 1, 4 and 5).

    Repeating --package-size, --generations or --pop sweeps it (one run folder per value; the
    heuristics run once): a chart of the GAs' makespan (bars) and time (lines) against the swept
    value, like the paper's Figs. 1-3 (ga_by_package_size.png, ga_by_generations.png, ga_by_pop.png)."""
    from ..optimize.federation_run import compare_federation
    from ..report.federation import write_comparison_report

    pf = _platform(platform)
    names = [m.strip().lower() for m in methods.split(",") if m.strip()]
    if not names:
        raise FederationCliError("--methods: name at least one method")
    generations, pops = o["generations"], o["pop"]
    cfg = _config(trace, names[0], package_size[0], jobs, {**o, "generations": generations[0], "pop": pops[0]}, opts)
    bar, missing = _Bar(), []
    try:
        rows = compare_federation(cfg, pf, out, package_sizes=package_size, workloads=workloads, methods=names,
                                  generations=generations, pops=pops,
                                  executor=_executor(o["workers"], o["dask"]), progress=bar.callbacks,
                                  checkpoint_every=o["checkpoint_every"], report_only=report_only, missing=missing)
    except BaseException as exc:
        if stop_in(exc) is None:
            raise
        bar.stop()
        raise stopped(f"finished runs are kept in {out}; re-run the same command to resume")
    bar.stop()
    write_comparison_report(out, rows, cfg.to_dict(), package_size, pf.name)
    typer.echo((out / "table.md").read_text())
    typer.echo(f"wrote {out}/table.md, results.json and the figures")
    if missing:
        typer.echo(f"not finished (left out): {', '.join(missing)}")
