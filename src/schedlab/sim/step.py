"""The resumable engine: the single-site loop of :mod:`.loop` split at scheduling decisions.

A Python policy (a learned network, a search) chooses at every decision; the engine advances to
the next one. The state is the engine's own (``Jobs``/``Site`` bundles of :mod:`.state`) plus a
small cursor, the site changes only through the engine's operations (:mod:`.ops`) and the
passes of :mod:`.dispatch` (``schedule_pass``, ``easy_pass``, ``head_reservation`` through it):
this is not a second simulator. Semantics are :func:`schedlab.sim.loop.site_loop`'s: at one
timestamp all finishes, then all arrivals, then the scheduling decisions of that time.

Two kinds of decision:

- **job** decisions (:func:`act_job`): the policy names a waiting job j. If j fits now it starts
  (and the decision time stays while some waiting job still fits: the rest of the same pass);
  otherwise j becomes the head of the queue for this pass (the job whose reservation backfilling
  must not delay) and the configured backfilling runs over the other waiting jobs in queue order
  (``BF_NONE``: none, FCFS; ``BF_EASY``: :func:`schedlab.sim.dispatch.easy_pass`), and time moves on.
  ``BF_CONSERVATIVE``: every job decision is one :func:`schedlab.sim.dispatch.conservative_pass`
  with j first and the other waiting jobs in queue order (j holds the first reservation: it
  starts if it fits; every other job starts only if that delays no earlier reservation), and time
  moves on. A decision is a time with a waiting job of which at least one fits now (elsewhere
  every choice starts nothing: FCFS and EASY passes there start nothing either, and change no state).
  Always naming the queue's first job is FCFS (``BF_NONE``), EASY (``BF_EASY``) or conservative
  backfilling (``BF_CONSERVATIVE``) exactly.
- **strategy** decisions (:func:`act_pass`): one whole ``schedule_pass`` with the dispatch and
  order codes the policy picks (the 13 strategies of a rule base, :func:`schedlab.sim.rulebase.strategy_codes`);
  a decision is every time with a waiting job, as in :func:`schedlab.sim.rulebase.rules_loop`.

The cursor ``cur`` (int64, :data:`N_CUR`) and ``tf`` (float64, :data:`N_TF`) hold the loop's own
variables between calls (next arrival, decision time) and the running sums of the rule-base
features (SD over finished jobs, waiting \\bar p m per user group), updated by deltas exactly as
``rules_loop`` does. A snapshot of the whole state is a copy of ``Site``'s arrays, ``cur`` and ``tf``
(``Jobs`` is read-only).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .dispatch import _compact, conservative_pass, easy_pass, schedule_pass
from .ops import enqueue, next_finish, queue, release_finished, start_job, waiting
from .state import AUX_H, DIRTY, ENDLOG, EST, FIN_N, FINISH, FREE, GROUP, M, NLOG, PROC, STARTLOG, SUBMIT, WIDTH

#: cursor slots: next arrival (job number), 1 while at a decision, decisions taken, episode's first job
C_NEXT, C_AT, C_STEPS, C_FIRST = 0, 1, 2, 3
N_CUR = 4
#: float slots: decision time, SD numerator and denominator, waiting \bar p m of user groups 0..5
T_NOW, T_SDN, T_SDD, T_RCG = 0, 1, 2, 3
N_TF = T_RCG + 6
#: backfilling of a job decision: none (FCFS) or EASY after a job that does not fit; conservative
#: on every decision (the named job first in its reservation order)
BF_NONE, BF_EASY, BF_CONSERVATIVE = 0, 1, 2
#: SD of the rule-base features: per job (clipped per job) or of the means (rulebase.SD_MODES)
SD_JOB = 0


def new_cursor(first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A cursor at the start of a run (no event processed); ``first``: jobs before it are the warm-up."""
    cur = np.zeros(N_CUR, dtype=np.int64)
    cur[C_FIRST] = first
    return cur, np.zeros(N_TF)


@njit(inline="always")
def _any_fits(J, S):
    """Some waiting job fits in the free processors now."""
    free = S.ctr[FREE]
    if free <= 0:
        return False
    q = queue(S)
    for k in range(q.shape[0]):
        if J.i[WIDTH, q[k]] <= free:
            return True
    return False


@njit(inline="always")
def _ended(J, S, tf, count, sd_mode):
    """The SD sums of the rule-base features for the ``count`` jobs the last release ended (as
    :func:`schedlab.sim.rulebase.rules_loop`)."""
    submit = J.f[SUBMIT]
    for h in range(count):
        j = S.i[ENDLOG, h]
        p = J.f[PROC, j]
        if p > 0.0:
            wgt = p * p * J.i[WIDTH, j]
            if sd_mode == SD_JOB:
                tf[T_SDN] += wgt * min(max((S.f[FINISH, j] - submit[j]) / p, 1.0), 100.0)
            else:
                tf[T_SDN] += p * J.i[WIDTH, j] * (S.f[FINISH, j] - submit[j])
            tf[T_SDD] += wgt


@njit(inline="always")
def _started(J, S, tf):
    """The waiting \\bar p m per group loses the jobs started since the log was cleared."""
    for h in range(S.ctr[NLOG]):
        j = S.i[STARTLOG, h]
        tf[T_RCG + J.i[GROUP, j]] -= J.f[EST, j] * J.i[WIDTH, j]
    S.ctr[NLOG] = 0


