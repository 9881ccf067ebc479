"""PBS/Torque and PBS Pro accounting logs as a :class:`Workload`.

A PBS server writes one file per day (``server_priv/accounting/YYYYMMDD``); concatenate the days
you want (``cat accounting/2024* > jobs.pbs``). Each line is
``MM/DD/YYYY HH:MM:SS;TYPE;JOB_ID;key=value key=value ...`` with the line's date in the server's
local time. One job is one ``E`` (end) record:

- submit = ``ctime`` (creation), else ``qtime``, else ``etime`` (epoch seconds, zone-free);
  wait = ``start`` - submit; runtime = ``end`` - ``start``, else ``resources_used.walltime``;
- requested processors: ``Resource_List.ncpus`` (PBS Pro's total), else the sum over
  ``Resource_List.select`` chunks (``2:ncpus=8+1:ncpus=4`` -> 20), else Torque's
  ``Resource_List.nodes`` (``2:ppn=4`` -> 8, ``n01:ppn=2+n02:ppn=2`` -> 4, ``4`` -> 4), else
  ``Resource_List.procs``, else ``Resource_List.nodect``; allocated processors (SWF field 5)
  are counted from ``exec_host`` (``n1/0+n1/1``, ``n1/0-3``, ``n1/0*8``), else the request;
- estimate = ``Resource_List.walltime`` (``[[HH:]MM:]SS``, hours may exceed 24);
- status: ``Exit_status=0`` -> 1 (completed), a job with a ``D`` (deleted) record or that never
  started -> 5 (cancelled), any other exit status -> 0;
- an ``E`` record without ``start`` is a job that never ran (runtime -1, status 5); a job with a
  ``D``/``A`` record and no ``E`` (deleted before it started) becomes the same, its submit the ``Q``
  record's date (else the ``D``/``A`` record's), so :func:`~schedlab.workload.clean.clean` counts
  both as ``cancelled`` (that D/A record is the job's, so it is not counted as a skipped record);
  a job with only ``Q``/``S`` records (still queued or running when the log ends) is no finished
  job: skipped and counted as ``not finished (queued)``/``not finished (running)``, as the sacct
  reader skips PENDING and RUNNING records;
- ``Q``/``S``/``D``/``A``/``R``/... records are otherwise skipped and counted by type; array parents
  (``123[]``) are skipped; a job with several ``E`` records (rerun) keeps the last one.

Resources (:mod:`.resources`, :func:`job_resources`): ``Resource_List.mem``/``ngpus``/``nodect``/
``place``, ``select`` chunks' ``mem``/``ngpus``, Torque ``nodes=...:gpus=G``, ``resources_used.mem``
and the hosts of ``exec_host``; a log without any of them has no resource table.

A line that is not ``date;type;id;attributes``, or an ``E`` record whose times cannot be read,
is an error naming file and line, as in the sacct reader (with ``bad_lines='skip'``: skipped,
counted as ``damaged lines``, the first named).
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from .accounting import Numbering, ReadReport, build_workload, local_epoch, parse_duration, parse_zone, read_text
from .model import Workload

__all__ = ["read_pbs", "parse_pbs", "looks_like_pbs", "requested_procs", "allocated_procs"]

_LINE = re.compile(r"^(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d);([A-Za-z]);([^;]*);(.*)$")


def looks_like_pbs(first_line: str) -> bool:
    return bool(_LINE.match(first_line.strip()))


def _attrs(text: str) -> dict[str, str]:
    """``key=value`` pairs; a token without ``=`` continues the previous value (values with spaces)."""
    out: dict[str, str] = {}
    last = None
    for tok in text.split():
        key, eq, value = tok.partition("=")
        if eq and key:
            out[key] = value
            last = key
        elif last is not None:
            out[last] += " " + tok
    return out


def _chunks(spec: str, per: str) -> int:
    """Sum over ``+``-separated chunks of count * ``per`` (count: leading number, else 1 host)."""
    total = 0
    for chunk in spec.split("+"):
        parts = chunk.split(":")
        count = int(parts[0]) if parts[0].isdigit() else 1
        each = 1
        for p in parts[1:]:
            k, _, v = p.partition("=")
            if k == per:
                each = int(v)
        total += count * each
    return total


def requested_procs(a: dict[str, str]) -> int:
    """Processors a job asked for (module docstring order); -1 when the record does not say."""
    if a.get("Resource_List.ncpus", "").isdigit():
        return int(a["Resource_List.ncpus"])
    if "Resource_List.select" in a:
        return _chunks(a["Resource_List.select"], "ncpus")
    if "Resource_List.nodes" in a:
        return _chunks(a["Resource_List.nodes"], "ppn")
    for key in ("Resource_List.procs", "Resource_List.nodect"):
        if a.get(key, "").isdigit():
            return int(a[key])
    return -1


def allocated_procs(exec_host: str) -> int:
    """Cores listed in ``exec_host`` (``n1/0+n1/1``, ``n1/0-3,6``, ``n1/0*8``); -1 if empty."""
    if not exec_host.strip():
        return -1
    total = 0
    for part in exec_host.strip().split("+"):
        _, slash, cores = part.partition("/")
        if not slash:
            total += 1
        elif "*" in cores:
            total += int(cores.split("*", 1)[1])
        else:
            for r in cores.split(","):
                lo, dash, hi = r.partition("-")
                total += int(hi) - int(lo) + 1 if dash else 1
    return total


#: PBS size suffixes (b, kb, mb, gb, tb, pb; w words of 8 bytes, kw, mw, ...) as MB; a size without
#: one is bytes (PBS Professional Reference Guide, "Size" format; Torque's resource list alike)
_PBS_UNIT = {"": 1 / 1024 ** 2, "k": 1 / 1024, "m": 1.0, "g": 1024.0, "t": 1024.0 ** 2, "p": 1024.0 ** 3}
_SIZE = re.compile(r"^(\d+)([kmgtp]?)([bw]?)$", re.IGNORECASE)
#: the keys of an E record that carry resources: a log with none of them has no resource table
_RESOURCE_KEYS = ("Resource_List.mem", "Resource_List.ngpus", "Resource_List.nodect", "Resource_List.place",
                  "Resource_List.naccesspolicy", "resources_used.mem", "exec_host")


def pbs_size(text: str) -> float:
    """MB of a PBS size (``4gb``, ``4096mb``, ``1024kb``, ``2147483648``, ``512mw``). ValueError otherwise."""
    m = _SIZE.match(text.strip())
    if not m:
        raise ValueError(f"not a PBS size: {text.strip()[:30]!r} (a number with b, kb, mb, gb, tb or w forms)")
    mb = int(m.group(1)) * _PBS_UNIT[m.group(2).lower()]
    return mb * 8 if m.group(3).lower() == "w" else mb


def _chunk_sum(spec: str, key: str, read) -> tuple[float, bool]:
    """Sum over ``+``-separated chunks of count * ``key`` (read by ``read``); whether any chunk has it."""
    total, seen = 0.0, False
    for chunk in spec.split("+"):
        parts = chunk.split(":")
        count = int(parts[0]) if parts[0].isdigit() else 1
        for p in parts[1:]:
            k, _, v = p.partition("=")
            if k == key:
                total += count * read(v)
                seen = True
    return total, seen


def _hosts(spec: str) -> int:
    """Chunks (hosts) of a ``select``/``nodes`` spec: leading counts summed, 1 for a named host."""
    return sum(int(c.split(":")[0]) if c.split(":")[0].isdigit() else 1 for c in spec.split("+"))


def job_resources(a: dict[str, str], started: bool) -> dict:
    """One E record's :mod:`.resources` row (what the record says; the rest -1). Raises ValueError
    naming the attribute on a malformed value.

    Requested memory: ``Resource_List.mem`` (the job's total), else the ``select`` chunks' ``mem``
    summed (count x mem). Requested GPUs: ``Resource_List.ngpus`` (PBS Pro), else ``select`` chunks'
    ``ngpus``, else Torque ``nodes=N:ppn=P:gpus=G`` (N x G). Requested nodes: ``Resource_List.nodect``,
    else the chunks of ``select`` or ``nodes``. Allocated nodes: distinct hosts of ``exec_host``. Used
    memory: ``resources_used.mem``. Exclusive: ``Resource_List.place`` with ``excl``/``exclhost`` (PBS Pro),
    ``Resource_List.naccesspolicy=singlejob``/``singleuser`` (Torque) -> 1, another place/policy -> 0.
    PBS logs record no allocated memory or GPUs (-1)."""
    out: dict = {}
    what = ""
    try:
        what = "Resource_List.mem"
        if a.get(what, "").strip():
            out["req_mem"] = pbs_size(a[what])
        elif "Resource_List.select" in a:
            what = "Resource_List.select"
            mem, seen = _chunk_sum(a[what], "mem", pbs_size)
            if seen:
                out["req_mem"] = mem
        what = "Resource_List.ngpus"
        gpus = None
        if a.get(what, "").strip():
            gpus = int(a[what])
        else:
            for what, key in (("Resource_List.select", "ngpus"), ("Resource_List.nodes", "gpus")):
                if what in a:
                    total, seen = _chunk_sum(a[what], key, int)
                    if seen:
                        gpus = int(total)
                        break
        if gpus is not None:
            out["req_gres"] = {"gpu": gpus}
        what = "Resource_List.nodect"
        if a.get(what, "").strip():
            out["req_nodes"] = int(a[what])
        else:
            for what in ("Resource_List.select", "Resource_List.nodes"):
                if what in a:
                    out["req_nodes"] = _hosts(a[what])
                    break
        what = "resources_used.mem"
        if a.get(what, "").strip():
            out["used_mem"] = pbs_size(a[what])
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    hosts = a.get("exec_host", "").strip()
    if started and hosts:
        out["nodes"] = len({part.partition("/")[0] for part in hosts.split("+")})
    place = a.get("Resource_List.place", a.get("Resource_List.naccesspolicy", "")).lower()
    if place:
        out["exclusive"] = int(any(w in ("excl", "exclhost", "singlejob", "singleuser") for w in place.split(":")))
    return out


def _epoch(a: dict[str, str], *keys: str) -> float | None:
    for k in keys:
        v = a.get(k, "").strip()
        if v and v != "0":
            return float(int(v))
    return None


def parse_pbs(path: str | os.PathLike, *, procs: int | None = None, tz: str | None = None,
              bad_lines: str = "error") -> tuple[Workload, ReadReport]:
    """Read a PBS/Torque/PBS Pro accounting log; the Workload and what was skipped.
    ``bad_lines``: :data:`~schedlab.workload.accounting.BAD_LINES`, as the sacct reader."""
    path = Path(path)
    zone = parse_zone(tz)
    lines = read_text(path)
    report = ReadReport("pbs", lines=len(lines), bad_lines=bad_lines)
    ended: dict[str, tuple[int, dict[str, str]]] = {}
    queued: dict[str, float] = {}
    deleted: dict[str, float] = {}
    deleted_kind: dict[str, str] = {}  # job -> its first D or A record's type
    started: dict[str, dict[str, str]] = {}  # S record attributes (user, group, queue of jobs without E)
    for lineno0, line in enumerate(lines):
        lineno = lineno0 + 1
        if not line.strip():
            report.skip("blank lines")
            continue
        m = _LINE.match(line.strip())
        if not m:
            report.bad(path, lineno, "not a PBS accounting record 'MM/DD/YYYY HH:MM:SS;TYPE;JOB_ID;attributes'")
            continue
        date, kind, job, rest = m.groups()
        kind = kind.upper()
        if kind != "E":
            if kind in "QDA":
                try:
                    when = local_epoch(datetime.strptime(date, "%m/%d/%Y %H:%M:%S"), zone)
                except ValueError as exc:
                    report.bad(path, lineno, f"bad record date {date!r}: {exc}")
                    continue
            report.skip(f"{kind} records")
            if kind in "QDA":
                (queued if kind == "Q" else deleted).setdefault(job, when)
                if kind != "Q":
                    deleted_kind.setdefault(job, kind)
            elif kind == "S":
                started[job] = _attrs(rest)
            continue
        if "[]" in job:
            report.skip("array parent E records")
            continue
        if job in ended:
            report.skip("earlier E records of rerun jobs")
        ended[job] = (lineno, _attrs(rest))

    names = {k: Numbering() for k in ("user", "group", "queue")}
    rows: dict[str, list] = {k: [] for k in ("id", "submit", "wait", "runtime", "procs", "req_procs", "estimate", "status", "user", "unix_group", "queue")}
    ids: list[str] = []
    with_resources = any(k in a for _, a in ended.values() for k in _RESOURCE_KEYS if k != "exec_host") or any(
        k.startswith("Resource_List.") and ("mem=" in v or "gpus=" in v) for _, a in ended.values() for k, v in a.items())
    resources: list[dict] | None = [] if with_resources else None
    for job, (lineno, a) in ended.items():
        try:
            what = "ctime/qtime/etime"
            submit = _epoch(a, "ctime", "qtime", "etime")
            if submit is None:
                raise ValueError("missing")
            what = "start"
            start = _epoch(a, "start")
            what = "end"
            end = _epoch(a, "end")
            what = "resources_used.walltime"
            used = parse_duration(a.get("resources_used.walltime", ""), minutes_alone=False)
            what = "Resource_List.walltime"
            limit = parse_duration(a.get("Resource_List.walltime", ""), minutes_alone=False)
            what = "Resource_List (ncpus/select/nodes)"
            req = requested_procs(a)
            what = "exec_host"
            width = allocated_procs(a.get("exec_host", "")) if start is not None else -1
            what = "Exit_status"
            exit_status = int(a["Exit_status"]) if "Exit_status" in a else None
            what = "resources"
            res = job_resources(a, start is not None) if with_resources else {}
        except (ValueError, IndexError) as exc:
            report.bad(path, lineno, f"E record for {job}: cannot read {what}: {exc}")
            continue
        if start is None:
            runtime = -1.0
            status = 5
        else:
            runtime = end - start if end is not None else float(used if used is not None else -1)
            status = 5 if job in deleted and exit_status != 0 else (-1 if exit_status is None else (1 if exit_status == 0 else 0))
        ids.append(job)
        rows["submit"].append(submit)
        rows["wait"].append(start - submit if start is not None else -1.0)
        rows["runtime"].append(runtime)
        rows["procs"].append(width)
        rows["req_procs"].append(req)
        rows["estimate"].append(float(limit) if limit is not None else -1.0)
        rows["status"].append(status)
        rows["user"].append(names["user"](a.get("user", "")))
        rows["unix_group"].append(names["group"](a.get("group", "")))
        rows["queue"].append(names["queue"](a.get("queue", "")))
        if resources is not None:
            resources.append(res)
    never = [j for j in dict.fromkeys(list(queued) + list(deleted)) if j not in ended and "[]" not in j]
    # no E record: deleted/aborted before it ran (a job of status 5: its D/A record is the job's own
    # record, not a skipped one), or still queued/running when the log ends (no finished job: skipped, counted)
    for job in never:
        if job not in deleted:
            report.skip("not finished (running)" if job in started else "not finished (queued)")
            continue
        kind = deleted_kind[job]
        report.skip(f"{kind} records", -1)
        if not report.skipped[f"{kind} records"]:
            del report.skipped[f"{kind} records"]
        ids.append(job)
        rows["submit"].append(queued.get(job, deleted.get(job)))
        rows["wait"].append(-1.0)
        rows["runtime"].append(-1.0)
        rows["procs"].append(-1)
        rows["req_procs"].append(-1)
        rows["estimate"].append(-1.0)
        rows["status"].append(5)
        a = started.get(job, {})
        if resources is not None:
            resources.append({})
        rows["user"].append(names["user"](a.get("user", "")))
        rows["unix_group"].append(names["group"](a.get("group", "")))
        rows["queue"].append(names["queue"](a.get("queue", "")))
    numeric = [j.split(".", 1)[0] for j in ids]
    rows["id"] = [int(i) for i in numeric] if all(i.isdigit() for i in numeric) and len(set(numeric)) == len(numeric) else None
    w = build_workload(path, rows, fmt="pbs", zone=zone, procs=procs, report=report, names={"queue": names["queue"]}, resources=resources)
    return w, report


def read_pbs(path: str | os.PathLike, *, procs: int | None = None, tz: str | None = None) -> Workload:
    """:func:`parse_pbs` without the report."""
    return parse_pbs(path, procs=procs, tz=tz)[0]
