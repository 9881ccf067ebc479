"""Compiled search helpers of the group-optimised SCOJO-PECT (thesis Sections 6.3-6.5, 7.2-7.4).

Kernels only (the engine's plans in :mod:`schedlab.sim.ts_plans` call them; the options are
documented on :class:`schedlab.sim.scojo_opt.GroupConfig`).

*Virtual schedule* (thesis 6.3.1): a free-capacity step profile in the virtual time of one class
(time 0 = now; a class's own slices only, so the time is stretched by 1 / share when it is turned
into a response time, thesis Section 7: ``(virtual current time + remaining - now) / 0.73``).
A job is placed conservatively: at the earliest virtual time where its width is free for its
whole (estimated) run time given everything placed before it (a later job may go into an
earlier hole; nothing placed earlier ever moves).

*Search trees* (thesis 5.1.3, 6.4): a node at depth d picks the i-th still unplaced job in the
heuristic order (i = 0 follows the heuristic, i > 0 is one discrepancy).
  - ``ALL``: every permutation (the first level, long-wide jobs).
  - ``LDS`` (Korf's improved LDS): iteration k visits, in depth-first left-to-right order, the
    paths with exactly k discrepancies.
  - ``DDS`` (Walsh): iteration 0 is the heuristic path; iteration k >= 1 branches freely above
    depth k-1, takes a discrepancy at depth k-1 and follows the heuristic below.
  Each leaf is visited once over all iterations. Branch and bound (thesis 6.4.3, 7.4): a node
  whose partial cost plus one per unplaced job (every bounded slowdown is >= 1) exceeds the best
  complete schedule is pruned with its subtree. The budget counts generated permutations: a
  complete schedule, a force-shifted schedule or a pruned path each count one.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .ts_layout import (P_ALPHA, P_BETA, P_BUDGET, P_BUDGET_PER_SUBGROUP, P_FORCE_SHIFT, P_GAMMA, P_MAX_WIDE,
                        P_MIN_WIDE, P_PRUNE, P_SEARCH, P_SECOND_LEVEL, P_SPLIT_SIZE, P_SUBGROUP, P_TAU, P_WEIGHTED,
                        P_WIDE_FRACTION, P_WIDE_RUNTIME)

ALL, LDS, DDS = 0, 1, 2
#: the search's counters (``stats`` of :func:`tree_search`; the engine's ``stats[ST_EXPLORED:ST_SEARCH_END]``)
S_EXPLORED, S_PRUNED, S_SCHEDULES = 0, 1, 2
EPS = 1e-9


# ------------------------------------------------------------------------------ profile
@njit
def profile_build(m, rel_t, rel_w, n_rel, T, F):
    """Profile of a machine of m processors where ``rel_w[i]`` are busy from 0 until ``rel_t[i]``."""
    busy = 0
    for r in range(n_rel):
        busy += rel_w[r]
    T[0] = 0.0
    F[0] = m - busy
    P = 1
    order = np.argsort(rel_t[:n_rel])
    for a in range(n_rel):
        r = order[a]
        x = rel_t[r]
        if x <= T[P - 1] + EPS:
            F[P - 1] += rel_w[r]
        else:
            T[P] = x
            F[P] = F[P - 1] + rel_w[r]
            P += 1
    return P


@njit
def earliest(T, F, P, w, dur):
    """Earliest virtual time s >= 0 with ``w`` processors free throughout [s, s + dur)."""
    i = 0
    while i < P:
        if F[i] >= w:
            s = T[i]
            j = i + 1
            ok = True
            while j < P and T[j] < s + dur - EPS:
                if F[j] < w:
                    ok = False
                    break
                j += 1
            if ok:
                return s
            i = j
        else:
            i += 1
    return T[P - 1]


@njit
def _split(T, F, P, x):
    """Make x a breakpoint; returns (index of x, new P)."""
    i = P - 1
    while i > 0 and T[i] > x + EPS:
        i -= 1
    if abs(T[i] - x) <= EPS:
        return i, P
    for a in range(P, i + 1, -1):
        T[a] = T[a - 1]
        F[a] = F[a - 1]
    T[i + 1] = x
    F[i + 1] = F[i]
    return i + 1, P + 1


@njit
def occupy(T, F, P, s, e, w):
    """Take ``w`` processors during [s, e); returns the new number of breakpoints."""
    if e <= s + EPS:
        return P
    a, P = _split(T, F, P, s)
    b, P = _split(T, F, P, e)
    for q in range(a, b):
        F[q] -= w
    return P


@njit
def hole_before(T, F, P, w, s):
    """The earliest hole before s for width w: (start h, length y) or (-1, 0)."""
    for i in range(P):
        if T[i] >= s - EPS:
            break
        if F[i] >= w:
            j = i + 1
            while j < P and F[j] >= w:
                j += 1
            end = T[j] if j < P else np.inf
            return T[i], end - T[i]
    return -1.0, 0.0


# ------------------------------------------------------------------------------ costs
@njit
def job_cost(s, est, wait0, inv_share, tau, lexi, bound):
    """(excessive wait, bounded slowdown) of a job placed at virtual time s (stretched by 1/share)."""
    resp = wait0 + (s + est) * inv_share
    bsld = max(1.0, resp / max(est, tau))
    e = 0.0
    if lexi:
        e = max(0.0, wait0 + s * inv_share - bound)
    return e, bsld


@njit
def _worse(e1, a1, e2, a2):
    """Lexicographic (excess, slowdown) comparison: is (e1, a1) strictly worse than (e2, a2)?"""
    if e1 > e2 + EPS:
        return True
    if e1 < e2 - EPS:
        return False
    return a1 > a2 + EPS


@njit
def evaluate(order, n, w, est, wait0, inv_share, tau, lexi, bound, T0, F0, P0, T, F, starts):
    """Place ``order[:n]`` on a copy of the profile; fills ``starts`` (by position), returns (E, A)."""
    T[:P0] = T0[:P0]
    F[:P0] = F0[:P0]
    P = P0
    te = 0.0
    ta = 0.0
    for a in range(n):
        j = order[a]
        s = earliest(T, F, P, w[j], est[j])
        P = occupy(T, F, P, s, s + est[j], w[j])
        starts[a] = s
        e, b = job_cost(s, est[j], wait0[j], inv_share, tau, lexi, bound)
        te += e
        ta += b
    return te, ta


@njit
def _keep(top_e, top_a, top_ord, top_n, e, a, path, n):
    """Insert a complete schedule into the top list (best first); returns the new length."""
    K = top_e.shape[0]
    pos = top_n
    while pos > 0 and _worse(top_e[pos - 1], top_a[pos - 1], e, a):
        pos -= 1
    if pos >= K:
        return top_n
    last = min(top_n, K - 1)
    for q in range(last, pos, -1):
        top_e[q] = top_e[q - 1]
        top_a[q] = top_a[q - 1]
        top_ord[q, :n] = top_ord[q - 1, :n]
    top_e[pos] = e
    top_a[pos] = a
    top_ord[pos, :n] = path[:n]
    return min(top_n + 1, K)


@njit
def tree_search(order, n, w, est, wait0, inv_share, tau, lexi, bound, T0, F0, P0, mode, budget, prune, fs_ratio,
                top_e, top_a, top_ord, stats, rec):
    """Search the orderings of the jobs ``order[:n]`` (heuristic order) placed after the profile.

    Keeps the best ``top_e.shape[0]`` complete schedules (orders in ``top_ord``). ``stats`` gains
    [explored nodes, pruned nodes, schedules generated]. ``rec`` (rows >= leaves wanted) records
    the visited leaves' orders when it has rows (tests). Returns the number of kept schedules."""
    cap = P0 + 2 * n + 4
    Ts = np.empty((n + 1, cap), np.float64)
    Fs = np.empty((n + 1, cap), np.int64)
    Ps = np.empty(n + 1, np.int64)
    Ts[0, :P0] = T0[:P0]
    Fs[0, :P0] = F0[:P0]
    Ps[0] = P0
    path = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)  # position in ``order`` of the job at each depth
    used = np.zeros(n, np.bool_)
    idx = np.empty(n, np.int64)
    du = np.zeros(n + 1, np.int64)
    ce = np.zeros(n + 1, np.float64)
    ca = np.zeros(n + 1, np.float64)
    st = np.empty(n, np.float64)
    fsd = np.full(n + 1, -1, np.int64)  # depth of the first force-shift opportunity on the path
    fsh = np.zeros(n + 1, np.float64)
    shifted = np.empty(n, np.int64)
    sh_st = np.empty(n, np.float64)
    Tw = np.empty(cap, np.float64)
    Fw = np.empty(cap, np.int64)
    top_n = 0
    nrec = 0
    sched = 0
    n_iter = 1 if mode == ALL else max(1, n)
    for k in range(n_iter):
        if sched >= budget:
            break
        d = 0
        idx[0] = -1
        while d >= 0:
            if sched >= budget:
                break
            idx[d] += 1
            i = idx[d]
            if i >= n - d:
                d -= 1
                if d >= 0:
                    used[pos[d]] = False
                continue
            disc = 1 if i > 0 else 0
            u = du[d] + disc
            if mode == LDS:
                later = max(0, n - 2 - d)  # levels below d with more than one child
                if u > k or u + later < k:
                    if i > 0:
                        idx[d] = n - d - 1  # every other child has the same discrepancy count
                    continue
            elif mode == DDS:
                if k == 0 or d >= k:
                    if i > 0:
                        idx[d] = n - d - 1
                        continue
                elif d == k - 1 and i == 0:
                    continue
            # the i-th unplaced job in heuristic order
            c = -1
            q = 0
            for x in range(n):
                if not used[x]:
                    c += 1
                    if c == i:
                        q = x
                        break
            j = order[q]
            P = Ps[d]
            Ts[d + 1, :P] = Ts[d, :P]
            Fs[d + 1, :P] = Fs[d, :P]
            s = earliest(Ts[d + 1], Fs[d + 1], P, w[j], est[j])
            if fs_ratio > 0.0 and fsd[d] < 0:
                h, y = hole_before(Ts[d + 1], Fs[d + 1], P, w[j], s)
                if h >= 0.0 and est[j] <= fs_ratio * y:
                    fsd[d + 1] = d
                    fsh[d + 1] = h
                else:
                    fsd[d + 1] = -1
            else:
                fsd[d + 1] = fsd[d]
                fsh[d + 1] = fsh[d]
            Ps[d + 1] = occupy(Ts[d + 1], Fs[d + 1], P, s, s + est[j], w[j])
            e, b = job_cost(s, est[j], wait0[j], inv_share, tau, lexi, bound)
            ce[d + 1] = ce[d] + e
            ca[d + 1] = ca[d] + b
            stats[S_EXPLORED] += 1
            if prune and top_n > 0 and _worse(ce[d + 1], ca[d + 1] + (n - d - 1), top_e[0], top_a[0]):
                stats[S_PRUNED] += 1
                sched += 1
                continue
            path[d] = j
            st[d] = s
            du[d + 1] = u
            if d == n - 1:  # a complete schedule
                sched += 1
                if nrec < rec.shape[0]:
                    rec[nrec, :n] = path[:n]
                    nrec += 1
                top_n = _keep(top_e, top_a, top_ord, top_n, ce[n], ca[n], path, n)
                D = fsd[n]
                if D >= 0 and sched < budget:  # force shifting (thesis 6.5, Fig. 12)
                    h = fsh[n]
                    a = 0
                    for x in range(D):
                        if st[x] < h - EPS:
                            shifted[a] = path[x]
                            a += 1
                    shifted[a] = path[D]
                    a += 1
                    for x in range(D):
                        if st[x] >= h - EPS:
                            shifted[a] = path[x]
                            a += 1
                    for x in range(D + 1, n):
                        shifted[a] = path[x]
                        a += 1
                    e2, a2 = evaluate(shifted, n, w, est, wait0, inv_share, tau, lexi, bound, T0, F0, P0, Tw, Fw,
                                      sh_st)
                    sched += 1
                    stats[S_EXPLORED] += n
                    top_n = _keep(top_e, top_a, top_ord, top_n, e2, a2, shifted, n)
                continue
            used[q] = True
            pos[d] = q
            d += 1
            idx[d] = -1
    stats[S_SCHEDULES] += sched
    return top_n


