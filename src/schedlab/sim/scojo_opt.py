"""Options of the group-optimised SCOJO-PECT and of the search-based "bottom line" (issue 13).

Each field's docstring quotes the text it reads (Kanavallil 2008 thesis, Sections 6-7, Table 4;
method-notes topic 4). The search kernels are :mod:`schedlab.sim.groupsearch`; the engine loop
that forms groups, keeps and recalculates plans is :func:`schedlab.sim.timeshare._run`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import StrategyError

_SEARCH = {"lds": 1, "dds": 2}


@dataclass(frozen=True)
class GroupConfig:
    """The thesis' group optimiser (``--policy scojo-opt``)."""

    group_max: tuple[int, int] = (30, 20)
    """Largest group (long, medium). Thesis 7.2: "The maximum number of jobs in a long group is set
    to 30 and in a medium group is set to 20" (9.1: best "L30 M20"). A group is the first
    ``group_max`` waiting jobs of the class in submit order (reading)."""
    group_min: tuple[int, int] = (5, 10)
    """Thesis 7.2: "The minimum number of jobs in a group is set to five for long jobs and ten for
    medium job class"."""
    size_factor: tuple[float, float] = (2.0, 1.5)
    """Thesis 7.2: "the total job size of the waiting jobs should be greater than twice the machine
    size for long slice ... for a medium slice ... 1.5 times"."""
    work_lambda: tuple[float, float] = (1.0, 2.0)
    """Thesis 7.2: "the ratio of total accumulated work to the machine size should be greater than
    the product of lambda (constant) and average runtime ... lambda is set to 1 [long] ... lambda
    ... 2 [medium]"."""
    avg_runtime: tuple[float, float] = (15000.0, 800.0)
    """Thesis 7.2: "The average runtime for long jobs is set to 15000 ... For medium jobs, the
    average runtime is set to 800" (read as constants, as printed)."""
    long_wide: tuple[tuple[float, float], tuple[float, float]] = ((0.25, 15000.0), (0.1, 800.0))
    """(fraction of the machine, run time) making a job long-wide, per class (long, medium).
    Thesis 7.3: "For a long slice, long-wide jobs ... a minimum of one-fourth the size of the
    machine and having a runtime of 15000. ... for a medium slice, ... one-tenth the machine size
    and runtime of 800" (read as minima)."""
    min_long_wide: int = 3
    """Thesis 7.3 "only when the minimum number of long-wide jobs is greater than 3", Table 4
    "Minimum long-wide jobs in group 3": read as at least 3 (Table 4)."""
    max_long_wide: int = 6
    """Thesis 7.3: "The maximum number of long-wide jobs permitted in a group is 6 because we do a
    complete search"; the first 6 in LSF order are permuted."""
    second_level: bool = True
    """Thesis Fig. 10 level 2 "Heuristic based discrepancy search"; off = the first level only
    (the thesis' "without second level search", Figs. 27-29)."""
    search: str = "dds"
    """Second-level tree search, ``"lds"`` (Limited Discrepancy Search, Korf's exact-k
    iterations) or ``"dds"`` (Depth-bound Discrepancy Search, Walsh). Thesis 5.1.3 names both
    and does not say which it ran; DDS is the bottom line's best policy (method-notes topic 4)."""
    subgroup_size: int = 10
    """Thesis 6.4.1: "A group is equally split into limited size sub-groups if the original group
    size is equal to the maximum specified group size"; the size is not given: 10 (L30 -> 3 x 10,
    M20 -> 2 x 10). Earlier sub-groups are fixed before a later one is searched."""
    budget: int = 10000
    """Thesis 7.3: "The permutation generator is allowed to loop for a maximum of 10000
    iterations, thus generating the same number of schedules"; a pruned path counts as one."""
    budget_scope: str = "decision"
    """``"decision"``: 10,000 per group decision, shared equally by its sub-groups (issue 13:
    "budget 10,000 schedules per decision"); ``"subgroup"``: 10,000 per sub-group (thesis Fig. 11
    loops "for each sub-group ... while permutations does not exceed the maximum")."""
    prune: bool = True
    """Thesis 6.4.3: "We explore paths that have total metric less than current best path. Total
    slowdown of jobs in group"; bound = partial sum + 1 per unplaced job."""
    force_shift_ratio: float = 1.5
    """Thesis 7.3: "Force-shifting is performed when the remaining runtime of the plan job is at most
    one and a half times the length of the hole. If shifting has taken place, the jobs scheduled
    after the shifted job is removed and a new shifted order is generated". One shifted schedule
    per complete schedule (the first opportunity on its path); 0 switches it off."""
    select: str = "weighted"
    """Thesis 6.4.4: of the three least total slowdowns, 'a' is chosen against 'b' iff
    "(M_a > alpha * M_b) && (U_a > beta * U_b) && (AvgRT_a < gamma * AvgRT_b)" (as printed);
    ``"bsld"`` takes the least total slowdown."""
    alpha: float = 1.1
    """Thesis 7.3 / Table 4: makespan factor alpha = 1.1."""
    beta: float = 0.95
    """Thesis Table 4: utilization factor beta = 0.95."""
    gamma: float = 1.1
    """Thesis Table 4: avg. response time factor gamma = 1.1."""
    finish_rule: bool = True
    """Thesis 6.3.3 / Fig. 8 (the figure is not in our copy): "If utilization decreases at a drastic
    rate, we check if the current value still remains above a certain threshold (minUtil). We
    eventually assign the current job termination time as the group finish time." Plan jobs
    starting at or after the group finish leave the plan (back to the waiting queue). Off: the
    group lasts until every plan job has started."""
    finish_delta: float = 0.10
    """The 'delta' of Fig. 8 ("allows some degree of variation in utilization"); value not given."""
    finish_min_util: float = 0.5
    """The 'minUtil' of Fig. 8; value not given."""
    dynamic_backfill: bool = True
    """Thesis 6.6.2: "individual dynamic job submission events within the group scheduling frame may
    have potential chances to be backfilled into the plan ... Dynamic jobs are guaranteed to run
    within the group only until the end of slice". With smart backfilling on, every pass already
    tries them; this matters when smart backfilling is off (only jobs submitted at that event)."""

    def __post_init__(self) -> None:
        if self.search not in _SEARCH:
            raise StrategyError(f"scojo-opt search must be 'lds' or 'dds', got {self.search!r}")
        if self.budget_scope not in ("decision", "subgroup"):
            raise StrategyError(f"scojo-opt budget_scope must be 'decision' or 'subgroup', got {self.budget_scope!r}")
        if self.select not in ("weighted", "bsld"):
            raise StrategyError(f"scojo-opt select must be 'weighted' or 'bsld', got {self.select!r}")
        for name in ("budget", "subgroup_size", "max_long_wide"):
            if int(getattr(self, name)) < 1:
                raise StrategyError(f"scojo-opt {name} must be >= 1, got {getattr(self, name)!r}")
        for k in range(2):
            if not 1 <= self.group_min[k] <= self.group_max[k]:
                raise StrategyError(f"scojo-opt groups need 1 <= minimum <= maximum size, got "
                                    f"{self.group_min[k]} and {self.group_max[k]}")
        if self.group_max[0] > 64 or self.group_max[1] > 64:
            raise StrategyError(f"scojo-opt group sizes above 64 are not supported, got {self.group_max}")
        if not (math.isfinite(self.force_shift_ratio) and self.force_shift_ratio >= 0):
            raise StrategyError(f"scojo-opt force_shift_ratio must be >= 0, got {self.force_shift_ratio!r}")

    @property
    def label(self) -> str:
        return "scojo-opt" + ("" if self.second_level else " (first level only)")

    def arrays(self, shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        """(per-class parameters (3, 24), global parameters) for the engine."""
        gp = np.zeros((3, 24), np.float64)
        for row, k in ((0, 2), (1, 1)):  # long, medium
            frac, rt = self.long_wide[row]
            gp[k, :17] = (600.0, frac, rt, self.min_long_wide, self.max_long_wide, self.second_level,
                          self.subgroup_size, self.group_max[row], _SEARCH[self.search], self.budget,
                          self.budget_scope == "subgroup", self.prune, self.force_shift_ratio, self.alpha,
                          self.beta, self.gamma, self.select == "weighted")
            gp[k, 17:23] = (self.group_min[row], self.group_max[row], self.size_factor[row], self.work_lambda[row],
                            self.avg_runtime[row], 1.0)
            gp[k, 23] = 1.0 / shares[row] if shares[row] > 0 else 1.0
        gg = np.array([1.0, self.finish_delta, self.finish_min_util, self.dynamic_backfill, 0, 0, 0, -1.0, 600.0,
                       self.finish_rule], np.float64)
        return gp, gg


@dataclass(frozen=True)
class BottomLineConfig:
    """The search-based bottom line (Vasupongayya et al., method-notes topic 4) inside SCOJO-PECT
    (``--policy scojo-bottomline``): at every pass of a medium or long slice the waiting jobs of
    the slice's class are ordered by LXF, searched, and the jobs whose planned start is now start;
    no plan is kept."""

    search: str = "dds"
    """Method-notes topic 4: "Best policy reported: DDS/lxf/dynB"."""
    budget: int = 10000
    """Method-notes topic 4 step 7: "stop after L = 10,000 complete schedules per decision"."""
    max_jobs: int = 30
    """Search at most this many waiting jobs (the first in LXF order); the others may only start if
    they do not delay them. Method-notes topic 4 sets no limit; 30 = the thesis' largest group."""
    wait_bound: float | None = None
    """None = "dynB": "B(t) = the largest wait of any job that has already started" (method-notes
    topic 4 step 9, [R]); a number = "fixB", a constant bound in seconds."""
    dynamic_backfill: bool = False
    """Not part of the bottom line (method-notes: "backfilling between events: none beyond what the
    profile placement gives")."""

    def __post_init__(self) -> None:
        if self.search not in _SEARCH:
            raise StrategyError(f"scojo-bottomline search must be 'lds' or 'dds', got {self.search!r}")
        if int(self.budget) < 1 or not 1 <= int(self.max_jobs) <= 64:
            raise StrategyError(f"scojo-bottomline needs budget >= 1 and 1 <= max_jobs <= 64, got "
                                f"{self.budget!r}, {self.max_jobs!r}")
        if self.wait_bound is not None and not (math.isfinite(self.wait_bound) and self.wait_bound >= 0):
            raise StrategyError(f"scojo-bottomline wait_bound must be >= 0 seconds, got {self.wait_bound!r}")

    @property
    def label(self) -> str:
        return "scojo-bottomline"

    def arrays(self, shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        gp = np.zeros((3, 24), np.float64)
        for row, k in ((0, 2), (1, 1)):
            gp[k, 22] = 1.0
            gp[k, 23] = 1.0 / shares[row] if shares[row] > 0 else 1.0
        gg = np.array([2.0, 0.0, 0.0, self.dynamic_backfill, self.budget, self.max_jobs, _SEARCH[self.search],
                       -1.0 if self.wait_bound is None else self.wait_bound, 600.0, 0.0], np.float64)
        return gp, gg
