"""Node allocation of the federation kernels (:mod:`schedlab.federation.kernel`): which free nodes a
job of t_j tasks takes, as counts per node group (a group = one cluster's nodes of one power).

``ALG1``: Algorithm 1 of slowdown-guided-ga-federation (the most powerful free nodes, then moved to
slower free nodes no slower than the job's minimum); ``TOP``: JPR, the most powerful free nodes;
``CBS``: cluster by cluster (method-notes topic 6). :func:`choose` answers whether the job fits now
and fills ``cnt``; the builders then commit it.
"""

from __future__ import annotations

import numpy as np

from .._config import njit

ALG1, TOP, CBS = 0, 1, 2


@njit
def _take_top(tj, lvl_ptr, free_cnt, cnt):
    """Counts per group of the t_j most powerful free nodes (ties: group with more free nodes, then lower cluster)."""
    need = tj
    last_level = -1
    for lv in range(lvl_ptr.size - 1):
        if need == 0:
            break
        a, b = lvl_ptr[lv], lvl_ptr[lv + 1]
        while need > 0:
            best = -1
            for g in range(a, b):
                rem = free_cnt[g] - cnt[g]
                if rem > 0 and cnt[g] == 0 and (best < 0 or rem > free_cnt[best] - cnt[best]):
                    best = g
            if best < 0:
                break
            m = min(need, free_cnt[best])
            cnt[best] = m
            need -= m
            last_level = lv
    return last_level if need == 0 else -2


@njit
def _swap_slower(lvl_ptr, free_cnt, cnt, last_level):
    """Algorithm 1, lines 5-10: move tasks from the most powerful assigned nodes to free nodes whose
    power is >= the job's minimum. Only the minimum's level can have such free nodes left; they are
    used group by group, the group with more spare nodes first (then lower cluster)."""
    a, b = lvl_ptr[last_level], lvl_ptr[last_level + 1]
    m = b - a
    order = np.empty(m, dtype=np.int64)
    for i in range(m):  # stable insertion sort by spare nodes, descending
        h = a + i
        spare = free_cnt[h] - cnt[h]
        k = i
        while k > 0 and free_cnt[order[k - 1]] - cnt[order[k - 1]] < spare:
            order[k] = order[k - 1]
            k -= 1
        order[k] = h
    pos = 0
    for g in range(a):  # groups above the minimum's level, most powerful first
        while cnt[g] > 0 and pos < m:
            h = order[pos]
            x = min(cnt[g], free_cnt[h] - cnt[h])
            if x == 0:
                pos += 1
                continue
            cnt[g] -= x
            cnt[h] += x


@njit
def _cluster_take(k, m, PA, free_cnt, cnt):
    """Take the m most powerful free nodes of cluster k into cnt; return the power of the slowest taken."""
    g_power, c_ptr, c_groups = PA.g_power, PA.c_ptr, PA.c_groups
    pmin = np.inf
    for i in range(c_ptr[k], c_ptr[k + 1]):
        if m == 0:
            break
        g = c_groups[i]
        x = min(m, free_cnt[g] - cnt[g])
        if x > 0:
            cnt[g] += x
            m -= x
            pmin = g_power[g]
    return pmin


@njit
def _cluster_min_power(k, m, PA, free_cnt):
    """Power of the m-th most powerful free node of cluster k (-1 if it has fewer than m free)."""
    g_power, c_ptr, c_groups = PA.g_power, PA.c_ptr, PA.c_groups
    for i in range(c_ptr[k], c_ptr[k + 1]):
        g = c_groups[i]
        m -= free_cnt[g]
        if m <= 0:
            return g_power[g]
    return -1.0


@njit
def _take_cbs(tj, PA, free_cnt, cfree, cap, cnt):
    """CBS (method-notes topic 6): whole job in the one cluster with the best min-power if any holds
    it; else a big chunk (>= ceil(0.75 t_j), every free node of the cluster with most free nodes)
    plus small chunks over the others by decreasing free nodes; else no fit. ``cap``: the chunk
    requirement is capped at the largest cluster's size, so a job wider than 4/3 of every cluster
    can still run (see FederationOptions.cbs_cap_chunk)."""
    K = cfree.size
    c_ptr, c_groups, g_ptr = PA.c_ptr, PA.c_groups, PA.g_ptr
    best, bestp = -1, -1.0
    for k in range(K):
        if cfree[k] >= tj:
            p = _cluster_min_power(k, tj, PA, free_cnt)
            if p > bestp:
                best, bestp = k, p
    if best >= 0:
        _cluster_take(best, tj, PA, free_cnt, cnt)
        return True
    total = 0
    for k in range(K):
        total += cfree[k]
    if total < tj:
        return False
    need_chunk = (3 * tj + 3) // 4  # ceil(0.75 t)
    if cap:
        largest = 0
        for k in range(K):
            size = 0
            for i in range(c_ptr[k], c_ptr[k + 1]):
                g = c_groups[i]
                size += g_ptr[g + 1] - g_ptr[g]
            largest = max(largest, size)
        need_chunk = min(need_chunk, largest)
    big = -1
    for k in range(K):
        if cfree[k] >= need_chunk and (big < 0 or cfree[k] > cfree[big]):
            big = k
    if big < 0:
        return False
    left = tj - cfree[big]
    _cluster_take(big, cfree[big], PA, free_cnt, cnt)
    used = np.zeros(K, dtype=np.bool_)
    used[big] = True
    while left > 0:
        nxt = -1
        for k in range(K):
            if not used[k] and cfree[k] > 0 and (nxt < 0 or cfree[k] > cfree[nxt]):
                nxt = k
        used[nxt] = True
        x = min(left, cfree[nxt])
        _cluster_take(nxt, x, PA, free_cnt, cnt)
        left -= x
    return True


@njit
def choose(tj, mode, cap, PA, free_cnt, cfree, cnt):
    """Counts per group for a job of t_j tasks under allocation ``mode``; False when it does not fit now."""
    cnt[:] = 0
    total = 0
    for k in range(cfree.size):
        total += cfree[k]
    if tj > total:
        return False
    if mode == CBS:
        return _take_cbs(tj, PA, free_cnt, cfree, cap, cnt)
    return _place(tj, mode, PA.lvl_ptr, free_cnt, cnt)


@njit
def _place(tj, mode, lvl_ptr, free_cnt, cnt):
    """TOP / ALG1 placement of a job that fits the free nodes (counts per group into cnt)."""
    last = _take_top(tj, lvl_ptr, free_cnt, cnt)
    if last < 0:
        return False
    if mode == ALG1:
        _swap_slower(lvl_ptr, free_cnt, cnt, last)
    return True


# ------------------------------------------------------------------------------- slowdown model
