"""``--policy slurm``: what a site's own Slurm 22.05 would do with a trace (issue 37, item 1).

:class:`SlurmPolicy` = a slurm.conf excerpt (:mod:`.conf`), account shares, and the named
options of docs/slurm-policy-spec.md section 8 (:class:`SlurmOptions`, each with Slurm's own
reading as default). :func:`simulate_slurm` maps the trace's jobs onto Slurm's (limit,
partition, account, QOS), runs the compiled loop (:mod:`.kernel`) and returns a
:class:`~schedlab.sim.model.Schedule`.

How trace jobs become Slurm jobs:

- CPUs = the job's width; limit = the requested time (SWF field 9 / sacct Timelimit), rounded
  per ``limit_rounding``; a job without one (``UNLIMITED``/``Partition_Limit`` in sacct: the ids
  a converted log lists as ``SchedlabNoLimit:``) gets its partition's DefaultTime, else MaxTime
  (option ``unlimited_estimate``; a note line counts them);
- partition = the trace's queue (SWF field 15) by name: the name the trace header gives it
  (``Queue: 1 DSI`` in Parallel Workloads Archive headers, ``SchedlabQueues: batch=1 ...`` in a
  converted sacct log), else the number itself (``PartitionName=3``); an unknown queue (-1/0)
  goes to the Default=YES partition; with ``queue_map='default'`` every job does. A queue naming
  no partition is an error naming it;
- account = the trace's Unix group (SWF field 13, sacct Group/Account) by default
  (``account_from``), or schedlab's user group 1..5 (``account_from='group'``).

The schedule's workload has the limit as applied by Slurm as its estimate (ceil-minute limits,
OverTimeLimit and the periodic kill check included for killed jobs), so that the shared validator
checks finish = start + min(runtime, limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ..errors import StrategyError, WorkloadError
from ..workload.accounting import header_names as _header_names  # the names a trace's header gives
from ..workload.accounting import no_limit_ids
from .conf import SlurmConf, finish_partitions
from .limits import allocated_mem, build as build_limits, held_note, reason_names, rejected_by_limit
from . import kernel as K
from . import layout as L


#: options added after run folders first stored every option (evolve slurm's config.json ``slurm_options``),
#: with the default that reads as before: stored only when set otherwise, so those folders keep resuming
LATER_OPTIONS = ("select_params_default", "node_choice", "over_max_wall", "resource_will_run", "exclusive_size",
                 "decay_start", "usage_clock", "loop_start", "bf_pass_updates", "usage_at_end", "bf_idle_passes")


@dataclass(frozen=True)
class SlurmOptions:
    """Every choice Slurm's documentation leaves open (docs/slurm-policy-spec.md section 8), as a
    named option whose default is Slurm 22.05's own reading. Values marked "not yet" are named
    and refused with a clear error rather than silently approximated."""

    #: parse_time.c ``time_str2mins``: limits are whole minutes, seconds "round up".
    #: 'ceil-minute' (Slurm) | 'exact-seconds'.
    limit_rounding: str = "ceil-minute"
    #: slurm.conf OverTimeLimit: a job "will be killed upon reaching that limit"; slurmctld checks
    #: every PERIODIC_TIMEOUT = 30 s (job_time_limit). 'periodic-30s' (Slurm: killed at the first
    #: 30-s check at or after start + limit + OverTimeLimit, checks on a grid from the first
    #: submission) | 'exact'.
    kill_check: str = "periodic-30s"
    #: slurm.conf EnforcePartLimits=NO: a job over its partition's MaxTime is accepted and pends
    #: for good. 'error' (refuse the trace, naming the job) | 'clamp' (limit = MaxTime) |
    #: 'pend-forever' (not yet: a never-started job has no schedule the metrics can score).
    over_maxtime: str = "error"
    #: priority_multifactor.shtml "The job's priority is an integer"; _get_priority_internal
    #: truncates. 'floor-int' | 'float'.
    priority_rounding: str = "floor-int"
    #: slurm.conf PriorityCalcPeriod: "The period of time in minutes in which the half-life decay
    #: will be re-calculated"; priorities stay fixed between passes. 'calc-period' | 'continuous'
    #: (not yet).
    priority_recalc: str = "calc-period"
    #: priority_multifactor.shtml age: "waiting in the queue, eligible to be scheduled";
    #: ACCRUE_ALWAYS: submit time. Traces have no begin time, so both read the submit time.
    #: 'eligible' | 'submit'.
    age_from: str = "eligible"
    #: priority_multifactor.shtml: "number of nodes or CPUs"; a trace job's node count n for the
    #: size factor. 'ceil-cpus-per-node' (ceil(cpus / largest node's CPUs)) | 'one'.
    size_nodes: str = "ceil-cpus-per-node"
    #: page: "A job that requests all the nodes on the machine will get a job size factor of 1.0";
    #: source: (n/N + c/C)/2. 'slurm-average' | 'cpu-share-only'.
    size_formula: str = "slurm-average"
    #: PriorityFlags NO_FAIR_TREE selects classic_fair_share.shtml; else fair_tree.shtml (default
    #: since 19.05). 'fair-tree' | 'classic'; both over a flat tree (every account a child of
    #: root, one leaf each: per-user associations inside an account are not modelled).
    fairshare: str = "fair-tree"
    #: _decay_thread multiplies usage by (1 - 0.693/half_life)^seconds, a linearised 2^(-1/half_life).
    #: 'slurm-linear' | 'exact-half-life'.
    decay_factor: str = "slurm-linear"
    #: _apply_new_usage charges running jobs for each period, not only at their end.
    #: 'per-calc-period' | 'at-job-end'.
    usage_accrual: str = "per-calc-period"
    #: the clock usage and decay are counted on: priority_multifactor.c ``_apply_new_usage(job_ptr,
    #: start_period, end_period, ...)`` takes time_t's (``if (job_ptr->start_time > start_period)
    #: start_period = job_ptr->start_time; ... run_delta = difftime(end_period, start_period);``) with
    #: ``start_period = g_last_ran`` and ``end_period`` the decay pass's ``start_time = time(NULL)`` or,
    #: at a job's end (``priority_p_job_end``), ``time(NULL)`` capped at the job's end_time; the decay
    #: slice is ``difftime(start_time, g_last_ran)`` likewise. 'time_t' (Slurm: every bound floored to
    #: its second; whole-second traces are unchanged) | 'exact' (fractional seconds as the trace gives them).
    usage_clock: str = "time_t"
    #: slurm.conf batch_sched_delay "How long, in seconds, the scheduling of batch jobs can be
    #: delayed"; queue_job_scheduler + _slurmctld_background. 'tick-after-batch-delay' | 'immediate'.
    sched_on_submit: str = "tick-after-batch-delay"
    #: slurm.conf default_queue_depth "The default number of jobs to attempt scheduling ... when
    #: a running job completes"; sched_interval runs test all. 'default-queue-depth' | 'full'.
    main_depth: str = "default-queue-depth"
    #: _schedule: "Do not schedule more jobs in this partition or on nodes in this partition".
    #: 'partition-and-nodes' | 'partition'.
    stop_scope: str = "partition-and-nodes"
    #: slurm.conf bf_interval "The number of seconds between backfill iterations"; backfill_agent
    #: sleeps after each pass and skips a pass when nothing changed. 'after-last-pass' |
    #: 'fixed-grid' (not yet).
    bf_phase: str = "after-last-pass"
    #: slurm.conf bf_max_job_test "The maximum number of jobs to attempt backfill scheduling for";
    #: the source counts jobs that reach the select plugin (bf_last_depth_try). 'tried' | 'popped'.
    bf_max_job_test_counts: str = "tried"
    #: _attempt_backfill: a map slice beginning at the job's end (begin_time <= end_time) still
    #: blocks. 'inclusive' | 'exclusive'.
    bf_touch: str = "inclusive"
    #: _add_reservation reserves the selected nodes whole. 'node' | 'cpu' (not yet).
    reservation_granularity: str = "node"
    #: slurm.conf bf_window_linear: "By default, the precision starts at 30 seconds and that time
    #: interval doubles with each evaluation". 'doubling-30s' (read as: a batch takes the running
    #: jobs ending within 30 s, then 60 s, ... of the batch's first end) | 'exact' | 'barrier-30s'
    #: (job_test.c ``_will_run_test`` at slurm-22-05-8-1 as written: see ``resource_will_run``).
    #: A run that models resources reads ``resource_will_run`` instead, unless that is 'as-cpu'.
    will_run_batching: str = "doubling-30s"
    #: slurm.conf bf_job_part_count_reserve "The default value is zero, which will reserve
    #: resources for any pending job". 'all-tested' | 'first-only'.
    reserve_all: str = "all-tested"
    #: nodes of a machine without NodeName lines: machine CPUs / cpus_per_node nodes (the SP2s of
    #: the Parallel Workloads Archive had one processor per node).
    cpus_per_node: int = 1
    #: how trace queues map to partitions: 'name' (module docstring) | 'default' (all jobs to the
    #: Default=YES partition).
    queue_map: str = "name"
    #: which trace column is the Slurm account: 'unix_group' (SWF field 13; sacct Group) |
    #: 'group' (schedlab's user group 1..5, the owner's groups of issue 37).
    account_from: str = "unix_group"
    #: the limit of a job that ran without one (sacct Timelimit ``UNLIMITED``/``Partition_Limit``,
    #: a PBS job without walltime: the ids a converted log lists in its ``SchedlabNoLimit:`` header
    #: line, and any job whose estimate is not positive). 'partition' (Slurm: the partition's
    #: DefaultTime, else the schedulers use its MaxTime; job_mgr.c ``_valid_job_part``, backfill.c
    #: ``_attempt_backfill``, docs/slurm-policy-spec.md section 1) | 'max-time' (the partition's
    #: MaxTime even where it has a DefaultTime: the longest limit the site allows) | 'runtime' (the
    #: job's own runtime, which no scheduler knows: clairvoyant, the estimate every other policy
    #: uses for such a job after cleaning).
    unlimited_estimate: str = "partition"
    #: backfill.c _attempt_backfill rounds with ``(start_time / backfill_resolution) *
    #: backfill_resolution`` on Unix epoch seconds (the map's first slice, the window's end, each
    #: reservation's begin and end). 'unix' (Slurm: the boundaries are multiples of bf_resolution
    #: of the Unix time ``unix_start`` + trace time) | 'trace' (trace time 0 is a boundary).
    bf_resolution_on: str = "unix"
    #: the trace's Unix start time (the Unix time of trace time 0), which ``bf_resolution_on='unix'``
    #: rounds: 'header' (the SWF header's UnixStartTime; a trace without one is read as starting
    #: at the Unix epoch, so trace time 0 is a boundary) | a number of seconds.
    unix_start: str = "header"
    #: when slurmctld started, in trace seconds (negative: before trace time 0): the anchor of its
    #: periodic cycles (controller.c ``_slurmctld_background`` sets last_sched_time,
    #: last_full_sched_time and last_timelimit_time to its start and runs on ~1-s ticks from
    #: there; backfill_agent first sleeps bf_interval, then passes every bf_interval or on a 1-s
    #: tick after; the decay thread every PriorityCalcPeriod). 'settled' (a controller up long
    #: before the trace, its cycles in phase with the first submission's whole second: the
    #: sched_interval, PriorityCalcPeriod and 30-s kill-check grids from there, the backfill
    #: thread idle, passing as soon as there is work) | a number of seconds.
    controller_start: str = "settled"
    #: when the decay thread started, in trace seconds: the anchor of the PriorityCalcPeriod grid, the
    #: only times a pending job's priority changes after its submission (priority_multifactor.c
    #: ``_decay_thread``: ``gettimeofday(&tvnow, NULL); abs.tv_sec = tvnow.tv_sec; abs.tv_nsec =
    #: tvnow.tv_usec * 1000;`` then per pass ``abs.tv_sec += slurm_conf.priority_calc_period;
    #: slurm_cond_timedwait(&decay_cond, &decay_lock, &abs); ... start_time = time(NULL);`` and
    #: ``decay_apply_weighted_factors`` recomputes every pending job's priority at ``start_time``; the
    #: thread is created by ``priority_g_init()``, which controller.c calls after "Running as primary
    #: controller" and the accounting registration, 0.1-0.3 s later with slurmdbd). 'controller' (at
    #: ``controller_start``: what a trace without the decay thread's log line gives) | a number of
    #: seconds (the harness reads it from the thread's "No last decay (...) to recover" line).
    decay_start: str = "controller"
    #: when _slurmctld_background's loop starts, the anchor of its clocks: its ~1-s ticks (``for (i = 0;
    #: i < 10 ...) usleep(100000);``), ``last_sched_time = last_full_sched_time = last_timelimit_time =
    #: now`` (so the sched_interval and the 30-s kill-check grids) and the batch_sched_delay clock.
    #: controller.c main() runs ``priority_g_init()`` (which starts the decay thread), the plugstack, burst
    #: buffer, power and mcs plugins and ``sched_g_init()`` before it calls ``_slurmctld_background(NULL)``,
    #: so the loop starts just after the decay thread (a harness log: decay thread 36.660, first
    #: scheduler tick 39.667), not at "Running as primary controller" (36.388). 'after-priority-init'
    #: (Slurm: at ``decay_start`` when that is a number, else ``controller_start``) | 'controller' (at
    #: ``controller_start``, the reading before). The backfill thread's first pass is not moved: the
    #: harness logs it bf_interval after "Running as primary controller" (41.388), nor its one-second
    #: re-checks (``_my_sleep(USEC_IN_SEC)`` from its own last pass: 46.389, 51.391, ...).
    loop_start: str = "after-priority-init"
    #: whether a backfill pass counts as a job update for the next one: backfill.c ``_attempt_backfill``
    #: clears every pending job's estimate (``_clear_job_estimates``: ``job_ptr->start_time = 0``), then for
    #: each job it finds a start for, ``if (start_res > job_ptr->start_time) { job_ptr->start_time =
    #: start_res; last_job_update = now; }``, and backfill_agent runs the next pass when
    #: ``_more_work(last_backfill_time)`` (``last_job_update >= last_backfill_time``, time_t's; set at the
    #: pass's start). So while jobs pend the passes come every bf_interval (a harness log: 37 passes
    #: 5.000-5.006 s apart, 16 s without any other event among them). 'none' (schedlab's reading before
    #: issue 44's second stop: a pass waits for a submission, start or end after the last one; kept as the
    #: default because Slurm's reading moves whole-second results, e.g. the CTC-SP2 year's starts) |
    #: 'estimates' (Slurm; the conformance scorer's reading, schedlab.slurm.conformance.RECORDED_READINGS).
    bf_pass_updates: str = "none"
    #: whether a backfill pass falls due with no job pending: backfill_agent sets ``last_backfill_time =
    #: time(NULL)`` and calls ``_attempt_backfill``, which logs "no jobs to backfill", whenever
    #: bf_interval has passed and ``_more_work`` (any job/node update since the last pass), jobs pending or
    #: not; the node's registration after the controller's start is such an update (a harness log: "no
    #: jobs to backfill" at the controller's start + bf_interval, 41.388, then a pass every 5 s). 'run'
    #: (Slurm: such a pass keeps the passes' phase) | 'skip' (the reading before: a pass waits for a
    #: pending job; kept as the default because Slurm's reading moves whole-second results).
    bf_idle_passes: str = "skip"
    #: whether a job's end charges its usage since the last decay pass: acct_policy.c ``_adjust_limit_usage``
    #: ``if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) || !_valid_job_assoc(job_ptr)) return;``
    #: comes before ``if (type == ACCT_POLICY_JOB_FINI) priority_g_job_end(job_ptr);``, and the decay pass
    #: skips finished jobs (``decay_apply_new_usage``: ``if (IS_JOB_FINISHED(job_ptr) ||
    #: IS_JOB_COMPLETING(job_ptr)) return false;``): without AccountingStorageEnforce=limits (or safe, all)
    #: the slice from the last pass to a job's end is never charged (a DebugFlags=Priority harness log:
    #: no priority_p_job_end line, and an account whose jobs ran 590 CPU-s, all ended before the first
    #: pass, had no usage at it). 'enforce-limits' (Slurm: a site's slurm.conf decides; the CTC-SP2
    #: year's starts are unchanged by it) | 'always' (schedlab's reading before: every end charges).
    usage_at_end: str = "enforce-limits"
    #: backfill.c: a pass ends ("table size limit of %u reached") when a job would add a
    #: reservation to a node_space map of bf_node_space_size records, which defaults to
    #: bf_max_job_test. 'bf_node_space_size' (Slurm) | 'none' (no limit).
    node_space_limit: str = "bf_node_space_size"
    #: priority_multifactor.c init: without AccountingStorageType=accounting_storage/slurmdbd,
    #: "PriorityWeightAge can only be used with SlurmDBD, ignoring" (FairShare likewise): both
    #: weights are 0 and no decay thread runs (slurm.conf: "Requires
    #: AccountingStorageType=accounting_storage/slurmdbd"). 'ignored' (Slurm; a note line says
    #: so) | 'applied' (as if slurmdbd ran: a slurm.conf excerpt that leaves the line out).
    weights_without_slurmdbd: str = "ignored"
    #: a job whose earliest start T lies in the future (backfill.c _attempt_backfill, the
    #: TRY_LATER loop, and _test_resv_overlap): its candidate nodes are those free of map slices
    #: over [tau, tau + limit] (tau: now, then each later_start retried; slices beginning at the
    #: window's end count), the select plugin's will-run finds T on them from the running jobs
    #: alone, and T is kept unless a slice on the selected nodes overlaps the *rounded* bounds
    #: with strict comparisons (``end_time > start_time && begin_time < end_reserve``, both
    #: floored to bf_resolution); on overlap the job is tried again from T. So a job's
    #: reservation may end inside the bf_resolution step where a higher job's slice begins, and
    #: a job reserved from tau keeps nodes a slice beginning after tau + limit touches. The
    #: selected nodes are read as the candidates free of such an overlap (exact on one node).
    #: 'rounded-strict' (Slurm) | 'exact' (the earliest time whose unrounded window
    #: [t, t + limit] meets no slice on enough nodes; the reading before issue 44).
    resv_overlap: str = "rounded-strict"
    #: when the main scheduler runs after a job ends: for a finished batch job the agent calls
    #: queue_job_scheduler() (agent.c), and _slurmctld_background runs schedule() on its next
    #: ~1-s tick once now - last_sched_time >= batch_sched_delay (controller.c); only the
    #: epilog-complete RPC (proc_req.c) calls schedule() at once. 'tick-after-batch-delay'
    #: (Slurm's common path) | 'immediate' (the epilog-complete path at every end).
    sched_on_end: str = "tick-after-batch-delay"
    #: a job whose time limit is over its QOS's or association's MaxWall (sacctmgr): without
    #: DenyOnLimit Slurm accepts it and holds it for good (acct_policy.c _qos_job_runnable_pre_select,
    #: QOSMaxWallDurationPerJobLimit). 'error' (refuse the trace, naming the job: a never-started
    #: job has no schedule to score) | 'clamp' (limit = MaxWall, as if the user had asked for it).
    over_max_wall: str = "error"
    #: the SelectTypeParameters of a slurm.conf that gives none. slurm.conf(5) 22.05: "By default
    #: ... select/cons_tres, use CR_Core_Memory"; schedlab read every such file as CR_CPU (nodes are
    #: CPUs) before issue 47, and its results stay so. 'CR_CPU' (schedlab's reading: the CPU-only
    #: path, results unchanged) | 'slurm' (Slurm's default, CR_Core_Memory: memory consumable).
    select_params_default: str = "CR_CPU"
    #: which nodes a job with resources gets (docs/slurm-policy-spec.md section 14): 'best-fit'
    #: (job_test.c ``_eval_nodes`` with equal node weights: the sufficient run of consecutive
    #: usable nodes with the fewest free CPUs, a one-node job on its node with the fewest free CPUs)
    #: | 'lowest-first' (the lowest-numbered usable nodes). CPU-only runs keep the CR_CPU reading of
    #: section 3 (lowest-numbered nodes with free CPUs, a job spread over as many as it needs).
    node_choice: str = "best-fit"
    #: the will-run batches of a run that models resources (memory, GPUs or whole nodes; section 14):
    #: 'barrier-30s' (job_test.c ``_will_run_test`` at slurm-22-05-8-1 as written: the first
    #: expected end moved up to the next 30-s barrier of Unix time, ``end_time += 30 - end_time % 30``,
    #: that barrier the base of every batch, the window doubling until it reaches the next end;
    #: issue 47: on the harness a job ending at 10:12:30 and two ending at 10:13:26 formed one batch,
    #: so a job waiting for GPUs was reserved from 10:13:26 and jobs ending by 10:13:00 backfilled, as
    #: slurmctld started them) | 'as-cpu' (``will_run_batching``'s reading, as before issue 47's
    #: harness). CPU-only runs always read ``will_run_batching``, whose default stays 'doubling-30s'
    #: so that their results and stored runs stay as they were (the CPU cases of slurm44ms score the
    #: same under either reading).
    resource_will_run: str = "barrier-30s"
    #: the CPUs the job-size factor reads for a whole-node job (``--exclusive``; sacct's AllocCPUS is
    #: the node's). priority_multifactor.c ``_get_priority_internal`` reads ``total_cpus`` when set,
    #: else the request (``max_cpus``/``min_cpus``): at submission the request (issue 47: on the
    #: harness a 4-CPU ``--exclusive`` job logs InitPrio=62, as a shared 4-CPU job, not the whole
    #: node's 100); but a successful will-run test by backfill sets ``total_cpus`` to the node's CPUs
    #: for a whole-node job (cons_common/job_test.c ``_job_test``, ``whole_node == 1``), and the next
    #: priority recalculation (every PriorityCalcPeriod) reads that, so a job that waits long enough
    #: moves up to the whole node's size (seen on the harness: the exclusive jobs then started before
    #: shared jobs of a larger request). Not modelled as that switch (it needs the time of the first
    #: backfill test per job): 'request' (the size as at submission) | 'node' (the whole node's size,
    #: as after the switch; the reading before issue 47's harness for a converted sacct log).
    exclusive_size: str = "request"

    def to_dict(self) -> dict:
        """The options as a run's config.json stores them (evolve slurm's ``slurm_options``): every option,
        but one of :data:`LATER_OPTIONS` only when set otherwise than its default."""
        defaults = SlurmOptions()
        return {k: v for k, v in vars(self).items() if k not in LATER_OPTIONS or v != getattr(defaults, k)}


#: the values each option takes (first = default); None marks a value named but not yet simulated
CHOICES: dict[str, tuple] = {
    "limit_rounding": ("ceil-minute", "exact-seconds"),
    "kill_check": ("periodic-30s", "exact"),
    "over_maxtime": ("error", "clamp", None, "pend-forever"),
    "priority_rounding": ("floor-int", "float"),
    "priority_recalc": ("calc-period", None, "continuous"),
    "age_from": ("eligible", "submit"),
    "size_nodes": ("ceil-cpus-per-node", "one"),
    "size_formula": ("slurm-average", "cpu-share-only"),
    "fairshare": ("fair-tree", "classic"),
    "decay_factor": ("slurm-linear", "exact-half-life"),
    "usage_accrual": ("per-calc-period", "at-job-end"),
    "usage_clock": ("time_t", "exact"),
    "loop_start": ("after-priority-init", "controller"),
    "bf_pass_updates": ("none", "estimates"),
    "bf_idle_passes": ("skip", "run"),
    "usage_at_end": ("enforce-limits", "always"),
    "sched_on_submit": ("tick-after-batch-delay", "immediate"),
    "main_depth": ("default-queue-depth", "full"),
    "stop_scope": ("partition-and-nodes", "partition"),
    "bf_phase": ("after-last-pass", None, "fixed-grid"),
    "bf_max_job_test_counts": ("tried", "popped"),
    "bf_touch": ("inclusive", "exclusive"),
    "reservation_granularity": ("node", None, "cpu"),
    "will_run_batching": ("doubling-30s", "exact", "barrier-30s"),
    "reserve_all": ("all-tested", "first-only"),
    "queue_map": ("name", "default"),
    "account_from": ("unix_group", "group"),
    "unlimited_estimate": ("partition", "max-time", "runtime"),
    "bf_resolution_on": ("unix", "trace"),
    "node_space_limit": ("bf_node_space_size", "none"),
    "weights_without_slurmdbd": ("ignored", "applied"),
    "sched_on_end": ("tick-after-batch-delay", "immediate"),
    "resv_overlap": ("rounded-strict", "exact"),
    "over_max_wall": ("error", "clamp"),
    "select_params_default": ("CR_CPU", "slurm"),
    "node_choice": ("best-fit", "lowest-first"),
    "resource_will_run": ("barrier-30s", "as-cpu"),
    "exclusive_size": ("request", "node"),
}
#: options that take a number of seconds, or the named default
TIMES = {"unix_start": "header", "controller_start": "settled", "decay_start": "controller"}


def _seconds(name: str, value) -> float | None:
    """A :data:`TIMES` option's value in seconds; None for its named default."""
    if value == TIMES[name]:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        out = math.nan
    if not math.isfinite(out):
        raise StrategyError(f"slurm option {name}={value!r}; give {TIMES[name]} or a number of seconds")
    return out


