"""Plan recording of the time-sharing engine: what the group optimiser committed to, for the
validator's independent replay (rule 6 of :mod:`schedlab.sim.validate_ts`; the API's
:class:`~schedlab.sim.timeshare.PlanLog` describes the record; the event order is stated once, in
the docstring of :mod:`schedlab.sim.timeshare`).

The record is a tuple of growable arrays (:func:`_new_record`: pass id, time and class of each
pass with a plan; offsets into its plan jobs with their virtual starts and into its backfilled
jobs; the launch log of every pass: job, time, pass id) and a vector of counts with the slots
``R_*``. :func:`_record_plan` appends a pass's plan, :func:`_log_launches` closes a pass,
:func:`_record_arrays` gives the trimmed arrays.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_nodes import _grow

#: slots of the counts vector: records (passes with a plan), plan jobs, backfilled jobs, launches, passes
R_RECORDS, R_PLAN_JOBS, R_BACKFILLS, R_LAUNCHES, R_PASSES = range(5)
R_LEN = 5


@njit
def _new_record():
    """(plan record arrays, launch log arrays, counts)."""
    rec = (np.empty(64, np.int64), np.empty(64, np.float64), np.empty(64, np.int64),
           np.zeros(65, np.int64), np.zeros(65, np.int64),  # rc_poff[k], rc_boff[k]: entries before record k
           np.empty(256, np.int64), np.empty(256, np.float64), np.empty(64, np.int64))
    log = (np.empty(64, np.int64), np.empty(64, np.float64), np.empty(64, np.int64))
    return rec, log, np.zeros(R_LEN, np.int64)


@njit
def _record_plan(rec, cnt, t, c, plan, pn, vs, bfs, nb):
    """Append the plan committed to in this pass: its jobs ``plan[c, :pn]`` with their virtual starts
    ``vs[:pn]`` and the jobs ``bfs[:nb]`` backfilled in it; the record (arrays grown as needed)."""
    rc_pid, rc_t, rc_c, rc_poff, rc_boff, pj_j, pj_v, bj = rec
    nrc, npj, nbj = cnt[R_RECORDS], cnt[R_PLAN_JOBS], cnt[R_BACKFILLS]
    rc_pid = _grow(rc_pid, nrc)
    rc_t = _grow(rc_t, nrc)
    rc_c = _grow(rc_c, nrc)
    rc_pid[nrc] = cnt[R_PASSES]
    rc_t[nrc] = t
    rc_c[nrc] = c
    nrc += 1
    for a in range(pn):
        pj_v = _grow(pj_v, npj)
        pj_j = _grow(pj_j, npj)
        pj_j[npj] = plan[c, a]
        pj_v[npj] = vs[a]
        npj += 1
    for a in range(nb):
        bj = _grow(bj, nbj)
        bj[nbj] = bfs[a]
        nbj += 1
    rc_poff = _grow(rc_poff, nrc)
    rc_boff = _grow(rc_boff, nrc)
    rc_poff[nrc] = npj
    rc_boff[nrc] = nbj
    cnt[R_RECORDS] = nrc
    cnt[R_PLAN_JOBS] = npj
    cnt[R_BACKFILLS] = nbj
    return rc_pid, rc_t, rc_c, rc_poff, rc_boff, pj_j, pj_v, bj


@njit
def _log_launches(log, cnt, run, run0, run_n, t):
    """Close a pass: the jobs it started or resumed (``run[run0:run_n]``: no job leaves run[] during a
    pass) enter the launch log with its pass id; the log."""
    lg_j, lg_t, lg_p = log
    nlg = cnt[R_LAUNCHES]
    for r in range(run0, run_n):
        lg_j = _grow(lg_j, nlg)
        lg_t = _grow(lg_t, nlg)
        lg_p = _grow(lg_p, nlg)
        lg_j[nlg] = run[r]
        lg_t[nlg] = t
        lg_p[nlg] = cnt[R_PASSES]
        nlg += 1
    cnt[R_LAUNCHES] = nlg
    cnt[R_PASSES] += 1
    return lg_j, lg_t, lg_p


@njit
def _record_arrays(rec, log, cnt):
    """The trimmed arrays in :class:`~schedlab.sim.timeshare.PlanLog`'s order: pass id, time, class,
    plan offsets, plan jobs, virtual starts, backfill offsets, backfilled jobs, launch job, time, pass."""
    rc_pid, rc_t, rc_c, rc_poff, rc_boff, pj_j, pj_v, bj = rec
    lg_j, lg_t, lg_p = log
    nrc, npj, nbj, nlg = cnt[R_RECORDS], cnt[R_PLAN_JOBS], cnt[R_BACKFILLS], cnt[R_LAUNCHES]
    return (rc_pid[:nrc].copy(), rc_t[:nrc].copy(), rc_c[:nrc].copy(), rc_poff[:nrc + 1].copy(), pj_j[:npj].copy(),
            pj_v[:npj].copy(), rc_boff[:nrc + 1].copy(), bj[:nbj].copy(), lg_j[:nlg].copy(), lg_t[:nlg].copy(),
            lg_p[:nlg].copy())
