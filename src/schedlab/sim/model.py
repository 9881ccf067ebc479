"""Small typed objects that pass between the engine and the rest: `Machine` and `Schedule`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..strategy.model import Strategy
from ..workload.model import Workload


@dataclass(frozen=True)
class Machine:
    """A parallel machine of ``procs`` identical processors."""

    procs: int

    def __post_init__(self) -> None:
        if int(self.procs) != self.procs or self.procs <= 0:
            from ..errors import WorkloadError

            raise WorkloadError(f"machine size must be a positive whole number of processors, got {self.procs!r}")
        object.__setattr__(self, "procs", int(self.procs))


@dataclass(frozen=True)
class Node:
    """One node of a :class:`NodeMachine`: its CPUs, memory (MB, slurm.conf's ``RealMemory``), GPUs
    (``Gres=gpu:N``) and the partitions it is in (slurm.conf ``PartitionName=... Nodes=``)."""

    name: str
    cpus: int
    mem: float = 0.0
    gpus: int = 0
    partitions: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeMachine:
    """A machine of nodes with cores, memory and GPUs (issue 47): what the resource validator
    (:func:`schedlab.sim.validate.validate_node_allocation`) checks allocations against. The rigid
    engines' :class:`Machine` is its CPUs alone (:attr:`procs`)."""

    nodes: tuple[Node, ...]

    @classmethod
    def uniform(cls, count: int, cpus: int, *, mem: float = 0.0, gpus: int = 0, partitions: tuple[str, ...] = (),
                prefix: str = "n") -> "NodeMachine":
        """``count`` equal nodes named ``n0, n1, ...``."""
        return cls(tuple(Node(f"{prefix}{i}", cpus, mem, gpus, partitions) for i in range(count)))

    def __add__(self, other: "NodeMachine") -> "NodeMachine":
        return NodeMachine(self.nodes + other.nodes)

    @property
    def procs(self) -> int:
        return sum(n.cpus for n in self.nodes)


@dataclass(frozen=True, eq=False)
class NodeAllocation:
    """Which nodes each job got, and how much of each: one row per (job, node) pair, ``job`` the
    job's index in its workload, ``node`` the node's index in the :class:`NodeMachine`; ``cpus``,
    ``mem`` (MB) and ``gpus`` the amounts on that node, held from the job's start to its finish."""

    job: np.ndarray
    node: np.ndarray
    cpus: np.ndarray
    mem: np.ndarray
    gpus: np.ndarray

    @classmethod
    def from_rows(cls, rows) -> "NodeAllocation":
        """From ``(job, node, cpus, mem, gpus)`` tuples."""
        a = np.asarray(list(rows), dtype=np.float64).reshape(-1, 5)
        return cls(a[:, 0].astype(np.int64), a[:, 1].astype(np.int64), a[:, 2].astype(np.int64), a[:, 3].copy(),
                   a[:, 4].astype(np.int64))


#: the figures of :meth:`Schedule.plot`, ``"module:function"`` resolved when called (as the registry's
#: rows name the engines): the report layer stands above the engines
SCHEDULE_PLOTS = "schedlab.report.schedule_plots:plot_schedules"


@dataclass(frozen=True, eq=False)
class Schedule:
    """The outcome of one simulation: a start and finish time per job of ``workload``.

    ``start[j]``/``finish[j]`` belong to job ``j`` of ``workload`` (trace order).
    ``finish = start + min(runtime, estimate)`` when jobs are killed at their estimate
    (``killed=True``, the default), else ``start + runtime``. ``site`` is the site index of
    each job in multi-site (grid) simulations, else None.
    """

    workload: Workload
    machine: Machine
    strategy: Strategy | None
    start: np.ndarray
    finish: np.ndarray
    killed: bool = True
    site: np.ndarray | None = None
    #: time-shared schedules (SCOJO-PECT): a :class:`schedlab.sim.timeshare.TimeShared` with each
    #: job's node set and execution intervals; None for rigid schedules
    timeshare: object | None = None
    #: rule-based schedules: a :class:`schedlab.sim.rulebase.StrategyPlan` (the strategy in force
    #: at every pass; the validator replays each start with it); None otherwise
    plan: object | None = None

    @property
    def processing(self) -> np.ndarray:
        """The processing time p_j the job actually used: finish - start (rigid), or the sum of
        its execution intervals (time-shared)."""
        if self.timeshare is not None:
            return self.timeshare.executed()
        return self.finish - self.start

    @property
    def wait(self) -> np.ndarray:
        return self.start - self.workload.submit

    @property
    def response(self) -> np.ndarray:
        return self.finish - self.workload.submit

    def plot(self, out, *, label: str | None = None, versus: dict | None = None, title: str = "",
             window: tuple[float, float] | None = None) -> list:
        """Utilisation and queue length over time, a Gantt chart of ``window`` (seconds; default two
        days from the median submit) and the wait per user group, as ``schedlab plot`` draws them:
        utilisation.png, gantt.png, waits.png and plots.html in folder ``out`` (created); ``versus``
        (label -> Schedule of the same trace, e.g. ``{"EASY": easy}``) drawn beside this one,
        which is ``label`` (default: its strategy's label). Returns the paths written. The figures
        are :func:`schedlab.report.schedule_plots.plot_schedules`, named by :data:`SCHEDULE_PLOTS`
        and imported only when called (the engines do not import the report layer above them)."""
        from ..strategy.registry import resolve

        name = label or getattr(self.strategy, "label", None) or "schedule"
        return resolve(SCHEDULE_PLOTS)({name: self, **(versus or {})}, out, title=title, window=window)

    def to_dataframe(self):
        """One row per job: id, submit, start, finish, procs, runtime, estimate, user, group."""
        import pandas as pd

        w = self.workload
        df = pd.DataFrame(
            {
                "id": w.id,
                "submit": w.submit,
                "start": self.start,
                "finish": self.finish,
                "procs": w.procs,
                "runtime": w.runtime,
                "estimate": w.estimate,
                "user": w.user,
                "group": w.group,
            }
        )
        if self.site is not None:
            df["site"] = self.site
        return df
