"""Golden test of the systems beside the rigid engine (issue 36 item 6): SCOJO-PECT, its group
optimiser and bottom line, the federation methods and a short seeded run of every optimizer must
give exactly the results recorded in tests/golden/systems.json before the issue-36 refactor
(tests/support/golden_systems.py, which also regenerates the file: only in a commit that says why).

Every entry is re-run here (the whole file takes about half a minute), each schedule through the
validator; the fast tier (``pytest -m "not slow"``) runs the cheapest entry of each system
(:func:`support.golden_systems.fast_keys`), the others are marked ``slow``."""

from __future__ import annotations

import json

import pytest

from conftest import require_workloads
from support.golden_systems import GOLDEN, cases, compare, fast_keys, key, needs_shared_traces, run, run_scojo

GOLD = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


def test_the_golden_file_holds_every_case_as_recorded():
    """An entry per case, recorded with the case's parameters (a changed job cap or budget needs a new
    recording), and no entry left over from a case that is gone."""
    want = {key(c): c for c in cases()}
    assert sorted(want) == sorted(GOLD), "re-record tests/golden/systems.json (python tests/support/golden_systems.py)"
    for k, case in want.items():
        recorded = {f: GOLD[k][f] for f in case if f != "kind"}
        assert recorded == json.loads(json.dumps({f: v for f, v in case.items() if f != "kind"})), k


_FAST = fast_keys(GOLD)


@pytest.mark.parametrize("case", [pytest.param(c, id=key(c), marks=() if key(c) in _FAST else pytest.mark.slow)
                                  for c in cases()])
def test_golden_system(case):
    if needs_shared_traces(case):
        require_workloads()
    diff = compare(case, GOLD[key(case)], run(case, validate=True))
    assert not diff, f"{key(case)} changed: {diff}"


def test_a_changed_parameter_fails_the_check():
    """The check can fail: the group optimiser with smaller groups is not the recorded schedule."""
    case = next(c for c in cases() if key(c) == "scojo/lublin-seed31/scojo-opt")
    diff = compare(case, GOLD[key(case)], run_scojo(case, validate=True, group_max=(20, 10)))
    assert {"hash", "ts_hash", "plan_hash"} <= set(diff)