def check_options(options: SlurmOptions) -> None:
    for f in fields(options):
        value = getattr(options, f.name)
        if f.name == "cpus_per_node":
            if int(value) != value or value < 1:
                raise StrategyError(f"slurm option cpus_per_node must be a whole number >= 1, got {value!r}")
            continue
        if f.name in TIMES:
            _seconds(f.name, value)
            continue
        values = CHOICES[f.name]
        ready = values[: values.index(None)] if None in values else values
        if value not in values:
            raise StrategyError(f"slurm option {f.name}={value!r}; choose one of {', '.join(v for v in values if v)}")
        if value not in ready:
            raise StrategyError(f"slurm option {f.name}={value!r} is named but not simulated yet; use {', '.join(ready)}")


def parse_option_pairs(text: str) -> dict:
    """``key=value,key=value`` (``--slurm-option``) -> {key: value}."""
    out = {}
    names = {f.name for f in fields(SlurmOptions)}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in names:
            raise StrategyError(f"--slurm-option {item!r}: expected NAME=VALUE with NAME one of {', '.join(sorted(names))}")
        out[key] = int(value) if key == "cpus_per_node" and value.strip().isdigit() else value.strip()
    return out


@dataclass(frozen=True, eq=False)
class SlurmPolicy:
    """A site's Slurm configuration as a strategy kind: ``simulate_any`` runs it with
    :func:`simulate_slurm`. ``shares``: raw shares per account name (None: equal shares);
    ``qos_priority``: QOS name -> priority (the QOS factor, normalised by the highest; a job's QOS
    comes from a converted sacct log, SWF field 16 with its ``SchedlabQOS:`` header line)."""

    conf: SlurmConf
    options: SlurmOptions = field(default_factory=SlurmOptions)
    shares: dict | None = None
    qos_priority: dict | None = None
    #: association and QOS limits (:mod:`.limits`; None: none)
    limits: object = None
    label: str = "slurm"
    dispatch: str = "slurm"

    def __post_init__(self) -> None:
        check_options(self.options)


