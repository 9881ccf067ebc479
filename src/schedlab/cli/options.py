"""Options shared by the verbs: one name, one meaning and one default each, defined once here.

Every verb that takes a TRACE takes the trace options :data:`TRACE_OPTIONS` (:data:`PROCS`,
:data:`MONTHS`, :data:`SCALE_TO`, :data:`CALIBRATE_LOAD`, :data:`FORMAT`), declared once: the verb is
decorated with :func:`with_trace_options` and receives them as one checked :class:`TraceOptions`;
it prepares the trace through :meth:`TraceOptions.load` (:func:`schedlab.workload.spec.prepare_trace`,
as the optimizers do), so a strategy trained on a scaled, load-calibrated trace is replayed
on exactly that trace by ``simulate`` / ``compare``. Short flags mean one thing everywhere:
``-m`` = ``--procs``, ``-o`` = ``--output``, ``-p`` = ``--policy``. ``--seed`` defaults to
:data:`DEFAULT_SEED` and ``--workers`` to all cores in every long run.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import asdict, dataclass
from typing import Any, Optional

import typer

from ..errors import SchedlabError
from .trace_format import FORMAT  # noqa: F401  (re-exported: one of the trace options)

#: the one default seed of every verb (the committed runs of docs/results used it)
from ..optimize.settings import DEFAULT_SEED  # noqa: E402  (one default seed: optimize/settings)

TRACE_HELP = ("Trace: SWF (.swf, .swf.gz), Slurm sacct --parsable2 or PBS accounting file, or a name: bundled (KTH-SP2), "
              "fetched by 'workload fetch', or a file of $SCHEDLAB_WORKLOADS (archive name or a unique prefix such as SDSC-SP2).")
PROCS = typer.Option(None, "--procs", "-m", help="Machine size m, 1 to 2,147,483,647 (default: the trace header's); a job wider than the machine is an error.")
MONTHS = typer.Option(None, "--months", help="Keep the first N calendar months of the trace only.")
SCALE_TO = typer.Option(None, "--scale-to", help="Scale the trace to this many processors (Ernemann et al. 2003, seed 0).")
CALIBRATE_LOAD = typer.Option(
    False, "--calibrate-load",
    help="With --scale-to: raise the scaling factor until EASY's UTIL hits the published / original one.",
)
def non_negative_seed(param: typer.CallbackParam, value: Optional[int]) -> Optional[int]:
    """Option callback: a random seed is a whole number >= 0 (numpy's generators take no other),
    refused while the options are read (the same check the optimizers' settings make)."""
    from ..optimize.settings import check_seed

    if value is not None:
        check_seed(value, param.opts[0])
    return value


SEED = typer.Option(DEFAULT_SEED, "--seed", callback=non_negative_seed,
                    help="Random seed, 0 or more (same seed, same result on 1 or N workers).")
TEST = typer.Option([], "--test", help="held-out trace (repeat the option): scored on the best each generation, never used for selection")
SPLIT_MONTHS = typer.Option(None, "--split-months", metavar="K", help="train on the first K months of each trace, test on the months after")
WORKERS = typer.Option(None, "--workers", help="Local worker processes (default: all cores; 1 = serial).")
DASK = typer.Option(None, "--dask", help="Dask scheduler address (tcp://host:port), scheduler file, or 'local'.")
AS_JSON = typer.Option(False, "--json", help="Print one JSON document instead of a table.")
SLURM_CONF = typer.Option(None, "--slurm-conf", help="policy slurm: the site's slurm.conf excerpt (Priority*, SchedulerParameters, NodeName, PartitionName lines).")
SLURM_SHARES = typer.Option(None, "--slurm-shares", help="policy slurm: account shares, an 'sshare -P -o Account,User,RawShares' file (default: equal shares).")
SLURM_QOS = typer.Option(None, "--slurm-qos", help="policy slurm: QOS priorities and limits, a 'sacctmgr -P show qos' dump (Name, Priority, MaxJobsPU, MaxSubmitPU, MaxTRESPU, GrpTRES, GrpJobs, MaxWall; jobs' QOS from a converted sacct log).")
SLURM_ASSOC = typer.Option(None, "--slurm-assoc", help="policy slurm: association limits, a 'sacctmgr -P show assoc' dump (MaxJobs, MaxSubmit, GrpTRES, GrpJobs, MaxWall; --slurm-qos's file gives the QOS limits).")
SLURM_OPTION = typer.Option(None, "--slurm-option", metavar="NAME=VALUE,...", help="policy slurm: named readings of docs/slurm-policy-spec.md section 8 (e.g. queue_map=default,kill_check=exact).")
OUTPUT = typer.Option(..., "--output", "-o", help="Output SWF file (.gz to compress); written atomically.")


class OptionError(SchedlabError, ValueError):
    """A command-line option with a value that cannot be used."""


def positive(name: str, value: Optional[int]) -> None:
    """Refuse a whole-number option below 1 (None = not given)."""
    if value is not None and value < 1:
        raise OptionError(f"{name} must be a positive whole number, got {value}")


def executor_spec(workers: Optional[int], dask: Optional[str]) -> tuple[Optional[str], Optional[int]]:
    """``(spec, workers)`` for :func:`schedlab.execute.make_executor`; bad values refused before any work."""
    positive("--workers", workers)
    if workers is not None and not dask:  # checked here, before any work, not when the pool starts
        from ..execute.executors import check_local_workers

        check_local_workers(workers, "--workers")
    if dask:
        return ("dask" if dask == "local" else f"dask:{dask}"), workers
    return None, workers


@dataclass(frozen=True)
class TraceOptions:
    """The trace options of one command, checked on construction (before anything is read or written):
    a :class:`schedlab.workload.spec.TraceSpec` still waiting for its trace."""

    procs: Optional[int] = None
    months: Optional[int] = None
    scale_to: Optional[int] = None
    calibrate_load: bool = False
    #: ``--format``: auto (None), swf, sacct[:ZONE] or pbs[:ZONE]
    fmt: Optional[str] = None

    def __post_init__(self) -> None:
        self.spec()  # TraceSpec checks every option

    def spec(self, trace=None, **more):
        """The :class:`~schedlab.workload.spec.TraceSpec` of ``trace`` with these options (``more``: e.g. split_months)."""
        from ..workload.spec import TraceSpec

        return TraceSpec(trace, format=self.fmt, procs=self.procs, months=self.months, scale_to=self.scale_to,
                         calibrate_load=self.calibrate_load, **more)

    def to_dict(self) -> dict:
        out = asdict(self)
        if out["fmt"] is None:  # sniffed: not part of what was simulated
            del out["fmt"]
        return out

    def describe(self) -> str:
        """The set-up in words, e.g. 'first 2 months, scaled to 1024 processors, load-calibrated'."""
        from ..report.run_report import setup_words

        return setup_words(asdict(self))

    def load(self, trace: str):
        """The prepared trace (:func:`schedlab.workload.spec.prepare_trace`): read, checked, cleaned, cut, grouped, scaled."""
        from ..optimize.calibrate import easy_util
        from ..workload.spec import prepare_trace

        return prepare_trace(self.spec(trace), utilisation=easy_util)

    def rescale(self, workload):
        """``--scale-to`` (and ``--calibrate-load``) of a cleaned workload, as :meth:`load` scales it."""
        from ..optimize.calibrate import easy_util
        from ..workload.calibrate import rescale

        return rescale(workload, self.scale_to, self.calibrate_load, utilisation=easy_util)


#: the trace options of every verb that reads a TRACE: parameter -> (type, option), in TraceOptions' order
TRACE_OPTIONS: dict[str, tuple[Any, Any]] = {
    "procs": (Optional[int], PROCS),
    "months": (Optional[int], MONTHS),
    "scale_to": (Optional[int], SCALE_TO),
    "calibrate_load": (bool, CALIBRATE_LOAD),
    "fmt": (Optional[str], FORMAT),
}


def spliced(command, param: str, options: dict[str, tuple[Any, Any]], gather):
    """``command`` with ``options`` (parameter -> (type, Typer option)) in its Typer signature in place of
    its parameter ``param``, which receives ``gather(values)``, ``values`` = {parameter: value}: a group
    of options declared once and shared by several verbs."""
    sig = inspect.signature(command, eval_str=True)
    own = list(sig.parameters.values())
    at = [p.name for p in own].index(param)
    added = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=opt, annotation=kind)
             for name, (kind, opt) in options.items()]
    params = own[:at] + added + own[at + 1:]

    @functools.wraps(command)
    def wrapper(**kwargs):
        group = gather({name: kwargs.pop(name) for name in options})
        return command(**kwargs, **{param: group})

    wrapper.__signature__ = sig.replace(parameters=params)
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def with_trace_options(command):
    """``command`` with the trace options :data:`TRACE_OPTIONS` in its Typer signature where it has its
    parameter ``opts``; it receives them there as one :class:`TraceOptions`, checked before it runs
    (so before anything is read or written). The one declaration of the trace options of every verb."""
    return spliced(command, "opts", TRACE_OPTIONS, lambda values: TraceOptions(**values))


