"""A trace as every verb and optimizer asks for it (:class:`TraceSpec`), and the one way to prepare it.

:func:`prepare_trace` is the pipeline behind every command that reads a TRACE and behind the
optimizers' training, test, federation and grid traces: resolve the name (:func:`resolve_trace`),
read it in its format, refuse a job wider than the machine (:func:`refuse_too_wide`), clean, cut to
the first months, assign user groups (:func:`load_trace`), refuse an empty result, then scale
(``--scale-to``, optionally ``--calibrate-load``, :func:`schedlab.workload.calibrate.rescale`).
With ``split_months`` the cleaned trace is cut in time before scaling and :func:`split_trace`
returns both parts, each scaled alike (held-out evaluation, :mod:`schedlab.optimize.heldout`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import WorkloadError
from .calibrate import Utilisation, rescale
from .cut import split_months
from .load import load_trace, parse_format
from .model import Workload

__all__ = ["TraceSpec", "prepare_trace", "split_trace"]


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
        _positive("--procs", self.procs)
        _positive("--months", self.months)
        _positive("--scale-to", self.scale_to)
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


def split_trace(spec: TraceSpec, *, utilisation: Utilisation | None = None) -> tuple[Workload, Workload]:
    """(first ``split_months`` months, the months after) of the prepared trace, named ``NAME[months 1-K]``
    and ``NAME[months K+1-]``, each scaled as ``spec`` says; either part empty is a one-line error.

    User groups are assigned on the whole window first, so a user is in the same group in both parts;
    the second part starts on an empty machine (:func:`schedlab.workload.cut.split_months`).
    """
    k = spec.split_months
    if k is None:
        raise WorkloadError(f"{spec.trace}: no --split-months given")
    w = _cleaned(spec, None)
    train, test = split_months(w, k)
    name = w.name or str(spec.trace)
    if len(train) == 0 or len(test) == 0:
        raise WorkloadError(f"{spec.trace}: --split-months {k} leaves no jobs "
                            f"{'before' if len(train) == 0 else 'after'} the split")
    return tuple(rescale(part.replace(name=f"{name}[months {a}]"), spec.scale_to, spec.calibrate_load, utilisation=utilisation)
                 for part, a in ((train, f"1-{k}"), (test, f"{k + 1}-")))
