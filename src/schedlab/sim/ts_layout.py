"""The declared layout of the time-sharing engine's state (SCOJO-PECT, :mod:`schedlab.sim.timeshare`):
every numbered slot the compiled loop reads or writes has its name here, as ``sim/state.LAYOUT``
does for the rigid engine.

- job states (``status[j]``) and job classes (``cls[j]``, the row of every per-class array);
- ``gp[c, :]``, the per-class parameter rows (medium and long; short's row stays zero) and ``gg``,
  the global parameter vector, that :func:`~schedlab.sim.scojo_opt.group_arrays` and
  :func:`~schedlab.sim.scojo_opt.bottomline_arrays` fill. ``gp[c, :SEARCH_LEN]`` is the
  group search's own parameter vector (``prm`` of :func:`schedlab.sim.groupsearch.optimise_group`);
- GroupConfig's readings (:data:`READINGS`) and the codes ``gg`` holds for them (a value's index);
- ``stats``, the counters returned as ``TimeShared.search_stats``.
"""

from __future__ import annotations

# ------------------------------------------------------------------------------ jobs
SHORT, MEDIUM, LONG = 0, 1, 2
CLASS_NAMES = ("short", "medium", "long")
FUTURE, WAITING, RUNNING, PREEMPTED, DONE = 0, 1, 2, 3, 4
#: the engine's modes: plain SCOJO-PECT, the thesis' group optimiser, the bottom line
MODE_PLAIN, MODE_GROUPS, MODE_BOTTOMLINE = 0, 1, 2

# ------------------------------------------------------------------------------ gp[c, :]
#: the group search's parameters (groupsearch.optimise_group's ``prm``): slowdown threshold tau (s),
#: long-wide job (fraction of the machine, run time), long-wide jobs searched (min, max), second
#: level on, sub-group size, group size that splits, search kind (1 LDS, 2 DDS), budget, budget per
#: sub-group, pruning, force-shift ratio, selection factors alpha, beta, gamma, weighted selection
(P_TAU, P_WIDE_FRACTION, P_WIDE_RUNTIME, P_MIN_WIDE, P_MAX_WIDE, P_SECOND_LEVEL, P_SUBGROUP, P_SPLIT_SIZE,
 P_SEARCH, P_BUDGET, P_BUDGET_PER_SUBGROUP, P_PRUNE, P_FORCE_SHIFT, P_ALPHA, P_BETA, P_GAMMA,
 P_WEIGHTED) = range(17)
SEARCH_LEN = 17
#: group formation (thesis 7.2): minimum and maximum group size, size factor (x machine), work
#: lambda, average run time (s); whether the class forms groups at all; 1 / its share (the
#: slowdown weight of the searches)
GP_GROUP_MIN, GP_GROUP_MAX, GP_SIZE_FACTOR, GP_LAMBDA, GP_AVG_RUNTIME, GP_GROUPS, GP_INV_SHARE = range(17, 24)
GP_LEN = 24

# ------------------------------------------------------------------------------ gg
#: 0 kind (1 optimiser, 2 bottom line); group finish delta and minimum utilization (Fig. 8);
#: dynamic backfilling; the bottom line's budget, most jobs searched, search kind, wait bound
#: (-1: dynB) and slowdown threshold tau; the finish rule; the readings form_at .. plan_nodes; the
#: bottom line on the thesis' groups (scope "group")
(G_KIND, G_FINISH_DELTA, G_FINISH_MIN_UTIL, G_DYNAMIC_BACKFILL, G_BL_BUDGET, G_BL_MAX_JOBS, G_BL_SEARCH,
 G_BL_WAIT_BOUND, G_BL_TAU, G_FINISH_RULE, G_FORM_AT, G_FORM_CLASS, G_CRITERIA_SCOPE, G_RUNTIME_RULE,
 G_MIN_RULE, G_TAKE, G_JOIN, G_GROUP_END, G_PLAN_NODES, G_BL_GROUPS) = range(20)
#: length of the global parameter vector; the tests' fault-injection slot follows it
GG_LEN = 20
G_FAULT = GG_LEN

#: GroupConfig's group-formation readings (its fields) and their values (declared with the config); a
#: value's code in ``gg`` is its index
from ..strategy.scojo_config import READINGS  # noqa: E402

#: the codes the loop tests
FORM_AT_SUBMIT, FORM_AT_SLICE_START = READINGS["form_at"].index("submit"), READINGS["form_at"].index("slice_start")
RUNTIME_WORK_CONSTANT = READINGS["runtime_rule"].index("work_constant")
RUNTIME_WORK_MEAN = READINGS["runtime_rule"].index("work_mean")
TAKE_LSF, TAKE_WIDE_FIRST = READINGS["take"].index("lsf"), READINGS["take"].index("wide_first")

# ------------------------------------------------------------------------------ stats
#: groups formed per class are ``stats[ST_GROUPS + c]`` (c medium or long); the group search's
#: three counters (explored and pruned search nodes, schedules generated) start at ST_EXPLORED
ST_GROUPS = 0
ST_GROUPS_M, ST_GROUPS_L = ST_GROUPS + MEDIUM, ST_GROUPS + LONG
ST_EXPLORED, ST_PRUNED, ST_SCHEDULES, ST_DELAYS, ST_GROUPED, ST_SEARCHES = 3, 4, 5, 6, 7, 8
ST_SEARCH_END = ST_EXPLORED + 3
ST_LEN = 10

# ------------------------------------------------------------------------------ fault (tests only)
#: the fault-injection vector of the validator's tests: plan conflicts left to ignore (the k-th one
#: ignores the plan), and whether the engine's own plan-delay counter is silenced
FAULT_LEFT, FAULT_SILENT = 0, 1
