"""Slurm's own parameter space as a real vector, and what a tuned point becomes at a site (issue 37, item 4).

:data:`SPACE` is the one declaration of what ``schedlab evolve slurm`` searches: one :class:`Knob`
per row (name, lower and upper bound in the setting's own unit, scale, and the documentation it
reads). The optimizer sees a gene per knob in [gene(low), gene(high)]:

- ``log``: gene = log10(value), for ranges that span decades (bf_window 1 .. 43200 minutes);
- ``log0``: gene = log10(1 + value), a log scale that reaches 0 (a priority weight of 0 switches
  its factor off, Slurm's default);
- ``linear``: gene = value.

Every setting Slurm reads is a whole number (weights, QOS priorities, bf_* counts; the two
durations in whole minutes), so :meth:`SlurmEncoding.decode` rounds each value to the nearest
integer after the inverse map; the written ``slurm.conf.fragment`` and ``sacctmgr.sh`` therefore
carry exactly the values that were simulated.

The owner's user groups (schedlab's groups 1..5, the objective's ``AWRT1`` .. ``AWRT5``) get one
QOS each, ``ug1`` .. ``ug5``, whose priority is searched: a job's QOS is its user group's
(:func:`with_group_qos`), as a site gives each group's account that QOS as its DefaultQOS
(``sacctmgr.sh``). priority_multifactor.shtml: "Each QOS can be assigned an integer priority. The
larger the number, the greater the job priority will be for jobs that request this QOS. This
priority value is then normalized to the highest priority of all the QOS's to become the QOS
factor."; PriorityWeightQOS (also searched) weighs that factor.

**Partition settings and QOS limits** (issue 47, item 4; searched only when ``--params`` names them,
so a run without them is as before): :func:`site_knobs` adds, per partition of the slurm.conf,
``PART:PriorityJobFactor``, ``PART:PriorityTier`` and ``PART:MaxTime``, and per user group's QOS
``ugK:MaxJobsPU``, ``ugK:GrpTRES=cpu``, ``ugK:MaxTRESPU=cpu`` and (nodes with GPUs)
``ugK:GrpTRES=gres/gpu`` (the QOS the jobs run under, :func:`with_group_qos`). Their bounds depend on the
site and its traces (:class:`SiteBounds`): a limit is never below the largest job (a job alone over a
limit could never start: schedlab stops with an error), a MaxTime never below the longest job's limit or
runtime (a shorter MaxTime would refuse or cut jobs, winning by not running them), and a QOS limit at
its upper bound (the machine's CPUs or GPUs, 10,000 jobs) is **no limit** (written ``-1``). The partition
settings go into ``slurm.conf.fragment`` as the site's PartitionName lines with the tuned keys set; QOS
limits are not slurm.conf lines: they go into ``sacctmgr.sh`` (``sacctmgr -i modify qos where name=ugK
set MaxJobsPU=... GrpTRES=... MaxTRESPU=...``) and, as ``sacctmgr -P show qos`` would then print them,
into ``qos.tuned.txt``, which ``--slurm-qos`` reads back (:func:`qos_dump_text`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from ..errors import SchedlabError
from .conf import SlurmConf

#: schedlab's user groups (1 = heaviest users ... 5 = lightest) whose QOS priorities are searched
USER_GROUPS = (1, 2, 3, 4, 5)
QOS_PREFIX = "ug"
SCALES = ("log", "log0", "linear")

_WEIGHT_DOC = ("slurm.conf(5), PriorityWeight{}: \"An integer value that sets the degree to which the {} component "
               "contributes to the job's priority. ... The default value is 0.\" The page gives no upper bound; the "
               "priority is capped at 2^32-1 (docs/slurm-policy-spec.md section 3), which six weights of at most "
               "100,000 never reach.")
_QOS_DOC = ("sacctmgr(1), QOS Priority: \"What priority will be added to a job's priority when using this QOS.\" "
            "priority_multifactor.shtml: \"This priority value is then normalized to the highest priority of all "
            "the QOS's to become the QOS factor\" -- only the ratios count, so 0 .. 1000 (0.1 % steps) is searched.")


class TuningError(SchedlabError, ValueError):
    """A parameter name outside :data:`SPACE`, or a value that cannot be written as the site's setting."""


