"""Slow, obviously-correct plain-Python reference of the federation package builders.

Written from the specification (method-notes topic 6 and the docstrings of
schedlab.federation.kernel), node by node, without the kernels' group stacks. Returns per job
start, finish, SP at start and tasks per cluster (node ids are not compared: nodes of one
cluster and power are interchangeable).
"""

from __future__ import annotations

import math


class Fed:
    def __init__(self, node_cluster, node_power, bandwidth):
        self.cl = [int(c) for c in node_cluster]
        self.pw = [float(p) for p in node_power]
        self.bw = [float(b) for b in bandwidth]
        self.K = len(self.bw)
        self.free = set(range(len(self.cl)))

    def level_groups(self, power, avail):
        """Groups (cluster) of free nodes with this power: {cluster: [nodes]} from ``avail``."""
        out = {}
        for n in sorted(avail):
            if self.pw[n] == power:
                out.setdefault(self.cl[n], []).append(n)
        return out

    def top(self, t):
        """t most powerful free nodes; within a power, whole clusters with more free nodes first, then lower id."""
        chosen = []
        for power in sorted({self.pw[n] for n in self.free}, reverse=True):
            groups = self.level_groups(power, self.free)
            for c in sorted(groups, key=lambda c: (-len(groups[c]), c)):
                take = groups[c][: t - len(chosen)]
                chosen += take
                if len(chosen) == t:
                    return chosen
        return chosen if len(chosen) == t else None

    def alg1(self, t):
        A = self.top(t)
        if A is None:
            return None
        pmin = min(self.pw[n] for n in A)
        rest = self.free - set(A)
        groups = self.level_groups(pmin, rest)
        cands = [n for c in sorted(groups, key=lambda c: (-len(groups[c]), c)) for n in groups[c]]
        # most powerful assigned nodes first (power desc, then cluster)
        for n in sorted(A, key=lambda n: (-self.pw[n], self.cl[n])):
            if self.pw[n] <= pmin or not cands:
                break
            A[A.index(n)] = cands.pop(0)
        return A

    def cluster_top(self, k, m):
        nodes = sorted((n for n in self.free if self.cl[n] == k), key=lambda n: -self.pw[n])
        return nodes[:m]

    def cbs(self, t, cap=True):
        if t > len(self.free):
            return None
        cfree = [sum(1 for n in self.free if self.cl[n] == k) for k in range(self.K)]
        whole = [k for k in range(self.K) if cfree[k] >= t]
        if whole:
            k = max(whole, key=lambda k: (min(self.pw[n] for n in self.cluster_top(k, t)), -k))
            return self.cluster_top(k, t)
        need = math.ceil(0.75 * t)
        if cap:
            need = min(need, max(self.cl.count(k) for k in range(self.K)))
        big = [k for k in range(self.K) if cfree[k] >= need]
        if not big:
            return None
        k = max(big, key=lambda k: (cfree[k], -k))
        A = self.cluster_top(k, cfree[k])
        for k2 in sorted((c for c in range(self.K) if c != k and cfree[c] > 0), key=lambda c: (-cfree[c], c)):
            A += self.cluster_top(k2, min(cfree[k2], t - len(A)))
            if len(A) == t:
                break
        return A

    def per_cluster(self, A):
        tk = [0] * self.K
        for n in A:
            tk[self.cl[n]] += 1
        return tk


def _sp(fed, tk, pmin, sigma, ptbw, running, jobs_tk, jobs):
    """SP from the loads of the running co-allocated jobs plus the job's own (tk, ptbw)."""
    load = [0.0] * fed.K
    for i in running:
        if sum(1 for x in jobs_tk[i] if x) >= 2:
            for k in range(fed.K):
                load[k] += jobs_tk[i][k] * jobs[i][3]
    spcom = 1.0
    if sum(1 for x in tk if x) >= 2:
        for k in range(fed.K):
            if tk[k]:
                spcom = max(spcom, (load[k] + tk[k] * ptbw) / fed.bw[k])
    return (1.0 - sigma) / pmin + sigma * spcom


def naive_build(platform_cols, jobs, method, order=None, dynamic=False, relative_loss=False, cap=True):
    """jobs: list of (tasks, base, sigma, ptbw). method: 'jpr', 'cbs', 'alg1' (with order) or 'metl'."""
    fed = Fed(*platform_cols)
    J = len(jobs)
    start, finish, sp = [None] * J, [None] * J, [None] * J
    tk_of, nodes_of, spcpu = [None] * J, [None] * J, [None] * J
    remaining, rate_sp = [0.0] * J, [0.0] * J
    running = []  # in start order
    now = 0.0

    def place(j):
        t = jobs[j][0]
        if method == "jpr":
            return fed.top(t)
        if method == "cbs":
            return fed.cbs(t, cap)
        return fed.alg1(t)

    def refresh():
        for i in running:
            tk = tk_of[i]
            spcom = 1.0
            if sum(1 for x in tk if x) >= 2:
                load = [0.0] * fed.K
                for r in running:
                    if sum(1 for x in tk_of[r] if x) >= 2:
                        for k in range(fed.K):
                            load[k] += tk_of[r][k] * jobs[r][3]
                spcom = max([1.0] + [load[k] / fed.bw[k] for k in range(fed.K) if tk[k]])
            rate_sp[i] = (1.0 - jobs[i][2]) * spcpu[i] + jobs[i][2] * spcom

    def commit(j, A):
        tk = fed.per_cluster(A)
        pmin = min(fed.pw[n] for n in A)
        sp[j] = _sp(fed, tk, pmin, jobs[j][2], jobs[j][3], running, tk_of, jobs)
        start[j], tk_of[j], nodes_of[j], spcpu[j] = now, tk, A, 1.0 / pmin
        fed.free -= set(A)
        if jobs[j][1] == 0:
            finish[j] = now
            fed.free |= set(A)
            return
        running.append(j)
        if dynamic:
            remaining[j] = jobs[j][1]
            refresh()
        else:
            finish[j] = now + jobs[j][1] * sp[j]

    def advance():
        nonlocal now
        if dynamic:
            t = min(now + remaining[i] * rate_sp[i] for i in running)
            tol = 1e-12 * max(1.0, abs(t))
            done = [i for i in running if now + remaining[i] * rate_sp[i] <= t + tol]
            for i in running:
                if i in done:
                    remaining[i], finish[i] = 0.0, t
                else:
                    remaining[i] -= (t - now) / rate_sp[i]
        else:
            t = min(finish[i] for i in running)
            done = [i for i in running if finish[i] <= t]
        for i in done:
            running.remove(i)
            fed.free |= set(nodes_of[i])
        now = t
        if dynamic:
            refresh()

    if method == "metl":
        left = list(range(J))
        while left:
            best, best_loss, best_A = None, math.inf, None
            for j in left:
                if jobs[j][0] > len(fed.free):
                    continue
                A = fed.alg1(jobs[j][0])
                tk = fed.per_cluster(A)
                s = _sp(fed, tk, min(fed.pw[n] for n in A), jobs[j][2], jobs[j][3], running, tk_of, jobs)
                pmax = max(fed.pw)
                loss = (s * pmax - 1.0) if relative_loss else (jobs[j][1] * s - jobs[j][1] / pmax)
                if loss < best_loss:
                    best, best_loss, best_A = j, loss, A
            if best is None:
                advance()
                continue
            commit(best, best_A)
            left.remove(best)
    else:
        for j in (order if order is not None else range(J)):
            while True:
                A = place(j)
                if A is not None:
                    break
                assert running, "job can never run"
                advance()
            commit(j, A)
    while running:
        advance()
    return start, finish, sp, tk_of
