"""A small real Slurm on 127.0.0.1, to check the simulator's Slurm policy against (issue 37, item 3).

:class:`SlurmCluster` starts, as a context manager, ``munged`` (with its own key in a temporary
folder), ``slurmctld`` and one ``slurmd`` whose node claims ``cpus`` CPUs
(``SlurmdParameters=config_overrides``, so the machine's real core count does not matter),
``ProctrackType=proctrack/linuxproc``, ``TaskPlugin=task/none``, ``SelectType=select/cons_tres``
with ``CR_CPU``, ports of its own and all state in that folder; on leaving it cancels what is
left, shuts Slurm down, stops munge, kills any process that still carries the harness' marker in
its environment (and lists it in :attr:`SlurmCluster.leftovers`), and removes the folder.
:meth:`SlurmCluster.run` submits a job list (``sbatch -c K -t LIMIT --wrap 'sleep S'``, with
account / partition / QOS where given) at the given offsets, waits until each job is recorded by
``jobcomp/filetxt``, and returns each job's submit, start and end times (:class:`SlurmResult`).

The slurm.conf is the caller's excerpt (the Priority* and SchedulerParameters lines, partitions)
merged with the harness' fixed lines (:func:`merge_conf`): a caller line naming a setting the
harness owns (nodes, ports, paths, plugins) is dropped and listed in ``ignored``, never silently;
every partition is put on the one node.

It lives in the package, not in ``tests/``, because ``benchmarks/experiments/slurm/slurm_conformance.py`` and a
site that wants to check the simulator against its own Slurm version use it too; it needs only
the standard library and numpy, plus the Debian packages ``slurmctld slurmd munge`` (Slurm
22.05) at run time, and root (slurmd launches the jobs).

By default there is no slurmdbd (``AccountingStorageType=accounting_storage/none``): no
associations and no QOS records, so ``--qos`` is accepted but has no effect and Slurm ignores the
age and fair-share weights. ``SlurmCluster(dbd=True)`` (issue 44) adds a slurmdbd backed by a
MariaDB server of its own (``mariadb-install-db`` into the temporary folder, listening on a free
port of 127.0.0.1 only, killed on leaving), registers the cluster, the accounts of ``accounts``
(root a user of each) and the QOS of ``qos`` (name -> priority) with ``sacctmgr`` before
slurmctld starts, so age, QOS and fair-share weights are live. It needs the Debian packages
``slurmdbd mariadb-server`` too (:func:`dbd_unavailable`). Limits that live in the accounting
database (GrpTRES, MaxJobs per association, ...) are set with ``sacctmgr`` steps of the caller
(``sacctmgr=``, and then ``AccountingStorageEnforce`` adds ``limits``), for jobs of local
``users`` (``sbatch --uid``; issue 47).

Resources (issue 47): ``memory`` (RealMemory, MB), ``gpus`` (``Gres=gpu:N``: slurmd 22.05 drops
GPUs whose device files do not exist, so gres.conf's ``File=`` names placeholder files in the
folder; ``AccountingStorageTRES=gres/gpu`` so that sacct shows them) and ``select_params``
(``CR_CPU_Memory`` for memory); a job's ``mem``, ``gpus``, ``exclusive`` and ``user``. With slurmdbd
a result carries sacct's lines with the resource fields and the ``sacctmgr -P show qos/assoc`` dumps.

Servers bind to 127.0.0.1 only: ``CommunicationParameters=NoInAddrAny,NoCtldInAddrAny`` makes
slurmd and slurmctld bind to the address of this host's name instead of every interface, so the
harness refuses to start unless that name resolves to a loopback address (as Debian's
``/etc/hosts`` has it). With ``dbd=True`` MariaDB listens on 127.0.0.1 only, but slurmdbd 22.05
has no setting to bind one address: it listens on every interface (on a free port, munge
authenticated) for the life of the cluster.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedlab.errors import SchedlabError

#: the programs the harness runs; absent ones make :func:`slurm_unavailable` give a reason
PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")
#: the programs ``dbd=True`` needs besides (:func:`dbd_unavailable`)
DBD_PROGRAMS = ("slurmdbd", "sacctmgr", "mariadbd", "mariadb-install-db", "mariadb")
#: the environment variable every process the harness starts carries (value: its folder)
MARKER = "SCHEDLAB_SLURM_HARNESS"
#: name of the one compute node
NODE = "sl1"

#: slurm.conf keys the harness sets itself; a caller's line naming one is dropped and listed as ignored
OWNED_KEYS = frozenset(
    k.lower()
    for k in (
        "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr", "BackupController", "BackupAddr",
        "SlurmctldPort", "SlurmdPort", "AuthType", "CredType", "AuthInfo", "AuthAltTypes",
        "SlurmUser", "SlurmdUser", "StateSaveLocation", "SlurmdSpoolDir", "SlurmctldPidFile",
        "SlurmdPidFile", "SlurmctldLogFile", "SlurmdLogFile", "SlurmctldDebug", "SlurmdDebug",
        "ProctrackType", "TaskPlugin", "SelectType", "SelectTypeParameters", "SlurmdParameters",
        "JobCompType", "JobCompLoc", "AccountingStorageType", "AccountingStorageHost",
        "AccountingStoragePort", "AccountingStoragePass",
        "AccountingStorageEnforce", "JobAcctGatherType", "CommunicationParameters", "MpiDefault",
        "ReturnToService", "Prolog", "Epilog", "PrologSlurmctld", "EpilogSlurmctld", "TaskProlog",
        "TaskEpilog", "GresTypes", "MailProg", "PluginDir",
    )
)
#: settings the harness keeps but Slurm 22.05 does not apply without slurmdbd (priority_multifactor.c
#: init(): "PriorityWeightAge can only be used with SlurmDBD, ignoring"; QOS records live in the database)
NEEDS_DBD = {
    "priorityweightage": "Slurm sets the age weight to 0 without slurmdbd",
    "priorityweightfairshare": "Slurm sets the fair-share weight to 0 without slurmdbd",
    "priorityweightqos": "no QOS records without slurmdbd, so the QOS factor is 0",
}
#: line types that describe nodes: the harness has its own single node
NODE_LINES = frozenset(("nodename", "nodeset", "downnodes", "frontendname", "switchname"))


class SlurmHarnessError(SchedlabError):
    """The real Slurm could not be set up or did not run the jobs (the message names what and where)."""


@dataclass(frozen=True)
class SlurmJob:
    """One job of a conformance case: ``sbatch -c cpus -t limit --wrap 'sleep runtime'``.

    ``submit`` is the offset in seconds from the case's start at which it is submitted; ``limit``
    is the time limit in whole minutes (Slurm keeps limits in minutes); ``runtime`` the seconds
    the job sleeps (a job whose limit is shorter is killed by Slurm: state TIMEOUT).
    """

    cpus: int
    runtime: float
    limit: int
    submit: float = 0.0
    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    #: issue 47: ``--mem`` in MB (None: the partition's DefMemPerCPU), ``--gres=gpu:N``, ``--exclusive``,
    #: and the local user the job is submitted as (``sbatch --uid``; None: root)
    mem: int | None = None
    gpus: int = 0
    exclusive: bool = False
    user: str | None = None

    def problem(self, node_cpus: int) -> str | None:
        """What makes this job unusable on a node of ``node_cpus`` CPUs (it would pend forever), or None."""
        if not 1 <= self.cpus <= node_cpus:
            return f"cpus must be 1..{node_cpus} (the node's CPUs), got {self.cpus}"
        if self.limit < 1:
            return f"limit must be >= 1 minute, got {self.limit}"
        if self.runtime < 0 or self.submit < 0:
            return f"runtime and submit must be >= 0, got {self.runtime:g} and {self.submit:g}"
        return None

    def sbatch_args(self, name: str) -> list[str]:
        args = ["-J", name, "-c", str(self.cpus), "-t", str(self.limit), "-o", "/dev/null", "-e", "/dev/null"]
        for flag, value in (("-p", self.partition), ("-A", self.account), ("-q", self.qos), ("--uid", self.user)):
            if value:
                args += [flag, value]
        if self.mem is not None:
            args.append(f"--mem={self.mem}")
        if self.gpus:
            args.append(f"--gres=gpu:{self.gpus}")
        if self.exclusive:
            args.append("--exclusive")
        return args + ["--wrap", f"sleep {self.runtime:g}"]


@dataclass(frozen=True)
class SlurmResult:
    """What the real Slurm did with a job list, in the order of the list.

    ``submit``, ``start`` and ``end`` are seconds since ``origin`` (the epoch second at which Slurm
    recorded the earliest submission); Slurm records whole seconds.
    """

    job_id: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    state: tuple[str, ...]
    partition: tuple[str, ...]
    account: tuple[str, ...]
    origin: int
    conf: str
    ignored: tuple[str, ...]
    #: when slurmctld became the primary controller (its log's "Running as primary controller"
    #: line, milliseconds), in seconds since ``origin`` (negative: before the first submission); the
    #: anchor of its periodic cycles (simulator option ``controller_start``); nan when not logged
    controller_start: float = float("nan")
    #: when the priority plugin's decay thread started (priority_multifactor.c ``_decay_thread`` takes
    #: its timer from gettimeofday, then ``_read_last_decay_ran`` logs "No last decay (...) to recover"
    #: at info on a fresh StateSaveLocation), in seconds since ``origin``: the anchor of the
    #: PriorityCalcPeriod grid (simulator option ``decay_start``); it starts after "Running as primary
    #: controller" and the accounting registration (controller.c: priority_g_init); nan when not logged
    decay_start: float = float("nan")
    #: with slurmdbd: the jobs as ``TZ=UTC sacct --parsable2 --format SACCT_FORMAT+EXTRA_FIELDS``
    #: prints them (the site's own log for ``schedlab slurm check``); "" without slurmdbd
    sacct: str = ""
    #: each job's submit, start and end to the millisecond, from slurmctld's own log (seconds since
    #: ``origin``; nan where the line is missing, and for cases recorded before these were kept):
    #: see :func:`parse_ctld_log` for which lines and why those moments
    ctld_submit: np.ndarray | None = None
    ctld_start: np.ndarray | None = None
    ctld_end: np.ndarray | None = None
    #: the slurmctld log lines those three were read from (so a recording can be re-read offline)
    ctld_log: str = ""
    #: with slurmdbd (issue 47): ``sacctmgr -P show qos`` and ``sacctmgr -P show assoc`` as printed
    #: after the run (the simulator's --slurm-qos / --slurm-assoc files); "" without slurmdbd
    qos_dump: str = ""
    assoc_dump: str = ""

    def rows(self) -> list[dict]:
        """One dict per job (for a table: ``pandas.DataFrame(result.rows())``)."""
        return [
            {
                "job": i, "job_id": int(self.job_id[i]), "submit": float(self.submit[i]),
                "start": float(self.start[i]), "end": float(self.end[i]), "state": self.state[i],
                "partition": self.partition[i], "account": self.account[i],
            }
            for i in range(len(self.job_id))
        ]


def slurm_unavailable() -> str | None:
    """Why a real Slurm cannot run here (one line), or None when it can."""
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        return f"Slurm harness needs {', '.join(missing)} (Debian: apt-get install slurmctld slurmd munge)"
    if os.geteuid() != 0:
        return "Slurm harness runs slurmd, which launches the jobs, as root; not root here"
    try:
        loopback_address()
    except SlurmHarnessError as exc:
        return str(exc)
    return None


def dbd_unavailable() -> str | None:
    """Why the harness cannot add slurmdbd with MariaDB here (one line), or None when it can."""
    reason = slurm_unavailable()
    if reason:
        return reason
    missing = [p for p in DBD_PROGRAMS if shutil.which(p) is None]
    if missing:
        return f"Slurm harness with slurmdbd needs {', '.join(missing)} (Debian: apt-get install slurmdbd mariadb-server)"
    return None


def loopback_address() -> str:
    """The address this host's name resolves to, which Slurm binds to; it must be a loopback one."""
    host = socket.gethostname().split(".")[0]
    try:
        addr = socket.gethostbyname(host)
    except OSError as exc:
        raise SlurmHarnessError(f"Slurm harness: host name {host!r} does not resolve ({exc})") from None
    if not addr.startswith("127."):
        raise SlurmHarnessError(
            f"Slurm harness: host name {host!r} resolves to {addr}, not a loopback address; "
            f"Slurm would listen there (add '127.0.1.1 {host}' to /etc/hosts)"
        )
    return addr


