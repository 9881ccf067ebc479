"""Rule 6 of the time-shared schedule validator (:mod:`schedlab.sim.validate_ts`, whose docstring
states the rule and its readings): every plan the group optimiser or the bottom line committed is
replayed against the schedule, so a backfill that delayed a planned job, or a plan that moved
earlier or later than its pass allows, is refused. Split from the sweep of rules 1-5 because the
replay is its own machine (a processor profile per pass, plan placement, continuity between
passes) and needs none of theirs."""

from __future__ import annotations

import numpy as np

from .._config import njit
from .invalid import ScheduleInvalid


_TOL = 1e-6  # seconds of virtual time
#: two profile breakpoints closer than this are one instant: times are sums of whole seconds and
#: slice arithmetic, whose float noise (6e-11 s after half a million seconds) must not open slivers
#: that a plan cannot use (the first-fit test below already ignores steps shorter than it)
_SAME = 1e-9


@njit
def _profile(rem, wid, k, m, T, F):
    """Free processors of a machine of m where item i holds ``wid[i]`` from 0 to ``rem[i]``: step
    function T[0] = 0 < T[1] < ..., F[i] free on [T[i], T[i+1]); returns the number of steps."""
    busy = 0
    for i in range(k):
        busy += wid[i]
    T[0] = 0.0
    F[0] = m - busy
    P = 1
    for i in np.argsort(rem[:k]):
        if rem[i] <= T[P - 1] + _SAME:
            F[P - 1] += wid[i]
        else:
            T[P] = rem[i]
            F[P] = F[P - 1] + wid[i]
            P += 1
    return P


@njit
def _first_fit(T, F, P, w, d):
    """Earliest s >= 0 with w free throughout [s, s + d) (after the last step everything is free)."""
    for i in range(P):
        if F[i] < w:
            continue
        ok = True
        for j in range(i + 1, P):
            if T[j] >= T[i] + d - _SAME:
                break
            if F[j] < w:
                ok = False
                break
        if ok:
            return T[i]
    return T[P - 1]


@njit
def _cut(T, F, P, x):
    """Index of a step starting at x (inserted if needed) and the new number of steps."""
    i = P - 1
    while i > 0 and T[i] > x + _SAME:
        i -= 1
    if abs(T[i] - x) <= _SAME:
        return i, P
    T[i + 2:P + 1] = T[i + 1:P].copy()
    F[i + 2:P + 1] = F[i + 1:P].copy()
    T[i + 1] = x
    F[i + 1] = F[i]
    return i + 1, P + 1


@njit
def _take(T, F, P, a, b, w):
    if b <= a:
        return P
    i, P = _cut(T, F, P, a)
    j, P = _cut(T, F, P, b)
    for q in range(i, j):
        F[q] -= w
    return P


@njit
def _place(jobs, est, width, m, rem, wid, k, T, F, out):
    """Virtually schedule ``jobs`` in order (each at its earliest fit given the items and the jobs
    before it, thesis 6.3.1) into ``out``."""
    P = _profile(rem, wid, k, m, T, F)
    for a in range(jobs.shape[0]):
        j = jobs[a]
        x = _first_fit(T, F, P, width[j], est[j])
        out[a] = x
        P = _take(T, F, P, x, x + est[j], width[j])


