"""Standard Workload Format (SWF) I/O: `read_swf` and `write_swf`.

SWF is the format of Feitelson's Parallel Workloads Archive (Chapin et al., JSSPP 1999): ``;``
comment lines (the header, ``; Key: value``) followed by one line per job with 18 whitespace
separated numeric fields. The data lines are parsed in bulk by pandas' C reader; only when that
parse disagrees with the file (a malformed line) does a precise line-by-line scan run, which
either names the first bad line or (for legal but unusual layouts, e.g. comments between jobs)
produces the values itself.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import re
import zlib
from pathlib import Path

import numpy as np

from .._atomic import atomic_write_bytes
from ..errors import SWFError
from .model import FLOAT_FIELDS, SWF_FIELDS, Workload

__all__ = ["read_swf", "write_swf", "parse_header", "set_header_value", "swf_name", "job_line", "current_header"]

_N = len(SWF_FIELDS)
_HEADER_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_FIRST_INT = re.compile(r"^[+-]?\d+")
_NUMBER = re.compile(rb"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
#: header key of the user-group line written for workloads with assigned groups
GROUPS_KEY = "SchedlabUserGroups"
_GROUPS_LINE = re.compile(rf"^\s*{GROUPS_KEY}\s*:(.*)$")
#: largest float that still holds every integer exactly
_EXACT = float(2**53)


def swf_name(path: str | os.PathLike) -> str:
    """The trace's short name: the file name without ``.gz`` and ``.swf``."""
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SWFError(path, None, "no such file") from None
    except IsADirectoryError:
        raise SWFError(path, None, "is a directory, not an SWF file") from None
    except OSError as exc:
        raise SWFError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b" or path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise SWFError(path, None, f"truncated or corrupt gzip data ({exc})") from None
    return raw


def _timezone_from_offset(value: str) -> str | None:
    """``TimeZone: 3600`` (seconds east of UTC, deprecated) as a fixed-offset IANA zone."""
    m = _FIRST_INT.match(value)
    if not m:
        return None
    seconds = int(m.group())
    if seconds % 3600:
        return None
    hours = seconds // 3600
    return "Etc/GMT" if hours == 0 else f"Etc/GMT{-hours:+d}"  # Etc/GMT signs are inverted


def parse_header(lines: tuple[str, ...]) -> dict:
    """Machine size, start time and time zone from SWF header lines (without the ``;``).

    ``machine_procs`` is MaxProcs, else MaxNodes; ``unix_start`` is UnixStartTime; ``timezone``
    is TimeZoneString, else the deprecated numeric ``TimeZone`` offset as an ``Etc/GMT`` zone.
    """
    fields: dict[str, str] = {}
    for line in lines:
        m = _HEADER_KEY.match(line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2)

    def first_int(key: str) -> int | None:
        m = _FIRST_INT.match(fields.get(key, ""))
        return int(m.group()) if m else None

    procs = first_int("MaxProcs")
    if procs is None or procs <= 0:
        procs = first_int("MaxNodes")
    if procs is not None and procs <= 0:
        procs = None
    tz = fields.get("TimeZoneString") or None
    if tz is not None:
        tz = tz.split()[0]
    elif "TimeZone" in fields:
        tz = _timezone_from_offset(fields["TimeZone"])
    return {"machine_procs": procs, "unix_start": first_int("UnixStartTime"), "timezone": tz}


def set_header_value(header: tuple[str, ...], key: str, value: object) -> tuple[str, ...]:
    """``header`` with ``Key: value`` replaced in place (keeping the line's spacing) or appended."""
    pattern = re.compile(rf"^(\s*{re.escape(key)}\s*:\s*).*$")
    lines = list(header)
    for i, line in enumerate(lines):
        m = pattern.match(line)
        if m:
            lines[i] = f"{m.group(1)}{value}"
            return tuple(lines)
    return tuple(lines) + (f" {key}: {value}",)


def _split_header(data: bytes) -> tuple[list[str], int, int]:
    """Leading comment/blank lines: (header lines, byte offset of the body, lines skipped)."""
    header: list[str] = []
    pos = 0
    lineno = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        line = data[pos:end]
        stripped = line.strip()
        if stripped.startswith(b";"):
            header.append(_decode(line.lstrip()[1:]))
        elif stripped:
            break
        lineno += 1
        pos = end + 1
    return header, min(pos, n), lineno


def _decode(line: bytes) -> str:
    return line.rstrip(b"\r").decode("utf-8", errors="replace")


def job_line(path: str | os.PathLike, index: int) -> int | None:
    """The 1-based line number of the ``index``-th job record (file order) of SWF file ``path``."""
    data = _read_bytes(Path(path))
    _, body_start, first = _split_header(data)
    seen = -1
    for offset, raw in enumerate(data[body_start:].split(b"\n")):
        line = raw.strip()
        if line and not line.startswith(b";"):
            seen += 1
            if seen == index:
                return first + 1 + offset
    return None