def load_policy(conf, *, shares=None, options: str | None = None, qos=None, assoc=None) -> SlurmPolicy:
    """The SlurmPolicy of a site's files: slurm.conf excerpt ``conf``, sshare ``shares``, sacctmgr
    QOS ``qos`` (priorities and limits) and association ``assoc`` dumps (None: equal shares, no
    QOS, no limits), ``--slurm-option`` text ``options``."""
    from .conf import read_conf, read_qos, read_shares
    from .limits import load_limits

    return SlurmPolicy(read_conf(conf), SlurmOptions(**parse_option_pairs(options or "")),
                       shares=read_shares(shares) if shares is not None else None,
                       qos_priority=read_qos(qos) if qos is not None else None,
                       limits=load_limits(qos, assoc) if qos is not None or assoc is not None else None)


def _partitions_of(workload, conf: SlurmConf, options: SlurmOptions) -> tuple[np.ndarray, str]:
    """Each job's partition number, and a note line ('' when none is due): a trace whose queues
    carry no names (no ``Queue:``/``SchedlabQueues:`` header line naming them, as in most Parallel
    Workloads Archive traces) run with a slurm.conf of one partition sends every job there and
    says so, rather than requiring ``queue_map=default``; with several partitions a queue number
    must name one (else an error naming the job)."""
    by_name = {p.name: k for k, p in enumerate(conf.partitions)}
    default = next((k for k, p in enumerate(conf.partitions) if p.default), 0)
    n = len(workload)
    if options.queue_map == "default":
        return np.full(n, default, dtype=np.int64), ""
    names = _header_names(workload, "Queues")
    queues = sorted({int(q) for q in np.unique(workload.queue) if q > 0 and str(int(q)) not in by_name})
    if not names and len(conf.partitions) == 1 and queues:
        shown = ", ".join(map(str, queues[:5])) + (", ..." if len(queues) > 5 else "")
        return np.full(n, default, dtype=np.int64), (
            f"the trace's queues carry no names (numbers {shown}): all {n:,} jobs go to {conf.source}'s only "
            f"partition, {conf.partitions[default].name}")
    out = np.empty(n, dtype=np.int64)
    cache: dict[int, int] = {}
    for j, q in enumerate(workload.queue.tolist()):
        if q not in cache:
            if q <= 0 and q not in names:
                cache[q] = default
            else:
                name = names.get(q, str(q))
                if name not in by_name:
                    raise WorkloadError(
                        f"{workload.name or 'workload'}: job {workload.id[j]} is in queue {name!r}, which is no partition "
                        f"of {conf.source} ({', '.join(by_name)}); add a PartitionName={name} line or use "
                        f"--slurm-option queue_map=default")
                cache[q] = by_name[name]
        out[j] = cache[q]
    return out, ""