@njit
def select_weighted(top_ord, top_n, n, w, est, wait0, inv_share, tau, m, T0, F0, P0, alpha, beta, gamma):
    """Thesis 6.4.4: of the (up to) three schedules with least total slowdown, start from the least
    and take a later one ``a`` over the current ``b`` iff
    (M_a > alpha M_b) && (U_a > beta U_b) && (AvgRT_a < gamma AvgRT_b); returns its row."""
    cap = P0 + 2 * n + 4
    Tw = np.empty(cap, np.float64)
    Fw = np.empty(cap, np.int64)
    stv = np.empty(n, np.float64)
    mk = np.zeros(top_n, np.float64)
    ut = np.zeros(top_n, np.float64)
    rt = np.zeros(top_n, np.float64)
    for r in range(top_n):
        evaluate(top_ord[r], n, w, est, wait0, inv_share, tau, False, 0.0, T0, F0, P0, Tw, Fw, stv)
        work = 0.0
        tot = 0.0
        for a in range(n):
            j = top_ord[r, a]
            mk[r] = max(mk[r], stv[a] + est[j])
            work += w[j] * est[j]
            tot += wait0[j] + (stv[a] + est[j]) * inv_share
        ut[r] = work / (m * mk[r]) if mk[r] > 0 else 1.0
        rt[r] = tot / max(n, 1)
    b = 0
    for a in range(1, top_n):
        if mk[a] > alpha * mk[b] and ut[a] > beta * ut[b] and rt[a] < gamma * rt[b]:
            b = a
    return b


