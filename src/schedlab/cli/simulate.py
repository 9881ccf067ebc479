"""`schedlab simulate` and `schedlab compare`: simulate strategies on a trace and print their metrics."""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import SchedlabError
from ..metrics import DEFAULT_OBJECTIVE, METRIC_NAMES, Objective, compute_metrics
from ..metrics.per_job import JOB_COLUMNS as SCHEDULE_COLUMNS  # noqa: F401  (the --schedule columns; tests import it from here)
from ..strategy import STATIC_ORDERS, Strategy
from .app import app
from ..strategy.registry import load_strategy_file, parse_policy
from .policies import PLUGIN, POLICIES
from .scojo import ScojoOptions, with_scojo_options
from .versus_easy import MAX_GROUP_RATIO, MAX_UTIL_DROP
from .options import (AS_JSON, SLURM_CONF, SLURM_ASSOC, SLURM_OPTION, SLURM_QOS, SLURM_SHARES, TRACE_HELP, OptionError, TraceOptions,
                      check_output, echo_wrote, spliced, with_trace_options)

#: the columns of ``schedlab compare --csv``, in order
CSV_KEYS: tuple[str, ...] = (*METRIC_NAMES, "objective", "sim_seconds")
#: the keys of ``schedlab simulate --json``, in order: what was simulated, then the figures
#: (``objective`` its value, ``objective_expression`` the formula; ``sim_seconds`` excludes compilation)
JSON_KEYS: tuple[str, ...] = ("trace", "trace_options", "strategy", "objective_expression", *CSV_KEYS, "compile_seconds")
DEFAULT_POLICIES = "fcfs,list,easy,conservative"
#: columns dropped, in this order, when a comparison table is wider than the terminal
_DROP_ORDER = (*(f"BSLD{i}" for i in (5, 4, 3, 2, 1)), "mean_user_AWRT", "max_user_AWRT", "p95_wait", "max_wait", "mean_response", "mean_slowdown", "makespan", "AWWT", "AWRT5", "AWRT4", "AWRT3", "sim_seconds",
               "mean_bounded_slowdown", "mean_wait", "worst_group_awrt_ratio", "UTIL_diff_points", "MEM_UTIL", "GPU_UTIL", "CPU_UTIL")


# ---------------------------------------------------------------------------- helpers
def _policy_listing() -> str:
    from ..strategy import registry

    lines = ["policies (--policy):"]
    lines += [f"  {name:<17} {text}" for name, text in registry.policy_help().items()]
    lines.append("orders (--order):")
    lines += [f"  {o.name:<17} {'dynamic: ' if o.dynamic else ''}{o.help}" + (f" ({o.source})" if o.source else "")
              for o in registry.named_orders()]
    lines.append("POLICY/ORDER (e.g. easy/estimate) is the policy with that queue order; compare --policies also")
    lines.append("  takes a strategy .json file")
    lines.append('strategy kinds (a strategy .json file, --strategy FILE: its "kind" field):')
    lines += [f"  {k.name:<17} {k.help}" + ("" if k.to_dict else " (no file form)") for k in registry.KINDS]
    return "\n".join(lines)


def _policy_help(value: Optional[str]) -> Optional[str]:
    """``--policy help`` / ``--policies help``: print the listing and exit (eager: before TRACE is required)."""
    if value is not None and value.strip().lower() == "help":
        typer.echo(_policy_listing())
        raise typer.Exit(0)
    return value


#: the Slurm site options of ``simulate`` and ``compare``: parameter -> (type, option), in :class:`SlurmSite`'s order
SLURM_OPTIONS: dict[str, tuple[Any, Any]] = {
    "slurm_conf": (Optional[Path], SLURM_CONF),
    "slurm_shares": (Optional[Path], SLURM_SHARES),
    "slurm_option": (Optional[str], SLURM_OPTION),
    "slurm_qos": (Optional[Path], SLURM_QOS),
    "slurm_assoc": (Optional[Path], SLURM_ASSOC),
}