def prepare(workload, machine_procs: int, policy: SlurmPolicy, *, kill: bool = True):
    """The kernel's arrays for a run (jobs in submit order) and ``perm`` back to trace order."""
    if not kill:
        raise StrategyError("--policy slurm kills jobs at their limit as Slurm does; --no-kill does not apply")
    opts = policy.options
    conf = replace(policy.conf, ignored=list(policy.conf.ignored))
    finish_partitions(conf, machine_procs, int(opts.cpus_per_node))
    node_cpus = np.asarray(conf.node_cpus, dtype=np.int64)
    N, C = node_cpus.size, int(node_cpus.sum())
    parts = conf.partitions
    part_nodes = np.zeros((len(parts), N), dtype=np.uint8)
    for k, p in enumerate(parts):
        part_nodes[k, list(p.nodes)] = 1
    part_cpus = part_nodes @ node_cpus
    perm = np.argsort(workload.submit, kind="stable")
    w = workload.take(perm)
    n = len(w)
    part, queue_note = _partitions_of(w, conf, opts)
    cpus = w.procs.astype(np.int64)
    over = np.flatnonzero(cpus > part_cpus[part])
    if over.size:
        j = over[0]
        size = machine_note(conf, machine_procs, C)
        raise WorkloadError(f"{w.name or 'workload'}: job {w.id[j]} needs {cpus[j]} CPUs but partition "
                            f"{parts[part[j]].name} has {part_cpus[part[j]]}" + (f" ({size})" if size else ""))
    est = w.estimate.astype(np.float64)
    max_time = np.array([p.max_time for p in parts])[part]
    has_default = np.array([p.default_time is not None for p in parts])[part]
    default_time = np.array([p.default_time if p.default_time is not None else p.max_time for p in parts])[part]
    listed = no_limit_ids(w.header)
    unlimited = (est <= 0) | (np.isin(w.id, listed) if listed is not None else False)
    if opts.unlimited_estimate == "runtime":
        limit = np.where(est > 0, est, np.maximum(w.runtime, 1.0))
    else:
        limit = np.where(unlimited, default_time if opts.unlimited_estimate == "partition" else max_time, est)
    notes = [queue_note, unlimited_note(int(unlimited.sum()), int((unlimited & has_default).sum()), opts.unlimited_estimate)]
    if opts.limit_rounding == "ceil-minute":
        limit = np.where(np.isfinite(limit), np.ceil(limit / 60.0) * 60.0, limit)
    bad = np.flatnonzero(limit > max_time)
    if bad.size:
        if opts.over_maxtime == "error":
            j = bad[0]
            raise WorkloadError(
                f"{w.name or 'workload'}: job {w.id[j]}'s limit {limit[j] / 60:g} min is over partition "
                f"{parts[part[j]].name}'s MaxTime {max_time[j] / 60:g} min; Slurm would keep it pending for good "
                f"(EnforcePartLimits=NO); use --slurm-option over_maxtime=clamp to cut it to MaxTime")
        limit = np.minimum(limit, max_time)
    if not np.all(np.isfinite(limit)):
        j = int(np.flatnonzero(~np.isfinite(limit))[0])
        raise WorkloadError(f"{w.name or 'workload'}: job {w.id[j]} has no time limit and partition "
                            f"{parts[part[j]].name} has neither DefaultTime nor a finite MaxTime "
                            f"(slurm option unlimited_estimate={opts.unlimited_estimate}); give the partition a "
                            "DefaultTime or use --slurm-option unlimited_estimate=runtime")
    # accounts (by name: a converted sacct log lists them in its header, else the number is the name)
    if opts.account_from == "unix_group":
        listed = _header_names(w, "Accounts")
        key = w.unix_group
    else:
        listed, key = {}, w.group
    numbers, acct = np.unique(key, return_inverse=True)
    acct_names = [listed.get(int(a), str(int(a))) for a in numbers]
    A = len(acct_names)
    if policy.shares:
        raw = np.array([float(policy.shares.get(a, 0.0)) for a in acct_names])
        if not set(acct_names) & set(policy.shares):
            raise WorkloadError(f"none of the shares file's accounts ({', '.join(sorted(policy.shares)[:5])}) is an "
                                f"account of the trace ({', '.join(acct_names[:5])}, ...)")
    else:
        raw = np.ones(A)
    shares = raw / raw.sum() if raw.sum() > 0 else raw
    per_job = np.minimum(cpus, N)
    alloc = int(per_job.sum()) if n else 1
    RES3, res_notes = resource_arrays(w, conf, opts, part, cpus, part_nodes, alloc)
    # association and QOS limits (.limits): counters (mem: as allocated), and MaxWall on the jobs' limits
    LJ, LA, LC, limit, limit_notes = build_limits(
        w, policy.limits, cpus=cpus, account=np.array(acct_names, dtype=object)[acct] if n else np.array([], dtype=object),
        part_names=np.array([p.name for p in parts], dtype=object)[part], limit=limit, unlimited=unlimited & (opts.unlimited_estimate != "runtime"),
        over_max_wall=opts.over_max_wall, mem=allocated_mem(RES3, part_nodes, part))
    notes.extend(limit_notes)
    # QOS (a converted sacct log: SWF field 16 numbered as its SchedlabQOS header line lists)
    qos = np.zeros(n)
    if policy.qos_priority:
        qnames = _header_names(w, "QOS")
        top = max(policy.qos_priority.values())
        norm = "NO_NORMAL_QOS" not in conf.flags
        for num, name in qnames.items():
            value = float(policy.qos_priority.get(name, 0))
            qos[w.partition == num] = (value / top if top > 0 else 0.0) if norm else value
    # static priority part: job size, partition, QOS (priority_multifactor.shtml)
    wt = conf.weights
    multifactor = conf.priority_type == "priority/multifactor"
    max_node = int(node_cpus.max())
    scpus = size_cpus(w, cpus, opts.exclusive_size)
    nodes_req = np.ceil(scpus / max_node) if opts.size_nodes == "ceil-cpus-per-node" else np.ones(n)
    if "SMALL_RELATIVE_TO_TIME" in conf.flags:
        size = np.maximum(nodes_req * C / N, scpus) / np.maximum(limit / 60.0, 1.0) / C
        if conf.favor_small:
            size = 1.0 - size
    elif opts.size_formula == "cpu-share-only":
        size = (C - scpus) / C if conf.favor_small else scpus / C
    elif conf.favor_small:
        size = ((N - nodes_req) / N + (C - scpus) / C) / 2.0
    else:
        size = (nodes_req / N + scpus / C) / 2.0
    size = np.clip(size, 0.0, 1.0)
    factors = np.array([p.job_factor for p in parts], dtype=np.float64)
    if "NO_NORMAL_PART" in conf.flags:
        pf = factors
    else:
        pf = factors / factors.max() if factors.max() > 0 else np.zeros_like(factors)
    static = (wt["jobsize"] * size + wt["partition"] * pf[part] + wt["qos"] * qos) if multifactor else np.zeros(n)
    JF = np.empty((L.N_JF, n))
    JF[L.F_SUBMIT] = w.submit
    JF[L.F_RUNTIME] = np.maximum(w.runtime, 0.0)
    JF[L.F_LIMIT] = limit
    JF[L.F_STATIC] = static
    JI = np.empty((L.N_JI, n), dtype=np.int64)
    JI[L.I_CPUS] = cpus
    JI[L.I_PART] = part
    JI[L.I_ACCT] = acct
    JI[L.I_AOFF] = np.concatenate([[0], np.cumsum(per_job)[:-1]]) if n else per_job
    sp = conf.sched
    ctl = _seconds("controller_start", opts.controller_start)
    decay = _seconds("decay_start", opts.decay_start)
    # _slurmctld_background's clocks (ticks, last_sched_time, the sched_interval and kill-check grids)
    loop = ctl if decay is None or opts.loop_start == "controller" else decay
    t0 = (float(np.floor(w.submit[0])) if n else 0.0) if loop is None else loop
    dbd = conf.accounting_storage == "accounting_storage/slurmdbd" or opts.weights_without_slurmdbd == "applied"
    dropped = [f"PriorityWeight{k.capitalize() if k == 'age' else 'Fairshare'}={wt[k]}"
               for k in ("age", "fairshare") if multifactor and wt[k] and not dbd]
    if dropped:
        notes.append(f"{' and '.join(dropped)} ignored: {conf.source} has AccountingStorageType={conf.accounting_storage}, "
                     "and Slurm uses age and fair-share only with slurmdbd (\"can only be used with SlurmDBD, "
                     "ignoring\"); add AccountingStorageType=accounting_storage/slurmdbd or use --slurm-option "
                     "weights_without_slurmdbd=applied")
    P = np.zeros(L.N_P)
    P[L.P_W_AGE] = wt["age"] if multifactor and dbd else 0
    P[L.P_W_FS] = wt["fairshare"] if multifactor and dbd else 0
    P[L.P_MAX_AGE] = conf.max_age
    P[L.P_HALF_LIFE] = conf.decay_half_life
    P[L.P_CALC] = conf.calc_period
    P[L.P_SCHED_INTERVAL] = sp["sched_interval"]
    P[L.P_DEPTH] = sp["default_queue_depth"]
    P[L.P_BATCH_DELAY] = sp["batch_sched_delay"]
    P[L.P_BF_INTERVAL] = sp["bf_interval"]
    P[L.P_BF_WINDOW] = sp["bf_window"] * 60.0
    P[L.P_BF_RES] = sp["bf_resolution"]
    P[L.P_BF_MAX_TEST] = sp["bf_max_job_test"]
    P[L.P_OVER_TIME] = conf.over_time_limit if math.isfinite(conf.over_time_limit) else 1e18
    P[L.P_DAMP] = conf.fairshare_dampening
    P[L.P_T0] = t0
    P[L.P_CALC0] = t0 if decay is None else decay
    P[L.P_KILL_WAIT] = conf.kill_wait
    epoch = _seconds("unix_start", opts.unix_start)
    epoch = (w.unix_start or 0) if epoch is None else epoch
    P[L.P_BF_PHASE] = math.fmod(epoch, sp["bf_resolution"]) if opts.bf_resolution_on == "unix" else 0.0
    P[L.P_NODE_SPACE] = (sp["bf_node_space_size"] or sp["bf_max_job_test"]) if opts.node_space_limit != "none" else np.inf
    P[L.P_BF_FIRST] = t0 if ctl is None else ctl + sp["bf_interval"]
    P[L.P_TICK] = np.nan if loop is None else math.fmod(loop, 1.0)
    P[L.P_BF_TICK] = np.nan if ctl is None else math.fmod(ctl, 1.0)
    O = np.zeros(L.N_O, dtype=np.int64)
    O[L.O_BACKFILL] = conf.scheduler_type == "sched/backfill"
    O[L.O_KILL_PERIODIC] = opts.kill_check == "periodic-30s"
    O[L.O_FLOOR_PRIO] = opts.priority_rounding == "floor-int"
    O[L.O_FAIR_TREE] = opts.fairshare == "fair-tree" and "NO_FAIR_TREE" not in conf.flags
    O[L.O_DECAY_EXACT] = opts.decay_factor == "exact-half-life"
    O[L.O_SUBMIT_IMMEDIATE] = opts.sched_on_submit == "immediate"
    O[L.O_MAIN_FULL] = opts.main_depth == "full"
    O[L.O_STOP_PARTITION_ONLY] = opts.stop_scope == "partition"
    O[L.O_BF_COUNT_POPPED] = opts.bf_max_job_test_counts == "popped"
    O[L.O_BF_TOUCH_EXCLUSIVE] = opts.bf_touch == "exclusive"
    O[L.O_RESERVE_FIRST_ONLY] = opts.reserve_all == "first-only"
    O[L.O_ACCRUE_AT_END] = opts.usage_accrual == "at-job-end"
    O[L.O_USAGE_TIME_T] = opts.usage_clock == "time_t"
    O[L.O_BF_PASS_UPDATES] = opts.bf_pass_updates == "estimates"
    O[L.O_BF_IDLE_PASSES] = opts.bf_idle_passes == "run"
    O[L.O_CHARGE_AT_END] = (opts.usage_at_end == "always"
                            or bool(conf.accounting_enforce & {"2", "limits", "safe", "all"}))
    O[L.O_END_IMMEDIATE] = opts.sched_on_end == "immediate"
    O[L.O_RESV_ROUNDED] = opts.resv_overlap == "rounded-strict"
    O[L.O_ASSOC_LIMIT_STOP] = bool(conf.sched.get("assoc_limit_stop"))
    tier = np.array([p.tier for p in parts], dtype=np.float64)
    O[L.O_RESOURCES] = RES3[0].shape[1] > 0  # (empty rows: the CPU-only path)
    O[L.O_WILLRUN_EXACT] = will_run_mode(opts, epoch, bool(O[L.O_RESOURCES]))
    O[L.O_BEST_FIT] = opts.node_choice == "best-fit"
    return dict(JF=JF, JI=JI, P=P, O=O, node_cpus=node_cpus, part_nodes=part_nodes, tier=tier, shares=shares,
                alloc=alloc, LJ=LJ, LA=LA, LC=LC, perm=perm, conf=conf, workload=w, cpus=C, RES3=RES3,
                notes=tuple(filter(None, [machine_note(conf, machine_procs, C), *notes, *res_notes])))


