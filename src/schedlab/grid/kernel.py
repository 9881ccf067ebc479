"""Compiled event loop of a grid of K independent EASY sites with job exchange (none, POOL, RQ).

nsga2-grid-performance-bounds, Sections 3 and 5.3. Every site k is one single-site engine state
(:func:`schedlab.sim.state.new_site`, m_k processors) over the shared ``Jobs`` bundle, and runs
the engine's own EASY pass (:func:`schedlab.sim.dispatch.schedule_pass`) on its own queue; each
job arrives at its origin site. Jobs are killed at their estimate: p_j = min(runtime, estimate).

Event semantics are the single-site engine's: at one timestamp all finishes are processed (every
site), then all arrivals, then one scheduling round over the sites in index order 0..K-1; a job
of length 0 holds its processors during the pass that starts it, and its finish is an event at
the same timestamp (another round follows).

One scheduling round, by exchange policy:

- ``NONE`` (0): every site with a finish or an arrival at this instant runs one EASY pass on its
  queue (a pass on an unchanged site starts nothing, so this equals simulating each site alone).
- ``POOL`` (1), Grimme et al. as read in Section 5.3: every site runs its EASY pass; then each
  job that arrived at this instant and is still waiting is published to the central pool (pool
  order = submit order) while it stays in its origin's queue; then every site k in order walks
  the pool and starts each pooled job of another origin that fits k's free processors now and
  does not delay k's own head reservation (it ends, by its estimate, no later than the head's
  shadow time, or it uses only the head's extra processors, which it then consumes; a site with
  an empty queue takes anything that fits). A started pooled job leaves the pool and its origin's
  queue. Reading options: ``pool_take = idle`` (a site with waiting jobs of its own takes none),
  ``pool_keep = once`` (the pool is emptied at the start of every round: a job is offered only
  in the round it is published).
- ``RQ`` (2), the request heuristic, Section 5.3: every site runs its EASY pass (``rq_seq =
  local-first``: and a site whose queue a request changed passes again before its own request,
  or at the end of the round if its turn is over; ``interleaved``: site k's pass comes right
  before k's request, site by site, and nothing else);
  then for each site k in order that requests at this instant (``rq_when``: ``every`` instant,
  when k's ``queue-changed`` -- an arrival at k, k's pass started a waiting job, or a request took
  one of k's jobs -- or on an ``own-arrival`` at k): with a virtual budget b = free processors of
  k, iterate over the other sites' queues (site order, queue order) and move every job with
  m_j <= b to the end of k's queue (b -= m_j; the real free count is untouched; ``rq_take =
  startable``: a job moves only if EASY would start it now behind the jobs moved so far, i.e. it
  fits b and, when k has waiting jobs, ends by k's head reservation or fits its spare
  processors, which it then consumes); if any job moved, k passes again. A moved job belongs to
  k's queue from then on (it may be requested away again by another site later).

The reading codes (a vector indexed by the ``R_*`` slots) and the text each option reads:
:mod:`schedlab.grid.readings`.

``limit`` (policy NONE only): the loop stops early once a site's lower bound of AWRT_k,
sum_{started} p m (C - r) / sum_{all jobs of k} p m, exceeds ``limit`` (checked about 64 times per run, every n/32 events).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from ..sim.dispatch import head_reservation, schedule_pass
from ..sim.engine import site_loop
from ..sim.ops import append, enqueue, next_finish, queue, release_finished, remove, start_now, waiting
from ..sim.state import EASY, EST, FREE, O_GREEDY, O_SUBMIT, START, SUBMIT, WIDTH, make_jobs, new_site
# the reading of the exchange rules: an int64 vector, one code per slot (names and the text each
# reads: schedlab.grid.readings)
from .reading_codes import (DEFAULT_CODES, POOL_KEEP_ONCE, POOL_TAKE_IDLE, R_POOL_KEEP, R_POOL_TAKE, R_RQ_SEQ,
                            R_RQ_TAKE, R_RQ_WHEN, RQ_SEQ_INTERLEAVED, RQ_TAKE_STARTABLE, RQ_WHEN_ARRIVAL, RQ_WHEN_QUEUE)

NONE, POOL, RQ = 0, 1, 2
EXCHANGES: dict[str, int] = {"none": NONE, "pool": POOL, "rq": RQ}



# the few engine-state fields the grid loop reads (layout of schedlab.sim.state)
@njit(inline="always")
def _width(J, j):
    return J.i[WIDTH, j]


@njit(inline="always")
def _est(J, j):
    return J.f[EST, j]


@njit(inline="always")
def _start_of(S, j):
    return S.f[START, j]


@njit
def _started(sites, j):
    for S in sites:
        if not np.isnan(_start_of(S, j)):
            return True
    return False


@njit
def _pool_round(J, sites, G, rules, orders, origin, pool, plen, first, last, now, reading):
    """POOL: local passes, publish this instant's unstarted arrivals, then pool passes."""
    K = len(sites)
    take_idle = reading[R_POOL_TAKE] == POOL_TAKE_IDLE
    if reading[R_POOL_KEEP] == POOL_KEEP_ONCE:
        plen = 0  # offered only at the instant of publishing
    for k in range(K):
        schedule_pass(J, sites[k], G, rules[k], orders[k], now)
    for j in range(first, last):
        if not _started(sites, j):
            pool[plen] = j
            plen += 1
    for k in range(K):
        S = sites[k]
        if S.ctr[FREE] == 0 or plen == 0:
            continue
        blocked = waiting(S) > 0
        if blocked and take_idle:
            continue
        shadow = np.inf
        extra = 0
        if blocked:  # the head of the queue as the last pass left it (passes compact the queue)
            shadow, extra = head_reservation(J, S, _width(J, queue(S)[0]), now)
        keep = 0
        for idx in range(plen):
            j = pool[idx]
            if _started(sites, j):
                continue
            w = _width(J, j)
            if origin[j] != k and w <= S.ctr[FREE]:
                ok = False
                if not blocked or now + _est(J, j) <= shadow:
                    ok = True
                elif w <= extra:
                    ok = True
                    extra -= w
                if ok:
                    remove(sites[origin[j]], j)
                    start_now(J, S, j, now)
                    continue
            pool[keep] = j
            keep += 1
        plen = keep
    return plen