@dataclass(frozen=True)
class SlurmSite:
    """``--slurm-conf``/``--slurm-shares``/``--slurm-option``/``--slurm-qos``/``--slurm-assoc`` of one command (:data:`SLURM_OPTIONS`)."""

    conf: Optional[Path] = None
    shares: Optional[Path] = None
    option: Optional[str] = None
    qos: Optional[Path] = None
    assoc: Optional[Path] = None

    def policy(self, *, wanted: bool = True):
        """The SlurmPolicy of these options (None without a conf; the others need one, and all need
        ``wanted``: policy slurm among those asked for). The lines the policy does not model are
        printed once, to stderr."""
        others = (self.shares, self.option, self.qos, self.assoc)
        if not wanted and any(x is not None for x in (self.conf, *others)):
            raise OptionError("--slurm-conf, --slurm-shares, --slurm-qos, --slurm-assoc and --slurm-option need --policy slurm")
        if self.conf is None:
            if any(x is not None for x in others):
                raise OptionError("--slurm-shares, --slurm-qos, --slurm-assoc and --slurm-option need --slurm-conf FILE and "
                                  "--policy slurm")
            return None
        from ..slurm.policy import load_policy

        policy = load_policy(self.conf, shares=self.shares, options=self.option, qos=self.qos, assoc=self.assoc)
        for line in policy.conf.ignored:
            typer.echo(f"ignored: {line}", err=True)
        return policy


def with_slurm_options(command):
    """``command`` with :data:`SLURM_OPTIONS` in its Typer signature where it has its parameter ``site``,
    received there as one :class:`SlurmSite` (as :func:`.options.with_trace_options`)."""
    return spliced(command, "site", SLURM_OPTIONS,
                   lambda values: SlurmSite(**{k.removeprefix("slurm_"): v for k, v in values.items()}))


def run_strategy(workload, procs: int, strategy: Strategy, *, kill: bool = True, repeat: int = 1):
    """Simulate ``repeat`` times; the schedule and the median engine time of simulate() alone."""
    from ..sim.model import Machine
    from ..sim.strategies import simulate_any as sim  # rigid engine, --policy scojo, or a rule base

    machine = Machine(procs)
    times = []
    schedule = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        schedule = sim(workload, machine, strategy, kill=kill)
        times.append(time.perf_counter() - t0)
    return schedule, statistics.median(times)


def echo_run_notes(schedule) -> None:
    """Print, to stderr, the lines a run needs its user to see (a ``--policy slurm`` run's
    :attr:`~schedlab.slurm.policy.SlurmRun.notes`: a slurm.conf whose CPUs differ from the trace's
    machine, jobs without a time limit)."""
    run = getattr(schedule, "slurm", None)
    for line in (run.notes if run is not None else ()):
        typer.echo(f"note: {line}", err=True)


def echo_resource_note(workload, policy: str) -> None:
    """Print, to stderr, the one note line of a trace whose jobs request memory or GPUs that the
    policies (``policy``: '--policy easy', '--policies fcfs,easy') do not model (:func:`~schedlab.workload.resources.ignored_note`)."""
    from ..workload.resources import ignored_note, resources_of

    line = ignored_note(resources_of(workload), policy)
    if line is not None:
        typer.echo(f"note: {line}", err=True)


def score(schedule, objective: Objective, sim_seconds: float, *, bound: float = 10.0, easy=None,
          who: str = "this schedule", judging: bool = False) -> dict:
    """The metrics of ``schedule`` (``who``'s) plus ``objective`` and ``sim_seconds``; ``easy``: EASY's
    metrics on the same trace (for ``EASY_*`` names). An objective using an undefined metric is None
    with a warning, or, ``judging`` against EASY, an error (:func:`.versus_easy.gate_objective`)."""
    from .versus_easy import gate_objective

    from ..metrics.resources import resource_metrics

    metrics = compute_metrics(schedule, bound=bound)
    row = metrics.to_dict()
    row["objective"] = gate_objective(objective, metrics, easy, who, judging)
    row["sim_seconds"] = sim_seconds
    row.update(resource_metrics(schedule))  # (only a run with resources: CPU_UTIL, GPU_UTIL, MEM_UTIL, waits)
    return row


def _resource_keys(row) -> list[str]:
    """The per-resource keys of a :func:`score` row, in order (none for a run without resources)."""
    from ..metrics.resources import RESOURCE_UTIL_NAMES

    return [k for k in (*RESOURCE_UTIL_NAMES, "waits") if k in row]