def size_cpus(w, cpus: np.ndarray, whole: str = "request") -> np.ndarray:
    """The CPU count the job-size factor reads (:attr:`SlurmOptions.exclusive_size` ``whole``): for a
    whole-node job (``exclusive`` 1: ``--exclusive``, PBS ``place=excl``) with 'request' its
    requested processors, not the node's CPUs it held (sacct's AllocCPUS); with 'node' ``cpus``.
    Any other job: ``cpus`` (the trace's processors), as before."""
    from ..workload.resources import resources_of

    res = resources_of(w)
    if res is None or not (res.exclusive == 1).any() or whole == "node":
        return cpus
    req = np.asarray(w.req_procs, dtype=np.int64)
    return np.where((res.exclusive == 1) & (req > 0), np.minimum(req, cpus), cpus)


def will_run_mode(opts: SlurmOptions, epoch: float, resources: bool) -> int:
    """O_WILLRUN_EXACT for :func:`~schedlab.slurm.backfill._batches`: 0 'doubling-30s', 1 'exact',
    2 + (the trace's Unix start mod 30) 'barrier-30s' (its batches align to Unix time); a run that
    models ``resources`` reads ``resource_will_run`` (unless 'as-cpu'), any other ``will_run_batching``."""
    if (resources and opts.resource_will_run == "barrier-30s") or opts.will_run_batching == "barrier-30s":
        return 2 + int(math.floor(epoch)) % 30
    return int(opts.will_run_batching == "exact")


