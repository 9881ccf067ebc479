"""Optimizer settings are checked before anything is written (issue 32): for every optimizer verb
(evolve greedy with the ES and CMA-ES, rules iterative and evolve, bound, grid pareto, federation
run and compare), a setting the optimizer cannot run with exits 2 with one ``error:`` line naming
its flag, and leaves no run folder behind (the corrected command then starts afresh); so does a
population too large for this machine's memory."""

from __future__ import annotations

import pytest

from conftest import one_line_error, run

KTH = ["KTH-SP2", "--months", "1", "--workers", "1"]
EVOLVE = ["evolve", "greedy", *KTH, "--generations", "1", "--mu", "2", "--lambda", "4"]
RULES = ["rules", "evolve", *KTH, "--generations", "1"]
BOUND = ["bound", *KTH, "--generations", "1", "--pop", "4"]
GRID = ["grid", "pareto", "--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1", "--workers", "1",
        "--generations", "1", "--pop", "4"]
FED = ["--months", "1", "--workers", "1", "--package-size", "20", "--jobs", "40", "--generations", "1", "--pop", "4"]
FEDERATION = ["federation", "run", "KTH-SP2", "--method", "ga-random", *FED]
FED_COMPARE = ["federation", "compare", "KTH-SP2", "--methods", "ga-random", "--workloads", "1", *FED]

IMPOSSIBLE = [
    # the ES and CMA-ES
    (EVOLVE, ["--seed", "-1"], "--seed must be a whole number >= 0"),
    (EVOLVE, ["--mu", "0"], "--mu must be a positive whole number"),
    (EVOLVE, ["--lambda", "0"], "--lambda must be a positive whole number"),
    (EVOLVE, ["--generations", "0"], "--generations must be a positive whole number"),
    (EVOLVE, ["--optimizer", "cmaes", "--mu", "1", "--lambda", "1"], "--lambda must be at least 2 with --optimizer cmaes"),
    (EVOLVE, ["--optimizer", "cmaes", "--mu", "5"], "--mu 5 exceeds --lambda 4"),
    # the symbiotic evolution (more in test_rules_cli.py) and the iterative method
    (RULES, ["--seed", "-1"], "--seed must be"),
    (RULES, ["--rules", "4", "--mu", "12", "--lambda", "8", "--participations", "2"], "--rho (12) must be at most --lambda (8)"),
    (RULES, ["--generations", "0"], "--generations must be"),
    (["rules", "iterative", *KTH[:-2], "--workers", "0"], [], "--workers must be"),
    # NSGA-III over job orders
    (BOUND, ["--pop", "3"], "--pop must be a whole number >= 4"),
    (BOUND, ["--seed", "-1"], "--seed must be"),
    (BOUND, ["--sigma", "nan"], "--sigma must be"),
    (BOUND, ["--sigma", "inf"], "--sigma must be"),
    (BOUND, ["--window", "0"], "--window must be"),
    (BOUND, ["--generations", "0"], "--generations must be"),
    # NSGA-II over grid partitions
    (GRID, ["--pop", "1"], "--pop must be a whole number >= 2"),
    (GRID, ["--generations", "0"], "--generations must be a positive whole number"),
    (GRID, ["--seed", "-1"], "--seed must be"),
    (GRID, ["--p-rand", "nan"], "--p-rand must lie in [0, 1]"),
    # the federation GA
    (FEDERATION, ["--pop", "3"], "--pop must be even"),
    (FEDERATION, ["--pop", "0"], "--pop must be a whole number >= 2"),
    (FEDERATION, ["--generations", "0"], "--generations must be"),
    (FEDERATION, ["--seed", "-1"], "--seed must be"),
    (FEDERATION, ["--comm-seed", "-1"], "--comm-seed must be"),
    (FEDERATION, ["--p-mutation", "2"], "--p-mutation must lie in [0, 1]"),
    (FEDERATION, ["--p-crossover", "-0.5"], "--p-crossover must lie in [0, 1]"),
    (FEDERATION, ["--mutation-reading", "x"], "--mutation-reading 'x'"),
    (FEDERATION, ["--checkpoint-every", "0"], "--checkpoint-every must be"),
    (FEDERATION, ["--ptbw", "1,inf"], "--ptbw '1,inf'"),
    (FEDERATION, ["--sigma", "0.5,0.1"], "--sigma '0.5,0.1'"),
    (FED_COMPARE, ["--seed", "-1"], "--seed must be"),
    # populations beyond any machine's memory (a MemoryError traceback after config.json was written)
    (EVOLVE, ["--lambda", "1000000000000"], "--lambda 1000000000000: the offspring of a generation would need"),
    (RULES, ["--rules", "1", "--mu", "2", "--lambda", "1000000000000", "--rho", "2"],
     "--lambda 1000000000000 with --participations 10: the rules and bases"),
    (BOUND, ["--pop", "1000000000000"], "--pop 1000000000000: a population of orders"),
    (GRID, ["--pop", "1000000000000"], "--pop 1000000000000: a population of partitions"),
    (FEDERATION, ["--pop", "1000000000000"], "--pop 1000000000000 with packages of 20 jobs"),
]


@pytest.mark.parametrize("base,setting,words", IMPOSSIBLE,
                         ids=[f"{' '.join(b[:2])} {' '.join(s)}".strip() for b, s, _ in IMPOSSIBLE])
def test_an_impossible_optimizer_setting_is_one_line_naming_its_flag_and_writes_nothing(capsys, tmp_path, base,
                                                                                      setting, words):
    out = tmp_path / "R"
    code, _o, err = run(capsys, *base, *setting, "--out", out)
    one_line_error(code, err, words)
    assert not out.exists()