@njit
def _replay(n, m, est, width, cls, iv_job, iv_s, iv_e, iv_lp, iv_first, iv_last, r_pid, r_t, r_c, r_send, poff, pjob,
            pv, boff, bjob):
    """Rule 6 replay; (code, record, job, a, b) of the first violation or code 0 (see _check_plans)."""
    nv = iv_job.shape[0]
    nz = np.flatnonzero(iv_e > iv_s)  # zero-length intervals never occupy anything between passes
    os_ = nz[np.argsort(iv_s[nz], kind="mergesort")]
    oe = nz[np.argsort(iv_e[nz], kind="mergesort")]
    nnz = nz.shape[0]
    done = np.zeros(n, np.float64)
    act_k = np.full(n, -1, np.int64)  # the interval a job is in (started before the pass time)
    act = np.empty(n, np.int64)
    act_pos = np.full(n, -1, np.int64)
    na = 0
    pre = np.empty((3, n), np.int64)  # jobs between two intervals, per class
    pre_pos = np.full(n, -1, np.int64)
    npre = np.zeros(3, np.int64)
    role = np.zeros(n, np.int64)  # this record: 1 planned, 2 backfilled
    hit = np.zeros(n, np.bool_)  # this record: started in the pass
    skip = np.zeros(n, np.bool_)  # this record: not preempted any more
    s_all = np.argsort(iv_s, kind="mergesort")
    qa = 0
    ps = 0
    pe = 0
    cap = 2 * (n + 4 * 64) + 8
    rem = np.empty(n + 64, np.float64)
    wid = np.empty(n + 64, np.int64)
    T = np.empty(cap, np.float64)
    F = np.empty(cap, np.int64)
    v1 = np.empty(64, np.float64)
    v2 = np.empty(64, np.float64)
    for r in range(r_pid.shape[0]):
        t = r_t[r]
        pid = r_pid[r]
        c = r_c[r]
        # advance to t: ends before starts at one time; an interval ending at t ended before any pass
        while True:
            te = iv_e[oe[pe]] if pe < nnz else np.inf
            ts = iv_s[os_[ps]] if ps < nnz else np.inf
            if te <= t and te <= ts:
                k = oe[pe]
                j = iv_job[k]
                done[j] += iv_e[k] - iv_s[k]
                act_k[j] = -1
                na -= 1
                x = act[na]
                act[act_pos[j]] = x
                act_pos[x] = act_pos[j]
                act_pos[j] = -1
                if k != iv_last[j]:
                    pre[cls[j], npre[cls[j]]] = j
                    pre_pos[j] = npre[cls[j]]
                    npre[cls[j]] += 1
                pe += 1
            elif ts < t:
                k = os_[ps]
                j = iv_job[k]
                if pre_pos[j] >= 0:
                    q = cls[j]
                    npre[q] -= 1
                    x = pre[q, npre[q]]
                    pre[q, pre_pos[j]] = x
                    pre_pos[x] = pre_pos[j]
                    pre_pos[j] = -1
                act_k[j] = k
                act[na] = j
                act_pos[j] = na
                na += 1
                ps += 1
            else:
                break
        while qa < nv and iv_s[s_all[qa]] < t:
            qa += 1
        for a in range(poff[r], poff[r + 1]):
            j = pjob[a]
            if role[j] != 0:
                return 9, r, j, 0.0, 0.0
            role[j] = 1
            if act_k[j] >= 0 or done[j] > 0 or iv_s[iv_first[j]] < t:
                return 4, r, j, iv_s[iv_first[j]], 0.0
        for a in range(boff[r], boff[r + 1]):
            j = bjob[a]
            if role[j] != 0:
                return 9, r, j, 0.0, 0.0
            role[j] = 2
        # the profile before the pass's own placements: running jobs, preempted jobs of the class
        k_n = 0
        for a in range(na):
            j = act[a]
            rem[k_n] = est[j] - done[j] - (t - iv_s[act_k[j]])
            wid[k_n] = j  # job for now, width below
            k_n += 1
        code = 0
        bad = -1
        q = qa
        while q < nv and iv_s[s_all[q]] == t:
            k = s_all[q]
            j = iv_job[k]
            lp = iv_lp[k]
            q += 1
            if lp > pid:  # started by a later pass at t: waiting or preempted now
                continue
            skip[j] = True
            if role[j] != 0 and lp != pid:  # started by an earlier pass at t (or goes on after a pause)
                code, bad = 4 if role[j] == 1 else 6, j
                continue
            if lp < pid and iv_e[k] == t:  # a zero-length run of an earlier pass: over
                continue
            if lp == pid:
                hit[j] = True
                if role[j] == 1:
                    if k != iv_first[j]:
                        code, bad = 4, j
                    continue
                if role[j] == 2:
                    continue
                if cls[j] != c or k == iv_first[j]:  # only resumes of the class's preempted jobs
                    code, bad = 5, j
                    continue
            rem[k_n] = est[j] - done[j]
            wid[k_n] = j
            k_n += 1
        if code == 0:
            for a in range(boff[r], boff[r + 1]):
                if not hit[bjob[a]]:
                    code, bad = 6, bjob[a]
                    break
        if code == 0:
            for a in range(npre[c]):
                j = pre[c, a]
                if not skip[j]:
                    rem[k_n] = est[j] - done[j]
                    wid[k_n] = j
                    k_n += 1
        for a in range(k_n):
            j = wid[a]
            if cls[j] != c:  # other classes run at most until the slice ends
                rem[a] = min(rem[a], r_send[r] - t)
            rem[a] = max(rem[a], 0.0)
            wid[a] = width[j]
        # reset the per-record flags
        q = qa
        while q < nv and iv_s[s_all[q]] == t:
            hit[iv_job[s_all[q]]] = False
            skip[iv_job[s_all[q]]] = False
            q += 1
        for a in range(poff[r], poff[r + 1]):
            role[pjob[a]] = 0
        for a in range(boff[r], boff[r + 1]):
            role[bjob[a]] = 0
        if code != 0:
            return code, r, bad, 0.0, 0.0
        jobs = pjob[poff[r]:poff[r + 1]]
        prom = pv[poff[r]:poff[r + 1]]
        _place(jobs, est, width, m, rem, wid, k_n, T, F, v1)
        for a in range(jobs.shape[0]):
            if abs(v1[a] - prom[a]) > _TOL * max(1.0, abs(prom[a])):
                return 7, r, jobs[a], prom[a], v1[a]
        # the profile after the pass: + the backfilled jobs + the planned jobs started now
        for a in range(boff[r], boff[r + 1]):
            j = bjob[a]
            x = est[j] - done[j]
            if cls[j] != c:
                x = min(x, r_send[r] - t)
            rem[k_n] = max(x, 0.0)
            wid[k_n] = width[j]
            k_n += 1
        nw = 0
        waiting = np.empty(jobs.shape[0], np.int64)
        wprom = np.empty(jobs.shape[0], np.float64)
        for a in range(jobs.shape[0]):
            j = jobs[a]
            if iv_s[iv_first[j]] == t and iv_lp[iv_first[j]] == pid:
                if prom[a] > _TOL:
                    return 8, r, j, prom[a], 0.0
                rem[k_n] = est[j]
                wid[k_n] = width[j]
                k_n += 1
            else:
                waiting[nw] = j
                wprom[nw] = prom[a]
                nw += 1
        _place(waiting[:nw], est, width, m, rem, wid, k_n, T, F, v2)
        for a in range(nw):
            if v2[a] > wprom[a] + _TOL * max(1.0, abs(wprom[a])):
                return 1, r, waiting[a], wprom[a], v2[a]
    return 0, -1, -1, 0.0, 0.0


