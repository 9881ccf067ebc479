"""Golden test of the engine (issue 10): the schedules recorded in tests/golden/engine.json before
the engine was refactored must come out identical: hash of the start times, AWRT and UTIL per
trace x rule x order (and greedy f1..f4, kill off, grid setups I-IV under none/POOL/RQ).

The file holds the whole matrix (tests/support/golden_cases.py, which also regenerates it: only in a
commit that says why schedules changed). The suite re-runs every entry that took at most
:data:`~support.golden_cases.CI_SECONDS` when recorded (all but RICC conservative/submit, minutes each,
checked by ``python tests/support/golden_cases.py --check --slow``):

- the fast tier (``pytest -m "not slow"``, no shared traces needed): every entry of the bundled
  KTH-SP2 that took at most :data:`~support.golden_cases.SUITE_SECONDS` (every rule x order) and the
  cheapest grid entry per exchange (skipped without the shared traces);
- marked ``slow``: the quick entries of every other trace, trace by trace so each trace is loaded
  once, every longer entry as a test of its own (so ``-n 2`` spreads them), the other grid entries.
"""

from __future__ import annotations

import json

import pytest

from conftest import require_workloads
from support.golden_cases import (BUNDLED, GOLDEN, cases, cheapest, in_suite, key, quick, recorded_case, run,
                          traces)

GOLD = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
_SINGLE = {k: recorded_case(e) for k, e in GOLD.items() if not k.startswith("grid/")}
#: the quick entries per trace (the bundled trace's apart: the fast tier runs them)
_QUICK = {}
for _k, _case in _SINGLE.items():
    if quick(_case, GOLD[_k]):
        _QUICK.setdefault(_case["trace"], []).append(_k)
#: every longer single-site entry the suite checks
_LONG = [k for k, c in _SINGLE.items() if not quick(c, GOLD[k]) and in_suite(GOLD[k])]
#: the grid entries in setup order (one setup loaded at a time); the cheapest per exchange is fast
_GRID = sorted((k for k in GOLD if k.startswith("grid/")), key=lambda k: k.split("/")[1])
_GRID_FAST = set(cheapest(GOLD, _GRID, lambda k: k.split("/", 2)[2]))


def _compare(case):
    """None when the case's schedule is the recorded one. Not validated here (budget): the same
    schedules were validated when recorded only as far as tests/test_engine_real_traces.py
    validates every rule on every trace; ``golden_cases.py --check`` validates each one."""
    want = GOLD[key(case)]
    got = run(case)
    diff = {k: (want[k], got[k]) for k in got if want[k] != got[k]}
    return f"{key(case)}: {diff}" if diff else None


def test_the_golden_file_covers_the_whole_matrix():
    require_workloads()
    missing = [key(c) for c in cases() if key(c) not in GOLD]
    assert not missing, f"golden entries missing: {missing[:5]} ... ({len(missing)})"
    checked = {k for ks in _QUICK.values() for k in ks} | set(_LONG) | set(_GRID)
    left = sorted(set(GOLD) - checked)
    assert all(not in_suite(GOLD[k]) for k in left), left
    assert len(left) <= 0.01 * len(GOLD), f"{len(left)} golden entries left out of the suite: {left}"


def test_golden_bundled_trace():
    """Every quick entry of the bundled KTH-SP2 (every rule x order, kill on and off): no shared
    traces needed."""
    assert len(_QUICK[BUNDLED]) >= 30
    bad = [d for d in (_compare(_SINGLE[k]) for k in _QUICK[BUNDLED]) if d]
    assert not bad, "schedules changed:\n" + "\n".join(bad)


@pytest.mark.slow
@pytest.mark.parametrize("trace", sorted(t for t in _QUICK if t != BUNDLED))
def test_golden_single_site(trace):
    bad = [d for d in (_compare(_SINGLE[k]) for k in _QUICK[trace]) if d]
    assert not bad, "schedules changed:\n" + "\n".join(bad)


@pytest.mark.slow
@pytest.mark.parametrize("entry", _LONG)
def test_golden_long_entry(entry):
    """An entry that took longer than SUITE_SECONDS when recorded (up to CI_SECONDS), on its own."""
    diff = _compare(_SINGLE[entry])
    assert not diff, f"schedule changed: {diff}"


@pytest.mark.parametrize("entry", [pytest.param(k, marks=() if k in _GRID_FAST else pytest.mark.slow) for k in _GRID])
def test_golden_grid(entry):
    require_workloads()
    setup, rest = entry.split("/")[1], entry.split("/", 2)[2]
    exchange, _, reading = rest.partition("@")
    diff = _compare({"kind": "grid", "setup": setup, "exchange": exchange, "reading": reading or "issue5"})
    assert not diff, f"grid schedule changed: {diff}"
