"""One-step lookahead with fork: at every decision, try each job of the window on a fork of the
environment, finish the fork with EASY (``rollout``), keep the best; it beats EASY on a window.

    python examples/gym_lookahead.py --seed 1 --jobs 128 --window 8

The lookahead is a rollout policy over the EASY base policy: slot 0 is always among the candidates
and ties go to it, and forks are exact, so on this deterministic simulation its schedule is never
worse than EASY's (Bertsekas, rollout's cost improvement) and usually better. The value of slot 0 at
the first decision equals EASY's value of the whole window: the check that fork is exact.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from schedlab.gym import SchedEnv


def lookahead(env: SchedEnv) -> tuple[float, int]:
    """Play the episode env is at with one-step lookahead; returns (objective, decisions)."""
    done, steps, r = False, 0, 0.0
    info = {"action_mask": env._mask.copy()}
    while not done:
        best, best_value = 0, None
        for a in np.flatnonzero(info["action_mask"]):
            f = env.fork()
            _, r, d, _, _ = f.step(int(a))
            value = -r if d else -f.rollout()
            if best_value is None or value < best_value - 1e-9:
                best, best_value = int(a), value
        _, r, done, _, info = env.step(best)
        steps += 1
    return -r, steps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=128)
    ap.add_argument("--window", type=int, default=8)
    ap.add_argument("--objective", default="mean_bounded_slowdown")
    args = ap.parse_args(argv)
    env = SchedEnv(episode_jobs=args.jobs, window=args.window, backfill="easy", objective=args.objective)
    env.reset(seed=args.seed)
    easy = -env.fork().rollout()
    t = time.perf_counter()
    value, steps = lookahead(env)
    env.schedule()  # a Schedule: validate_schedule / compute_metrics apply as to any other
    print(f"window of {args.jobs} KTH-SP2 jobs (seed {args.seed}), {args.objective}: EASY {easy:.4f}, "
          f"lookahead {value:.4f} ({100 * (easy - value) / easy:+.1f} %), {steps} decisions, "
          f"{time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