@dataclass(frozen=True)
class Knob:
    """One searched setting. ``kind``: ``weight`` (PriorityWeight<X>), ``duration`` (a slurm.conf time,
    the value in minutes), ``sched`` (a SchedulerParameters item), ``qos`` (a QOS priority), ``partition``
    (``PART:KEY``, a PartitionName key) or ``qos_limit`` (``QOS:KEY``, a QOS limit: its value at ``high`` is -1, no limit, as sacctmgr writes it)."""

    name: str
    kind: str
    low: float
    high: float
    scale: str
    unit: str
    doc: str

    def gene(self, value: float) -> float:
        if self.kind == "qos_limit" and value < 0:  # no limit: the upper bound
            value = self.high
        v = min(max(float(value), self.low), self.high)
        if self.scale == "log":
            return math.log10(v)
        if self.scale == "log0":
            return math.log10(1.0 + v)
        return v

    def value(self, gene: float) -> int:
        """The setting of a gene: the inverse map, rounded to a whole number, inside [low, high]."""
        if self.scale == "log":
            v = 10.0 ** gene
        elif self.scale == "log0":
            v = 10.0 ** gene - 1.0
        else:
            v = gene
        out = int(min(max(round(v), math.ceil(self.low)), math.floor(self.high)))
        return -1 if self.kind == "qos_limit" and out >= math.floor(self.high) else out


#: the searched space: every row its name, bounds (in ``unit``), scale and the documentation it reads
SPACE: tuple[Knob, ...] = (
    Knob("PriorityWeightAge", "weight", 0, 100_000, "log0", "", _WEIGHT_DOC.format("Age", "queue wait time")),
    Knob("PriorityWeightFairshare", "weight", 0, 100_000, "log0", "", _WEIGHT_DOC.format("Fairshare", "fair-share")),
    Knob("PriorityWeightJobSize", "weight", 0, 100_000, "log0", "", _WEIGHT_DOC.format("JobSize", "job size")),
    Knob("PriorityWeightPartition", "weight", 0, 100_000, "log0", "",
         "slurm.conf(5), PriorityWeightPartition: \"Partition factor used by priority/multifactor plugin in "
         "calculating job priority. ... The default value is 0.\" (bounds as the other weights)"),
    Knob("PriorityWeightQOS", "weight", 0, 100_000, "log0", "", _WEIGHT_DOC.format("QOS", "Quality Of Service")),
    Knob("PriorityDecayHalfLife", "duration", 60, 40_320, "log", "minutes",
         "slurm.conf(5), PriorityDecayHalfLife: \"The record of usage will be decayed over time, with half of the "
         "original value cleared at age PriorityDecayHalfLife. If set to 0 no decay will be applied. ... The unit is "
         "a time string (i.e. min, hr:min:00, days-hr:min:00, or days-hr). The default value is 7-0 (7 days).\" The "
         "page sets no bounds; searched: 1 hour .. 28 days (0, no decay, is left out)."),
    Knob("PriorityMaxAge", "duration", 10, 40_320, "log", "minutes",
         "slurm.conf(5), PriorityMaxAge: \"Specifies the job age which will be given the maximum age factor in "
         "computing priority. For example, a value of 30 minutes would result in all jobs over 30 minutes old would "
         "get the same age-based priority. ... The default value is 7-0 (7 days).\" The page sets no bounds; "
         "searched: 10 minutes .. 28 days."),
    Knob("bf_window", "sched", 1, 43_200, "log", "minutes",
         "slurm.conf(5), SchedulerParameters bf_window: \"The number of minutes into the future to look when "
         "considering jobs to schedule. ... Default: 1440 (1 day), Min: 1, Max: 43200 (30 days).\""),
    Knob("bf_max_job_test", "sched", 1, 1_000_000, "log", "jobs",
         "slurm.conf(5), SchedulerParameters bf_max_job_test: \"The maximum number of jobs to attempt backfill "
         "scheduling for (i.e. the queue depth). ... Default: 500, Min: 1, Max: 1,000,000.\""),
    *(Knob(f"{QOS_PREFIX}{g}", "qos", 0, 1000, "linear", "", _QOS_DOC + f" QOS of user group {g}.")
      for g in USER_GROUPS),
)

_BY_NAME = {k.name.lower(): k for k in SPACE}

