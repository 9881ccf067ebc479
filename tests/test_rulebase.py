"""The rule-based scheduler (genetic-fuzzy-rule-based-scheduling Sections 3.2, 4): features kept
by the loop at every event, the 13 strategies, switching, and the validator's per-event replay.

- hypothesis: random small workloads and random table / fuzzy rule bases against the naive
  reference (tests/support/naive.py with a ``switch`` callable that recomputes the features from scratch,
  tests/support/naive_rules.py); every schedule through the shared validator with its plan;
- feature exactness on real traces: at sampled passes every feature equals its plain-Python
  recomputation from the schedule and queue;
- hand-worked two-rule bases switching at known events, into and out of conservative.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from support import naive_rules
from conftest import trace_path
from support.naive import naive_simulate
from schedlab.sim import Machine, validate_schedule
from schedlab.sim.engine import check_workload
from schedlab.sim.rulebase import simulate_rulebase
from schedlab.sim.validate import ScheduleInvalid
from schedlab.strategy import rules as R
from schedlab.workload import Workload, load_trace
from test_engine_vs_naive import criteria, workloads

# ---------------------------------------------------------------------------- random rule bases
bound = st.floats(0.5, 99.5, allow_nan=False).map(lambda v: round(v, 3) + 0.0001)  # never a small ratio


@st.composite
def table_bases(draw):
    parts = tuple(tuple(sorted(set(draw(st.lists(bound, max_size=2))))) for _ in range(R.N_FEATURES))
    n = int(np.prod([len(p) + 1 for p in parts]))
    table = draw(st.lists(st.integers(0, R.N_STRATEGIES - 1), min_size=n, max_size=n))
    greedy = draw(st.builds(lambda c: R.Greedy((c,)), criteria))
    return R.TableRuleBase(parts, tuple(table), greedy)


@st.composite
def fuzzy_bases(draw):
    nr = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    centre = np.round(rng.uniform(0, 100, (nr, R.N_FEATURES)), 2)
    width = np.round(rng.uniform(2, 80, (nr, R.N_FEATURES)), 2)
    rec = rng.choice(R.LEVELS, (nr, R.N_STRATEGIES))
    thr = draw(st.sampled_from([None, 1e-12, 1e-9]))
    return R.FuzzyRuleBase(centre, width, rec, thr, None if thr is None else int(rng.integers(13)))


@settings(max_examples=examples(150), deadline=None)
@given(case=workloads(), rb=st.one_of(table_bases(), fuzzy_bases()), kill=st.booleans(),
       sd_clip=st.sampled_from(["job", "mean"]))
def test_rule_bases_match_the_naive_reference(case, rb, kill, sd_clip):
    w, m = case
    check_workload(w, Machine(m))
    s = simulate_rulebase(w, m, rb, kill=kill, sd_clip=sd_clip, record_features=True)
    validate_schedule(s)  # capacity, submit, once, and per start time the rule the plan had in force
    log: list = []
    ref_start, ref_finish = naive_simulate(w, m, R.strategy_of(0), kill=kill,
                                           switch=naive_rules.switcher(rb, w, m, kill, sd_clip, log))
    np.testing.assert_array_equal(s.start, ref_start)
    np.testing.assert_array_equal(s.finish, ref_finish)
    assert [k for _, k, _ in log] == s.plan.codes.tolist()
    assert [t for t, _, _ in log] == s.plan.times.tolist()
    np.testing.assert_allclose(s.plan.features, np.array([x for _, _, x in log]).T.reshape(7, -1), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- the controller alone
def _decide(rb, x):
    from schedlab.sim.rulebase import decide, pack

    phi, psi = np.empty(rb.n_rules), np.empty(R.N_STRATEGIES)
    return int(decide(pack(rb), np.asarray(x, dtype=np.float64), phi, psi))


@settings(max_examples=examples(300), deadline=None)
@given(seed=st.integers(0, 2**31), nr=st.integers(1, 60), spread=st.sampled_from([0.5, 3.0, 20.0, 60.0]),
       copies=st.integers(0, 3))
def test_controller_matches_the_plain_reference_on_large_bases(seed, nr, spread, copies):
    """Eqs. 5-9 against tests/support/naive_rules.decide (every exp, rule order), with bases of up to 60
    rules whose widths make most rules minor (far below the best) or all of them major, and
    duplicated rules with other recommendations (ties and near-ties between strategies)."""
    rng = np.random.default_rng(seed)
    centre = np.round(rng.uniform(0, 100, (nr, R.N_FEATURES)), 2)
    width = np.round(np.exp(rng.uniform(np.log(0.5), np.log(spread + 0.5), (nr, R.N_FEATURES))), 3)
    rec = rng.choice(R.LEVELS, (nr, R.N_STRATEGIES))
    for _ in range(copies):  # the same rule recommending otherwise: Psi ties unless the rest decides
        i = int(rng.integers(nr))
        centre, width = np.vstack([centre, centre[i]]), np.vstack([width, width[i]])
        rec = np.vstack([rec, rng.permutation(rec[i])])
    rb = R.FuzzyRuleBase(centre, width, rec)
    for x in np.round(rng.uniform(0, 100, (5, R.N_FEATURES)), 2):
        assert _decide(rb, x) == naive_rules.decide(rb, list(x))


@settings(max_examples=examples(200), deadline=None)
@given(seed=st.integers(0, 2**31), nr=st.integers(1, 8), levels=st.sampled_from([R.LEVELS, (0.0, 1.0), (0.0, 5.0)]),
       lead=st.sampled_from([None, 0, 4, 12]))
def test_a_fuzzy_base_picks_only_strategies_it_calls_selectable(seed, nr, levels, lead):
    """schedlab.sim.rulebase.selectable (the strategies whose queue orders get ranks) must contain
    every strategy the controller picks, at many feature vectors, on bases whose columns often
    dominate each other (few levels, or one strategy lifted in every rule); a dominated strategy
    is left out, so the test also sees the set shrink."""
    from schedlab.sim.rulebase import selectable

    rng = np.random.default_rng(seed)
    centre = np.round(rng.uniform(0, 100, (nr, R.N_FEATURES)), 2)
    width = np.round(rng.uniform(0.5, 60, (nr, R.N_FEATURES)), 3)
    rec = rng.choice(levels, (nr, R.N_STRATEGIES))
    if lead is not None:
        rec[:, lead] = 5.0
    rb = R.FuzzyRuleBase(centre, width, rec)
    keep = set(selectable(rb))
    for x in np.round(rng.uniform(0, 100, (40, R.N_FEATURES)), 2):
        assert _decide(rb, x) in keep
    if lead is not None and np.max(levels) < 5.0:  # one strategy above all others in every rule
        assert keep == {lead}


def test_selectable_strategies_of_a_table_and_of_an_all_easy_base():
    """A table picks what it lists; a fuzzy base favouring EASY in every rule picks only EASY
    (its loop then ranks the queue by the submit order alone)."""
    from schedlab.sim.rulebase import selectable

    table = R.TableRuleBase()
    easy, fcfs = R.strategy_index("easy/submit"), R.strategy_index("fcfs/submit")
    assert selectable(R.TableRuleBase(table.partitions, (easy, fcfs) * (table.n_classes // 2))) == sorted({easy, fcfs})
    rec = np.zeros((3, R.N_STRATEGIES))
    rec[:, easy] = 5.0
    rb = R.FuzzyRuleBase(np.full((3, R.N_FEATURES), 50.0), np.full((3, R.N_FEATURES), 10.0), rec)
    assert selectable(rb) == [easy]
    with_default = R.FuzzyRuleBase(rb.centre, rb.width, rec, 1e-3, fcfs)
    assert selectable(with_default) == sorted({easy, fcfs})


def test_controller_leaves_a_tie_to_the_minor_rules():
    """Two major rules tie between EASY and FCFS; a rule about 30 (log units) below them favours
    FCFS: the major rules alone cannot decide (the shortcut answers -1) and the full sum picks
    FCFS, as the plain reference does. Without the minor rule the tie goes to the first index."""
    from schedlab.sim.rulebase import _argmax_of_major, decide, pack

    easy, fcfs = R.strategy_index("easy/submit"), R.strategy_index("fcfs/submit")
    x = np.full(R.N_FEATURES, 10.0)
    centre = np.full((3, R.N_FEATURES), 10.0)
    centre[2, 0] = 10.0 + np.sqrt(30 * 2 * 100.0)  # width 10: (d / 10)^2 / 2 = 30
    width = np.full((3, R.N_FEATURES), 10.0)
    rec = np.zeros((3, R.N_STRATEGIES))
    rec[0, easy], rec[1, fcfs], rec[2, fcfs] = 1.0, 1.0, 5.0  # levels -5, -1, 0, 1, 5
    rb = R.FuzzyRuleBase(centre, width, rec)
    packed, phi, psi = pack(rb), np.empty(3), np.empty(R.N_STRATEGIES)
    decide(packed, x, phi, psi)  # fills phi
    assert phi[0] - phi[2] == pytest.approx(30.0)
    assert _argmax_of_major(packed, phi, psi, phi[0]) == -1
    assert _decide(rb, x) == naive_rules.decide(rb, list(x)) == fcfs
    two = R.FuzzyRuleBase(centre[:2], width[:2], rec[:2])
    assert _decide(two, x) == naive_rules.decide(two, list(x)) == min(easy, fcfs)
    rec = rec.copy()
    rec[0, easy] = 5.0  # a clear leader: the major rules decide alone
    packed = pack(R.FuzzyRuleBase(centre, width, rec))
    decide(packed, x, phi, psi)
    assert _argmax_of_major(packed, phi, psi, phi[0]) == easy


# ---------------------------------------------------------------------------- features on real traces
def _recompute(s, k, proc, sd_clip):
    """Plain-Python features just before pass k, from the schedule and the plan alone."""
    w = s.workload
    t = float(s.plan.times[k])
    before = s.plan.start_pass < k
    start, finish = s.start.tolist(), s.finish.tolist()
    done = [j for j in np.flatnonzero(before) if finish[j] <= t]
    running = [j for j in np.flatnonzero(before) if finish[j] > t]
    waiting = [j for j in np.flatnonzero(~before & (w.submit <= t))]
    return naive_rules.features(t, waiting, running, done, start, finish, w, s.machine.procs, proc, sd_clip)


@pytest.mark.parametrize("name,sd_clip", [("CTC-SP2-1996-3.1-cln.swf.gz", "job"), ("KTH-SP2-1996-2.1-cln.swf.gz", "mean"),
                                          ("SDSC-SP2-1998-4.2-cln.swf.gz", "job")])
def test_features_equal_their_recomputation_on_real_traces(name, sd_clip):
    w = load_trace(trace_path(name), months=1)
    rng = np.random.default_rng(7)
    nr = 12  # a random fuzzy base that switches often between all 13 strategies
    rb = R.FuzzyRuleBase(rng.uniform(0, 100, (nr, 7)), rng.uniform(5, 40, (nr, 7)), rng.choice(R.LEVELS, (nr, 13)))
    s = simulate_rulebase(w, w.machine_procs, rb, sd_clip=sd_clip, record_features=True)
    validate_schedule(s)
    assert len(np.unique(s.plan.codes)) >= 3, "the base should switch between strategies"
    proc = np.minimum(w.runtime, w.estimate).tolist()
    passes = s.plan.times.size
    sample = np.unique(np.concatenate([rng.integers(0, passes, 60), [0, passes - 1]]))
    seen_sd = False
    for k in sample:
        x = _recompute(s, k, proc, sd_clip)
        np.testing.assert_allclose(s.plan.features[:, k], x, rtol=1e-9, atol=1e-9, err_msg=f"pass {k}")
        seen_sd |= x[0] > 1.0
        assert 1.0 <= x[0] <= 100.0 and 0.0 <= x[1] <= 100.0 and sum(x[2:]) <= 100.0 + 1e-9  # group 0 not in 1..5
    assert seen_sd, "some sampled pass should see a slowdown above 1"


# ---------------------------------------------------------------------------- hand-worked switching
def _jobs(rows, m):
    submit, runtime, procs = (np.array(c, dtype=float) for c in zip(*rows))
    return Workload.from_columns({"submit": submit, "runtime": runtime, "estimate": runtime.copy(),
                                  "procs": procs.astype(int)}, machine_procs=m)


def _by_um(low: str, high: str, at: float = 50.0) -> R.TableRuleBase:
    """A two-rule base: U_m <= ``at`` % -> ``low``, above -> ``high``."""
    parts = ((), (at,), (), (), (), (), ())
    return R.TableRuleBase(parts, (R.strategy_index(low), R.strategy_index(high)))


def test_two_rule_base_switches_to_easy_at_a_known_event():
    """m = 4: A (w 3, 10 s, t 0), B (w 2, 5 s, t 1), C (w 1, 2 s, t 1).
    t=0: U_m = 0 -> FCFS: A starts. t=1: U_m = 75 % -> EASY: B (head) waits for A (reservation
    10); C fits the free processor and ends at 3 <= 10: backfilled at 1. t=3: U_m 75 -> EASY,
    nothing fits. t=10: U_m 0 -> FCFS: B starts. So A 0, B 10, C 1; with the rules swapped,
    FCFS at t=1 keeps C behind B and EASY at t=10 starts both: A 0, B 10, C 10."""
    w = _jobs([(0, 10, 3), (1, 5, 2), (1, 2, 1)], 4)
    s = simulate_rulebase(w, 4, _by_um("fcfs/submit", "easy/submit"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 10, 1])
    assert s.plan.times.tolist() == [0, 1, 3, 10]
    assert [R.STRATEGIES[c] for c in s.plan.codes] == ["fcfs/submit", "easy/submit", "easy/submit", "fcfs/submit"]
    swapped = simulate_rulebase(w, 4, _by_um("easy/submit", "fcfs/submit"))
    validate_schedule(swapped)
    np.testing.assert_array_equal(swapped.start, [0, 10, 10])


CONS_CASE = [(0, 10, 2), (1, 5, 3), (1, 5, 4), (1, 20, 1), (5, 2, 1)]  # A, X, Y, Z, V


def test_conservative_stretch_protects_every_reservation():
    """m = 4: A (w 2, 10 s, t 0); X (w 3, 5 s), Y (w 4, 5 s), Z (w 1, 20 s) at t 1; V (w 1, 2 s) at 5.
    Rule: U_m <= 50 % -> conservative, above -> EASY. t=1 (U_m 50, conservative): X reserved at
    10, Y at 15 (after X), Z: 1 free in [1, 10) but 20 s would delay Y -> reserved at 20 (EASY would
    backfill Z: it protects the head X only). t=5: V (2 s) fits now and ends before X's 10: starts
    at 5. t=10: X; t=15: Y; t=20: Z."""
    w = _jobs(CONS_CASE, 4)
    s = simulate_rulebase(w, 4, _by_um("conservative/submit", "easy/submit"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 10, 15, 20, 5])
    assert R.STRATEGIES[s.plan.codes[1]] == "conservative/submit"


def test_switch_from_easy_into_conservative_rebuilds_and_is_checked():
    """Same jobs, rules swapped: U_m <= 50 % -> EASY, above -> conservative. t=1 (U_m 50, EASY):
    Z backfills (ends at 21 > X's reservation 10, but uses the 1 processor X leaves spare).
    t=5 (U_m 75 %, conservative, reading "rebuild"): reservations from A (to 10) and Z (to 21):
    X at 10, Y (4) at 21; V (1, 2 s) fits [5, 7) and delays neither: starts at 5. t=10 (U_m 25,
    EASY): X starts; t=21: Y. So A 0, X 10, Y 21, Z 1, V 5."""
    w = _jobs(CONS_CASE, 4)
    s = simulate_rulebase(w, 4, _by_um("easy/submit", "conservative/submit"))
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, [0, 10, 21, 1, 5])
    names = dict(zip(s.plan.times.tolist(), (R.STRATEGIES[c] for c in s.plan.codes)))
    assert names[1.0] == "easy/submit" and names[5.0] == "conservative/submit" and names[10.0] == "easy/submit"
    # the validator checks the rule in force: claim conservative at t=1 and Z's backfill is caught
    codes = s.plan.codes.copy()
    codes[s.plan.times == 1.0] = R.strategy_index("conservative/submit")
    forged = type(s)(s.workload, s.machine, None, s.start, s.finish, plan=type(s.plan)(
        s.plan.times, codes, s.plan.start_pass, s.plan.greedy))
    with pytest.raises(ScheduleInvalid, match="conservative"):
        validate_schedule(forged)


def test_a_start_without_a_pass_is_invalid():
    w = _jobs([(0, 10, 3), (1, 5, 2), (1, 2, 1)], 4)
    s = simulate_rulebase(w, 4, _by_um("fcfs/submit", "easy/submit"))
    keep = s.plan.times != 1.0
    sp = np.searchsorted(s.plan.times[keep], s.start)
    forged = type(s)(s.workload, s.machine, None, s.start, s.finish, plan=type(s.plan)(
        s.plan.times[keep], s.plan.codes[keep], sp, s.plan.greedy))
    with pytest.raises(ScheduleInvalid, match="rule plan"):
        validate_schedule(forged)