def _free_ports(addr: str, count: int) -> list[int]:
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((addr, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _key(token: str) -> str:
    """The setting a ``Key=Value`` token names, lower-cased (slurm.conf keys are case-insensitive)."""
    return token.split("=", 1)[0].lower()


def merge_conf(excerpt: str, fixed: list[str], *, source: str = "slurm.conf excerpt", dbd: bool = False) -> tuple[str, tuple[str, ...]]:
    """The slurm.conf text: the harness' ``fixed`` lines, then the caller's ``excerpt`` merged in.

    Kept from the excerpt: every setting the harness does not own (Priority*, SchedulerType,
    SchedulerParameters, PreemptType, OverTimeLimit, ...) and the PartitionName lines, whose
    ``Nodes=`` is replaced by the harness' one node. Dropped and returned in ``ignored`` (one
    entry each, naming ``source:LINE``): settings in :data:`OWNED_KEYS`, node lines, and a
    partition's own ``Nodes=``; also listed, though kept, are non-zero weights that Slurm itself
    does not apply without slurmdbd (:data:`NEEDS_DBD`; not with ``dbd``, the harness' slurmdbd). A default partition ``debug`` holding the node is added when the
    excerpt has none. A line that is not ``Key=Value`` raises ``source:LINE: problem``.
    """
    kept: list[str] = []
    ignored: list[str] = []
    partitions = 0
    for number, raw in enumerate(excerpt.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        bad = [t for t in tokens if "=" not in t or t.startswith("=")]
        if bad:
            raise SlurmHarnessError(f"{source}:{number}: expected Key=Value, got {bad[0]!r}")
        first = _key(tokens[0])
        if first in NODE_LINES:
            ignored.append(f"{source}:{number}: {tokens[0]} (the harness has one node, {NODE})")
            continue
        if first == "partitionname":
            rest = [t for t in tokens[1:] if _key(t) != "nodes"]
            if len(rest) < len(tokens) - 1:
                ignored.append(f"{source}:{number}: Nodes= of {tokens[0]} (every partition is on {NODE})")
            if tokens[0].split("=", 1)[1].lower() != "default":
                partitions += 1
                kept.append(" ".join([tokens[0], f"Nodes={NODE}", *rest]))
            else:
                kept.append(" ".join([tokens[0], *rest]))
            continue
        mine = [t for t in tokens if _key(t) in OWNED_KEYS]
        ignored += [f"{source}:{number}: {t.split('=', 1)[0]} (set by the harness)" for t in mine]
        ignored += [
            f"{source}:{number}: {t.split('=', 1)[0]} ({NEEDS_DBD[_key(t)]})"
            for t in tokens
            if not dbd and _key(t) in NEEDS_DBD and t.split("=", 1)[1] not in ("", "0")
        ]
        rest = [t for t in tokens if t not in mine]
        if rest:
            kept.append(" ".join(rest))
    if not partitions:
        kept.append(f"PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(fixed + ["# --- from the caller's excerpt ---"] + kept) + "\n", tuple(ignored)


_TOKEN = re.compile(r"(\w+)=(\S*)")


def _epoch(stamp: str) -> int:
    """A Slurm time stamp (``2026-11-28T15:43:02``, written in UTC since the harness sets TZ=UTC)."""
    return int(_dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=_dt.timezone.utc).timestamp())


#: slurmctld's log lines (Slurm 22.05, LogTimeFormat iso8601_ms, the default; all at SlurmctldDebug=info)
#: that time a batch job: its submission, its allocation by the main scheduler or by backfill, and
#: its completion (src/slurmctld/proc_req.c _slurm_rpc_submit_batch_job, job_scheduler.c schedule(),
#: plugins/sched/backfill/backfill.c _start_job, job_mgr.c _job_complete)
CTLD_EVENTS = {
    "submit": re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) InitPrio="),
    "start": re.compile(r"\b(?:Allocate|Started) JobId=(\d+) "),
    "end": re.compile(r"_job_complete: JobId=(\d+) done"),
}
#: the decay thread's first line (priority_multifactor.c _read_last_decay_ran, info; a fresh state folder)
DECAY_LINE = r"No last decay \(.*\) to recover"
_CTLD_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)\] (.*)$")


