"""A slurm.conf excerpt read into what ``--policy slurm`` models (docs/slurm-policy-spec.md).

Read: ``Priority*`` lines (type, weights, PriorityMaxAge, PriorityDecayHalfLife,
PriorityCalcPeriod, PriorityFavorSmall, PriorityFlags), ``SchedulerType``,
``SchedulerParameters`` (sched_interval, default_queue_depth, batch_sched_delay, bf_interval,
bf_window, bf_resolution, bf_max_job_test, bf_node_space_size, ...), ``AccountingStorageType``, ``OverTimeLimit``, ``KillWait``,
``SelectType`` (select/cons_tres, select/cons_res), ``SelectTypeParameters`` (CR_CPU, CR_Core,
CR_CPU_Memory, CR_Core_Memory), ``DefMemPerCPU``/``DefMemPerNode``, ``NodeName`` lines (CPUs,
RealMemory, Gres=gpu:N / gpu:TYPE:N, ThreadsPerCore) and ``PartitionName`` lines (Nodes, MaxTime,
DefaultTime, PriorityJobFactor, PriorityTier, Default, OverSubscribe=EXCLUSIVE/NO, DefMemPerCPU,
DefMemPerNode); docs/slurm-policy-spec.md section 14 says how they are modelled. A value the
policy cannot model (select/linear, OverSubscribe=YES/FORCE, CR_Core on nodes of several threads
per core, two GPU types on one node) is a ``FILE:LINE: problem`` error, not a silent approximation.
Every other setting, and every read setting whose value the policy does not model, is listed once
in :attr:`SlurmConf.ignored` as ``FILE:LINE: Key (reason)``, never dropped silently. A line that is
not ``Key=Value`` tokens, a value that cannot be read, a malformed host list (``n[001-025``) or a
node defined on two NodeName lines (Slurm: "Duplicated NodeName") raises ``FILE:LINE: problem``
(:class:`SlurmConfError`, exit 2 in the CLI).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SchedlabError


class SlurmConfError(SchedlabError, ValueError):
    """A slurm.conf excerpt or shares file that cannot be read (``FILE:LINE: problem``)."""


#: SchedulerParameters the policy models, with Slurm 22.05's defaults (slurm.conf man page)
SCHED_DEFAULTS = {
    "sched_interval": 60,  # "The default value is 60 seconds."
    "default_queue_depth": 100,  # "The default value is 100 jobs."
    "batch_sched_delay": 3,  # "The default value is 3 seconds."
    "bf_interval": 30,  # "The default value is 30 seconds."
    "bf_window": 1440,  # minutes, "Default: 1440 (1 day)"
    "bf_resolution": 60,  # seconds, "Default: 60"
    "bf_max_job_test": 500,  # "Default: 500"
    # backfill.c: bf_node_space_size defaults to bf_max_job_test (0 here: that default); a value
    # below 2 or over 2 * 1,000,000 is refused by Slurm with an error and replaced by it
    "bf_node_space_size": 0,
}
#: SchedulerParameters that bound Slurm's own run time; simulated passes take none (spec section 9)
SCHED_NO_EFFECT = frozenset((
    "bf_continue", "max_sched_time", "sched_min_interval", "bf_max_time", "bf_yield_interval",
    "bf_yield_sleep", "max_rpc_cnt",
))
#: PriorityFlags the policy models
FLAGS_MODELLED = frozenset(("NO_FAIR_TREE", "ACCRUE_ALWAYS", "NO_NORMAL_PART", "NO_NORMAL_QOS", "SMALL_RELATIVE_TO_TIME"))
_WEIGHTS = ("age", "fairshare", "jobsize", "partition", "qos")
#: SelectTypeParameters the policy models (select/cons_tres; the CR_* value with optional extra
#: flags is refused when unknown): memory is a consumable resource only with a *_Memory value
SELECT_PARAMS = ("CR_CPU", "CR_CORE", "CR_CPU_MEMORY", "CR_CORE_MEMORY")


@dataclass(frozen=True)
class Partition:
    name: str
    nodes: tuple[int, ...]  # node numbers (positions in SlurmConf.node_cpus)
    max_time: float  # seconds (inf: INFINITE/UNLIMITED)
    default_time: float | None  # seconds, None: none given
    job_factor: int = 1
    tier: int = 1
    default: bool = False
    #: OverSubscribe=EXCLUSIVE: every job of the partition gets whole nodes
    exclusive: bool = False
    #: the partition's DefMemPerCPU / DefMemPerNode (MB; None: the global value)
    def_mem_per_cpu: float | None = None
    def_mem_per_node: float | None = None


@dataclass
class SlurmConf:
    """What the policy takes from a slurm.conf excerpt; times in seconds."""

    source: str = "slurm.conf"
    priority_type: str = "priority/multifactor"
    scheduler_type: str = "sched/backfill"
    weights: dict = field(default_factory=lambda: dict.fromkeys(_WEIGHTS, 0))
    max_age: float = 7 * 86400.0  # PriorityMaxAge default 7-0
    decay_half_life: float = 7 * 86400.0  # PriorityDecayHalfLife default 7-0
    calc_period: float = 300.0  # PriorityCalcPeriod default 5 (minutes)
    favor_small: bool = False
    flags: frozenset = frozenset()
    fairshare_dampening: float = 1.0
    over_time_limit: float = 0.0  # seconds (OverTimeLimit in minutes)
    kill_wait: float = 30.0  # seconds (KillWait, "The default value is 30 seconds")
    sched: dict = field(default_factory=lambda: dict(SCHED_DEFAULTS))
    #: CPUs of each node in NodeName order (empty: none given; the policy builds nodes from the machine)
    node_cpus: list = field(default_factory=list)
    node_names: list = field(default_factory=list)
    #: RealMemory (MB) and GPUs (Gres=gpu[:TYPE]:N) of each node, in NodeName order (slurm.conf:
    #: RealMemory "Default value is 1"); the GPU type of each node ('' untyped)
    node_mem: list = field(default_factory=list)
    node_gpus: list = field(default_factory=list)
    node_gpu_type: list = field(default_factory=list)
    #: ThreadsPerCore of each node (1 unless given)
    node_threads: list = field(default_factory=list)
    #: SelectTypeParameters as given (upper case), None when the file has none (the policy's option
    #: select_params_default says what is used then); the line it came from
    select_params: str | None = None
    select_line: int = 0
    #: DefMemPerCPU / DefMemPerNode (MB; None: not given, Slurm's 0 "unlimited": the node's memory)
    def_mem_per_cpu: float | None = None
    def_mem_per_node: float | None = None
    partitions: list = field(default_factory=list)
    ignored: list = field(default_factory=list)
    #: AccountingStorageType (Slurm's default: accounting_storage/none; age and fair-share weights
    #: need accounting_storage/slurmdbd, priority_multifactor.c init: "can only be used with SlurmDBD")
    accounting_storage: str = "accounting_storage/none"
    #: AccountingStorageEnforce's flags (read_config.c _validate_accounting_storage_enforce: "limits",
    #: "safe" and "all" include LIMITS); Slurm's default: none
    accounting_enforce: frozenset = frozenset()
    #: node name -> the line that defined it (a name defined twice is an error, as in Slurm)
    node_lines: dict = field(default_factory=dict, repr=False)
    #: partition lines kept until the nodes are known: (lineno, tokens)
    _part_lines: list = field(default_factory=list, repr=False)

    def default_partition(self) -> Partition | None:
        for p in self.partitions:
            if p.default:
                return p
        return self.partitions[0] if self.partitions else None


def _duration(value: str) -> float:
    """A slurm.conf time (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS) in seconds;
    INFINITE/UNLIMITED -> inf. slurm.conf: MaxTime "Format is minutes, minutes:seconds,
    hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds or UNLIMITED"."""
    v = value.strip()
    if v.upper() in ("INFINITE", "UNLIMITED"):
        return math.inf
    days = 0
    if "-" in v:
        d, v = v.split("-", 1)
        days = int(d)
        parts = [int(x) for x in v.split(":")]
        parts += [0] * (3 - len(parts))  # days-hours[:minutes[:seconds]]
        h, m, s = parts
    else:
        parts = [int(x) for x in v.split(":")]
        if len(parts) == 1:
            h, m, s = 0, parts[0], 0
        elif len(parts) == 2:
            h, m, s = 0, parts[0], parts[1]
        elif len(parts) == 3:
            h, m, s = parts
        else:
            raise ValueError(f"not a time: {value!r}")
    if min(days, h, m, s) < 0:
        raise ValueError(f"negative time {value!r}")
    return float(((days * 24 + h) * 60 + m) * 60 + s)


