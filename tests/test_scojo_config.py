"""The SCOJO-PECT configs live in strategy/ (issue 36 item 2: "configs live in strategy/"): plain
dataclasses that load no engine, the same objects under their old sim/ names, read from the verbs'
options by ScojoConfig.from_options (which checks them, so the CLI only passes them on)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from schedlab.errors import StrategyError
from schedlab.strategy.scojo_config import BottomLineConfig, GroupConfig, ScojoConfig


#: the modules of the time-sharing engine (schedlab's own __init__ loads the rigid engine's)
ENGINE = ("schedlab.sim.timeshare", "schedlab.sim.ts_", "schedlab.sim.scojo_opt", "schedlab.sim.groupsearch")


def test_the_configs_load_no_engine_and_keep_their_old_names():
    code = ("import sys; import schedlab.strategy.scojo_config as c; c.ScojoConfig(optimizer=c.GroupConfig()); "
            f"print(sorted(m for m in sys.modules if m.startswith({ENGINE!r})))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
    from schedlab.sim import scojo_opt, timeshare

    assert (timeshare.ScojoConfig, scojo_opt.GroupConfig, scojo_opt.BottomLineConfig) == (ScojoConfig, GroupConfig,
                                                                                          BottomLineConfig)


def test_from_options_reads_what_the_verbs_take():
    c = ScojoConfig.from_options("scojo-opt", shares="70,25,5", cycle=1800, smart_backfill=False, search="LDS",
                                 budget=50, group_sizes="3,40", first_level_only=True)
    assert c == ScojoConfig(shares=(0.7, 0.25, 0.05), cycle=1800.0, smart_backfill=False,
                            optimizer=GroupConfig(search="lds", budget=50, group_max=(3, 40), group_min=(3, 10),
                                                  second_level=False))
    assert ScojoConfig.from_options("scojo") == ScojoConfig()
    assert ScojoConfig.from_options("scojo-bottomline", budget=7).optimizer == BottomLineConfig(budget=7)
    assert ScojoConfig.from_options("scojo-opt", search="lds").optimizer == GroupConfig(search="lds")


@pytest.mark.parametrize("policy, options, words", [
    ("scojo", {"budget": 5}, "need --policy scojo-opt or scojo-bottomline"),
    ("scojo-bottomline", {"group_sizes": "3,3"}, "--group-sizes and --first-level-only need --policy scojo-opt"),
    ("scojo-opt", {"group_sizes": "x"}, "--group-sizes must be two integers"),
    ("scojo-opt", {"search": "bfs"}, "--search must be lds or dds"),
    ("scojo-opt", {"budget": 0}, "--budget must be >= 1"),
    ("scojo", {"shares": "1,2"}, "--shares must be three numbers"),
    ("scojo", {"shares": "0.5,0.5,0.5"}, "must sum to 1"),
    ("scojo", {"cycle": 0}, "--cycle must be a positive number"),
    ("scojo-opt", {"budget": 0, "shares": "1,2"}, "--budget"),  # the optimiser's options are checked first, as before
])
def test_from_options_names_the_option_that_cannot_be_used(policy, options, words):
    with pytest.raises(StrategyError, match=words.replace("-", r"\-").replace("(", r"\(")):
        ScojoConfig.from_options(policy, **options)
