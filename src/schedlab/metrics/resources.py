"""Metrics per resource (issue 47 item 4): utilisation of CPUs, GPUs and memory, waits per partition
and per QOS, for the runs of a trace that carries resources.

Shown only where a trace has them (:func:`has_resources`): a run without resources prints exactly
what it printed before. Over the schedule's span, as UTIL (greedy-es-sorting-criteria eq. (5)):

    X_UTIL = 100 * sum_j a_j^X (C_j - S_j) / (capacity^X * (max C - min S))

with a_j^X the amount of resource X the job held from its start S_j to its finish C_j.

- A run that allocated nodes (``--policy slurm`` with a slurm.conf that models memory or GPUs:
  :class:`~schedlab.slurm.policy.SlurmRun` with a :class:`~schedlab.sim.model.NodeAllocation`):
  a_j^X is the sum over the job's allocation rows (its CPUs, MB and GPUs on each node), capacity^X
  the :class:`~schedlab.sim.model.NodeMachine`'s total CPUs, ``RealMemory`` and GPUs.
  ``GPU_UTIL`` / ``MEM_UTIL`` are left out on a machine without GPUs / without memory.
- Any other run of a trace with resources schedules CPUs alone on identical processors: only
  ``CPU_UTIL`` (a_j = the job's processors, capacity = the machine's). Memory and GPUs were not
  allocated, so their utilisation is not shown: never a number the run did not make.

Waits per set (``partition``: the Slurm run's partition of each job, else the trace's queues named by
its header's ``SchedlabQueues:``/``Queue:`` lines; ``qos``: SWF field 16 named by ``SchedlabQOS:``, as
a converted sacct log carries them): jobs, mean wait (S - r) and AWRT (eq. (6), weights p m) of the
jobs of each name. A set the trace does not name is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .basic import _mean, _weighted_mean, weighted_sum

if TYPE_CHECKING:
    from ..sim.model import Schedule

__all__ = ["RESOURCE_UTIL_NAMES", "RESOURCE_METRIC_HELP", "ALLOC_COLUMNS", "has_resources", "capacities", "resource_utilisation",
           "recorded_utilisation",
           "set_names", "waits_by_set", "resource_metrics", "job_resource_columns"]

#: the utilisation columns, in the order tables and ``--json`` print them (each only when defined for the run)
RESOURCE_UTIL_NAMES: tuple[str, ...] = ("CPU_UTIL", "GPU_UTIL", "MEM_UTIL")

RESOURCE_METRIC_HELP: dict[str, str] = {
    "CPU_UTIL": "CPUs allocated x time / (the machine's CPUs x span) in percent (span max C - min S)",
    "GPU_UTIL": "GPUs allocated x time / (the nodes' GPUs x span) in percent; only a run that allocated nodes",
    "MEM_UTIL": "memory (MB) allocated x time / (the nodes' RealMemory x span) in percent; only a run that allocated nodes",
}


#: the per-job columns of a run that allocated nodes (:func:`job_resource_columns`): utilisation name,
#: the column, what the figures call it and its unit
ALLOC_COLUMNS: tuple[tuple[str, str, str, str], ...] = (
    ("CPU_UTIL", "alloc_cpus", "CPUs", "CPUs"),
    ("GPU_UTIL", "alloc_gpus", "GPUs", "GPUs"),
    ("MEM_UTIL", "alloc_mem_mb", "memory", "MB"),
)


def _run(schedule):
    return getattr(schedule, "slurm", None)


def has_resources(schedule: "Schedule") -> bool:
    """Whether the per-resource metrics are shown for ``schedule``: its run allocated nodes, or its
    trace carries a resource table (:attr:`Workload.resources`: sacct/PBS logs with TRES, a
    ``SchedlabGPUs`` SWF header, ``workload generate gpu-cluster``)."""
    return getattr(_run(schedule), "allocation", None) is not None or getattr(schedule.workload, "resources", None) is not None


def capacities(schedule: "Schedule") -> dict[str, float]:
    """The total each utilisation of ``schedule`` is against (module docstring): ``CPU_UTIL`` the machine's
    processors, or with a node allocation the nodes' CPUs, GPUs and ``RealMemory`` (a resource the
    nodes lack is left out)."""
    run = _run(schedule)
    if getattr(run, "allocation", None) is None:
        caps = {"CPU_UTIL": float(schedule.machine.procs)}
    else:
        nodes = run.nodes.nodes
        caps = {"CPU_UTIL": float(sum(n.cpus for n in nodes)), "GPU_UTIL": float(sum(n.gpus for n in nodes)),
                "MEM_UTIL": float(sum(n.mem for n in nodes))}
    return {k: v for k, v in caps.items() if v > 0.0}


def _util(amount, held, capacity: float, span: float) -> float | None:
    return 100.0 * weighted_sum(amount, held) / (capacity * span) if span > 0.0 else None


def resource_utilisation(schedule: "Schedule") -> dict[str, float | None]:
    """``CPU_UTIL``, and with a node allocation ``GPU_UTIL`` and ``MEM_UTIL`` (module docstring);
    a value is None when the schedule spans no time."""
    start = np.asarray(schedule.start, dtype=np.float64)
    finish = np.asarray(schedule.finish, dtype=np.float64)
    if start.size == 0:
        return {}
    span = float(finish.max() - start.min())
    alloc = getattr(_run(schedule), "allocation", None)
    if alloc is None:  # identical processors: the CPUs each job holds
        amounts = {"CPU_UTIL": np.asarray(schedule.workload.procs, dtype=np.float64)}
        held = finish - start
    else:
        held = (finish - start)[alloc.job]
        amounts = {"CPU_UTIL": alloc.cpus.astype(np.float64), "GPU_UTIL": alloc.gpus.astype(np.float64),
                   "MEM_UTIL": np.asarray(alloc.mem, dtype=np.float64)}
    return {name: _util(amounts[name], held, cap, span) for name, cap in capacities(schedule).items()}


def recorded_utilisation(workload, capacity: dict[str, float]) -> dict[str, float | None]:
    """The utilisation an accounting log records, against the same totals as a simulated run of it
    (``capacity``: :func:`capacities` of that run, the slurm.conf's nodes): each job from its recorded
    start (submit + wait) for its runtime, holding its allocated CPUs (``Workload.procs``, sacct
    AllocCPUS), GPUs (AllocTRES ``gres/gpu``) and memory (AllocTRES ``mem``), over the recorded span, as
    :func:`resource_utilisation`. A resource the log does not record for every job (no AllocTRES, or one
    without ``gres/gpu`` because AccountingStorageTRES lacks it) is None: never a number the log did not give;
    a log without every job's start (a wait of -1, as a generated trace has) gives {}."""
    from ..workload.resources import resources_of

    wait = np.asarray(workload.wait, dtype=np.float64)
    if wait.size == 0 or (wait < 0).any():
        return {}
    start = np.asarray(workload.submit, dtype=np.float64) + wait
    held = np.maximum(np.asarray(workload.runtime, dtype=np.float64), 0.0)
    span = float((start + held).max() - start.min())
    res = resources_of(workload)
    amounts = {"CPU_UTIL": np.asarray(workload.procs, dtype=np.float64),
               "GPU_UTIL": None if res is None else res.gpus.astype(np.float64),
               "MEM_UTIL": None if res is None else np.asarray(res.mem, dtype=np.float64)}
    out: dict[str, float | None] = {}
    for name, cap in capacity.items():
        amount = amounts[name]
        out[name] = None if amount is None or (amount < 0).any() else _util(amount, held, cap, span)
    return out


def set_names(schedule: "Schedule") -> dict[str, tuple[np.ndarray, dict]]:
    """kind -> (each job's key, key -> name) for the sets the run or the trace names."""
    from ..workload.accounting import header_names  # the names the Slurm policy reads too

    w = schedule.workload
    out = {}
    run = _run(schedule)
    if run is not None and getattr(run, "partition", None):
        keys = np.asarray(run.partition, dtype=object)
        out["partition"] = (keys, {k: str(k) for k in set(run.partition)})
    else:
        names = header_names(w, "Queues")
        if names:
            out["partition"] = (np.asarray(w.queue), names)
    names = header_names(w, "QOS")
    if names:
        out["qos"] = (np.asarray(w.partition), names)
    return out


def waits_by_set(schedule: "Schedule") -> dict[str, dict[str, dict[str, float | None]]]:
    """``{"partition": {name: {"jobs", "mean_wait", "AWRT"}}, "qos": {...}}`` for the sets the run or
    the trace names (module docstring); names in sorted order; a job whose key has no name is left out."""
    w = schedule.workload
    start = np.asarray(schedule.start, dtype=np.float64)
    finish = np.asarray(schedule.finish, dtype=np.float64)
    submit = np.asarray(w.submit, dtype=np.float64)
    area = np.asarray(schedule.processing, dtype=np.float64) * np.asarray(w.procs, dtype=np.float64)
    out: dict[str, dict] = {}
    for kind, (keys, names) in set_names(schedule).items():
        groups = {}
        for key, name in sorted(names.items(), key=lambda kv: str(kv[1])):
            sel = keys == key
            if not sel.any():
                continue
            groups[str(name)] = {"jobs": int(sel.sum()), "mean_wait": _mean(start[sel] - submit[sel]),
                                 "AWRT": _weighted_mean(area[sel], finish[sel] - submit[sel])}
        if groups:
            out[kind] = groups
    return out


def resource_metrics(schedule: "Schedule") -> dict:
    """The per-resource figures of ``schedule`` as ``--json`` and the tables show them: the
    utilisation keys of :func:`resource_utilisation` and ``waits`` (:func:`waits_by_set`, when any
    set is named); {} for a run without resources (:func:`has_resources`), so nothing changes there."""
    if not has_resources(schedule):
        return {}
    out: dict = dict(resource_utilisation(schedule))
    waits = waits_by_set(schedule)
    if waits:
        out["waits"] = waits
    return out


def job_resource_columns(schedule: "Schedule") -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The per-job columns the job table (:func:`schedlab.metrics.per_job.job_table`) adds for a run with
    resources (:func:`has_resources`; ``({}, {})`` otherwise), and the capacity of each amount column.

    - A run that allocated nodes: ``alloc_cpus``, ``alloc_gpus`` (a machine with GPUs) and ``alloc_mem_mb``
      (a machine with memory), each job's sum over its allocation rows (what :func:`resource_utilisation`
      counts; an exclusive job's whole nodes), with capacity the nodes' total;
    - ``partition`` and ``qos``: each job's name in the sets the run or the trace names
      (:func:`set_names`; '' for a job whose key has no name)."""
    if not has_resources(schedule):
        return {}, {}
    n = len(schedule.workload)
    cols: dict[str, np.ndarray] = {}
    capacity: dict[str, float] = {}
    run = _run(schedule)
    alloc = getattr(run, "allocation", None)
    if alloc is not None:
        amounts = {"CPU_UTIL": alloc.cpus, "GPU_UTIL": alloc.gpus, "MEM_UTIL": alloc.mem}
        caps = capacities(schedule)
        for name, col, _, _ in ALLOC_COLUMNS:
            if name in caps:
                total = np.bincount(alloc.job, weights=np.asarray(amounts[name], dtype=np.float64), minlength=n)
                cols[col] = total if name == "MEM_UTIL" else np.rint(total).astype(np.int64)  # (whole CPUs and GPUs)
                capacity[col] = caps[name]
    for kind, (keys, names) in set_names(schedule).items():
        cols[kind] = np.array([str(names.get(k, "")) for k in keys.tolist()], dtype=object)
    return cols, capacity
