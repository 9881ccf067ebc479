"""Rule bases as strategies and their training runs (genetic-fuzzy-rule-based-scheduling Section 4):
bad rule-base input is one line and exit 2 with nothing written; a rule base file replays with
simulate/compare/evolve compare; the iterative and symbiotic runs resume exactly; the symbiotic
operators follow Eqs. 11-16 and Algorithm 3."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import one_line_error, run
from schedlab.errors import RunError, StrategyError
from schedlab.metrics import compute_metrics
from schedlab.optimize import gfs
from schedlab.optimize.evolve import EvolveConfig
from schedlab.sim import validate_schedule
from schedlab.sim.rulebase import simulate_rulebase
from schedlab.strategy import rules as R
from schedlab.workload import load_trace
from schedlab.workload.spec import TraceSpec


def _fuzzy(n=3, seed=0) -> R.FuzzyRuleBase:
    rng = np.random.default_rng(seed)
    return R.FuzzyRuleBase(rng.uniform(0, 100, (n, 7)), rng.uniform(5, 40, (n, 7)), rng.choice(R.LEVELS, (n, 13)))


def _as_table(d, partitions, classes):
    for key in ("rules", "strategies"):
        d.pop(key)
    d.update(type="table", partitions=partitions, classes=classes)


def _bad(doc_edit):
    d = _fuzzy().to_dict()
    doc_edit(d)
    return d


BAD = [
    ("wrong feature count", lambda d: d["rules"][1]["centre"].pop(), ["rule 2", "centre", "6 values, expected 7"]),
    ("unknown strategy", lambda d: d["strategies"].__setitem__(4, "easy/fastest"), ["unknown strategy", "easy/fastest"]),
    ("NaN width", lambda d: d["rules"][0]["width"].__setitem__(3, math.nan), ["rule 1", "width", "not a finite"]),
    ("empty base", lambda d: d.__setitem__("rules", []), ["at least one rule"]),
    ("table with wrong feature count", lambda d: _as_table(d, [[2.0]] * 6, ["easy/submit"] * 2), ["7 features", "got 6"]),
    ("table with unknown strategy", lambda d: _as_table(d, [[], [50.0], [], [], [], [], []], ["easy/submit", "list/submit"]),
     ["unknown strategy", "list/submit"]),
]


@pytest.mark.parametrize("what,edit,words", BAD, ids=[b[0] for b in BAD])
def test_bad_rule_bases_are_one_line_exit_2_and_nothing_is_written(capsys, tmp_path, monkeypatch, what, edit, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text(json.dumps(_bad(edit)))
    before = sorted(p.name for p in tmp_path.iterdir())
    for argv in (["simulate", "KTH-SP2", "--months", "1", "--strategy", "bad.json", "--schedule-out", "s.csv"],
                 ["rules", "show", "bad.json", "KTH-SP2", "--months", "1", "--plot", "p.png"],
                 ["evolve", "compare", "bad.json", "KTH-SP2", "--months", "1"],
                 ["compare", "KTH-SP2", "--months", "1", "--policies", "easy,bad.json", "--csv", "c.csv"]):
        code, _out, err = run(capsys, *argv)
        one_line_error(code, err, "bad.json", *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_bad_partitions_and_settings_touch_no_run_folder(capsys, tmp_path):
    (tmp_path / "parts.json").write_text(json.dumps({"SD": [2], "Um": [85, 75]}))
    out = tmp_path / "run"
    code, _o, err = run(capsys, "rules", "iterative", "KTH-SP2", "--out", out, "--partitions", tmp_path / "parts.json")
    one_line_error(code, err, "parts.json", "missing PRCWQ1")
    (tmp_path / "parts.json").write_text(json.dumps({f: [] for f in R.FEATURES} | {"Um": [85, 75]}))
    code, _o, err = run(capsys, "rules", "iterative", "KTH-SP2", "--out", out, "--partitions", tmp_path / "parts.json")
    one_line_error(code, err, "parts.json", "Um", "increasing")
    code, _o, err = run(capsys, "rules", "evolve", "KTH-SP2", "--out", out, "--lambda", "70", "--rules", "50")
    one_line_error(code, err, "--lambda (70) must be a multiple of --rules (50)")
    (tmp_path / "easy.json").write_text('{"dispatch": "easy"}')
    code, _o, err = run(capsys, "rules", "evolve", "KTH-SP2", "--out", out, "--greedy", tmp_path / "easy.json")
    one_line_error(code, err, "easy.json", "greedy order")
    assert not out.exists()


# ---------------------------------------------------------------------------- symbiotic settings (issue 32)
SYMBIOTIC = ["rules", "evolve", "KTH-SP2", "--months", "1", "--generations", "2", "--workers", "1"]
SETTINGS_REFUSED = [
    ("rho above lambda", ["--rules", "4", "--mu", "12", "--lambda", "8", "--participations", "2"],
     ["--rho (12) must be at most --lambda (8)"]),
    ("rho above lambda 2", ["--rules", "5", "--mu", "20", "--lambda", "10", "--participations", "2"],
     ["--rho (12) must be at most --lambda (10)"]),
    ("rho above mu", ["--rules", "5", "--mu", "5", "--lambda", "10", "--participations", "2"],
     ["--rho (12) must be at most --mu (5)"]),
    # issue 43: every conflict in the one line, not one per attempt
    ("rho above mu and lambda, lambda not a multiple", ["--rules", "3", "--mu", "5", "--lambda", "8", "--participations", "2"],
     ["--lambda (8) must be a multiple of --rules (3)", "--rho (12) must be at most --mu (5)",
      "--rho (12) must be at most --lambda (8)"]),
    ("lambda 0", ["--lambda", "0"], ["--lambda must be a positive whole number"]),
    ("rho 1", ["--rho", "1"], ["--rho must be at least 2"]),
    ("clusters 0", ["--clusters", "0"], ["--clusters must be"]),
    ("cluster-best 0", ["--cluster-best", "0"], ["--cluster-best must be"]),
    ("mu below rules", ["--rules", "4", "--mu", "3", "--lambda", "8", "--rho", "2"], ["--mu (3) must be at least --rules (4)"]),
    ("seed -1", ["--seed", "-1"], ["--seed must be"]),
]


@pytest.mark.parametrize("what,settings,words", SETTINGS_REFUSED, ids=[c[0] for c in SETTINGS_REFUSED])
def test_symbiotic_settings_breeding_cannot_use_are_one_line_naming_the_flag_before_any_write(capsys, tmp_path, what,
                                                                                            settings, words):
    out = tmp_path / "R"
    code, _o, err = run(capsys, *SYMBIOTIC, "--out", out, *settings)
    one_line_error(code, err, *words)
    assert not out.exists()


def test_the_corrected_symbiotic_command_runs_where_the_refused_one_was_given(capsys, tmp_path):
    """Issue 32, severe 1: these settings ran generation 1, then broke in breeding and left a
    config.json that refused the corrected command."""
    out = tmp_path / "R"
    small = ["--rules", "4", "--mu", "12", "--lambda", "8", "--participations", "2"]
    code, _o, err = run(capsys, *SYMBIOTIC, "--out", out, *small)
    one_line_error(code, err, "--rho", "--lambda")
    code, _o, err = run(capsys, *SYMBIOTIC, "--out", out, *small, "--rho", "8")
    assert code == 0, err
    symbiotic = json.loads((out / "config.json").read_text())["symbiotic"]
    assert symbiotic["rho"] == 8 and symbiotic["readings"]["recombination"].startswith(
        "rho = 8: the first parent random, the 3 most similar to it (Eq. 11), 4 random others")
    # the paper's settings record the readings as before, so their run folders keep resuming
    assert gfs.gfs_settings_dict(gfs.GFSSettings())["readings"] == gfs.READINGS
    assert [line.split(",")[0] for line in (out / "history.csv").read_text().splitlines()[1:]] == ["1", "2"]


def test_the_exposed_symbiotic_options_default_to_the_paper_s_values():
    import typer

    from schedlab.cli.main import _register, app

    _register()
    cmd = typer.main.get_command(app).commands["rules"].commands["evolve"]
    defaults = {p.opts[0]: p.default for p in cmd.params if p.opts and p.opts[0].startswith("--")}
    paper = gfs.GFSSettings()
    for name, flag in gfs.GFS_FLAGS.items():
        assert defaults[flag] == getattr(paper, name), flag
    assert (paper.rho, paper.k, paper.n_best) == (12, 10, 5)  # Sections 4.3.2 and 4.2.5


@given(rules=st.integers(1, 4), mu=st.integers(1, 12), lam=st.integers(1, 16), participations=st.integers(1, 2),
       rho=st.integers(1, 12), k=st.integers(1, 4), n_best=st.integers(1, 3))
@example(rules=4, mu=12, lam=8, participations=2, rho=12, k=10, n_best=5)
@example(rules=4, mu=12, lam=8, participations=2, rho=8, k=3, n_best=2)
def test_symbiotic_settings_the_check_accepts_compose_select_and_breed(rules, mu, lam, participations, rho, k, n_best):
    """Whatever passes GFSSettings' check runs three generations of ask/tell (composition,
    selection, breeding); whatever it refuses is refused naming the flags involved."""
    try:
        s = gfs.GFSSettings(rules=rules, mu=mu, lam=lam, participations=participations, rho=rho, k=k, n_best=n_best)
    except RunError as exc:
        assert str(exc).startswith(tuple(gfs.GFS_FLAGS.values())), exc
        return
    opt = gfs.SymbioticGFS(s, seed=rules + mu + lam)
    rng = np.random.default_rng(0)
    for _ in range(3):
        xs = opt.ask()
        assert len(xs) == s.bases and all(x.size == rules * gfs.GENES for x in xs)
        opt.tell(xs, rng.uniform(1.0, 2.0, len(xs)))
        assert len(opt.parents) == min(mu, lam * opt.generation) and opt.off_parents.shape == (lam, rho)
        assert all(len(set(p)) == rho for p in opt.off_parents)  # rho different parents each


def test_a_rule_base_file_replays_with_simulate_compare_and_evolve_compare(capsys, tmp_path):
    rb = _fuzzy(6, seed=3)
    path = tmp_path / "rb.json"
    path.write_text(rb.to_json())
    assert R.load_rulebase(path).to_dict() == rb.to_dict()  # round trip
    w = load_trace("KTH-SP2", months=1)
    s = simulate_rulebase(w, w.machine_procs, rb)
    validate_schedule(s)
    awrt = compute_metrics(s)["AWRT"]
    code, out, err = run(capsys, "simulate", "KTH-SP2", "--months", "1", "--strategy", path, "--json")
    assert code == 0, err
    assert json.loads(out)["AWRT"] == pytest.approx(awrt, rel=1e-12)
    code, out, err = run(capsys, "evolve", "compare", path, "KTH-SP2", "--months", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["rows"][0]["AWRT"] == pytest.approx(awrt, rel=1e-12)
    code, out, err = run(capsys, "compare", "KTH-SP2", "--months", "1", "--policies", f"easy,{path}", "--csv", tmp_path / "c.csv")
    assert code == 0, err
    import pandas as pd

    table = pd.read_csv(tmp_path / "c.csv")
    assert table["AWRT"].iloc[1] == pytest.approx(awrt, rel=1e-9) and table["AWRT"].iloc[0] != table["AWRT"].iloc[1]
    code, out, err = run(capsys, "rules", "show", path, "KTH-SP2", "--months", "1", "--plot", tmp_path / "t.png")
    assert code == 0 and (tmp_path / "t.png").stat().st_size > 10_000 and "passes; strategies in force" in out


# ---------------------------------------------------------------------------- runs resume exactly
SMALL = gfs.GFSSettings(rules=4, mu=12, lam=16, participations=2, k=3, n_best=2)


class Crash(Exception):
    pass


def _crash_after(n):
    seen = []

    def hook(row):
        seen.append(row)
        if len(seen) == n:
            raise Crash
    return hook


def _strip(csv_text):
    rows = [line.split(",") for line in csv_text.splitlines()]
    col = rows[0].index("elapsed")
    return [r[:col] + r[col + 1:] for r in rows]


def test_symbiotic_run_resumes_exactly_and_workers_do_not_change_it(tmp_path):
    cfg = EvolveConfig(traces=("KTH-SP2",), trace_spec=TraceSpec(months=1), generations=3, seed=5)
    whole = gfs.rules_evolve(cfg, tmp_path / "a", SMALL, workers=1)
    assert whole.generations == 3 and whole.evaluations == 3 * SMALL.bases
    with pytest.raises(Crash):  # a crash after generation 2's checkpoint ...
        gfs.rules_evolve(cfg, tmp_path / "b", SMALL, workers=1, on_generation=_crash_after(2))
    again = gfs.rules_evolve(cfg, tmp_path / "b", SMALL, workers=1)  # ... resumes at generation 3
    two = gfs.rules_evolve(cfg, tmp_path / "c", SMALL, workers=2)
    for other in (again, two):
        assert other.best_f == whole.best_f
        assert (other.run_dir / "best.json").read_text() == (whole.run_dir / "best.json").read_text()
        assert _strip((other.run_dir / "history.csv").read_text()) == _strip((whole.run_dir / "history.csv").read_text())
    with pytest.raises(RunError, match="different config"):
        gfs.rules_evolve(EvolveConfig(traces=("KTH-SP2",), trace_spec=TraceSpec(months=1), generations=3, seed=6), tmp_path / "a",
                         SMALL)


def test_iterative_run_resumes_exactly(tmp_path):
    parts = ((2.0,), (50.0, 90.0), (), (30.0,), (), (), ())
    cfg = EvolveConfig(traces=("KTH-SP2",), trace_spec=TraceSpec(months=1))
    whole = gfs.rules_iterative(cfg, tmp_path / "a", parts, workers=1)
    with pytest.raises(Crash):
        gfs.rules_iterative(cfg, tmp_path / "b", parts, workers=1, on_class=_crash_after(5))
    again = gfs.rules_iterative(cfg, tmp_path / "b", parts, workers=1)
    assert again.best.table == whole.best.table and again.best_f == whole.best_f
    assert whole.best.n_classes == 12
    # Algorithm 2 is greedy per class: the final base is never worse than the standard strategy
    w = load_trace("KTH-SP2", months=1)
    from schedlab.metrics import Objective

    obj = Objective(cfg.objective)
    standard = obj(compute_metrics(simulate_rulebase(w, w.machine_procs, R.TableRuleBase(parts))))
    final = obj(compute_metrics(simulate_rulebase(w, w.machine_procs, whole.best)))
    assert final == pytest.approx(whole.best_f) and final <= standard


# ---------------------------------------------------------------------------- the symbiotic operators
def test_similarity_is_the_cross_correlation_of_eq_11():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(1, 30, (2, gfs.GENES))
    z = np.linspace(-300, 400, 400_001)
    num = []
    for w in range(7):
        g1 = np.exp(-(z - a[w]) ** 2 / (2 * a[7 + w] ** 2)) / (a[7 + w] * np.sqrt(2 * np.pi))
        g2 = np.exp(-(z - b[w]) ** 2 / (2 * b[7 + w] ** 2)) / (b[7 + w] * np.sqrt(2 * np.pi))
        num.append(np.trapezoid(g1 * g2, z))
    assert gfs.similarity(a, b[None, :])[0] == pytest.approx(np.mean(num), rel=1e-6)


def test_every_offspring_rule_takes_part_in_exactly_n_s_bases_of_least_similar_rules():
    opt = gfs.SymbioticGFS(gfs.GFSSettings(), seed=3)
    bases = opt.ask()
    assert len(bases) == 70 and all(b.size == 50 * gfs.GENES for b in bases)
    counts = np.bincount(opt.members.ravel(), minlength=350)
    assert counts.min() == counts.max() == 10
    assert all(len(set(m)) == 50 for m in opt.members)
    m = opt.members[0]  # the second rule is the least similar to the first of those left
    Q = opt.offspring
    assert gfs.similarity(Q[m[0]], Q[[m[1]]])[0] == pytest.approx(gfs.similarity(Q[m[0]], Q[np.setdiff1d(np.arange(350), m[:1])]).min())


def test_tell_assigns_eq_12_fitness_selects_mu_and_adapts_sigma():
    s = gfs.GFSSettings(rules=4, mu=12, lam=16, participations=2, k=3, n_best=2)
    opt = gfs.SymbioticGFS(s, seed=0)
    xs = opt.ask()
    f = np.arange(1.0, len(xs) + 1)
    members = opt.members.copy()
    Q = opt.offspring.copy()
    opt.tell(xs, f)
    expect = np.zeros(16)
    for n, base in enumerate(members):
        expect[base] += f[n] / s.rules / s.participations
    assert opt.parents.shape == (12, gfs.GENES) and len(opt.parent_f) == 12
    for p, pf in zip(opt.parents, opt.parent_f):  # each parent is an offspring with its Eq. 12 fitness
        i = int(np.flatnonzero((Q == p).all(axis=1))[0])
        assert pf == pytest.approx(expect[i])
    assert opt.best_f == 1.0 and np.array_equal(opt.best_x, xs[0])
    assert opt.sigma == s.sigma0  # no success rule in the first generation
    # the offspring draw every gene from their rho parents, then add N(0, sigma) (clipped)
    assert opt.offspring.shape == (16, gfs.GENES) and opt.off_parents.shape == (16, s.rho)
    xs = opt.ask()
    better = np.zeros(len(xs))  # every base beats every parent: zeta = 1 > 1/8 -> sigma * alpha
    opt.tell(xs, better)
    assert opt.sigma == pytest.approx(s.sigma0 * s.alpha) and opt.zeta == 1.0
    xs = opt.ask()
    opt.tell(xs, np.full(len(xs), 1e9))  # none better: sigma / alpha
    assert opt.sigma == pytest.approx(s.sigma0) and opt.zeta == 0.0


def test_decoded_outputs_snap_to_the_five_levels():
    out = gfs.snap(np.array([-4.0, -2.9, -0.6, -0.4, 0.49, 0.6, 2.9, 3.1]))
    assert out.tolist() == [-5, -1, -1, 0, 0, 1, 1, 5]
    with pytest.raises(StrategyError, match="width"):
        R.FuzzyRuleBase([[1.0] * 7], [[1.0] * 6 + [0.0]], [[0.0] * 13])