def expand_hostlist(text: str) -> list[str]:
    """``cn[001-003,7],gpu1`` -> ``['cn001', 'cn002', 'cn003', 'cn7', 'gpu1']`` (Slurm host lists).

    Ranges ``N`` or ``N-M`` with N <= M, zero-padded to the width of N; several bracket groups in one
    name expand as their product (``r[1-2]n[1-2]`` -> r1n1, r1n2, r2n1, r2n2). Anything else (an
    unclosed ``[``, a stray ``]``, nested brackets, a range that is not digits) raises ValueError
    naming the host list: Slurm's ``hostlist_create`` refuses such a list too, and reading it as
    plain names would invent nodes."""
    items, depth, cur = [], 0, ""
    for ch in text:  # commas inside brackets separate ranges, outside them names
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError(f"malformed host list {text!r}: nested '['")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"malformed host list {text!r}: ']' without '['")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise ValueError(f"malformed host list {text!r}: '[' not closed")
    items.append(cur)
    out: list[str] = []
    for item in filter(None, items):
        names = [""]
        for k, part in enumerate(re.split(r"\[([^\[\]]*)\]", item)):
            if k % 2 == 0:  # literal text between bracket groups
                names = [n + part for n in names]
                continue
            values = []
            for r in part.split(","):
                rm = re.fullmatch(r"(\d+)(?:-(\d+))?", r.strip())
                if not rm or (rm.group(2) is not None and int(rm.group(2)) < int(rm.group(1))):
                    raise ValueError(f"malformed host list {text!r}: range {r!r} is not N or N-M with N <= M")
                lo, hi = rm.group(1), rm.group(2) or rm.group(1)
                values += [f"{v:0{len(lo)}d}" for v in range(int(lo), int(hi) + 1)]
            names = [n + v for n in names for v in values]
        out += names
    return out


