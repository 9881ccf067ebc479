"""Options of the federation model and the array form of a platform that the kernels read.

Every reading of slowdown-guided-ga-federation / method-notes topic 6 that is not fixed by the
sources is an option of :class:`FederationOptions`, whose docstrings quote the text they read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..errors import SchedlabError
from .kernel import ALG1, CBS, TOP
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
    """

    dynamic: bool = False
    metl_loss: str = "absolute"
    cbs_cap_chunk: bool = True

    def __post_init__(self) -> None:
        if self.metl_loss not in ("absolute", "relative"):
            raise FederationOptionError(f"METL loss {self.metl_loss!r}: choose absolute or relative")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def opts_array(method: str, options: FederationOptions) -> np.ndarray:
    """The int64 ``opts`` array of the kernels for ``method``."""
    if method not in ALLOCATION:
        raise FederationOptionError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    return np.array([ALLOCATION[method], int(options.dynamic), int(options.metl_loss == "relative"),
                     int(options.cbs_cap_chunk)], dtype=np.int64)


def platform_arrays(platform: Platform) -> tuple:
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
    return (g_power, g_cluster, g_ptr, lvl_ptr, c_ptr, c_groups, node_group,
            np.ascontiguousarray(platform.bandwidth, dtype=np.float64), g_nodes)


def job_arrays(jobs) -> tuple:
    """``JA`` of :mod:`schedlab.federation.kernel` (tasks, base, sigma, ptbw) of a FederatedJobs."""
    return (np.ascontiguousarray(jobs.tasks, dtype=np.int64), np.ascontiguousarray(jobs.base, dtype=np.float64),
            np.ascontiguousarray(jobs.sigma, dtype=np.float64), np.ascontiguousarray(jobs.ptbw, dtype=np.float64))