#: pandas < 3 needs Python's strtod to be round-trip exact; pandas 3 is exact by default
_PRECISE: dict = {}


def _bulk_parse(body: bytes) -> np.ndarray | None:
    """All data lines as an (n, 18) float array via pandas' C reader; None if anything is off."""
    import pandas as pd

    if not _PRECISE and int(pd.__version__.split(".")[0]) < 3:
        _PRECISE["float_precision"] = "round_trip"
    if b";" in body or b'"' in body:
        return None
    try:
        frame = pd.read_csv(
            io.BytesIO(body),
            sep=r"\s+",
            header=None,
            names=range(_N),
            index_col=False,
            dtype=np.float64,
            engine="c",
            quoting=csv.QUOTE_NONE,
            na_filter=False,
            skip_blank_lines=True,
            **_PRECISE,
        )
    except Exception:  # any parser complaint: let the precise scan name the line
        return None
    values = frame.to_numpy(dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != _N:
        return None
    # every non-blank line must have become a row, and every value must be a finite number
    lines = body.count(b"\n") + (0 if body.endswith(b"\n") or not body else 1)
    if lines != values.shape[0]:  # blank lines (rare): count the non-blank ones precisely
        lines = sum(1 for line in body.split(b"\n") if line.strip())
    if lines != values.shape[0] or not np.isfinite(values).all():
        return None
    return values


def _scan(path: Path, body: bytes, first_line: int, header: list[str]) -> np.ndarray:
    """Precise line-by-line parse; raises SWFError at the first bad line. Appends comments to header."""
    rows: list[list[float]] = []
    for offset, raw in enumerate(body.split(b"\n")):
        lineno = first_line + offset
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b";"):
            header.append(_decode(raw.lstrip()[1:]))
            continue
        tokens = line.split()
        if len(tokens) != _N:
            raise SWFError(path, lineno, f"expected {_N} fields, found {len(tokens)}")
        row = []
        for i, tok in enumerate(tokens):
            if not _NUMBER.match(tok):
                shown = tok.decode("ascii", errors="backslashreplace")[:20]
                raise SWFError(path, lineno, f"field {i + 1} ({SWF_FIELDS[i]}) is not a number: {shown!r}")
            value = float(tok)
            if not math.isfinite(value):
                raise SWFError(path, lineno, f"field {i + 1} ({SWF_FIELDS[i]}) is out of range: {tok.decode()[:20]!r}")
            row.append(value)
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(-1, _N)


def _first_bad_integer(path: Path, values: np.ndarray, body: bytes, first_line: int) -> None:
    """Integer SWF fields must hold integers; name the first line that breaks this."""
    int_cols = [i for i, name in enumerate(SWF_FIELDS) if name not in FLOAT_FIELDS]
    sub = values[:, int_cols]
    bad = (sub != np.floor(sub)) | (np.abs(sub) >= _EXACT)
    if not bad.any():
        return
    row, col = np.argwhere(bad)[0]
    field_index = int_cols[col]
    # find the physical line of data row `row`
    count = -1
    for offset, raw in enumerate(body.split(b"\n")):
        line = raw.strip()
        if line and not line.startswith(b";"):
            count += 1
            if count == row:
                raise SWFError(
                    path,
                    first_line + offset,
                    f"field {field_index + 1} ({SWF_FIELDS[field_index]}) must be an integer, "
                    f"found {_token(line, field_index, values[row, field_index])}",
                )
    raise SWFError(path, None, f"field {field_index + 1} ({SWF_FIELDS[field_index]}) must be an integer")


def _token(line: bytes, index: int, value: float) -> str:
    """Field ``index`` of a data line as written in the file (else the value as a plain number)."""
    tokens = line.split()
    if index < len(tokens):
        return tokens[index].decode("ascii", "replace")
    return f"{float(value):g}"


def _refuse_repeated_ids(path: Path, ids: np.ndarray) -> None:
    """A job number (field 1) given to two jobs is an error naming the line of the second: every per-job
    output (``--schedule-out``, job tables) is keyed by it, and SWF numbers jobs uniquely (Chapin et al.
    1999). Renumbering would hide a file that was concatenated or edited by mistake; -1 (unknown) may repeat."""
    known = np.flatnonzero(ids >= 0)
    if known.size < 2:
        return
    _, first, counts = np.unique(ids[known], return_index=True, return_counts=True)
    if counts.max() < 2:
        return
    seen = np.zeros(known.size, dtype=bool)
    seen[first] = True
    second = int(known[np.flatnonzero(~seen)[0]])  # the earliest repeat in file order
    earlier = int(known[np.flatnonzero(ids[known] == ids[second])[0]])
    repeats = int((counts - 1).sum())
    more = f" ({repeats:,} repeated job numbers in the file)" if repeats > 1 else ""
    raise SWFError(path, job_line(path, second), f"job number {int(ids[second])} repeats the job on line "
                   f"{job_line(path, earlier)}{more}; job numbers (field 1) must be unique")


