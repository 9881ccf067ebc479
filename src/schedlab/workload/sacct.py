"""Slurm accounting (`sacct --parsable2`) as a :class:`Workload`.

A site exports its history with (one line; ``TZ=UTC`` makes sacct print UTC times, otherwise
pass the cluster's zone, e.g. ``--format sacct:Europe/Berlin``)::

    TZ=UTC sacct --allusers --parsable2 --starttime 2024-01-01 --endtime 2024-07-01 \\
        --format JobIDRaw,JobID,User,Group,Account,Partition,QOS,Submit,Start,End,Elapsed,Timelimit,AllocCPUS,ReqCPUS,State \\
        > jobs.sacct

``--parsable2`` prints a header line of field names, then ``|``-separated values. The reader uses
the fields present among JobIDRaw/JobID, User, Group, Account, Partition, QOS, Submit, Start, End,
Elapsed/ElapsedRaw, Timelimit/TimelimitRaw, AllocCPUS/NCPUS/ReqCPUS and State (other fields are
ignored; Submit, a job id, and a processor count are required), and with
:data:`SACCT_RESOURCES_FORMAT` the resources (:mod:`.resources`): ReqTRES/AllocTRES (``cpu=4,mem=8000M,
node=1,gres/gpu=2``), ReqMem (total ``8000M``; the per-CPU ``2000Mc`` / per-node ``4000Mn`` forms of
releases before 21.08) and NNodes; a malformed TRES string is an error naming file, line and field. What ``--policy slurm`` needs goes
into SWF columns, named in the header: Partition -> queue (field 15, ``SchedlabQueues:``),
Account -> Unix group (field 13, ``SchedlabAccounts:``; Group when there is no Account field:
Slurm's fair-share is by account), QOS -> partition (field 16, ``SchedlabQOS:``; SWF has no QOS
field), User -> user (``SchedlabUsers:``), Timelimit -> requested time, ReqCPUS -> requested processors. Per record:

- job steps (``123.batch``, ``123.extern``, ``123.0``) are skipped and counted: the allocation
  line ``123`` is the job; array elements (``123_4``, JobIDRaw unique) and heterogeneous job
  components (``123+0``) are jobs of their own; a pending array range (``123_[5-10]``) is one
  never-started record;
- ``Start`` of ``Unknown``/``None`` means the job never ran (runtime -1); a ``CANCELLED`` state
  (also ``CANCELLED by UID``) is SWF status 5, so :func:`~schedlab.workload.clean.clean` counts it
  as ``cancelled``; COMPLETED is status 1, FAILED/TIMEOUT/NODE_FAIL/OUT_OF_MEMORY/... status 0;
  a record that is no finished job (PENDING, RUNNING, SUSPENDED, REQUEUED, ...: ``_NOT_FINISHED``)
  is skipped and counted by state (``not finished (PENDING)``); a state Slurm does not have is an
  error naming file and line;
- runtime is ElapsedRaw, else Elapsed (``[D-]HH:MM:SS``, ``MM:SS``), else End - Start;
- the estimate is Timelimit (``UNLIMITED``/``Partition_Limit`` -> none: estimate -1, the job's id
  listed in the header's ``SchedlabNoLimit:`` line, see :mod:`.accounting`), else TimelimitRaw (minutes);
- times are ISO local times (``2024-03-01T12:00:00``) in the zone given (default UTC), ISO times
  with an offset (``SLURM_TIME_FORMAT=%Y-%m-%dT%H:%M:%S%z``) or epoch seconds (``SLURM_TIME_FORMAT=%s``).

A line with the wrong number of fields, or a value that cannot be read, is an error naming file
and line (with ``bad_lines='skip'``: skipped, counted as ``damaged lines``, the first named);
blank lines are skipped.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from ..errors import SWFError
from .accounting import Numbering, ReadReport, build_workload, local_epoch, parse_duration, parse_zone, read_text
from .model import Workload

__all__ = ["read_sacct", "parse_sacct", "SACCT_FORMAT", "SACCT_RESOURCES_FORMAT", "looks_like_sacct", "job_fields"]

#: the ``sacct --format`` list the reader is written for
SACCT_FORMAT = "JobIDRaw,JobID,User,Group,Account,Partition,QOS,Submit,Start,End,Elapsed,Timelimit,AllocCPUS,ReqCPUS,State"
#: the same with the resource fields (nodes, memory, GPUs and other GRES: :mod:`.resources`); GRES
#: show in ReqTRES/AllocTRES only when slurm.conf's AccountingStorageTRES names them (``gres/gpu``)
SACCT_RESOURCES_FORMAT = SACCT_FORMAT + ",NNodes,ReqMem,ReqTRES,AllocTRES"

_NOT_A_TIME = {"", "UNKNOWN", "NONE", "N/A", "(NULL)"}
#: job states (sacct/squeue "JOB STATE CODES") of a job that ended without success: SWF status 0
_FAILED = ("FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT")
#: job states of a record that is not a finished job (still queued, running, or to run again: a
#: REQUEUED record's job has another record; REVOKED: a federated job that ran on a sibling
#: cluster): skipped and counted by state, never simulated
_NOT_FINISHED = ("PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD",
                 "RESIZING", "CONFIGURING", "COMPLETING", "SIGNALING", "STAGE_OUT", "STOPPED", "REVOKED")
_STEP = re.compile(r"\.(?:\d+|batch|extern|interactive|[A-Za-z_]\w*)$")


def looks_like_sacct(first_line: str) -> bool:
    """A ``--parsable2`` header: ``|``-separated field names including a job id and Submit."""
    names = {n.strip().lower() for n in first_line.split("|")}
    return "|" in first_line and bool(names & {"jobid", "jobidraw"}) and "submit" in names


def _status(state: str) -> int | str:
    """SWF status of a finished job's State (``CANCELLED by 1234`` reads as CANCELLED), the state's
    name for a record that is no finished job (:data:`_NOT_FINISHED`), -1 for no state given.
    Raises ValueError for a state Slurm does not have."""
    s = state.strip().upper()
    word = s.split()[0] if s else ""
    if not word:
        return -1
    if word == "CANCELLED":
        return 5
    if word == "COMPLETED":
        return 1
    if word in _FAILED:
        return 0
    if word in _NOT_FINISHED:
        return word
    raise ValueError(f"unknown job state {state.strip()!r} (Slurm's are COMPLETED, CANCELLED, "
                     f"{', '.join(_FAILED)}, {', '.join(_NOT_FINISHED)})")


def _time(text: str, zone) -> float | None:
    t = text.strip()
    if t.upper() in _NOT_A_TIME:
        return None
    if t.isdigit():  # SLURM_TIME_FORMAT=%s
        return float(t)
    return local_epoch(datetime.fromisoformat(t), zone)


def parse_sacct(path: str | os.PathLike, *, procs: int | None = None, tz: str | None = None,
                bad_lines: str = "error") -> tuple[Workload, ReadReport]:
    """Read a ``sacct --parsable2`` file; the Workload and what was skipped (see module docstring).
    ``bad_lines``: :data:`~schedlab.workload.accounting.BAD_LINES`."""
    path = Path(path)
    zone = parse_zone(tz)
    lines = read_text(path)
    report = ReadReport("sacct", lines=len(lines), bad_lines=bad_lines)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise SWFError(path, None, "empty file")
    if not looks_like_sacct(lines[first]):
        raise SWFError(path, first + 1, "no sacct header line (run sacct with --parsable2 and without --noheader)")
    header = [n.strip() for n in lines[first].split("|")]
    col = {n.lower(): i for i, n in enumerate(header)}

    def need(*names: str) -> int:
        for n in names:
            if n.lower() in col:
                return col[n.lower()]
        raise SWFError(path, first + 1, f"sacct header lacks {' or '.join(names)}; use sacct --format {SACCT_FORMAT}")

    i_id = need("JobIDRaw", "JobID")
    i_jobid = col.get("jobid", i_id)
    i_submit = need("Submit")
    i_procs = need("AllocCPUS", "NCPUS", "ReqCPUS")
    i_req = col.get("reqcpus", col.get("ncpus", i_procs))
    get = {k: col.get(k) for k in ("user", "group", "account", "partition", "qos", "start", "end", "elapsedraw", "elapsed", "timelimit",
                                   "timelimitraw", "state", "reqtres", "alloctres", "reqmem", "nnodes")}
    with_resources = any(get[k] is not None for k in ("reqtres", "alloctres", "reqmem", "nnodes"))
    resources: list[dict] | None = [] if with_resources else None
    if get["start"] is None:
        raise SWFError(path, first + 1, f"sacct header lacks Start; use sacct --format {SACCT_FORMAT}")
    names = {k: Numbering() for k in ("user", "group", "queue", "qos")}
    rows: dict[str, list] = {k: [] for k in ("id", "submit", "wait", "runtime", "procs", "req_procs", "estimate", "status", "user", "unix_group", "queue", "partition")}
    group_key = "account" if get["account"] is not None else "group"  # Slurm's fair-share is by account
    ids: list[str] = []
    nfields = len(header)

    for lineno0 in range(first + 1, len(lines)):
        line = lines[lineno0]
        lineno = lineno0 + 1
        if not line.strip():
            report.skip("blank lines")
            continue
        f = line.split("|")
        if [x.strip() for x in f] == header:  # files of several sacct calls concatenated
            report.skip("repeated header lines")
            continue
        if len(f) != nfields:
            report.bad(path, lineno, f"expected {nfields} '|'-separated fields as in the header, found {len(f)}")
            continue
        if _STEP.search(f[i_jobid].strip()) or _STEP.search(f[i_id].strip()):
            report.skip("job steps")
            continue

        def val(key: str) -> str:
            i = get[key]
            return f[i] if i is not None else ""

        try:
            what = "Submit"
            submit = _time(f[i_submit], zone)
            if submit is None:
                raise ValueError("no submit time")
            what = "Start"
            start = _time(val("start"), zone)
            what = "End"
            end = _time(val("end"), zone)
            what = "Elapsed"
            if start is None or end is None:  # never started, or still running
                runtime = -1.0
            elif get["elapsedraw"] is not None and val("elapsedraw").strip():
                runtime = float(int(val("elapsedraw")))
            elif get["elapsed"] is not None and val("elapsed").strip():
                runtime = float(parse_duration(val("elapsed"), minutes_alone=False) or 0)
            else:
                runtime = end - start if end is not None else -1.0
            what = "Timelimit"
            if get["timelimit"] is not None:
                limit = parse_duration(val("timelimit"))
            elif get["timelimitraw"] is not None and val("timelimitraw").strip().isdigit():
                limit = int(val("timelimitraw")) * 60
            else:
                limit = None
            what = "CPUs"
            width = int(f[i_procs] or 0)
            req = int(f[i_req] or 0)
            what = "State"
            status = _status(val("state"))
        except ValueError as exc:
            report.bad(path, lineno, f"cannot read {what}: {exc}")
            continue
        if isinstance(status, str):  # queued, running, requeued, ...: no finished job to simulate
            report.skip(f"not finished ({status})")
            continue
        if with_resources:
            try:
                res = _job_resources(val, started=start is not None, cpus=req if req > 0 else width)
            except ValueError as exc:  # "ReqTRES: TRES item 'gpu' is not name=value"
                report.bad(path, lineno, f"cannot read {exc}")
                continue
        ids.append(f[i_id].strip())
        rows["submit"].append(submit)
        rows["wait"].append(start - submit if start is not None else -1.0)
        rows["runtime"].append(runtime)
        rows["procs"].append(width if start is not None else -1)
        rows["req_procs"].append(req if req > 0 else width)
        rows["estimate"].append(float(limit) if limit is not None else -1.0)
        rows["status"].append(status)
        rows["user"].append(names["user"](val("user")))
        rows["unix_group"].append(names["group"](val(group_key)))
        rows["queue"].append(names["queue"](val("partition")))
        rows["partition"].append(names["qos"](val("qos")))
        if resources is not None:
            resources.append(res)
    rows["id"] = [int(i) for i in ids] if all(i.isdigit() for i in ids) else None
    listed = {"queue": names["queue"], "accounts": names["group"] if group_key == "account" else Numbering(), "qos": names["qos"],
              "users": names["user"]}  # (users by name: the association limits of --policy slurm name them)
    w = build_workload(path, rows, fmt="sacct", zone=zone, procs=procs, report=report, names=listed, resources=resources)
    return w, report


def _job_resources(val, *, started: bool, cpus: int) -> dict:
    """One job's :mod:`.resources` row from its ReqTRES, AllocTRES, ReqMem and NNodes (those the log
    has; ``val`` gives '' for the others). Raises ValueError naming the field on a malformed value.

    Requested: nodes from ReqTRES ``node=``; memory from ReqMem (:func:`.resources.parse_req_mem`),
    else ReqTRES ``mem=``; GRES from ReqTRES ``gres/NAME[:TYPE]=N`` (with a ReqTRES, a GRES it does
    not name is 0). Allocated (a job that started): nodes from NNodes, else AllocTRES ``node=``;
    memory and GRES from AllocTRES. sacct records no ``--exclusive``, but a job that got more of a
    GRES than its ReqTRES asked for had its nodes whole (select/cons_tres gives a job GRES beyond its
    request only with whole nodes: an ``--exclusive`` job or an OverSubscribe=EXCLUSIVE partition
    gets every GPU of its node; issue 47, seen on the harness: ``ReqTRES cpu=4`` / ``AllocTRES
    cpu=16,gres/gpu=4``): exclusive is 1 then; otherwise -1 (unknown: CPUs or memory beyond the
    request may also come from whole cores or DefMemPerCPU, so they are not read as exclusive).
    """
    from .resources import parse_req_mem, parse_tres, tres_gres

    out: dict = {}
    for field, key in (("reqtres", "req"), ("alloctres", "alloc")):
        text = val(field)
        try:
            tres = parse_tres(text)
        except ValueError as exc:
            raise ValueError(f"{'ReqTRES' if key == 'req' else 'AllocTRES'}: {exc}") from None
        if key == "alloc" and not started:
            continue
        if text.strip():
            prefix = "req_" if key == "req" else ""
            if "node" in tres:
                out[prefix + "nodes"] = int(tres["node"])
            if "mem" in tres:
                out[prefix + "mem"] = tres["mem"]
            out[prefix + "gres"] = tres_gres(tres)
    if "gres" in out and "req_gres" in out and any(n > out["req_gres"].get(k, 0) for k, n in out["gres"].items()):
        out["exclusive"] = 1
    text = val("nnodes").strip()
    if text:
        if not text.isdigit():
            raise ValueError(f"NNodes: not a node count: {text[:20]!r}")
        if started:
            out["nodes"] = int(text)
        else:  # a job that never ran: sacct shows the nodes it asked for
            out.setdefault("req_nodes", int(text))
    text = val("reqmem")
    try:
        req_mem = parse_req_mem(text, cpus, out.get("req_nodes", out.get("nodes", -1)))
    except ValueError as exc:
        raise ValueError(f"ReqMem: {exc}") from None
    if req_mem > 0 or text.strip():
        out["req_mem"] = req_mem if req_mem > 0 else out.get("req_mem", -1.0)
    return out


def read_sacct(path: str | os.PathLike, *, procs: int | None = None, tz: str | None = None) -> Workload:
    """:func:`parse_sacct` without the report."""
    return parse_sacct(path, procs=procs, tz=tz)[0]


def job_fields(path: str | os.PathLike, names, *, tz: str | None = None) -> dict[str, dict]:
    """JobIDRaw (else JobID) -> {field: value} for the ``names`` a ``sacct --parsable2`` log has
    (job steps left out; times, ``Submit``/``Eligible``/``Start``/``End``, as epoch seconds or None,
    other fields as text). {} when the file is no sacct log or has none of ``names``: what
    ``slurm check`` reads beside the jobs (:mod:`schedlab.slurm.check`)."""
    lines = read_text(Path(path))
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not looks_like_sacct(lines[first]):
        return {}
    header = [n.strip() for n in lines[first].split("|")]
    col = {n.lower(): i for i, n in enumerate(header)}
    want = {n: col[n.lower()] for n in names if n.lower() in col}
    i_id = col.get("jobidraw", col.get("jobid"))
    if not want or i_id is None:
        return {}
    zone = parse_zone(tz)
    out: dict[str, dict] = {}
    for line in lines[first + 1:]:
        f = line.split("|")
        if len(f) != len(header) or _STEP.search(f[i_id].strip()):
            continue
        row = {}
        for n, i in want.items():
            try:
                row[n] = _time(f[i], zone) if n.lower() in ("submit", "eligible", "start", "end") else f[i]
            except ValueError:
                row[n] = None
        out[f[i_id].strip()] = row
    return out

