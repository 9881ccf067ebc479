"""A random and a heuristic policy in schedlab.gym, against FCFS/EASY (slot 0) on held-out windows.

    python examples/gym_policies.py --episodes 20 --jobs 256

Each policy plays the same windows (seeds 1000.. of the episode draw: windows not used by any
training, here there is none) of the bundled KTH-SP2 trace with EASY backfilling behind the job it
names; the table prints the mean objective per policy (mean bounded slowdown, lower is better) and
how many windows it beat EASY on. The heuristic names the job of least estimated area (estimate x
processors) among those that fit now, else the queue's first (EASY's head): a shortest-job-first.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from schedlab.gym import SchedEnv
from schedlab.gym.observe import NJ


def first(obs, info, rng):
    """FCFS / EASY: always the queue's first job."""
    return 0


def random_policy(obs, info, rng):
    """A job of the window at random (masked)."""
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def smallest_area(obs, info, rng):
    """The job of least estimate x processors that fits now, else the first (EASY's head)."""
    jobs = obs[: info["action_mask"].size * NJ].reshape(-1, NJ)  # present, wait, estimate, procs, group, fits
    fits = np.flatnonzero((jobs[:, 0] > 0) & (jobs[:, 5] > 0))
    if fits.size == 0:
        return 0
    est = jobs[fits, 2] / (1.0 - jobs[fits, 2])  # e / tau back from e / (e + tau)
    return int(fits[np.argmin(est * jobs[fits, 3])])


POLICIES = {"EASY (slot 0)": first, "random": random_policy, "smallest area": smallest_area}


def evaluate(episodes: int, jobs: int, objective: str = "mean_bounded_slowdown") -> dict[str, list[float]]:
    env = SchedEnv(episode_jobs=jobs, window=32, backfill="easy", objective=objective)
    out: dict[str, list[float]] = {}
    for name, policy in POLICIES.items():
        rng = np.random.default_rng(0)
        values = []
        for e in range(episodes):
            obs, info = env.reset(seed=1000 + e)
            done = False
            while not done:
                obs, r, done, _, info = env.step(policy(obs, info, rng))
            values.append(-r)
        out[name] = values
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=256)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    res = evaluate(args.episodes, args.jobs)
    easy = np.array(res["EASY (slot 0)"])
    print(f"{'policy':<15} {'mean bsld':>10} {'beats EASY':>11}")
    for name, values in res.items():
        v = np.array(values)
        print(f"{name:<15} {v.mean():>10.3f} {int((v < easy - 1e-12).sum()):>6} / {v.size}")
    print(f"({args.episodes} windows of {args.jobs} KTH-SP2 jobs, {time.perf_counter() - t:.1f} s)")


if __name__ == "__main__":
    main()
