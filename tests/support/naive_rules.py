"""Plain-Python reference of the rule-based scheduler's features and decisions.

Written from genetic-fuzzy-rule-based-scheduling Section 3.2 (features) and 4.1/4.2 (decisions),
recomputing everything from the sets of finished, running and waiting jobs (no running sums):

    SD       = sum_{finished, p>0} p^2 m clip((C - r)/p, 1, 100) / sum p^2 m      (reading "job")
             = clip(sum p m (C - r) / sum p^2 m, 1, 100)                          (reading "mean")
               (1 when no job with p > 0 has finished)
    U_m      = 100 * sum_{running} m_j / m
    PRCWQ_i  = 100 * sum_{waiting, group i} \\bar p m / sum_{waiting} \\bar p m
"""

from __future__ import annotations

import math

from schedlab.strategy import rules as R


def features(t, waiting, running, done, start, finish, w, m, proc, sd_clip="job"):
    num = den = 0.0
    for j in done:
        p = proc[j]
        if p > 0:
            wm = int(w.procs[j])
            if sd_clip == "job":
                num += p * p * wm * min(max((finish[j] - float(w.submit[j])) / p, 1.0), 100.0)
            else:
                num += p * wm * (finish[j] - float(w.submit[j]))
            den += p * p * wm
    sd = min(max(num / den, 1.0), 100.0) if den > 0 else 1.0
    um = 100.0 * sum(int(w.procs[j]) for j in running) / m
    rc = [0.0] * 6
    for j in waiting:
        rc[int(w.group[j])] += float(w.estimate[j]) * int(w.procs[j])
    tot = sum(rc)
    return [sd, um] + [100.0 * rc[g] / tot if tot > 0 else 0.0 for g in range(1, 6)]


def decide(rb, x):
    """The strategy index of rule base ``rb`` at features x (plain loops, no numpy)."""
    if isinstance(rb, R.TableRuleBase):
        c = 0
        for value, bounds in zip(x, rb.partitions):
            c = c * (len(bounds) + 1) + sum(1 for b in bounds if value > b)
        return rb.table[c]
    logs = []
    for i in range(rb.n_rules):
        s = -sum(math.log(float(rb.width[i, w]) * math.sqrt(2 * math.pi)) for w in range(R.N_FEATURES))
        for w in range(R.N_FEATURES):
            d = x[w] - float(rb.centre[i, w])
            sw = float(rb.width[i, w])
            s -= d * d * (1.0 / (2.0 * sw * sw))
        logs.append(s)
    best = max(logs)
    psi = [0.0] * R.N_STRATEGIES
    total = 0.0
    for i, s in enumerate(logs):
        e = math.exp(s - best)
        total += e
        for k in range(R.N_STRATEGIES):
            psi[k] += e * float(rb.recommend[i, k])
    if rb.threshold is not None and total * math.exp(best) < rb.threshold:
        return rb.default
    return max(range(R.N_STRATEGIES), key=lambda k: (psi[k], -k))


def switcher(rb, w, m, kill, sd_clip="job", log=None):
    """The ``switch`` callable of ``naive_simulate``: features, then the rule base's strategy."""
    proc = [min(float(r), float(e)) if kill else float(r) for r, e in zip(w.runtime, w.estimate)]

    def choose(t, waiting, running, done, start, finish):
        x = features(t, waiting, running, done, start, finish, w, m, proc, sd_clip)
        k = decide(rb, x)
        if log is not None:
            log.append((t, k, x))
        return R.strategy_of(k, rb.greedy)

    return choose