def read_swf(path: str | os.PathLike, *, procs: int | None = None) -> Workload:
    """Read an SWF trace (``.swf`` or ``.swf.gz``) into a :class:`Workload`.

    Standard Workload Format, Parallel Workloads Archive (Chapin et al. 1999; Feitelson et al.,
    JPDC 2014). All 18 fields are kept; the header comments are kept verbatim in ``header`` and
    parsed for MaxProcs (else MaxNodes), UnixStartTime and TimeZoneString. ``procs`` overrides the
    machine size; a trace without one reads fine (``machine_procs`` is None) and the steps that
    need it (:func:`clean`, :func:`load_trace`) then ask for ``procs``.
    Raises :class:`SWFError` naming file, line and problem on any malformed input.
    """
    path = Path(path)
    data = _read_bytes(path)
    header, body_start, header_lines = _split_header(data)
    body = data[body_start:]
    first_line = header_lines + 1
    values = _bulk_parse(body)
    if values is None:
        values = _scan(path, body, first_line, header)
    if values.shape[0] == 0:
        raise SWFError(path, None, "no jobs (empty file or only comments)")
    _first_bad_integer(path, values, body, first_line)
    meta = parse_header(tuple(header))
    if procs is not None:
        if int(procs) <= 0:
            raise SWFError(path, None, f"machine size must be positive, got procs={procs}")
        meta["machine_procs"] = int(procs)
    columns = {name: values[:, i] for i, name in enumerate(SWF_FIELDS)}
    for name in SWF_FIELDS:
        if name not in FLOAT_FIELDS:
            columns[name] = columns[name].astype(np.int64)
        else:
            columns[name] = np.ascontiguousarray(columns[name])
    _refuse_repeated_ids(path, columns["id"])
    group = _groups_from_header(header, columns["user"])
    if group is not None:
        columns["group"] = group
    return Workload.from_columns(columns, name=swf_name(path), header=tuple(header), resources=_header_resources(path, header, columns),
                                 **meta)


def _header_resources(path: Path, header: list[str], columns: dict):
    """The resource table of a trace whose header has schedlab's ``SchedlabGPUs`` line (SWF has no GPU
    field): its GPUs, and the memory of fields 7 and 10; None without the line (then
    :func:`~schedlab.workload.resources.resources_of` reads the memory fields alone)."""
    from .resources import GPUS_KEY, Resources, gpus_from_header, resources_of

    if not any(h.strip().startswith(GPUS_KEY + ":") for h in header):
        return None
    try:
        gpus = gpus_from_header(header, columns["id"])
    except ValueError as exc:
        line = next(k for k, h in enumerate(header) if h.strip().startswith(GPUS_KEY + ":")) + 1
        raise SWFError(path, line, str(exc)) from None
    memory = resources_of(Workload.from_columns(columns))
    return Resources.build(len(gpus), req_mem=None if memory is None else memory.req_mem,
                           used_mem=None if memory is None else memory.used_mem, req_gres={"gpu": gpus})


# ---------------------------------------------------------------------------------- writing
def _format_column(values: np.ndarray) -> np.ndarray:
    """Text of one column: integers without decimals, other floats as ``repr`` (exact round trip)."""
    if values.dtype.kind in "iu":
        return values.astype(str)
    integral = (values == np.floor(values)) & (np.abs(values) < _EXACT)
    if integral.all():
        return values.astype(np.int64).astype(str)
    out = np.empty(values.shape[0], dtype=object)
    out[integral] = values[integral].astype(np.int64).astype(str)
    rest = ~integral
    out[rest] = [repr(float(v)) for v in values[rest]]
    return out


def _with_group_line(workload: Workload) -> tuple[str, ...]:
    """The header plus a ``SchedlabUserGroups`` line when groups are assigned (one group per user)."""
    header = tuple(h for h in workload.header if not _GROUPS_LINE.match(h))
    if not (workload.group > 0).any():
        return header
    pairs = np.unique(np.stack([workload.user, workload.group], axis=1), axis=0)
    if len(np.unique(pairs[:, 0])) != len(pairs):  # not a per-user grouping: cannot be stored
        return header
    return header + (f" {GROUPS_KEY}: " + " ".join(f"{u}:{g}" for u, g in pairs.tolist()),)


