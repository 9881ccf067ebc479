"""Compiled (numba) package schedule builders: the slowdown model, the strict-order decoder, METL;
node allocation is in :mod:`schedlab.federation.allocation`.

All kernels work on plain arrays grouped in named tuples, declared in :mod:`schedlab.federation.layout`
and read by field name, never by position:

``PA`` (:class:`~schedlab.federation.layout.PlatformArrays`): ``g_power[G], g_cluster[G], g_ptr[G+1],
lvl_ptr[L+1], c_ptr[K+1], c_groups[G], node_group[N], bw[K], g_nodes[N]``. A *group* is the set of nodes of one cluster with one power;
groups are sorted by power (descending), then cluster; a *level* is a run of groups of equal
power. Nodes of a group are interchangeable, so allocation decides counts per group and then
takes node ids from the group's free stack (deterministic).

``JA`` (:class:`~schedlab.federation.layout.JobArrays`, jobs of one package): ``tasks[J], base[J], sigma[J], ptbw[J]``;
``ST`` (:class:`~schedlab.federation.layout.BuildState`) and ``OUT`` (:class:`~schedlab.federation.layout.Built`)
are one schedule's state and result.

``opts`` (int64 array): ``[alloc_mode, dynamic, metl_loss, cbs_cap]`` with alloc modes
``ALG1`` (Algorithm 1), ``TOP`` (JPR: most powerful free nodes) and ``CBS``.

The slowdown model (method-notes topic 6): SP_j = (1 - sigma_j) SPcpu_j + sigma_j SPcom_j with
SPcpu_j = max_{n in A_j} 1/Gamma_n, and, for a job spanning >= 2 clusters, SPcom_j =
max_{k used} max(1, Load_k / MBW_k), Load_k = sum over running co-allocated jobs i of
t_{i,k} PTBW_i (the job's own load included); SPcom_j = 1 for a job inside one cluster.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .allocation import ALG1, CBS, _place, choose
from .layout import NEXT_SEQ, RUNNING, BuildState, Built

#: opts indices
O_ALLOC, O_DYNAMIC, O_LOSS, O_CBSCAP = 0, 1, 2, 3
#: a dynamic-model job finishes when its predicted finish is within this relative distance of the event
_EPS = 1e-12


@njit
def slowdown_at_start(j, cnt, JA, PA, loads, jk_out):
    """SP_j of job j placed as ``cnt`` given the link loads of the running jobs (its own load added).

    Fills jk_out (tasks per cluster). Does not change ``loads``.
    """
    return _slowdown(cnt, PA.g_power, PA.g_cluster, PA.bw, loads, JA.sigma[j], JA.ptbw[j], jk_out)


@njit
def _slowdown(cnt, g_power, g_cluster, bw, loads, sigma, ptbw, jk_out):
    """:func:`slowdown_at_start` on plain arrays (sigma_j, PTBW_j given)."""
    jk_out[:] = 0
    pmin = np.inf
    for g in range(cnt.size):
        if cnt[g] > 0:
            jk_out[g_cluster[g]] += cnt[g]
            if g_power[g] < pmin:
                pmin = g_power[g]
    spans = 0
    for k in range(jk_out.size):
        if jk_out[k] > 0:
            spans += 1
    spcom = 1.0
    if spans >= 2:
        for k in range(jk_out.size):
            if jk_out[k] > 0:
                s = (loads[k] + jk_out[k] * ptbw) / bw[k]
                if s > spcom:
                    spcom = s
    return (1.0 - sigma) * (1.0 / pmin) + sigma * spcom


@njit
def _current_slowdown(i, JA, PA, jk, loads, spcpu):
    """Dynamic model: SP_i of running job i under the current loads (its own load already in them)."""
    bw = PA.bw
    spans = 0
    spcom = 1.0
    for k in range(loads.size):
        if jk[i, k] > 0:
            spans += 1
    if spans >= 2:
        for k in range(loads.size):
            if jk[i, k] > 0:
                s = loads[k] / bw[k]
                if s > spcom:
                    spcom = s
    sigma = JA.sigma[i]
    return (1.0 - sigma) * spcpu[i] + sigma * spcom


# ------------------------------------------------------------------------------- finish heap (static model)


@njit(inline="always")
def _before(finish, a, b):
    return finish[a] < finish[b] or (finish[a] == finish[b] and a < b)


@njit
def _heap_push(h, n, j, finish):
    """Insert job j into the binary min-heap h[:n] keyed by (finish, job); returns the new size."""
    i = n
    h[i] = j
    while i > 0:
        parent = (i - 1) // 2
        if _before(finish, h[i], h[parent]):
            h[i], h[parent] = h[parent], h[i]
            i = parent
        else:
            break
    return n + 1


@njit
def _heap_pop(h, n, finish):
    """Remove and return the first job of the heap h[:n] (new size is n - 1)."""
    top = h[0]
    n -= 1
    h[0] = h[n]
    i = 0
    while True:
        a, b, m = 2 * i + 1, 2 * i + 2, i
        if a < n and _before(finish, h[a], h[m]):
            m = a
        if b < n and _before(finish, h[b], h[m]):
            m = b
        if m == i:
            break
        h[i], h[m] = h[m], h[i]
        i = m
    return top


# ------------------------------------------------------------------------------- state changes


@njit
def _link_load(jk_row, ptbw, loads, add):
    """Add (``add``) or remove a co-allocated job's load t_{j,k} PTBW_j on its clusters' links;
    a job inside one cluster loads no link."""
    spans = 0
    for k in range(loads.size):
        if jk_row[k] > 0:
            spans += 1
    if spans >= 2:
        for k in range(loads.size):
            if add:
                loads[k] += jk_row[k] * ptbw
            else:
                loads[k] -= jk_row[k] * ptbw
                if loads[k] < 1e-9:  # no float residue once the last co-allocated job has left
                    loads[k] = 0.0


@njit
def _commit(j, now, cnt, JA, PA, ST, OUT, dynamic, fixed_finish=np.nan):
    """Start job j at ``now`` on the nodes counted in cnt: take node ids, add its link load, set SP.

    ``fixed_finish`` (static model): a job carried over from the previous package, running on
    these nodes until then (its SP is not recomputed)."""
    g_power, g_cluster, g_ptr = PA.g_power, PA.g_cluster, PA.g_ptr
    free_cnt, slot, cfree, loads, run, counters, remaining, spcpu, cur_sp = ST
    start, finish, sp, jk, alloc_ptr, alloc_nodes, seq = OUT
    base, ptbw = JA.base[j], JA.ptbw[j]
    spv = slowdown_at_start(j, cnt, JA, PA, loads, jk[j])
    pos = alloc_ptr[j]
    pmin = np.inf
    for g in range(cnt.size):
        for _ in range(cnt[g]):
            free_cnt[g] -= 1
            alloc_nodes[pos] = slot[g_ptr[g] + free_cnt[g]]
            pos += 1
        if cnt[g] > 0:
            cfree[g_cluster[g]] -= cnt[g]
            if g_power[g] < pmin:
                pmin = g_power[g]
    _link_load(jk[j], ptbw, loads, True)
    spcpu[j] = 1.0 / pmin
    if not np.isnan(fixed_finish):  # start, sp and seq stay unset (NaN / -1): not a job of this package
        finish[j] = fixed_finish
        counters[RUNNING] = _heap_push(run, counters[RUNNING], j, finish)
        return
    start[j] = now
    sp[j] = spv
    seq[j] = counters[NEXT_SEQ]
    counters[NEXT_SEQ] += 1
    if base == 0.0:  # a zero-length job is over at once: it never counts as running
        finish[j] = now
        _release(j, JA, PA, ST, OUT)
        return
    if dynamic:  # running jobs in a list, rates refreshed at every event
        run[counters[RUNNING]] = j
        counters[RUNNING] += 1
        remaining[j] = base
        _refresh_rates(JA, PA, ST, OUT)
    else:  # running jobs in a heap of fixed finish times
        finish[j] = now + base * spv
        counters[RUNNING] = _heap_push(run, counters[RUNNING], j, finish)


@njit
def _refresh_rates(JA, PA, ST, OUT):
    """Dynamic model: recompute SP of every running job from the current link loads."""
    free_cnt, slot, cfree, loads, run, counters, remaining, spcpu, cur_sp = ST
    jk = OUT.jk
    for r in range(counters[RUNNING]):
        i = run[r]
        cur_sp[i] = _current_slowdown(i, JA, PA, jk, loads, spcpu)


@njit
def _release(i, JA, PA, ST, OUT):
    g_cluster, g_ptr, node_group = PA.g_cluster, PA.g_ptr, PA.node_group
    free_cnt, slot, cfree, loads, run, counters, remaining, spcpu, cur_sp = ST
    jk, alloc_ptr, alloc_nodes = OUT.jk, OUT.alloc_ptr, OUT.alloc_nodes
    ptbw = JA.ptbw[i]
    for p in range(alloc_ptr[i], alloc_ptr[i + 1]):
        n = alloc_nodes[p]
        g = node_group[n]
        slot[g_ptr[g] + free_cnt[g]] = n
        free_cnt[g] += 1
        cfree[g_cluster[g]] += 1
    _link_load(jk[i], ptbw, loads, False)


@njit
def _advance(now, JA, PA, ST, OUT, dynamic):
    """Advance to the earliest predicted finish; release every job finishing then. Returns the new time."""
    free_cnt, slot, cfree, loads, run, counters, remaining, spcpu, cur_sp = ST
    finish = OUT.finish
    n = counters[RUNNING]
    if not dynamic:
        t = finish[run[0]]
        while n > 0 and finish[run[0]] <= t:
            i = _heap_pop(run, n, finish)
            n -= 1
            _release(i, JA, PA, ST, OUT)
        counters[RUNNING] = n
        return t
    t = np.inf
    for r in range(n):
        i = run[r]
        f = now + remaining[i] * cur_sp[i]
        if f < t:
            t = f
    tol = _EPS * max(1.0, abs(t))
    w = 0
    for r in range(n):
        i = run[r]
        if now + remaining[i] * cur_sp[i] <= t + tol:
            remaining[i] = 0.0
            finish[i] = t
            _release(i, JA, PA, ST, OUT)
        else:
            remaining[i] -= (t - now) / cur_sp[i]
            run[w] = i
            w += 1
    counters[RUNNING] = w
    _refresh_rates(JA, PA, ST, OUT)
    return t


@njit
def _new_state(PA, J):
    g_ptr, g_nodes = PA.g_ptr, PA.g_nodes
    G = g_ptr.size - 1
    K = PA.bw.size
    free_cnt = np.empty(G, dtype=np.int64)
    for g in range(G):
        free_cnt[g] = g_ptr[g + 1] - g_ptr[g]
    cfree = np.zeros(K, dtype=np.int64)
    g_cluster = PA.g_cluster
    for g in range(G):
        cfree[g_cluster[g]] += free_cnt[g]
    return BuildState(free_cnt, g_nodes.copy(), cfree, np.zeros(K), np.empty(g_nodes.size, dtype=np.int64),
                      np.zeros(2, dtype=np.int64), np.zeros(J), np.zeros(J), np.zeros(J))


@njit
def _new_out(JA, K):
    J = JA.tasks.size
    alloc_ptr = np.zeros(J + 1, dtype=np.int64)
    for j in range(J):
        alloc_ptr[j + 1] = alloc_ptr[j] + JA.tasks[j]
    return Built(np.full(J, np.nan), np.full(J, np.nan), np.full(J, np.nan), np.zeros((J, K), dtype=np.int64),
                 alloc_ptr, np.full(alloc_ptr[J], -1, dtype=np.int64), np.full(J, -1, dtype=np.int64))


@njit
def _drain(now, JA, PA, ST, OUT, dynamic):
    while ST.counters[RUNNING] > 0:
        now = _advance(now, JA, PA, ST, OUT, dynamic)
    return now


# ------------------------------------------------------------------------------- builders


@njit
def build_in_order(order, JA, PA, opts):
    """Start the jobs strictly in ``order`` (each as soon as it fits, never before the previous one);
    when a job does not fit, advance to the earliest predicted finish (slowdown-guided-ga-federation,
    Sect. 3: "If we run out of computational nodes, GA predicts the first job to finish using a
    execution slowdown model and releases its allocated nodes for the subsequent jobs").

    Returns (start, finish, sp, jk, alloc_ptr, alloc_nodes, seq) for the package (time 0 = package start).
    """
    return build_after(order, JA, PA, opts, NO_CARRY, NO_CARRY_CNT)


#: no jobs carried over (see :func:`build_after`)
NO_CARRY = np.zeros(0)
NO_CARRY_CNT = np.zeros((0, 0), dtype=np.int64)


@njit
def _carry_in(J, JA, PA, ST, OUT, dynamic, carry_finish, carry_cnt):
    """Occupy the nodes of the R jobs carried over (rows J.. of JA, static model) until their finish."""
    cnt = np.zeros(PA.g_power.size, dtype=np.int64)
    for r in range(carry_finish.size):
        cnt[:] = carry_cnt[r]
        _commit(J + r, 0.0, cnt, JA, PA, ST, OUT, dynamic, carry_finish[r])


@njit
def build_after(order, JA, PA, opts, carry_finish, carry_cnt):
    """:func:`build_in_order` on a platform where R jobs of earlier packages still run: rows J..J+R-1
    of JA are those jobs, ``carry_finish[r]`` their finish (time 0 = this package's release),
    ``carry_cnt[r]`` their nodes per group. ``order`` holds the package's J jobs only; the carried
    rows of the output are not the package's (start NaN, seq -1)."""
    J = order.size
    K = PA.bw.size
    G = PA.g_power.size
    mode, dynamic, cap = opts[O_ALLOC], opts[O_DYNAMIC] != 0, opts[O_CBSCAP] != 0
    ST = _new_state(PA, JA.tasks.size)
    OUT = _new_out(JA, K)
    _carry_in(J, JA, PA, ST, OUT, dynamic, carry_finish, carry_cnt)
    cnt = np.zeros(G, dtype=np.int64)
    now = 0.0
    for idx in range(J):
        j = order[idx]
        while not choose(JA.tasks[j], mode, cap, PA, ST.free_cnt, ST.cfree, cnt):
            if ST.counters[RUNNING] == 0:  # empty platform and still no fit: the job can never run
                raise ValueError("a job does not fit on the empty platform")
            now = _advance(now, JA, PA, ST, OUT, dynamic)
        _commit(j, now, cnt, JA, PA, ST, OUT, dynamic)
    _drain(now, JA, PA, ST, OUT, dynamic)
    return OUT


@njit
def makespan_in_order(order, JA, PA, opts):
    """Makespan (max finish - min start) of :func:`build_in_order` — the GA's fitness."""
    return makespan_after(order, JA, PA, opts, NO_CARRY, NO_CARRY_CNT)


@njit
def makespan_after(order, JA, PA, opts, carry_finish, carry_cnt):
    """The package's makespan under :func:`build_after`: the last finish of its own jobs, from its
    release (time 0; on an empty platform the first job starts then, so this is max F - min I).

    Static model with Algorithm 1 / JPR allocation: :func:`_fast_makespan` (same times, no node
    ids, few arrays per call); otherwise the full builder."""
    J = order.size
    if J == 0:
        return 0.0
    if opts[O_DYNAMIC] == 0 and opts[O_ALLOC] != CBS:
        return _fast_makespan(order, JA, PA, opts[O_ALLOC], carry_finish, carry_cnt)
    OUT = build_after(order, JA, PA, opts, carry_finish, carry_cnt)
    return OUT.finish[:J].max()


@njit
def makespans_in_orders(X, JA, PA, opts, carry_finish, carry_cnt):
    """:func:`makespan_after` of every row of X (a population in one call)."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        out[i] = makespan_after(X[i], JA, PA, opts, carry_finish, carry_cnt)
    return out


@njit
def _fast_makespan(order, JA, PA, mode, carry_finish, carry_cnt):
    """The static-model strict-order builder reduced to what the makespan needs: free nodes per group
    and cluster, link loads and the finish heap, no node ids. Every float operation is the one of
    :func:`build_after` in the same order (tested equal). Numba counts a reference for every array
    passed to a call, so the state lives in local arrays and the helpers get only the few they use
    (passing the state tuples cost ~80 % of the time)."""
    tasks, base, sigma, ptbw = JA
    g_power, g_cluster, g_ptr, lvl_ptr, bw = PA.g_power, PA.g_cluster, PA.g_ptr, PA.lvl_ptr, PA.bw
    J, N, G, K = order.size, tasks.size, g_power.size, bw.size
    free_cnt = g_ptr[1:] - g_ptr[:-1]
    cfree = np.zeros(K, dtype=np.int64)
    for g in range(G):
        cfree[g_cluster[g]] += free_cnt[g]
    total = free_cnt.sum()
    loads = np.zeros(K)
    jg = np.zeros((N, G), dtype=np.int64)
    jk = np.zeros((N, K), dtype=np.int64)
    finish = np.empty(N)
    heap = np.empty(N, dtype=np.int64)
    n = 0
    cnt = np.zeros(G, dtype=np.int64)
    last = 0.0
    now = 0.0
    for idx in range(carry_finish.size + J):
        carried = idx < carry_finish.size
        if carried:
            j = J + idx
            cnt[:] = carry_cnt[idx]
        else:
            j = order[idx - carry_finish.size]
            while tasks[j] > total:  # Algorithm 1 / JPR place a job whenever enough nodes are free
                if n == 0:
                    raise ValueError("a job does not fit on the empty platform")
                now = finish[heap[0]]
                while n > 0 and finish[heap[0]] <= now:
                    i = _heap_pop(heap, n, finish)
                    n -= 1
                    total += _free_nodes(i, jg, g_cluster, free_cnt, cfree, tasks)
                    _link_load(jk[i], ptbw[i], loads, False)
            cnt[:] = 0
            _place(tasks[j], mode, lvl_ptr, free_cnt, cnt)
        spv = _slowdown(cnt, g_power, g_cluster, bw, loads, sigma[j], ptbw[j], jk[j])
        for g in range(G):
            jg[j, g] = cnt[g]
            free_cnt[g] -= cnt[g]
            cfree[g_cluster[g]] -= cnt[g]
        total -= tasks[j]
        _link_load(jk[j], ptbw[j], loads, True)
        if carried:
            finish[j] = carry_finish[idx]
        elif base[j] == 0.0:  # over at once
            finish[j] = now
            total += _free_nodes(j, jg, g_cluster, free_cnt, cfree, tasks)
            _link_load(jk[j], ptbw[j], loads, False)
            last = max(last, now)
            continue
        else:
            finish[j] = now + base[j] * spv
            last = max(last, finish[j])
        n = _heap_push(heap, n, j, finish)
    return last


@njit
def _free_nodes(i, jg, g_cluster, free_cnt, cfree, tasks):
    """Give job i's nodes back (counts per group); returns its task count."""
    for g in range(free_cnt.size):
        free_cnt[g] += jg[i, g]
        cfree[g_cluster[g]] += jg[i, g]
    return tasks[i]


@njit
def build_metl(JA, PA, opts):
    """METL (method-notes topic 6): at each time, among the package's jobs that fit the free nodes,
    start the one with the smallest predicted execution-time loss (Algorithm 1 allocation, model
    runtime with its own link load, loss = T_j - Tb_j / Gamma_max or (T_j - T*_j) / T*_j; ties ->
    earlier job); when none fits, advance to the earliest predicted finish. The start order
    (``seq``) is METL's ordering."""
    return metl_after(JA, PA, opts, NO_CARRY, NO_CARRY_CNT)


@njit
def metl_after(JA, PA, opts, carry_finish, carry_cnt):
    """:func:`build_metl` on a platform where jobs of earlier packages still run (see :func:`build_after`)."""
    J = JA.tasks.size - carry_finish.size
    K = PA.bw.size
    G = PA.g_power.size
    dynamic, relative = opts[O_DYNAMIC] != 0, opts[O_LOSS] != 0
    pmax = PA.g_power.max()
    ST = _new_state(PA, JA.tasks.size)
    OUT = _new_out(JA, K)
    _carry_in(J, JA, PA, ST, OUT, dynamic, carry_finish, carry_cnt)
    cnt = np.zeros(G, dtype=np.int64)
    best_cnt = np.zeros(G, dtype=np.int64)
    jk = np.zeros(K, dtype=np.int64)
    active = np.ones(J, dtype=np.bool_)
    left = J
    now = 0.0
    while left > 0:
        best, best_loss = -1, np.inf
        for j in range(J):
            if not active[j]:
                continue
            if not choose(JA.tasks[j], ALG1, False, PA, ST.free_cnt, ST.cfree, cnt):
                continue
            spv = slowdown_at_start(j, cnt, JA, PA, ST.loads, jk)
            base = JA.base[j]
            loss = (spv * pmax - 1.0) if relative else (base * spv - base / pmax)
            if loss < best_loss:
                best, best_loss = j, loss
                best_cnt[:] = cnt
        if best < 0:
            if ST.counters[RUNNING] == 0:
                raise ValueError("a job does not fit on the empty platform")
            now = _advance(now, JA, PA, ST, OUT, dynamic)
            continue
        _commit(best, now, best_cnt, JA, PA, ST, OUT, dynamic)
        active[best] = False
        left -= 1
    _drain(now, JA, PA, ST, OUT, dynamic)
    return OUT
