"""RLScheduler's HPCSim (github:DIR-LAB/deep-batch-scheduler, SC'20) beside schedlab.gym, same files.

HPCSim's code is not part of schedlab and is never committed here: give a checkout with ``--hpcsim-dir``
(its HPCSimPickJobs.py, job.py, cluster.py). It imports tensorflow (for its PPO helpers only) and the
old ``gym``: this runner stands in a bare module for tensorflow and gymnasium's spaces plus the old
``seeding.np_random`` (a RandomState, as gym < 0.22 gave) for gym, so the environment runs unchanged.

Rows, each the median of ``--repeat`` runs of ``--episodes`` 256-job episodes with the action 0 at
every step ("the first job of the window"), reset included (HPCSim's reset also schedules the
sequence with SJF and F1 to compute its reward baselines: that is its cost of an episode):
HPCSim without and with backfilling (``backfil``), schedlab.gym FCFS and EASY on 256-job episodes of
the same file. The two count steps differently (HPCSim: one per job it starts by choice, backfilled jobs
none; schedlab: one per decision, a blocked head named included), so episodes/s is printed too.
HPCSim's uncompressed SWF files: ``--swf NAME=PATH`` (schedlab reads the same file).

    python benchmarks/speed/hpcsim_compare.py --hpcsim-dir /tmp/hpcsim --swf lublin_256=/tmp/hpcsim/data/lublin_256.swf
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import types

import numpy as np

from bench_gym import episodes as schedlab_episodes  # the same loop as the gym benchmark


def _shims() -> None:
    """Bare stand-ins for tensorflow and the old gym API HPCSimPickJobs imports at its top."""
    import gymnasium
    from gymnasium import spaces

    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    gym = types.ModuleType("gym")
    gym.Env, gym.spaces = gymnasium.Env, spaces
    utils = types.ModuleType("gym.utils")
    seeding = types.ModuleType("gym.utils.seeding")
    seeding.np_random = lambda seed=None: (np.random.RandomState(seed), seed)
    utils.seeding = seeding
    gym.utils = utils
    sys.modules.update({"gym": gym, "gym.spaces": spaces, "gym.utils": utils, "gym.utils.seeding": seeding})


def hpcsim_env(hpcsim_dir: str, swf: str, backfil: bool):
    _shims()
    sys.path.insert(0, hpcsim_dir)
    import HPCSimPickJobs as H  # noqa: N813  (their module name)

    with contextlib.redirect_stdout(io.StringIO()):
        env = H.HPCEnv(backfil=backfil, job_score_type=0)
        env.seed(0)
        env.my_init(workload_file=swf)
    return env


def hpcsim_episodes(env, count: int) -> int:
    steps = 0
    for _ in range(count):
        env.reset()
        done = False
        while not done:
            done = env.step(0)[2]
            steps += 1
    return steps


def timed(fn, repeat: int) -> tuple[float, int]:
    fn()
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        steps = fn()
        runs.append((time.perf_counter() - t, steps))
    sec = statistics.median(r[0] for r in runs)
    return sec, runs[0][1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hpcsim-dir", required=True)
    ap.add_argument("--swf", action="append", required=True, help="NAME=PATH of an uncompressed SWF file")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=20)
    args = ap.parse_args(argv)
    from schedlab.gym import SchedEnv
    from schedlab.workload import load_trace

    print(f"{'trace':<11} {'environment':<28} {'steps':>7} {'seconds':>8} {'steps/s':>10} {'ratio':>7} {'episodes/s':>11} {'ratio':>7}")
    for item in args.swf:
        name, _, path = item.partition("=")
        w = load_trace(path)
        for backfil, bf in ((False, "none"), (True, "easy")):
            henv = hpcsim_env(args.hpcsim_dir, path, backfil)
            sec, steps = timed(lambda: hpcsim_episodes(henv, args.episodes), args.repeat)
            base, ebase = steps / sec, args.episodes / sec
            print(f"{name:<11} {f'HPCSim backfil={backfil}':<28} {steps:>7} {sec:>8.3f} {base:>10,.0f} {'':>7} {ebase:>11,.1f}")
            env = SchedEnv(w, backfill=bf, episode_jobs=256)
            sec, steps = timed(lambda: schedlab_episodes(env, args.episodes), args.repeat)
            print(f"{name:<11} {f'schedlab.gym backfill={bf}':<28} {steps:>7} {sec:>8.3f} {steps / sec:>10,.0f} "
                  f"{steps / sec / base:>6.1f}x {args.episodes / sec:>11,.1f} {args.episodes / sec / ebase:>6.1f}x")


if __name__ == "__main__":
    main()