@njit
def _request(J, sites, k, now, startable, changed, robbed):
    """Site k requests the other sites' queues (site order, queue order); True if a job moved.

    ``startable`` False: every job with m_j <= the virtual budget b (b = free processors of k,
    lowered by every moved job) moves to the end of k's queue. True: a job moves only if k's
    EASY pass would start it now behind the jobs moved so far (it fits the free processors left
    and, when k has waiting jobs, ends by its head's reservation or fits the spare processors)."""
    K = len(sites)
    S = sites[k]
    budget = S.ctr[FREE]
    blocked = startable and waiting(S) > 0
    shadow = np.inf
    extra = 0
    if blocked:
        shadow, extra = head_reservation(J, S, _width(J, queue(S)[0]), now)
    moved = False
    for other in range(K):
        if other == k:
            continue
        R = sites[other]
        i = 0
        while i < waiting(R) and budget > 0:  # R's queue in order (a pass with a static order leaves it compact)
            j = queue(R)[i]
            w = _width(J, j)
            ok = w <= budget
            if ok and blocked and now + _est(J, j) > shadow:
                if w <= extra:
                    extra -= w
                else:
                    ok = False
            if ok:
                remove(R, j)
                append(S, j)
                budget -= w
                moved = True
                changed[other] = True
                robbed[other] = True
            else:
                i += 1
    return moved


@njit
def _rq_round(J, sites, G, rules, orders, now, changed, arrived, robbed, reading):
    """RQ: local passes and requests in the order the reading says (module docstring)."""
    K = len(sites)
    interleaved = reading[R_RQ_SEQ] == RQ_SEQ_INTERLEAVED
    when = reading[R_RQ_WHEN]
    startable = reading[R_RQ_TAKE] == RQ_TAKE_STARTABLE
    robbed[:] = False
    if not interleaved:
        for k in range(K):
            if schedule_pass(J, sites[k], G, rules[k], orders[k], now) > 0:
                changed[k] = True
    for k in range(K):
        S = sites[k]
        if interleaved or robbed[k]:  # local-first: a queue a request changed is passed again first
            robbed[k] = False
            if schedule_pass(J, S, G, rules[k], orders[k], now) > 0:
                changed[k] = True
        if when == RQ_WHEN_QUEUE and not changed[k]:
            continue
        if when == RQ_WHEN_ARRIVAL and not arrived[k]:
            continue
        if _request(J, sites, k, now, startable, changed, robbed):
            schedule_pass(J, S, G, rules[k], orders[k], now)
    if not interleaved:
        for k in range(K):  # sites robbed after their turn
            if robbed[k]:
                schedule_pass(J, sites[k], G, rules[k], orders[k], now)


