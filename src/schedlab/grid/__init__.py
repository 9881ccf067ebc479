"""Grids of independent EASY sites: multi-site simulation with job exchange (none, POOL, RQ),
static workload partitions and the paper's setups (nsga2-grid-performance-bounds; DESIGN.md).

The NSGA-II Pareto run lives in :mod:`schedlab.optimize.grid_pareto` (imports pymoo on use).
"""

from .partition import AWRT_LIMIT, PartitionProblem, evaluate_partition, split_trace
from .setups import SETUPS, load_grid, load_sites
from .sim import GridSchedule, GridTrace, Site, check_site_schedules, simulate_grid

__all__ = [
    "AWRT_LIMIT", "SETUPS", "GridSchedule", "GridTrace", "PartitionProblem", "Site", "check_site_schedules",
    "evaluate_partition", "load_grid", "load_sites", "simulate_grid", "split_trace",
]