def _print_waits(rows) -> None:
    """Waits per partition and per QOS of the rows that have them (:func:`~schedlab.metrics.resources.waits_by_set`):
    one table, nothing for runs without them."""
    from rich.table import Table

    from ..report.table import format_value

    lines = [(label, kind, name, g) for label, r in rows for kind, sets in (r.get("waits") or {}).items()
             for name, g in sets.items()]
    if not lines:
        return
    table = Table(title="waits per partition and QOS", header_style="bold", title_style="bold")
    for heading in ("strategy", "set", "jobs", "wait s", "AWRT s"):
        table.add_column(heading, justify="left" if heading in ("strategy", "set") else "right", no_wrap=True)
    for label, kind, name, g in lines:
        table.add_row(label, f"{kind} {name}", f"{g['jobs']:,}", format_value("mean_wait", g["mean_wait"]),
                      format_value("AWRT", g["AWRT"]))
    _console().print(table)


#: the width of a table written to a pipe or a file (CI and batch logs) unless $COLUMNS says otherwise:
#: wide enough for the telling columns, narrow enough to read in a log viewer
PIPE_WIDTH = 120


def _console(file=None):
    import os

    from rich.console import Console

    console = Console(file=file or sys.stdout)
    if not console.is_terminal and not os.environ.get("COLUMNS"):  # piped or captured: a log's width
        console = Console(file=file or sys.stdout, width=PIPE_WIDTH)
    return console


def _print_table(rows, *, title: str, caption: str, label: str, every_column: str = "--json") -> None:
    """The metrics table, fitted to the terminal (or :data:`PIPE_WIDTH`) by dropping the least telling
    columns first; one line after it names what did not fit and ``every_column``, the option showing all."""
    from ..metrics.resources import RESOURCE_UTIL_NAMES
    from ..report.table import DEFAULT_COLUMNS, HEADINGS, metrics_table

    console = _console()
    columns = [c for c in DEFAULT_COLUMNS if c not in ("mean_response", "mean_slowdown")] if len(rows) > 1 else list(
        DEFAULT_COLUMNS
    )
    versus = [c for c in ("vs_easy_pct", "vs_easy_diff", "UTIL_diff_points", "worst_group_awrt_ratio")
              if any(c in r for _, r in rows)]  # compare: the verdict and the collateral beside the objective
    columns[columns.index("objective") + 1:columns.index("objective") + 1] = versus
    columns[columns.index("UTIL") + 1:columns.index("UTIL") + 1] = RESOURCE_UTIL_NAMES  # (shown when a row has them)
    shown = [c for c in columns if any(c in r for _, r in rows)]

    def fits(table) -> bool:
        return console.measure(table, options=console.options.update_width(100_000)).maximum <= console.width

    table = metrics_table(rows, columns=columns, title=title, caption=caption, label=label)
    for name in _DROP_ORDER:  # fit the terminal by dropping the least telling columns
        if fits(table):
            break
        if name in columns:
            columns.remove(name)
            table = metrics_table(rows, columns=columns, title=title, caption=caption, label=label)
    console.print(table)
    hidden = [HEADINGS.get(c, c) for c in shown if c not in columns]
    notes = [f"{len(hidden)} columns did not fit in {console.width} characters"] if hidden else []
    if not fits(table):
        notes.append(f"cells cut to fit {console.width} characters")
    if notes:  # one line, never wrapped: as many hidden names as the width holds
        tail = f": {every_column} gives every column"
        for k in range(len(hidden), 0, -1):
            names = f" ({', '.join(hidden[:k])}{', ...' if k < len(hidden) else ''})"
            if len("; ".join(notes) + names + tail) <= console.width:
                notes[0] += names
                break
        console.print("; ".join(notes) + tail, soft_wrap=True, markup=False, highlight=False)


def _check_options(objective: str, repeat: int, bound: float) -> Objective:
    if repeat < 1:
        raise OptionError(f"--repeat must be at least 1, got {repeat}")
    if not bound > 0:
        raise OptionError(f"--bound must be > 0 seconds, got {bound}")
    return Objective.of(objective)


def trace_name(workload, trace: str) -> str:
    """The trace's name in JSON output (simulate and compare alike): its name as the table title shows
    it (the file name without the machine's folders), e.g. KTH-SP2-1996-2.1-cln for KTH-SP2."""
    return workload.name or Path(str(trace)).name


def _describe_setup(workload, opts: TraceOptions) -> str:
    """The trace and its set-up for figure titles, e.g. 'KTH-SP2-1996-2.1-cln (first 1 months)'."""
    from ..report.run_report import titled
    from ..workload.cut import PAST_END

    config = opts.to_dict()
    if workload.window.endswith(PAST_END):  # --months beyond the trace: the title states the real span
        config["window"] = workload.window
    return titled(workload.name or "trace", config)


