"""The group-optimised SCOJO-PECT and the search-based "bottom line" (issue 13) as the engine reads
them: their configs (:class:`~schedlab.strategy.scojo_config.GroupConfig`,
:class:`~schedlab.strategy.scojo_config.BottomLineConfig`, in strategy/ with the thesis' text per
field) turned into the engine's parameter arrays (:func:`optimizer_arrays`). The search kernels are
:mod:`schedlab.sim.groupsearch`; the engine loop that forms groups, keeps and recalculates plans is :func:`schedlab.sim.ts_loop._run` (the plans:
:mod:`schedlab.sim.ts_plans`); the slots of the arrays it fills are named in :mod:`schedlab.sim.ts_layout`.
"""

from __future__ import annotations

import numpy as np

from ..strategy.scojo_config import BottomLineConfig, GroupConfig  # noqa: F401  (also their old home)
from . import ts_layout as L
from .ts_layout import GG_LEN, GP_LEN, READINGS  # noqa: F401  (GG_LEN: the engine's global vector; its old home)

#: the engine's code of each tree search (:data:`schedlab.strategy.scojo_config.SEARCHES`)
_SEARCH = {"lds": 1, "dds": 2}


def group_arrays(config: GroupConfig, shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(per-class parameters (3, 24), global parameters) of the group optimiser ``config`` for the engine."""
    gp = np.zeros((3, GP_LEN), np.float64)
    for row, k in ((0, L.LONG), (1, L.MEDIUM)):
        frac, rt = config.long_wide[row]
        _fill(gp[k], {L.P_TAU: 600.0, L.P_WIDE_FRACTION: frac, L.P_WIDE_RUNTIME: rt,
                      L.P_MIN_WIDE: config.min_long_wide, L.P_MAX_WIDE: config.max_long_wide,
                      L.P_SECOND_LEVEL: config.second_level, L.P_SUBGROUP: config.subgroup_size,
                      L.P_SPLIT_SIZE: config.group_max[row], L.P_SEARCH: _SEARCH[config.search],
                      L.P_BUDGET: config.budget, L.P_BUDGET_PER_SUBGROUP: config.budget_scope == "subgroup",
                      L.P_PRUNE: config.prune, L.P_FORCE_SHIFT: config.force_shift_ratio, L.P_ALPHA: config.alpha,
                      L.P_BETA: config.beta, L.P_GAMMA: config.gamma, L.P_WEIGHTED: config.select == "weighted",
                      L.GP_GROUP_MIN: config.group_min[row], L.GP_GROUP_MAX: config.group_max[row],
                      L.GP_SIZE_FACTOR: config.size_factor[row], L.GP_LAMBDA: config.work_lambda[row],
                      L.GP_AVG_RUNTIME: config.avg_runtime[row], L.GP_GROUPS: 1.0,
                      L.GP_INV_SHARE: 1.0 / shares[row] if shares[row] > 0 else 1.0})
    code = {name: allowed.index(getattr(config, name)) for name, allowed in READINGS.items()}
    gg = np.zeros(GG_LEN, np.float64)
    _fill(gg, {L.G_KIND: 1.0, L.G_FINISH_DELTA: config.finish_delta, L.G_FINISH_MIN_UTIL: config.finish_min_util,
               L.G_DYNAMIC_BACKFILL: config.dynamic_backfill, L.G_BL_WAIT_BOUND: -1.0, L.G_BL_TAU: 600.0,
               L.G_FINISH_RULE: config.finish_rule, L.G_FORM_AT: code["form_at"],
               L.G_FORM_CLASS: code["form_class"], L.G_CRITERIA_SCOPE: code["criteria_scope"],
               L.G_RUNTIME_RULE: code["runtime_rule"], L.G_MIN_RULE: code["min_rule"], L.G_TAKE: code["take"],
               L.G_JOIN: config.join, L.G_GROUP_END: code["group_end"], L.G_PLAN_NODES: code["plan_nodes"]})
    return gp, gg


def bottomline_arrays(config: BottomLineConfig, shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(per-class parameters, global parameters) of the bottom line ``config`` for the engine."""
    if config.scope == "group":
        gp, gg = group_arrays(config.group, shares)
    else:
        gp = np.zeros((3, GP_LEN), np.float64)
        for row, k in ((0, L.LONG), (1, L.MEDIUM)):
            gp[k, L.GP_GROUPS] = 1.0
            gp[k, L.GP_INV_SHARE] = 1.0 / shares[row] if shares[row] > 0 else 1.0
        gg = np.zeros(GG_LEN, np.float64)
    _fill(gg, {L.G_KIND: 2.0, L.G_DYNAMIC_BACKFILL: config.dynamic_backfill, L.G_BL_BUDGET: config.budget,
               L.G_BL_MAX_JOBS: config.max_jobs, L.G_BL_SEARCH: _SEARCH[config.search],
               L.G_BL_WAIT_BOUND: -1.0 if config.wait_bound is None else config.wait_bound, L.G_BL_TAU: 600.0,
               L.G_BL_GROUPS: config.scope == "group"})
    return gp, gg


def optimizer_arrays(optimizer: GroupConfig | BottomLineConfig, shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The engine's (gp, gg) of a SCOJO-PECT config's ``optimizer`` (its ``shares`` weigh the searches)."""
    return (group_arrays if isinstance(optimizer, GroupConfig) else bottomline_arrays)(optimizer, shares)


def _fill(vector: np.ndarray, slots: dict[int, float]) -> None:
    """Write ``slots`` (slot of :mod:`schedlab.sim.ts_layout` -> value) into ``vector``."""
    for slot, value in slots.items():
        vector[slot] = float(value)
