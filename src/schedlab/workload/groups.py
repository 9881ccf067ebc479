"""User groups by resource consumption (greedy-es-sorting-criteria Eqs. 2-4 and Table II).

RC_u = sum over u's jobs of p_j * m_j (actual runtime x processors), RC = sum over all jobs; user u
with share s = RC_u / RC is in group 1 if s > 8 %, 2 if 2 % <= s <= 8 %, 3 if 1 % <= s < 2 %,
4 if 0.1 % <= s < 1 %, else 5 (method-notes topic 2; group 1 = heaviest users). SWF user id -1
(unknown) is one pseudo-user.
"""

from __future__ import annotations

import numpy as np

from ..errors import WorkloadError
from .model import Workload

__all__ = ["DEFAULT_THRESHOLDS", "assign_groups", "group_shares", "user_shares"]

DEFAULT_THRESHOLDS: tuple[float, ...] = (0.08, 0.02, 0.01, 0.001)


def _area(workload: Workload) -> np.ndarray:
    return np.maximum(workload.runtime, 0.0) * np.maximum(workload.procs, 0)


def user_shares(workload: Workload) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(users, share, job_user_index)``: each distinct user id, its share RC_u / RC (Eq. 2-3)."""
    area = _area(workload)
    total = float(area.sum())
    if not total > 0:
        raise WorkloadError(f"{workload.name or 'the trace'}: no resource consumption (sum of runtime x procs is 0); clean it first")
    users, inverse = np.unique(workload.user, return_inverse=True)
    rc = np.bincount(inverse, weights=area, minlength=len(users))
    return users, rc / total, inverse


def assign_groups(workload: Workload, thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS) -> Workload:
    """The workload with ``group`` filled: 1 (heaviest users) .. len(thresholds)+1 (lightest).

    Table II of greedy-es-sorting-criteria: group 1 if s_u > thresholds[0], else group i+1 for the
    first i with s_u >= thresholds[i]; shares use the actual runtime, so clean the trace first.
    """
    th = np.asarray(thresholds, dtype=np.float64)
    if th.ndim != 1 or len(th) == 0 or not np.all((th > 0) & (th < 1)) or np.any(np.diff(th) >= 0):
        raise WorkloadError(f"group thresholds must be strictly decreasing shares in (0, 1), got {tuple(thresholds)}")
    _, share, inverse = user_shares(workload)
    group = np.full(share.shape, len(th) + 1, dtype=np.int64)
    for i in range(len(th) - 1, 0, -1):
        group[share >= th[i]] = i + 1
    group[share > th[0]] = 1
    return workload.replace(group=group[inverse])


def group_shares(workload: Workload) -> dict[int, dict[str, float]]:
    """Per group 1..5 (as filled by :func:`assign_groups`; 0 if unassigned jobs): users, jobs, shares of jobs and of p*m."""
    area = _area(workload)
    total = float(area.sum()) or 1.0
    n = max(len(workload), 1)
    out: dict[int, dict[str, float]] = {}
    present = set(np.unique(workload.group).tolist())
    groups = sorted(present | set(range(1, max(5, max(present, default=0)) + 1)) - ({0} - present))
    for g in groups:
        mask = workload.group == g
        out[int(g)] = {
            "users": int(len(np.unique(workload.user[mask]))),
            "jobs": int(mask.sum()),
            "job_share": float(mask.sum() / n),
            "area_share": float(area[mask].sum() / total),
        }
    return out