def parse_conf(text: str, source: str = "slurm.conf") -> SlurmConf:
    """Read a slurm.conf excerpt (see the module docstring). ``source`` names it in messages."""
    conf = SlurmConf(source=source)
    seen_ignored: set[str] = set()

    def ignore(number: int, key: str, why: str) -> None:
        entry = f"{source}:{number}: {key} ({why})"
        if (key.lower(), why) not in seen_ignored:
            seen_ignored.add((key.lower(), why))
            conf.ignored.append(entry)

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        bad = [t for t in tokens if "=" not in t or t.startswith("=")]
        if bad:
            raise SlurmConfError(f"{source}:{number}: expected Key=Value, got {bad[0]!r}")
        first, value0 = tokens[0].split("=", 1)
        if first.lower() == "nodename":
            _node_line(conf, number, tokens, ignore)
            continue
        if first.lower() == "partitionname":
            conf._part_lines.append((number, tokens))
            continue
        for tok in tokens:
            key, value = tok.split("=", 1)
            try:
                _setting(conf, number, key, value, ignore)
            except ValueError as exc:
                raise SlurmConfError(f"{source}:{number}: {key}: {exc}") from None
    return conf


def _setting(conf: SlurmConf, number: int, key: str, value: str, ignore) -> None:
    k = key.lower()
    if k.startswith("priorityweight"):
        name = k[len("priorityweight"):]
        if name in _WEIGHTS:
            w = int(value)
            if w < 0:
                raise ValueError(f"must be >= 0, got {value!r}")
            conf.weights[name] = w
        else:
            ignore(number, key, "not modelled: only Age, FairShare, JobSize, Partition and QOS weights are")
    elif k == "prioritytype":
        if value not in ("priority/multifactor", "priority/basic"):
            raise ValueError(f"expected priority/multifactor or priority/basic, got {value!r}")
        conf.priority_type = value
    elif k == "schedulertype":
        if value not in ("sched/backfill", "sched/builtin"):
            raise ValueError(f"expected sched/backfill or sched/builtin, got {value!r}")
        conf.scheduler_type = value
    elif k == "prioritymaxage":
        conf.max_age = _duration(value)
    elif k == "prioritydecayhalflife":
        conf.decay_half_life = _duration(value)
    elif k == "prioritycalcperiod":
        conf.calc_period = _duration(value)
        if conf.calc_period <= 0:
            raise ValueError("must be positive")
    elif k == "priorityfavorsmall":
        if value.upper() not in ("YES", "NO"):
            raise ValueError(f"expected YES or NO, got {value!r}")
        conf.favor_small = value.upper() == "YES"
    elif k == "priorityflags":
        flags = {f.strip().upper() for f in value.split(",") if f.strip()}
        for f in sorted(flags - FLAGS_MODELLED):
            ignore(number, f"PriorityFlags={f}", "not modelled")
        conf.flags = frozenset(flags & FLAGS_MODELLED)
    elif k == "fairsharedampeningfactor":
        conf.fairshare_dampening = float(int(value))
        if conf.fairshare_dampening < 1:
            raise ValueError("must be >= 1")
    elif k == "overtimelimit":
        conf.over_time_limit = math.inf if value.upper() == "UNLIMITED" else 60.0 * int(value)
    elif k == "killwait":
        conf.kill_wait = float(int(value))
        if conf.kill_wait < 0:
            raise ValueError("must be >= 0")
    elif k == "schedulerparameters":
        for item in value.split(","):
            if not item:
                continue
            name, _, v = item.partition("=")
            name = name.lower()
            if name in SCHED_DEFAULTS:
                conf.sched[name] = int(v)
                if name == "bf_node_space_size" and not 2 <= conf.sched[name] <= 2_000_000:
                    ignore(number, f"SchedulerParameters bf_node_space_size={v}",
                           "Slurm refuses it (\"Invalid SchedulerParameters bf_node_space_size\") and uses bf_max_job_test")
                    conf.sched[name] = 0
                elif conf.sched[name] < (-1 if name == "bf_interval" else 1 if name != "batch_sched_delay" else 0):
                    raise ValueError(f"{name}={v} is out of range")
            elif name == "assoc_limit_stop":  # a flag: a limit-held job stops its partition (schedlab.slurm.limits)
                conf.sched[name] = 1
            elif name in SCHED_NO_EFFECT:
                ignore(number, f"SchedulerParameters {name}", "bounds Slurm's own run time; simulated passes take none")
            else:
                ignore(number, f"SchedulerParameters {name}", "not modelled")
    elif k == "accountingstoragetype":
        conf.accounting_storage = value
    elif k == "accountingstorageenforce":
        flags = {t.strip().lower() for t in value.split(",") if t.strip()}
        bad = flags - {"0", "1", "2", "associations", "limits", "safe", "wckeys", "qos", "all", "nojobs", "nosteps"}
        if bad:
            raise ValueError(f"invalid parameter for AccountingStorageEnforce: {', '.join(sorted(bad))}")
        conf.accounting_enforce = frozenset(flags)
    elif k == "selecttype":
        if value not in ("select/cons_tres", "select/cons_res"):
            raise ValueError(f"{value} is not modelled: --policy slurm allocates as select/cons_tres "
                             "(select/linear gives whole nodes to every job; use OverSubscribe=EXCLUSIVE for that)")
    elif k == "selecttypeparameters":
        items = [x.strip().upper() for x in value.split(",") if x.strip()]
        cr = [x for x in items if x.startswith("CR_")]
        if len(cr) != 1 or cr[0] not in SELECT_PARAMS:
            raise ValueError(f"{value!r} is not modelled; give one of CR_CPU, CR_Core, CR_CPU_Memory, CR_Core_Memory")
        for x in items:
            if x != cr[0]:
                ignore(number, f"SelectTypeParameters {x}", "not modelled")
        conf.select_params, conf.select_line = cr[0], number
    elif k == "grestypes":
        for name in {x.strip().lower() for x in value.split(",") if x.strip()} - {"gpu"}:
            ignore(number, f"GresTypes {name}", "not modelled: only gpu GRES are")
    elif k in ("defmempercpu", "defmempernode"):
        mb = float(int(value))
        if mb < 0:
            raise ValueError("must be >= 0")
        setattr(conf, "def_mem_per_cpu" if k == "defmempercpu" else "def_mem_per_node", mb)
    elif k == "priorityusageresetperiod" and value.upper() == "NONE":
        pass  # the default, which the policy models: usage is never reset
    else:
        ignore(number, key, "not modelled by --policy slurm")


