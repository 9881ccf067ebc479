"""What jobs ask for and get beyond CPUs: nodes, memory, GPUs and other GRES, exclusive use.

A :class:`Resources` table is keyed by job index (row ``j`` is job ``j`` of its
:class:`~schedlab.workload.model.Workload`, and :meth:`Workload.take` keeps the two aligned).
Every value is a number per job, -1 where the trace does not say (a column of -1 everywhere is a
trace without it). CPUs stay where they were: ``Workload.req_procs`` (requested) and
``Workload.procs`` (allocated).

=================  =======  ================================================================
column             unit     meaning
=================  =======  ================================================================
``req_nodes``      nodes    nodes requested (sacct ReqTRES ``node=``; PBS ``Resource_List.nodect``/
                            ``select``/``nodes``)
``nodes``          nodes    nodes allocated (sacct ``NNodes``/AllocTRES ``node=``; PBS distinct
                            ``exec_host`` hosts)
``req_mem``        MB       memory requested, the job's total (sacct ``ReqMem``/ReqTRES ``mem=``;
                            PBS ``Resource_List.mem``; SWF field 10 x requested processors)
``mem``            MB       memory allocated, the job's total (sacct AllocTRES ``mem=``)
``used_mem``       MB       memory used (PBS ``resources_used.mem``; SWF field 7 x processors)
``exclusive``      0/1      whole nodes (PBS ``place=excl``/``exclhost``, Torque ``naccesspolicy=singlejob``)
``req_gres[name]`` count    GRES requested by name: ``gpu`` (all GPUs), ``gpu:a100`` (a typed GPU), ...
``gres[name]``     count    GRES allocated by name
=================  =======  ================================================================

MB are mebibytes (Slurm's ``M``, 1024 KiB), as slurm.conf's ``RealMemory`` and ``DefMemPerCPU``.
:func:`resources_of` gives a workload's table: the readers' (sacct, PBS, the GPU-cluster model), else
the one the SWF memory fields make, else None (a trace without resources, run exactly as before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Resources", "resources_of", "parse_tres", "parse_mem", "parse_req_mem", "GPU", "resource_summary",
           "ignored_note", "GPUS_KEY", "gpus_from_header", "gpus_header_line"]

#: the GRES name of GPUs (Slurm's ``gres/gpu``; typed GPUs are ``gpu:TYPE``)
GPU = "gpu"
_INT = ("req_nodes", "nodes", "exclusive")
_FLOAT = ("req_mem", "mem", "used_mem")
COLUMNS = _INT + _FLOAT


def _column(values, n: int, dtype) -> np.ndarray:
    arr = np.full(n, -1, dtype=dtype) if values is None else np.ascontiguousarray(values, dtype=dtype)
    if arr.shape != (n,):
        raise ValueError(f"a resource column has {arr.shape} values, expected ({n},)")
    arr = arr.view()
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class Resources:
    """Per-job resources (module docstring); build with :meth:`build`, arrays read-only."""

    req_nodes: np.ndarray
    nodes: np.ndarray
    req_mem: np.ndarray
    mem: np.ndarray
    used_mem: np.ndarray
    exclusive: np.ndarray
    req_gres: dict = field(default_factory=dict)
    gres: dict = field(default_factory=dict)

    @classmethod
    def build(cls, n: int, *, req_gres: dict | None = None, gres: dict | None = None, **columns) -> "Resources":
        """A table of ``n`` jobs: the columns given, -1 for the others; GRES as name -> counts."""
        unknown = set(columns) - set(COLUMNS)
        if unknown:
            raise ValueError(f"unknown resource columns: {sorted(unknown)}")
        cols = {k: _column(columns.get(k), n, np.int64 if k in _INT else np.float64) for k in COLUMNS}
        return cls(**cols, req_gres={k: _column(v, n, np.int64) for k, v in (req_gres or {}).items()},
                   gres={k: _column(v, n, np.int64) for k, v in (gres or {}).items()})

    def __len__(self) -> int:
        return int(self.req_mem.shape[0])

    def take(self, index) -> "Resources":
        """The rows of ``index`` (a mask or integer indices), as :meth:`Workload.take`."""
        return Resources(**{k: getattr(self, k)[index] for k in COLUMNS},
                         req_gres={k: v[index] for k, v in self.req_gres.items()},
                         gres={k: v[index] for k, v in self.gres.items()})

    @property
    def req_gpus(self) -> np.ndarray:
        """GPUs requested per job (``gres/gpu``), -1 where not known."""
        return self.req_gres.get(GPU, np.full(len(self), -1, np.int64))

    @property
    def gpus(self) -> np.ndarray:
        """GPUs allocated per job, -1 where not known."""
        return self.gres.get(GPU, np.full(len(self), -1, np.int64))

    def any(self) -> bool:
        """Whether any job has any value (a table of -1 only is no resources at all)."""
        return any((getattr(self, k) >= 0).any() for k in COLUMNS) or any(
            (v >= 0).any() for d in (self.req_gres, self.gres) for v in d.values())


def resources_of(workload) -> Resources | None:
    """The workload's resource table: its own (:attr:`Workload.resources`), else the memory of
    SWF fields 7 and 10 (average used / requested memory per processor in KB, Chapin et al. 1999;
    -1 absent) as job totals in MB (x ``procs`` / ``req_procs``, / 1024), else None."""
    own = getattr(workload, "resources", None)
    if own is not None:
        return own
    used, req = workload.mem, workload.req_mem
    if not ((used > 0).any() or (req > 0).any()):
        return None
    procs = np.where(workload.procs > 0, workload.procs, workload.req_procs)
    req_procs = np.where(workload.req_procs > 0, workload.req_procs, workload.procs)
    return Resources.build(len(workload), used_mem=np.where((used > 0) & (procs > 0), used * procs / 1024.0, -1.0),
                           req_mem=np.where((req > 0) & (req_procs > 0), req * req_procs / 1024.0, -1.0))


# ----------------------------------------------------------------------------- reading
#: memory unit suffixes of Slurm (K, M, G, T, P: powers of 1024, M the default) in MB
_SLURM_UNIT = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 ** 2, "P": 1024.0 ** 3}
_MEM = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)$", re.IGNORECASE)
_REQ_MEM = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)([cn]?)$")


def parse_mem(text: str) -> float:
    """MB of a Slurm memory amount: ``8000M``, ``16G``, ``1.50G``, ``512K``, ``4000`` (M). ValueError otherwise."""
    m = _MEM.match(text.strip())
    if not m:
        raise ValueError(f"not a memory amount: {text.strip()[:30]!r} (a number with K, M, G, T or P)")
    return float(m.group(1)) * _SLURM_UNIT[(m.group(2) or "M").upper()]


def parse_req_mem(text: str, cpus: int, nodes: int) -> float:
    """MB in total of sacct's ``ReqMem``; -1 when empty or 0 (no memory asked for).

    Slurm before 21.08 printed the request as it was given: ``2000Mc`` per CPU (``--mem-per-cpu``,
    times ``cpus``), ``4000Mn`` per node (``--mem``, times ``nodes``); from 21.08 (so in 22.05)
    sacct prints the job's total, ``8000M`` (the issue's harness: 4 CPUs x DefMemPerCPU 2000 shows
    ``8000M``). ``cpus``/``nodes`` < 1 with a per-CPU/per-node form is a ValueError.
    """
    t = text.strip()
    if not t or t in ("0", "0M", "0n", "0c", "0Mn", "0Mc"):
        return -1.0
    m = _REQ_MEM.match(t)
    if not m:
        raise ValueError(f"not a ReqMem value: {t[:30]!r} (e.g. 8000M, 2000Mc per CPU, 4Gn per node)")
    mb = float(m.group(1)) * _SLURM_UNIT[(m.group(2) or "M").upper()]
    per = m.group(3)
    if per == "c":
        if cpus < 1:
            raise ValueError(f"ReqMem {t!r} is per CPU but the job's CPUs are not known")
        return mb * cpus
    if per == "n":
        if nodes < 1:
            raise ValueError(f"ReqMem {t!r} is per node but the job's node count (NNodes) is not known")
        return mb * nodes
    return mb


def parse_tres(text: str) -> dict[str, float]:
    """A TRES string (sacct ReqTRES/AllocTRES): ``billing=4,cpu=4,gres/gpu=2,mem=8000M,node=1`` ->
    ``{'cpu': 4, 'gres/gpu': 2, 'mem': 8000.0, 'node': 1, 'billing': 4}`` (memory in MB, the others
    as counts). Empty text -> {}. ValueError naming the item for an item that is not ``name=value``,
    a name given twice, or a value that is not a count (``mem``: an amount, :func:`parse_mem`)."""
    out: dict[str, float] = {}
    t = text.strip()
    if not t:
        return out
    for item in t.split(","):
        name, eq, value = item.strip().partition("=")
        name = name.strip().lower()
        if not eq or not name or not value.strip():
            raise ValueError(f"TRES item {item.strip()[:40]!r} is not name=value")
        if name in out:
            raise ValueError(f"TRES {name} given twice")
        if name in ("mem", "vmem"):
            out[name] = parse_mem(value)
            continue
        v = value.strip()
        # a count; energy/fs/disk and others may carry a unit suffix: kept as read only when a count
        m = _MEM.match(v)
        if not m:
            raise ValueError(f"TRES {name}={v[:30]!r} is not a count")
        out[name] = float(m.group(1)) * (_SLURM_UNIT[m.group(2).upper()] if m.group(2) else 1.0)
    return out


def tres_gres(tres: dict[str, float]) -> dict[str, int]:
    """The GRES of a parsed TRES string by name: ``gres/gpu=2,gres/gpu:a100=2`` -> {gpu: 2, gpu:a100: 2}."""
    return {k[5:]: int(v) for k, v in tres.items() if k.startswith("gres/")}


# ----------------------------------------------------------------------------- SWF header
#: header key holding the GPUs a job requested (``SchedlabGPUs: 1:3-5,9 2:7``: count, then job ids):
#: SWF has no GPU field (Chapin et al. 1999), so schedlab keeps them in its header, as ``SchedlabNoLimit``
GPUS_KEY = "SchedlabGPUs"


def gpus_header_line(ids: np.ndarray, gpus: np.ndarray) -> str | None:
    """The :data:`GPUS_KEY` line of jobs ``ids`` requesting ``gpus`` (> 0); None when no job does."""
    parts = [f"{int(g)}:{id_ranges(ids[gpus == g]).replace(' ', ',')}" for g in np.unique(gpus[gpus > 0])]
    return f" {GPUS_KEY}: {' '.join(parts)}" if parts else None


def gpus_from_header(header, ids: np.ndarray) -> np.ndarray | None:
    """Requested GPUs per job of a :data:`GPUS_KEY` header line (0 for jobs not listed); None without one.
    ValueError for a line that is not ``count:ids ...``."""
    for line in header:
        key, sep, rest = line.strip().partition(":")
        if sep and key == GPUS_KEY:
            out = np.zeros(ids.shape[0], np.int64)
            where = {int(i): k for k, i in enumerate(ids.tolist())}
            for part in rest.split():
                count, colon, ranges = part.partition(":")
                if not colon or not count.isdigit():
                    raise ValueError(f"{GPUS_KEY}: {part[:30]!r} is not COUNT:IDS")
                for item in ranges.split(","):
                    lo, _, hi = item.partition("-")
                    for i in range(int(lo), int(hi or lo) + 1):
                        if i in where:
                            out[where[i]] = int(count)
            return out
    return None


# ----------------------------------------------------------------------------- summaries
def resource_summary(res: Resources | None) -> dict:
    """JSON-ready counts: jobs with memory / GPUs / nodes requested, totals, GRES names."""
    if res is None or not res.any():
        return {}
    out: dict = {}
    for key, label in (("req_mem", "memory_requested"), ("mem", "memory_allocated"), ("used_mem", "memory_used")):
        col = getattr(res, key)
        if (col >= 0).any():
            out[label] = {"jobs": int((col > 0).sum()), "median_mb": float(np.median(col[col > 0])) if (col > 0).any() else 0.0,
                          "max_mb": float(col.max())}
    for key, label in (("req_gpus", "gpus_requested"), ("gpus", "gpus_allocated")):
        col = getattr(res, key)
        if (col >= 0).any():
            out[label] = {"jobs": int((col > 0).sum()), "total": int(col[col > 0].sum()), "max": int(col.max())}
    for key, label in (("req_nodes", "nodes_requested"), ("nodes", "nodes_allocated")):
        col = getattr(res, key)
        if (col > 0).any():
            out[label] = {"jobs": int((col > 0).sum()), "max": int(col.max()), "multi_node_jobs": int((col > 1).sum())}
    if (res.exclusive >= 0).any():
        out["exclusive_jobs"] = int((res.exclusive == 1).sum())
    names = sorted(set(res.req_gres) | set(res.gres))
    if names:
        out["gres"] = names
    return out


def ignored_note(res: Resources | None, policy: str) -> str | None:
    """The one note line of a run whose ``policy`` (as the user named it, e.g. ``--policy easy``)
    models CPUs only (every policy does today), on a trace whose jobs request memory or GPUs (or
    other GRES): what it ignores; None when they request neither. Not an error: the run is what it
    was before, and the line says which machine it is not."""
    if res is None:
        return None
    parts = []
    mem = np.maximum(res.req_mem, res.mem)
    if (mem > 0).any():
        parts.append(f"memory ({int((mem > 0).sum()):,} jobs)")
    gres = set(res.req_gres) | set(res.gres)
    counts = {name: np.maximum(res.req_gres.get(name, -1), res.gres.get(name, -1)) for name in sorted(gres)}
    gpu = counts.pop(GPU, None)
    if gpu is not None and (gpu > 0).any():
        parts.append(f"GPUs ({int((gpu > 0).sum()):,} jobs)")
    other = sorted({n for n, c in counts.items() if not n.startswith(GPU + ":") and (c > 0).any()})
    if other:
        parts.append("GRES " + ", ".join(other))
    if not parts:
        return None
    return (f"the trace's jobs request {' and '.join(parts)}; {policy} does not model them (not modelled: nodes are "
            "CPUs only (CR_CPU)): ignored, every job gets its CPUs alone")


def table_from_rows(rows: list[dict]) -> Resources:
    """A table from one dict per job: :data:`COLUMNS` values (missing: -1) and ``req_gres``/``gres``
    name -> count dicts (None: the record does not say, -1; a name a record lacks: 0)."""
    n = len(rows)
    cols = {k: [r.get(k, -1) for r in rows] for k in COLUMNS}
    gres: dict[str, dict] = {}
    for key in ("req_gres", "gres"):
        names = sorted({name for r in rows for name in (r.get(key) or {})})
        gres[key] = {name: [(-1 if r.get(key) is None else r[key].get(name, 0)) for r in rows] for name in names}
    return Resources.build(n, **cols, **gres)


def swf_memory(res: Resources, procs: np.ndarray, req_procs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SWF fields 7 and 10 of a table: used / requested memory per processor in KB (-1 absent), the
    inverse of :func:`resources_of`."""
    used = np.where((res.used_mem > 0) & (procs > 0), res.used_mem * 1024.0 / np.maximum(procs, 1), -1.0)
    req = np.where((res.req_mem > 0) & (req_procs > 0), res.req_mem * 1024.0 / np.maximum(req_procs, 1), -1.0)
    return used, req


