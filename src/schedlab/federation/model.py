"""Options of the federation model and the array form of a platform that the kernels read.

Every reading of slowdown-guided-ga-federation / method-notes topic 6 that is not fixed by the
sources is an option of :class:`FederationOptions`, whose docstrings quote the text they read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..errors import SchedlabError
from .allocation import ALG1, CBS, TOP
from .layout import JobArrays, PlatformArrays
from .platform import Platform

__all__ = ["FederationOptions", "METHODS", "HEURISTICS", "GA_METHODS", "platform_arrays", "job_arrays", "opts_array"]

#: the paper's heuristics (evaluate a package deterministically) and its two GAs
HEURISTICS = ("jpr", "cbs", "metl")
GA_METHODS = ("ga-random", "ga-metl")
METHODS = HEURISTICS + GA_METHODS

#: allocation used by each method: JPR most powerful free nodes, CBS chunks, the others Algorithm 1
ALLOCATION = {"jpr": TOP, "cbs": CBS, "metl": ALG1, "ga-random": ALG1, "ga-metl": ALG1}


class FederationOptionError(SchedlabError, ValueError):
    """A federation option with a value that cannot be used."""


@dataclass(frozen=True)
class FederationOptions:
    """Readings of the execution-slowdown model, METL and CBS (all recorded in run configs).

    ``dynamic`` -- method-notes topic 6, model step 5: "[DEF] Evaluate SP_j once at the job's
    start (including its own link load and that of jobs already running) and keep it fixed — used
    both inside METL and for the reported makespan. Optional dynamic variant: recompute SP for all
    running co-allocated jobs at every start/finish and advance each job's progress at rate 1/SP."
    False (default): static SP at start; True: the dynamic variant.

    ``metl_loss`` -- method-notes topic 6, Unknowns: "METL loss definition (absolute vs relative)
    | not readable | absolute T_j − Tb_j/Γ_max". ``"absolute"`` (default): loss_j = T_j - T*_j with
    T*_j = Tb_j / Gamma_max; ``"relative"``: (T_j - T*_j) / T*_j.

    ``cbs_cap_chunk`` -- method-notes topic 6, CBS: "Else, if some cluster k has ≥ ⌈0.75·t_j⌉ free
    nodes: put the big chunk there ... Else wait for the next finish (no co-allocation with small
    chunks only)". Taken literally, a job wider than 4/3 of the largest cluster never runs (HPC2N
    has 200-task jobs, the default clusters 64 nodes). True (default): the chunk requirement is
    min(⌈0.75 t_j⌉, largest cluster size), i.e. "as large a chunk as any cluster can hold";
    False: literal (such jobs make CBS fail with an error).

    ``package_start`` -- how a package follows the previous one. The paper does not say: it
    schedules "job-packages" (Abstract), its proposal "is designed to treat large complete set of
    jobs identifying their resources allocation, and in case that not enough free resources are
    available, it also determines the best job execution order that minimizes the global makespan"
    (Sect. 2), the makespan is taken "for all the jobs in the workload" (Sect. 3), and Figs. 4-5
    give one makespan per workload of 2,000 jobs. method-notes topic 6, Unknowns: "how packages are
    released (all at time 0 vs. submit times) and whether the next package waits for the previous
    one | not readable | all jobs of a package available at package start; packages processed
    back-to-back on the same platform". ``"carry"`` (default): package p is released when the last
    job of package p-1 has started (the queue is empty, the scheduler takes the next package) on
    the platform as p-1 left it -- its jobs still running keep their nodes and link load until
    their predicted finish; the jobs of p then start strictly in p's order, none before the
    release. The packages are one strict-order chain, and the workload makespan counts the
    overlap. ``"barrier"``: package p starts on the empty platform when the last job of p-1 has
    finished (the reading of the issue 14/14b results): the workload makespan is then the sum of
    the package makespans. The packages' jobs are all available at their package's start (submit
    times are not used) in both readings. ``"carry"`` needs the static model when a workload has
    more than one package (a carried job's remaining work under the dynamic model is not kept):
    :meth:`check_packages`.

    ``makespan`` -- the reported makespan of a workload. Sect. 3: "The makespan is defined as the
    elapsed time between the submission of the first job until the finalization of the last one.
    It is calculated as max(F_i) - min(I_j) for all the jobs in the workload, F_i being the time
    when job i finishes, and I_j being the time when job j starts." ``"workload"`` (default): that
    formula over the whole schedule. ``"package-sum"``: method-notes topic 6, "report makespan per
    package and summed" -- the sum over packages of (last finish of the package's jobs - the
    package's release); under ``package_start="barrier"`` both readings give the same number.
    The GA's fitness is the package's own makespan (last finish of its jobs - its release) in both.
    """

    dynamic: bool = False
    metl_loss: str = "absolute"
    cbs_cap_chunk: bool = True
    package_start: str = "carry"
    makespan: str = "workload"

    def __post_init__(self) -> None:
        if self.metl_loss not in ("absolute", "relative"):
            raise FederationOptionError(f"METL loss {self.metl_loss!r}: choose absolute or relative")
        if self.package_start not in PACKAGE_STARTS:
            raise FederationOptionError(f"package start {self.package_start!r}: choose {' or '.join(PACKAGE_STARTS)}")
        if self.makespan not in MAKESPAN_READINGS:
            raise FederationOptionError(f"makespan reading {self.makespan!r}: choose {' or '.join(MAKESPAN_READINGS)}")

    def check_packages(self, n_packages: int) -> None:
        """One-line error for a reading that cannot schedule ``n_packages`` packages."""
        if self.package_start == "carry" and self.dynamic and n_packages > 1:
            raise FederationOptionError(
                "the dynamic slowdown model needs --package-start barrier when a workload has several packages "
                "(the remaining work of a job carried over to the next package is not modelled)")

    def to_dict(self) -> dict[str, Any]:
        """The options as recorded in config.json; a reading with its issue 14 value is left out, so
        run folders made before the reading existed keep resuming."""
        return {k: v for k, v in asdict(self).items() if LEGACY.get(k, object()) != v}


#: readings of FederationOptions (first = default) and the values the results made before them used
PACKAGE_STARTS = ("carry", "barrier")
MAKESPAN_READINGS = ("workload", "package-sum")
LEGACY = {"package_start": "barrier", "makespan": "package-sum"}


def opts_array(method: str, options: FederationOptions) -> np.ndarray:
    """The int64 ``opts`` array of the kernels for ``method``."""
    if method not in ALLOCATION:
        raise FederationOptionError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    return np.array([ALLOCATION[method], int(options.dynamic), int(options.metl_loss == "relative"),
                     int(options.cbs_cap_chunk)], dtype=np.int64)


def platform_arrays(platform: Platform) -> PlatformArrays:
    """``PA`` of :mod:`schedlab.federation.kernel`: groups (cluster, power) sorted by power desc, cluster asc."""
    nc, pw = platform.node_cluster, platform.node_power
    keys = sorted({(-float(p), int(k)) for k, p in zip(nc, pw)})
    G = len(keys)
    g_power = np.array([-p for p, _ in keys], dtype=np.float64)
    g_cluster = np.array([k for _, k in keys], dtype=np.int64)
    index = {key: g for g, key in enumerate(keys)}
    node_group = np.array([index[(-float(p), int(k))] for k, p in zip(nc, pw)], dtype=np.int64)
    # node ids of each group, ascending; the kernels take from the end of a group's free region
    order = np.lexsort((np.arange(nc.size), node_group))
    g_nodes = order.astype(np.int64)
    g_ptr = np.zeros(G + 1, dtype=np.int64)
    g_ptr[1:] = np.cumsum(np.bincount(node_group, minlength=G))
    lvl = [0] + [g for g in range(1, G) if g_power[g] != g_power[g - 1]] + [G]
    lvl_ptr = np.array(lvl, dtype=np.int64)
    K = platform.n_clusters
    c_groups = np.array(sorted(range(G), key=lambda g: (g_cluster[g], g)), dtype=np.int64)
    c_ptr = np.zeros(K + 1, dtype=np.int64)
    c_ptr[1:] = np.cumsum(np.bincount(g_cluster, minlength=K))
    return PlatformArrays(g_power, g_cluster, g_ptr, lvl_ptr, c_ptr, c_groups, node_group,
                          np.ascontiguousarray(platform.bandwidth, dtype=np.float64), g_nodes)


def job_arrays(jobs) -> JobArrays:
    """``JA`` of :mod:`schedlab.federation.kernel` (tasks, base, sigma, ptbw) of a FederatedJobs."""
    return JobArrays(np.ascontiguousarray(jobs.tasks, dtype=np.int64), np.ascontiguousarray(jobs.base, dtype=np.float64),
                     np.ascontiguousarray(jobs.sigma, dtype=np.float64), np.ascontiguousarray(jobs.ptbw, dtype=np.float64))
