"""The rule-based event loop: 7 features, maintained at every event, pick one of 13 strategies.

genetic-fuzzy-rule-based-scheduling Sections 3.2 and 4 (Fig. 1). The loop is the single-site
loop of :mod:`.loop` (finishes, then arrivals, then ONE pass when a job waits), changing the
site only through the engine's operations (:mod:`.ops`) and :func:`.dispatch.schedule_pass`,
which re-sorts the queue and rebuilds conservative reservations when the strategy changes.
Before every pass it reads the features and asks the rule base for a strategy; it records the
time and strategy of every pass (the validator replays each start time with the rule then in
force, :func:`schedlab.sim.validate.validate_schedule`; figures show strategy over time).

The features are running sums the loop updates by deltas, never recomputed from scratch:

- SD: numerator and denominator over the finished jobs, added when a job ends;
- U_m: busy processors = m - free processors (engine state);
- PRCWQ_i: \\bar p_j m_j of the waiting jobs per user group, added when a job arrives and
  subtracted when it starts.

Which jobs started in a pass is read from the engine's start log (``Site.i[STARTLOG]``, filled by
``start_job``); the jobs that ended from its end log (``Site.i[ENDLOG]``, filled by
``release_finished``).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .._config import njit
from ..errors import StrategyError
from ..strategy import rules as R_
from ..strategy.model import Strategy
from ..workload.model import Workload
from .dispatch import schedule_pass
from .engine import check_workload, prepare
from .model import Machine, Schedule
from .ops import enqueue, next_finish, release_finished, waiting
from .state import (
    DISPATCH_CODES, ENDLOG, EST, FIN_N, FINISH, FREE, GROUP, M, NLOG, O_GREEDY, ORDER_CODES, PROC, START, STARTLOG, SUBMIT, WIDTH,
)

#: a rule base packed for the compiled loop; ``kind`` 0 = table, 1 = fuzzy
Packed = namedtuple("Packed", "kind bounds boff table mu inv2s2 logc rec thr dflt span")
#: ``mu``/``inv2s2``: centres and 1 / (2 sigma^2), feature by rule (transposed: rules contiguous)
#: ``span``: largest minus smallest recommendation, 0 included (bounds what a rule adds to Psi)
SD_JOB, SD_MEAN = 0, 1
#: exp(-x) is exactly 0.0 in float64 for x > 745.14 (below the least subnormal): rules whose log
#: activation lies this far below the best one contribute nothing to Eqs. 8-9 and are skipped
UNDERFLOW = 746.0


def pack(rb) -> Packed:
    """The arrays of a :class:`~schedlab.strategy.rules.TableRuleBase` or ``FuzzyRuleBase``."""
    f0 = np.zeros((R_.N_FEATURES, 1))
    if isinstance(rb, R_.TableRuleBase):
        bounds = np.array([b for part in rb.partitions for b in part], dtype=np.float64)
        boff = np.cumsum([0] + [len(p) for p in rb.partitions]).astype(np.int64)
        return Packed(0, bounds, boff, np.array(rb.table, dtype=np.int64), f0, f0, np.zeros(1),
                      np.zeros((1, R_.N_STRATEGIES)), -1.0, 0, 0.0)
    if isinstance(rb, R_.FuzzyRuleBase):
        s = rb.width
        logc = -np.sum(np.log(s * np.sqrt(2 * np.pi)), axis=1)
        thr = -1.0 if rb.threshold is None else float(rb.threshold)
        rec = np.array(rb.recommend, dtype=np.float64)
        span = float(max(np.max(rec), 0.0) - min(np.min(rec), 0.0))
        if rb.allowed is not None:  # a strategy outside the set gets Psi = -inf: Eq. 9's argmax never picks it
            span = float(max(np.max(rec[:, list(rb.allowed)]), 0.0) - min(np.min(rec[:, list(rb.allowed)]), 0.0))
            out = np.ones(rec.shape[1], dtype=bool)
            out[list(rb.allowed)] = False
            rec[:, out] = -np.inf
        return Packed(1, np.zeros(0), np.zeros(R_.N_FEATURES + 1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                      np.ascontiguousarray(np.asarray(rb.centre, dtype=np.float64).T),
                      np.ascontiguousarray((1.0 / (2.0 * s * s)).T), logc, rec, thr, int(rb.default or 0), span)
    raise StrategyError(f"not a rule base: {type(rb).__name__}")


def selectable(rb) -> list[int]:
    """The strategies the rule base can ever pick, as far as its arrays show (a superset).

    Table: the strategies in its table. Fuzzy: Psi_k = sum_i phi_i C_ik with phi_i >= 0 and the
    best rule's scaled phi = 1, argmax first on ties (Eq. 9, :func:`decide`), so strategy k is
    never picked when some l < k has C_il >= C_ik in every rule (Psi_l >= Psi_k: rounding is
    monotone), nor when some l has C_il >= C_ik + 1 in every rule (the best rule alone puts Psi_l
    at least 1 above); the default strategy when a threshold is set. The loop computes queue
    ranks only for the orders of these strategies (the others cannot come up)."""
    if isinstance(rb, R_.TableRuleBase):
        return sorted(set(int(s) for s in rb.table))
    C = np.asarray(rb.recommend, dtype=np.float64)
    ns = C.shape[1]
    keep = [k for k in range(ns)
            if not any((l < k and np.all(C[:, l] >= C[:, k])) or np.all(C[:, l] >= C[:, k] + 1.0)
                       for l in range(ns) if l != k)]
    if rb.allowed is not None:
        keep = [k for k in range(ns) if k in rb.allowed]  # every allowed one may lead (Psi of the others is -inf)
    if rb.threshold is not None:
        keep = sorted(set(keep) | {int(rb.default)})
    return keep


def strategy_codes(greedy_order_code: int = O_GREEDY) -> tuple[np.ndarray, np.ndarray]:
    """Dispatch and order codes of the 13 strategies (Greedy = FCFS on the greedy order)."""
    d = np.empty(R_.N_STRATEGIES, dtype=np.int64)
    o = np.empty(R_.N_STRATEGIES, dtype=np.int64)
    for k, name in enumerate(R_.STRATEGIES):
        if k == R_.GREEDY_INDEX:
            d[k], o[k] = DISPATCH_CODES["fcfs"], greedy_order_code
        else:
            disp, _, order = name.partition("/")
            d[k], o[k] = DISPATCH_CODES[disp], ORDER_CODES[order]
    return d, o


#: rules whose log activation is at least this far below the best one are "minor": each has a
#: scaled phi_i below exp(-MAJOR) (6.1e-6)
MAJOR = 12.0


@njit(_nrt=False)  # no reference counting: reads the rule arrays, writes the scratch psi
def _argmax_of_major(R, phi, psi, best):
    """Eq. 9's argmax from the major rules alone when the minor ones cannot change it, else -1.

    Psi over the major rules (in rule order, as :func:`decide` sums) differs from Psi over all
    rules by at most (minor rules) x exp(-MAJOR) x (largest - smallest recommendation, 0
    included) per strategy, plus rounding (below 1e-12: every scaled phi_i <= 1, |C_ik| <= 5,
    at most a few hundred terms). When the leader's margin over every other strategy exceeds
    that bound plus 1e-9, it is the leader of the full sum too, strictly (no tie to break).
    With no minor rule the sum is the full one, term for term. Skips the exp of every minor
    rule (most rules of a large base at most events)."""
    nr = R.logc.shape[0]
    ns = psi.shape[0]
    for k in range(ns):
        psi[k] = 0.0
    cut = best - MAJOR
    nminor = 0
    for i in range(nr):
        if phi[i] >= cut:
            e = np.exp(phi[i] - best)
            for k in range(ns):
                psi[k] += e * R.rec[i, k]
        elif phi[i] >= best - UNDERFLOW:
            nminor += 1
    arg = 0
    for k in range(1, ns):
        if psi[k] > psi[arg]:
            arg = k
    if nminor == 0:
        return arg
    second = -np.inf
    for k in range(ns):
        if k != arg and psi[k] > second:
            second = psi[k]
    if psi[arg] - second > nminor * np.exp(-MAJOR) * R.span + 1e-9:
        return arg
    return -1


assert R_.N_FEATURES == 7, "decide unrolls the paper's 7 features"


@njit(inline="always")
def _dev(xw, mu, v, w, i):
    """(x_w - mu_wi)^2 / (2 sigma_wi^2)."""
    d = xw - mu[w, i]
    return d * d * v[w, i]


@njit(_nrt=False)  # no reference counting: reads the rule arrays, writes the scratch phi / psi
def decide(R, x, phi, psi):
    """The strategy index for feature vector x.

    Table: the class of x (partition = bounds strictly below the value; row-major classes).
    Fuzzy (Eqs. 5-9): log phi_i = log prod 1/(sigma sqrt(2 pi)) - sum (x - mu)^2 / (2 sigma^2);
    Psi_k = sum_i phi_i C_ik with phi scaled by its largest entry (same argmax, and kept when
    every phi underflows); argmax, first k on ties; the default strategy when the threshold is
    on and sum_i phi_i is below it (Section 4.2.2.2). A rule whose log phi_i is :data:`UNDERFLOW`
    below the best has a scaled phi_i of exactly 0.0, as the exp would return: its exp is skipped.
    Without a threshold the argmax is first sought from the rules near the best one
    (:func:`_argmax_of_major`, the same index whenever it answers); the full sum decides otherwise."""
    if R.kind == 0:
        c = 0
        for w in range(x.shape[0]):
            p = 0
            for b in range(R.boff[w], R.boff[w + 1]):
                if x[w] > R.bounds[b]:
                    p += 1
            c = c * (R.boff[w + 1] - R.boff[w] + 1) + p
        return R.table[c]
    nr = R.logc.shape[0]
    mu, v = R.mu, R.inv2s2
    x0, x1, x2, x3, x4, x5, x6 = x[0], x[1], x[2], x[3], x[4], x[5], x[6]  # the 7 features, unrolled:
    for i in range(nr):  # each rule's sum stays in a register, left to right (-6 % of a decide)
        phi[i] = (R.logc[i] - _dev(x0, mu, v, 0, i) - _dev(x1, mu, v, 1, i) - _dev(x2, mu, v, 2, i)
                  - _dev(x3, mu, v, 3, i) - _dev(x4, mu, v, 4, i) - _dev(x5, mu, v, 5, i) - _dev(x6, mu, v, 6, i))
    best = -np.inf
    for i in range(nr):
        if phi[i] > best:
            best = phi[i]
    ns = psi.shape[0]
    if R.thr < 0.0:  # no threshold: only the argmax matters; try the rules near the best first
        arg = _argmax_of_major(R, phi, psi, best)
        if arg >= 0:
            return arg
    for k in range(ns):
        psi[k] = 0.0
    total = 0.0
    for i in range(nr):
        if phi[i] < best - UNDERFLOW:
            continue  # exp would return exactly 0.0: skip the call (same result, bit for bit)
        e = np.exp(phi[i] - best)
        total += e
        if e != 0.0:
            for k in range(ns):
                psi[k] += e * R.rec[i, k]
    if R.thr >= 0.0 and total * np.exp(best) < R.thr:
        return R.dflt
    arg = 0
    for k in range(1, ns):
        if psi[k] > psi[arg]:
            arg = k
    return arg


@njit(_nrt=False)  # no reference counting: its scratch arrays come from the caller (allocates nothing)
def rules_loop(J, S, G, R, sdisp, sord, sd_mode, ev_t, ev_s, feats, start_pass, rcg, x, phi, psi):
    """The event loop; returns the number of passes (their times and strategies in ev_t/ev_s,
    their features in ``feats[:, k]`` when ``feats`` has columns; ``start_pass[j]`` = the pass
    that started job j).

    Bookkeeping for the deltas: the jobs a pass started are the engine's start log
    (``S.i[STARTLOG, :S.ctr[NLOG]]``), the jobs an event ended its end log (``S.i[ENDLOG]``, as
    many as ``release_finished`` returns, in finish order: the order the SD sums add them). A
    second finish heap of the running jobs did this before and cost 8 % of an all-EASY run.
    Scratch from the caller: ``rcg`` (6 zeros: waiting \\bar p m per user group 0..5), ``x``
    (the 7 features), ``phi`` (one per rule, at least 1) and ``psi`` (one per strategy).
    Compiled without numba's reference counting, as :func:`schedlab.sim.loop.site_loop`."""
    submit = J.f[SUBMIT]
    n = submit.shape[0]
    sdn = 0.0
    sdd = 0.0
    nf = x.shape[0]
    m = S.ctr[M]
    record = feats.shape[1] > 0
    k = 0
    i = 0
    while i < n or S.ctr[FIN_N] > 0:
        now = np.inf
        if i < n:
            now = submit[i]
        t = next_finish(S)
        if t <= now:
            now = t
            for h in range(release_finished(J, S, now)):  # the jobs it ended, in finish order
                j = S.i[ENDLOG, h]
                p = J.f[PROC, j]
                if p > 0.0:
                    wgt = p * p * J.i[WIDTH, j]
                    if sd_mode == SD_JOB:
                        sdn += wgt * min(max((S.f[FINISH, j] - submit[j]) / p, 1.0), 100.0)
                    else:
                        sdn += p * J.i[WIDTH, j] * (S.f[FINISH, j] - submit[j])
                    sdd += wgt
        while i < n and submit[i] <= now:
            enqueue(J, S, i)
            rcg[J.i[GROUP, i]] += J.f[EST, i] * J.i[WIDTH, i]
            i += 1
        if waiting(S) > 0:
            sd = 1.0
            if sdd > 0.0:
                sd = min(max(sdn / sdd, 1.0), 100.0)
            x[0] = sd
            x[1] = 100.0 * (m - S.ctr[FREE]) / m
            tot = rcg[0] + rcg[1] + rcg[2] + rcg[3] + rcg[4] + rcg[5]
            for g in range(1, 6):
                x[1 + g] = 100.0 * rcg[g] / tot if tot > 0.0 else 0.0
            s = decide(R, x, phi, psi)
            schedule_pass(J, S, G, sdisp[s], sord[s], now)
            ev_t[k] = now
            ev_s[k] = s
            if record:
                for w in range(nf):
                    feats[w, k] = x[w]
            for h in range(S.ctr[NLOG]):  # the jobs this pass started
                j = S.i[STARTLOG, h]
                rcg[J.i[GROUP, j]] -= J.f[EST, j] * J.i[WIDTH, j]
                start_pass[j] = k
            k += 1
    return k