def swf_loss_note(res: Resources | None) -> str | None:
    """The one note line of a conversion to SWF: what of ``res`` the SWF file keeps (requested and used
    memory in fields 10 and 7, requested GPUs in the ``SchedlabGPUs`` header line) and what it cannot
    carry (nodes, allocated memory and GRES, other GRES by name, exclusive); None when nothing is lost."""
    if res is None:
        return None
    lost = []
    if (res.req_nodes > 0).any() or (res.nodes > 0).any():
        lost.append("node counts")
    if (res.mem >= 0).any():
        lost.append("allocated memory")
    if any((v >= 0).any() for v in res.gres.values()):
        lost.append("allocated GPUs/GRES")
    other = sorted(n for n, v in res.req_gres.items() if n != GPU and (v > 0).any())
    if other:
        lost.append("requested GRES " + ", ".join(other))
    if (res.exclusive >= 0).any():
        lost.append("exclusive")
    if not lost:
        return None
    return (f"SWF cannot carry {', '.join(lost)} (no SWF field): not written; kept are requested and used memory "
            f"(fields 10 and 7, KB per processor) and requested GPUs (header line {GPUS_KEY})")


def id_ranges(ids) -> str:
    """``[1, 2, 3, 7]`` -> ``'1-3 7'`` (sorted, duplicates once): job ids in a header line (the
    accounting logs' no-limit jobs, the GPU line)."""
    out: list[str] = []
    values = sorted({int(i) for i in ids})
    k = 0
    while k < len(values):
        end = k
        while end + 1 < len(values) and values[end + 1] == values[end] + 1:
            end += 1
        out.append(str(values[k]) if end == k else f"{values[k]}-{values[end]}")
        k = end + 1
    return " ".join(out)
