"""Compile only what a command needs (issue 9): the engine specialised for static queue orders never
types the greedy kernels, so `compare --policies fcfs,list,easy,conservative` and the grid do not
compile them.

How this is observed: in a new process (no kernel of this session typed yet), the event loop's
Python source is compiled again as a fresh, uncached dispatcher for the argument types a strategy
gives. Typing it asks every kernel it calls for that signature; a kernel that was pruned is never
asked, so its dispatcher stays without signatures. The greedy strategy is the positive control: the
same check sees the greedy kernels typed there.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# slow: each check compiles the event loop afresh in a new process (tens of CPU seconds)
pytestmark = pytest.mark.slow

SCRIPT = r"""
import json, sys
import numba
import numpy as np
from schedlab.cli.compiling import tiny_workload
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.sim import greedy, loop
from schedlab.sim.engine import prepare
from schedlab.strategy import Criterion, Strategy

w = tiny_workload()
strategy = Strategy.greedy(Criterion("f2", K=(1, 5, 0, 0, 2))) if sys.argv[1] == "greedy" else Strategy(sys.argv[1])
validate_schedule(simulate(w, Machine(w.machine_procs), strategy))  # the cached engine: schedules stay valid
kernels = {"greedy_fcfs_pass": greedy.greedy_fcfs_pass, "greedy_view": greedy.greedy_view}
before = {k: len(d.signatures) for k, d in kernels.items()}
J, S, G, dispatch, order, _perm = prepare(w, Machine(w.machine_procs), strategy)
args = (J, S, G, dispatch, order, np.zeros(len(w), dtype=np.int64), 0, np.inf, 0.0)
numba.njit(loop.site_loop.py_func).compile(tuple(numba.typeof(a) for a in args))
print(json.dumps({"G": None if G is None else type(G).__name__, "before": before,
                  "after": {k: len(d.signatures) for k, d in kernels.items()}}))
"""


def typed_greedy_kernels(policy: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, policy], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_static_order_engine_does_not_type_the_greedy_kernels():
    # the rule is a run-time code: EASY's signature is that of every static-order strategy
    got = typed_greedy_kernels("easy")
    assert got["G"] is None  # prepare hands the loop no greedy parameters
    assert got["after"] == {"greedy_fcfs_pass": 0, "greedy_view": 0}, got


def test_the_greedy_engine_types_them_the_check_can_fail():
    got = typed_greedy_kernels("greedy")
    assert got["G"] == "GreedyParams"
    assert got["after"]["greedy_fcfs_pass"] >= 1 and got["after"]["greedy_view"] >= 1, got