@njit
def _match(lj, lt, first_iv, last_iv, s):
    """The interval of job lj[i] starting at lt[i] (intervals sorted by job, then start), or -1."""
    out = np.full(lj.shape[0], -1, np.int64)
    for i in range(lj.shape[0]):
        j = lj[i]
        a = first_iv[j] + np.searchsorted(s[first_iv[j]: last_iv[j] + 1], lt[i])
        if a <= last_iv[j] and s[a] == lt[i]:
            out[i] = a
    return out


@njit
def _continuity(r_pid, r_t, r_c, r_slice, poff, pjob, pv, s_first, lp_first, early):
    """Rule 6 (e): (record, job, earlier promise less the time gone by, promise) of the first
    planned job that moved later between two passes of one continuing plan, or record -1."""
    prev = np.full(3, -1, np.int64)
    for r in range(r_pid.shape[0]):
        c = r_c[r]
        q = prev[c]
        prev[c] = r
        if q < 0 or r_slice[q] != r_slice[r]:
            continue
        t1, t2 = r_t[q], r_t[r]
        # the same plan continued: r's plan is q's plan without the jobs started since, in order
        a2 = poff[r]
        same = True
        due = False
        for a in range(poff[q], poff[q + 1]):
            j = pjob[a]
            if s_first[j] < t2 or (s_first[j] == t2 and lp_first[j] < r_pid[r]):
                continue
            if a2 >= poff[r + 1] or pjob[a2] != j:
                same = False
                break
            if pv[a] - (t2 - t1) < -_TOL:
                due = True  # a due planned job did not start: re-placement may move the others
            a2 += 1
        if not same or a2 != poff[r + 1] or due:
            continue
        if np.searchsorted(early, t2, side="right") > np.searchsorted(early, t1, side="left"):
            continue  # a job ended before its estimate in [t1, t2]
        a2 = poff[r]
        for a in range(poff[q], poff[q + 1]):
            if a2 < poff[r + 1] and pjob[a] == pjob[a2]:
                bound = max(0.0, pv[a] - (t2 - t1))
                if pv[a2] > bound + _TOL * max(1.0, bound):
                    return r, pjob[a2], bound, pv[a2]
                a2 += 1
    return -1, -1, 0.0, 0.0


