"""RLScheduler's HPCSim (github:DIR-LAB/deep-batch-scheduler, SC'20) beside schedlab.gym, same files.

HPCSim's code is not part of schedlab and is never committed here: give a checkout with ``--hpcsim-dir``
(its HPCSimPickJobs.py, job.py, cluster.py). It imports tensorflow (for its PPO helpers only) and the
old ``gym``: this runner stands in a bare module for tensorflow and gymnasium's spaces plus the old
``seeding.np_random`` (a RandomState, as gym < 0.22 gave) for gym, so the environment runs unchanged.

Rows, each the median of ``--repeat`` runs with the action 0 at every step ("the first job of the
window"), HPCSim without and with backfilling (``backfil``) beside schedlab.gym FCFS and EASY on the
same file:

- ``--episodes`` 256-job episodes, reset included (HPCSim's reset also schedules the sequence with
  SJF and F1 to compute its reward baselines: that is its cost of an episode);
- the whole file as one episode (``--whole``): HPCSim through its own ``reset_for_test`` and
  ``step_for_test`` (no reward baselines), its episode moved to the first job and holding every job
  but the last (its critic observation reads the job after the episode's last); schedlab's whole trace.

Each row gives wall-clock and CPU seconds (this process) and the ratios of both; the CPU ratio is
the steadier one on a shared machine (``timed``). A run in which HPCSim fails prints its error as the row (it does on KTH-SP2, in its own
``cluster.release``) and the schedlab row without a ratio. The two count steps differently (HPCSim: one per job it starts by choice, backfilled jobs
none; schedlab: one per decision, a blocked head named included), so episodes/s is printed too.
HPCSim's uncompressed SWF files: ``--swf NAME=PATH`` (schedlab reads the same file).

    python benchmarks/speed/hpcsim_compare.py --hpcsim-dir /tmp/hpcsim --swf lublin_256=/tmp/hpcsim/data/lublin_256.swf \
        --swf KTH-SP2=/tmp/hpcsim/data/KTH-SP2.swf
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

from bench_gym import episodes as schedlab_episodes  # the same loops as the gym benchmark
from bench_gym import whole_trace as schedlab_whole


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


def hpcsim_whole(env) -> int:
    """One episode of HPCSim over the whole file (module docstring); returns its steps."""
    env.reset_for_test(1, 0)  # HPCSim's own reset of every field; then the episode is moved
    n = env.loads.size() - 1
    env.start = env.start_idx_last_reset = 0
    env.num_job_in_batch = env.last_job_in_batch = n
    env.current_timestamp = env.loads[0].submit_time
    env.job_queue = [env.loads[0]]
    env.next_arriving_job_idx = 1
    env.build_observation()
    steps, done = 0, False
    while not done:
        done = env.step_for_test(0)[2]
        steps += 1
    return steps


def timed(fn, repeat: int, warm: bool = True) -> tuple[float, float, int]:
    """(median wall s, median CPU s of this process, steps) of ``repeat`` runs after a warm-up run
    (``warm``: numba's compilation or cache load; HPCSim, pure Python, needs none). On a machine shared
    with other jobs the wall time includes waiting for a core and swings with the others' load between
    rows; the CPU time mostly does not, so the CPU ratio is the steadier comparison."""
    if warm:
        fn()
    runs = []
    for _ in range(repeat):
        c = time.process_time()
        t = time.perf_counter()
        steps = fn()
        runs.append((time.perf_counter() - t, time.process_time() - c, steps))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hpcsim-dir", required=True)
    ap.add_argument("--swf", action="append", required=True, help="NAME=PATH of an uncompressed SWF file")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--whole", action=argparse.BooleanOptionalAction, default=True, help="whole-file rows too")
    args = ap.parse_args(argv)
    from schedlab.gym import SchedEnv
    from schedlab.workload import load_trace

    print(f"{'trace':<11} {'rows':<14} {'environment':<28} {'steps':>7} {'wall s':>8} {'CPU s':>8} {'steps/s':>9} "
          f"{'ratio':>7} {'steps/CPU-s':>11} {'ratio':>7} {'episodes/CPU-s':>14} {'ratio':>7}")
    for item in args.swf:
        name, _, path = item.partition("=")
        w = load_trace(path)
        kinds = [("256-job x" + str(args.episodes), args.episodes)] + ([("whole file", 1)] if args.whole else [])
        for kind, count in kinds:
            for backfil, bf in ((False, "none"), (True, "easy")):
                if kind == "whole file":
                    hrun = hpcsim_whole
                    env = SchedEnv(w, backfill=bf)
                    srun = lambda: schedlab_whole(env)  # noqa: E731
                else:
                    hrun = lambda e: hpcsim_episodes(e, args.episodes)  # noqa: E731
                    env = SchedEnv(w, backfill=bf, episode_jobs=256)
                    srun = lambda: schedlab_episodes(env, args.episodes)  # noqa: E731
                base = None
                try:
                    henv = hpcsim_env(args.hpcsim_dir, path, backfil)
                    sec, cpu, steps = timed(lambda: hrun(henv), args.repeat, warm=False)
                    base = (steps / sec, steps / cpu, count / cpu)
                    print(f"{name:<11} {kind:<14} {f'HPCSim backfil={backfil}':<28} {steps:>7} {sec:>8.3f} {cpu:>8.3f} "
                          f"{base[0]:>9,.0f} {'':>7} {base[1]:>11,.0f} {'':>7} {base[2]:>14,.2f}", flush=True)
                except Exception as err:  # noqa: BLE001  (their code's failure is a result row here)
                    print(f"{name:<11} {kind:<14} {f'HPCSim backfil={backfil}':<28} fails: {type(err).__name__}: {err}")
                sec, cpu, steps = timed(srun, args.repeat)
                mine = (steps / sec, steps / cpu, count / cpu)
                ratio = [f"{a / b:>6.1f}x" if base else f"{'':>7}" for a, b in zip(mine, base or mine)]
                print(f"{name:<11} {kind:<14} {f'schedlab.gym backfill={bf}':<28} {steps:>7} {sec:>8.3f} {cpu:>8.3f} "
                      f"{mine[0]:>9,.0f} {ratio[0]} {mine[1]:>11,.0f} {ratio[1]} {mine[2]:>14,.2f} {ratio[2]}", flush=True)


if __name__ == "__main__":
    main()