def _describe(workload, procs: int, kill: bool, opts: TraceOptions | None = None) -> str:
    killing = "jobs killed at their estimate" if kill else "jobs run to completion (no killing)"
    return f"{_describe_setup(workload, opts or TraceOptions())}: {len(workload):,} jobs on {procs:,} processors, {killing}"


# ---------------------------------------------------------------------------- commands
@app.command("simulate")
@with_trace_options
@with_scojo_options
@with_slurm_options
def simulate_command(
    trace: str = typer.Argument(..., help=TRACE_HELP, show_default=False),
    policy: str = typer.Option("easy", "--policy", "-p", is_eager=True, callback=_policy_help, help=f"Policy: {' | '.join(POLICIES)} ('help' describes them)."),
    order: str = typer.Option("submit", "--order", help=f"Queue order: {' | '.join(STATIC_ORDERS)}, or greedy (the Greedy scheduler's order), or one of a --plugin file."),
    plugin: list[Path] = PLUGIN,
    strategy_file: Optional[Path] = typer.Option(None, "--strategy", help="Strategy JSON file (overrides --policy/--order)."),
    opts: TraceOptions = None,
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="Objective over metric names, e.g. '10*AWRT1 + 4*AWRT2'."),
    no_kill: bool = typer.Option(False, "--no-kill", help="Let jobs run past their estimate (default: kill at the estimate)."),
    as_json: bool = AS_JSON,
    repeat: int = typer.Option(1, "--repeat", help="Simulate N times; sim_seconds is the median."),
    bound: float = typer.Option(10.0, "--bound", help="Bounded-slowdown threshold in seconds."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Also write the schedule's plots (utilisation, queue, Gantt, waits per group) and plots.html into this folder."),
    schedule_out: Optional[Path] = typer.Option(None, "--schedule-out", help="Write the schedule, one row per job with wait, response, bounded slowdown and killed_at_estimate: CSV, or Parquet for a .parquet path."),
    scojo: ScojoOptions = None,
    site: SlurmSite = None,
) -> None:
    """Simulate one strategy on a trace and print its metrics (UTIL in percent, times in seconds)."""
    obj = _check_options(objective, repeat, bound)
    extra: dict = {}
    wants_slurm = policy.strip().lower() == "slurm" and strategy_file is None
    slurm = site.policy(wanted=wants_slurm)
    strategy = scojo.config(policy.strip().lower() if strategy_file is None else None)  # the time-sharing engine
    window = scojo.window()
    if strategy is None:
        strategy = (load_strategy_file(strategy_file) if strategy_file is not None
                    else parse_policy(policy if order == "submit" else f"{policy}/{order}", engines=False, slurm=slurm))
    for path, what, folder in ((schedule_out, "schedule", False), (plot, "plots", True), (scojo.gantt, "Gantt chart", False)):
        if path is not None:  # every output checked before anything is read or simulated
            check_output(path, what, folder=folder)
    workload = opts.load(trace)
    m = workload.machine_procs
    from .compiling import warm_simulation

    compile_seconds = warm_simulation(workload, m, [strategy], kill=not no_kill)
    schedule, seconds = run_strategy(workload, m, strategy, kill=not no_kill, repeat=repeat)
    if getattr(getattr(schedule, "slurm", None), "allocation", None) is None:  # (a Slurm run with nodes says its own)
        echo_resource_note(workload, f"--policy {strategy.label}")
    echo_run_notes(schedule)
    m = schedule.machine.procs  # --policy slurm: the slurm.conf's CPUs, which UTIL and procs are against
    written: list[Path] = []
    if schedule.timeshare is not None:
        from .scojo import scojo_keys

        extra = scojo_keys(schedule)
        if scojo.gantt is not None:
            from ..report.gantt import gantt_figure

            t0, t1 = window or (float(workload.submit.min()), float(workload.submit.min()) + 6 * 3600.0)
            written.append(gantt_figure(schedule, t0, t1, scojo.gantt, setup=_describe_setup(workload, opts)))
    row = score(schedule, obj, seconds, bound=bound, who=strategy.label)
    row.update(trace=trace_name(workload, trace), trace_options=opts.to_dict(), strategy=strategy.label,
               objective_expression=str(obj), compile_seconds=compile_seconds)
    if schedule_out is not None:
        written.append(write_schedule_csv(schedule, schedule_out, bound=bound))
    if plot is not None:
        from ..metrics.per_job import job_table
        from ..report.schedule_plots import write_schedule_plots

        written += write_schedule_plots({strategy.label: job_table(schedule, bound=bound)}, m, plot,
                                        title=_describe(workload, m, not no_kill, opts))
    if as_json:
        typer.echo(json.dumps({**{key: row[key] for key in (*JSON_KEYS, *_resource_keys(row))}, **extra}, allow_nan=False))
        echo_wrote(written, err=True)  # stdout stays one JSON document
        return
    _print_table(
        [(strategy.label, row)],
        title=_describe(workload, m, not no_kill, opts),
        caption=f"objective: {obj} (lower is better)",
        label="strategy",
    )
    _print_waits([(strategy.label, row)])
    echo_wrote(written)


