"""schedlab.federation: heterogeneous multi-cluster federations (slowdown-guided-ga-federation).

Platform (clusters of nodes with relative power, one inter-cluster link each), rigid jobs with
communication attributes, the execution-slowdown model, Algorithm 1 allocation, JPR / CBS / METL
and the compiled package schedule builder; the GA over package orders is
:mod:`schedlab.optimize.federation_ga`.
"""

from .jobs import COMM_READING, PACKAGE_READING, FederatedJobs, packages
from .model import GA_METHODS, HEURISTICS, METHODS, FederationOptions
from .platform import Platform, PlatformError, default_platform, load_platform
from .schedule import FederatedSchedule, PackageProblem, schedule_workload
from .validate import FederatedScheduleInvalid, validate_federated

__all__ = [
    "COMM_READING",
    "FederatedJobs",
    "FederatedSchedule",
    "FederatedScheduleInvalid",
    "FederationOptions",
    "GA_METHODS",
    "HEURISTICS",
    "METHODS",
    "PACKAGE_READING",
    "PackageProblem",
    "Platform",
    "PlatformError",
    "default_platform",
    "load_platform",
    "packages",
    "schedule_workload",
    "validate_federated",
]
