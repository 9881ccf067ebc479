"""A slow, plain-Python SCOJO-PECT engine: the rules of schedlab.sim.timeshare's docstring written
again with dicts, sets and lists (no numba, no shared code), for comparison on small workloads.

Returns per trace job: first start, finish, node list, interval list, preemption count.
"""

from __future__ import annotations

import math

S, M, L = 0, 1, 2


def naive_scojo(workload, m, cfg, kill=True):
    n = len(workload)
    order_idx = sorted(range(n), key=lambda j: workload.submit[j])  # stable
    sub = [float(workload.submit[j]) for j in order_idx]
    est = [float(workload.estimate[j]) for j in order_idx]
    run_t = [float(workload.runtime[j]) for j in order_idx]
    p = [min(r, e) if kill else r for r, e in zip(run_t, est)]
    w = [int(workload.procs[j]) for j in order_idx]
    cls = [0 if e < cfg.short_bound else (1 if e < cfg.long_bound else 2) for e in est]
    letters = {"S": S, "M": M, "L": L}
    cyc_order = [letters[ch] for ch in cfg.order]
    table = cfg.share_table()

    nodes = [None] * n
    first = [math.nan] * n
    finish = [math.nan] * n
    done = [0.0] * n
    seg = [0.0] * n
    last = [0.0] * n
    npre = [0] * n
    ivs = [[] for _ in range(n)]
    occ = {}  # node -> running job
    held = [dict() for _ in range(3)]  # class -> {node: preempted job}
    waiting = [[] for _ in range(3)]
    preempted = [[] for _ in range(3)]
    running = set()
    state = {"cur": None, "begin": 0.0, "end": 0.0, "pending": False, "cycle": [], "pos": 0}

    def eligible(k):
        return [x for x in range(m) if x not in occ and x not in held[k]]

    def launch(j, t, fresh):
        if fresh:
            nodes[j] = eligible(cls[j])[: w[j]]
            first[j] = t
        else:
            for x in nodes[j]:
                del held[cls[j]][x]
        for x in nodes[j]:
            occ[x] = j
        running.add(j)
        seg[j] = t
        last[j] = t

    def stop(j, t, hold):
        if t > seg[j] or (not hold and p[j] == 0.0):
            ivs[j].append((seg[j], t))
        if hold:
            done[j] += t - seg[j] if t > seg[j] else 0.0
        for x in nodes[j]:
            del occ[x]
            if hold:
                held[cls[j]][x] = j
        running.discard(j)

    def has_work():
        return [bool(waiting[k]) or bool(preempted[k]) or any(cls[j] == k for j in running) for k in range(3)]

    def new_cycle(t, work):
        hour = int(t // 3600.0) % 24
        total = 0.0
        for k in range(3):
            if work[k]:
                total += table[hour, k]
        out = []
        for k in cyc_order:
            if work[k]:
                lam = table[hour, k] / total * cfg.cycle if total > 0.0 else 0.0
                out.append((k, max(cfg.min_slice, lam)))
        return out

    def free_all(j):
        return all(x not in occ for x in nodes[j])

    def schedule_pass(t, c):
        for j in list(preempted[c]):
            if free_all(j):
                preempted[c].remove(j)
                launch(j, t, False)
        while waiting[c] and w[waiting[c][0]] <= len(eligible(c)):
            launch(waiting[c].pop(0), t, True)
        shadow, extra = math.inf, m
        if waiting[c]:
            h = waiting[c][0]
            free_now = len(eligible(c))
            ends = sorted((seg[j] + (est[j] - done[j]), sum(1 for x in nodes[j] if x not in held[c])) for j in running)
            avail = free_now
            for e, k in ends:
                avail += k
                if avail >= w[h]:
                    shadow = e
                    break
            if shadow < math.inf:
                extra = free_now - w[h] + sum(k for e, k in ends if e <= shadow)
            for j in list(waiting[c][1:]):
                if w[j] <= len(eligible(c)):
                    ok, extra = admit(j, t, shadow, extra)
                    if ok:
                        waiting[c].remove(j)
                        launch(j, t, True)
        if cfg.smart_backfill:
            for k in (S, M, L):
                if k == c:
                    continue
                for j in list(preempted[k]):
                    if free_all(j):
                        ok, extra = admit(j, t, shadow, extra)
                        if ok:
                            preempted[k].remove(j)
                            launch(j, t, False)
            for k in (S, M, L):
                if k == c:
                    continue
                for j in list(waiting[k]):
                    if w[j] <= len(eligible(k)):
                        ok, extra = admit(j, t, shadow, extra)
                        if ok:
                            waiting[k].remove(j)
                            launch(j, t, True)

    def admit(j, t, shadow, extra):
        before = t + (est[j] - done[j]) <= shadow
        if before:
            return True, extra
        if w[j] <= extra:
            return True, extra - w[j]
        return False, extra

    def boundary(t):
        c = state["cur"]
        work = has_work()
        pos = state["pos"] + 1
        cyc = state["cycle"]
        while pos < len(cyc) and not work[cyc[pos][0]]:
            pos += 1
        if pos >= len(cyc):
            cyc = new_cycle(t, work)
            pos = 0
            state["cycle"] = cyc
        state["pos"] = pos
        if not cyc:
            state["cur"] = None
            return
        nx, lam = cyc[pos]
        pay = False
        if nx != c:
            marked = set()
            for j in running:
                if cls[j] == c and cfg.suspend == "all":
                    marked.add(j)
                elif cls[j] != nx and any(x in held[nx] for x in nodes[j]):
                    marked.add(j)
            if waiting[nx]:
                h = waiting[nx][0]
                avail = len(eligible(nx)) + sum(1 for j in marked for x in nodes[j] if x not in held[nx])
                if w[h] > avail:
                    cands = sorted((j for j in running if j not in marked and cls[j] != nx), key=lambda j: (-last[j], -j))
                    for j in cands:
                        marked.add(j)
                        avail += sum(1 for x in nodes[j] if x not in held[nx])
                        if w[h] <= avail:
                            break
            for j in sorted(marked):
                stop(j, t, True)
                preempted[cls[j]].append(j)
                npre[j] += 1
            pay = cfg.overhead > 0.0 and (bool(marked) or bool(preempted[nx]))
        if pay:
            for j in running:
                if t > seg[j]:
                    ivs[j].append((seg[j], t))
                    done[j] += t - seg[j]
                seg[j] = t + cfg.overhead
            overheads.append(t)
            state["begin"], state["pending"] = t + cfg.overhead, True
        else:
            state["begin"], state["pending"] = t, False
        state["end"] = state["begin"] + lam
        state["cur"] = nx
        slices.append((nx, state["begin"], state["end"]))

    overheads, slices = [], []
    i = 0
    while True:
        times = [sub[i]] if i < n else []
        times += [seg[j] + (p[j] - done[j]) for j in running]
        if state["cur"] is not None:
            if state["pending"]:
                times.append(state["begin"])
            times.append(state["end"])
        if not times:
            break
        t = min(times)
        for j in sorted(running):
            if seg[j] + (p[j] - done[j]) <= t:
                stop(j, t, False)
                finish[j] = t
        while i < n and sub[i] <= t:
            waiting[cls[i]].append(i)
            i += 1
        if state["cur"] is None:
            work = has_work()
            cyc = new_cycle(t, work)
            if cyc:
                state.update(cycle=cyc, pos=0, cur=cyc[0][0], begin=t, end=t + cyc[0][1], pending=False)
                slices.append((cyc[0][0], t, t + cyc[0][1]))
        elif t >= state["end"]:
            boundary(t)
            if state["cur"] is None:
                continue
        if state["cur"] is None or t < state["begin"]:
            continue
        state["pending"] = False
        schedule_pass(t, state["cur"])

    out = {"first": [0.0] * n, "finish": [0.0] * n, "nodes": [None] * n, "intervals": [None] * n, "preemptions": [0] * n}
    for s_idx, j in enumerate(order_idx):
        out["first"][j] = first[s_idx]
        out["finish"][j] = finish[s_idx]
        out["nodes"][j] = nodes[s_idx]
        out["intervals"][j] = ivs[s_idx]
        out["preemptions"][j] = npre[s_idx]
    out["overheads"] = overheads
    out["slices"] = slices
    return out
