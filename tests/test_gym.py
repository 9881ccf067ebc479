"""The gymnasium environment (schedlab.gym): the gymnasium contract (check_env), exactness of the
first-slot policy against ``simulate`` (FCFS / EASY), of the strategy mode against the rule-base
loop and the naive reference, episode windows and warm machines against ``simulate`` on the same
jobs, rewards against the Objective, fork/snapshot exactness, the vector form, bad input."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

gymnasium = pytest.importorskip("gymnasium", reason="the gym extra (pip install 'schedlab[gym]') is not installed")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from conftest import BUNDLED_KTH, ROOT, trace_path  # noqa: E402
from support.naive import naive_simulate, random_small_workload  # noqa: E402
from schedlab.gym import ENV_ID, GymError, SchedEnv, make_vec  # noqa: E402
from schedlab.metrics import compute_metrics  # noqa: E402
from schedlab.metrics.objective import Objective  # noqa: E402
from schedlab.sim import Machine, Schedule, simulate, validate_schedule  # noqa: E402
from schedlab.sim.rulebase import decide, pack, simulate_rulebase  # noqa: E402
from schedlab.strategy import Strategy  # noqa: E402
from schedlab.strategy import rules as R  # noqa: E402
from schedlab.workload import load_trace  # noqa: E402
from schedlab.workload.lublin import lublin  # noqa: E402

RULE = {"none": "fcfs", "easy": "easy", "conservative": "conservative"}


@functools.lru_cache(maxsize=None)
def kth():
    return load_trace(str(BUNDLED_KTH))


def play(env, policy, seed=0):
    """Run one episode; returns (rewards, steps)."""
    obs, info = env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        obs, r, done, trunc, info = env.step(policy(obs, info))
        assert not trunc
        rewards.append(r)
    return rewards


def first(obs, info):
    return 0


@pytest.mark.parametrize("options", [dict(), dict(backfill="none"), dict(backfill="conservative"),
                                     dict(mode="strategy"),
                                     dict(episode_jobs=64, warm=32, window=16, reward="step")])
def test_check_env_passes(options):
    env = SchedEnv(kth(), **options)
    check_env(env, skip_render_check=True)
    made = gymnasium.make(ENV_ID, workload=kth(), **options)
    assert made.observation_space == env.observation_space and made.action_space == env.action_space


@pytest.mark.parametrize("kill", [True, False])
@pytest.mark.parametrize("backfill", ["none", "easy", "conservative"])
@pytest.mark.parametrize("trace", ["kth", "lublin"])
def test_slot_zero_is_fcfs_and_easy_job_for_job(trace, backfill, kill):
    w = kth() if trace == "kth" else lublin(3000, 128, seed=3)
    env = SchedEnv(w, backfill=backfill, kill=kill, window=8)
    play(env, first)
    got = env.schedule(strategy=Strategy(RULE[backfill]))
    ref = simulate(w, Machine(w.machine_procs), Strategy(RULE[backfill]), kill=kill)
    same = got.start == ref.start
    assert same.all(), f"{(~same).sum()} of {len(w)} starts differ"
    validate_schedule(got)


@settings(max_examples=examples(100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), backfill=st.sampled_from(["none", "easy", "conservative"]), kill=st.booleans(),
       window=st.integers(1, 5))
def test_slot_zero_matches_the_naive_reference_and_any_policy_is_valid(seed, backfill, kill, window):
    w, m = random_small_workload(np.random.default_rng(seed))
    env = SchedEnv(w, backfill=backfill, kill=kill, window=window)
    play(env, first)
    start, _ = naive_simulate(w, m, Strategy(RULE[backfill]), kill=kill)
    np.testing.assert_array_equal(env.schedule().start, start)
    validate_schedule(env.schedule(strategy=Strategy(RULE[backfill])))
    rng = np.random.default_rng(seed)  # a random masked policy: rules 1-4 of the validator
    play(env, lambda obs, info: rng.choice(np.flatnonzero(info["action_mask"])))
    validate_schedule(env.schedule())


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kill=st.booleans(), picks=st.lists(st.integers(0, 12), min_size=1, max_size=6))
def test_strategy_mode_matches_the_naive_reference_switching_per_pass(seed, kill, picks):
    w, m = random_small_workload(np.random.default_rng(seed))
    env = SchedEnv(w, mode="strategy", kill=kill)
    k = iter(range(10**6))
    play(env, lambda obs, info: picks[next(k) % len(picks)])
    start, _ = naive_simulate(w, m, Strategy("fcfs"), kill=kill, switch=[R.strategy_of(p) for p in picks])
    np.testing.assert_array_equal(env.schedule().start, start)


@pytest.mark.parametrize("trace", ["kth", "SDSC-SP2-1998-4.2-cln.swf.gz", "lublin"])
def test_strategy_mode_replays_a_rule_base_pass_for_pass(trace):
    rb = R.load_rulebase(ROOT / "docs/results/rules/iterative-KTH/best.json")
    if trace == "lublin":  # the KTH base keeps one strategy there: a table of Table 2's classes drawn at random switches
        table = np.random.default_rng(0).integers(0, R.N_STRATEGIES, 192)
        rb = R.TableRuleBase(R.TABLE2_PARTITIONS, tuple(int(t) for t in table), R.DEFAULT_GREEDY)
    w = {"kth": kth, "lublin": lambda: lublin(3000, 128, seed=3)}.get(trace, lambda: load_trace(str(trace_path(trace))))()
    ref = simulate_rulebase(w, w.machine_procs, rb)
    env = SchedEnv(w, mode="strategy", greedy=rb.greedy)
    packed, phi, psi = pack(rb), np.empty(max(getattr(rb, "n_rules", 1), 1)), np.empty(R.N_STRATEGIES)
    chosen = []

    def policy(obs, info):
        chosen.append(decide(packed, info["features"], phi, psi))
        return chosen[-1]

    play(env, policy)
    np.testing.assert_array_equal(env.schedule().start, ref.start)
    np.testing.assert_array_equal(np.array(chosen), ref.plan.codes)
    assert len(set(chosen)) > 1  # the base switches on this trace: the replay is not one strategy


@pytest.mark.parametrize("warm", [0, 100])
@pytest.mark.parametrize("backfill", ["none", "easy", "conservative"])
def test_a_window_episode_is_simulate_on_the_same_jobs(backfill, warm):
    """Slot 0 on a window of 256 jobs after ``warm`` earlier ones = simulate on those jobs (trace
    rows of the window + warm-up), read on the window's jobs; the end reward is -f of that schedule."""
    w = kth()
    env = SchedEnv(w, backfill=backfill, episode_jobs=256, warm=warm, objective="AWRT + 0.5*mean_wait")
    rewards = play(env, first, seed=11)
    a, s, b = env._episode
    assert b - s == 256 and s - a == warm
    order = np.argsort(w.submit, kind="stable")
    sub = w.take(np.sort(order[a:b]))
    ref = simulate(sub, Machine(w.machine_procs), Strategy(RULE[backfill]))
    inside = np.isin(np.sort(order[a:b]), order[s:b])
    got = env.schedule()
    np.testing.assert_array_equal(got.start, ref.start[inside])
    validate_schedule(env.schedule(warm=True, strategy=Strategy(RULE[backfill])))
    window = Schedule(sub.take(inside), ref.machine, None, ref.start[inside], ref.finish[inside])
    m = compute_metrics(window)
    assert rewards[-1] == pytest.approx(-(m["AWRT"] + 0.5 * m["mean_wait"]), rel=1e-12)
    assert all(r == 0.0 for r in rewards[:-1])


