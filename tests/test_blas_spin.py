"""Importing schedlab before numpy keeps OpenBLAS's threads from spinning after each call
(schedlab/__init__.py sets OPENBLAS_THREAD_TIMEOUT): the CPU time a process burns while it
sleeps between dot products stays small. Without the setting, numpy's OpenBLAS spins ~27 ms of a
core after every call on this 2-core machine (measured 1.3 s of CPU for 50 calls 20 ms apart)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import resource, time
import schedlab  # first: the setting must precede numpy's import
import numpy as np
w = np.random.default_rng(0).random(200_000)
c0 = resource.getrusage(resource.RUSAGE_SELF)
for _ in range(40):
    np.dot(w, w)
    time.sleep(0.02)
c1 = resource.getrusage(resource.RUSAGE_SELF)
print(c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime)
"""


def _cpu_seconds(env):
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS runs one thread (nothing spins) on one core")
def test_blas_threads_sleep_after_a_call():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "OMP_"))}
    assert _cpu_seconds(env) < 0.4  # 40 sleeps of 20 ms: spinning would burn ~1 s
