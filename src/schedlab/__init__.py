"""schedlab: develop online scheduling strategies for parallel machines and grids.

Read a real trace, simulate a strategy, score the schedule against an owner's objective::

    from schedlab import read_swf, simulate, Machine, Strategy, compute_metrics
    w = read_swf("KTH-SP2-1996-2.1-cln.swf.gz")
    s = simulate(w, Machine(w.machine_procs), Strategy("easy"))
    compute_metrics(s)["AWRT"]
"""

from .errors import SchedlabError, SWFError
from .metrics import Objective, compute_metrics
from .sim import Machine, Schedule, simulate
from .strategy import Criterion, Greedy, Strategy
from .workload.load import load_trace
from .workload.model import Workload
from .workload.swf import read_swf, write_swf

__version__ = "0.1.0"

__all__ = ["Criterion", "Greedy", "SWFError", "SchedlabError", "Strategy", "Workload", "Objective", "__version__", "compute_metrics", "load_trace", "read_swf", "write_swf", "Machine", "Schedule", "simulate"]