#: the PartitionName keys :func:`site_knobs` searches per partition (``PART:KEY``)
PARTITION_KEYS = ("PriorityJobFactor", "PriorityTier", "MaxTime")
#: the QOS limits :func:`site_knobs` searches per user group's QOS (``ugK:KEY``); ``=TRES`` names the TRES
QOS_LIMIT_KEYS = ("MaxJobsPU", "GrpTRES=cpu", "GrpTRES=gres/gpu", "MaxTRESPU=cpu")
#: the most jobs per user a ``MaxJobsPU`` knob reaches; its upper bound, as every QOS limit's, is no limit
MAX_JOBS_BOUND = 10_000
_FACTOR_DOC = ("slurm.conf(5), PartitionName {}: \"... The value may not exceed 65533.\" Searched 0 .. 65533 "
               "(a log scale reaching 0).")
_LIMIT_DOC = ("sacctmgr(1), QOS {}: {} Searched from {} (the largest job: a job alone over the limit could never "
              "start) to {} (the machine's total, read as no limit: -1).")


@dataclass(frozen=True)
class SiteBounds:
    """What the bounds of :func:`site_knobs` depend on: the machine's CPUs and GPUs, and over the run's
    workloads (training and held-out) the largest job's CPUs and GPUs and the longest job's limit or
    runtime (minutes, rounded up)."""

    cpus: int
    gpus: int
    largest_cpus: int
    largest_gpus: int
    longest_minutes: int

    @classmethod
    def of(cls, conf: SlurmConf, workloads) -> "SiteBounds":
        from ..workload.resources import resources_of

        ws = [w for w in workloads if len(w)]
        gpus = [int(np.max(resources_of(w).req_gpus, initial=0)) for w in ws if resources_of(w) is not None]
        longest = max((float(np.max(np.maximum(w.estimate, w.runtime))) for w in ws), default=60.0)
        return cls(int(sum(conf.node_cpus)), int(sum(conf.node_gpus or [0])),
                   max((int(np.max(w.procs)) for w in ws), default=1), max(gpus, default=0),
                   int(math.ceil(longest / 60.0)))


def site_knobs(conf: SlurmConf, bounds: SiteBounds) -> tuple[Knob, ...]:
    """The partition and QOS-limit knobs of a site (module docstring): per partition of ``conf``'s
    PartitionName lines and per user group's QOS; GPU limits only on a machine with GPUs."""
    out = []
    for name in _partition_tokens(conf):
        out += [Knob(f"{name}:PriorityJobFactor", "partition", 0, 65533, "log0", "", _FACTOR_DOC.format("PriorityJobFactor")),
                Knob(f"{name}:PriorityTier", "partition", 0, 65533, "log0", "", _FACTOR_DOC.format("PriorityTier")),
                Knob(f"{name}:MaxTime", "partition", bounds.longest_minutes, max(43_200, bounds.longest_minutes),
                     "log", "minutes",
                     "slurm.conf(5), PartitionName MaxTime: \"Maximum run time limit for jobs.\" (and the limit of "
                     "a job without one and without DefaultTime). Searched from the longest job's limit or runtime "
                     "(no job refused or cut) to 30 days.")]
    cpu_low = min(bounds.largest_cpus, bounds.cpus)
    for g in USER_GROUPS:
        q = f"{QOS_PREFIX}{g}"
        out += [Knob(f"{q}:MaxJobsPU", "qos_limit", 1, MAX_JOBS_BOUND, "log", "jobs",
                     f"sacctmgr(1), QOS MaxJobsPerUser: \"Maximum number of jobs each user is allowed to run at one time.\" "
                     f"Searched 1 .. {MAX_JOBS_BOUND:,} (no limit)."),
                Knob(f"{q}:GrpTRES=cpu", "qos_limit", cpu_low, bounds.cpus, "log", "CPUs",
                     _LIMIT_DOC.format("GrpTRES", "\"Maximum number of TRES running jobs are able to be allocated in "
                                       "aggregate for this QOS.\"", cpu_low, bounds.cpus)),
                Knob(f"{q}:MaxTRESPU=cpu", "qos_limit", cpu_low, bounds.cpus, "log", "CPUs",
                     _LIMIT_DOC.format("MaxTRESPerUser", "\"Maximum number of TRES each user is able to use.\"",
                                       cpu_low, bounds.cpus))]
        if bounds.gpus > 0:
            low = min(max(bounds.largest_gpus, 1), bounds.gpus)
            out.append(Knob(f"{q}:GrpTRES=gres/gpu", "qos_limit", low, bounds.gpus, "log", "GPUs",
                            _LIMIT_DOC.format("GrpTRES", "(gres/gpu) as GrpTRES=cpu.", low, bounds.gpus)))
    return tuple(out)


