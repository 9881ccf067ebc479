"""schedlab: develop online scheduling strategies for parallel machines and grids.

Everything a notebook needs is a name of this package (``import schedlab as sl``)::

    w = sl.prepare_trace(sl.TraceSpec("KTH-SP2", months=2))    # read, clean, cut, group, scale
    s = sl.simulate_any(w, sl.Machine(w.machine_procs), sl.Strategy("easy"))  # any strategy kind
    sl.Objective("10*AWRT1 + 4*AWRT2")(sl.compute_metrics(s))
    run = sl.minimize(sl.Problem("greedy", ["KTH-SP2"]), "es", 10, out="RUN")  # any optimizer, by name
    sl.compare_with_easy(run.best, [w], [sl.Machine(w.machine_procs)], "10*AWRT1 + 4*AWRT2")

``simulate_any`` takes a strategy of any kind (a ``Strategy``, a rule base, a SCOJO-PECT config, a
Slurm policy: the rows of ``schedlab.strategy.registry.KINDS``); ``save_strategy``/``load_strategy``
its file form; ``minimize`` every optimizer (``schedlab.strategy.registry.OPTIMIZERS``) over a
``Problem``; ``plot_schedules`` and the ``report`` module draw. Names beyond the first imports are
loaded when first used.
"""

import os as _os

# numpy's OpenBLAS keeps its threads spinning for 2^28 cycles after every call before they sleep.
# numpy calls into it (the metrics did, CMA-ES and k-means still do), so beside the process-pool workers of a run
# those spinning threads took 16 % of the CPU (perf, symbiotic CTC-1024 run, 2 workers on 2
# cores), and each call burned ~27 ms of a core. 2^4 cycles instead: the same threads split the
# same sums (the same bits), then sleep. Takes effect only when numpy is not imported yet: the
# CLI and the workers it starts (tests/test_blas_spin.py).
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

from .errors import SchedlabError, SWFError  # noqa: E402  (after the OpenBLAS setting)
from .metrics import Objective, compute_metrics
from .sim import Machine, Schedule, simulate
from .sim.strategies import simulate_any
from .strategy import Criterion, Greedy, Strategy, register_order, register_rule
from .strategy.plugin import load_plugin
from .workload.load import load_trace
from .workload.model import Workload
from .workload.spec import TraceSpec, prepare_trace, split_trace
from .workload.swf import read_swf, write_swf

__version__ = "0.1.0"

#: the face's names loaded when first used (a notebook that only simulates loads no optimizer, no matplotlib)
_LAZY = {
    "Problem": "schedlab.optimize.problem", "minimize": "schedlab.optimize.problem",
    "SPACES": "schedlab.optimize.problem", "Termination": "schedlab.optimize.termination",
    "OPTIMIZERS": "schedlab.strategy.registry", "KINDS": "schedlab.strategy.registry",
    "compare_with_easy": "schedlab.optimize.versus_easy",
    "strategy_to_dict": "schedlab.strategy.registry", "strategy_from_dict": "schedlab.strategy.registry",
    "load_strategy": "schedlab.strategy.registry:load_strategy_file", "save_strategy": "schedlab.strategy.registry",
    "ScojoConfig": "schedlab.strategy.scojo_config", "RuleBase": "schedlab.strategy.rules",
    "job_table": "schedlab.metrics.per_job", "plot_schedules": "schedlab.report.schedule_plots",
}
#: modules of the face, imported when first used
_MODULES = ("report",)


def __getattr__(name: str):
    import importlib

    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY:  # "module" (the same name there) or "module:attribute"
        module, _, attribute = _LAZY[name].partition(":")
        return getattr(importlib.import_module(module), attribute or name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_MODULES))


__all__ = ["Criterion", "Greedy", "SWFError", "SchedlabError", "Strategy", "Workload", "Objective", "TraceSpec",
           "__version__", "compute_metrics", "load_plugin", "load_trace", "prepare_trace", "register_order",
           "register_rule", "read_swf", "split_trace", "write_swf", "Machine", "Schedule", "simulate", "simulate_any",
           *_LAZY, *_MODULES]