def _with_gpus_line(workload: Workload, header: tuple[str, ...]) -> tuple[str, ...]:
    """``header`` with its ``SchedlabGPUs`` line made true for ``workload``'s jobs (a cut or scaled
    trace renumbers or copies jobs); unchanged for a workload without a resource table."""
    res = workload.resources
    if res is None:
        return header
    from .resources import GPUS_KEY, gpus_header_line

    kept = tuple(h for h in header if not h.strip().startswith(GPUS_KEY + ":"))
    line = gpus_header_line(workload.id, res.req_gpus)
    return kept + ((line,) if line is not None else ())


def _groups_from_header(header: list[str], user: np.ndarray) -> np.ndarray | None:
    for line in header:
        m = _GROUPS_LINE.match(line)
        if m:
            try:
                pairs = np.array([tok.split(":") for tok in m.group(1).split()], dtype=np.int64).reshape(-1, 2)
            except ValueError:
                return None
            users, inverse = np.unique(user, return_inverse=True)
            lookup = dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()))
            return np.array([lookup.get(u, 0) for u in users.tolist()], dtype=np.int64)[inverse]
    return None


def _has_key(header: tuple[str, ...], key: str) -> bool:
    return any(m.group(1) == key for m in map(_HEADER_KEY.match, header) if m)


def current_header(workload: Workload) -> tuple[str, ...]:
    """The header with the lines that describe the jobs made true for ``workload``'s jobs.

    A cleaned, cut or scaled trace keeps the archive's header, whose ``MaxJobs`` (distinct job
    numbers), ``MaxRecords`` (lines), ``StartTime`` and ``EndTime`` (the log's first second,
    UnixStartTime, and the last recorded job end, submit + wait + runtime, as local time in the
    trace's zone) would describe the original log. Only lines already present are rewritten;
    times are left as they are when the trace has no UnixStartTime.
    """
    header = tuple(workload.header)
    if _has_key(header, "MaxRecords"):
        header = set_header_value(header, "MaxRecords", len(workload))
    if _has_key(header, "MaxJobs"):
        header = set_header_value(header, "MaxJobs", len(np.unique(workload.id)))
    if workload.unix_start is not None and len(workload):
        from datetime import datetime

        from .timezone import trace_zone

        zone = trace_zone(workload)
        end = float(np.max(workload.submit + np.maximum(workload.wait, 0) + np.maximum(workload.runtime, 0)))
        for key, t in (("StartTime", 0.0), ("EndTime", end)):
            if _has_key(header, key):
                when = datetime.fromtimestamp(int(workload.unix_start) + math.floor(t), zone)
                header = set_header_value(header, key, when.strftime("%a %b %d %H:%M:%S %Z %Y"))
    return header


def write_swf(workload: Workload, path: str | os.PathLike) -> Path:
    """Write ``workload`` as SWF (header lines, then one line per job), atomically.

    ``.gz`` paths are gzip-compressed. ``read_swf(write_swf(w, p))`` reproduces every column and
    the header of ``w`` exactly. SWF has no user-group field: assigned groups are kept in a header
    line ``; SchedlabUserGroups: user:group ...`` that :func:`read_swf` reads back into ``group``.
    A workload with a resource table (:mod:`.resources`) writes its memory to fields 7 and 10 and its
    requested GPUs to a ``SchedlabGPUs`` header line, both read back by :func:`read_swf`.
    """
    path = Path(path)
    for name in FLOAT_FIELDS:
        col = getattr(workload, name)
        if not np.isfinite(col).all():
            raise SWFError(path, None, f"cannot write non-finite values in column {name!r}")
    cols = [_format_column(getattr(workload, name)) for name in SWF_FIELDS]
    if workload.resources is not None:  # memory of the resource table: fields 7 and 10 (per processor, KB)
        from .resources import swf_memory

        used, req = swf_memory(workload.resources, workload.procs, workload.req_procs)
        for name, value in (("mem", used), ("req_mem", req)):
            current = getattr(workload, name)  # kept where it says the same (no float drift on a round trip)
            keep = (value < 0) | np.isclose(current, value, rtol=1e-9, atol=0.0)
            cols[SWF_FIELDS.index(name)] = _format_column(np.where(keep, current, value))
    lines = [";" + h for h in _with_gpus_line(workload, _with_group_line(workload))]
    text = "\n".join(lines) + ("\n" if lines else "")
    if len(workload):
        text += "\n".join(" ".join(row) for row in zip(*cols)) + "\n"
    payload = text.encode("utf-8")
    if path.name.lower().endswith(".gz"):
        payload = gzip.compress(payload, compresslevel=6, mtime=0)
    try:
        atomic_write_bytes(path, payload, fsync=False)
    except OSError as exc:
        raise SWFError(path, None, f"cannot write: {exc.strerror or exc}") from None
    return path
