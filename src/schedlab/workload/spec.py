"""A trace as every verb and optimizer asks for it (:class:`TraceSpec`), and the one way to prepare it.

:func:`prepare_trace` is the pipeline behind every command that reads a TRACE and behind the
optimizers' training, test, federation and grid traces: resolve the name (:func:`resolve_trace`),
read it in its format, refuse a job wider than the machine (:func:`refuse_too_wide`), clean, cut to
the first months, assign user groups (:func:`load_trace`), refuse an empty result, then scale
(``--scale-to``, optionally ``--calibrate-load``, :func:`schedlab.workload.calibrate.rescale`).
With ``split_months`` the cleaned trace is cut into two windows of the same calendar as ``--months``
before grouping and scaling, and :func:`split_trace` returns both parts, each grouped on its own
jobs and scaled alike (held-out evaluation, :mod:`schedlab.optimize.heldout`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import WorkloadError
from .calibrate import Utilisation, rescale
from .clean import check_machine_size
from .cut import split_months
from .groups import assign_groups
from .load import load_trace, parse_format, read_cleaned
from .model import Workload

__all__ = ["GROUPS_PER_WINDOW", "TraceSpec", "prepare_trace", "split_trace"]


def _positive(option: str, value: int | None) -> None:
    if value is not None and (int(value) != value or value < 1):
        raise WorkloadError(f"{option} must be a positive whole number, got {value}")


@dataclass(frozen=True)
class TraceSpec:
    """A trace and how to prepare it; every field is one trace option of the CLI (named in its errors).

    ``trace``: a path or a name (bundled, fetched, or in the workloads folder); ``format``: auto
    (None), swf, sacct[:ZONE] or pbs[:ZONE]; ``procs``: the machine size (default the header's);
    ``months``: keep the first N calendar months; ``scale_to``: scale to this many processors
    (Ernemann et al. 2003, seed 0); ``calibrate_load``: with ``scale_to``, raise the scaling factor
    until EASY's UTIL hits the target; ``split_months``: train on the first K months, test on the rest.
    Checked on construction, before anything is read.
    """

    trace: str | os.PathLike | None = None
    format: str | None = None
    procs: int | None = None
    months: int | None = None
    scale_to: int | None = None
    calibrate_load: bool = False
    split_months: int | None = None

    def __post_init__(self) -> None:
        for option, size in (("--procs", self.procs), ("--scale-to", self.scale_to)):
            if size is not None:
                check_machine_size(option, size)  # at most MAX_PROCS processors
        _positive("--months", self.months)
        _positive("--split-months", self.split_months)
        if self.calibrate_load and self.scale_to is None:
            raise WorkloadError("--calibrate-load calibrates a scaled trace: give --scale-to too")
        parse_format(self.format)  # an unknown --format is refused before anything is read


def _cleaned(spec: TraceSpec, site: str | None) -> Workload:
    """The trace read, checked, cleaned, cut and grouped (:func:`load_trace`); no jobs left is an error."""
    if spec.trace is None:
        raise WorkloadError("no trace given")
    w = load_trace(spec.trace, procs=spec.procs, months=spec.months, format=spec.format, site=site)
    if len(w) == 0:
        raise WorkloadError(f"{spec.trace}: trace has no jobs to schedule")
    return w


def prepare_trace(spec: TraceSpec, *, utilisation: Utilisation | None = None, site: str | None = None) -> Workload:
    """The workload ``spec`` describes, ready to simulate: read, checked, cleaned, cut, grouped, scaled.

    ``utilisation`` measures EASY's UTIL for ``calibrate_load`` (:mod:`schedlab.workload.calibrate`);
    ``site`` names a grid site whose size ``procs`` is (only the wording of a too-wide job's error).
    """
    if spec.split_months is not None:
        raise WorkloadError(f"{spec.trace}: --split-months {spec.split_months} makes two workloads: use split_trace")
    return rescale(_cleaned(spec, site), spec.scale_to, spec.calibrate_load, utilisation=utilisation)


#: Where the user groups of a split (``--split-months K``) are computed: on each window's own jobs.
#: The training part is grouped on months 1-K, exactly as ``--months K`` groups it, so the training
#: row of a run is the number ``simulate``/``compare --months K`` gives; the test part on months
#: K+1-N alone. Grouping on the whole window (the earlier rule) let the test months decide who is a
#: heavy user during training, which no single-window command reproduces (issue 43, item 5).
GROUPS_PER_WINDOW = "each window on its own jobs"


def split_trace(spec: TraceSpec, *, utilisation: Utilisation | None = None) -> tuple[Workload, Workload]:
    """(months 1-K, months K+1-N) of the trace, K = ``split_months``, N = ``months`` (None: to the end),
    named ``NAME[months 1-K: DATES]`` and ``NAME[months K+1-N: DATES]`` (:func:`schedlab.workload.cut.window_label`), each
    grouped on its own jobs (:data:`GROUPS_PER_WINDOW`) and scaled as ``spec`` says; either part empty
    is a one-line error.

    Both parts are windows of the one calendar of :func:`schedlab.workload.cut.cut_months`, counted from
    the trace's start: the first part is the workload ``--months K`` prepares (same jobs, same groups);
    the second starts on an empty machine (:func:`schedlab.workload.cut.split_months`).
    """
    k = spec.split_months
    if k is None:
        raise WorkloadError(f"{spec.trace}: no --split-months given")
    if spec.trace is None:
        raise WorkloadError("no trace given")
    w = read_cleaned(spec.trace, procs=spec.procs, format=spec.format)
    if spec.months is not None and k >= spec.months:
        raise WorkloadError(f"--split-months {k} leaves no test months within --months {spec.months}")
    train, test = split_months(w, k, spec.months)
    name = w.name or str(spec.trace)
    if len(train) == 0 or len(test) == 0:
        raise WorkloadError(f"{spec.trace}: --split-months {k} leaves no jobs "
                            f"{'before' if len(train) == 0 else 'after'} the split")
    parts = ((train, f"1-{k}"), (test, f"{k + 1}-{spec.months or ''}"))
    return tuple(rescale(assign_groups(part).replace(name=f"{name}[months {months}: {part.window}]"),
                         spec.scale_to, spec.calibrate_load, utilisation=utilisation)
                 for part, months in parts)
