"""The greedy strategy space: encoding, objective evaluation, the paper's and the free procedure."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from schedlab.errors import StrategyError
from schedlab.execute import ProcessExecutor, SerialExecutor
from schedlab.metrics import Objective, compute_metrics
from schedlab.optimize.evolve import EvolveConfig, compare_with_easy, evolve_greedy
from schedlab.optimize.greedy import (
    GreedyEncoding,
    ParamsEvaluator,
    TrainingSet,
    assemblies,
    objective_value,
)
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Criterion, Strategy
from schedlab.workload import load_trace, write_swf

from conftest import trace_path

OBJ = "10*AWRT1 + 4*AWRT2"


@pytest.fixture(scope="module")
def kth_month():
    return load_trace("KTH-SP2", months=1)


@pytest.fixture(scope="module")
def ctc_month():
    return load_trace(str(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), months=1)


def test_gene_layout_follows_the_paper():
    assert len(GreedyEncoding.uniform("f1")) == 36 and len(GreedyEncoding.uniform("f4")) == 36
    f2 = GreedyEncoding.uniform("f2")
    assert len(f2) == 21 and not [n for n in f2.names if ".w" in n]  # f2 has no w
    f3 = GreedyEncoding.uniform("f3")
    assert len(f3) == 33 and not [n for n in f3.names if n.endswith(".b")]  # f3 has no b
    free = GreedyEncoding()
    assert len(free) == 39 and free.names[:3] == ["weekend.kind", "weekend.a", "weekend.b"]
    lo, hi = free.lower, free.upper
    for name, a, b in zip(free.names, lo, hi):
        gene = name.split(".")[1]
        expected = {"kind": (0, 4), "a": (0, 1), "b": (0, 1)}.get(gene, (0, 1) if gene[0] == "w" else (0, 5))
        assert (a, b) == expected, name


def test_decode_encode_round_trip_and_categorical_gene():
    rng = np.random.default_rng(0)
    for enc in (GreedyEncoding(), GreedyEncoding.uniform("f2"), GreedyEncoding(("f1", "f3", "f4")),
                GreedyEncoding(("f1", "f2", None), gene_scale="log")):
        for _ in range(20):
            x = enc.lower + rng.random(len(enc)) * (enc.upper - enc.lower)
            strategy = enc.decode(x)
            assert Strategy.from_json(strategy.to_json()) == strategy
            again = enc.decode(enc.encode(strategy))
            if enc.gene_scale == "linear":
                assert again == strategy
            else:  # log/exp round trip of a and b: equal up to round-off
                for c1, c2 in zip(again.order.criteria, strategy.order.criteria):
                    assert (c1.kind, c1.w, c1.K) == (c2.kind, c2.w, c2.K)
                    assert (c1.a, c1.b) == pytest.approx((c2.a, c2.b), rel=1e-9, abs=1e-15)
            if None not in enc.kinds:  # (free classes carry inert genes that cannot come back)
                assert np.allclose(enc.encode(strategy), x)
    free = GreedyEncoding()
    x = free.lower.copy()
    for gene, kind in ((0.0, "f1"), (1.0, "f2"), (2.5, "f3"), (3.999, "f4"), (4.0, "f4")):
        x[[0, 13, 26]] = gene
        assert [c.kind for c in free.decode(x).order.criteria] == [kind] * 3
    x[0], x[13], x[26] = 1.2, 0.3, 2.7
    s = free.decode(x)
    assert [c.kind for c in s.order.criteria] == ["f2", "f1", "f3"] and s.dispatch == "fcfs"
    with pytest.raises(StrategyError):
        free.decode(x[:-1])
    with pytest.raises(StrategyError):
        GreedyEncoding.uniform("f2").encode(Strategy.greedy(Criterion("f1")))


def test_objective_value_is_the_sum_over_workloads_of_the_simulated_objective(kth_month, ctc_month):
    training = TrainingSet((kth_month, ctc_month), (Machine(kth_month.machine_procs), Machine(ctc_month.machine_procs)), OBJ)
    enc = GreedyEncoding.uniform("f2")
    x = enc.encode(Strategy.greedy(*(Criterion("f2", a=0.5, b=0.0, K=(5, 4, 0, 0, 0)),) * 3))
    by_hand = 0.0
    for w in (kth_month, ctc_month):
        schedule = simulate(w, Machine(w.machine_procs), enc.decode(x))
        validate_schedule(schedule)
        by_hand += Objective(OBJ)(compute_metrics(schedule))
    assert ParamsEvaluator(enc)(training, x) == pytest.approx(by_hand, rel=1e-12)
    single = TrainingSet((kth_month,), (Machine(kth_month.machine_procs),), OBJ)
    assert objective_value(single, enc.decode(x)) < by_hand


def test_evaluations_identical_serial_and_processes(kth_month):
    training = TrainingSet((kth_month,), (Machine(kth_month.machine_procs),), OBJ)
    enc = GreedyEncoding()
    xs = list(enc.lower + np.random.default_rng(1).random((6, len(enc))) * (enc.upper - enc.lower))
    with SerialExecutor(training) as ex:
        serial = ex.map(ParamsEvaluator(enc), xs)
    with ProcessExecutor(2, training) as ex:
        procs = ex.map(ParamsEvaluator(enc), xs)
    assert serial == procs and len(set(serial)) > 1  # different parameters, different schedules


def test_assemblies_cover_all_64_combinations():
    systems = {
        k: Strategy.greedy(*(Criterion(k, a=0.1 * i, K=(i, 0, 0, 0, 0)) for i in range(3))) for k in ("f1", "f2", "f3", "f4")
    }
    combos = assemblies(systems)
    assert len(combos) == 64 and len({c for c, _ in combos}) == 64
    for (ka, kb, kc), strategy in combos:
        crit = strategy.order.per_class()
        assert (crit[0], crit[1], crit[2]) == (
            systems[ka].order.per_class()[0], systems[kb].order.per_class()[1], systems[kc].order.per_class()[2])
    assert dict(combos)[("f3", "f3", "f3")] == systems["f3"]


def test_paper_procedure_small_run(tmp_path, kth_month):
    path = tmp_path / "kth1.swf"
    write_swf(kth_month, path)
    config = EvolveConfig(traces=(str(path),), objective=OBJ, generations=2, mu=2, lam=4, seed=3, procedure="paper")
    result = evolve_greedy(config, tmp_path / "run", workers=1)
    run = tmp_path / "run"
    for k in ("f1", "f2", "f3", "f4"):
        cfg = json.loads((run / k / "config.json").read_text())
        assert cfg["system"] == k and cfg["procedure"] == "paper"
        assert (run / k / "checkpoint").exists()
    rows = list(csv.DictReader((run / "assemblies.csv").open()))
    assert len(rows) == 64
    values = [float(r["objective"]) for r in rows]
    assert result.best_f == min(values)
    assert result.best_f <= min(r.best_f for r in result.runs.values())  # uniform systems are among the 64
    assert result.evaluations == 4 * 2 * 4 + 64
    best = Strategy.from_json((run / "best.json").read_text())
    assert best == result.best
    w = load_trace(str(path))
    schedule = simulate(w, Machine(w.machine_procs), best)
    validate_schedule(schedule)
    assert Objective(OBJ)(compute_metrics(schedule)) == pytest.approx(result.best_f, rel=1e-12)
    assert "assemblies" in json.loads((run / "config.json").read_text())["procedure_reading"]


def test_single_criterion_procedure_searches_that_criterion_only(tmp_path, kth_month):
    path = tmp_path / "kth1.swf"
    write_swf(kth_month, path)
    config = EvolveConfig(traces=(str(path),), objective=OBJ, generations=2, mu=2, lam=4, seed=3, procedure="f2")
    result = evolve_greedy(config, tmp_path / "run", workers=1)
    assert set(result.runs) == {"f2"} and result.evaluations == 2 * 4
    assert (tmp_path / "run" / "checkpoint").exists()  # one run, in the run folder itself
    best = Strategy.from_json((tmp_path / "run" / "best.json").read_text())
    assert [c.kind for c in best.order.per_class()] == ["f2", "f2", "f2"]
    schedule = simulate(kth_month, Machine(kth_month.machine_procs), best)
    validate_schedule(schedule)
    assert Objective(OBJ)(compute_metrics(schedule)) == pytest.approx(result.best_f, rel=1e-12)


def test_compare_with_easy_reports_percent_improvements(kth_month):
    m = Machine(kth_month.machine_procs)
    same = compare_with_easy(Strategy("easy"), [kth_month], [m], OBJ)[0]
    assert same["objective_improvement_pct"] == 0.0 and same["UTIL_diff_points"] == 0.0
    greedy = Strategy.greedy(Criterion("f2", a=1e-4, K=(5, 4, 0, 0, 0)))
    row = compare_with_easy(greedy, [kth_month], [m], OBJ)[0]
    sched = simulate(kth_month, m, greedy)
    validate_schedule(sched)
    metrics = compute_metrics(sched)
    assert row["AWRT1"] == metrics["AWRT1"]
    assert row["AWRT1_improvement_pct"] == pytest.approx(100 * (row["AWRT1_easy"] - metrics["AWRT1"]) / row["AWRT1_easy"])
    assert row["objective_improvement_pct"] == pytest.approx(
        100 * (row["objective_easy"] - Objective(OBJ)(metrics)) / row["objective_easy"])


def test_log_gene_scale_keeps_the_paper_bounds_and_spreads_decades():
    lin, log = GreedyEncoding.uniform("f4"), GreedyEncoding.uniform("f4", gene_scale="log")
    assert np.array_equal(lin.lower, log.lower) and np.array_equal(lin.upper, log.upper)
    genes = np.linspace(0, 1, 11)
    a = [log._value("a", g) for g in genes]
    b = [log._value("b", g) for g in genes]
    assert a[0] == 0.0 and b[0] == 0.0 and a[-1] == pytest.approx(1.0) and b[-1] == pytest.approx(1.0)
    assert all(x < y for x, y in zip(a, a[1:])) and all(x < y for x, y in zip(b, b[1:]))
    assert 1e-5 < a[5] < 1e-3 and 1e-6 < b[5] < 1e-4  # mid-gene = mid-decade, not 0.5
    assert log._value("K1", 2.5) == 2.5 and lin._value("a", 0.5) == 0.5
    x = log.lower + 0.5 * (log.upper - log.lower)
    crit = log.decode(x).order.criteria[0]
    assert crit.a == pytest.approx(a[5]) and crit.K == (2.5,) * 5 and crit.w == (0.5,) * 5
    with pytest.raises(StrategyError):
        GreedyEncoding(gene_scale="cubic")