def _node_line(conf: SlurmConf, number: int, tokens: list[str], ignore) -> None:
    name = tokens[0].split("=", 1)[1]
    if name.upper() == "DEFAULT":
        ignore(number, "NodeName=DEFAULT", "not modelled: give CPUs= on each NodeName line")
        return
    cpus, mem, gpus, gtype, threads = None, 1.0, 0, "", 1
    for tok in tokens[1:]:
        key, value = tok.split("=", 1)
        k = key.lower()
        try:
            if k == "cpus":
                cpus = _whole(value)
                if cpus < 1:
                    raise ValueError(f"must be >= 1, got {cpus}")
            elif k == "realmemory":
                mem = float(_whole(value))
                if mem < 1:
                    raise ValueError(f"must be >= 1, got {value}")
            elif k == "threadspercore":
                threads = _whole(value)
                if threads < 1:
                    raise ValueError(f"must be >= 1, got {value}")
            elif k == "gres":
                gpus, gtype = _node_gres(conf, number, value, ignore)
            else:
                ignore(number, f"NodeName {key}", "not modelled: a node is its CPUs, RealMemory and GPUs")
        except ValueError as exc:
            raise SlurmConfError(f"{conf.source}:{number}: {key}: {exc}") from None
    if cpus is None:
        raise SlurmConfError(f"{conf.source}:{number}: NodeName {name} has no CPUs=")
    try:
        hosts = expand_hostlist(name)
    except ValueError as exc:
        raise SlurmConfError(f"{conf.source}:{number}: NodeName: {exc}") from None
    for host in hosts:
        if host in conf.node_lines:  # Slurm: fatal "Duplicated NodeName %s in the config file" (read_config.c)
            raise SlurmConfError(f"{conf.source}:{number}: node {host} is already defined on line {conf.node_lines[host]}; "
                                 "Slurm refuses a NodeName defined twice (\"Duplicated NodeName\")")
        conf.node_lines[host] = number
        conf.node_names.append(host)
        conf.node_cpus.append(cpus)
        conf.node_mem.append(mem)
        conf.node_gpus.append(gpus)
        conf.node_gpu_type.append(gtype)
        conf.node_threads.append(threads)


