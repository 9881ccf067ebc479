"""The gym examples run end to end: the lookahead with fork beats EASY on a window (and its value of
slot 0 at the first decision is EASY's value of the window: fork and rollout are exact); the random
and heuristic policies play whole windows with masked actions."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the gym extra (pip install 'schedlab[gym]') is not installed")

from conftest import ROOT  # noqa: E402
from schedlab.gym import SchedEnv  # noqa: E402
from schedlab.sim import validate_schedule  # noqa: E402


def example(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_lookahead_with_fork_beats_easy_on_a_window():
    la = example("gym_lookahead")
    env = SchedEnv(episode_jobs=64, window=4, backfill="easy")
    env.reset(seed=1)
    fork_easy = -env.fork().rollout()
    played = SchedEnv(episode_jobs=64, window=4, backfill="easy")
    played.reset(seed=1)
    done = False
    while not done:
        _, r, done, _, _ = played.step(0)
    assert fork_easy == -r  # rollout of a fork = EASY played step by step
    value, steps = la.lookahead(env)
    assert value < fork_easy - 1e-6 and steps > 0
    validate_schedule(env.schedule())


def test_random_and_heuristic_policies_play_whole_windows(capsys):
    pol = example("gym_policies")
    res = pol.evaluate(3, 64)
    assert set(res) == {"EASY (slot 0)", "random", "smallest area"} and all(len(v) == 3 for v in res.values())
    assert all(np.isfinite(v).all() and min(v) >= 1.0 for v in res.values())  # bounded slowdowns
    pol.main(["--episodes", "2", "--jobs", "32"])
    assert "smallest area" in capsys.readouterr().out


def test_ppo_example_runs_end_to_end_at_a_tiny_budget(capsys):
    pytest.importorskip("sb3_contrib", reason="the PPO example needs stable-baselines3 and sb3-contrib (torch): "
                                              "pip install stable-baselines3 sb3-contrib")
    res = example("gym_ppo").main(["--timesteps", "128", "--episodes", "2", "--n-steps", "64"])
    assert res["ppo"].shape == (2,) and (res["ppo"] >= 1.0).all() and (res["easy"] >= 1.0).all()
    assert "MaskablePPO 128 steps" in capsys.readouterr().out
