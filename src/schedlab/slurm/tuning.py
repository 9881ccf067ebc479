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
    the value in minutes), ``sched`` (a SchedulerParameters item) or ``qos`` (a QOS priority)."""

    name: str
    kind: str
    low: float
    high: float
    scale: str
    unit: str
    doc: str

    def gene(self, value: float) -> float:
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
        return int(min(max(round(v), math.ceil(self.low)), math.floor(self.high)))


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


def knobs(names: str | None = None) -> tuple[Knob, ...]:
    """The knobs ``names`` (comma-separated, case-insensitive; None or empty: all of :data:`SPACE`), in table order."""
    if not names or not names.strip():
        return SPACE
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n.lower() not in _BY_NAME]
    if unknown:
        raise TuningError(f"--params: unknown parameter {unknown[0]!r}; choose from {', '.join(k.name for k in SPACE)}")
    chosen = {n.lower() for n in wanted}
    return tuple(k for k in SPACE if k.name.lower() in chosen)


def current_values(conf: SlurmConf, qos_priority: dict | None = None) -> dict[str, float]:
    """The settings of :data:`SPACE` in a site's configuration (durations in minutes; a user group's QOS
    priority 0 when ``qos_priority`` does not name it)."""
    qos = qos_priority or {}
    out: dict[str, float] = {}
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
    return replace(conf, priority_type="priority/multifactor", weights=weights, sched=sched,
                   decay_half_life=60.0 * values["PriorityDecayHalfLife"], max_age=60.0 * values["PriorityMaxAge"],
                   ignored=list(conf.ignored))


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
        "# Replace these keys' lines in slurm.conf, then 'scontrol reconfigure'; the QOS priorities are in sacctmgr.sh.",
        "PriorityType=priority/multifactor",
        *(f"{k.name}={int(values[k.name])}" for k in SPACE if k.kind == "weight"),
        f"PriorityDecayHalfLife={slurm_time(values['PriorityDecayHalfLife'])}",
        f"PriorityMaxAge={slurm_time(values['PriorityMaxAge'])}",
        f"SchedulerParameters={','.join(items)}",
    ]
    return "\n".join(lines) + "\n"


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
    for g in USER_GROUPS:
        q, p = f"{QOS_PREFIX}{g}", int(values[f"{QOS_PREFIX}{g}"])
        lines += [
            f"sacctmgr -n -P show qos {q} format=name | grep -qx {q} || sacctmgr -i add qos {q}",
            f"sacctmgr -i modify qos where name={q} set priority={p}",
            f"sacctmgr -i modify account where name={accounts[g]} set qos+={q} defaultqos={q}",
        ]
    return "\n".join(lines) + "\n"


def read_sacctmgr(text: str) -> dict[str, int]:
    """{QOS: priority} set by a ``sacctmgr.sh`` (its ``modify qos where name=Q set priority=P`` lines)."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"modify qos where name=(\S+) set priority=(-?\d+)", text)}
