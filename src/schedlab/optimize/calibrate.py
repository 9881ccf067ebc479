"""EASY's utilisation, the measurement that load calibration of a scaled trace needs.

The calibration itself (the f_adj search of method-notes topic 1, step 5) is workload arithmetic
and lives in :mod:`schedlab.workload.calibrate`; measuring EASY's UTIL needs the simulator and the
metrics, so it lives here, above both, and is handed down as ``utilisation``. The names
:func:`load_target`, :func:`scale_to_util` and :func:`rescale_workload` are kept for existing
callers: the workload functions with :func:`easy_util` bound.
"""

from __future__ import annotations

from ..sim.engine import simulate
from ..sim.model import Machine
from ..workload import Workload
from ..workload import calibrate as _calibrate
from ..workload.calibrate import CTC_1024_EASY_UTIL, Calibration  # noqa: F401  (re-exported)


def easy_util(workload: Workload) -> float:
    """UTIL (%) of EASY backfilling on the workload's own machine, jobs killed at their estimate."""
    from ..metrics import compute_metrics
    from ..strategy import Strategy

    return float(compute_metrics(simulate(workload, Machine(workload.machine_procs), Strategy("easy")))["UTIL"])


def load_target(workload: Workload, procs: int) -> float:
    """:func:`schedlab.workload.calibrate.load_target` measured by :func:`easy_util`."""
    return _calibrate.load_target(workload, procs, easy_util)


def scale_to_util(workload: Workload, procs: int, target_util: float, **options) -> tuple[Workload, Calibration]:
    """:func:`schedlab.workload.calibrate.scale_to_util` measured by :func:`easy_util`."""
    return _calibrate.scale_to_util(workload, procs, target_util, utilisation=easy_util, **options)


def rescale_workload(workload: Workload, scale_to: int | None, calibrate_load: bool = False) -> Workload:
    """:func:`schedlab.workload.calibrate.rescale` measured by :func:`easy_util`."""
    return _calibrate.rescale(workload, scale_to, calibrate_load, utilisation=easy_util)