def select_params(conf: SlurmConf, opts: SlurmOptions) -> str:
    """The SelectTypeParameters a run uses: the file's, else :attr:`SlurmOptions.select_params_default`."""
    if conf.select_params is not None:
        return conf.select_params
    return "CR_CPU" if opts.select_params_default == "CR_CPU" else "CR_CORE_MEMORY"


def resources_modelled(conf: SlurmConf, opts: SlurmOptions, workload=None) -> tuple[bool, bool, bool]:
    """(memory, GPUs, exclusive) as a run models them: memory under a CR_*_Memory
    SelectTypeParameters, GPUs when a node has ``Gres=gpu``, exclusive nodes when a partition is
    OverSubscribe=EXCLUSIVE or a job asked for them (``Workload.resources``). All False: the
    CPU-only path, exactly as before issue 47."""
    from ..workload.resources import resources_of

    res = resources_of(workload) if workload is not None else None
    mem = select_params(conf, opts).endswith("_MEMORY")
    gpu = any(conf.node_gpus)
    excl = any(p.exclusive for p in conf.partitions) or (res is not None and bool((res.exclusive == 1).any()))
    return mem, gpu, excl


def resource_arrays(w, conf: SlurmConf, opts: SlurmOptions, part, cpus, part_nodes, alloc: int):
    """The resource rows of a run (jobs in submit order; :mod:`.select`): ``(JR, NR, AR)``, empty
    for the CPU-only path, and note lines. docs/slurm-policy-spec.md section 14 gives the reading:

    - nodes: the trace's requested node count, else the fewest nodes of the job's partition that
      hold its CPUs (ceil(CPUs / the partition's largest node)); its CPUs split evenly over them;
    - memory (CR_*_Memory only): the requested total split evenly over the nodes; a job without a
      request gets DefMemPerCPU x its CPUs on the node, else DefMemPerNode (the partition's value
      first, slurm.conf: "DefMemPerCPU ... overrides"), else (0, Slurm's "unlimited") the node's
      whole memory, as a request of 0 (sbatch --mem: "grants the job access to all of the memory");
    - GPUs (nodes with Gres=gpu): the requested total (``gpu`` GRES; a typed ``gpu:TYPE`` request
      needs nodes of that type) split over the nodes, rounded up (--gres counts per node);
    - whole nodes: a job marked exclusive, or any job of an OverSubscribe=EXCLUSIVE partition."""
    from ..workload.resources import GPU, resources_of

    n, N = len(w), part_nodes.shape[1]
    mem_on, gpu_on, excl_on = resources_modelled(conf, opts, w)
    res = resources_of(w)
    notes = []
    cr = select_params(conf, opts)
    threads = np.asarray(conf.node_threads or [1] * N)
    if cr.startswith("CR_CORE") and (threads > 1).any():
        v = int(np.flatnonzero(threads > 1)[0])
        where = f"{conf.source}:{conf.select_line}" if conf.select_line else conf.source
        raise WorkloadError(f"{where}: SelectTypeParameters={cr} on node {conf.node_names[v]} of ThreadsPerCore="
                            f"{threads[v]} is not modelled (CR_Core allocates whole cores of several CPUs); use CR_CPU "
                            "or CR_CPU_Memory")
    if res is not None and not (mem_on and gpu_on):
        left = []
        if not mem_on and (np.maximum(res.req_mem, res.mem) > 0).any():
            left.append(f"memory ({cr}: memory is not a consumable)")
        if not gpu_on and (res.req_gpus > 0).any():
            left.append(f"GPUs (no node of {conf.source} has Gres=gpu)")
        if left and (mem_on or gpu_on or excl_on):
            notes.append(f"the trace's jobs request {' and '.join(left)}: ignored, those jobs get the rest of their request")
    if not (mem_on or gpu_on or excl_on) or n == 0:
        return (np.zeros((L.N_JR, 0)), np.zeros((L.N_NR, 0)), np.zeros((L.N_AR, 0))), notes
    node_cpus = np.asarray(conf.node_cpus, dtype=np.int64)
    types = sorted({t for t in conf.node_gpu_type if t})
    NR = np.zeros((L.N_NR, N))
    NR[L.C_MEM] = np.asarray(conf.node_mem, dtype=np.float64) if mem_on else 0.0
    NR[L.C_GPU] = np.asarray(conf.node_gpus, dtype=np.float64) if gpu_on else 0.0
    NR[L.C_GTYPE] = [types.index(t) if t else -1 for t in conf.node_gpu_type]
    parts = conf.partitions
    biggest = np.array([node_cpus[part_nodes[k] > 0].max() for k in range(len(parts))])[part]
    req_nodes = res.req_nodes if res is not None else np.full(n, -1)
    k = np.where(req_nodes > 0, req_nodes, np.ceil(cpus / biggest)).astype(np.int64)
    k = np.clip(k, 1, np.maximum(cpus, 1))
    JR = np.zeros((L.N_JR, n))
    JR[L.R_NODES] = k
    JR[L.R_CPN] = np.ceil(cpus / k)
    JR[L.R_GTYPE] = -1
    if mem_on:
        dmc = np.array([p.def_mem_per_cpu if p.def_mem_per_cpu is not None else conf.def_mem_per_cpu for p in parts],
                       dtype=object)[part]
        dmn = np.array([p.def_mem_per_node if p.def_mem_per_node is not None else conf.def_mem_per_node for p in parts],
                       dtype=object)[part]
        default = np.array([c * JR[L.R_CPN, j] if c else (d if d else -1.0) for j, (c, d) in enumerate(zip(dmc, dmn))])
        req = res.req_mem if res is not None else np.full(n, -1.0)
        JR[L.R_MEM] = np.where(req > 0, req / k, np.where(req == 0, -1.0, default))
    if gpu_on and res is not None:
        total = np.maximum(res.req_gpus, 0)
        for name, counts in res.req_gres.items():
            if name.startswith(GPU + ":"):
                total = np.maximum(total, counts)  # (a typed request alone, without its gres/gpu total)
                typ = name.split(":", 1)[1]
                asked = counts > 0
                if asked.any() and typ not in types:
                    j = int(np.flatnonzero(asked)[0])
                    raise WorkloadError(f"{w.name or 'workload'}: job {w.id[j]} asks for GPUs of type {typ}, which no "
                                        f"node of {conf.source} has (Gres=gpu:TYPE:N types: {', '.join(types) or 'none'})")
                JR[L.R_GTYPE, asked] = types.index(typ)
        JR[L.R_GPN] = np.ceil(total / k)
    if excl_on:
        pex = np.array([p.exclusive for p in parts])[part]
        JR[L.R_EXCL] = pex | ((res.exclusive == 1) if res is not None else False)
    _check_fits(w, conf, JR, NR, node_cpus, part, part_nodes)
    return (JR, NR, np.zeros((L.N_AR, alloc))), notes