@njit
def lsf_order(g, n, est, wait0, tau, out):
    """Largest (bounded) slowdown first, were the job started now; ties: longer wait first, then index."""
    key = np.empty(n, np.float64)
    for a in range(n):
        j = g[a]
        key[a] = -max(1.0, (wait0[j] + est[j]) / max(est[j], tau))
    o = np.argsort(key, kind="mergesort")  # g is in submit order, so ties keep the longer wait first
    for a in range(n):
        out[a] = g[o[a]]


@njit
def optimise_group(g, n, w, est, wait0, inv_share, m, T0, F0, P0, prm, stats, out):
    """Two-level search of thesis Fig. 10/11 for the group ``g[:n]`` (job indices); writes the
    chosen order into ``out[:n]``. ``prm``: the slots ``P_*`` of :mod:`schedlab.sim.ts_layout` (tau,
    long-wide fraction and run time, min and max long-wide jobs, second level, sub-group size, split
    size, search kind, budget, per sub-group, prune, force-shift ratio, alpha, beta, gamma, weighted)."""
    tau = prm[P_TAU]
    lsf_order(g, n, est, wait0, tau, out)
    # ---- level 1: every permutation of (at most max_lw) long-wide jobs
    lw = np.empty(n, np.int64)
    slots = np.empty(n, np.int64)
    nl = 0
    for a in range(n):
        j = out[a]
        if w[j] >= prm[P_WIDE_FRACTION] * m and est[j] >= prm[P_WIDE_RUNTIME] and nl < int(prm[P_MAX_WIDE]):
            lw[nl] = j
            slots[nl] = a
            nl += 1
    if nl >= int(prm[P_MIN_WIDE]) and nl >= 2:
        te = np.empty(1, np.float64)
        ta = np.empty(1, np.float64)
        to = np.empty((1, nl), np.int64)
        rec = np.empty((0, nl), np.int64)
        kept = tree_search(lw, nl, w, est, wait0, inv_share, tau, False, 0.0, T0, F0, P0, ALL, 10 ** 9,
                           prm[P_PRUNE] > 0, 0.0, te, ta, to, stats, rec)
        if kept > 0:
            for a in range(nl):
                out[slots[a]] = to[0, a]
    if prm[P_SECOND_LEVEL] == 0:
        return
    # ---- level 2: discrepancy search over (equal) sub-groups of the merged order
    size = n
    if n >= int(prm[P_SPLIT_SIZE]):
        size = int(prm[P_SUBGROUP])
    nsub = (n + size - 1) // size
    base = n // nsub
    budget = int(prm[P_BUDGET])
    if prm[P_BUDGET_PER_SUBGROUP] == 0:
        budget = max(1, budget // nsub)
    cap = P0 + 2 * n + 4
    T = np.empty(cap, np.float64)
    F = np.empty(cap, np.int64)
    T[:P0] = T0[:P0]
    F[:P0] = F0[:P0]
    P = P0
    top_e = np.empty(3, np.float64)
    top_a = np.empty(3, np.float64)
    rec = np.empty((0, n), np.int64)
    lo = 0
    for sgi in range(nsub):
        cnt = base + (1 if sgi < n - base * nsub else 0)
        sub = out[lo: lo + cnt].copy()
        top_ord = np.empty((3, cnt), np.int64)
        kept = tree_search(sub, cnt, w, est, wait0, inv_share, tau, False, 0.0, T, F, P, int(prm[P_SEARCH]), budget,
                           prm[P_PRUNE] > 0, prm[P_FORCE_SHIFT], top_e, top_a, top_ord, stats, rec)
        b = 0
        if prm[P_WEIGHTED] > 0 and kept > 1:
            b = select_weighted(top_ord, kept, cnt, w, est, wait0, inv_share, tau, m, T, F, P, prm[P_ALPHA],
                                prm[P_BETA], prm[P_GAMMA])
        if kept > 0:
            out[lo: lo + cnt] = top_ord[b, :cnt]
        for a in range(lo, lo + cnt):  # fix the chosen sub-group in the profile
            j = out[a]
            s = earliest(T, F, P, w[j], est[j])
            P = occupy(T, F, P, s, s + est[j], w[j])
        lo += cnt


@njit
def group_finish(v, e, wd, n, m, delta, min_util):
    """Thesis 6.3.3 / Fig. 8: group finish time from the virtual plan.

    Jobs (running ones and plan jobs) occupy ``wd`` processors during [v, e). Sorted by finish,
    the utilization U_i of [0, f_i] is computed per finish f_i; at the first drop
    U_{i-1} - U_i > delta the group finishes at f_i if U_i >= min_util, else at f_{i-1}; without
    such a drop at the last finish."""
    o = np.argsort(e[:n])
    prev = -1.0
    prev_f = 0.0
    for a in range(n):
        f = e[o[a]]
        if f <= EPS:
            continue
        busy = 0.0
        for b in range(n):
            lo = v[b]
            hi = min(e[b], f)
            if hi > lo:
                busy += wd[b] * (hi - lo)
        u = busy / (m * f)
        if prev >= 0.0 and prev - u > delta:
            return f if u >= min_util else prev_f
        prev = u
        prev_f = f
    return prev_f
