"""The declared layout of the ``--policy slurm`` kernels: rows of the per-job arrays ``JF`` (float64)
and ``JI`` (int64), slots of the parameters ``P`` (float64) and options ``O`` (int64; each a named
option of :class:`schedlab.slurm.policy.SlurmPolicy`), and the codes of who started a job.
The driver (:mod:`schedlab.slurm.policy`) fills them; the kernels read them by these names only."""

from __future__ import annotations

# JF rows (float64 per job)
F_SUBMIT, F_RUNTIME, F_LIMIT, F_STATIC = 0, 1, 2, 3
N_JF = 4
# JI rows (int64 per job)
I_CPUS, I_PART, I_ACCT, I_AOFF = 0, 1, 2, 3
N_JI = 4
# P slots (float64 parameters)
(P_W_AGE, P_W_FS, P_MAX_AGE, P_HALF_LIFE, P_CALC, P_SCHED_INTERVAL, P_DEPTH, P_BATCH_DELAY,
 P_BF_INTERVAL, P_BF_WINDOW, P_BF_RES, P_BF_MAX_TEST, P_OVER_TIME, P_DAMP, P_T0, P_KILL_WAIT,
 P_BF_PHASE, P_NODE_SPACE, P_BF_FIRST, P_TICK, P_CALC0, P_BF_TICK) = range(22)
N_P = 22
# P_T0: the controller's start (the grid of the decay pass, sched_interval and the kill check);
# P_BF_PHASE: the trace's Unix start mod bf_resolution (bf_resolution rounds epoch seconds);
# P_NODE_SPACE: bf_node_space_size (inf: no limit); P_BF_FIRST: the first time a backfill pass
# may run (-inf: the thread is idle, ticking every second); P_TICK: the phase of the controller's
# one-second ticks (nan: passes and runs at the event's own time); P_CALC0: the decay thread's start
# (the PriorityCalcPeriod grid; P_T0 unless SlurmOptions.decay_start says otherwise); P_TICK is the phase
# of _slurmctld_background's ticks (SlurmOptions.loop_start), P_BF_TICK that of the backfill thread's
# one-second re-checks (the controller's start: its first pass is bf_interval after it; nan: none)
# O slots (int64 options; each is a named option of SlurmPolicy)
(O_BACKFILL, O_KILL_PERIODIC, O_FLOOR_PRIO, O_FAIR_TREE, O_DECAY_EXACT, O_SUBMIT_IMMEDIATE,
 O_MAIN_FULL, O_STOP_PARTITION_ONLY, O_BF_COUNT_POPPED, O_BF_TOUCH_EXCLUSIVE, O_WILLRUN_EXACT,
 O_RESERVE_FIRST_ONLY, O_ACCRUE_AT_END, O_END_IMMEDIATE, O_RESV_ROUNDED, O_RESOURCES, O_BEST_FIT,
 O_ASSOC_LIMIT_STOP, O_USAGE_TIME_T, O_BF_PASS_UPDATES, O_CHARGE_AT_END, O_BF_IDLE_PASSES) = range(22)
N_O = 22
# O_RESOURCES: nodes with memory/GPUs/exclusive use are modelled (docs/slurm-policy-spec.md section 14;
# 0: the CPU-only path, unchanged); O_BEST_FIT: SlurmOptions.node_choice='best-fit'
# JR rows (float64 per job, resource runs): nodes, CPUs per node (the most on one node), memory
# per node in MB (-1: the node's whole memory), GPUs per node, GPU type (-1: any), whole nodes (1/0)
R_NODES, R_CPN, R_MEM, R_GPN, R_GTYPE, R_EXCL = range(6)
N_JR = 6
# NR rows (float64 per node): memory (MB), GPUs and GPU type (-1: untyped) of each node
C_MEM, C_GPU, C_GTYPE = range(3)
N_NR = 3
# FR rows (float64 per node: what is free) and AR rows (float64 per allocation entry: what a job took,
# X_MEM/X_GPU, all of the node for an exclusive job; and its share as the schedule reports it: node,
# CPUs, memory, GPUs)
X_MEM, X_GPU, X_NODE, X_CPUS, X_OMEM, X_OGPU = range(6)
N_AR = 6
KILL_PERIOD = 30.0  # PERIODIC_TIMEOUT of slurmctld.h: job_time_limit runs every 30 s
BY_MAIN, BY_BACKFILL = 1, 2
