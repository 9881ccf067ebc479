"""Compiled kernels of the environment: one decision and its observation in one call.

The observation of a job decision is a float32 vector filled in place (no Python per job):
``window`` slots of :data:`JOB_FEATURES` values each, the first ``window`` waiting jobs in queue
order (empty slots all zeros), then :data:`MACHINE_FEATURES`. Every value lies in [0, 1]:

- per job: present (1), wait w / (w + tau), estimate e / (e + tau) (tau = ``time_scale`` s), processors
  m_j / m, user group g / 5 (0 = unassigned), fits now (1 when m_j <= free processors);
- machine: free processors / m, waiting jobs q / (q + window), time to the earliest estimated end of
  a running job d / (d + tau) (0 when none runs or it is overdue), running jobs' processors / m
  whose estimated end is overdue (jobs not killed at their estimate may overrun).

``x / (x + tau)`` maps [0, inf) onto [0, 1) monotonically and keeps resolution around tau. A job's
estimate, processors and group values do not change while it waits: :func:`static_features` computes
them once per episode (the same float64 operations, so the same float32 values), the kernel copies them.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types as nt
from numba.experimental import jitclass

from .._config import NJIT_FLAGS, njit
from ..sim import step
from ..sim.ops import queue
from ..sim.state import EST, EST_H, EST_N, ESTEND, FREE, GROUP, M, SUBMIT, WIDTH, Jobs, Site

JOB_FEATURES = ("present", "wait", "estimate", "procs", "group", "fits")
MACHINE_FEATURES = ("free", "waiting", "next_estimated_end", "overdue")
NJ, NM = len(JOB_FEATURES), len(MACHINE_FEATURES)


def static_features(J, m: int, tau: float) -> np.ndarray:
    """Per job of ``J`` (its column order): estimate e / (e + tau), processors m_j / m, user group g / 5,
    as float32 rows (the observation's per-job values that do not change while the job waits)."""
    out = np.empty((J.f.shape[1], 3), dtype=np.float32)
    e = J.f[EST]
    out[:, 0] = e / (e + tau)
    out[:, 1] = J.i[WIDTH] / m
    out[:, 2] = J.i[GROUP] / 5.0
    return out


@njit
def observe_jobs(J, S, now, obs, mask, tau, feat):
    """Fill ``obs`` (window x NJ + NM) and ``mask`` (window) for a job decision at ``now``; ``feat``:
    :func:`static_features` of ``J``."""
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
        obs[b] = 1.0
        obs[b + 1] = w / (w + tau)
        obs[b + 2] = feat[j, 0]
        obs[b + 3] = feat[j, 1]
        obs[b + 4] = feat[j, 2]
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
def job_step(J, S, cur, tf, slot, backfill, sd_mode, obs, mask, tau, feat):
    """Job decision on the waiting job in window ``slot`` (clipped to the last filled one), then the
    next decision's observation; returns False at the end of the episode (obs then all zeros)."""
    q = queue(S)
    slot = min(slot, min(mask.shape[0], q.shape[0]) - 1)
    more = step.act_job(J, S, cur, tf, q[slot], backfill, sd_mode)
    if more:
        observe_jobs(J, S, tf[step.T_NOW], obs, mask, tau, feat)
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
def batch_job_step(Jf, Ji, ctr, x, si, sf, pt, pf, cur, tf, feat, slots, live, backfill, sd_mode, obs, mask, tau, more):
    """:func:`job_step` for every live environment k of a batch whose states are stacked along the
    first axis (``Jf[k]``, ``Ji[k]`` its jobs, ``feat[k]`` their static features; ``ctr[k]`` .. ``pf[k]``
    its site); ``more[k]`` as it returns."""
    for k in range(slots.shape[0]):
        if live[k]:
            J = Jobs(Jf[k], Ji[k])
            S = Site(ctr[k], x[k], si[k], sf[k], pt[k], pf[k])
            more[k] = job_step(J, S, cur[k], tf[k], slots[k], backfill, sd_mode, obs[k], mask[k], tau, feat[k])


_F2, _I2, _F1, _I1 = nt.float64[:, ::1], nt.int64[:, ::1], nt.float64[::1], nt.int64[::1]


@jitclass([("Jf", _F2), ("Ji", _I2), ("ctr", _I1), ("x", _F1), ("si", _I2), ("sf", _F2), ("pt", _F1), ("pf", _I1),
           ("cur", _I1), ("tf", _F1), ("obs", nt.float32[::1]), ("mask", nt.int8[::1]), ("feat", nt.float32[:, ::1]),
           ("backfill", nt.int64),
           ("sd_mode", nt.int64), ("tau", nt.float64)])
class Bundle:
    """One environment's whole state as one object (the same arrays, not copies): the step call takes
    this and the action only. Why: numba types a namedtuple argument in Python on every call (``Jobs``
    and ``Site`` as 10 separate arrays cost about 8 µs a call here), a jitclass in about 1 µs."""

    def __init__(self, Jf, Ji, ctr, x, si, sf, pt, pf, cur, tf, obs, mask, feat, backfill, sd_mode, tau):
        self.Jf, self.Ji, self.ctr, self.x, self.si, self.sf, self.pt, self.pf = Jf, Ji, ctr, x, si, sf, pt, pf
        self.cur, self.tf, self.obs, self.mask, self.feat = cur, tf, obs, mask, feat
        self.backfill, self.sd_mode, self.tau = backfill, sd_mode, tau


def bundle(J, S, cur, tf, obs, mask, feat, backfill: int, sd_mode: int, tau: float) -> Bundle:
    """The :class:`Bundle` over these arrays (each must be C-contiguous: they are shared, never copied)."""
    arrays = (*J, *S, cur, tf, obs, mask, feat)
    if not all(a.flags.c_contiguous for a in arrays):
        raise ValueError("schedlab.gym: the state arrays of a bundle must be C-contiguous")
    return Bundle(*arrays, int(backfill), int(sd_mode), float(tau))


# not cached (numba cannot cache a function of a jitclass); the kernels it calls are
@numba.njit(**{**NJIT_FLAGS, "cache": False})
def bundle_step(B, slot):
    """:func:`job_step` on a :class:`Bundle`: one decision, then the next observation in ``B.obs``."""
    return job_step(Jobs(B.Jf, B.Ji), Site(B.ctr, B.x, B.si, B.sf, B.pt, B.pf), B.cur, B.tf, slot, B.backfill,
                    B.sd_mode, B.obs, B.mask, B.tau, B.feat)


def stepper(B: Bundle):
    """:func:`bundle_step` compiled for ``B``'s type, as a callable that skips numba's dispatcher.
    Why: the dispatcher types every argument on every call, and a jitclass instance costs about
    1.5 µs of a 3.5 µs step here (lublin_256, EASY); the compiled entry point takes the
    :class:`Bundle` and an int directly (only ever called with those, by :class:`~.env.SchedEnv`)."""
    return bundle_step.compile((numba.typeof(B), nt.int64))
