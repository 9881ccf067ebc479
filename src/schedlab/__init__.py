"""schedlab: develop online scheduling strategies for parallel machines and grids.

Read a real trace, simulate a strategy, score the schedule against an owner's objective::

    from schedlab import read_swf, simulate, Machine, Strategy, compute_metrics
    w = read_swf("KTH-SP2-1996-2.1-cln.swf.gz")
    s = simulate(w, Machine(w.machine_procs), Strategy("easy"))
    compute_metrics(s)["AWRT"]

``simulate_any`` takes a strategy of any kind (a ``Strategy``, a rule base, a SCOJO-PECT config, a
Slurm policy: the rows of ``schedlab.strategy.registry.KINDS``).
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
from .workload.swf import read_swf, write_swf

__version__ = "0.1.0"

__all__ = ["Criterion", "Greedy", "SWFError", "SchedlabError", "Strategy", "Workload", "Objective", "__version__", "compute_metrics", "load_plugin", "load_trace", "register_order", "register_rule", "read_swf", "write_swf", "Machine", "Schedule", "simulate", "simulate_any"]
