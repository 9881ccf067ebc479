"""What "replays exactly" promises across BLAS kernels (issue 43 item 0; README "Replays").

OpenBLAS picks its kernels per CPU (``OPENBLAS_CORETYPE`` overrides the choice), and kernels round
the last bit of a product differently. CMA-ES's own arithmetic goes through BLAS, so its golden
entry (recorded under Haswell) is compared exactly under that kernel and within
``golden_systems.BLAS_RTOL`` under any other; every other optimizer must give its recorded result
bit for bit under every kernel. One machine plays several kernels here."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_workloads
from support.golden_systems import BLAS_RTOL, cases, compare, key

HERE = Path(__file__).resolve().parent
#: x86-64 kernels every CPU of the last decade runs (AVX2 and AVX); the machine's default is the third
KERNELS = ("Haswell", "SandyBridge")


def _env(coretype: str) -> dict[str, str]:
    return {**os.environ, "OPENBLAS_CORETYPE": coretype}


# slow: a fresh process per kernel re-runs the optimizers' (or CEA-Curie's) golden entries (about a
# minute of CPU each); the fast tier checks the entries under this machine's kernel
@pytest.mark.slow
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OPENBLAS_CORETYPE names x86-64 kernels")
@pytest.mark.parametrize("coretype", KERNELS)
def test_every_optimizer_replays_its_golden_entry_under_another_blas_kernel(coretype):
    probe = subprocess.run([sys.executable, "-c", "from schedlab._blas import blas_kernel; print(blas_kernel())"],
                           env=_env(coretype), capture_output=True, text=True, check=True)
    if coretype.lower() not in probe.stdout.lower():
        pytest.skip(f"this numpy's BLAS did not take OPENBLAS_CORETYPE={coretype} ({probe.stdout.strip()})")
    out = subprocess.run([sys.executable, str(HERE / "support" / "golden_systems.py"), "--check", "--only", "evolve-", "rules-evolve"],
                         env=_env(coretype), capture_output=True, text=True, cwd=HERE)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("[")]
    assert out.returncode == 0 and len(lines) >= 3, f"under {probe.stdout.strip()}:\n{out.stdout}\n{out.stderr[-2000:]}"
    assert all(": same (" in ln for ln in lines), "\n".join(lines)


# slow: a fresh process per kernel re-runs the optimizers' (or CEA-Curie's) golden entries (about a
# minute of CPU each); the fast tier checks the entries under this machine's kernel
@pytest.mark.slow
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OPENBLAS_CORETYPE names x86-64 kernels")
@pytest.mark.parametrize("coretype", KERNELS)
def test_metrics_are_the_same_bits_under_another_blas_kernel(coretype):
    """CEA-Curie's AWRT sums pass 2^53: np.dot gave the Haswell and SkylakeX kernels different last bits
    (its engine golden entries failed on AVX-512 machines); the metrics' own sum gives the recorded ones."""
    require_workloads()
    only = "CEA-Curie-2011-2.1-cln.swf.gz/easy/"
    out = subprocess.run([sys.executable, str(HERE / "support" / "golden_cases.py"), "--check", "--no-validate", "--only", only],
                         env=_env(coretype), capture_output=True, text=True, cwd=HERE)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("[")]
    assert out.returncode == 0 and len(lines) >= 5, f"OPENBLAS_CORETYPE={coretype}:\n{out.stdout}\n{out.stderr[-2000:]}"


def _cmaes_case() -> dict:
    return next(c for c in cases() if key(c) == "optimizer/evolve-cmaes")


def _entry(blas: str, value: float) -> dict:
    return {"best": value, "evaluations": 12, "history_hash": "a", "best_hash": "b", "blas": blas,
            "history": [[1.0, 6.0, value, 0.5]]}


def test_under_the_recording_kernel_every_bit_counts():
    case = _cmaes_case()
    want = _entry("openblas 0.3.31 Haswell", 1282860.5462470609)
    last_bit = math.nextafter(want["best"], math.inf)
    assert compare(case, want, _entry("openblas 0.3.31 Haswell", want["best"])) == {}
    assert set(compare(case, want, _entry("openblas 0.3.31 Haswell", last_bit))) == {"best", "history"}
    assert set(compare(case, want, {**want, "history_hash": "c"})) == {"history_hash"}


def test_under_another_kernel_the_last_bits_may_move_and_nothing_more():
    case = _cmaes_case()
    want = _entry("openblas 0.3.31 Haswell", 1282860.5462470609)
    other = "openblas 0.3.31 SkylakeX"
    moved = _entry(other, math.nextafter(want["best"], math.inf))
    assert compare(case, want, {**moved, "history_hash": "c", "best_hash": "d"}) == {}  # hashes: not compared
    far = _entry(other, want["best"] * (1 + 10 * BLAS_RTOL))
    assert set(compare(case, want, far)) == {"best", "history"}
    assert set(compare(case, want, {**moved, "evaluations": 13})) == {"evaluations"}


def test_only_blas_dependent_optimizers_get_the_tolerance():
    es = next(c for c in cases() if key(c) == "optimizer/evolve-es")
    want = {"best": 1.0, "evaluations": 12, "history_hash": "a", "best_hash": "b"}
    assert set(compare(es, want, {**want, "best": math.nextafter(1.0, 2.0)})) == {"best"}


class _Run:
    path = Path("RUN")

    def __init__(self, blas: str | None) -> None:
        self.stored_versions = {} if blas is None else {"blas": blas}


def test_a_resume_under_another_kernel_says_so_in_one_line():
    from schedlab._blas import blas_kernel
    from schedlab.optimize.cmaes import CMAES
    from schedlab.optimize.es import SelfAdaptiveES
    from schedlab.optimize.run import blas_change_note

    cma = CMAES([0.0, 0.0], [1.0, 1.0], lam=4, seed=1)
    es = SelfAdaptiveES([0.0, 0.0], [1.0, 1.0], mu=2, lam=4, seed=1)
    note = blas_change_note(_Run("openblas 0.0 Prescott"), cma)
    assert note is not None and "\n" not in note and "Prescott" in note and blas_kernel() in note
    assert blas_change_note(_Run(blas_kernel()), cma) is None  # same kernel: replays bit for bit
    assert blas_change_note(_Run(None), cma) is None  # a run recorded before kernels were: nothing to say
    assert blas_change_note(_Run("openblas 0.0 Prescott"), es) is None  # the ES uses no BLAS
