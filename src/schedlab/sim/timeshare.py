"""SCOJO-PECT: coarse-grain time sharing with preemption to disk and smart backfilling.

Its own compiled event loop (DESIGN.md "Time sharing"): jobs hold node *sets* (node identities
are tracked because a preempted job resumes on exactly its nodes) and their execution is a list
of intervals. The rigid engine is not used. Sources: the SCOJO-PECT thesis (Kanavallil 2008,
Sections 4, 5.1.4-5.1.5, 6.2 "normal SCOJO-PECT" branch, 6.6, Table 4) and method-notes topic 5,
whose defaults are followed where the thesis is silent. Every reading is a field of
:class:`~schedlab.strategy.scojo_config.ScojoConfig` whose docstring quotes the text it reads.

Rules of the engine (the plain-Python reference tests/support/scojo_naive.py implements the same list):

1. Classes by estimate: short < ``short_bound`` (600 s) <= medium < ``long_bound`` (10,800 s) <= long.
   A job runs for p = min(runtime, estimate) seconds of progress in total (killed at its estimate).
2. Cycle (share controller): at a cycle start the classes with work (waiting, preempted or running
   jobs) get one slice each in ``order`` (L, S, M); slice length max(min_slice, share_c / sum of
   the active classes' shares * cycle). A cycle starts when the previous one is used up, or at an
   arrival when the machine has no work at all (then no slice runs; nothing is shared).
3. Slice boundary at T from class c to the next class n with work (a class whose work vanished is
   skipped): running class-c jobs are suspended (``suspend``), and a running job of a third class
   if its nodes are held by preempted n-jobs; then, while the first waiting n-job does not fit on
   the free nodes not held by preempted n-jobs, running third-class jobs are suspended, latest
   (re)started first. Suspended jobs keep their nodes in their class's preempted queue (appended
   in job order). If anything was suspended or a preempted n-job waits to resume, the switch costs
   ``overhead`` s: every job pauses in [T, T + overhead) and the slice runs
   [T + overhead, T + overhead + length); else it runs [T, T + length). If n == c nothing happens.
4. Scheduling pass (at every event inside a slice, after all finishes and all arrivals of that
   time; none during a switch overhead): (a) resume preempted c-jobs in queue order whose nodes
   are all free; (b) start waiting c-jobs FIFO while the first fits on free nodes not held by
   preempted c-jobs (lowest node numbers first); (c) EASY backfilling within c: the first waiting
   c-job that does not fit gets a reservation (shadow time from running jobs' estimated ends,
   extra nodes); later waiting c-jobs start if they fit now and end by the shadow time or use
   only extra nodes; (d) smart backfilling (``smart_backfill``): preempted jobs of the other
   classes (short, medium, long) whose nodes are all free, then waiting jobs of the other classes
   on free nodes not held by preempted jobs of their own class, each only if it respects c's
   reservation like a step-(c) backfill.
5. Events at one time: finishes, then arrivals, then a slice boundary, then one pass.

This docstring is the one statement of these rules and of the event order; the engine's modules
point here: the event loop :mod:`.ts_loop` (``_run``), node sets and queues :mod:`.ts_nodes`,
shares, cycles and slice switches :mod:`.ts_slices` (rules 2-3), backfilling :mod:`.ts_backfill`
(rule 4 c-d), the group optimiser's and the bottom line's plans :mod:`.ts_plans` and their record
for the validator :mod:`.ts_record`, the named slots of the engine's arrays :mod:`.ts_layout`.
This module holds the API (:func:`simulate_scojo`, :class:`TimeShared`, :class:`PlanLog`); the
options are :class:`~schedlab.strategy.scojo_config.ScojoConfig` (a strategy config, in strategy/).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..strategy.scojo_config import BottomLineConfig, GroupConfig, ScojoConfig  # noqa: F401  (also their old home)
from ..workload.model import Workload
from .model import Machine
from .scojo_opt import optimizer_arrays
from .ts_layout import (CLASS_NAMES, DONE, FUTURE, GG_LEN, GP_LEN, LONG, MEDIUM, MODE_BOTTOMLINE,  # noqa: F401
                        MODE_GROUPS, MODE_PLAIN, PREEMPTED, RUNNING, SHORT, ST_DELAYS, ST_EXPLORED, ST_GROUPED,
                        ST_GROUPS_L, ST_GROUPS_M, ST_PRUNED, ST_SCHEDULES, ST_SEARCHES, WAITING)
from .ts_loop import _run

_LETTER = {"S": SHORT, "M": MEDIUM, "L": LONG}


@dataclass(frozen=True, eq=False)
class PlanLog:
    """What the group optimiser committed to, for the validator's independent replay (rule 6 of
    :mod:`schedlab.sim.validate_ts`). Job numbers are trace indices of the workload.

    Record k is a scheduling pass (its ``pass_id``, time ``time[k]``, slice class ``cls[k]``) in which
    a plan existed (thesis Fig. 6 "inGroup" branch, or a bottom-line pass): its plan jobs
    ``plan_job[plan_off[k]:plan_off[k+1]]`` in plan order with their virtual starts
    ``plan_start[...]`` (seconds of the class's virtual time after ``time[k]``, thesis 6.3.1) as
    recalculated at the start of the pass, before any backfill, and the jobs backfilled in the pass
    ``bf_job[bf_off[k]:bf_off[k+1]]`` (plan backfilling of other waiting jobs of the class, smart and
    dynamic backfilling of other classes). The launch log names every start or resume of every
    pass: job ``launch_job[i]`` at ``launch_time[i]`` in pass ``launch_pass[i]`` (pass ids count
    all passes, so several passes at one time are ordered)."""

    pass_id: np.ndarray
    time: np.ndarray
    cls: np.ndarray
    plan_off: np.ndarray
    plan_job: np.ndarray
    plan_start: np.ndarray
    bf_off: np.ndarray
    bf_job: np.ndarray
    launch_job: np.ndarray
    launch_time: np.ndarray
    launch_pass: np.ndarray

    @property
    def passes(self) -> int:
        return int(self.pass_id.shape[0])

    def nbytes(self) -> int:
        return sum(int(getattr(self, f).nbytes) for f in self.__dataclass_fields__)


@dataclass(frozen=True, eq=False)
class TimeShared:
    """The interval representation of a time-shared schedule (trace order of the workload).

    Job j holds the node set ``node_ids[node_off[j]:node_off[j+1]]`` whenever it runs (it resumes
    on exactly these nodes); its execution is the intervals ``k`` with ``iv_job[k] == j``
    (``iv_start[k]``, ``iv_end[k]``), sorted by job, then time. ``preemptions[j]`` counts its
    suspensions to disk, ``job_class[j]`` is 0 short, 1 medium, 2 long. ``slices`` are the
    (class, begin, end) slices run; ``overheads`` the start times of switch overheads of
    ``overhead`` seconds (no job makes progress then).
    """

    node_off: np.ndarray
    node_ids: np.ndarray
    iv_job: np.ndarray
    iv_start: np.ndarray
    iv_end: np.ndarray
    preemptions: np.ndarray
    job_class: np.ndarray
    slice_class: np.ndarray
    slice_begin: np.ndarray
    slice_end: np.ndarray
    overheads: np.ndarray
    overhead: float
    config: ScojoConfig
    search_stats: dict | None = None
    """With an optimiser (issue 13): groups formed per class, jobs planned, searches, explored and
    pruned search nodes, schedules generated and ``plan_delays`` (passes in which a backfill made a
    plan job start later in the recalculated plan; always 0 unless the engine is wrong; the
    validator's rule 6 replays :attr:`plans` instead of trusting it)."""
    plans: PlanLog | None = None
    """With an optimiser: the plans committed to and the backfills of each pass (validator rule 6)."""

    def nodes_of(self, j: int) -> np.ndarray:
        return self.node_ids[self.node_off[j]: self.node_off[j + 1]]

    def executed(self) -> np.ndarray:
        """Seconds of progress of every job (sum of its interval lengths)."""
        n = self.node_off.shape[0] - 1
        return np.bincount(self.iv_job, weights=self.iv_end - self.iv_start, minlength=n)


def simulate_scojo(workload: Workload, machine: Machine | int, config: ScojoConfig | None = None, *, kill: bool = True,
                   _inject_plan_fault: int = 0):
    """Simulate SCOJO-PECT on ``workload``; a :class:`~schedlab.sim.model.Schedule` whose
    ``timeshare`` holds the intervals. ``start`` is each job's first start, ``finish`` its completion.
    ``_inject_plan_fault = k > 0`` (tests of the validator only) makes the k-th plan backfill that
    conflicts with the plan ignore it and silences the engine's own ``plan_delays`` counter."""
    from .engine import check_workload
    from .model import Schedule

    if not isinstance(machine, Machine):
        machine = Machine(machine)
    config = config or ScojoConfig()
    check_workload(workload, machine)
    n = len(workload)
    perm = np.argsort(workload.submit, kind="stable")
    submit = np.ascontiguousarray(workload.submit[perm], dtype=np.float64)
    est = np.ascontiguousarray(workload.estimate[perm], dtype=np.float64)
    runtime = workload.runtime[perm]
    p = np.ascontiguousarray(np.minimum(runtime, est) if kill else runtime, dtype=np.float64)
    w = np.ascontiguousarray(workload.procs[perm], dtype=np.int64)
    cls_sorted = config.classify(est)
    order = np.array([_LETTER[ch] for ch in config.order], dtype=np.int64)
    if config.optimizer is None:
        mode, gp, gg = MODE_PLAIN, np.zeros((3, GP_LEN)), np.zeros(GG_LEN)
    else:
        mode = MODE_GROUPS if isinstance(config.optimizer, GroupConfig) else MODE_BOTTOMLINE
        gp, gg = optimizer_arrays(config.optimizer, config.shares)
    gg = np.append(gg, float(int(_inject_plan_fault)))
    out = _run(submit, est, p, w, cls_sorted, int(machine.procs), config.share_table(), order,
               float(config.cycle), float(config.min_slice), float(config.overhead), bool(config.smart_backfill),
               config.suspend == "all", mode, gp, gg)
    off, nodes, first, fin, npre, iv_job, iv_s, iv_e, sl_c, sl_b, sl_e, ov, st, pl = out
    stats = None
    plans = None
    if mode:
        explored, pruned = int(st[ST_EXPLORED]), int(st[ST_PRUNED])
        stats = {"groups": int(st[ST_GROUPS_M] + st[ST_GROUPS_L]), "groups_medium": int(st[ST_GROUPS_M]),
                 "groups_long": int(st[ST_GROUPS_L]), "grouped_jobs": int(st[ST_GROUPED]),
                 "searches": int(st[ST_SEARCHES]), "explored_nodes": explored, "pruned_nodes": pruned,
                 "pruned_share": pruned / explored if explored else 0.0, "schedules": int(st[ST_SCHEDULES]),
                 "plan_delays": int(st[ST_DELAYS])}
        pid, pt, pc, poff, pjob, pv, boff, bjob, ljob, lt, lp = pl
        i32 = np.int32  # job numbers and pass ids fit; halves the record
        plans = PlanLog(pid.astype(i32), pt, pc.astype(np.int8), poff, perm[pjob].astype(i32), pv, boff,
                        perm[bjob].astype(i32), perm[ljob].astype(i32), lt, lp.astype(i32))
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)  # sorted index of each trace job
    start = first[inv]
    finish = fin[inv]
    width = workload.procs.astype(np.int64)
    node_off = np.zeros(n + 1, np.int64)
    np.cumsum(width, out=node_off[1:])
    node_ids = np.concatenate([nodes[off[s]: off[s + 1]] for s in inv]) if n else np.zeros(0, np.int64)
    job = perm[iv_job]  # trace index of each interval
    o = np.lexsort((iv_s, job))
    ts = TimeShared(node_off, node_ids, job[o], iv_s[o], iv_e[o], npre[inv], cls_sorted[inv], sl_c, sl_b, sl_e, ov,
                    float(config.overhead), config, stats, plans)
    return Schedule(workload, machine, None, start, finish, killed=bool(kill), timeshare=ts)