def test_step_rewards_sum_to_the_end_reward_and_easy_terms_read_the_baseline():
    w = kth()
    f = "AWRT - EASY_AWRT"
    end = SchedEnv(w, episode_jobs=200, objective=f)
    per = SchedEnv(w, episode_jobs=200, objective=f, reward="step")
    r_end = play(end, first, seed=5)
    r_step = play(per, first, seed=5)
    assert sum(r_step) == pytest.approx(r_end[-1], abs=1e-6)
    assert r_end[-1] == pytest.approx(0.0, abs=1e-9)  # slot 0 with EASY backfilling is the EASY baseline
    assert sum(1 for r in r_step if r != 0.0) > 10
    fcfs = SchedEnv(w, episode_jobs=200, objective=f, backfill="none")
    got = play(fcfs, first, seed=5)[-1]
    a, s, b = fcfs._episode
    sub = w.take(np.sort(np.argsort(w.submit, kind="stable")[a:b]))
    awrt = {r: compute_metrics(simulate(sub, Machine(w.machine_procs), Strategy(r)))["AWRT"] for r in ("fcfs", "easy")}
    assert got == pytest.approx(-(awrt["fcfs"] - awrt["easy"]), rel=1e-12) and got != 0.0
    assert Objective(f).needs_easy


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 60), mode=st.sampled_from(["job", "strategy"]),
       backfill=st.sampled_from(["easy", "conservative"]))