@njit
def _grid_loop(J, sites, G, rules, orders, origin, policy, reading):
    """The event loop of sites that exchange jobs (POOL, RQ): every site passes every round."""
    n = J.f.shape[1]
    K = len(sites)
    pool = np.empty(max(n, 1), dtype=np.int64)
    plen = 0
    changed = np.zeros(K, dtype=np.bool_)
    arrived = np.zeros(K, dtype=np.bool_)
    robbed = np.zeros(K, dtype=np.bool_)
    i = 0
    while True:
        now = np.inf
        if i < n:
            now = J.f[SUBMIT, i]
        for S in sites:
            now = min(now, next_finish(S))
        if now == np.inf:
            return
        for S in sites:
            release_finished(J, S, now)
        changed[:] = False
        arrived[:] = False
        first = i
        while i < n and J.f[SUBMIT, i] <= now:
            enqueue(J, sites[origin[i]], i)
            changed[origin[i]] = True
            arrived[origin[i]] = True
            i += 1
        if policy == POOL:
            plen = _pool_round(J, sites, G, rules, orders, origin, pool, plen, first, i, now, reading)
        else:
            _rq_round(J, sites, G, rules, orders, now, changed, arrived, robbed, reading)


def grid_kernel(submit, run, est, procs, origin, site_procs, policy, limit, rules=None, orders=None, reading=None):
    """Simulate the grid; returns (start, site, awrt[K], aborted).

    Jobs must be sorted by submit time (ties: site, then trace order); ``run`` = p_j.
    ``rules``/``orders``: dispatch rule and static queue order code of each site (engine codes,
    :mod:`schedlab.sim.state`; default EASY on a submit-ordered queue, the paper's sites).
    ``reading``: the exchange rules' reading codes (:meth:`schedlab.grid.readings.Reading.codes`;
    default :data:`schedlab.grid.reading_codes.DEFAULT_CODES`, the codes of
    :data:`schedlab.grid.readings.DEFAULT`).
    ``awrt[k]`` is AWRT_k over the jobs executed at k (nan for a site without weight); when
    ``aborted`` (policy NONE with finite ``limit``) it holds lower bounds from the started jobs.
    """
    n = submit.shape[0]
    origin = np.ascontiguousarray(origin, dtype=np.int64)
    J = make_jobs(submit, est, run, procs, np.zeros(n, dtype=np.int64))
    G = None  # static orders only: the greedy kernels are not compiled
    K = len(site_procs)
    rules = np.full(K, EASY, dtype=np.int64) if rules is None else np.ascontiguousarray(rules, dtype=np.int64)
    orders = np.full(K, O_SUBMIT, dtype=np.int64) if orders is None else np.ascontiguousarray(orders, dtype=np.int64)
    if np.any(orders == O_GREEDY) or np.any((orders < 0) | (rules < 0)):
        raise ValueError("grid sites take static queue orders only (their queues are exchanged in order)")
    sites = tuple(new_site(n, int(m), True, int(orders[k])) for k, m in enumerate(site_procs))
    proc = np.asarray(run, dtype=np.float64)
    area = proc * np.asarray(procs, dtype=np.float64)
    weight = np.bincount(origin, weights=area, minlength=K).astype(np.float64)
    if policy == NONE:  # sites are independent: one single-site loop each
        aborted = False
        for k, S in enumerate(sites):
            if weight[k] > 0 or np.any(origin == k):
                aborted = bool(site_loop(J, S, G, rules[k], orders[k], origin, k, float(limit), weight[k]))
                if aborted:
                    break
    else:
        if reading is None:
            reading = DEFAULT_CODES
        codes = reading.codes() if hasattr(reading, "codes") else np.ascontiguousarray(reading, dtype=np.int64)
        _grid_loop(J, sites, G, rules, orders, origin, int(policy), codes)
        aborted = False
    start = np.full(n, np.nan)
    site = np.full(n, -1, dtype=np.int64)
    for k, S in enumerate(sites):
        s = S.f[START]
        done = ~np.isnan(s)
        start[done] = s[done]
        site[done] = k
    awrt = np.full(K, np.nan)
    ok = site >= 0
    num = np.bincount(site[ok], weights=area[ok] * (start[ok] + proc[ok] - submit[ok]), minlength=K)
    den = weight if aborted else np.bincount(site[ok], weights=area[ok], minlength=K)
    pos = den > 0
    awrt[pos] = num[pos] / den[pos]
    return start, site, awrt, aborted
