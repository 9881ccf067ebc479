"""What the Slurm (`sacct`) and PBS/Torque readers share: durations, local times, SWF columns.

Both readers turn one finished (or never started) job into one SWF record, leaving every
judgement to :func:`schedlab.workload.clean.clean`, so a converted trace is cleaned with the
same counted reasons as an archive trace:

- a job that never started (no start time) has runtime -1; with a cancelled state it is status 5
  and counts as ``cancelled``, otherwise (pending, still running) it counts as ``runtime``;
- an unlimited wall-clock limit (``UNLIMITED``, ``Partition_Limit``, no limit) is estimate -1, and
  the ids of such jobs that ran are listed in the header (``SchedlabNoLimit: 12 15-17``, see
  :data:`NO_LIMIT_KEY`): ``--policy slurm`` gives them what Slurm gives a job without a limit
  (its partition's DefaultTime, else MaxTime: slurm option ``unlimited_estimate``); cleaning for
  every other policy counts them as ``estimate_filled`` (their runtime) or ``missing_estimate``
  with ``--missing-estimate drop``;
- allocated processors go to SWF field 5 and requested ones to field 8 (``procs_from_requested``
  when the job got no allocation recorded).

Names (users, groups, queues, partitions) become numbers 1, 2, ... in order of first appearance,
as the Parallel Workloads Archive anonymises its traces; queue and partition names are listed in
the header, user and group names are not written anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from ..errors import SWFError, WorkloadError
from .model import Workload
from .resources import id_ranges

__all__ = ["ReadReport", "parse_duration", "parse_zone", "Numbering", "build_workload", "read_text", "NO_LIMIT_KEY",
           "no_limit_ids", "BAD_LINES"]

#: what a reader does with a line it cannot read (``workload convert --bad-lines``): 'error' (default:
#: one line naming file, line and problem, nothing written; a damaged line may be a job, and a trace
#: silently thinner than the log would give wrong figures) | 'skip' (count it as ``damaged lines``,
#: name the first in the summary and go on: for logs with a line cut by a crash or log rotation)
BAD_LINES = ("error", "skip")

#: the header key listing the ids of jobs that ran without a time limit (id ranges ``a-b``)
NO_LIMIT_KEY = "SchedlabNoLimit"

_DURATION = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?(?:\.\d+)?$")


def parse_duration(text: str, *, minutes_alone: bool = True) -> int | None:
    """Seconds of a Slurm/PBS duration; None for ``UNLIMITED``, ``Partition_Limit``, empty, ...

    Accepts Slurm's forms ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``, ``D-HH:MM``, ``D-HH:MM:SS``
    (hours may exceed 24, e.g. PBS ``100:00:00``; a fraction of a second is dropped). A number
    alone is minutes for Slurm (``minutes_alone=True``, as ``--time=30``) and seconds for PBS
    (``walltime=3600``). Raises ValueError on anything else.
    """
    t = text.strip()
    if not t or t.upper() in {"UNLIMITED", "PARTITION_LIMIT", "INFINITE", "NONE", "INVALID", "UNKNOWN", "N/A"}:
        return None
    m = _DURATION.match(t)
    if not m:
        raise ValueError(f"not a duration: {t[:30]!r}")
    days, a, b, c = m.groups()
    a = int(a)
    if days is not None:  # D-HH[:MM[:SS]]
        return int(days) * 86400 + a * 3600 + int(b or 0) * 60 + int(c or 0)
    if b is None:
        return a * 60 if minutes_alone else a
    if c is None:  # MM:SS
        return a * 60 + int(b)
    return a * 3600 + int(b) * 60 + int(c)  # HH:MM:SS, HH may exceed 24


def parse_zone(name: str | None) -> ZoneInfo:
    """The IANA time zone ``name`` (default UTC); a clear error for an unknown name."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise WorkloadError(f"unknown time zone {name!r}; use an IANA name such as Europe/Berlin or UTC") from None


def local_epoch(dt: datetime, zone: ZoneInfo) -> float:
    """Epoch seconds of a naive local time in ``zone``.

    Reading: the hour repeated when clocks go back is read as its first occurrence (summer time,
    ``fold=0``); a time inside the hour skipped when clocks go forward is read with the offset in
    force before the change (Python's rule), i.e. it lands one hour later in UTC terms.
    """
    if dt.tzinfo is not None:
        return dt.timestamp()
    return dt.replace(tzinfo=zone).timestamp()


class Numbering:
    """Names -> 1, 2, ... in order of first appearance (empty/unknown names -> -1)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        name = name.strip()
        if not name or name in {"(null)", "Unknown", "-"}:
            return -1
        return self.ids.setdefault(name, len(self.ids) + 1)

    def listing(self) -> str:
        return " ".join(f"{n}={i}" for n, i in self.ids.items())


@dataclass
class ReadReport:
    """What a reader skipped before cleaning: lines and records that are not jobs, by reason."""

    fmt: str
    lines: int = 0
    jobs: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    #: jobs that ran without a time limit (estimate -1; listed in the header's :data:`NO_LIMIT_KEY` line)
    no_limit: int = 0
    #: :data:`BAD_LINES`
    bad_lines: str = "error"
    #: the first damaged line skipped (``FILE:LINE: problem``), '' for none
    first_damaged: str = ""

    def __post_init__(self) -> None:
        if self.bad_lines not in BAD_LINES:
            raise WorkloadError(f"--bad-lines must be one of {', '.join(BAD_LINES)}, got {self.bad_lines!r}")

    def bad(self, path, line: int, problem: str) -> None:
        """A line that cannot be read: the one-line error (``bad_lines='error'``), or counted as
        ``damaged lines`` with the first remembered (``'skip'``); the reader then skips the line."""
        error = SWFError(path, line, problem)
        if self.bad_lines == "error":
            raise error
        self.skip("damaged lines")
        self.first_damaged = self.first_damaged or str(error)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def rows(self) -> list[tuple[str, int]]:
        return [("lines read", self.lines), *((f"skipped: {k}", v) for k, v in self.skipped.items()), ("jobs", self.jobs),
                ("jobs that ran without a time limit (estimate -1)", self.no_limit)]

    def header_line(self) -> str:
        parts = ", ".join(f"{v} {k}" for k, v in self.skipped.items()) or "nothing"
        return f" SchedlabSkipped: {parts}"


def read_text(path: Path) -> list[str]:
    """The file's lines (gzip transparently), decoded as UTF-8 with replacement."""
    from .swf import _read_bytes

    return _read_bytes(path).decode("utf-8", errors="replace").splitlines()