def _partition_tokens(conf: SlurmConf) -> dict[str, list[str]]:
    """{partition name: its PartitionName line's tokens} of ``conf`` (PartitionName=DEFAULT left out),
    in file order: the lines :func:`schedlab.slurm.conf.finish_partitions` reads when a run starts."""
    out = {}
    for _, tokens in conf._part_lines:
        name = tokens[0].partition("=")[2]
        if name.upper() != "DEFAULT":
            out[name] = list(tokens)
    return out


def _token(tokens: list[str], key: str) -> str | None:
    """The value of ``key`` (case-insensitive) on a slurm.conf line, the last one given; None: absent."""
    got = [t.partition("=")[2] for t in tokens[1:] if t.partition("=")[0].lower() == key.lower()]
    return got[-1] if got else None


def _set_partition_keys(tokens: list[str], values: dict[str, float]) -> list[str]:
    """A PartitionName line's tokens with the tuned settings of ``values`` for its partition set
    (each key's old tokens dropped, the setting appended; MaxTime as ``D-HH:MM:SS``): what the fragment
    writes and what :func:`apply` simulates."""
    name = tokens[0].partition("=")[2]
    for key in PARTITION_KEYS:
        if f"{name}:{key}" in values:
            v = values[f"{name}:{key}"]
            setting = f"{key}={slurm_time(v) if key == 'MaxTime' else int(v)}"
            tokens = [t for t in tokens if t.partition("=")[0].lower() != key.lower()] + [setting]
    return tokens


def _site_name(name: str) -> bool:
    """Whether ``name`` has the form of a :func:`site_knobs` knob (``PART:KEY`` or ``QOS:KEY``)."""
    key = name.partition(":")[2].lower()
    return any(key == k.lower() for k in (*PARTITION_KEYS, *QOS_LIMIT_KEYS))


def knobs(names: str | None = None, site: tuple[Knob, ...] | None = None) -> tuple[Knob, ...]:
    """The knobs ``names`` (comma-separated, case-insensitive; None or empty: all of :data:`SPACE`), in table
    order, then the named ones of ``site`` (:func:`site_knobs`; None: a ``PART:KEY``/``QOS:KEY`` name is only
    checked for its form, before the site is read)."""
    if not names or not names.strip():
        return SPACE
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    by_site = {k.name.lower(): k for k in site or ()}
    unknown = [n for n in wanted if n.lower() not in _BY_NAME and n.lower() not in by_site
               and not (site is None and _site_name(n))]
    if unknown:
        listed = ", ".join(k.name for k in SPACE)
        extra = (f"; of this site: {', '.join(k.name for k in site)}" if site else
                 f"; or PARTITION:{'|'.join(PARTITION_KEYS)} or ugK:{'|'.join(QOS_LIMIT_KEYS)}")
        raise TuningError(f"--params: unknown parameter {unknown[0]!r}; choose from {listed}{extra}")
    chosen = {n.lower() for n in wanted}
    return tuple(k for k in (*SPACE, *(site or ())) if k.name.lower() in chosen)


def current_values(conf: SlurmConf, qos_priority: dict | None = None, *, site: tuple[Knob, ...] = (),
                   limits=None) -> dict[str, float]:
    """The settings of :data:`SPACE` and of the ``site`` knobs in a site's configuration (durations in
    minutes; a user group's QOS priority 0 when ``qos_priority`` does not name it; a QOS limit from
    ``limits`` (:class:`schedlab.slurm.limits.SiteLimits`), -1 for none, as sacctmgr writes it)."""
    qos = qos_priority or {}
    out: dict[str, float] = {}
    from .conf import _duration

    parts = _partition_tokens(conf)
    for k in site:
        owner, key = k.name.split(":", 1)
        if k.kind == "partition":  # (slurm.conf(5): PriorityJobFactor and PriorityTier default 1, MaxTime UNLIMITED)
            text = _token(parts[owner], key)
            out[k.name] = (_duration(text) / 60.0 if text is not None else math.inf) if key == "MaxTime" else int(text or 1)
        else:
            got = _limit_of(limits.qos.get(owner) if limits is not None else None, key)
            out[k.name] = -1 if got is None else got
    for k in SPACE:
        if k.kind == "weight":
            out[k.name] = conf.weights[k.name[len("PriorityWeight"):].lower()]
        elif k.name == "PriorityDecayHalfLife":
            out[k.name] = conf.decay_half_life / 60.0
        elif k.name == "PriorityMaxAge":
            out[k.name] = conf.max_age / 60.0
        elif k.kind == "sched":
            out[k.name] = conf.sched[k.name]
        else:
            out[k.name] = qos.get(k.name, 0)
    return out


