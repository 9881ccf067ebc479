"""A short PPO training (sb3-contrib's MaskablePPO) in schedlab.gym, judged against EASY on held-out months.

    pip install 'schedlab[gym-ppo]'   # stable-baselines3 and sb3-contrib; torch comes with them (heavy)
    python examples/gym_ppo.py --timesteps 50000 --episodes 30

KTH-SP2 (bundled) is split at month 6 (``TraceSpec(split_months=6)``: user groups from the whole
window, each part on an empty machine): PPO trains on 256-job windows of the first six months and is
evaluated, deterministic and masked, on ``--episodes`` windows (seeds 1000..) of the months after,
beside EASY (the "slot 0" policy) on the same windows. Actions: a job of the first 32 waiting jobs;
EASY backfilling runs behind a blocked named job; reward: -mean bounded slowdown at the episode's end.
Prints the table (mean over windows; windows where PPO is below EASY) and the time of each part.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from schedlab.gym import SchedEnv
from schedlab.workload.spec import TraceSpec, split_trace

OPTIONS = dict(episode_jobs=256, window=32, backfill="easy", objective="mean_bounded_slowdown")


def evaluate(env: SchedEnv, policy, episodes: int) -> np.ndarray:
    """The objective of ``policy(obs, mask) -> action`` on windows seeded 1000.."""
    out = []
    for e in range(episodes):
        obs, info = env.reset(seed=1000 + e)
        done = False
        while not done:
            obs, r, done, _, info = env.step(policy(obs, info["action_mask"].astype(bool)))
        out.append(-r)
    return np.array(out)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timesteps", type=int, default=50_000)
    ap.add_argument("--episodes", type=int, default=30, help="held-out windows")
    ap.add_argument("--n-steps", type=int, default=1024, help="PPO rollout length")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (default 1: a 2 x 64 MLP gains nothing from more, which contend on a shared machine)")
    args = ap.parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(args.threads)

    train, test = split_trace(TraceSpec("KTH-SP2-1996-2.1-cln.swf.gz", split_months=6))
    t0 = time.perf_counter()
    model = MaskablePPO("MlpPolicy", SchedEnv(train, **OPTIONS), n_steps=args.n_steps,
                        batch_size=min(64, args.n_steps), seed=args.seed, verbose=0, device="cpu")
    model.learn(total_timesteps=args.timesteps)
    t1 = time.perf_counter()
    env = SchedEnv(test, **OPTIONS)
    ppo = evaluate(env, lambda obs, mask: int(model.predict(obs, action_masks=mask, deterministic=True)[0]),
                   args.episodes)
    easy = evaluate(env, lambda obs, mask: 0, args.episodes)
    t2 = time.perf_counter()
    print(f"KTH-SP2, {len(train)} training jobs (months 1-6), {len(test)} held-out jobs (months 7-); "
          f"{args.episodes} held-out windows of 256 jobs; mean bounded slowdown (lower is better)")
    print(f"{'policy':<22} {'mean':>8} {'median':>8} {'below EASY':>11}")
    for name, v in (("EASY (slot 0)", easy), (f"MaskablePPO {args.timesteps} steps", ppo)):
        print(f"{name:<22} {v.mean():>8.3f} {np.median(v):>8.3f} {int((v < easy - 1e-12).sum()):>5} / {v.size}")
    print(f"training {t1 - t0:.1f} s, evaluation {t2 - t1:.1f} s")
    return {"ppo": ppo, "easy": easy}


if __name__ == "__main__":
    main()