@njit
def advance(J, S, cur, tf, need_fit, sd_mode):
    """Run the loop to the next decision; True at one (time in ``tf[T_NOW]``), False at the end
    (every job started). ``need_fit``: job decisions (a waiting job must fit), else strategy ones."""
    submit = J.f[SUBMIT]
    n = submit.shape[0]
    i = cur[C_NEXT]
    if cur[C_AT] == 1:  # still at a decision time: the rest of its pass
        if need_fit and _any_fits(J, S):
            return True
        cur[C_AT] = 0
    while i < n or S.ctr[FIN_N] > 0:
        if i >= n and waiting(S) == 0:
            break  # every job started: what is left are finishes, decided by now
        now = np.inf
        if i < n:
            now = submit[i]
        t = next_finish(S)
        if t <= now:
            now = t
            _ended(J, S, tf, release_finished(J, S, now), sd_mode)
        while i < n and submit[i] <= now:
            enqueue(J, S, i)
            tf[T_RCG + J.i[GROUP, i]] += J.f[EST, i] * J.i[WIDTH, i]
            i += 1
        if waiting(S) > 0 and (not need_fit or _any_fits(J, S)):
            cur[C_NEXT] = i
            cur[C_AT] = 1
            tf[T_NOW] = now
            return True
    cur[C_NEXT] = i
    cur[C_AT] = 0
    return False


@njit(inline="always")
def _first(S, q, j):
    """The waiting jobs with j first, then the others in queue order (a scratch row of S)."""
    view = S.i[AUX_H, :q.shape[0]]
    view[0] = j
    k = 1
    for h in range(q.shape[0]):
        if q[h] != j:
            view[k] = q[h]
            k += 1
    return view


@njit
def act_job(J, S, cur, tf, j, backfill, sd_mode):
    """Job decision on waiting job ``j`` at the decision time (see the module docstring), then
    :func:`advance`; returns advance's answer."""
    now = tf[T_NOW]
    S.ctr[NLOG] = 0
    cur[C_STEPS] += 1
    if backfill == BF_CONSERVATIVE:
        q = queue(S)
        if q[0] == j:  # queue order: the reservations kept from the last pass stay valid
            started = conservative_pass(J, S, q, now)
        else:
            S.ctr[DIRTY] = 1  # reservations in another order than the queue's: made anew now
            started = conservative_pass(J, S, _first(S, q, j), now)
            S.ctr[DIRTY] = 1  # ... and again at the next pass, in its order
        _compact(S, started)
        _started(J, S, tf)
        cur[C_AT] = 0
        return advance(J, S, cur, tf, True, sd_mode)
    if J.i[WIDTH, j] <= S.ctr[FREE]:
        start_job(J.f, J.i, S.ctr, S.i, S.f, j, now)
        _compact(S, 1)
        _started(J, S, tf)
        return advance(J, S, cur, tf, True, sd_mode)
    if backfill == BF_EASY:
        started = easy_pass(J, S, _first(S, queue(S), j), now)
        _compact(S, started)
        _started(J, S, tf)
    cur[C_AT] = 0
    return advance(J, S, cur, tf, True, sd_mode)


@njit
def act_pass(J, S, G, cur, tf, dispatch, order, sd_mode):
    """Strategy decision: one ``schedule_pass`` with these codes at the decision time, then
    :func:`advance`; returns advance's answer."""
    cur[C_STEPS] += 1
    schedule_pass(J, S, G, dispatch, order, tf[T_NOW])
    _started(J, S, tf)
    cur[C_AT] = 0
    return advance(J, S, cur, tf, False, sd_mode)


@njit
def play_first(J, S, cur, tf, backfill, until, sd_mode):
    """Take job decisions on the queue's first job until job ``until`` has arrived (a warm machine:
    the jobs before an episode's window run as FCFS/EASY) or the end; returns advance's answer."""
    more = advance(J, S, cur, tf, True, sd_mode)
    while more and cur[C_NEXT] <= until:
        more = act_job(J, S, cur, tf, queue(S)[0], backfill, sd_mode)
    return more


@njit
def rule_features(S, tf, x):
    """The 7 rule-base features into ``x`` (genetic-fuzzy-rule-based-scheduling Section 3.2, as
    :func:`schedlab.sim.rulebase.rules_loop` computes them before a pass)."""
    sd = 1.0
    if tf[T_SDD] > 0.0:
        sd = min(max(tf[T_SDN] / tf[T_SDD], 1.0), 100.0)
    m = S.ctr[M]
    x[0] = sd
    x[1] = 100.0 * (m - S.ctr[FREE]) / m
    tot = tf[T_RCG] + tf[T_RCG + 1] + tf[T_RCG + 2] + tf[T_RCG + 3] + tf[T_RCG + 4] + tf[T_RCG + 5]
    for g in range(1, 6):
        x[1 + g] = 100.0 * tf[T_RCG + g] / tot if tot > 0.0 else 0.0


@njit
def run_first(J, S, cur, tf, backfill):
    """The whole run with the queue's first job at every job decision (FCFS or EASY; tests and benchmarks)."""
    more = advance(J, S, cur, tf, True, SD_JOB)
    steps = 0
    while more:
        more = act_job(J, S, cur, tf, queue(S)[0], backfill, SD_JOB)
        steps += 1
    return steps


def snapshot(S, cur, tf) -> tuple:
    """A copy of the whole mutable state (``Site`` arrays, cursor); ``Jobs`` is read-only and shared."""
    return (tuple(a.copy() for a in S), cur.copy(), tf.copy())


def restore(S, cur, tf, snap) -> None:
    """Put ``snap`` (from :func:`snapshot`) back into the same arrays, in place."""
    arrays, c, t = snap
    for a, b in zip(S, arrays):
        a[...] = b
    cur[...] = c
    tf[...] = t