@dataclass(frozen=True)
class SlurmEncoding:
    """The searched ``knobs`` as genes; the others keep their value in ``fixed`` (the site's current one)."""

    knobs: tuple[Knob, ...]
    fixed: tuple[tuple[str, float], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.knobs)

    @property
    def lower(self) -> np.ndarray:
        return np.array([k.gene(k.low) for k in self.knobs])

    @property
    def upper(self) -> np.ndarray:
        return np.array([k.gene(k.high) for k in self.knobs])

    def decode(self, x) -> dict[str, float]:
        """Every setting of :data:`SPACE`: the searched ones from ``x`` (rounded, inside their bounds), the others fixed."""
        values = dict(self.fixed)
        values.update({k.name: k.value(g) for k, g in zip(self.knobs, np.asarray(x, dtype=np.float64))})
        return values

    def encode(self, values: dict[str, float]) -> np.ndarray:
        """The genes of ``values`` (clipped into the bounds): where the search starts from the site's settings."""
        return np.array([k.gene(values[k.name]) for k in self.knobs])


def qos_priorities(values: dict[str, float]) -> dict[str, int]:
    """{QOS name: priority} of the user groups' QOS in ``values``."""
    return {k.name: int(values[k.name]) for k in SPACE if k.kind == "qos"}


def apply(conf: SlurmConf, values: dict[str, float]) -> SlurmConf:
    """``conf`` with the settings ``values`` (PriorityType multifactor: the weights need it)."""
    weights = dict(conf.weights)
    for k in SPACE:
        if k.kind == "weight":
            weights[k.name[len("PriorityWeight"):].lower()] = int(values[k.name])
    sched = dict(conf.sched, bf_window=int(values["bf_window"]), bf_max_job_test=int(values["bf_max_job_test"]))
    # the partition settings on the PartitionName lines themselves, which every run resolves (finish_partitions)
    lines = [(number, _set_partition_keys(list(tokens), values)) for number, tokens in conf._part_lines]
    return replace(conf, priority_type="priority/multifactor", weights=weights, sched=sched,
                   decay_half_life=60.0 * values["PriorityDecayHalfLife"], max_age=60.0 * values["PriorityMaxAge"],
                   ignored=list(conf.ignored), _part_lines=lines)


def _limit_of(limits, key: str):
    """The value of QOS limit ``key`` (:data:`QOS_LIMIT_KEYS`) in a :class:`~schedlab.slurm.limits.Limits`; None: none."""
    if limits is None:
        return None
    name, _, tres = key.partition("=")
    if name == "MaxJobsPU":
        return limits.max_jobs
    return (limits.grp_tres if name == "GrpTRES" else limits.max_tres_pu).get(tres)


def _qos_limit_values(values: dict[str, float]) -> dict[str, dict[str, int | None]]:
    """{QOS: {limit key: value, None for no limit (the knob's upper bound)}} of the QOS-limit settings in ``values``."""
    out: dict[str, dict[str, int | None]] = {}
    for name, v in values.items():
        owner, _, key = name.partition(":")
        if key in QOS_LIMIT_KEYS:
            out.setdefault(owner, {})[key] = None if v < 0 else int(v)
    return out


def apply_limits(limits, values: dict[str, float]):
    """``limits`` (:class:`~schedlab.slurm.limits.SiteLimits` or None) with the QOS limits of ``values``
    (a knob at its upper bound: that limit removed)."""
    from .limits import Limits, SiteLimits

    tuned = _qos_limit_values(values)
    if not tuned:
        return limits
    base = limits if limits is not None else SiteLimits()
    qos = dict(base.qos)
    for owner, keys in tuned.items():
        old = qos.get(owner, Limits())
        grp, per_user, max_jobs = dict(old.grp_tres), dict(old.max_tres_pu), old.max_jobs
        for key, v in keys.items():
            name, _, tres = key.partition("=")
            if name == "MaxJobsPU":
                max_jobs = v
            else:
                target = grp if name == "GrpTRES" else per_user
                target.pop(tres, None)
                if v is not None:
                    target[tres] = v
        qos[owner] = replace(old, grp_tres=grp, max_tres_pu=per_user, max_jobs=max_jobs)
    return SiteLimits(qos=qos, assoc=base.assoc)


