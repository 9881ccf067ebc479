"""Grid sites running other dispatch rules than EASY (codes per site): the grid loop changes a
site's queue only through the engine's operations, so a conservative site's reservations follow
every job the exchange takes away or hands over. Compared with tests/support/grid_naive.py (per-site
rules run by the single-site reference, tests/support/naive.py) and checked by the shared validator."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from support.grid_naive import naive_grid
from schedlab.grid.kernel import EXCHANGES, grid_kernel
from schedlab.grid.readings import Reading, all_readings
from schedlab.grid.sim import GridSchedule, GridTrace, check_site_schedules
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.sim.model import Schedule
from schedlab.sim.state import DISPATCH_CODES
from schedlab.strategy import Strategy
from test_grid_sim import _site, tiny_grid

RULES = ("fcfs", "list", "easy", "conservative")


def _run(tr, exchange, rules, reading=None):
    w = tr.workload
    start, site, _awrt, _ab = grid_kernel(
        np.ascontiguousarray(w.submit, dtype=np.float64), tr.run, np.ascontiguousarray(w.estimate, dtype=np.float64),
        np.ascontiguousarray(w.procs, dtype=np.int64), tr.origin, tr.site_procs, EXCHANGES[exchange], np.inf,
        rules=[DISPATCH_CODES[r] for r in rules], reading=reading)
    return GridSchedule(trace=tr, exchange=exchange, start=start, site=site)


@settings(max_examples=examples(150))
@given(sites=tiny_grid(), exchange=st.sampled_from(["none", "pool", "rq"]),
       rules=st.lists(st.sampled_from(RULES), min_size=2, max_size=2), pick=st.integers(0, 11))
def test_grid_with_per_site_rules_matches_reference(sites, exchange, rules, pick):
    if sum(len(s.workload) for s in sites) == 0:
        return
    tr = GridTrace.merge(sites)
    reading = all_readings("rq" if exchange == "rq" else "pool")[pick % (12 if exchange == "rq" else 4)]
    g = _run(tr, exchange, rules, reading)
    check_site_schedules(g)
    w = tr.workload
    start, site = naive_grid(list(w.submit), list(tr.run), list(w.estimate), list(w.procs), list(tr.origin),
                             list(tr.site_procs), exchange, rules=list(rules),
                             reading=asdict(reading))
    np.testing.assert_array_equal(g.start, np.array(start, dtype=float), err_msg=f"{exchange} {rules}")
    np.testing.assert_array_equal(g.site, np.array(site))
    if exchange == "none":  # each site alone: its rule's full replay by the validator
        for k, rule in enumerate(rules):
            mask = g.site == k
            validate_schedule(Schedule(tr.workload.take(mask), Machine(int(tr.site_procs[k])), Strategy(rule),
                                       g.start[mask], g.finish[mask], killed=True))


def test_conservative_site_alone_equals_single_site_engine():
    """Exchange none: a conservative site's schedule is the single-site engine's on its own jobs."""
    rng = np.random.default_rng(3)
    rows = [[(float(s), float(r), float(r + e), int(p)) for s, r, e, p in
             zip(np.sort(rng.integers(0, 400, 60)), rng.integers(0, 50, 60), rng.integers(0, 30, 60), rng.integers(1, m + 1, 60))]
            for m in (8, 16)]
    tr = GridTrace.merge([_site("a", 8, rows[0]), _site("b", 16, rows[1])])
    g = _run(tr, "none", ["conservative", "conservative"])
    for k, m in enumerate((8, 16)):
        mask = tr.origin == k
        s = simulate(tr.workload.take(mask), Machine(m), Strategy("conservative"))
        validate_schedule(s)
        np.testing.assert_array_equal(g.start[mask], s.start)
        assert np.all(g.site[mask] == k)


def test_rq_takes_a_reserved_job_from_a_conservative_site():
    """Hand-worked RQ case where the reservation of a job requested away must be released.

    Site 0 (conservative, m=2): job A (w2, 0-10) runs; B (w2, est 10, submit 1) is reserved at
    [10, 20); C (w1, est 5, submit 2) waits behind B, reserved at [20, 25) (B holds both
    processors during [10, 20)). Site 1 (m=2) is busy with D (w2, 0-3) until 3; at t = 3 it
    requests B (w2 <= its 2 free) and starts it. C's reservation must move to 10 (A's end), not
    stay behind the vanished B at 20."""
    a = _site("a", 2, [(0.0, 10.0, 10.0, 2), (1.0, 10.0, 10.0, 2), (2.0, 5.0, 5.0, 1)])
    b = _site("b", 2, [(0.0, 3.0, 3.0, 2)])
    tr = GridTrace.merge([a, b])
    g = _run(tr, "rq", ["conservative", "easy"], Reading.parse("rq-when=every"))  # site 1's queue never changes
    w = tr.workload
    by = {(int(o), float(s)): (float(st_), int(k)) for o, s, st_, k in zip(tr.origin, w.submit, g.start, g.site)}
    assert by[(0, 1.0)] == (3.0, 1)  # B requested by site 1 at t = 3
    assert by[(0, 2.0)] == (10.0, 0)  # C starts at A's end
    check_site_schedules(g)