@dataclass(frozen=True, eq=False)
class StrategyPlan:
    """Which strategy was in force at every scheduling pass of a rule-based simulation.

    ``times[k]``/``codes[k]``: time and strategy index (into :data:`~schedlab.strategy.rules.STRATEGIES`)
    of pass k (times non-decreasing); ``start_pass[j]``: the pass that started job j (trace
    order); ``features``: (7, passes) feature values at each pass, when recorded."""

    times: np.ndarray
    codes: np.ndarray
    start_pass: np.ndarray
    greedy: object
    features: np.ndarray | None = None
    label: str = "rules"

    def strategy(self, code: int) -> Strategy:
        return R_.strategy_of(int(code), self.greedy)

    def strategies(self) -> list[Strategy]:
        """The distinct strategies that were in force."""
        return [self.strategy(c) for c in np.unique(self.codes)]

    def share(self) -> dict[str, float]:
        """Fraction of passes per strategy name."""
        if self.codes.size == 0:
            return {}
        counts = np.bincount(self.codes, minlength=R_.N_STRATEGIES)
        return {R_.STRATEGIES[c]: counts[c] / self.codes.size for c in np.flatnonzero(counts)}


SD_MODES = {"job": SD_JOB, "mean": SD_MEAN}


def simulate_rulebase(workload: Workload, machine: Machine | int, rulebase, *, kill: bool = True, sd_clip: str = "job",
                      conservative_on_switch: str = "rebuild", record_features: bool = False,
                      label: str = "rules") -> Schedule:
    """Simulate a rule base; the Schedule (trace order) carries the :class:`StrategyPlan` in ``plan``.

    ``sd_clip``: reading of SD's clipping to [1, 100] (:data:`schedlab.strategy.rules.SD_CLIP_READINGS`).
    ``conservative_on_switch``: reading of conservative's reservations across a switch
    (:data:`schedlab.strategy.rules.CONSERVATIVE_ON_SWITCH`; only ``rebuild``).
    """
    if not isinstance(machine, Machine):
        machine = Machine(machine)
    if sd_clip not in SD_MODES:
        raise StrategyError(f"unknown SD clipping {sd_clip!r}; choose one of {', '.join(SD_MODES)}")
    if conservative_on_switch not in R_.CONSERVATIVE_ON_SWITCH:
        raise StrategyError(f"unknown conservative switch reading {conservative_on_switch!r}; "
                            f"choose one of {', '.join(R_.CONSERVATIVE_ON_SWITCH)}")
    check_workload(workload, machine)
    n = len(workload)
    packed = pack(rulebase)
    sdisp, sord = strategy_codes()
    orders = sorted({int(sord[k]) for k in selectable(rulebase)} - {O_GREEDY})  # the queue orders it may sort by
    J, S, G, _d, _o, perm = prepare(workload, machine, Strategy("fcfs", rulebase.greedy), kill=kill, ranks=orders)
    cap = 2 * n + 2
    ev_t = np.empty(cap)
    ev_s = np.empty(cap, dtype=np.int64)
    feats = np.empty((R_.N_FEATURES, cap if record_features else 0))
    sp = np.full(n, -1, dtype=np.int64)
    scratch = (np.zeros(6), np.empty(R_.N_FEATURES),
               np.empty(max(packed.logc.shape[0], 1)), np.empty(sdisp.shape[0]))
    k = rules_loop(J, S, G, packed, sdisp, sord, SD_MODES[sd_clip], ev_t, ev_s, feats, sp, *scratch) if n else 0
    start = np.empty(n)
    finish = np.empty(n)
    start[perm] = S.f[START]
    finish[perm] = S.f[FINISH]
    start_pass = np.empty(n, dtype=np.int64)
    start_pass[perm] = sp
    plan = StrategyPlan(ev_t[:k].copy(), ev_s[:k].copy(), start_pass, rulebase.greedy,
                        feats[:, :k].copy() if record_features else None, label)
    return Schedule(workload, machine, None, start, finish, killed=bool(kill), plan=plan)
