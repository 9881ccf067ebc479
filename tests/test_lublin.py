"""The Lublin-Feitelson generator: published constants, reference statistics, and agreement in
distribution with a plain-Python port of m_lublin99.c (tests/support/lublin_naive.py)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.workload import read_swf
from schedlab.workload.lublin import PARAMETER_SETS, daily_weights, lublin, table5_row

from support import lublin_naive


def ks_statistic(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov statistic sup |F_a - F_b|."""
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    x = np.concatenate([a, b])
    return float(np.abs(np.searchsorted(a, x, "right") / a.size - np.searchsorted(b, x, "right") / b.size).max())


def ks_critical(n: int, m: int, alpha: float = 0.001) -> float:
    return float(np.sqrt(-0.5 * np.log(alpha / 2)) * np.sqrt((n + m) / (n * m)))


def test_daily_weights_match_published_lists():
    # method-notes topic 3, Step A (first and last buckets of the typeless and batch lists)
    typeless = daily_weights(PARAMETER_SETS["typeless"])
    assert np.allclose(typeless[:4], [0.5078, 0.4561, 0.4085, 0.3649], atol=1e-4)
    assert np.allclose(typeless[-3:], [0.6880, 0.6238, 0.5637], atol=1e-4)
    assert np.allclose(daily_weights(PARAMETER_SETS["batch"])[10:12], [0.3472, 0.4484], atol=1e-4)
    assert typeless.mean() == pytest.approx(1.0)
    assert np.allclose(lublin_naive.weights(8.1737, 3.9631), typeless, atol=1e-6)


def test_reference_statistics_typeless():
    # method-notes topic 3 "Reference statistics" (5 seeds x 50,000 jobs): +-5 %
    w = lublin(50_000, 128, seed=5)
    assert w.runtime.mean() == pytest.approx(4353, rel=0.05)
    assert w.procs.mean() == pytest.approx(12.1, rel=0.05)
    assert w.submit.max() / len(w) == pytest.approx(899, rel=0.08)
    assert np.median(w.runtime) == pytest.approx(109, rel=0.05)
    assert (w.procs == 1).mean() == pytest.approx(0.244, abs=0.01)
    assert w.procs.max() == 128 and w.runtime.max() <= np.exp(12)
    assert np.all(np.diff(w.submit) >= 0) and w.submit[0] > 0 and np.all(w.submit == np.floor(w.submit))


def test_same_seed_same_workload_other_seed_differs():
    a, b, c = lublin(2000, seed=71), lublin(2000, seed=71), lublin(2000, seed=31)
    assert np.array_equal(a.submit, b.submit) and np.array_equal(a.runtime, b.runtime)
    assert not np.array_equal(a.runtime, c.runtime)


def test_agrees_in_distribution_with_plain_python_port():
    n = 6000
    submit, runtime, nodes = lublin_naive.generate(n, seed=11)
    fast = lublin(n, 128, seed=11)
    crit = ks_critical(n, n)
    assert ks_statistic(fast.runtime, runtime) < crit
    assert ks_statistic(fast.procs, nodes) < crit
    assert ks_statistic(np.diff(fast.submit), np.diff(submit)) < crit
    # arrival time of day (daily cycle): arrivals are serially correlated (bursts), so the i.i.d.
    # critical value does not apply; a tolerant bound, and the uniform day is told apart
    tod_fast, tod_ref = fast.submit % 86400, np.asarray(submit) % 86400
    assert ks_statistic(tod_fast, tod_ref) < 0.1
    assert ks_statistic(tod_ref, np.linspace(0, 86400, n)) > 0.1
    # and the test has power: a different model (batch set) is told apart
    batch = lublin(n, 128, seed=11, params="batch")
    assert ks_statistic(batch.runtime, runtime) > crit


def test_table5_mix_of_the_thesis():
    # thesis Table 5: 63-65 % short, 19-20 % medium, 16-17 % long jobs; work 0.5 / 25-27 / 72.5-74.5 %
    row = table5_row(lublin(10_000, 128, seed=71))
    assert row["N_short"] == pytest.approx(64, abs=3) and row["N_med"] == pytest.approx(19.5, abs=3)
    assert row["W_short"] == pytest.approx(0.5, abs=0.5) and row["W_long"] == pytest.approx(73, abs=4)
    assert row["S_short"] == pytest.approx(9, abs=1.5)


def test_cli_writes_swf_with_model_and_seed(tmp_path):
    from schedlab.cli.main import main

    out = tmp_path / "l.swf"
    assert main(["workload", "generate", "lublin", "--jobs", "500", "--procs", "128", "--seed", "71", "-o", str(out)]) == 0
    w = read_swf(out)
    assert len(w) == 500 and w.machine_procs == 128
    assert any("model=lublin99" in h and "seed=71" in h for h in w.header)
    assert np.array_equal(w.runtime, lublin(500, 128, seed=71).runtime)
    assert main(["workload", "generate", "lublin", "--jobs", "10", "--params", "nope", "-o", str(out)]) == 2


@pytest.mark.parametrize("procs", [1, 2, 9, 10])
def test_cli_small_machines_generate_jobs_that_fit(tmp_path, capsys, procs):
    # issue 32 severe 2: --procs below 10 ended in "ValueError: high - low < 0" (UMed = UHi - 2.5 < ULow)
    from schedlab.cli.main import main

    out = tmp_path / "small.swf"
    for params in PARAMETER_SETS:
        code = main(["workload", "generate", "lublin", "--jobs", "400", "--procs", str(procs), "--params", params,
                     "--seed", "3", "-o", str(out)])
        _, err = capsys.readouterr()
        assert code == 0, err
        w = read_swf(out)
        assert len(w) == 400 and w.machine_procs == procs
        assert w.procs.min() >= 1 and w.procs.max() <= procs
        if procs == 1:
            assert (w.procs == 1).all()
        else:  # parallel jobs are still generated, and serial ones at about SerialProb
            assert (w.procs > 1).any() and (w.procs == 1).mean() == pytest.approx(PARAMETER_SETS[params].serial_prob, abs=0.08)
    if procs == 9:  # not all parallel jobs collapse to one width
        assert len(np.unique(lublin(2000, 9, seed=1).procs)) >= 4


def test_small_machine_parameters_stay_ordered():
    for p in PARAMETER_SETS.values():
        for procs in (1, 2, 3, 5, 9, 10, 128, 1000):
            q = p.for_machine(procs)
            assert q.ulow <= q.umed <= q.uhi
    assert PARAMETER_SETS["typeless"].for_machine(10).umed == pytest.approx(np.log2(10) - 2.5)