def test_fork_is_exact(seed, cut, mode, backfill):
    env = SchedEnv(kth(), mode=mode, episode_jobs=120, window=6, backfill=backfill)
    rng = np.random.default_rng(seed)
    acts = rng.integers(0, 13, 10_000)
    obs, info = env.reset(seed=seed)
    k, done = 0, False
    while not done and k < cut:
        obs, r, done, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
        k += 1
    if done:
        return
    twin = env.fork()
    snap = env.snapshot()

    def finish(e, shift):
        d, i = False, 0
        ob, inf = None, None
        while not d:
            mask = e._mask
            a = int(acts[(i + shift) % acts.size]) % max(int(mask.sum()), 1)
            ob, rr, d, _, inf = e.step(a)
            i += 1
        return e.schedule().start, rr

    s1, r1 = finish(twin, 0)
    s2, r2 = finish(env, 7)  # the original goes another way: the fork is not affected
    env.restore(snap)
    s3, r3 = finish(env, 0)
    np.testing.assert_array_equal(s1, s3)
    assert r1 == r3
    assert not np.isnan(s1).any()


@pytest.mark.parametrize("backfill", ["none", "easy", "conservative"])
def test_vector_form_is_the_single_environment_stepped_together(backfill):
    """Each environment of the stacked batch gives the single environment's schedule and reward for
    the same seed and actions (slot 0 for one, a masked random policy for the other), and restarts
    at the step after its episode ended (next-step autoreset)."""
    vec = make_vec(3, kth(), episode_jobs=48, window=4, backfill=backfill, reward="step")
    obs, info = vec.reset(seed=[1, 2, 3])
    assert obs.shape == (3, 4 * 6 + 4) and obs.dtype == np.float32 and info["action_mask"].shape == (3, 4)
    rng = np.random.default_rng(0)
    picks, rewards, firsts, ends = [], [[], [], []], {}, 0
    while len(firsts) < 3:
        mask = info["action_mask"]
        a = np.array([0, rng.choice(np.flatnonzero(mask[1])) if mask[1].any() else 0, 0])
        picks.append(int(a[1]))
        obs, r, term, trunc, info = vec.step(a)
        for k in range(3):
            if k not in firsts:
                rewards[k].append(r[k])
                if term[k]:
                    firsts[k] = vec.envs[k].schedule().start.copy()
        ends += int(term.sum())
    for k, seed in enumerate([1, 2, 3]):
        env = SchedEnv(kth(), episode_jobs=48, window=4, backfill=backfill, reward="step")
        it = iter(picks)
        got = play(env, (lambda o, i: next(it)) if k == 1 else first, seed=seed)
        np.testing.assert_array_equal(env.schedule().start, firsts[k])
        np.testing.assert_allclose(got, rewards[k], rtol=1e-12)
    obs, r, term, trunc, info = vec.step(np.zeros(3, dtype=np.int64))
    vec.close()


def test_without_copies_the_same_buffers_carry_the_same_values():
    """copy=False returns the environment's own observation and mask arrays (overwritten by the next
    step) holding, step for step, what copy=True returns; a restore across a reset (another
    episode's jobs) resumes exactly."""
    a = SchedEnv(kth(), episode_jobs=100, window=8)
    b = SchedEnv(kth(), episode_jobs=100, window=8, copy=False)
    oa, ia = a.reset(seed=5)
    ob, ib = b.reset(seed=5)
    assert ob is b._obs and ib["action_mask"] is b._mask and oa is not a._obs
    rng = np.random.default_rng(5)
    done, k = False, 0
    while not done:
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ia["action_mask"], ib["action_mask"])
        act = rng.choice(np.flatnonzero(ia["action_mask"]))
        if k == 20:
            snap = b.snapshot()
            b.reset(seed=6)
            b.step(0)
            b.restore(snap)
        oa, ra, done, _, ia = a.step(act)
        ob, rb, done_b, _, ib = b.step(act)
        assert (ra, done) == (rb, done_b)
        k += 1
    np.testing.assert_array_equal(a.schedule().start, b.schedule().start)


def test_vector_form_of_strategy_decisions():
    vec = make_vec(2, kth(), mode="strategy", episode_jobs=32)
    obs, info = vec.reset(seed=0)
    assert obs.shape == (2, 7) and info["action_mask"].shape == (2, 13)
    for _ in range(20):
        obs, r, term, trunc, info = vec.step(np.array([1, 12]))
    vec.close()


def test_bad_options_and_actions_are_one_line_errors():
    with pytest.raises(GymError, match="backfill must be one of none, easy, conservative"):
        SchedEnv(kth(), backfill="slurm")
    with pytest.raises(GymError, match="episode_jobs 99999999 exceeds"):
        SchedEnv(kth(), episode_jobs=99_999_999)
    env = SchedEnv(kth(), window=4, invalid="raise", episode_jobs=8)
    with pytest.raises(GymError, match="call reset"):
        env.step(0)
    obs, info = env.reset(seed=0)
    empty = np.flatnonzero(info["action_mask"] == 0)
    if empty.size:
        with pytest.raises(GymError, match="names an empty window slot"):
            env.step(int(empty[0]))
    with pytest.raises(GymError, match="outside 0..3"):
        env.step(9)