def _whole(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"not a whole number: {value!r}") from None


def _node_gres(conf: SlurmConf, number: int, value: str, ignore) -> tuple[int, str]:
    """A NodeName line's ``Gres=``: ``gpu:N``, ``gpu:TYPE:N`` (comma-separated; ``gpu:TYPE:N(S:0-1)``
    socket bindings dropped). Returns (GPUs, type or ''); other GRES are listed as ignored; GPUs of
    two types on one node are refused (one type per node is modelled)."""
    total, types = 0, set()
    for item in filter(None, (x.strip() for x in value.split(","))):
        item = item.split("(", 1)[0]
        parts = item.split(":")
        if parts[0].lower() != "gpu":
            ignore(number, f"NodeName Gres={parts[0]}", "not modelled: only gpu GRES are")
            continue
        if len(parts) == 2:
            typ, count = "", parts[1]
        elif len(parts) == 3:
            typ, count = parts[1], parts[2]
        else:
            raise ValueError(f"cannot read {item!r}; expected gpu:N or gpu:TYPE:N")
        if not count.isdigit():
            raise ValueError(f"cannot read {item!r}: the GPU count is not a whole number")
        total += int(count)
        types.add(typ)
    if len(types) > 1:
        raise ValueError(f"GPUs of several types on one node ({value}) are not modelled; give one type per NodeName line")
    return total, (types.pop() if types else "")