def build_workload(
    path: Path,
    rows: dict[str, list],
    *,
    fmt: str,
    zone: ZoneInfo,
    procs: int | None,
    report: ReadReport,
    names: dict[str, Numbering],
    resources: list[dict] | None = None,
) -> Workload:
    """A Workload from per-job lists (epoch ``submit``; the other SWF columns as named).

    ``resources``: one dict per job (:func:`.resources.table_from_rows`), None for a log without
    resource fields (no table: the trace runs as before). With them, requested and used memory
    also go to SWF fields 10 and 7 (per processor in KB), which SWF can carry (requested GPUs: the
    header line :func:`.swf.write_swf` writes).

    Jobs are sorted by submit, ties by ``id`` (``rows["id"]`` None: numbered 1.. in submit
    order, ties in record order); submit times become seconds after the earliest submit,
    which is the header's UnixStartTime.
    """
    if not rows["submit"]:
        raise SWFError(path, None, f"no jobs in this {fmt} file")
    submit = np.asarray(rows["submit"], dtype=np.float64)
    start = float(np.floor(submit.min()))
    numbered = rows.get("id") is not None
    # SWF order: by submit, ties by job number (accounting logs are in end order)
    order = np.lexsort((np.asarray(rows["id"]), submit)) if numbered else np.argsort(submit, kind="stable")
    cols = {k: np.asarray(v)[order] for k, v in rows.items() if v is not None}
    if not numbered:  # job ids that are not plain numbers: 1, 2, ... in submit order
        cols["id"] = np.arange(1, len(submit) + 1)
    cols["submit"] = submit[order] - start
    if procs is not None and int(procs) <= 0:
        raise SWFError(path, None, f"machine size must be positive, got procs={procs}")
    header = [
        " Version: 2.2",
        f" Conversion: schedlab read {path.name} as {fmt}",
        f" UnixStartTime: {int(start)}",
        f" TimeZoneString: {zone.key}",
        f" StartTime: {datetime.fromtimestamp(start, tz=timezone.utc).astimezone(zone).strftime('%a %b %d %H:%M:%S %Z %Y')}",
    ]
    if procs is not None:
        header.append(f" MaxProcs: {int(procs)}")
    header.append(" Note: users, groups, queues and partitions numbered 1, 2, ... in order of first appearance")
    for key, label in (("queue", "Queues"), ("partition", "Partitions"), ("accounts", "Accounts"), ("qos", "QOS"),
                       ("users", "Users")):
        if key in names and names[key].ids:
            header.append(f" Schedlab{label}: {names[key].listing()}")
    no_limit = cols["id"][(cols["estimate"] <= 0) & (cols["runtime"] > 0)]
    if no_limit.size:
        header.append(f" {NO_LIMIT_KEY}: {id_ranges(no_limit)}")
    table = None
    if resources is not None:
        from .resources import swf_memory, table_from_rows

        table = table_from_rows(resources).take(order)
        if not table.any():
            table = None
        else:
            cols["mem"], cols["req_mem"] = swf_memory(table, np.asarray(cols["procs"]), np.asarray(cols["req_procs"]))
    header.append(report.header_line())
    report.jobs = len(submit)
    report.no_limit = int(no_limit.size)
    name = path.name
    for suffix in (".gz", ".txt", ".log", ".sacct", ".pbs", ".csv"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Workload.from_columns(
        cols,
        name=name,
        machine_procs=int(procs) if procs is not None else None,
        unix_start=int(start),
        timezone=zone.key,
        header=tuple(header),
        resources=table,
    )


def no_limit_ids(header) -> np.ndarray | None:
    """The job ids a converted accounting log lists as run without a time limit (its
    :data:`NO_LIMIT_KEY` header line); None when the header has no such line."""
    for line in header:
        key, sep, rest = line.strip().partition(":")
        if sep and key == NO_LIMIT_KEY:
            ids: list[int] = []
            for item in rest.split():
                lo, _, hi = item.partition("-")
                ids.extend(range(int(lo), int(hi or lo) + 1))
            return np.asarray(ids, dtype=np.int64)
    return None


def header_names(workload, label: str) -> dict[int, str]:
    """Number -> name from a trace header's ``Schedlab<label>: name=1 ...`` line (converted sacct/PBS
    logs), and for queues also ``Queue: 1 DSI`` lines (Parallel Workloads Archive headers)."""
    names: dict[int, str] = {}
    for line in workload.header:
        m = re.match(r"\s*Queue:\s*(-?\d+)\s+(\S+)", line)
        if m and label == "Queues":
            names[int(m.group(1))] = m.group(2)
        m = re.match(rf"\s*Schedlab{label}:\s*(.*)", line)
        if m:
            for item in m.group(1).split():
                name, _, num = item.rpartition("=")
                if num.lstrip("-").isdigit():
                    names[int(num)] = name
    return names