def _stamp_epoch(stamp: str) -> float:
    """A slurmctld log stamp (``2026-11-28T15:43:02.123``, UTC as the harness sets TZ) as epoch seconds."""
    return _dt.datetime.fromisoformat(stamp).replace(tzinfo=_dt.timezone.utc).timestamp()


def parse_ctld_log(text: str, ids) -> tuple[dict[str, np.ndarray], str]:
    """Each of ``ids``' submit, start and end (epoch seconds, to the millisecond) from slurmctld's
    log ``text``, and the lines they were read from.

    The end is the "_job_complete: JobId=N done" line: _job_complete (job_mgr.c, 22.05) calls
    deallocate_nodes(), whose select_g_job_fini() gives the job's CPUs back to the select plugin
    before that line is logged; from then on the scheduler may place other jobs there (the node
    stays COMPLETING until the epilog completes, but with CompleteWait=0, the default,
    job_is_completing() returns false and schedule() does not wait for it, and the completing-node
    bitmap only blocks jobs that ask for that node by name: node_scheduler.c). So start..end is the
    time the job held its CPUs as the scheduler saw it, not the whole seconds sacct prints. The
    first line of each kind counts (a requeued job would have several; the harness has none).
    A job whose line is missing gets nan.
    """
    where = {int(j): k for k, j in enumerate(ids)}
    out = {name: np.full(len(where), np.nan) for name in CTLD_EVENTS}
    kept = []
    for line in text.splitlines():
        m = _CTLD_STAMP.match(line)
        if not m:
            continue
        for name, pattern in CTLD_EVENTS.items():
            e = pattern.search(m.group(2))
            if e and int(e.group(1)) in where:
                k = where[int(e.group(1))]
                if out[name][k] != out[name][k]:
                    out[name][k] = _stamp_epoch(m.group(1))
                kept.append(line)
                break
    return out, "\n".join(kept) + ("\n" if kept else "")


