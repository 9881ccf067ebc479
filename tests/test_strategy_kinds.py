"""Strategy kinds are registry rows (issue 36 item 2): ``simulate_any``, the file form of a strategy
(``simulate --strategy FILE``), the ``--policy`` names, their listing and the unknown-policy error all
read :data:`schedlab.strategy.registry.KINDS`.

The whole change a new strategy kind needs, shown here with a toy kind (EASY over a fixed queue
order), nothing else edited (``test_a_new_kind_is_one_row``): its config (any module; a frozen
dataclass with a ``label``: :class:`ToyConfig` below), its simulate function ``(workload, machine,
config, *, kill) -> Schedule`` (:func:`toy_simulate`), its file reader (:func:`toy_from_dict`), and
its row appended to ``KINDS`` in schedlab/strategy/registry.py (here :data:`TOY`, patched in)::

    StrategyKind("toy", "EASY over a fixed queue order (a toy kind)", "mod:ToyConfig", "mod:toy_simulate",
                 "dataclasses:asdict", "mod:toy_from_dict", policies=(("toy", "EASY, shortest estimate first"),),
                 policy="mod:toy_policy"),

``to_dict``/``from_dict`` give its file form (``{"kind": "toy", "order": ...}``); ``policy`` builds
the config from a ``--policy`` name (None for kinds whose verbs take options of their own, as
``scojo`` and ``slurm``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from conftest import one_line_error, run
from schedlab.errors import StrategyError
from schedlab.sim import simulate, validate_schedule
from schedlab.sim.model import Machine
from schedlab.sim.strategies import simulate_any, strategy_from_dict, strategy_to_dict
from schedlab.strategy import Criterion, Strategy, registry, rules
from schedlab.workload import Workload, write_swf
from schedlab.workload.lublin import lublin


@pytest.fixture(scope="module")
def lublin_small():
    return lublin(300, 64, seed=35)


@pytest.fixture(scope="module")
def lublin_swf(tmp_path_factory, lublin_small):
    path = tmp_path_factory.mktemp("kinds") / "l.swf"
    write_swf(lublin_small, path)
    return path


def _scojo_configs():
    from schedlab.strategy.policies import SCOJO_POLICIES, policy_config
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
    from schedlab.sim.timeshare import ScojoConfig

    yield from (policy_config(p) for p in SCOJO_POLICIES)
    yield ScojoConfig(shares=(0.5, 0.3, 0.2), suspend="needed", share_schedule=((0.6, 0.3, 0.1),) * 24,
                      optimizer=GroupConfig(group_max=(20, 10), long_wide=((0.5, 100.0), (0.2, 50.0)), take="lsf"))
    yield ScojoConfig(optimizer=BottomLineConfig(scope="group", wait_bound=3600.0, group=GroupConfig(group_min=(3, 4))))


# ---------------------------------------------------------------------------- built-in kinds
def test_simulate_any_runs_each_kind_by_its_row(lublin_small):
    from schedlab.sim.rulebase import simulate_rulebase
    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmPolicy, simulate_slurm

    w, m = lublin_small, Machine(lublin_small.machine_procs)
    slurm = SlurmPolicy(parse_conf(f"PriorityWeightAge=1000\nNodeName=n[1-{m.procs}] CPUs=1\n"
                                   f"PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE\n", "t.conf"))
    cases = [("rigid", Strategy("conservative", "estimate"), simulate),
             ("rigid", Strategy.greedy(Criterion("f2", a=0.5, K=(5, 4, 3, 2, 1))), simulate),
             ("rulebase", rules.TableRuleBase(table=tuple(range(13)) * 14 + (12,) * 10), simulate_rulebase),
             ("scojo", ScojoConfig(), simulate_scojo),
             ("slurm", slurm, simulate_slurm)]
    for name, strategy, own in cases:
        assert registry.kind_of(strategy).name == name
        s = simulate_any(w, m, strategy)
        validate_schedule(s)
        np.testing.assert_array_equal(s.start, own(w, m, strategy).start, err_msg=name)
    with pytest.raises(StrategyError, match="not a strategy of any kind .*rigid, rulebase, scojo, slurm.*: str"):
        simulate_any(w, m, "easy")


def test_every_file_kind_round_trips_through_json():
    fuzzy = rules.rulebase_from_dict({"schedlab_rulebase": 1, "type": "fuzzy", "rules": [
        {"centre": [1, 80, 10, 10, 10, 10, 10], "width": [1, 5, 5, 5, 5, 5, 5], "recommend": [5, 1, 0, -1, -5] + [0] * 8}]})
    for strategy in (Strategy("list", "procs"), Strategy.greedy(Criterion("f1", b=0.2)), rules.TableRuleBase(),
                     fuzzy, *_scojo_configs()):
        doc = json.loads(json.dumps(strategy_to_dict(strategy)))
        assert doc["kind"] == registry.kind_of(strategy).name
        back = strategy_from_dict(doc)
        assert type(back) is type(strategy)
        assert json.loads(json.dumps(strategy_to_dict(back))) == doc
        if not isinstance(strategy, rules.FuzzyRuleBase):  # (compares by identity: arrays inside)
            assert back == strategy
    # files written before kinds had names read as before
    assert strategy_from_dict(Strategy("easy", "sjf").to_dict()) == Strategy("easy", "estimate")
    assert strategy_from_dict(rules.TableRuleBase().to_dict()) == rules.TableRuleBase()


@pytest.mark.parametrize("doc, words", [
    ({"kind": "scojo", "cycles": 10}, ["unknown SCOJO-PECT fields: ['cycles']", "cycle"]),
    ({"kind": "scojo", "optimizer": {"search": "lds"}}, ["optimizer needs \"type\"", "group, bottomline"]),
    ({"kind": "scojo", "optimizer": {"type": "group", "budgets": 5}}, ["unknown scojo-opt fields: ['budgets']"]),
    ({"kind": "scojo", "optimizer": {"type": "bottomline", "group": {"size": 1}}}, ["unknown scojo-opt group fields"]),
    ({"kind": "scojo", "shares": [0.5, 0.5]}, ["shares"]),
    ({"kind": "scojo", "optimizer": {"type": "group", "search": "bfs"}}, ["search must be 'lds' or 'dds'"]),
    ({"kind": "fifo"}, ["unknown strategy kind 'fifo'", "rigid, rulebase, scojo, slurm"]),
    ({"kind": "slurm"}, ["a slurm strategy has no file form"]),
    ({"kind": "rigid", "dispatch": "easy", "oder": "estimate"}, ["unknown strategy fields: ['oder']"]),
])
def test_bad_strategy_objects_are_refused_by_name(doc, words):
    with pytest.raises(StrategyError) as err:
        strategy_from_dict(doc)
    for word in words:
        assert word in str(err.value)


def test_simulate_strategy_file_replays_a_scojo_config(capsys, lublin_swf, tmp_path):
    def metrics(out):
        row = json.loads(out)
        return {k: v for k, v in row.items() if k not in ("sim_seconds", "compile_seconds")}

    code, direct, err = run(capsys, "simulate", lublin_swf, "--policy", "scojo-opt", "--budget", "50", "--json")
    assert code == 0, err
    from schedlab.strategy.scojo_config import ScojoConfig

    path = tmp_path / "opt.json"
    path.write_text(json.dumps(strategy_to_dict(ScojoConfig.from_options("scojo-opt", budget=50))))
    code, replay, err = run(capsys, "simulate", lublin_swf, "--strategy", path, "--json")
    assert code == 0, err
    assert metrics(replay) == metrics(direct) and "groups" in json.loads(replay)
    path.write_text(json.dumps({"kind": "scojo", "optimizer": {"type": "group", "budget": 0}}))
    one_line_error(*run(capsys, "simulate", lublin_swf, "--strategy", path)[::2], str(path), "budget must be >= 1")


# ---------------------------------------------------------------------------- a new kind: one row
@dataclass(frozen=True)
class ToyConfig:
    """EASY over the queue order ``order`` (a toy kind)."""

    order: str = "estimate"
    label = "toy"


def toy_simulate(workload, machine, config, *, kill=True):
    return simulate(workload, machine, Strategy("easy", config.order), kill=kill)


def toy_from_dict(doc):
    from schedlab.sim.strategies import config_from_dict

    return config_from_dict(ToyConfig, doc, "toy")


def toy_policy(spec):
    return ToyConfig()


TOY = registry.StrategyKind("toy", "EASY over a fixed queue order (a toy kind)", f"{__name__}:ToyConfig",
                            f"{__name__}:toy_simulate", "dataclasses:asdict", f"{__name__}:toy_from_dict",
                            policies=(("toy", "EASY, shortest estimate first"),), policy=f"{__name__}:toy_policy")


def test_a_new_kind_is_one_row(monkeypatch, capsys, lublin_small, lublin_swf, tmp_path):
    monkeypatch.setattr(registry, "KINDS", (*registry.KINDS, TOY))
    w, m = lublin_small, Machine(lublin_small.machine_procs)
    easy_sjf = simulate(w, m, Strategy("easy", "estimate"))
    s = simulate_any(w, m, ToyConfig())
    validate_schedule(s)
    np.testing.assert_array_equal(s.start, easy_sjf.start)
    assert not np.array_equal(simulate_any(w, m, ToyConfig("procs")).start, easy_sjf.start)
    doc = json.loads(json.dumps(strategy_to_dict(ToyConfig("procs"))))
    assert doc == {"kind": "toy", "order": "procs"} and strategy_from_dict(doc) == ToyConfig("procs")
    # the CLI: listing, unknown-policy error, --policy NAME and --strategy FILE
    code, listing, _ = run(capsys, "simulate", "--policy", "help")
    assert code == 0 and "  toy " in listing and "EASY over a fixed queue order" in listing
    one_line_error(*run(capsys, "simulate", lublin_swf, "--policy", "fifo")[::2], "toy")
    code, by_name, err = run(capsys, "simulate", lublin_swf, "--policy", "toy", "--json")
    assert code == 0, err
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"kind": "toy", "order": "estimate"}))
    code, by_file, err = run(capsys, "simulate", lublin_swf, "--strategy", path, "--json")
    assert code == 0, err
    code, easy, err = run(capsys, "simulate", lublin_swf, "--policy", "easy", "--order", "estimate", "--json")
    for out in (by_name, by_file):
        row = json.loads(out)
        assert row["strategy"] == "toy"
        assert row["AWRT"] == json.loads(easy)["AWRT"] and row["UTIL"] == json.loads(easy)["UTIL"]


def test_unpatched_registry_does_not_know_the_toy(capsys, lublin_swf):
    one_line_error(*run(capsys, "simulate", lublin_swf, "--policy", "toy")[::2], "unknown policy 'toy'")
    with pytest.raises(StrategyError, match="not a strategy of any kind"):
        simulate_any(Workload.from_columns({"submit": [0.0], "runtime": [1.0], "estimate": [1.0], "procs": [1]},
                                           machine_procs=1), 1, ToyConfig())
