"""Association and QOS limits of ``--policy slurm`` (issue 47, item 3): Slurm 22.05's accounting
policy (src/slurmctld/acct_policy.c) as counters in numpy arrays.

**Reading the limits.** ``sacctmgr -P show qos`` (``--slurm-qos``: the same file that gives the
QOS priorities) and ``sacctmgr -P show assoc`` (``--slurm-assoc``) dumps, ``|``-separated with
their header line, read by the columns sacctmgr prints (other columns are ignored):

- QOS: ``Name``, ``GrpJobs``, ``GrpTRES``, ``MaxJobsPU``, ``MaxSubmitPU``, ``MaxTRESPU``,
  ``MaxTRES`` (per job), ``MaxWall`` (also their long names, ``MaxJobsPerUser`` ...);
- associations: ``Account``, ``User``, ``Partition``, ``GrpJobs``, ``GrpTRES``, ``MaxJobs``,
  ``MaxSubmit``, ``MaxTRES`` (per job), ``MaxWall``, ``Def QOS``.

TRES limits read ``cpu=``, ``mem=`` (MB, units as sacct's) and ``gres/gpu=``; an empty field is no
limit. A malformed value or line is one error naming file, line and field.

**Which job is under which limit.** A job's user is the trace's user (its name from a converted
sacct log's ``SchedlabUsers:`` header line, else the number), its account the policy's account
(``account_from``), its QOS the trace's QOS column (SWF field 16 named by ``SchedlabQOS:``), else its
association's ``Def QOS``, else ``normal`` (Slurm's default QOS). Association rows: a row with a User
is that user's association in its Account (optionally only in its Partition); a row without one is
the account's: its Grp limits count all the account's jobs together, its Max limits are the default
of each user of the account that has no row of their own (sacctmgr: limits are inherited down the
association tree). The ``root`` account's row is skipped.

**Counters.** Each limit over a group of jobs is one counter: its cap, the amount in use, the pending
reason Slurm gives (``QOSMaxJobsPerUserLimit``, ``AssocGrpCpuLimit``, ...) and when it is checked:

- ``pre`` (acct_policy_job_runnable_pre_select: GrpJobs, MaxJobs, MaxJobsPU): the job is skipped by
  the main scheduler (job_scheduler.c ``_schedule``: ``continue``, its partition not failed) and by
  backfill (backfill.c ``_attempt_backfill``: ``continue``, no reservation);
- ``post`` (acct_policy_job_runnable_post_select: GrpTRES, MaxTRESPU): select_nodes returns
  ESLURM_ACCOUNTING_POLICY (replacing a ``nodes busy``), so the job is skipped as above, except with
  ``SchedulerParameters=assoc_limit_stop``: the main scheduler then fails the job's partition
  ("potentially starve this job"), and backfill neither skips the job before testing it nor checks
  the limit before reserving, so the job keeps a reservation (read here: the reservation backfill
  gives a job that cannot start now; Slurm guesses the start as "after the next job ends (or in 5
  minutes)");
- ``submit`` (acct_policy_validate: MaxSubmitPU, MaxSubmit): counted from submission to end; a
  submission over the limit is rejected by Slurm ("Job violates accounting/QOS policy"), so a trace
  whose users went over it cannot have run under these limits: the run stops with an error naming
  the job (read at simulated time, since the count depends on the schedule).

The order of the counters is Slurm's order of checks (every ``pre`` limit before any ``post`` one;
within each, the QOS before the association, the user's association before its account), so the
reason recorded is the first limit found, as Slurm sets it.

Per-job limits are read before the run: ``MaxWall`` is the limit of a job without one (min with its
partition's), and a job whose limit is over ``MaxWall`` or whose CPUs are over ``MaxTRES`` cpu would be
held for good (``QOSMaxWallDurationPerJobLimit``, ...: an error naming the job, or with
``--slurm-option over_max_wall=clamp`` its limit cut to MaxWall).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._config import njit
from ..errors import WorkloadError
from .conf import SlurmConfError, read_table

#: pending reasons (slurm_protocol_defs.c job_reason_string); a job's code is 1 + the index, 0 none
REASONS = ("QOSGrpJobsLimit", "QOSMaxJobsPerUserLimit", "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpGRES",
           "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxGRESPerUser", "QOSMaxSubmitJobPerUserLimit",
           "AssocGrpJobsLimit", "AssocMaxJobsLimit", "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpGRES",
           "AssocMaxSubmitJobLimit", "QOSMaxWallDurationPerJobLimit", "AssocMaxWallDurationPerJobLimit",
           "QOSMaxCpuPerJobLimit", "AssocMaxCpuPerJobLimit")
CODE = {name: k + 1 for k, name in enumerate(REASONS)}
#: LC rows: cap, amount in use, reason code, kind
L_CAP, L_USED, L_CODE, L_KIND = 0, 1, 2, 3
KIND_PRE, KIND_POST, KIND_SUBMIT = 0, 1, 2
_TRES = ("cpu", "mem", "gres/gpu")


@dataclass(frozen=True)
class Limits:
    """The limits of one QOS or association row (None: no limit); TRES limits as {cpu, mem, gres/gpu: value}."""

    grp_jobs: int | None = None
    grp_tres: dict = field(default_factory=dict)
    max_jobs: int | None = None  # QOS MaxJobsPU; association MaxJobs
    max_submit: int | None = None  # QOS MaxSubmitPU; association MaxSubmit
    max_tres_pu: dict = field(default_factory=dict)  # QOS MaxTRESPU
    max_tres: dict = field(default_factory=dict)  # per job
    max_wall: float | None = None  # seconds

    def any(self) -> bool:
        return any(v not in (None, {}) for v in self.__dict__.values())


@dataclass(frozen=True)
class Assoc:
    """One ``sacctmgr show assoc`` row: account, user ('' for the account's own row), partition ('' all)."""

    account: str
    user: str
    partition: str
    def_qos: str
    limits: Limits


@dataclass(frozen=True)
class SiteLimits:
    """The limits of a site: QOS name -> :class:`Limits`, and the association rows."""

    qos: dict = field(default_factory=dict)
    assoc: tuple = ()

    def any(self) -> bool:
        return any(q.any() for q in self.qos.values()) or any(a.limits.any() for a in self.assoc)


_QOS_COLS = {"grpjobs": "grp_jobs", "grptres": "grp_tres", "maxjobspu": "max_jobs", "maxjobsperuser": "max_jobs",
             "maxsubmitpu": "max_submit", "maxsubmitjobsperuser": "max_submit", "maxsubmitjobspu": "max_submit",
             "maxtrespu": "max_tres_pu", "maxtresperuser": "max_tres_pu", "maxtres": "max_tres",
             "maxtresperjob": "max_tres", "maxwall": "max_wall", "maxwalldurationperjob": "max_wall"}
_ASSOC_COLS = {"grpjobs": "grp_jobs", "grptres": "grp_tres", "maxjobs": "max_jobs", "maxsubmit": "max_submit",
               "maxsubmitjobs": "max_submit", "maxtres": "max_tres", "maxtresperjob": "max_tres",
               "maxwall": "max_wall", "maxwalldurationperjob": "max_wall"}


def _limits(path, number: int, row: dict, cols: dict) -> Limits:
    """The :class:`Limits` of one parsed row (header names lower-case, spaces dropped)."""
    from ..workload.accounting import parse_duration
    from ..workload.resources import parse_tres

    out: dict = {}
    for col, name in cols.items():
        text = row.get(col, "").strip()
        if not text or name in out:
            continue
        try:
            if name in ("grp_tres", "max_tres_pu", "max_tres"):
                tres = parse_tres(text)
                out[name] = {k: v for k, v in tres.items() if k in _TRES}
            elif name == "max_wall":
                out[name] = parse_duration(text)
            else:
                if not text.isdigit():
                    raise ValueError(f"not a whole number >= 0: {text[:30]!r}")
                out[name] = int(text)
        except ValueError as exc:
            raise SlurmConfError(f"{path}:{number}: cannot read {col}: {exc}") from None
    return Limits(**out)


def read_qos_limits(path: str | Path) -> dict[str, Limits]:
    """{QOS name: :class:`Limits`} of a ``sacctmgr -P show qos`` dump (module docstring)."""
    head, rows = read_table(path, "QOS", ("name",), "sacctmgr -P show qos")
    return {row["name"].strip(): _limits(path, number, row, _QOS_COLS) for number, row in rows}


def read_assoc(path: str | Path) -> SiteLimits:
    """The association rows of a ``sacctmgr -P show assoc`` dump (module docstring)."""
    head, rows = read_table(path, "association", ("account",), "sacctmgr -P show assoc")
    out = []
    for number, row in rows:
        account = row["account"].strip()
        if not account or account == "root":
            continue
        out.append(Assoc(account, row.get("user", "").strip(), row.get("partition", "").strip(),
                         row.get("defqos", "").strip(), _limits(path, number, row, _ASSOC_COLS)))
    return SiteLimits(assoc=tuple(out))


def load_limits(qos=None, assoc=None) -> SiteLimits | None:
    """The :class:`SiteLimits` of a QOS dump and an association dump (either None); None when neither sets a limit."""
    out = SiteLimits(qos=read_qos_limits(qos) if qos is not None else {},
                     assoc=read_assoc(assoc).assoc if assoc is not None else ())
    return out if out.any() or assoc is not None else None


# ----------------------------------------------------------------------------- building the counters
def allocated_mem(RES3, part_nodes: np.ndarray, part: np.ndarray) -> np.ndarray | None:
    """Each job's memory (MB) as Slurm's ``mem`` TRES limits count it when the run models memory
    (CR_*_Memory: the resource path's rows ``RES3`` of :func:`schedlab.slurm.policy.resource_arrays`);
    None otherwise (the limits then count the trace's request, :func:`_job_tres`).

    Slurm 22.05 counts the memory after the defaults, not the request: job_mgr.c
    ``_validate_job_desc`` sets a job without ``--mem``/``--mem-per-cpu`` to DefMemPerCPU (the
    partition's first), else the global DefMemPerCPU/DefMemPerNode; ``job_get_tres_mem`` makes that
    the job's ``tres_req_cnt[TRES_ARRAY_MEM]`` (per CPU x CPUs, else per node x nodes; ``--mem=0``
    and no default: ``_mem_per_node_part``, the partition's first node's RealMemory, per node), which
    acct_policy.c checks before the start; from the start it counts ``tres_alloc_cnt`` (the sum of the
    nodes' ``memory_allocated``). Here: what the resource path allocates, its per-node memory
    ``R_MEM`` x its nodes ``R_NODES`` (``R_MEM`` -1, the node's whole memory: the partition's first
    node's ``RealMemory``, as ``_mem_per_node_part``; exact when the partition's nodes are alike).
    Under DefMemPerCPU this is DefMemPerCPU x the CPUs whenever the nodes divide the CPUs evenly
    (else the rounded-up share per node, the resource path's even split, spec section 14)."""
    from .layout import C_MEM, R_MEM, R_NODES

    JR, NR, _ = RES3
    if JR.shape[1] == 0 or not (NR[C_MEM] > 0).any():
        return None
    first = NR[C_MEM][np.argmax(part_nodes > 0, axis=1)][part]
    return np.where(JR[R_MEM] >= 0.0, JR[R_MEM], first) * JR[R_NODES]


def _job_tres(w, cpus: np.ndarray, mem: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each job's amount in the TRES the limits read: CPUs, memory (MB: ``mem``, the memory the run
    allocates (:func:`allocated_mem`), else the trace's request, 0 unknown), GPUs (0 unknown)."""
    from ..workload.resources import resources_of

    res = resources_of(w)
    n = len(w)
    if mem is None:
        mem = np.maximum(res.req_mem, 0.0) if res is not None else np.zeros(n)
    gpu = np.maximum(res.req_gpus, 0).astype(np.float64) if res is not None else np.zeros(n)
    return {"cpu": cpus.astype(np.float64), "mem": mem, "gres/gpu": gpu}


class _Counters:
    """Counters being built: each a (cap, reason, kind) and, per job, the amount it adds (slots in check order)."""

    def __init__(self, n: int):
        self.n = n
        self.rows: list[tuple[float, int, int]] = []
        self.slots: list[tuple[np.ndarray, np.ndarray]] = []  # per slot: counter index per job (-1), amount per job

    def add(self, jobs: np.ndarray, keys: np.ndarray, cap, reason: str, kind: int, amount: np.ndarray) -> None:
        """A counter per distinct key among ``jobs`` (a mask), capped at ``cap``, into one new slot."""
        if cap is None or not jobs.any():
            return
        idx = np.full(self.n, -1, dtype=np.int64)
        uniq, inv = np.unique(keys[jobs], return_inverse=True)
        base = len(self.rows)
        idx[jobs] = base + inv
        self.rows.extend([(float(cap), CODE[reason], kind)] * len(uniq))
        self.slots.append((idx, np.where(jobs, amount, 0.0)))

    def arrays(self):
        n, M, K = self.n, len(self.slots), len(self.rows)
        LJ = np.full((M, n), -1, dtype=np.int64)
        LA = np.zeros((M, n))
        for m, (idx, amt) in enumerate(self.slots):
            LJ[m], LA[m] = idx, amt
        LC = np.zeros((4, K))
        for c, (cap, code, kind) in enumerate(self.rows):
            LC[L_CAP, c], LC[L_CODE, c], LC[L_KIND, c] = cap, code, kind
        return LJ, LA, LC


def _names(w, label: str, key: np.ndarray) -> np.ndarray:
    """Each job's name of ``key`` (the header's ``Schedlab<label>:`` names, else the number)."""
    from ..workload.accounting import header_names as _header_names

    listed = _header_names(w, label)
    uniq, inv = np.unique(key, return_inverse=True)
    names = np.array([listed.get(int(u), str(int(u))) for u in uniq] or [""], dtype=object)
    return names[inv] if len(key) else np.array([], dtype=object)


def build(w, limits: SiteLimits | None, *, cpus: np.ndarray, account: np.ndarray, part_names: np.ndarray,
          limit: np.ndarray, unlimited: np.ndarray, over_max_wall: str, mem: np.ndarray | None = None):
    """The counters of ``limits`` for the jobs of ``w`` (in the kernel's order; ``account``: each job's
    account name, ``part_names`` its partition's, ``limit`` its time limit in seconds, ``unlimited``
    the jobs that asked for none; ``mem`` each job's memory as :func:`allocated_mem` counts it, None: the
    trace's request). Returns (LJ, LA, LC, limit, notes): limit after MaxWall (a job
    without a limit of its own gets MaxWall when its partition's is longer: acct_policy.c
    ``_set_time_limit``; module docstring)."""
    n = len(w)
    notes: list[str] = []
    if limits is None or not n:
        return np.full((0, n), -1, dtype=np.int64), np.zeros((0, n)), np.zeros((4, 0)), limit, notes
    user = _names(w, "Users", w.user)
    qnum = w.partition
    qnames = _header_names_of(w)
    # the association of each job: the user's row in its account (and partition), else the account's
    rows = limits.assoc
    acct_row = {a.account: a for a in rows if not a.user and not a.partition}
    user_rows = {(a.account, a.user, a.partition): a for a in rows if a.user}
    mine = np.empty(n, dtype=object)
    for j in range(n):
        a = user_rows.get((account[j], user[j], part_names[j])) or user_rows.get((account[j], user[j], ""))
        mine[j] = a
    # each job's QOS name: the trace's, else its association's Def QOS, else normal
    qos = np.empty(n, dtype=object)
    for j in range(n):
        name = qnames.get(int(qnum[j]))
        if name is None:
            a = mine[j] or acct_row.get(account[j])
            name = (a.def_qos if a is not None and a.def_qos else "") or "normal"
        qos[j] = name
    tres = _job_tres(w, cpus, mem)
    for what in ("mem", "gres/gpu"):
        named = any(what in L.grp_tres or what in L.max_tres_pu for L in
                    [*limits.qos.values(), *(a.limits for a in rows)])
        if named and not (tres[what] > 0).any():
            notes.append(f"the limits name {what} but the trace's jobs carry no {what} request: those limits count 0 per job")
    ones = np.ones(n)
    C = _Counters(n)
    # the QOS (acct_policy.c _qos_job_runnable_pre_select, then _post_select), then the user's
    # association, then its account's
    for qname, L in limits.qos.items():
        jobs = qos == qname
        if not jobs.any():
            continue
        qk = np.zeros(n, dtype=np.int64)
        C.add(jobs, qk, L.grp_jobs, "QOSGrpJobsLimit", KIND_PRE, ones)
        C.add(jobs, user.astype(str), L.max_jobs, "QOSMaxJobsPerUserLimit", KIND_PRE, ones)
        for t, reason in zip(_TRES, ("QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpGRES")):
            C.add(jobs, qk, L.grp_tres.get(t), reason, KIND_POST, tres[t])
        for t, reason in zip(_TRES, ("QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxGRESPerUser")):
            C.add(jobs, user.astype(str), L.max_tres_pu.get(t), reason, KIND_POST, tres[t])
        C.add(jobs, user.astype(str), L.max_submit, "QOSMaxSubmitJobPerUserLimit", KIND_SUBMIT, ones)
    has_user = np.array([a is not None for a in mine], dtype=bool)
    ukey = np.array([f"{account[j]}\x00{user[j]}" for j in range(n)], dtype=object).astype(str)
    akey = account.astype(str)
    # the user's association (its own row, else its account's Max limits as the default)
    for a in list(user_rows.values()) + list(acct_row.values()):
        if a.user:
            jobs = np.array([m is a for m in mine], dtype=bool)
        else:
            jobs = (akey == a.account) & ~has_user
        L = a.limits
        C.add(jobs, ukey, L.grp_jobs if a.user else None, "AssocGrpJobsLimit", KIND_PRE, ones)
        C.add(jobs, ukey, L.max_jobs, "AssocMaxJobsLimit", KIND_PRE, ones)
        if a.user:
            for t, reason in zip(_TRES, ("AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpGRES")):
                C.add(jobs, ukey, L.grp_tres.get(t), reason, KIND_POST, tres[t])
        C.add(jobs, ukey, L.max_submit, "AssocMaxSubmitJobLimit", KIND_SUBMIT, ones)
    # the account's Grp limits over all its jobs
    for a in acct_row.values():
        jobs = akey == a.account
        L = a.limits
        C.add(jobs, akey, L.grp_jobs, "AssocGrpJobsLimit", KIND_PRE, ones)
        for t, reason in zip(_TRES, ("AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpGRES")):
            C.add(jobs, akey, L.grp_tres.get(t), reason, KIND_POST, tres[t])
    # per-job limits: MaxWall and MaxTRES cpu, the QOS's first (acct_policy_validate)
    limit = limit.copy()
    for j in range(n):
        for L, who, kind in ((limits.qos.get(qos[j]), f"QOS {qos[j]}", "QOS"),
                             (_row_limits(mine[j], acct_row.get(account[j])), f"association {account[j]}/{user[j]}", "Assoc")):
            if L is None:
                continue
            cap = L.max_tres.get("cpu")
            if cap is not None and cpus[j] > cap:
                raise WorkloadError(f"{w.name or 'workload'}: job {w.id[j]} asks for {int(cpus[j])} CPUs, over {who}'s "
                                     f"MaxTRES cpu={cap:g}: Slurm would keep it pending for good ({kind}MaxCpuPerJobLimit)")
            if L.max_wall is not None and limit[j] > L.max_wall:
                if over_max_wall == "error" and not unlimited[j]:
                    raise WorkloadError(
                        f"{w.name or 'workload'}: job {w.id[j]}'s limit {limit[j] / 60:g} min is over {who}'s MaxWall "
                        f"{L.max_wall / 60:g} min: Slurm would keep it pending for good ({kind}MaxWallDurationPerJobLimit); "
                        "use --slurm-option over_max_wall=clamp to cut it to MaxWall")
                limit[j] = L.max_wall
    LJ, LA, LC = C.arrays()
    for m in range(LJ.shape[0]):  # a job over a cap on its own would wait for good (Slurm accepts it: no DenyOnLimit)
        over = np.flatnonzero((LJ[m] >= 0) & (LA[m] > LC[L_CAP, np.maximum(LJ[m], 0)]))
        if over.size:
            j, c = int(over[0]), int(LJ[m, over[0]])
            raise WorkloadError(f"{w.name or 'workload'}: job {w.id[j]} alone is over a limit ({REASONS[int(LC[L_CODE, c]) - 1]}: "
                                f"it needs {LA[m, j]:g}, the limit is {LC[L_CAP, c]:g}): Slurm would keep it pending for good")
    return LJ, LA, LC, limit, notes


def _row_limits(own, account_row):
    """The per-job limits of a job's association: its own row's, else (inherited) its account's."""
    if own is not None:
        return own.limits
    return account_row.limits if account_row is not None else None


def _header_names_of(w) -> dict[int, str]:
    from ..workload.accounting import header_names as _header_names

    return _header_names(w, "QOS")


def reason_names(codes: np.ndarray) -> tuple:
    """Pending reason names of codes (0: '')."""
    return tuple(REASONS[c - 1] if c > 0 else "" for c in codes.tolist())


def held_note(codes: np.ndarray) -> str:
    """One line counting the jobs a limit held, by the reason each was last held with; '' for none."""
    held = codes[codes > 0]
    if not held.size:
        return ""
    uniq, cnt = np.unique(held, return_counts=True)
    parts = ", ".join(f"{REASONS[u - 1]} {c:,}" for u, c in sorted(zip(uniq.tolist(), cnt.tolist()), key=lambda x: -x[1]))
    return f"{held.size:,} job{'s' if held.size > 1 else ''} waited on an association or QOS limit (the last reason each was held with): {parts}"


# ----------------------------------------------------------------------------- kernels
@njit(_nrt=False)
def _held(j, LJ, LA, LC, submit):
    """The first counter that holds job j (its amount would pass the cap), or -1: with ``submit``, the
    submission counters; else the pre-select ones, then the post-select ones (Slurm checks every
    pre-select limit before selecting nodes), each kind in the slots' order."""
    for step in range(1 if submit else 2):
        kind = KIND_SUBMIT if submit else (KIND_PRE if step == 0 else KIND_POST)
        for m in range(LJ.shape[0]):
            c = LJ[m, j]
            if c < 0 or LC[L_KIND, c] != kind:
                continue
            if LC[L_USED, c] + LA[m, j] > LC[L_CAP, c]:
                return c
    return -1


@njit(_nrt=False)
def _bf_held(j, LJ, LA, LC, stop, count_popped):
    """How a backfill pass (backfill.c ``_attempt_backfill``; both :mod:`.backfill` and the resource
    path's :func:`~schedlab.slurm.select._backfill_res`) treats job j under the limits: 0 not held;
    1 held, passed over (no reservation) without counting against bf_max_job_test (a pre-select
    limit); 2 the same but counted (a post-select limit, found once the job was tested, or any with
    bf_count_popped); 3 held, tested and not started, keeping its reservation (assoc_limit_stop)."""
    c = _held(j, LJ, LA, LC, False)
    if c < 0:
        return 0
    if stop:
        return 3
    return 2 if (LC[L_KIND, c] == KIND_POST or count_popped) else 1


@njit(_nrt=False)
def _take(j, LJ, LA, LC, sign, kinds):
    """Add (sign 1) or remove (-1) job j's amounts: ``kinds`` 0 the run counters (start), 1 the
    submission counters (submit), 2 both (end)."""
    for m in range(LJ.shape[0]):
        c = LJ[m, j]
        if c < 0:
            continue
        sub = LC[L_KIND, c] == KIND_SUBMIT
        if kinds == 2 or (kinds == 1) == sub:
            LC[L_USED, c] += sign * LA[m, j]


def rejected_by_limit(w, why: np.ndarray, start: np.ndarray, LC: np.ndarray) -> None:
    """Raise the error of a submission the kernel found over MaxSubmitJobs (``why`` < 0: -(counter + 1));
    ``w``: the kernel's workload (jobs by submit)."""
    bad = np.flatnonzero(why < 0)
    if not bad.size:
        return
    j = int(bad[0])
    c = -int(why[j]) - 1
    reason = REASONS[int(LC[L_CODE, c]) - 1]
    raise WorkloadError(
        f"{w.name or 'workload'}: job {w.id[j]} (user {w.user[j]}) submitted at {w.submit[j]:g} s would be rejected by "
        f"Slurm ({reason}: {LC[L_USED, c]:g} of its jobs already pending or running, MaxSubmitJobs {LC[L_CAP, c]:g}): "
        "the trace cannot have run under these limits; raise MaxSubmit/MaxSubmitPU in the sacctmgr dump")