@app.command("compare")
@with_trace_options
@with_slurm_options
def compare_command(
    trace: str = typer.Argument(..., help=TRACE_HELP, show_default=False),
    policies: str = typer.Option(DEFAULT_POLICIES, "--policies", is_eager=True, callback=_policy_help, help=f"Comma-separated: POLICY or POLICY/ORDER, or a strategy FILE.json; POLICY is one of {', '.join(POLICIES)} ('help' describes them)."),
    plugin: list[Path] = PLUGIN,
    opts: TraceOptions = None,
    objective: str = typer.Option(DEFAULT_OBJECTIVE, "--objective", help="Objective over metric names."),
    no_kill: bool = typer.Option(False, "--no-kill", help="Let jobs run past their estimate."),
    bound: float = typer.Option(10.0, "--bound", help="Bounded-slowdown threshold in seconds."),
    csv_out: Optional[Path] = typer.Option(None, "--csv", help="Also write the table as CSV (all metrics)."),
    threshold: float = typer.Option(5.0, "--threshold", metavar="PCT", help="Flag strategies whose objective is worse than EASY's by more than PCT %."),
    fail_worse_than: Optional[float] = typer.Option(None, "--fail-worse-than", metavar="PCT", help="Exit 1 when a strategy's objective is worse than EASY's by more than PCT % (a gate)."),
    max_util_drop: Optional[float] = MAX_UTIL_DROP,
    max_group_ratio: Optional[float] = MAX_GROUP_RATIO,
    as_json: bool = AS_JSON,
    site: SlurmSite = None,
) -> None:
    """Simulate several strategies on one trace and print one table: rows strategies, columns metrics.

    Column 'vs EASY %' is the objective's improvement over EASY on the same trace, 100 (EASY - value) /
    |EASY| (positive = better; with EASY's objective 0, column 'vs EASY diff' gives value - EASY);
    strategies worse than EASY by more than --threshold % of |EASY| are flagged (WORSE), and those
    whose UTIL falls more than 1 point below EASY's or that make a user group's AWRT more than twice
    EASY's are marked (*, collateral; 'UTIL vs EASY pts' in points, 'worst group x EASY' the largest
    AWRT_g / EASY's AWRT_g over the groups with jobs)."""
    obj = _check_options(objective, 1, bound)
    from ..optimize.versus_easy import worse_than
    from .versus_easy import check_guards, check_threshold, gate, gate_objective, mark_guards

    check_threshold(threshold, fail_worse_than)
    check_guards(max_util_drop, max_group_ratio)
    # a gate (or a guard) judges, so an objective it cannot evaluate is refused in one line; without
    # one, compare still shows every metric, with the objective '-', a warning and no verdict
    gating = fail_worse_than is not None or max_util_drop is not None or max_group_ratio is not None
    if csv_out is not None:
        check_output(csv_out, "CSV table")
    specs = [s for s in (p.strip() for p in policies.split(",")) if s]
    if not specs:
        raise OptionError("--policies is empty; e.g. --policies fcfs,list,easy,conservative")
    slurm = site.policy(wanted="slurm" in specs)
    strategies = [parse_policy(s, engines=True, slurm=slurm) for s in specs]  # all errors before the first simulation
    workload = opts.load(trace)
    m = workload.machine_procs
    from .compiling import warm_simulation

    compile_seconds = warm_simulation(workload, m, strategies, kill=not no_kill)
    echo_resource_note(workload, f"--policies {','.join(specs)}")
    rows = []
    from rich.console import Console

    status = Console(stderr=True)
    with status.status("simulating EASY (the baseline) ..."):
        easy_metrics = compute_metrics(run_strategy(workload, m, Strategy("easy"), kill=not no_kill)[0], bound=bound)
    from ..optimize.versus_easy import judged

    for spec, strategy in zip(specs, strategies):
        with status.status(f"simulating {spec} ..."):
            schedule, seconds = run_strategy(workload, m, strategy, kill=not no_kill)
        echo_run_notes(schedule)
        rows.append((spec, score(schedule, obj, seconds, bound=bound, easy=easy_metrics, who=spec, judging=gating)))
    easy_value = gate_objective(obj, easy_metrics, easy_metrics, "easy (the baseline)", gating)
    guarded = []
    for spec, row in rows:
        judged(row, row["objective"], easy_value, threshold, row, easy_metrics)
        row["vs_easy_pct"] = row["objective_improvement_pct"]
        if easy_value == 0:  # no percentage of 0: the table shows value - EASY
            row["vs_easy_diff"] = row["objective_diff"]
        guarded += [f"{spec}: {text}" for text in mark_guards(row, max_util_drop, max_group_ratio)]
    flagged = [spec for spec, r in rows if r["worse_than_easy"]]
    undefined = easy_value is None or any(r["objective"] is None for _, r in rows)  # (no gate: warned above)
    marked = {spec: r["collateral"] for spec, r in rows if r["collateral"]}
    worse = flagged if fail_worse_than is None else [
        spec for spec, r in rows if worse_than(easy_value, r["objective"], fail_worse_than)]
    written = []
    if csv_out is not None:
        from ..report.table import write_metrics_csv

        from ..metrics.resources import RESOURCE_UTIL_NAMES

        written.append(write_metrics_csv(csv_out, rows, columns=(*CSV_KEYS, *RESOURCE_UTIL_NAMES)))  # (those present)
    if as_json:
        typer.echo(json.dumps({"trace": trace_name(workload, trace), "trace_options": opts.to_dict(), "objective_expression": str(obj),
                               "threshold_pct": threshold, "judged_against_easy": not undefined,
                               "worse_than_easy": flagged, "collateral": marked,
                               "rows": [dict(r, strategy=spec) for spec, r in rows]}, allow_nan=False))
        echo_wrote(written, err=True)  # stdout stays one JSON document
        gate(worse, fail_worse_than, guarded)
        return
    compiled = f"; kernels compiled/loaded in {compile_seconds:.1f} s (not in sim s)" if compile_seconds >= 0.5 else ""
    shown = [(spec + (" [bold red](WORSE)[/]" if r["worse_than_easy"] else "")
              + ("[bold red]*[/]" if r["collateral"] else ""), r) for spec, r in rows]
    flag = (f"; (WORSE) = objective worse than EASY's by more than {threshold:g} %: {', '.join(flagged)}" if flagged
            else "; the objective is undefined here (warning above): no strategy judged against EASY" if undefined
            else f"; no strategy worse than EASY by more than {threshold:g} %")
    flag += ("; * = collateral beyond the marks: " + "; ".join(f"{spec}: {', '.join(c)}" for spec, c in marked.items()) if marked
             else "; no UTIL drop or group slowdown beyond the marks")
    _print_table(
        shown,
        title=_describe(workload, m, not no_kill, opts),
        caption=f"objective: {obj}; lower is better except UTIL; best of each column in green{flag}{compiled}",
        label="strategy",
        every_column="--csv FILE or --json",
    )
    _print_waits(rows)
    echo_wrote(written)
    gate(worse, fail_worse_than, guarded)


def write_schedule_csv(schedule, path: Path, *, bound: float = 10.0) -> Path:
    """The schedule, one row per job (:data:`SCHEDULE_COLUMNS`: the schedule plus wait, response,
    bounded slowdown and killed_at_estimate), written atomically: Parquet for ``.parquet`` paths,
    else CSV."""
    from .._atomic import atomic_write_bytes
    from ..metrics.per_job import job_table
    from ..report.table import write_text_atomic

    df = job_table(schedule, bound=bound)
    try:
        if str(path).lower().endswith(".parquet"):
            return atomic_write_bytes(path, df.to_parquet(index=False))
        return write_text_atomic(path, df.to_csv(index=False, lineterminator="\n"))
    except OSError as exc:
        raise OptionError(f"{path}: cannot write schedule: {exc.strerror or exc}") from None