def parse_jobcomp(text: str) -> dict[int, dict[str, str]]:
    """The records of a ``jobcomp/filetxt`` file, by job id (each a dict of its Key=Value fields)."""
    records = {}
    for line in text.splitlines():
        fields = dict(_TOKEN.findall(line))
        if "JobId" in fields:
            records[int(fields["JobId"])] = fields
    return records


@dataclass
class SlurmCluster:
    """A real slurmctld + one slurmd (``cpus`` CPUs) + munged on 127.0.0.1, for a ``with`` block.

    ``conf`` is the caller's slurm.conf excerpt (text); ``source`` names it in messages.
    ``keep=True`` leaves the temporary folder (logs, slurm.conf, jobcomp file) for inspection.
    """

    conf: str = ""
    cpus: int = 4
    source: str = "slurm.conf excerpt"
    keep: bool = False
    start_timeout: float = 30.0
    #: add slurmdbd with a MariaDB of its own (age, QOS and fair-share weights live; issue 44)
    dbd: bool = False
    #: accounts registered with dbd=True (root is a user of each, fair-share 1 each)
    accounts: tuple[str, ...] = ("physics", "chem")
    #: QOS registered with dbd=True: name -> priority ("normal" exists already and is set too)
    qos: dict = field(default_factory=dict)
    #: issue 47, resources: the node's RealMemory in MB (0: not set) and GPUs (Gres=gpu:N, as GRES
    #: on placeholder device files: slurmd 22.05 drops GPUs without a File= that exists, and marks
    #: the node INVAL, "gres/gpu count reported lower than configured"; AccountingStorageTRES=gres/gpu
    #: so that sacct shows them in ReqTRES/AllocTRES); SelectTypeParameters (CR_CPU_Memory for memory)
    memory: int = 0
    gpus: int = 0
    select_params: str = "CR_CPU"
    #: issue 47, limits (dbd=True): local users registered in each account besides root (they must
    #: exist: ``useradd``), and sacctmgr commands run after the accounts and QOS, e.g.
    #: ``("modify", "qos", "normal", "set", "MaxJobsPerUser=2")``; with them,
    #: AccountingStorageEnforce adds ``limits`` (associations,limits,qos)
    users: tuple[str, ...] = ()
    sacctmgr: tuple[tuple[str, ...], ...] = ()
    #: slurmctld's SlurmctldDebug (slurm.conf(5) levels: info, verbose, debug, debug2, ...): the millisecond
    #: lines :func:`parse_ctld_log` reads are all at "info" (the default); a diagnostic run raises it (with
    #: ``DebugFlags=Priority`` in ``conf``: "priority for job N is now P" at debug2) and ``keep=True``
    ctld_debug: str = "info"
    folder: Path | None = field(default=None, init=False)
    conf_text: str = field(default="", init=False)
    ignored: tuple[str, ...] = field(default=(), init=False)
    #: processes that were still alive after shutdown and had to be killed: "pid cmdline"
    leftovers: list[str] = field(default_factory=list, init=False)
    _procs: dict = field(default_factory=dict, init=False)
    _env: dict = field(default_factory=dict, init=False)
    _seen: set = field(default_factory=set, init=False)  # pids of marked processes met while running
    _reaper: int | None = field(default=None, init=False)  # this process' subreaper flag before

    # -- life cycle -------------------------------------------------------------------------
    def __enter__(self) -> SlurmCluster:
        reason = dbd_unavailable() if self.dbd else slurm_unavailable()
        if reason:
            raise SlurmHarnessError(reason)
        if self.cpus < 1:
            raise SlurmHarnessError(f"Slurm harness: cpus must be >= 1, got {self.cpus}")
        self.folder = Path(tempfile.mkdtemp(prefix="schedlab-slurm-"))
        self._reaper = _subreaper(True)
        try:
            self._start()
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stop()

    def _start(self) -> None:
        d = self.folder
        assert d is not None
        d.chmod(0o711)  # munged wants its socket's folders searchable by all
        for sub in ("munge", "state", "spool", "log", "db"):
            (d / sub).mkdir(mode=0o711 if sub == "munge" else 0o700)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        addr = loopback_address()
        host = socket.gethostname().split(".")[0]
        ctld_port, slurmd_port, dbd_port, db_port = _free_ports(addr, 4)
        sock = d / "munge" / "munge.socket"
        fixed = [
            "# written by schedlab.slurm.harness: a one-node Slurm on the loopback address",
            "ClusterName=schedlab",
            f"SlurmctldHost={host}({addr})",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={sock}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'log' / 'slurmd.log'}",
            f"SlurmctldDebug={self.ctld_debug}",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            f"SelectTypeParameters={self.select_params}",
            *(["GresTypes=gpu", "AccountingStorageTRES=gres/gpu"] if self.gpus else []),
            "SlurmdParameters=config_overrides",
            "JobAcctGatherType=jobacct_gather/none",
            *(["AccountingStorageType=accounting_storage/slurmdbd", f"AccountingStorageHost={addr}",
               f"AccountingStoragePort={dbd_port}",
               f"AccountingStoragePass={sock}",  # the munge socket for slurmdbd connections (slurm.conf(5))
               "AccountingStorageEnforce=associations," + ("limits," if self.sacctmgr else "") + "qos"]
              if self.dbd else ["AccountingStorageType=accounting_storage/none"]),
            "JobCompType=jobcomp/filetxt",
            f"JobCompLoc={d / 'jobcomp.txt'}",
            "MpiDefault=none",
            "ReturnToService=2",
            f"NodeName={NODE} NodeAddr={addr} NodeHostname={host} CPUs={self.cpus}"
            + (f" RealMemory={self.memory}" if self.memory else "") + (f" Gres=gpu:{self.gpus}" if self.gpus else "")
            + " State=UNKNOWN",
        ]
        if self.gpus:  # gres.conf beside slurm.conf, its File= on placeholder files (see ``gpus``)
            (d / "dev").mkdir()
            for k in range(self.gpus):
                (d / "dev" / f"gpu{k}").touch()
            files = f"{d / 'dev'}/gpu[0-{self.gpus - 1}]" if self.gpus > 1 else str(d / "dev" / "gpu0")
            (d / "gres.conf").write_text(f"NodeName={NODE} Name=gpu File={files}\n")
        self.conf_text, self.ignored = merge_conf(self.conf, fixed, source=self.source, dbd=self.dbd)
        conf_path = d / "slurm.conf"
        conf_path.write_text(self.conf_text)
        self._env = {
            **os.environ, "SLURM_CONF": str(conf_path), "TZ": "UTC", MARKER: str(d),
        }
        for var in [v for v in self._env if v.startswith(("SLURM_", "SBATCH_", "SQUEUE_")) and v != "SLURM_CONF"]:
            del self._env[var]  # a harness run inside a Slurm job must not inherit that job's settings
        self._spawn("munged", ["munged", "-F", f"--socket={sock}", f"--key-file={key}",
                               f"--pid-file={d / 'munge' / 'munged.pid'}", f"--log-file={d / 'log' / 'munged.log'}",
                               f"--seed-file={d / 'munge' / 'munged.seed'}"])
        self._until(lambda: sock.exists(), "munged to create its socket", "munged")
        if self.dbd:
            self._start_dbd(host, addr, dbd_port, db_port, sock)
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(conf_path)])
        self._until(lambda: self._quiet(["scontrol", "ping"]).endswith("UP"), "slurmctld to answer", "slurmctld")
        self._spawn("slurmd", ["slurmd", "-D", "-N", NODE, "-f", str(conf_path)])
        self._until(
            lambda: set(self._quiet(["sinfo", "-h", "-N", "-n", NODE, "-o", "%T"]).split()) == {"idle"},  # a line per partition
            f"node {NODE} to become idle", "slurmd",
        )

    def _start_dbd(self, host: str, addr: str, dbd_port: int, db_port: int, sock: Path) -> None:
        """MariaDB in the folder (127.0.0.1:db_port), slurmdbd on dbd_port, and the associations."""
        d = self.folder
        assert d is not None
        data = d / "db" / "data"
        shutil.chown(d / "db", "mysql", "mysql")
        done = subprocess.run(
            ["mariadb-install-db", "--user=mysql", f"--datadir={data}", "--auth-root-authentication-method=normal",
             "--skip-test-db"], env=self._env, capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise SlurmHarnessError(f"Slurm harness: mariadb-install-db failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
        db_sock = d / "db" / "mysqld.sock"
        self._spawn("mariadbd", ["mariadbd", "--no-defaults", "--user=mysql", f"--datadir={data}", f"--socket={db_sock}",
                                 "--bind-address=127.0.0.1", f"--port={db_port}", f"--pid-file={d / 'db' / 'mariadbd.pid'}",
                                 "--innodb-buffer-pool-size=32M", "--skip-name-resolve"])
        self._until(lambda: db_sock.exists(), "mariadbd to create its socket", "mariadbd")
        sql = ("CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'schedlab'; "
               "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;")
        self._until(lambda: self._quiet(["mariadb", f"--socket={db_sock}", "-u", "root", "-e", "SELECT 1"]) != "",
                    "mariadbd to answer", "mariadbd")
        done = subprocess.run(["mariadb", f"--socket={db_sock}", "-u", "root", "-e", sql], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise SlurmHarnessError(f"Slurm harness: creating the slurm_acct_db user failed: {done.stderr.strip()}")
        conf = d / "slurmdbd.conf"
        conf.write_text("\n".join([
            "# written by schedlab.slurm.harness", "AuthType=auth/munge", f"AuthInfo=socket={sock}",
            f"DbdHost={host}", f"DbdAddr={addr}", f"DbdPort={dbd_port}", "SlurmUser=root",
            f"LogFile={d / 'log' / 'slurmdbd.log'}", f"PidFile={d / 'slurmdbd.pid'}", "DebugLevel=info",
            "StorageType=accounting_storage/mysql", "StorageHost=127.0.0.1", f"StoragePort={db_port}",
            "StorageUser=slurm", "StoragePass=schedlab", "StorageLoc=slurm_acct_db", "",
        ]))
        conf.chmod(0o600)
        self._spawn("slurmdbd", ["slurmdbd", "-D"])  # reads slurmdbd.conf beside $SLURM_CONF
        mgr = ["sacctmgr", "-i"]
        self._until(lambda: self._ok(mgr + ["list", "cluster"]), "slurmdbd to answer", "slurmdbd")
        steps = [["add", "cluster", "schedlab"]]
        if self.accounts:
            steps += [["add", "account", ",".join(self.accounts), "cluster=schedlab"],
                      ["add", "user", "root", f"account={','.join(self.accounts)}", "cluster=schedlab"]]
        for name, prio in self.qos.items():
            if name != "normal":
                steps.append(["add", "qos", name])
            steps.append(["modify", "qos", name, "set", f"priority={int(prio)}"])
        if self.users and self.accounts:
            steps.append(["add", "user", ",".join(self.users), f"account={','.join(self.accounts)}", "cluster=schedlab"])
        if self.qos:
            names = ",".join(dict.fromkeys(["normal", *self.qos]))
            steps.append(["modify", "user", ",".join(["root", *self.users]), "set", f"qos={names}"])
        steps += [list(step) for step in self.sacctmgr]
        for step in steps:
            done = subprocess.run(mgr + step, env=self._env, capture_output=True, text=True, timeout=60)
            if done.returncode != 0 and "Nothing new added" not in done.stdout + done.stderr:
                raise SlurmHarnessError(f"Slurm harness: sacctmgr {' '.join(step)} failed: {(done.stderr or done.stdout).strip()}")

    def _ok(self, argv: list[str]) -> bool:
        try:
            return subprocess.run(argv, env=self._env, capture_output=True, timeout=10).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def _spawn(self, name: str, argv: list[str]) -> None:
        assert self.folder is not None
        out = open(self.folder / "log" / f"{name}.out", "wb")
        self._procs[name] = subprocess.Popen(
            argv, env=self._env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=self.folder, start_new_session=True,
        )
        out.close()

    def _quiet(self, argv: list[str], timeout: float = 10.0) -> str:
        try:
            done = subprocess.run(argv, env=self._env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    def _until(self, ready, what: str, daemon: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            dead = [n for n, p in self._procs.items() if p.poll() is not None]
            if dead:
                raise SlurmHarnessError(f"Slurm harness: {dead[0]} exited while waiting for {what}; {self._tail(dead[0])}")
            if ready():
                return
            time.sleep(0.2)
        raise SlurmHarnessError(f"Slurm harness: timed out after {self.start_timeout:g} s waiting for {what}; {self._tail(daemon)}")

    def _tail(self, daemon: str) -> str:
        """The last line a daemon logged (its log file, else what it wrote to its stderr)."""
        assert self.folder is not None
        self.keep = True  # keep the logs the message points to
        for path in (self.folder / "log" / f"{daemon}.log", self.folder / "log" / f"{daemon}.out"):
            lines = path.read_text(errors="replace").strip().splitlines() if path.exists() else []
            if lines:
                return f"last line of {path}: {lines[-1]}"
        return f"{daemon} logged nothing in {self.folder / 'log'}"

    def _stop(self) -> None:
        if self.folder is None:
            return
        self._seen.update(pid for pid, _ in marked_processes(str(self.folder)))
        ctld = self._procs.get("slurmctld")
        if ctld is not None and ctld.poll() is None:
            ids = self._quiet(["squeue", "-h", "-o", "%i"]).split()
            if ids:
                self._quiet(["scancel", *ids])
                deadline = time.monotonic() + 15
                while self._quiet(["squeue", "-h", "-o", "%i"]) and time.monotonic() < deadline:
                    time.sleep(0.3)
            self._quiet(["scontrol", "shutdown"])
        for name in ("slurmd", "slurmctld", "slurmdbd", "mariadbd", "munged"):
            proc = self._procs.get(name)
            if proc is None:
                continue
            if name in ("munged", "slurmdbd", "mariadbd") and proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
                self.leftovers.append(f"{proc.pid} {name} (did not stop in 20 s)")
        self.leftovers += kill_marked(str(self.folder))
        self._reap()
        if self._reaper is not None:
            _subreaper(bool(self._reaper))
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _reap(self) -> None:
        """Reap the orphans of Slurm (slurmstepd forks) that were reparented to this process.

        slurmd's job steps are forked away from it; as a child subreaper this process inherits
        them when they end, so they are reaped here instead of lingering as zombies under init.
        Only zombies seen carrying the marker, or named slurm*/munge*, are reaped, never another
        child of this process. Returns after two quiet looks in a row (or 5 s).
        """
        deadline = time.monotonic() + 5
        quiet = 0
        while quiet < 2 and time.monotonic() < deadline:
            ours = [pid for pid, name in _zombie_children() if pid in self._seen or name.startswith(("slurm", "munge"))]
            for pid in ours:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            quiet = 0 if ours else quiet + 1
            time.sleep(0.2)

    # -- jobs -------------------------------------------------------------------------------
    def run(self, jobs: list[SlurmJob], *, timeout: float | None = None) -> SlurmResult:
        """Submit ``jobs`` at their offsets, wait until all are finished, return their times.

        ``timeout`` (seconds from the first submission) defaults to the last offset plus every
        job's limit run one after the other, plus two minutes.
        """
        for i, job in enumerate(jobs):
            problem = job.problem(self.cpus)
            if problem:
                raise SlurmHarnessError(f"Slurm harness: job {i}: {problem}")
        if not jobs:
            raise SlurmHarnessError("Slurm harness: no jobs to run")
        if self.folder is None:
            raise SlurmHarnessError("Slurm harness: run() needs the cluster started (use it in a with block)")
        if timeout is None:
            timeout = max(j.submit for j in jobs) + sum(60 * j.limit for j in jobs) + 120
        order = sorted(range(len(jobs)), key=lambda i: jobs[i].submit)
        ids = [0] * len(jobs)
        t0 = time.monotonic()
        for i in order:
            time.sleep(max(0.0, t0 + jobs[i].submit - time.monotonic()))
            argv = ["sbatch", "--parsable", "-D", str(self.folder), *jobs[i].sbatch_args(f"j{i}")]
            done = subprocess.run(argv, env=self._env, capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                msg = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
                raise SlurmHarnessError(f"Slurm harness: job {i} ({' '.join(argv[3:])}) refused: {msg}")
            ids[i] = int(done.stdout.strip().split(";")[0])
        comp = self.folder / "jobcomp.txt"
        while True:
            self._seen.update(pid for pid, _ in marked_processes(str(self.folder)))
            records = parse_jobcomp(comp.read_text()) if comp.exists() else {}
            if all(j in records for j in ids):
                break
            if time.monotonic() - t0 > timeout:
                missing = [i for i, j in enumerate(ids) if j not in records]
                raise SlurmHarnessError(
                    f"Slurm harness: jobs {missing} not finished {timeout:g} s after the first submission; "
                    f"queue: {self._quiet(['squeue', '-h', '-o', '%i %T %r'])!r}"
                )
            time.sleep(0.5)
        recs = [records[j] for j in ids]
        sacct = self._sacct(ids) if self.dbd else ""
        dumps = [self._quiet(["sacctmgr", "-P", "show", what], timeout=30) + "\n" if self.dbd else "" for what in ("qos", "assoc")]
        submit = np.array([_epoch(r["SubmitTime"]) for r in recs], dtype=np.int64)
        origin = int(submit.min())
        log = self.folder / "log" / "slurmctld.log"
        ctld, ctld_log = parse_ctld_log(log.read_text(errors="replace") if log.exists() else "", ids)
        return SlurmResult(
            job_id=np.array(ids, dtype=np.int64),
            submit=(submit - origin).astype(np.float64),
            start=np.array([_epoch(r["StartTime"]) - origin for r in recs], dtype=np.float64),
            end=np.array([_epoch(r["EndTime"]) - origin for r in recs], dtype=np.float64),
            state=tuple(r.get("JobState", "") for r in recs),
            partition=tuple(r.get("Partition", "") for r in recs),
            account=tuple(r.get("Account", "") for r in recs),
            origin=origin,
            conf=self.conf_text,
            ignored=self.ignored,
            controller_start=self.controller_epoch() - origin,
            decay_start=self.controller_epoch(DECAY_LINE) - origin,
            sacct=sacct,
            ctld_submit=ctld["submit"] - origin, ctld_start=ctld["start"] - origin, ctld_end=ctld["end"] - origin,
            ctld_log=ctld_log, qos_dump=dumps[0], assoc_dump=dumps[1],
        )

    def _sacct(self, ids: list[int]) -> str:
        """sacct's lines for ``ids`` once slurmdbd has every one of them finished (it is told asynchronously)."""
        from schedlab.slurm.check import EXTRA_FIELDS
        from schedlab.workload.sacct import SACCT_RESOURCES_FORMAT

        # (sacct 22.05 has no Restarts field: "Invalid field requested")
        fmt = ",".join(dict.fromkeys([*SACCT_RESOURCES_FORMAT.split(","), *(f for f in EXTRA_FIELDS if f != "Restarts")]))
        argv = ["sacct", "--allusers", "--parsable2", "-X", "--format", fmt, "-j", ",".join(map(str, ids))]
        deadline = time.monotonic() + 120
        while True:
            text = self._quiet(argv, timeout=30)
            lines = text.splitlines()[1:]
            done = [ln for ln in lines if ln.split("|")[fmt.split(",").index("State")] not in ("PENDING", "RUNNING")]
            if len(done) >= len(ids):
                return text + "\n"
            if time.monotonic() > deadline:
                raise SlurmHarnessError(f"Slurm harness: slurmdbd has {len(done)} of {len(ids)} jobs finished 120 s after "
                                        f"slurmctld; sacct {' '.join(argv[1:])!r} printed {len(lines)} lines")
            time.sleep(1.0)

    def controller_epoch(self, line: str = "Running as primary controller") -> float:
        """The epoch time (ms) of slurmctld's first log line containing ``line`` (a regular expression;
        by default "Running as primary controller"); nan if absent."""
        path = self.folder / "log" / "slurmctld.log" if self.folder is not None else None
        text = path.read_text(errors="replace") if path is not None and path.exists() else ""
        m = re.search(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)\] .*?" + line, text, re.M)
        if not m:
            return float("nan")
        return _stamp_epoch(m.group(1))


def _subreaper(on: bool) -> int | None:
    """Make this process a child subreaper (Linux prctl) or not; return the previous flag (None: unsupported)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        before = ctypes.c_int(0)
        if libc.prctl(37, ctypes.byref(before), 0, 0, 0) != 0:  # PR_GET_CHILD_SUBREAPER
            return None
        if libc.prctl(36, int(on), 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
            return None
        return before.value
    except (OSError, AttributeError):
        return None


def _zombie_children() -> list[tuple[int, str]]:
    """(pid, name) of this process' children that have exited and are not reaped yet."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if rest[0] == "Z" and int(rest[1]) == me:
            found.append((int(entry.name), name))
    return found


def marked_processes(folder: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment carries ``MARKER=folder``."""
    found = []
    needle = f"{MARKER}={folder}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            env = (entry / "environ").read_bytes().split(b"\0")
            if needle in env:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                found.append((int(entry.name), cmd))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return found


def kill_marked(folder: str) -> list[str]:
    """Kill (SIGKILL, by pid) the processes :func:`marked_processes` finds; return what was killed."""
    killed = []
    for pid, cmd in marked_processes(folder):
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(f"{pid} {cmd}")
        except ProcessLookupError:
            continue
    return killed


def run_case(jobs: list[SlurmJob], conf: str = "", *, cpus: int = 4, source: str = "slurm.conf excerpt") -> SlurmResult:
    """Start a cluster, run ``jobs`` through it, stop it: the one-call form of :class:`SlurmCluster`."""
    with SlurmCluster(conf=conf, cpus=cpus, source=source) as cluster:
        return cluster.run(jobs)


def save_case(path: str | Path, name: str, jobs: list[SlurmJob], sim_conf: str, result: SlurmResult, *, cpus: int) -> None:
    """Write a recorded case as JSON (the jobs, the simulator's slurm.conf, what the real Slurm did,
    its anchors, its sacct lines), so the suite and the report re-check it offline (issue 44)."""
    import json
    from dataclasses import asdict

    data = {
        "name": name, "cpus": cpus, "jobs": [asdict(j) for j in jobs], "sim_conf": sim_conf,
        "harness_conf": result.conf, "ignored": list(result.ignored), "origin": result.origin,
        "controller_start": None if result.controller_start != result.controller_start else round(result.controller_start, 3),
        **({} if result.decay_start != result.decay_start else {"decay_start": round(result.decay_start, 3)}),
        "job_id": result.job_id.tolist(), "submit": result.submit.tolist(), "start": result.start.tolist(),
        "end": result.end.tolist(), "state": list(result.state), "partition": list(result.partition),
        "account": list(result.account), "sacct": result.sacct,
    }
    if result.ctld_submit is not None:  # milliseconds from slurmctld's log (None where a line was missing)
        for key in ("ctld_submit", "ctld_start", "ctld_end"):
            data[key] = [None if x != x else round(float(x), 3) for x in getattr(result, key)]
        data["ctld_log"] = result.ctld_log
    if result.qos_dump or result.assoc_dump:  # (issue 47: the limits the run had)
        data["qos_dump"], data["assoc_dump"] = result.qos_dump, result.assoc_dump
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def load_case(path: str | Path) -> tuple[str, list[SlurmJob], str, SlurmResult, int]:
    """(name, jobs, simulator slurm.conf, result, cpus) of a case :func:`save_case` wrote."""
    import json

    try:
        d = json.loads(Path(path).read_text())
        jobs = [SlurmJob(**j) for j in d["jobs"]]
        cs = d["controller_start"]
        result = SlurmResult(
            job_id=np.array(d["job_id"], dtype=np.int64), submit=np.array(d["submit"], float),
            start=np.array(d["start"], float), end=np.array(d["end"], float), state=tuple(d["state"]),
            partition=tuple(d["partition"]), account=tuple(d["account"]), origin=int(d["origin"]),
            conf=d["harness_conf"], ignored=tuple(d["ignored"]),
            controller_start=float("nan") if cs is None else float(cs), sacct=d.get("sacct", ""),
            decay_start=float(d.get("decay_start", float("nan"))),
            **{key: np.array([np.nan if x is None else x for x in d[key]], float)
               for key in ("ctld_submit", "ctld_start", "ctld_end") if key in d},
            ctld_log=d.get("ctld_log", ""), qos_dump=d.get("qos_dump", ""), assoc_dump=d.get("assoc_dump", ""),
        )
        return d["name"], jobs, d["sim_conf"], result, int(d["cpus"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SlurmHarnessError(f"{path}: not a recorded case ({type(exc).__name__}: {exc})") from None