def _check_fits(w, conf, JR, NR, node_cpus, part, part_nodes) -> None:
    """Every job fits its partition's nodes when they are empty (else it would pend for good):
    an error naming the first that does not."""
    mem = JR[L.R_MEM][:, None]
    ok_mem = (mem < 0) | (NR[L.C_MEM][None, :] >= mem)
    typed = (JR[L.R_GTYPE] >= 0) & (JR[L.R_GPN] > 0)
    ok_type = ~typed[:, None] | (NR[L.C_GTYPE][None, :] == JR[L.R_GTYPE][:, None])
    ok = ((node_cpus[None, :] >= JR[L.R_CPN][:, None]) & ok_mem & (NR[L.C_GPU][None, :] >= JR[L.R_GPN][:, None])
          & ok_type & (part_nodes[part] > 0))
    bad = np.flatnonzero(ok.sum(axis=1) < JR[L.R_NODES])
    if bad.size:
        j = int(bad[0])
        m = JR[L.R_MEM, j]
        raise WorkloadError(
            f"{w.name or 'workload'}: job {w.id[j]} needs {int(JR[L.R_NODES, j])} node(s) with {int(JR[L.R_CPN, j])} CPUs"
            + (f", {m:g} MB" if m > 0 else "") + (f", {int(JR[L.R_GPN, j])} GPUs" if JR[L.R_GPN, j] > 0 else "")
            + f" each; partition {conf.partitions[part[j]].name} of {conf.source} has {int(ok[j].sum())} such nodes")


