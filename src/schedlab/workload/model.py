"""The `Workload`: a trace of rigid parallel jobs held as numpy columns.

Column names follow the Standard Workload Format (SWF, Feitelson's Parallel Workloads Archive);
the 18 SWF fields are kept verbatim so that `read_swf -> write_swf` round-trips, and the
columns the schedulers use get the field's words:

=========  ===============  =====================================================
SWF field  column           meaning
=========  ===============  =====================================================
1          ``id``           job number
2          ``submit``       submit (release) time r_j, seconds from trace start
3          ``wait``         recorded wait time (of the original schedule)
4          ``runtime``      actual run time p_j (seconds)
5          ``procs``        allocated processors m_j (after cleaning: the job's width)
6          ``cpu``          average CPU time used
7          ``mem``          used memory
8          ``req_procs``    requested processors
9          ``estimate``     requested time = user runtime estimate \\bar p_j
10         ``req_mem``      requested memory
11         ``status``       1 completed, 0 failed, 5 cancelled, ...
12         ``user``         user id
13         ``unix_group``   Unix group id (not schedlab's user group!)
14         ``executable``   application number
15         ``queue``        queue number
16         ``partition``    partition number
17         ``preceding``    preceding job number
18         ``think``        think time from preceding job
=========  ===============  =====================================================

``group`` is schedlab's *user group* (1 = heaviest users ... 5 = lightest, 0 = not assigned),
see :func:`schedlab.workload.groups.assign_groups`; it is not an SWF field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from .resources import Resources  # noqa: F401  (the type of Workload.resources)

#: The 18 SWF fields in file order, by their schedlab column names.
SWF_FIELDS: tuple[str, ...] = (
    "id",
    "submit",
    "wait",
    "runtime",
    "procs",
    "cpu",
    "mem",
    "req_procs",
    "estimate",
    "req_mem",
    "status",
    "user",
    "unix_group",
    "executable",
    "queue",
    "partition",
    "preceding",
    "think",
)

#: Columns stored as float64 (times and averages); every other SWF column is int64.
FLOAT_FIELDS: frozenset[str] = frozenset({"submit", "wait", "runtime", "cpu", "mem", "estimate", "req_mem", "think"})

ALL_COLUMNS: tuple[str, ...] = SWF_FIELDS + ("group",)


def _dtype(name: str) -> type:
    return np.float64 if name in FLOAT_FIELDS else np.int64


@dataclass(frozen=True, eq=False)
class Workload:
    """A job trace: one numpy array per column, all of the same length.

    Build one with :func:`schedlab.read_swf` or :meth:`Workload.from_columns`. Arrays are made
    read-only on construction; derive new workloads with :meth:`replace`, :meth:`take` or
    :meth:`with_columns` (Workload is immutable).
    """

    id: np.ndarray
    submit: np.ndarray
    wait: np.ndarray
    runtime: np.ndarray
    procs: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    req_procs: np.ndarray
    estimate: np.ndarray
    req_mem: np.ndarray
    status: np.ndarray
    user: np.ndarray
    unix_group: np.ndarray
    executable: np.ndarray
    queue: np.ndarray
    partition: np.ndarray
    preceding: np.ndarray
    think: np.ndarray
    group: np.ndarray
    #: machine size m (identical processors); None when the trace does not say
    machine_procs: int | None = None
    #: a short name, by default the file name without .swf/.gz
    name: str = ""
    #: UnixStartTime of the header: the epoch second that submit time 0 stands for
    unix_start: int | None = None
    #: TimeZoneString of the header, an IANA name such as "US/Eastern"
    timezone: str | None = None
    #: the header comment lines, verbatim (without the leading ';' and newline)
    header: tuple[str, ...] = field(default=())
    #: the calendar window a cut kept, in dates (:func:`schedlab.workload.cut.window_label`); "" = not cut
    window: str = ""
    #: what jobs ask for and get beyond CPUs (nodes, memory, GPUs, GRES; :mod:`.resources`), row j
    #: for job j; None: a trace without them (SWF memory fields: :func:`.resources.resources_of`)
    resources: "Resources | None" = None

    def __post_init__(self) -> None:
        n = None
        for name in ALL_COLUMNS:
            arr = np.ascontiguousarray(getattr(self, name), dtype=_dtype(name) if name != "group" else np.int64)
            if arr.ndim != 1:
                raise ValueError(f"column {name!r} must be one-dimensional")
            if n is None:
                n = arr.shape[0]
            elif arr.shape[0] != n:
                raise ValueError(f"column {name!r} has {arr.shape[0]} values, expected {n}")
            if arr.flags.writeable:
                arr = arr.view()
                arr.flags.writeable = False
            object.__setattr__(self, name, arr)
        if self.resources is not None and len(self.resources) != (n or 0):
            raise ValueError(f"resources have {len(self.resources)} rows, expected {n or 0}")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(cls, columns: dict[str, np.ndarray | list], **meta) -> "Workload":
        """Build a workload from any subset of columns; missing SWF fields are -1.

        ``id`` defaults to 1..n, ``group`` to 0, ``estimate`` to -1 (unknown),
        ``req_procs`` to ``procs``. ``meta`` are the non-column attributes
        (machine_procs, name, unix_start, timezone, header).
        """
        unknown = set(columns) - set(ALL_COLUMNS)
        if unknown:
            raise ValueError(f"unknown workload columns: {sorted(unknown)}")
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError("all columns must have the same length")
        n = lengths.pop() if lengths else 0
        cols: dict[str, np.ndarray] = {}
        for name in ALL_COLUMNS:
            if name in columns:
                cols[name] = np.asarray(columns[name], dtype=_dtype(name))
            elif name == "id":
                cols[name] = np.arange(1, n + 1, dtype=np.int64)
            elif name == "group":
                cols[name] = np.zeros(n, dtype=np.int64)
            elif name == "req_procs" and "procs" in columns:
                cols[name] = np.asarray(columns["procs"], dtype=np.int64)
            else:
                cols[name] = np.full(n, -1, dtype=_dtype(name))
        return cls(**cols, **meta)

    @classmethod
    def empty(cls, **meta) -> "Workload":
        return cls.from_columns({}, **meta)

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return int(self.id.shape[0])

    def columns(self) -> dict[str, np.ndarray]:
        """All columns by name (SWF fields in file order, then ``group``)."""
        return {name: getattr(self, name) for name in ALL_COLUMNS}

    def meta(self) -> dict:
        """The non-column attributes, as keyword arguments for the constructor."""
        return {
            "machine_procs": self.machine_procs,
            "name": self.name,
            "unix_start": self.unix_start,
            "timezone": self.timezone,
            "header": self.header,
            "window": self.window,
        }

    def __iter__(self) -> Iterator[str]:  # pragma: no cover - convenience
        return iter(ALL_COLUMNS)

    # ------------------------------------------------------------------ derivation
    def replace(self, **changes) -> "Workload":
        """A copy with some columns and/or attributes replaced."""
        return dataclasses.replace(self, **changes)

    def take(self, index: np.ndarray) -> "Workload":
        """The jobs selected by a boolean mask or an integer index array, in that order."""
        index = np.asarray(index)
        res = self.resources.take(index) if self.resources is not None else None
        return dataclasses.replace(self, **{name: getattr(self, name)[index] for name in ALL_COLUMNS}, resources=res)

    def with_columns(self, **columns: np.ndarray) -> "Workload":
        return self.replace(**columns)

    def sorted_by_submit(self) -> "Workload":
        """Jobs in stable submit order (a few real traces are not sorted)."""
        order = np.argsort(self.submit, kind="stable")
        if np.all(order == np.arange(len(self))):
            return self
        return self.take(order)

    # ------------------------------------------------------------------ pandas
    def to_dataframe(self):
        """The columns as a pandas DataFrame (metadata in ``df.attrs``)."""
        import pandas as pd

        df = pd.DataFrame(self.columns())
        df.attrs.update(self.meta())
        return df

    @classmethod
    def from_dataframe(cls, df, **meta) -> "Workload":
        merged = {**getattr(df, "attrs", {}), **meta}
        merged = {k: v for k, v in merged.items() if k in {"machine_procs", "name", "unix_start", "timezone", "header", "window"}}
        if "header" in merged:
            merged["header"] = tuple(merged["header"])
        return cls.from_columns({c: df[c].to_numpy() for c in df.columns if c in ALL_COLUMNS}, **merged)

    # ------------------------------------------------------------------ summary
    @property
    def span(self) -> float:
        """Seconds from the first to the last submit."""
        return float(self.submit.max() - self.submit.min()) if len(self) else 0.0

    def __repr__(self) -> str:
        return f"Workload(name={self.name!r}, jobs={len(self)}, machine_procs={self.machine_procs})"
