"""The registries (schedlab.strategy.registry) are the one place rules, orders and optimizers are
declared: Strategy, the engine's rule table, the CLI help, the validator and the naive reference
all read them. Adding a dispatch rule is one registry row plus its kernel: shown here on a copy of
the package with a toy rule added (:data:`TOY_ROW` + :data:`TOY_KERNEL`, nothing else)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.naive import NAIVE_ORDERS, NAIVE_RULES
from schedlab.cli.policies import ORDER_HELP, POLICY_HELP
from schedlab.errors import StrategyError
from schedlab.strategy.registry import make_optimizer
from schedlab.optimize.evolve import OPTIMIZER_SETTINGS, EvolveConfig
from schedlab.errors import RunError
from schedlab.sim import dispatch
from schedlab.sim.state import DISPATCH_CODES, ORDER_CODES
from schedlab.strategy import DISPATCH_RULES, STATIC_ORDERS, Strategy, registry

ROOT = Path(__file__).resolve().parents[1]

#: the whole change a new dispatch rule needs: this row appended to registry.DISPATCH ...
TOY_ROW = '''    DispatchRule("widest", "start the widest waiting job that fits, again and again (a toy rule)",
                 "schedlab.sim.toy:widest_pass", replay="any", naive="widest"),
'''
#: ... and this kernel module (schedlab/sim/toy.py)
TOY_KERNEL = '''"""A toy dispatch rule: start the widest waiting job that fits (ties: queue order), repeatedly."""

from .._config import njit
from .running import start_job
from .state import FREE, MARK, WIDTH


@njit
def widest_pass(J, S, view, now):
    started = 0
    while True:
        best = -1
        for i in range(view.shape[0]):
            j = view[i]
            if S.i[MARK, j] == 0 and J.i[WIDTH, j] <= S.ctr[FREE] and (best < 0 or J.i[WIDTH, j] > J.i[WIDTH, best]):
                best = j
        if best < 0:
            return started
        start_job(J.f, J.i, S.ctr, S.i, S.f, best, now)
        started += 1
'''

#: run in the patched copy: the toy rule against a plain-Python reference, through the validator
TOY_CHECK = textwrap.dedent('''
    import numpy as np
    from support.naive import NAIVE_RULES, naive_simulate, random_small_workload
    from schedlab.cli.policies import POLICY_HELP
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.strategy import Strategy

    def widest(queue, running, t, m, free, width, est, start):
        started = []
        while True:
            fits = [j for j in queue if j not in started and width[j] <= free]
            if not fits:
                return started
            j = max(fits, key=lambda j: (width[j], -queue.index(j)))
            started.append(j)
            free -= width[j]

    NAIVE_RULES["widest"] = widest
    assert "widest" in POLICY_HELP
    rng = np.random.default_rng(5)
    for case in range(40):
        w, m = random_small_workload(rng)
        for order in ("submit", "estimate"):
            st = Strategy("widest", order)
            s = simulate(w, Machine(m), st)
            validate_schedule(s)
            np.testing.assert_array_equal(s.start, naive_simulate(w, m, st)[0])
    print("toy rule ok")
''')


def test_every_consumer_reads_the_registry():
    rules = tuple(r.name for r in registry.DISPATCH)
    assert DISPATCH_RULES == rules == tuple(POLICY_HELP)[: len(rules)]  # then greedy and the scojo engines
    assert tuple(DISPATCH_CODES) == rules and list(DISPATCH_CODES.values()) == list(range(len(rules)))
    assert len(dispatch.RULE_KERNELS) == len(rules)
    assert all(dispatch.RULE_KERNELS[c] is registry.resolve(r.kernel) for c, r in enumerate(registry.DISPATCH))
    assert set(NAIVE_RULES) >= {r.naive for r in registry.DISPATCH}
    static = tuple(o.name for o in registry.ORDERS if o.key is not None)
    assert STATIC_ORDERS == static == tuple(ORDER_HELP) == tuple(ORDER_CODES) and set(NAIVE_ORDERS) == set(static)
    assert registry.ORDERS[registry.GREEDY_CODE].key is None
    assert set(OPTIMIZER_SETTINGS) == set(registry.optimizer_names()) == {"es", "cmaes"}


def test_names_outside_the_registry_are_refused():
    with pytest.raises(StrategyError, match="unknown policy 'widest'; choose one of fcfs, list, easy, conservative"):
        Strategy("widest")
    assert Strategy("easy", "sjf").order == "estimate"  # aliases come from the order rows
    with pytest.raises(RunError, match="choose es or cmaes"):
        EvolveConfig(traces=("KTH-SP2",), optimizer="de")
    with pytest.raises(ValueError, match="unknown optimizer 'de'"):
        make_optimizer("de", [0.0], [1.0], mu=1, lam=2, seed=0)
    assert type(make_optimizer("es", [0.0], [1.0], mu=1, lam=2, seed=0)).__name__ == "SelfAdaptiveES"


@pytest.mark.slow  # compiles a new kernel in a fresh process with an empty cache
def test_a_toy_rule_is_one_row_plus_its_kernel(tmp_path):
    """Copy the package, add TOY_ROW to the registry and TOY_KERNEL as sim/toy.py, nothing else:
    Strategy, the engine, the CLI help and the validator take the rule; it matches a naive reference."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "schedlab", src / "schedlab", ignore=shutil.ignore_patterns("__pycache__"))
    reg = src / "schedlab" / "strategy" / "registry.py"
    text = reg.read_text()
    anchor = '"schedlab.sim.dispatch:conservative_pass", replay="conservative", naive="conservative"),\n'
    assert text.count(anchor) == 1
    reg.write_text(text.replace(anchor, anchor + TOY_ROW))
    (src / "schedlab" / "sim" / "toy.py").write_text(TOY_KERNEL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(ROOT / "tests")]),
           "SCHEDLAB_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", TOY_CHECK], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "toy rule ok" in proc.stdout


@pytest.mark.slow  # fresh processes with an empty cache compile the kernels
def test_the_kernel_cache_is_keyed_on_compiled_sources_only(tmp_path):
    """Editing CLI help (or any driver) keeps the numba cache folder; editing a kernel or the
    state layout, or the registry's rule table, changes it (schedlab._config)."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "schedlab", src / "schedlab", ignore=shutil.ignore_patterns("__pycache__"))
    probe = "import schedlab._config as c; print(c._source_digest())"
    env = {**os.environ, "PYTHONPATH": str(src)}

    def digest():
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    first = digest()
    cli = src / "schedlab" / "cli" / "simulate.py"
    cli.write_text(cli.read_text().replace("def _policy_listing", "# a help edit\ndef _policy_listing"))
    reg = src / "schedlab" / "strategy" / "registry.py"
    reg.write_text(reg.read_text().replace("start the queue head while it fits", "start the head while it fits"))
    assert digest() == first
    state = src / "schedlab" / "sim" / "state.py"
    state.write_text(state.read_text() + "\n# a layout edit\n")
    assert digest() != first
