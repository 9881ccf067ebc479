"""The basic objectives of a schedule: UTIL, AWRT, AWRT_1..AWRT_5, AWWT, wait, slowdown, makespan.

Symbols follow greedy-es-sorting-criteria, Section IV-B: for job j of the job set tau,
r_j is the submit (release) time, S_j the start, C_j the completion (``finish``),
p_j = C_j - S_j the processing time the job actually used (after being killed at its estimate,
when it was), m_j its processors, m the machine size.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # importing schedlab.sim would load numba: metrics stay light to import
    from ..sim.model import Schedule

#: user groups of greedy-es-sorting-criteria, Section IV-A (1 = heaviest users)
GROUPS: tuple[int, ...] = (1, 2, 3, 4, 5)

#: every metric name, in the order tables and ``--json`` print them
METRIC_NAMES: tuple[str, ...] = (
    "jobs",
    "procs",
    "UTIL",
    "AWRT",
    *(f"AWRT{i}" for i in GROUPS),
    "AWWT",
    "mean_wait",
    "mean_response",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "makespan",
    "p95_wait",
    "max_wait",
    "max_user_AWRT",
    "mean_user_AWRT",
    *(f"BSLD{i}" for i in GROUPS),
)

#: one line per metric: what it is and its unit (used by ``--help`` texts and tables)
METRIC_HELP: dict[str, str] = {
    "jobs": "number of jobs in the schedule",
    "procs": "machine size m (processors)",
    "UTIL": "utilization in percent, eq. (5): sum p m / (m (max C - min (C - p))) * 100",
    "AWRT": "average weighted response time in s, eq. (6): sum p m (C - r) / sum p m",
    **{f"AWRT{i}": f"AWRT of the jobs of user group {i} in s, eq. (7)" for i in GROUPS},
    "AWWT": "average weighted wait time in s: sum p m (S - r) / sum p m",
    "mean_wait": "mean wait S - r in s",
    "mean_response": "mean response time C - r in s",
    "mean_slowdown": "mean (C - r) / p over the jobs with p > 0",
    "mean_bounded_slowdown": "mean max(1, (C - r) / max(p, bound))",
    "makespan": "max C - min r in s",
    "p95_wait": "95th percentile of the wait S - r in s (linear interpolation between order statistics)",
    "max_wait": "longest wait S - r in s",
    "max_user_AWRT": "the worst AWRT of a single user in s (AWRT over each user's jobs, eq. (6))",
    "mean_user_AWRT": "mean over users of each user's AWRT in s (every user counts once)",
    **{f"BSLD{i}": f"mean bounded slowdown of the jobs of user group {i}" for i in GROUPS},
}


class Metrics(Mapping):
    """The metrics of one schedule: a read-only mapping name -> float | None.

    Keys are :data:`METRIC_NAMES` in that order. A value is ``None`` when the metric is
    undefined for this schedule (e.g. ``AWRT3`` when user group 3 has no jobs, or every
    metric but ``jobs``/``procs`` for an empty schedule). ``bound`` is the bounded-slowdown
    threshold the values were computed with.
    """

    __slots__ = ("_values", "bound")

    def __init__(self, values: Mapping[str, float | None], *, bound: float = 10.0) -> None:
        missing = [k for k in METRIC_NAMES if k not in values]
        extra = [k for k in values if k not in METRIC_NAMES]
        if missing or extra:
            raise ValueError(f"Metrics needs exactly {METRIC_NAMES}; missing {missing}, unknown {extra}")
        self._values = {k: (None if values[k] is None else float(values[k])) for k in METRIC_NAMES}
        self.bound = float(bound)

    def __getitem__(self, name: str) -> float | None:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def to_dict(self) -> dict[str, float | None]:
        """A plain dict copy (``jobs`` and ``procs`` as int), ready for ``json.dumps``."""
        d: dict[str, float | None] = dict(self._values)
        for k in ("jobs", "procs"):
            if d[k] is not None:
                d[k] = int(d[k])  # type: ignore[assignment]
        return d

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in self._values.items())
        return f"Metrics({shown})"


def _fmt(v: float | None) -> str:
    return "None" if v is None else f"{v:.6g}"


def weighted_sum(weight: np.ndarray, value: np.ndarray) -> float:
    """sum_j w_j v_j with the same bits on every machine: numpy's own pairwise sum of the elementwise
    products, not ``np.dot``, whose BLAS kernel (chosen per CPU, split over its threads) rounds the
    last bit its own way once the partial sums pass 2^53 (CEA-Curie's AWRT differed between the
    Haswell and SkylakeX kernels; README "Replays")."""
    return float(np.sum(np.multiply(weight, value, dtype=np.float64)))


def _weighted_mean(weight: np.ndarray, value: np.ndarray) -> float | None:
    """sum w v / sum w, or None when the weights sum to zero."""
    total = float(weight.sum())
    if total <= 0.0:
        return None
    return weighted_sum(weight, value) / total


def _mean(value: np.ndarray) -> float | None:
    return float(value.mean()) if value.size else None


def compute_metrics(schedule: "Schedule", *, bound: float = 10.0, only: Collection[str] | None = None) -> Metrics:
    """Every basic objective of ``schedule`` (greedy-es-sorting-criteria, eq. (5)-(7)).

    With p_j = finish - start (the time the job actually ran), C_j = finish, r_j = submit,
    S_j = start and weight p_j m_j (resource consumption):

    - ``UTIL`` = 100 * sum p m / (m (max C - min (C - p))), eq. (5), **in percent** as the
      paper prints it (CTC EASY: 66.99); None when the schedule spans no time.
    - ``AWRT`` = sum p m (C - r) / sum p m, eq. (6); ``AWRT1``..``AWRT5`` the same over the jobs
      of user group i, eq. (7) (None when the group has no jobs or only jobs with p m = 0).
      Jobs of group 0 (unassigned) count in ``AWRT`` only.
    - ``AWWT`` = sum p m (S - r) / sum p m: the same weights, wait instead of response.
    - ``mean_wait`` = mean (S - r); ``mean_response`` = mean (C - r).
    - ``mean_slowdown`` = mean (C - r) / p over the jobs with p > 0: a job that ran for zero
      seconds has no defined slowdown and is left out (None when no job has p > 0).
    - ``mean_bounded_slowdown`` = mean max(1, (C - r) / max(p, bound)) over all jobs
      (Feitelson's bounded slowdown; ``bound`` > 0 seconds, default 10); ``BSLD1``..``BSLD5`` the
      same mean over the jobs of user group i (None when the group has no jobs).
    - ``makespan`` = max C - min r: from the first submit to the last completion.
    - ``p95_wait`` = the 95th percentile of S - r (numpy's default linear interpolation between
      order statistics); ``max_wait`` = max (S - r): the tail of the wait.
    - ``max_user_AWRT`` / ``mean_user_AWRT``: the largest / the plain mean of the per-user AWRT
      (eq. (6) over the jobs of one ``user``, see :func:`user_awrt`); users whose jobs have no
      weight p m are left out (None when no user is left).
    - ``jobs`` = number of jobs; ``procs`` = machine size m.

    Every value is None for a schedule without jobs, except ``jobs`` (0) and ``procs``.

    ``only``: compute just these metrics (the others read None), with the same operations, so the
    same bits; a speed path for a caller that evaluates one objective many times (schedlab.gym's
    rewards: the whole set costs about 0.4 ms on 256 jobs, mostly the percentile and per-user terms).
    """
    bound = float(bound)
    if not bound > 0.0:
        raise ValueError(f"bounded-slowdown bound must be > 0 seconds, got {bound}")
    w = schedule.workload
    n = len(w)
    m = int(schedule.machine.procs)
    values: dict[str, float | None] = {name: None for name in METRIC_NAMES}
    values["jobs"] = float(n)
    values["procs"] = float(m)
    if n == 0:
        return Metrics(values, bound=bound)

    start = np.asarray(schedule.start, dtype=np.float64)
    finish = np.asarray(schedule.finish, dtype=np.float64)
    submit = np.asarray(w.submit, dtype=np.float64)
    width = np.asarray(w.procs, dtype=np.float64)
    group = np.asarray(w.group)

    # rigid: finish - start; time-shared: the sum of the job's execution intervals
    p = np.asarray(schedule.processing, dtype=np.float64)
    area = p * width  # p_j m_j
    response = finish - submit  # C_j - r_j
    wait = start - submit  # S_j - r_j

    want = set(METRIC_NAMES if only is None else only).__contains__
    if want("UTIL"):
        span = float(finish.max() - start.min())  # max C - min (C - p)
        values["UTIL"] = 100.0 * float(area.sum()) / (m * span) if span > 0.0 else None
    if want("AWRT"):
        values["AWRT"] = _weighted_mean(area, response)
    for i in GROUPS:
        if want(f"AWRT{i}"):
            mask = group == i
            values[f"AWRT{i}"] = _weighted_mean(area[mask], response[mask]) if mask.any() else None
    if want("AWWT"):
        values["AWWT"] = _weighted_mean(area, wait)
    if want("mean_wait"):
        values["mean_wait"] = _mean(wait)
    if want("mean_response"):
        values["mean_response"] = _mean(response)
    if want("mean_slowdown"):
        ran = p > 0.0
        values["mean_slowdown"] = _mean(response[ran] / p[ran])
    if any(want(k) for k in ("mean_bounded_slowdown", *(f"BSLD{i}" for i in GROUPS))):
        bsld = np.maximum(1.0, response / np.maximum(p, bound))
        values["mean_bounded_slowdown"] = _mean(bsld)
        for i in GROUPS:
            values[f"BSLD{i}"] = _mean(bsld[group == i])
    if want("makespan"):
        values["makespan"] = float(finish.max() - submit.min())
    if want("p95_wait"):
        values["p95_wait"] = float(np.percentile(wait, 95))
    if want("max_wait"):
        values["max_wait"] = float(wait.max())
    if want("max_user_AWRT") or want("mean_user_AWRT"):
        per_user = _user_awrt(np.asarray(w.user), area, response)[1]
        if per_user.size:
            values["max_user_AWRT"] = float(per_user.max())
            values["mean_user_AWRT"] = float(per_user.mean())
    return Metrics(values, bound=bound)


def _user_awrt(user: np.ndarray, area: np.ndarray, response: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(users, their AWRT) for the users whose jobs have weight sum p m > 0."""
    users, inverse = np.unique(user, return_inverse=True)
    weight = np.bincount(inverse, weights=area, minlength=users.size)
    weighted = np.bincount(inverse, weights=area * response, minlength=users.size)
    has = weight > 0.0
    return users[has], weighted[has] / weight[has]


def user_awrt(schedule: "Schedule") -> dict[int, float]:
    """AWRT of every user (``workload.user``): sum p m (C - r) / sum p m over the user's jobs.

    Users whose jobs all have p m = 0 are left out. The per-user counterpart of eq. (7), which
    averages over user *groups*.
    """
    w = schedule.workload
    p = np.asarray(schedule.finish, dtype=np.float64) - np.asarray(schedule.start, dtype=np.float64)
    area = p * np.asarray(w.procs, dtype=np.float64)
    response = np.asarray(schedule.finish, dtype=np.float64) - np.asarray(w.submit, dtype=np.float64)
    users, values = _user_awrt(np.asarray(w.user), area, response)
    return {int(u): float(v) for u, v in zip(users, values)}
