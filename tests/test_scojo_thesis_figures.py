"""The thesis' two worked examples (Kanavallil 2008) as hand-worked engine tests (issue 33, item 2).

Our copy of the thesis has the text and the job tables of both examples but not the drawings, so
the slice lengths, the machine size of Fig. 13 and the jobs running before the tables begin are
not given. Each test below fixes them (stated in its docstring), works the schedule out by hand
from the engine's rules (the module docstring of schedlab.sim.timeshare) and asserts it; every
schedule goes through the shared validator (rule 6, the plan replay, for Fig. 13). The
statements of the text that the engine's default readings do not reproduce are separate tests:
under the GroupConfig reading that gives them (Fig. 13: ``plan_nodes``, ``join``; issue 33 item 2)
beside a test of the default, or, where no reading gives them, marked ``xfail(strict=True)``
naming the reading (docs/results/scojo-opt/definitions.md, item 2).

Time units are the tables' (no seconds are given); switch overhead 0 ("switching overhead
between slices not shown", Section 4).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab.sim import validate_schedule
from schedlab.sim.scojo_opt import GroupConfig
from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
from schedlab.workload import Workload


def _workload(rows, m):
    """rows: (submit, runtime, estimate, procs)."""
    submit, runtime, est, procs = (list(c) for c in zip(*rows))
    return Workload.from_columns({"submit": submit, "runtime": runtime, "estimate": est, "procs": procs},
                                 machine_procs=m)


def _iv(s, j):
    ts = s.timeshare
    k = ts.iv_job == j
    return [(round(float(a), 2), round(float(b), 2)) for a, b in zip(ts.iv_start[k], ts.iv_end[k])]


def _slices(s, n):
    ts = s.timeshare
    return [("SML"[c], round(float(b), 2), round(float(e), 2))
            for c, b, e in zip(ts.slice_class[:n], ts.slice_begin[:n], ts.slice_end[:n])]


# ------------------------------------------------------------------ Fig. 3 (Section 4, Table 1)
#: Table 1 (jobs 3-10) on 10 nodes: (submit, runtime, size). Its types (J3, J4, J10 medium with
#: 65 / 34 / 40; J5-J7 short with 9 / 5 / 5; J8, J9 long with 98 / 80) are the classes of
#: short < 10 <= medium < 70 <= long.
TABLE1 = [(10, 65, 7), (35, 34, 3), (40, 9, 7), (41, 5, 2), (50, 5, 3), (75, 98, 4), (77, 80, 5), (90, 40, 6)]
#: "assume a smart-backfilled long job (Job 1) and a short job (Job 2) are running on a machine
#: having a total capacity of 10 nodes": J1 long (100, 2 nodes), J2 short (4, 1 node), and J0, a
#: medium job (20, 1 node) that the text does not show: the engine gives a class a slice only in
#: a cycle drawn up while it has work, so without an earlier medium job the slice in which Job 3
#: arrives at 10 cannot be a medium one.
FIG3_ROWS = [(0, 20, 20, 1), (0, 100, 100, 2), (0, 4, 4, 1)] + [(s, r, r, w) for s, r, w in TABLE1]
#: slices L 8, S 10, M 40 (cycle 58), order L, S, M (the text's M -> L -> S -> M)
FIG3_CFG = ScojoConfig(shares=(8 / 58, 40 / 58, 10 / 58), cycle=58.0, min_slice=0.1, overhead=0.0,
                       short_bound=10.0, long_bound=70.0)


@pytest.fixture(scope="module")
def fig3():
    s = simulate_scojo(_workload(FIG3_ROWS, 10), 10, FIG3_CFG)
    validate_schedule(s)
    return s


def test_fig3_smart_backfilling_hand_worked(fig3):
    """Jobs are numbered as in the thesis (index j = job j; index 0 is J0).

    0: cycle L 8, S 10, M 40 (every class has work). L [0, 8): J1 on nodes 0, 1; smart
       backfilling of waiting jobs of other classes, short first: J2 on 2, J0 on 3.
    4: J2 ends. 8: S has no work left, its slice is skipped: M [8, 48). J1 (long) is suspended
       and, its nodes being free, smart backfilled at once into the M slice (the "smart-
       backfilled long job").
    10: J3 arrives: 7 of the free nodes 2, 4-9 -> starts at 10 ("Job 3 is scheduled in the
       medium slice as neither other medium jobs nor potential backfill jobs are available").
    20: J0 ends. 35-41: J4 (3), J5 (7), J6 (2) arrive; only node 3 is free: they wait.
    48: new cycle L 8 [48, 56), S 10 [56, 66), M 40 [66, 106). J3 (medium) is suspended; J1 runs
       on; J3 resumes on its nodes as a smart backfill ("During the next long slice, the preempted
       long job, Job 1, is scheduled. The medium job, Job 3, is backfilled").
    56: L -> S: J1 suspended; J3 (third class) suspended too, for J5 does not fit beside it.
       J5 on 0-6, J6 on 7, 8; J7 (arrived 50) has 1 free node: waits ("Upcoming short slice would
       start the short Jobs 5, 6 and 7 ... there is no room to accommodate non-type slice jobs").
    61: J6 ends: J7 on 7-9. 65: J5 ends: J1 smart backfilled on its nodes 0, 1 (J3's nodes are
       partly busy; J4 may not use the free nodes 2-6, held by the preempted J3 of its class).
    66: J7 ends; S -> M: J1 is suspended because J4 does not fit beside it on nodes not held by
       J3. J3 resumes on its nodes with 19 left (ends 85); J4 starts on 0, 1, 3 ("In the next
       medium slice, medium preempted Job 3 is scheduled followed by medium job 4").
    75, 77: J8 (4), J9 (5) arrive: no free node.
    85: J3 ends: J8 (long) is smart backfilled on 2, 4, 5, 6 (free, not held by the preempted
       long J1); J9 finds 3 free nodes: waits. 90: J10 arrives (6 nodes; 3 free): waits.
    100: J4 ends: J10 starts on 0, 1, 3, 7, 8, 9. 106: the M slice ends.
    """
    s = fig3
    assert _slices(s, 5) == [("L", 0, 8), ("M", 8, 48), ("L", 48, 56), ("S", 56, 66), ("M", 66, 106)]
    nodes = [s.timeshare.nodes_of(j).tolist() for j in range(11)]
    assert nodes[:5] == [[3], [0, 1], [2], [2, 4, 5, 6, 7, 8, 9], [0, 1, 3]]
    assert nodes[5:9] == [[0, 1, 2, 3, 4, 5, 6], [7, 8], [7, 8, 9], [2, 4, 5, 6]]
    assert nodes[10] == [0, 1, 3, 7, 8, 9]
    assert _iv(s, 0) == [(0, 20)] and _iv(s, 2) == [(0, 4)]
    assert _iv(s, 1)[:4] == [(0, 8), (8, 56), (65, 66), (106, 115.67)]
    assert _iv(s, 3) == [(10, 48), (48, 56), (66, 85)]
    assert _iv(s, 4) == [(66, 100)]
    assert _iv(s, 5) == [(56, 65)] and _iv(s, 6) == [(56, 61)] and _iv(s, 7) == [(61, 66)]
    assert s.start[8] == 85 and s.start[10] == 100
    assert s.start[9] > 106  # J9 waits: the thesis says it does not (next test)


@pytest.mark.xfail(strict=True, reason=(
    "reading, not a defect: 'Job 8 starts immediately after job 4 is finished. Job 9 does not have "
    "to wait as enough processors are available' (Section 4). With J3 (7 nodes) and J4 (3) filling "
    "the 10 nodes, J8 (4) starts when the first of them ends: at J3's end unless both end at once; "
    "with slice lengths fixed per cycle no choice of L/S/M lengths (grid in definitions.md) makes "
    "J3 and J4 end together while J7 still starts in the short slice. The drawing is not in our "
    "copy; the text's slice lengths are unknown."))
def test_fig3_thesis_job8_starts_when_job4_ends(fig3):
    s = fig3
    assert s.start[8] == s.finish[4] and s.start[9] <= max(77.0, s.start[8])


# ------------------------------------------------------------------ Fig. 13 (Section 6.6.1, Table 3)
#: Table 3 (jobs 8-15): (submit, runtime, estimate, size). J13 (SHORT) and J15 (MEDIUM) both run
#: 15, so no pair of class bounds gives both types; J13 gets the estimate 14 (short < 15 <= medium
#: < 75 <= long) and runs its 15 (jobs are not killed at the estimate).
TABLE3 = [(10, 65, 65, 5), (35, 40, 40, 3), (40, 30, 30, 6), (41, 70, 70, 7), (50, 50, 50, 5),
          (75, 15, 14, 4), (77, 80, 80, 3), (90, 15, 15, 6)]
#: before the table: J0, a medium job (66, 8 nodes) that keeps jobs 8 and 9 from starting ("Jobs 8
#: and 9 cannot be backfilled into the second long slice ... as those nodes are occupied"), and
#: J1, a long job (100, 2 nodes). 12 nodes (the machine size is not given; Table 3's jobs need
#: more than 10 for job 13 to start beside jobs 8 and 9).
FIG13_ROWS = [(0, 66, 66, 8), (0, 100, 100, 2)] + TABLE3
#: "groups are formed when more than five jobs of same type are waiting" / "we have five medium
#: jobs (Jobs 8-12) which can be grouped": a medium group needs 5 jobs; the average runtime of
#: 7.2 is scaled to the table's units (50); the first level (no long-wide jobs here) and the
#: second level off, so the plan is the LSF order (all bounded slowdowns are 1 below the 600
#: bound: submit order) placed conservatively; no group-finish cut (the text's group runs until
#: its last job).
FIG13_GROUP = GroupConfig(group_min=(5, 5), avg_runtime=(15000.0, 50.0), second_level=False, finish_rule=False)
FIG13_CFG = ScojoConfig(shares=(0.25, 0.65, 0.10), cycle=50.0, min_slice=0.1, overhead=0.0, short_bound=15.0,
                        long_bound=75.0, optimizer=FIG13_GROUP)
J = {1: 1, 8: 2, 9: 3, 10: 4, 11: 5, 12: 6, 13: 7, 14: 8, 15: 9}  # thesis job -> trace index


@pytest.fixture(scope="module")
def fig13():
    s = simulate_scojo(_workload(FIG13_ROWS, 12), 12, FIG13_CFG, kill=False)
    validate_schedule(s)  # rule 6 replays every plan pass: no backfill delayed a planned job
    return s


def test_fig13_group_and_backfills_hand_worked(fig13):
    """0: cycle L 13.89 / M 36.11 (no short work). L [0, 13.89): J1 on 0, 1; J0 smart backfilled on
    2-9. 10: J8 arrives, 2 free nodes. 13.89: M slice; J1 suspended and smart backfilled again (it
    ends after J8's shadow time 66, on extra nodes). 35-50: J9-J12 arrive and wait (2 free nodes).
    50: cycle L [50, 63.89), M [63.89, 100); J0 suspended, resumed as a smart backfill in the L slice.
    63.89: M slice, no plan: 5 waiting medium jobs, sizes 26 > 1.5 x 12, work 1365 / 12 > 2 x 50:
    the group J8-J12 is formed (not earlier: one medium job waited at the 13.89 slice). Profile: J0
    (8 nodes) until 2.11. Plan in LSF = submit order, each at its earliest fit:
    J8 [2.11, 67.11), J9 [0, 40) (4 free before 2.11, 7 after), J10 [40, 70), J11 [70, 140),
    J12 [67.11, 117.11). J9 is due: starts on the lowest eligible nodes 0, 1, 10 (0, 1 are held by
    the preempted long J1, which medium jobs may use).
    66: J0 ends; recalculated plan J8 0, J10 37.89, J11 67.89, J12 65: J8 starts on 2-6.
    75: J13 (short) arrives: 4 nodes free for its 14 with no plan job due before 28.89: started at
    once on 7, 8, 9, 11 ("Short job 13 is an example of dynamic arrival inside a group").
    90: J13 ends; J14 (long, 3 nodes) is backfilled into the group slice for the slice's last 10
    (plan: J10 not before 13.89) on 7, 8, 9 ("jobs 1 and 14 ... backfilled into the group slice").
    J15 (6 nodes) arrives: not in the plan, does not fit: waits.
    """
    s = fig13
    ts = s.timeshare
    p = ts.plans
    assert _slices(s, 4) == [("L", 0, 13.89), ("M", 13.89, 50), ("L", 50, 63.89), ("M", 63.89, 100)]
    stats = ts.search_stats
    assert (stats["groups_medium"], stats["groups_long"], stats["grouped_jobs"]) == (1, 0, 5)
    assert round(float(p.time[0]), 2) == 63.89
    first = slice(p.plan_off[0], p.plan_off[1])
    assert p.plan_job[first].tolist() == [J[8], J[9], J[10], J[11], J[12]]
    assert np.round(p.plan_start[first], 2).tolist() == [2.11, 0.0, 40.0, 70.0, 67.11]
    second = slice(p.plan_off[1], p.plan_off[2])
    assert round(float(p.time[1]), 2) == 66.0 and p.plan_job[second].tolist() == [J[8], J[10], J[11], J[12]]
    assert np.round(p.plan_start[second], 2).tolist() == [0.0, 37.89, 67.89, 65.0]
    assert round(float(s.start[J[9]]), 2) == 63.89 and s.start[J[8]] == 66
    assert ts.nodes_of(J[9]).tolist() == [0, 1, 10] and ts.nodes_of(J[8]).tolist() == [2, 3, 4, 5, 6]
    backfilled = {int(p.time[k]): p.bf_job[p.bf_off[k]:p.bf_off[k + 1]].tolist() for k in range(p.passes)}
    assert backfilled[75] == [J[13]] and s.start[J[13]] == 75 and ts.nodes_of(J[13]).tolist() == [7, 8, 9, 11]
    assert backfilled[90] == [J[14]] and s.start[J[14]] == 90 and ts.nodes_of(J[14]).tolist() == [7, 8, 9]
    assert _iv(s, J[13]) == [(75, 90)]
    assert stats["plan_delays"] == 0
    assert J[15] not in p.plan_job.tolist()  # default join=False: arrivals during a plan do not join it


def _fig13_under(**reading):
    """Fig. 13's set-up with one group-formation reading of GroupConfig changed (issue 33 item 2)."""
    cfg = dataclasses.replace(FIG13_CFG, optimizer=dataclasses.replace(FIG13_GROUP, **reading))
    s = simulate_scojo(_workload(FIG13_ROWS, 12), 12, cfg, kill=False)
    validate_schedule(s)  # rule 6 included
    return s


def _records(s):
    """time -> (plan jobs, virtual starts rounded, backfilled jobs) of every plan pass."""
    p = s.timeshare.plans
    return {round(float(p.time[k]), 2): (p.plan_job[p.plan_off[k]:p.plan_off[k + 1]].tolist(),
                                         np.round(p.plan_start[p.plan_off[k]:p.plan_off[k + 1]], 2).tolist(),
                                         p.bf_job[p.bf_off[k]:p.bf_off[k + 1]].tolist()) for k in range(p.passes)}


def test_fig13_job1_not_in_group_slice_by_default(fig13):
    """Default plan_nodes="own_held": J9 takes J1's held nodes 0, 1 at 63.89 (above), so the
    preempted long J1 cannot resume before J9 ends (103.89), after the group slice [63.89, 100)."""
    assert not any(63.89 <= a < 100 for a, _ in _iv(fig13, J[1]))


def test_fig13_thesis_job1_backfilled_into_group_slice_under_any_held():
    """Reading plan_nodes="any_held" (6.6.1: "we have to ensure that the job starts on the same
    nodes and the optimized plan is not disturbed"), worked by hand as in the default test:
    63.89: the same group and plan (the profile counts processors): J8 2.11, J9 0, J10 40, J11 70,
    J12 67.11. J9 is due, but the free nodes that no preempted job holds are 10, 11 (0, 1 are J1's):
    J9 waits. J1 (2 nodes, 36.11 of its 100 left) cannot be backfilled: J0's 8 and J9's 3 planned
    processors leave 1 in [0, 2.11).
    66: J0 ends; plan J8 0, J9 0, J10 40, J11 70, J12 65: J8 on 2-6, J9 on 7-9 (unheld nodes); J1
    until the slice end (34) beside them: 5 + 3 + 2 <= 12 until J9's end at 40, J10 not before 40:
    J1 resumes on its nodes 0, 1 at 66, in the group slice ("jobs 1 and 14 ... backfilled into
    the group slice"), and runs on into the next (long) slice to its end at 102.11."""
    s = _fig13_under(plan_nodes="any_held")
    rec = _records(s)
    assert rec[63.89] == ([J[8], J[9], J[10], J[11], J[12]], [2.11, 0.0, 40.0, 70.0, 67.11], [])
    assert rec[66.0] == ([J[8], J[9], J[10], J[11], J[12]], [0.0, 0.0, 40.0, 70.0, 65.0], [J[1]])
    assert s.start[J[8]] == 66 and s.start[J[9]] == 66
    assert s.timeshare.nodes_of(J[8]).tolist() == [2, 3, 4, 5, 6] and s.timeshare.nodes_of(J[9]).tolist() == [7, 8, 9]
    assert _iv(s, J[1])[2] == (66, 102.11) and s.timeshare.nodes_of(J[1]).tolist() == [0, 1]
    assert s.timeshare.search_stats["plan_delays"] == 0


def test_fig13_thesis_job15_in_the_group_under_join():
    """Reading join=True (6.6.1: "Say the group ends when job 15 gets finished"): as in the default
    test up to 90; at 90 J15 (medium, 6 nodes) arrives while J10, J11, J12 of the plan wait and joins
    it at the end. Profile before the backfills: J8 (5) 41 left, J9 (3) 13.89 left: J10 (6) at 13.89,
    J11 (7) at 43.89 (J10's end), J12 (5) at 41 (J8's end leaves 6), J15 (6) at 113.89 (from 43.89
    J11 and J12 fill the 12 nodes; J12's end at 91 frees 5, J11's end at 113.89 the rest). J15 then
    starts as a planned job when it is due, the group's last job."""
    s = _fig13_under(join=True)
    rec = _records(s)
    assert rec[90.0][0] == [J[10], J[11], J[12], J[15]] and rec[90.0][1] == [13.89, 43.89, 41.0, 113.89]
    assert s.timeshare.search_stats["grouped_jobs"] == 6
    last = max(rec)
    assert rec[last][0] == [J[15]] and rec[last][1] == [0.0] and round(float(s.start[J[15]]), 2) == last
