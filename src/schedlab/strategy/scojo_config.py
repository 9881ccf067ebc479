"""The configs of the SCOJO-PECT family (the ``scojo`` strategy kind, issue 36 item 2: "configs live
in strategy/"): :class:`ScojoConfig` (plain SCOJO-PECT), :class:`GroupConfig` (the thesis' group
optimiser, ``scojo-opt``) and :class:`BottomLineConfig` (the search-based bottom line,
``scojo-bottomline``), with their JSON round trip (:func:`scojo_to_dict`, :func:`scojo_from_dict`).

Plain frozen dataclasses that check their values and import no engine: the time-sharing engine
(:mod:`schedlab.sim.timeshare`) reads them, and turns GroupConfig and BottomLineConfig into its
parameter arrays itself (:func:`schedlab.sim.scojo_opt.optimizer_arrays`). Each field's docstring
quotes the text it reads (Kanavallil 2008 thesis, Sections 4-7, Table 4; method-notes topics 4-5).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..errors import StrategyError
from .registry import config_from_dict

#: the tree searches of the group optimiser and the bottom line (Limited / Depth-bound Discrepancy Search)
SEARCHES = ("lds", "dds")

#: GroupConfig's group-formation readings (its fields) and their values; a value's code in ``gg`` is
#: its index
READINGS = {
    "form_at": ("pass", "submit", "slice_start"),
    "form_class": ("current", "both"),
    "criteria_scope": ("queue", "group"),
    "runtime_rule": ("work_constant", "work_mean", "mean_below"),
    "min_rule": ("at_least", "more_than"),
    "take": ("submit", "lsf", "wide_first"),
    "group_end": ("started", "finish"),
    "plan_nodes": ("own_held", "any_held"),
}


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
    # ---- the open group-formation decisions (issue 33 item 2; docs/results/scojo-opt/definitions.md
    # section 2 lists them with the sentences and the file:line of the engine)
    form_at: str = "pass"
    """Decision 1, when the criteria are checked. Thesis Fig. 6: "if(SubmitEvent &&
    !inGroup(Med OR Long State) || (FinishEvent && currentTime == plan[currentState].groupFinishTime)
    || plan[currentState].size == 0) { jobgroup = createJobGroup() ...". ``"pass"``: at every
    scheduling pass of the class's slice while it has no plan left (the ``plan.size == 0`` clause);
    ``"submit"``: only at a pass with an arrival of the class (the ``SubmitEvent`` clause alone);
    ``"slice_start"``: only at the first pass of a slice (6.2: "If the optimizer is on and a group is
    not formed for the current slice")."""
    form_class: str = "current"
    """Decision 2, for which class. Thesis 6.1: "The number of jobs depends upon the type of currently
    running slice"; 7.2: "If the current slice is long, then ...". ``"current"``: only the class of the
    slice; ``"both"``: at a pass of a medium or long slice the other groupable class may form its
    group too (its plan runs in its own slices; its jobs are not smart-backfilled meanwhile)."""
    criteria_scope: str = "queue"
    """Decision 3. Thesis 7.2: "the total job size of the waiting jobs should be greater than twice
    the machine size", "the ratio of total accumulated work to the machine size should be greater than
    the product of lambda (constant) and average runtime of the waiting jobs"; 6.1: "The jobs are also
    required to occupy more than the machine size". ``"queue"``: count, size and work over every waiting
    job of the class not in a plan ("the waiting jobs"); ``"group"``: over the candidate group only
    (at most ``group_max`` jobs, 6.1 "The jobs")."""
    runtime_rule: str = "work_constant"
    """Decision 5, the run-time criterion. 7.2: "the ratio of total accumulated work to the machine size
    should be greater than the product of lambda (constant) and average runtime of the waiting jobs
    ... The average runtime for long jobs is set to 15000 and lambda is set to 1. For medium jobs, the
    average runtime is set to 800 and lambda is assigned the value 2"; 6.1: "The ideal average runtime
    of the grouped jobs is lower than a factor times the set runtime for the type of current slice".
    ``"work_constant"``: work / m > lambda x ``avg_runtime`` (the constants as printed);
    ``"work_mean"``: work / m > lambda x the mean estimate of the waiting jobs (7.2's "average runtime
    of the waiting jobs"); ``"mean_below"``: 6.1, the group's mean estimate < lambda x ``avg_runtime``
    (an upper bound; no work criterion)."""
    min_rule: str = "at_least"
    """Decision 6. 7.2: "The minimum number of jobs in a group is set to five for long jobs and ten for
    medium job class" (``"at_least"``); 6.6.1: "let us assume that groups are formed when more than five
    jobs of same type are waiting" (``"more_than"``: strictly more than ``group_min``)."""
    take: str = "submit"
    """Decision 7, which jobs a group takes when more than ``group_max`` wait (6.1 / 7.2 name no order).
    ``"submit"``: the first in arrival order; ``"lsf"``: the first in the search's heuristic order
    (5.1.2, largest slowdown first); ``"wide_first"``: the long-wide jobs of the class first (7.3: "In
    the first level, we search all permutations of the long-wide jobs"), then arrival order."""
    join: bool = False
    """Decision 8, arrivals while a plan runs. 6.6.2: "individual dynamic job submission events within
    the group scheduling frame may have potential chances to be backfilled into the plan"; 6.6.1: "Say
    the group ends when job 15 gets finished" (job 15 arrives after the group formed). False: they never
    join a plan (they may be plan-backfilled); True: at a pass of the class, its jobs submitted after the
    group formed are appended to the plan (arrival order, up to ``group_max``), placed after the planned
    jobs like any plan job."""
    group_end: str = "finish"
    """Decision 9, when a group ends ("no two groups of the same slice types can be formed
    simultaneously", 6.2). ``"started"``: when its last planned job has started (Fig. 6's
    "plan[currentState].size == 0"; the default before issue 33); ``"finish"`` (default, Fig. 6's
    full condition): also when its group-finish job has terminated
    (Fig. 6: "FinishEvent && currentTime == plan[currentState].groupFinishTime"; 6.3.3: "If the
    group-finish job ends up completing its execution in a non-type slice, we assert that the group
    would be finished upon encountering the next finish event within the group slice"): at the first
    pass of the class after that job ended, its planned jobs not yet started leave the plan and a new
    group may form. The group-finish job is the kept plan job whose planned end is nearest the group
    finish of Fig. 8. Needs ``finish_rule``."""
    plan_nodes: str = "own_held"
    """Decision 10, which nodes plan jobs take. 6.6.1: "The case of jobs 1 and 14 are important to
    observe as they are getting backfilled into the group slice. In such a scenario, we have to ensure
    that the job starts on the same nodes and the optimized plan is not disturbed." ``"own_held"``: the
    lowest free nodes not held by preempted jobs of their own class (as every job); ``"any_held"``:
    only nodes held by no preempted job of any class (a due plan job that does not fit on them waits),
    so a preempted job of another class can resume on its nodes in the group slice."""

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise StrategyError(f"scojo-opt search must be 'lds' or 'dds', got {self.search!r}")
        if self.budget_scope not in ("decision", "subgroup"):
            raise StrategyError(f"scojo-opt budget_scope must be 'decision' or 'subgroup', got {self.budget_scope!r}")
        if self.select not in ("weighted", "bsld"):
            raise StrategyError(f"scojo-opt select must be 'weighted' or 'bsld', got {self.select!r}")
        for name, allowed in READINGS.items():
            if getattr(self, name) not in allowed:
                raise StrategyError(f"scojo-opt {name} must be one of {', '.join(map(repr, allowed))}, got "
                                    f"{getattr(self, name)!r}")
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
    scope: str = "queue"
    """Which jobs it searches (issue 33 item 3). Method-notes topic 4 step 1: "W = set of waiting jobs at
    time t (inside SCOJO-PECT: the waiting jobs of the current slice's class, or the job group selected
    by the thesis's group-formation rule)". ``"queue"``: the class's waiting queue (its first
    ``max_jobs`` in LXF order) at every pass, re-searched at every event, no plan kept (step 8);
    ``"group"``: only the groups the thesis' rule forms (``group``: the same criteria, the same jobs,
    the same group-finish cut), searched once per group with the bottom line's own search (LXF, DDS,
    excessive wait then slowdown, dynB) and kept as a plan like the optimiser's, so that both
    schedulers search the same groups with the same budget per decision (thesis 9.5 calls its baseline
    "an approximation")."""
    group: GroupConfig = GroupConfig()
    """With ``scope="group"``: the group formation (and finish cut) to use; its search options are
    unused."""

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise StrategyError(f"scojo-bottomline search must be 'lds' or 'dds', got {self.search!r}")
        if self.scope not in ("queue", "group"):
            raise StrategyError(f"scojo-bottomline scope must be 'queue' or 'group', got {self.scope!r}")
        if int(self.budget) < 1 or not 1 <= int(self.max_jobs) <= 64:
            raise StrategyError(f"scojo-bottomline needs budget >= 1 and 1 <= max_jobs <= 64, got "
                                f"{self.budget!r}, {self.max_jobs!r}")
        if self.wait_bound is not None and not (math.isfinite(self.wait_bound) and self.wait_bound >= 0):
            raise StrategyError(f"scojo-bottomline wait_bound must be >= 0 seconds, got {self.wait_bound!r}")

    @property
    def label(self) -> str:
        return "scojo-bottomline" + ("" if self.scope == "queue" else " (group scope)")


@dataclass(frozen=True)
class ScojoConfig:
    """SCOJO-PECT parameters and the readings taken where the sources are ambiguous."""

    shares: tuple[float, float, float] = (0.73, 0.265, 0.005)
    """Shares of the long, medium and short classes (sum 1). Thesis Table 4: "Workload share
    allocated for long jobs 73%", "... for medium jobs 26.5%"; short gets the rest (0.5 %)."""
    cycle: float = 3600.0
    """Cycle length C in seconds: slice_c = share_c * C. Not in the thesis; method-notes topic 5:
    "cycle length C = 3600 s [DEF]" ("limiting the time slices to be typically in the minute (or
    hour) range", thesis Section 4)."""
    min_slice: float = 60.0
    """Minimum slice length in seconds. Method-notes topic 5: "minimum slice length 60 s [DEF,
    avoids slices shorter than the switch overhead]"."""
    overhead: float = 60.0
    """Switch overhead in seconds. Thesis Table 4: "Slices switching overhead 60 sec". Reading
    (method-notes topic 5, step 3a): "whole machine pauses 60 s at every boundary where any job is
    suspended or resumed"; the pause comes before the slice's own length."""
    smart_backfill: bool = True
    """Smart backfilling (thesis Section 4): "tries to backfill preempted and waiting jobs of other
    slice types into the current slice"; preempted queues before waiting queues, each "sorted by
    increasing runtime class" (Figure 6)."""
    order: str = "LSM"
    """Cyclic slice order. Method-notes topic 5: "Slice order seen in the thesis example: medium ->
    long -> short -> medium ..., i.e. the cyclic order L, S, M"."""
    suspend: str = "all"
    """Which running jobs of the outgoing class are suspended at its slice end. ``"all"``
    (method-notes topic 5 step 6: "suspend every running job of class c"); ``"needed"`` treats
    them like smart-backfilled jobs, suspended only when the incoming class needs their nodes
    (thesis Section 6.6.1: a job "continues executing ... in the next long slice as nodes remain
    free")."""
    short_bound: float = 600.0
    """Short jobs: estimate < this. Thesis Table 4: "Classification of short jobs runtime < 10 min"."""
    long_bound: float = 10800.0
    """Long jobs: estimate >= this. Thesis Table 4: "Classification of long jobs runtime >= 3 hours"
    (its medium row "60 sec <= runtime < 3 hours" is read with 600 s, method-notes topic 5)."""
    optimizer: GroupConfig | BottomLineConfig | None = None
    """None: plain SCOJO-PECT. :class:`GroupConfig`: the thesis' group
    optimiser (Sections 6-7, "scojo-opt"); :class:`BottomLineConfig`: the
    search-based bottom line of Section 9.5 (method-notes topic 4) in the same engine."""
    share_schedule: tuple[tuple[float, float, float], ...] | None = field(default=None)
    """Optional time-of-day shares: 24 rows (long, medium, short), row h used by cycles starting
    in hour h of the day (trace time 0 = midnight). Thesis Section 4: shares "can be explicitly
    controlled by setting the machine share distributions per job class for different times of
    the day". Off by default (the thesis' experiments use one vector)."""

    def __post_init__(self) -> None:
        _check_shares(self.shares, "shares")
        for name in ("cycle", "min_slice"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise StrategyError(f"SCOJO-PECT {name} must be a positive number of seconds, got {v!r}")
        if not (math.isfinite(self.overhead) and self.overhead >= 0):
            raise StrategyError(f"SCOJO-PECT overhead must be >= 0 seconds, got {self.overhead!r}")
        if sorted(self.order) != ["L", "M", "S"]:
            raise StrategyError(f"SCOJO-PECT order must be a permutation of L, S, M, got {self.order!r}")
        if self.suspend not in ("all", "needed"):
            raise StrategyError(f"SCOJO-PECT suspend must be 'all' or 'needed', got {self.suspend!r}")
        if not 0 < self.short_bound <= self.long_bound:
            raise StrategyError(f"SCOJO-PECT class bounds need 0 < short_bound <= long_bound, got "
                                f"{self.short_bound}, {self.long_bound}")
        if self.share_schedule is not None:
            if len(self.share_schedule) != 24:
                raise StrategyError(f"share_schedule needs 24 rows (one per hour), got {len(self.share_schedule)}")
            for h, row in enumerate(self.share_schedule):
                _check_shares(row, f"share_schedule hour {h}")

    @classmethod
    def from_options(cls, policy: str, *, shares: str | None = None, cycle: float | None = None,
                     smart_backfill: bool = True, search: str | None = None, budget: int | None = None,
                     group_sizes: str | None = None, first_level_only: bool = False, **optimizer: Any) -> "ScojoConfig":
        """The config of ``--policy scojo|scojo-opt|scojo-bottomline`` and its options as the verbs take
        them: ``--shares L,M,S`` (fractions, or percent summing to 100), ``--cycle S``, ``--search
        lds|dds``, ``--budget N``, ``--group-sizes L,M`` (the smallest groups become min(5, L) and
        min(10, M)), ``--first-level-only``; ``optimizer``: more GroupConfig/BottomLineConfig fields.
        A StrategyError names the option that cannot be used (e.g. ``--group-sizes`` for scojo)."""
        chosen = _optimizer_from_options(policy, search, budget, group_sizes, first_level_only, optimizer)  # checked first
        return cls(**_shares_and_cycle(shares, cycle), smart_backfill=smart_backfill, optimizer=chosen)

    @property
    def label(self) -> str:
        name = "scojo" if self.optimizer is None else self.optimizer.label
        return name if self.smart_backfill else f"{name} (no smart backfill)"

    def share_table(self) -> np.ndarray:
        """(24, 3) shares indexed [hour, class] with classes short, medium, long."""
        rows = self.share_schedule or (self.shares,) * 24
        return np.array([[r[2], r[1], r[0]] for r in rows], dtype=np.float64)

    def classify(self, estimate: np.ndarray) -> np.ndarray:
        """Class of each job (0 short, 1 medium, 2 long) by its estimate."""
        return np.searchsorted(np.array([self.short_bound, self.long_bound]), estimate, side="right").astype(np.int64)


def _check_shares(shares, what: str) -> None:
    try:
        vals = [float(s) for s in shares]
    except (TypeError, ValueError):
        raise StrategyError(f"SCOJO-PECT {what} must be three numbers (long, medium, short), got {shares!r}") from None
    if len(vals) != 3 or any(not math.isfinite(v) or v < 0 for v in vals):
        raise StrategyError(f"SCOJO-PECT {what} must be three numbers >= 0 (long, medium, short), got {shares!r}")
    if abs(sum(vals) - 1.0) > 1e-6:
        raise StrategyError(f"SCOJO-PECT {what} must sum to 1, got {', '.join(map(str, vals))} (sum {sum(vals):g})")


def _optimizer_from_options(policy: str, search: str | None, budget: int | None, group_sizes: str | None,
                            first_level_only: bool, extra: dict[str, Any]) -> GroupConfig | BottomLineConfig | None:
    """The optimiser of ``policy`` (None for plain ``scojo``) from the options of
    :meth:`ScojoConfig.from_options`, checked first."""
    if policy == "scojo":
        if search is not None or budget is not None or group_sizes is not None or first_level_only:
            raise StrategyError("--search, --budget, --group-sizes and --first-level-only need --policy scojo-opt "
                                "or scojo-bottomline")
        return None
    kwargs: dict[str, Any] = dict(extra)
    if search is not None:
        if search.lower() not in SEARCHES:
            raise StrategyError(f"--search must be lds or dds, got {search!r}")
        kwargs["search"] = search.lower()
    if budget is not None:
        if budget < 1:
            raise StrategyError(f"--budget must be >= 1 schedules per decision, got {budget}")
        kwargs["budget"] = int(budget)
    if policy == "scojo-bottomline":
        if group_sizes is not None or first_level_only:
            raise StrategyError("--group-sizes and --first-level-only need --policy scojo-opt")
        return BottomLineConfig(**kwargs)
    if group_sizes is not None:
        try:
            big_l, big_m = (int(x) for x in group_sizes.split(","))
        except ValueError:
            raise StrategyError(f"--group-sizes must be two integers L,M (e.g. 30,20), got {group_sizes!r}") from None
        kwargs["group_max"] = (big_l, big_m)
        kwargs["group_min"] = (min(5, big_l), min(10, big_m))
    if first_level_only:
        kwargs["second_level"] = False
    return GroupConfig(**kwargs)


def _shares_and_cycle(shares: str | None, cycle: float | None) -> dict[str, Any]:
    """ScojoConfig's ``shares`` and ``cycle`` from ``--shares L,M,S`` (fractions or percent) and ``--cycle S``."""
    out: dict[str, Any] = {}
    if shares is not None:
        try:
            vals = tuple(float(x) for x in shares.split(","))
        except ValueError:
            raise StrategyError(f"--shares must be three numbers L,M,S (e.g. 0.73,0.265,0.005), got {shares!r}") from None
        if len(vals) != 3:
            raise StrategyError(f"--shares must be three numbers L,M,S (e.g. 0.73,0.265,0.005), got {shares!r}")
        if abs(sum(vals) - 100.0) < 1e-6:  # percent
            vals = tuple(v / 100.0 for v in vals)
        out["shares"] = vals
    if cycle is not None:
        if not cycle > 0:
            raise StrategyError(f"--cycle must be a positive number of seconds, got {cycle:g}")
        out["cycle"] = float(cycle)
    return out


#: the ``type`` of a SCOJO-PECT config's ``optimizer`` object -> its class
_OPTIMIZERS = {"group": GroupConfig, "bottomline": BottomLineConfig}


def scojo_to_dict(config) -> dict[str, Any]:
    """A :class:`ScojoConfig` as a JSON object: its fields, ``optimizer`` with a ``type``
    (``group``: GroupConfig, ``bottomline``: BottomLineConfig) or null."""
    d = asdict(config)
    if config.optimizer is not None:
        kind = next(k for k, cls in _OPTIMIZERS.items() if type(config.optimizer) is cls)
        d["optimizer"] = {"type": kind, **d["optimizer"]}
    return d


def _optimizer_from_dict(doc: Any):
    if not isinstance(doc, dict) or doc.get("type") not in _OPTIMIZERS:
        raise StrategyError(f"a SCOJO-PECT optimizer needs \"type\": one of {', '.join(_OPTIMIZERS)}")
    cls = _OPTIMIZERS[doc["type"]]
    body = {k: v for k, v in doc.items() if k != "type"}
    if cls is BottomLineConfig:
        return config_from_dict(cls, body, "scojo-bottomline",
                                group=lambda g: config_from_dict(GroupConfig, g, "scojo-opt group"))
    return config_from_dict(cls, body, "scojo-opt")


def scojo_from_dict(doc: Any):
    """The :class:`ScojoConfig` of :func:`scojo_to_dict`'s object."""
    return config_from_dict(ScojoConfig, doc, "SCOJO-PECT", optimizer=_optimizer_from_dict)