def test_without_gymnasium_the_import_is_one_line():
    code = "import sys; sys.modules['gymnasium'] = None; import schedlab.gym"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode != 0
    assert res.stderr.strip().splitlines()[-1].endswith("schedlab.gym needs gymnasium: pip install 'schedlab[gym]'")


def test_nothing_in_schedlab_imports_the_gym_package():
    """DESIGN.md "Directions that hold": only its tests and examples import schedlab.gym."""
    import ast

    src = ROOT / "src" / "schedlab"
    wrong = []
    for path in src.rglob("*.py"):
        if path.parent.name == "gym":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")] + [a.name for a in node.names]
            if any(n == "gymnasium" or n.startswith("gymnasium.") or n.endswith("gym") or ".gym." in n for n in names):
                wrong.append(str(path.relative_to(src)))
    assert wrong == []


def test_the_observation_of_a_hand_worked_decision():
    """m = 4, tau = 10 s. A (t=0, 3 procs, est 10, group 2) runs; at t=5 B (2 procs, est 30, group 1,
    submitted at 1) and C (1 proc, est 10, group 4, submitted at 5) wait: a decision (C fits)."""
    from schedlab.workload import Workload

    w = Workload.from_columns({"submit": np.array([0.0, 1.0, 5.0]), "runtime": np.array([10.0, 30.0, 10.0]),
                               "estimate": np.array([10.0, 30.0, 10.0]), "procs": np.array([3, 2, 1]),
                               "group": np.array([2, 1, 4])}, machine_procs=4)
    env = SchedEnv(w, window=3, time_scale=10.0, backfill="none")
    obs, info = env.reset(seed=0)
    assert info["time"] == 0.0 and list(info["action_mask"]) == [1, 0, 0]
    obs, r, done, _, info = env.step(0)  # A starts; B arrives at 1 (nothing fits: no decision), C at 5
    assert info["time"] == 5.0 and list(info["action_mask"]) == [1, 1, 0]
    jobs = obs[:18].reshape(3, 6)
    np.testing.assert_allclose(jobs[0], [1, 4 / 14, 30 / 40, 2 / 4, 1 / 5, 0], rtol=1e-6)  # B: waited 4 s
    np.testing.assert_allclose(jobs[1], [1, 0, 10 / 20, 1 / 4, 4 / 5, 1], rtol=1e-6)  # C: just arrived, fits
    assert not jobs[2].any()
    # machine: 1 of 4 free, 2 waiting of window 3, A's estimated end in 5 s, nothing overdue
    np.testing.assert_allclose(obs[18:], [1 / 4, 2 / 5, 5 / 15, 0], rtol=1e-6)


@pytest.mark.parametrize("backfill", ["none", "easy", "conservative"])
def test_episodes_after_one_another_are_fresh_episodes(backfill):
    """reset() refills the last episode's arrays in place (same shape): every episode of one
    environment, after episodes of any policy, is step for step (observation, mask, reward,
    schedule) the episode of a new environment with the same seed; a snapshot taken before a
    reset still restores exactly (the refill must not write into arrays it holds)."""
    w = kth()
    reused = SchedEnv(w, backfill=backfill, episode_jobs=64, warm=10, window=8, reward="step")
    snap = None
    for seed in range(4):
        fresh = SchedEnv(w, backfill=backfill, episode_jobs=64, warm=10, window=8, reward="step")
        rng = np.random.default_rng(seed)
        oa, ia = reused.reset(seed=seed)
        ob, ib = fresh.reset(seed=seed)
        done = False
        while not done:
            np.testing.assert_array_equal(oa, ob)
            np.testing.assert_array_equal(ia["action_mask"], ib["action_mask"])
            act = int(rng.choice(np.flatnonzero(ia["action_mask"])))
            oa, ra, done, _, ia = reused.step(act)
            ob, rb, done_b, _, ib = fresh.step(act)
            assert (ra, done) == (rb, done_b)
            if seed == 1 and snap is None:
                snap, expect = reused.snapshot(), fresh.fork()
        np.testing.assert_array_equal(reused.schedule(warm=True).start, fresh.schedule(warm=True).start)
        validate_schedule(reused.schedule(warm=True, strategy=None))
    reused.restore(snap)  # taken in episode 1, three resets ago
    assert reused.rollout() == expect.rollout()
    np.testing.assert_array_equal(reused.schedule(warm=True).start, expect.schedule(warm=True).start)