def with_group_qos(workload):
    """``workload`` whose jobs run under their user group's QOS ``ug1`` .. ``ug5`` (SWF field 16 and a
    ``SchedlabQOS:`` header line, as :mod:`schedlab.slurm.policy` reads a job's QOS); jobs of no user
    group (0) have no QOS. A trace's own QOS lines are dropped: the groups' QOS replace them."""
    header = tuple(h for h in workload.header if not re.match(r"\s*SchedlabQOS:", h))
    names = " ".join(f"{QOS_PREFIX}{g}={g}" for g in USER_GROUPS)
    qos = np.where(np.isin(workload.group, USER_GROUPS), workload.group, -1)
    return workload.replace(partition=qos, header=(*header, f" SchedlabQOS: {names}"))


def slurm_time(minutes: float) -> str:
    """A slurm.conf time ``D-HH:MM:SS`` (slurm.conf(5): "days-hr:min:sec") of ``minutes``."""
    seconds = int(round(60.0 * minutes))
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return f"{d}-{h:02d}:{m:02d}:{s:02d}"


def _scheduler_parameters(current_text: str) -> list[str]:
    """The items of the last ``SchedulerParameters=`` of a slurm.conf text (Slurm reads the last one)."""
    items: list[str] = []
    for raw in current_text.splitlines():
        for tok in raw.split("#", 1)[0].split():
            key, sep, value = tok.partition("=")
            if sep and key.lower() == "schedulerparameters":
                items = [i for i in value.split(",") if i]
    return items


def fragment_text(values: dict[str, float], current_text: str, *, source: str = "") -> str:
    """``slurm.conf.fragment``: the Priority* lines and the SchedulerParameters line (the site's own
    items kept, bf_window and bf_max_job_test set) that put ``values`` in place of the site's lines."""
    items = _scheduler_parameters(current_text)
    for name in ("bf_window", "bf_max_job_test"):
        setting = f"{name}={int(values[name])}"
        at = [i for i, item in enumerate(items) if item.partition("=")[0].lower() == name]
        if at:
            items[at[-1]] = setting
            items = [item for i, item in enumerate(items) if i == at[-1] or i not in at]
        else:
            items.append(setting)
    lines = [
        "# Tuned by schedlab evolve slurm" + (f" from {source}" if source else "") + ".",
        "# Replace these keys' lines in slurm.conf, then 'scontrol reconfigure'; the QOS priorities"
        + (" and limits" if _qos_limit_values(values) else "") + " are in sacctmgr.sh.",
        "PriorityType=priority/multifactor",
        *(f"{k.name}={int(values[k.name])}" for k in SPACE if k.kind == "weight"),
        f"PriorityDecayHalfLife={slurm_time(values['PriorityDecayHalfLife'])}",
        f"PriorityMaxAge={slurm_time(values['PriorityMaxAge'])}",
        f"SchedulerParameters={','.join(items)}",
        *_partition_lines(values, current_text),
    ]
    return "\n".join(lines) + "\n"


def _partition_lines(values: dict[str, float], current_text: str) -> list[str]:
    """Every PartitionName line of the site's slurm.conf text, in its order, with the tuned partition
    settings of ``values`` set (MaxTime as ``D-HH:MM:SS``); [] when none is tuned (the fragment as before).
    All of them: the fragment replaces the PartitionName lines (:func:`merge_fragment`)."""
    if not any(name.partition(":")[2] in PARTITION_KEYS for name in values):
        return []
    out = []
    for raw in current_text.splitlines():
        tokens = raw.split("#", 1)[0].split()
        if tokens and tokens[0].partition("=")[0].lower() == "partitionname":
            out.append(" ".join(_set_partition_keys(tokens, values)))
    return out


def merge_fragment(conf: str, fragment: str) -> str:
    """slurm.conf text ``conf`` with every key the fragment (:func:`fragment_text`) sets replaced by the
    fragment's line (the fragment's own instruction: "Replace these keys' lines in slurm.conf")."""
    keys = {line.split("=", 1)[0].lower() for line in fragment.splitlines() if "=" in line and not line.startswith("#")}
    kept = [line for line in conf.splitlines() if line.split("=", 1)[0].lower() not in keys]
    return "\n".join(kept + [line for line in fragment.splitlines() if line and not line.startswith("#")]) + "\n"