def unlimited_note(n: int, with_default: int, reading: str) -> str:
    """One line on the jobs without a time limit and the limit each got (:attr:`SlurmOptions.unlimited_estimate`);
    '' when there are none."""
    if not n:
        return ""
    if reading == "runtime":
        got = "their own runtime (unlimited_estimate=runtime: clairvoyant, no scheduler knows it)"
    elif reading == "max-time":
        got = "their partition's MaxTime (unlimited_estimate=max-time)"
    else:
        got = (f"their partition's DefaultTime ({with_default:,}), else its MaxTime ({n - with_default:,}) "
               "(unlimited_estimate=partition, Slurm's reading)")
    return f"{n:,} jobs ran without a time limit (UNLIMITED, Partition_Limit or none): their limit is {got}"


def machine_note(conf: SlurmConf, machine_procs: int | None, cpus: int) -> str:
    """One line when the slurm.conf's NodeName lines define another number of CPUs than the trace's
    machine (its header's MaxProcs, or --procs); '' when they agree or there are no NodeName lines.

    Reading: **the slurm.conf defines the machine**. Slurm schedules on the nodes its slurm.conf
    lists, whatever machine a trace was recorded on, so ``--policy slurm`` schedules on them, and
    UTIL and ``procs`` are against their CPUs (a what-if run of a trace on a larger or smaller
    configuration is legitimate, hence a note, not an error). Without NodeName lines the nodes are
    built from the trace's machine (``cpus_per_node``) and the two agree by construction."""
    if not conf.node_lines or machine_procs is None or int(machine_procs) == cpus:
        return ""
    return (f"{conf.source} defines {cpus:,} CPUs on {len(conf.node_cpus):,} nodes, the trace's machine is "
            f"{int(machine_procs):,} processors (MaxProcs or --procs): --policy slurm schedules on the slurm.conf's "
            f"{cpus:,} CPUs, and UTIL and procs are against them")


def simulate_slurm(workload, machine, policy: SlurmPolicy, *, kill: bool = True, skip_passes: bool = True):
    """Simulate ``policy`` on ``workload``; a Schedule in trace order whose workload carries the
    limits as Slurm applied them (module docstring) and whose machine is the slurm.conf's CPUs
    (:func:`machine_note`; ``machine``, the trace's, only checks the jobs). ``schedule.plan`` is a :class:`SlurmRun`.
    ``skip_passes=False`` runs every backfill pass, also those that provably start nothing
    (:func:`~schedlab.slurm.kernel.slurm_loop`): the slow reference the tests compare with."""
    from ..sim.engine import check_workload
    from ..sim.model import Machine

    if not isinstance(machine, Machine):
        machine = Machine(machine)
    check_workload(workload, machine)
    a = prepare(workload, machine.procs, policy, kill=kill)
    n = len(workload)
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    by = np.zeros(n, dtype=np.int64)
    why = np.zeros(n, dtype=np.int64)
    if n:
        K.slurm_loop(a["JF"], a["JI"], a["P"], a["O"], a["node_cpus"], a["part_nodes"], a["tier"], a["shares"],
                     a["alloc"], start, finish, by, a["RES3"], a["LJ"], a["LA"], a["LC"], why, skip_passes)
    perm = a["perm"]
    rejected_by_limit(a["workload"], why, start, a["LC"])
    out_s, out_f, out_by = np.empty(n), np.empty(n), np.empty(n, dtype=np.int64)
    out_s[perm], out_f[perm], out_by[perm] = start, finish, by
    limit = np.empty(n)
    limit[perm] = a["JF"][L.F_LIMIT]
    applied = np.where(workload.runtime > limit, out_f - out_s, limit)  # killed jobs: the kill time
    w = workload.replace(estimate=np.maximum(applied, 1e-9)) if n else workload
    conf = a["conf"]
    part = np.empty(n, dtype=np.int64)
    part[perm] = a["JI"][L.I_PART]
    out_why = np.empty(n, dtype=np.int64)
    out_why[perm] = why
    pnames = tuple(conf.partitions[k].name for k in part)
    nodes = alloc = excl = None
    if a["O"][L.O_RESOURCES]:
        nodes, alloc, excl = _node_allocation(a, conf, perm)
    run = SlurmRun(started_by=out_by, partition=pnames, ignored=tuple(conf.ignored),
                   notes=tuple(filter(None, (*a["notes"], held_note(out_why)))), pending_reason=reason_names(out_why),
                   nodes=nodes, allocation=alloc, exclusive=excl)
    return _schedule(w, Machine(a["cpus"]), policy, out_s, out_f, run)  # the slurm.conf's CPUs (machine_note)


@dataclass(frozen=True, eq=False)
class SlurmRun:
    """What a Slurm run adds to its schedule: which scheduler started each job (1 main, 2
    backfill), each job's partition name, the slurm.conf lines listed as ignored, and ``notes``:
    one line each the user must see (:func:`machine_note`, jobs without a time limit, jobs held by
    limits), and ``pending_reason``: per job the association/QOS limit that held it at the last main
    scheduler run that tested it before it started (Slurm's pending reason, e.g.
    ``QOSMaxJobsPerUserLimit``; '' when no main run found a limit holding it). Backfill passes do
    not set it: schedlab skips and trims passes that provably start nothing, so a reason set there
    would depend on which passes ran; the main runs are the same either way."""

    started_by: np.ndarray
    partition: tuple
    ignored: tuple
    notes: tuple = ()
    pending_reason: tuple = ()
    #: a run that models resources (docs/slurm-policy-spec.md section 14): the slurm.conf's nodes
    #: (:class:`~schedlab.sim.model.NodeMachine`), each job's nodes and amounts on them
    #: (:class:`~schedlab.sim.model.NodeAllocation`, job = trace index) and which jobs had whole
    #: nodes; None for a CPU-only run
    nodes: object | None = None
    allocation: object | None = None
    exclusive: np.ndarray | None = None


def _node_allocation(a, conf: SlurmConf, perm):
    """The NodeMachine, NodeAllocation (trace order) and exclusive flags of a resource run."""
    from ..sim.model import Node, NodeAllocation, NodeMachine

    JR, NR, AR = a["RES3"]
    JI = a["JI"]
    names = {k: [] for k in range(len(conf.node_cpus))}
    for p in conf.partitions:
        for v in p.nodes:
            names[v].append(p.name)
    machine = NodeMachine(tuple(Node(conf.node_names[v], int(conf.node_cpus[v]), float(NR[L.C_MEM, v]),
                                     int(NR[L.C_GPU, v]), tuple(names[v])) for v in range(len(conf.node_cpus))))
    k = JR[L.R_NODES].astype(np.int64)
    rows = np.concatenate([JI[L.I_AOFF, j] + np.arange(k[j]) for j in range(k.size)]) if k.size else np.zeros(0, np.int64)
    job = np.repeat(perm, k)  # submit order -> trace index
    alloc = NodeAllocation(job, AR[L.X_NODE, rows].astype(np.int64), AR[L.X_CPUS, rows].astype(np.int64),
                           AR[L.X_OMEM, rows].copy(), AR[L.X_OGPU, rows].astype(np.int64))
    excl = np.empty(k.size, dtype=bool)
    excl[perm] = JR[L.R_EXCL] > 0
    return machine, alloc, excl


def _schedule(w, machine, policy, start, finish, run):
    from ..sim.model import Schedule

    s = Schedule(w, machine, None, start, finish, killed=True)
    object.__setattr__(s, "slurm", run)
    object.__setattr__(s, "policy", policy)
    return s