def check_output(path, what: str, *, folder: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written: a file path that is a folder or
    whose folder is missing or read-only, a ``folder`` path (made with its parents) that is a file or
    lies below one (the one check of every output option, :func:`schedlab._atomic.output_problem`)."""
    from .._atomic import output_problem

    problem = output_problem(path, folder=folder)
    if problem is not None:
        raise OptionError(f"{path}: cannot write the {what}: {problem}")


def echo_wrote(paths, *, err: bool = False) -> None:
    """One ``wrote PATH`` line per file written, on stdout as every verb does (``err``: on stderr, when
    stdout carries one JSON document)."""
    for path in paths:
        typer.echo(f"wrote {path}", err=err)

#: continue a finished (or interrupted) run folder to a larger --generations (evolve, grid pareto)
EXTEND = typer.Option(False, "--extend", help="Continue the run folder to a larger --generations than it was made with "
                      "(the result equals one run of the larger budget).")


#: ``--util-guard`` of every training verb (``rules iterative|evolve``, ``evolve greedy``): one option, one help
UTIL_GUARD = typer.Option(None, "--util-guard", metavar="DELTA", help="train on objective x (1 + max(0, EASY_UTIL - UTIL "
                          "- DELTA)): a penalty when UTIL falls more than DELTA points below EASY's (default: off, the paper)")