def sacctmgr_text(values: dict[str, float], accounts: dict[int, str] | None = None) -> str:
    """``sacctmgr.sh``: create each user group's QOS if missing, set its priority, and make it the
    default QOS of the group's account (``accounts``: user group -> account name; default the name
    the simulation gave it, the group's number, ``account_from=group``)."""
    accounts = accounts or {g: str(g) for g in USER_GROUPS}
    lines = [
        "#!/bin/sh",
        "# QOS priorities of the owner's user groups, tuned by schedlab evolve slurm (see slurm.conf.fragment).",
        "# User group k runs under QOS ugk, the DefaultQOS of its account; the simulation named user group k's",
        "# account k: put your site's account of that group in its place. PriorityWeightQOS weighs the QOS",
        "# factor = a QOS's priority / the highest QOS priority (priority_multifactor.shtml).",
        "set -e",
    ]
    limits = _qos_limit_values(values)
    if limits:
        lines.append("# QOS limits (not slurm.conf lines): -1 clears a limit; qos.tuned.txt shows the QOS as "
                     "'sacctmgr -P show qos' prints them after this script (schedlab's --slurm-qos reads it).")
    for g in USER_GROUPS:
        q, p = f"{QOS_PREFIX}{g}", int(values[f"{QOS_PREFIX}{g}"])
        lines += [
            f"sacctmgr -n -P show qos {q} format=name | grep -qx {q} || sacctmgr -i add qos {q}",
            f"sacctmgr -i modify qos where name={q} set priority={p}",
            f"sacctmgr -i modify account where name={accounts[g]} set qos+={q} defaultqos={q}",
        ]
        if q in limits:
            lines.append(f"sacctmgr -i modify qos where name={q} set {_sacctmgr_limits(limits[q])}")
    return "\n".join(lines) + "\n"


def _sacctmgr_limits(keys: dict[str, int | None]) -> str:
    """``MaxJobsPU=N GrpTRES=cpu=N,gres/gpu=N MaxTRESPU=cpu=N`` of one QOS's tuned limits (-1: none)."""
    by: dict[str, list[str]] = {}
    for key, v in keys.items():
        name, _, tres = key.partition("=")
        value = -1 if v is None else v
        by.setdefault(name, []).append(f"{tres}={value}" if tres else str(value))
    return " ".join(f"{name}={','.join(parts)}" for name, parts in by.items())


def qos_dump_text(qos_priority: dict[str, int], limits) -> str:
    """``qos.tuned.txt``: the QOS as ``sacctmgr -P show qos`` prints them with the tuned priorities and
    limits in place (``qos_priority``: QOS -> priority; ``limits``: :class:`~schedlab.slurm.limits.SiteLimits`
    after :func:`apply_limits`), the form ``--slurm-qos`` reads (:func:`schedlab.slurm.conf.read_qos`,
    :func:`schedlab.slurm.limits.read_qos_limits`); TRES as ``cpu=N,gres/gpu=N,mem=NM``, MaxWall as
    ``D-HH:MM:SS``, an empty field no limit."""
    def tres(d: dict) -> str:
        return ",".join(f"{k}={int(v)}M" if k == "mem" else f"{k}={int(v)}" for k, v in sorted(d.items()))

    def count(v) -> str:
        return "" if v is None else str(int(v))

    qos = dict(limits.qos) if limits is not None else {}
    rows = ["Name|Priority|GrpJobs|GrpTRES|MaxJobsPU|MaxSubmitPU|MaxTRESPU|MaxTRES|MaxWall"]
    for name in sorted(set(qos_priority) | set(qos)):
        L = qos.get(name)
        cells = [name, str(int(qos_priority.get(name, 0)))]
        cells += (["", "", "", "", "", "", ""] if L is None else
                  [count(L.grp_jobs), tres(L.grp_tres), count(L.max_jobs), count(L.max_submit), tres(L.max_tres_pu),
                   tres(L.max_tres), "" if L.max_wall is None else slurm_time(L.max_wall / 60.0)])
        rows.append("|".join(cells))
    return "\n".join(rows) + "\n"


def read_sacctmgr(text: str) -> dict[str, int]:
    """{QOS: priority} set by a ``sacctmgr.sh`` (its ``modify qos where name=Q set priority=P`` lines)."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"modify qos where name=(\S+) set priority=(-?\d+)", text)}