def _check_plans(schedule, first_iv, last_iv) -> None:
    """Rule 6: replay every plan the optimiser committed to against the schedule (module docstring)."""
    ts = schedule.timeshare
    pl = getattr(ts, "plans", None)
    if pl is None:
        raise ScheduleInvalid("the schedule of a group optimiser carries no plan record (rule 6 cannot be checked)")
    w = schedule.workload
    n = len(w)
    ids = w.id
    job, s, e = ts.iv_job.astype(np.int64), ts.iv_start, ts.iv_end
    nr = pl.pass_id.shape[0]
    poff, boff = np.asarray(pl.plan_off, np.int64), np.asarray(pl.bf_off, np.int64)
    if (poff.shape != (nr + 1,) or boff.shape != (nr + 1,) or poff[0] != 0 or boff[0] != 0 or np.any(np.diff(poff) < 0)
            or np.any(np.diff(boff) < 0) or poff[-1] != pl.plan_job.shape[0] or boff[-1] != pl.bf_job.shape[0]
            or pl.plan_start.shape != pl.plan_job.shape or pl.time.shape != (nr,) or pl.cls.shape != (nr,)):
        raise ScheduleInvalid("the plan record's offsets do not match its job lists")
    if np.any(np.diff(poff) > 64):
        raise ScheduleInvalid("a plan record names more than 64 planned jobs")
    for name in ("plan_job", "bf_job", "launch_job"):
        a = getattr(pl, name)
        if a.size and (a.min() < 0 or a.max() >= n):
            raise ScheduleInvalid(f"the plan record's {name} names a job outside the workload")
    if np.any(np.diff(pl.pass_id) <= 0) or np.any(np.diff(pl.time) < 0) or np.any(np.diff(pl.launch_pass) < 0):
        raise ScheduleInvalid("the plan record's passes are not in time order")
    # the launch log against the intervals: each launch is the start of one interval; an interval no
    # launch names is a pause (its job's previous interval ended at the start of a switch overhead
    # and it goes on when the overhead ends)
    lj = pl.launch_job.astype(np.int64)
    kk = _match(lj, pl.launch_time.astype(np.float64), first_iv, last_iv, s)
    bad = np.flatnonzero(kk < 0)
    if bad.size:
        i = bad[0]
        raise ScheduleInvalid(f"the launch log starts job {ids[lj[i]]} at {pl.launch_time[i]}, but no interval of it "
                              "starts then")
    lp = np.full(job.size, -1, np.int64)
    if np.unique(kk).size != kk.size:
        raise ScheduleInvalid("the launch log starts one interval twice")
    lp[kk] = pl.launch_pass
    first = np.zeros(job.size, bool)
    first[first_iv] = True
    prev_end = np.concatenate([[np.nan], e[:-1]])
    ov = np.sort(np.asarray(ts.overheads, np.float64))
    pos = np.searchsorted(ov, prev_end)
    is_ov = (pos < ov.size) & (ov[np.minimum(pos, max(ov.size - 1, 0))] == prev_end) if ov.size else np.zeros(job.size, bool)
    pause = ~first & is_ov & (s == prev_end + ts.overhead)
    bad = np.flatnonzero((lp < 0) & ~pause)
    if bad.size:
        i = bad[0]
        raise ScheduleInvalid(f"job {ids[job[i]]} starts or resumes at {s[i]} without a launch in the plan record's log")
    # the slice of each pass: a plan pass of class c runs inside a slice of class c
    sb, se, sc = ts.slice_begin, ts.slice_end, ts.slice_class
    si = np.searchsorted(sb, pl.time, side="right") - 1
    okr = (si >= 0)
    si = np.maximum(si, 0)
    bad = np.flatnonzero(~okr | (sc[si] != pl.cls) | (pl.time >= se[si]))
    if bad.size:
        r = bad[0]
        raise ScheduleInvalid(f"a plan pass of class {pl.cls[r]} at {pl.time[r]} lies outside a slice of its class")
    est = np.asarray(w.estimate, np.float64)
    cls = ts.config.classify(est)
    code, r, j, a, b = _replay(n, int(schedule.machine.procs), est, w.procs.astype(np.int64), cls, job, s, e, lp,
                               first_iv, last_iv, pl.pass_id.astype(np.int64), pl.time.astype(np.float64),
                               pl.cls.astype(np.int64), se[si].astype(np.float64), poff, pl.plan_job.astype(np.int64),
                               pl.plan_start.astype(np.float64), boff, pl.bf_job.astype(np.int64))
    if code == 0:
        p = np.minimum(w.runtime, est) if schedule.killed else np.asarray(w.runtime, np.float64)
        early = np.sort(np.asarray(schedule.finish, np.float64)[p < est])
        r, j, a, b = _continuity(pl.pass_id.astype(np.int64), pl.time.astype(np.float64), pl.cls.astype(np.int64),
                                 si.astype(np.int64), poff, pl.plan_job.astype(np.int64),
                                 pl.plan_start.astype(np.float64), s[first_iv], lp[first_iv], early)
        if r < 0:
            return
        code = 10
    t = pl.time[r]
    bf = ", ".join(str(ids[x]) for x in pl.bf_job[boff[r]: boff[r + 1]]) or "none"
    msgs = {
        1: f"a backfill delayed a planned job: in the pass at {t} (backfilled jobs {bf}) planned job {ids[j]} was "
           f"promised virtual start {a:g} s but the plan recalculated with the backfills starts it at {b:g} s",
        4: f"planned job {ids[j]} of the pass at {t} had already started (at {a}) before the pass",
        5: f"job {ids[j]} starts in the plan pass at {t} but is neither planned, backfilled nor a resumed job of the "
           "slice's class",
        6: f"backfilled job {ids[j]} of the pass at {t} does not start in that pass",
        7: f"the plan record promises planned job {ids[j]} virtual start {a:g} s in the pass at {t}, but the plan "
           f"recalculated from the schedule before the backfills starts it at {b:g} s",
        8: f"planned job {ids[j]} starts in the pass at {t} before its planned virtual start {a:g} s",
        9: f"job {ids[j]} is named twice in the plan record of the pass at {t}",
        10: f"planned job {ids[j]} moved later between two passes of one plan in one slice with no job ending "
            f"before its estimate in between: promised virtual start {a:g} s (the earlier promise less the time "
            f"gone by), then {b:g} s at {t} (a pass with a plan unrecorded, or a backfill that outlived its "
            "admission)",
    }
    raise ScheduleInvalid(msgs[code])