def finish_partitions(conf: SlurmConf, machine_procs: int | None, cpus_per_node: int) -> SlurmConf:
    """Resolve the partition lines against the nodes: the NodeName lines, or (none given) the
    machine's ``machine_procs`` CPUs as nodes of ``cpus_per_node`` CPUs named ``n0, n1, ...``.
    No PartitionName line: one default partition ``batch`` on all nodes, MaxTime INFINITE."""
    if not conf.node_cpus:
        if machine_procs is None:
            raise SlurmConfError(f"{conf.source}: no NodeName lines and the trace gives no machine size (--procs)")
        if machine_procs % cpus_per_node:
            raise SlurmConfError(f"{conf.source}: no NodeName lines and {machine_procs} CPUs are not whole nodes of "
                                 f"{cpus_per_node} CPUs (cpus_per_node)")
        conf.node_cpus = [cpus_per_node] * (machine_procs // cpus_per_node)
        conf.node_names = [f"n{i}" for i in range(len(conf.node_cpus))]
        conf.node_mem = [1.0] * len(conf.node_cpus)
        conf.node_gpus = [0] * len(conf.node_cpus)
        conf.node_gpu_type = [""] * len(conf.node_cpus)
        conf.node_threads = [1] * len(conf.node_cpus)
    index = {n: i for i, n in enumerate(conf.node_names)}
    conf.partitions = []
    for number, tokens in conf._part_lines:
        name = tokens[0].split("=", 1)[1]
        if name.upper() == "DEFAULT":
            conf.ignored.append(f"{conf.source}:{number}: PartitionName=DEFAULT (not modelled: set keys per partition)")
            continue
        nodes = tuple(range(len(conf.node_cpus)))  # no Nodes=: all nodes (named reading, see SlurmPolicy)
        max_time, default_time, factor, tier, default = math.inf, None, 1, 1, False
        exclusive, dmc, dmn = False, None, None
        for tok in tokens[1:]:
            key, value = tok.split("=", 1)
            k = key.lower()
            try:
                if k == "nodes":
                    if value.upper() == "ALL":
                        continue
                    hosts = expand_hostlist(value)
                    missing = [h for h in hosts if h not in index]
                    if missing:
                        raise ValueError(f"node {missing[0]} is on no NodeName line")
                    nodes = tuple(sorted({index[h] for h in hosts}))
                elif k == "maxtime":
                    max_time = _duration(value)
                elif k == "defaulttime":
                    default_time = _duration(value)
                elif k == "priorityjobfactor":
                    factor = int(value)
                elif k == "prioritytier":
                    tier = int(value)
                elif k == "default":
                    default = value.upper() == "YES"
                elif k == "state" and value.upper() == "UP":
                    pass
                elif k == "oversubscribe":
                    if value.upper() not in ("EXCLUSIVE", "NO"):
                        raise ValueError(f"{value} is not modelled (jobs sharing CPUs); give EXCLUSIVE or NO")
                    exclusive = value.upper() == "EXCLUSIVE"
                elif k in ("defmempercpu", "defmempernode"):
                    mb = float(int(value))
                    if mb < 0:
                        raise ValueError("must be >= 0")
                    dmc, dmn = (mb, dmn) if k == "defmempercpu" else (dmc, mb)
                else:
                    conf.ignored.append(f"{conf.source}:{number}: {key} of partition {name} (not modelled)")
            except ValueError as exc:
                raise SlurmConfError(f"{conf.source}:{number}: {key}: {exc}") from None
        if any(p.name == name for p in conf.partitions):
            raise SlurmConfError(f"{conf.source}:{number}: partition {name} defined twice")
        conf.partitions.append(Partition(name, nodes, max_time, default_time, factor, tier, default, exclusive, dmc, dmn))
    if not conf.partitions:
        conf.partitions.append(Partition("batch", tuple(range(len(conf.node_cpus))), math.inf, None, 1, 1, True))
    return conf


def read_conf(path: str | Path) -> SlurmConf:
    """:func:`parse_conf` of a file, naming it in every message."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SlurmConfError(f"{path}: cannot read slurm.conf excerpt: {exc.strerror or exc}") from None
    return parse_conf(text, source=str(path))


def read_shares(path: str | Path) -> dict[str, float]:
    """Account shares from an ``sshare -P``-like file: a header with ``Account`` and ``RawShares``
    columns, ``|``-separated rows; a row with a User is a user association and is skipped (the
    policy's fair-share tree is flat, one leaf per account). Returns {account: raw shares}."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SlurmConfError(f"{path}: cannot read shares file: {exc.strerror or exc}") from None
    rows = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not rows:
        raise SlurmConfError(f"{path}: empty shares file")
    head = [h.strip().lower() for h in rows[0][1].split("|")]
    if "account" not in head or "rawshares" not in head:
        raise SlurmConfError(f"{path}:{rows[0][0]}: header lacks Account or RawShares (use sshare -P -o Account,User,RawShares)")
    ia, ir, iu = head.index("account"), head.index("rawshares"), head.index("user") if "user" in head else None
    shares: dict[str, float] = {}
    for number, line in rows[1:]:
        f = line.split("|")
        if len(f) != len(head):
            raise SlurmConfError(f"{path}:{number}: expected {len(head)} '|'-separated fields, found {len(f)}")
        if iu is not None and f[iu].strip():
            continue
        account = f[ia].strip()
        if account in ("", "root"):
            continue
        try:
            value = float(f[ir])
        except ValueError:
            raise SlurmConfError(f"{path}:{number}: RawShares is not a number: {f[ir]!r}") from None
        if value < 0:
            raise SlurmConfError(f"{path}:{number}: RawShares must be >= 0, got {f[ir]}")
        shares[account] = value
    return shares


def read_table(path: str | Path, what: str, need: tuple, hint: str) -> tuple[list[str], list[tuple[int, dict]]]:
    """A ``|``-separated dump with a header line (``sacctmgr -P`` / ``--parsable2``): the header's
    names (lower case, spaces dropped: ``Def QOS`` -> ``defqos``) and each non-blank row as (line
    number, {name: value}). A header without the ``need`` columns, or a row with another number of
    fields, is an error naming file and line; ``what``/``hint`` name the file and the command that writes it."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SlurmConfError(f"{path}: cannot read {what} file: {exc.strerror or exc}") from None
    rows = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not rows:
        raise SlurmConfError(f"{path}: empty {what} file")
    head = [h.strip().lower().replace(" ", "") for h in rows[0][1].split("|")]
    missing = [c for c in need if c not in head]
    if missing:
        raise SlurmConfError(f"{path}:{rows[0][0]}: header lacks {' or '.join(missing)} (use {hint})")
    out = []
    for number, line in rows[1:]:
        f = line.split("|")
        if len(f) != len(head):
            raise SlurmConfError(f"{path}:{number}: expected {len(head)} '|'-separated fields, found {len(f)}")
        out.append((number, dict(zip(head, f))))
    return head, out


def read_qos(path: str | Path) -> dict[str, int]:
    """QOS priorities from ``sacctmgr -P show qos`` (at least ``format=Name,Priority``): {name: priority}.
    The same file's limit columns are read by :func:`schedlab.slurm.limits.read_qos_limits`."""
    head, rows = read_table(path, "QOS", ("name",), "sacctmgr -P show qos format=Name,Priority")
    out: dict[str, int] = {}
    for number, row in rows:
        try:
            out[row["name"].strip()] = int(row.get("priority", "") or 0)
        except ValueError:
            raise SlurmConfError(f"{path}:{number}: Priority is not a whole number: {row['priority']!r}") from None
    return out
