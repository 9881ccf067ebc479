"""Compiled kernels of the environment: one decision and its observation in one call.

The observation of a job decision is a float32 vector filled in place (no Python per job):
``window`` slots of :data:`JOB_FEATURES` values each, the first ``window`` waiting jobs in queue
order (empty slots all zeros), then :data:`MACHINE_FEATURES`. Every value lies in [0, 1]:

- per job: present (1), wait w / (w + tau), estimate e / (e + tau) (tau = ``time_scale`` s), processors
  m_j / m, user group g / 5 (0 = unassigned), fits now (1 when m_j <= free processors);
- machine: free processors / m, waiting jobs q / (q + window), time to the earliest estimated end of
  a running job d / (d + tau) (0 when none runs or it is overdue), running jobs' processors / m
  whose estimated end is overdue (jobs not killed at their estimate may overrun).

``x / (x + tau)`` maps [0, inf) onto [0, 1) monotonically and keeps resolution around tau.
"""

from __future__ import annotations

from .._config import njit
from ..sim import step
from ..sim.ops import queue
from ..sim.state import EST, EST_H, EST_N, ESTEND, FREE, GROUP, M, SUBMIT, WIDTH, Jobs, Site

JOB_FEATURES = ("present", "wait", "estimate", "procs", "group", "fits")
MACHINE_FEATURES = ("free", "waiting", "next_estimated_end", "overdue")
NJ, NM = len(JOB_FEATURES), len(MACHINE_FEATURES)


@njit
def observe_jobs(J, S, now, obs, mask, tau):
    """Fill ``obs`` (window x NJ + NM) and ``mask`` (window) for a job decision at ``now``."""
    K = mask.shape[0]
    q = queue(S)
    nq = q.shape[0]
    m = S.ctr[M]
    free = S.ctr[FREE]
    nk = min(K, nq)
    for k in range(nk):
        j = q[k]
        b = k * NJ
        w = now - J.f[SUBMIT, j]
        e = J.f[EST, j]
        obs[b] = 1.0
        obs[b + 1] = w / (w + tau)
        obs[b + 2] = e / (e + tau)
        obs[b + 3] = J.i[WIDTH, j] / m
        obs[b + 4] = J.i[GROUP, j] / 5.0
        obs[b + 5] = 1.0 if J.i[WIDTH, j] <= free else 0.0
        mask[k] = 1
    for k in range(nk * NJ, K * NJ):
        obs[k] = 0.0
    for k in range(nk, K):
        mask[k] = 0
    b = K * NJ
    obs[b] = free / m
    obs[b + 1] = nq / (nq + K)
    d = 0.0
    over = 0
    for h in range(S.ctr[EST_N]):  # running jobs by estimated end
        j = S.i[EST_H, h]
        e = S.f[ESTEND, j] - now
        if e > 0.0:
            d = e
            break
        over += J.i[WIDTH, j]
    obs[b + 2] = d / (d + tau)
    obs[b + 3] = over / m


@njit
def job_step(J, S, cur, tf, slot, backfill, sd_mode, obs, mask, tau):
    """Job decision on the waiting job in window ``slot`` (clipped to the last filled one), then the
    next decision's observation; returns False at the end of the episode (obs then all zeros)."""
    q = queue(S)
    slot = min(slot, min(mask.shape[0], q.shape[0]) - 1)
    more = step.act_job(J, S, cur, tf, q[slot], backfill, sd_mode)
    if more:
        observe_jobs(J, S, tf[step.T_NOW], obs, mask, tau)
    else:
        obs[:] = 0.0
        mask[:] = 0
    return more


@njit
def pass_step(J, S, G, cur, tf, dispatch, order, sd_mode, x, obs):
    """Strategy decision (one pass with these codes), then the next decision's 7 rule-base
    features in ``x`` (float64) and ``obs`` (float32); returns False at the end of the episode."""
    more = step.act_pass(J, S, G, cur, tf, dispatch, order, sd_mode)
    if more:
        step.rule_features(S, tf, x)
    else:
        x[:] = 0.0
    for k in range(x.shape[0]):
        obs[k] = x[k]
    return more



@njit
def batch_job_step(Jf, Ji, ctr, x, si, sf, pt, pf, cur, tf, slots, live, backfill, sd_mode, obs, mask, tau, more):
    """:func:`job_step` for every live environment k of a batch whose states are stacked along the
    first axis (``Jf[k]``, ``Ji[k]`` its jobs; ``ctr[k]`` .. ``pf[k]`` its site); ``more[k]`` as it returns."""
    for k in range(slots.shape[0]):
        if live[k]:
            J = Jobs(Jf[k], Ji[k])
            S = Site(ctr[k], x[k], si[k], sf[k], pt[k], pf[k])
            more[k] = job_step(J, S, cur[k], tf[k], slots[k], backfill, sd_mode, obs[k], mask[k], tau)
