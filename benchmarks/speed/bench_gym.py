"""Speed of the gymnasium environment (schedlab.gym, issue 48): steps/s and snapshot/restore cost.

Rows (each the median of ``--repeat`` timed runs after one warm-up run that compiles or loads the
numba kernels; the policy is "slot 0", whose cost is nil, so the figure is the environment's), in
steps per wall-clock second and per CPU second of the process (on a shared machine the second
leaves out most of the time spent waiting for a core):

- one environment, the whole trace (one episode), FCFS (``backfill=none``), EASY and conservative;
  again with ``copy=False`` (the environment's own observation and mask buffers, no copies);
- one environment, episodes of 256 consecutive jobs drawn by seed (``--episodes`` of them per run,
  reset included), FCFS and EASY;
- the vector form (``make_vec``, ``--batch`` environments stepped in one call), 256-job episodes:
  environment steps per second summed over the batch (a step that resets an ended episode counts);
- the raw engine (:func:`schedlab.sim.step.run_first`: every decision in one compiled call, no
  observation) beside ``simulate`` on the same trace: the cost of stopping at each decision;
- snapshot and restore of the whole state (µs, median over 2,000 calls) in the middle of a 256-job
  episode and of the whole trace.

Traces: the bundled KTH-SP2 and RLScheduler's lublin_256 (../shared/workloads/lublin_256.swf.gz),
as ``load_trace`` prepares them. ``--hpcsim PYTHON`` also times RLScheduler's HPCSim (a checkout of
github:DIR-LAB/deep-batch-scheduler given by ``--hpcsim-dir``; never committed here) on the same
files with its "first job in the window" policy and prints the ratio. Quick check::

    python benchmarks/speed/bench_gym.py --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
TRACES = {"KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz", "lublin_256": str(SHARED / "workloads" / "lublin_256.swf.gz")}


#: the median CPU time (s, this process) of the runs the last median_time call timed: on a machine
#: shared with other jobs the wall time includes waiting for a core, the CPU time mostly not
LAST_CPU = [0.0]


def median_time(fn, repeat: int) -> float:
    fn()  # warm-up: compilation or cache load
    times, cpu = [], []
    for _ in range(repeat):
        c = time.process_time()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    LAST_CPU[0] = statistics.median(cpu)
    return statistics.median(times)


def row(name: str, label: str, bf: str, steps: int, sec: float, extra: str = "") -> None:
    """One printed row: wall-clock seconds and steps/s, and steps per CPU second (``LAST_CPU``)."""
    cpu = LAST_CPU[0]
    per_cpu = f"{steps / cpu:>12,.0f}" if cpu > 0 else f"{'-':>12}"
    print(f"{name:<11} {label:<34} {bf:<12} {steps:>9} {sec:>9.4f} {steps / sec:>11,.0f} {per_cpu}{extra}", flush=True)


def whole_trace(env) -> int:
    """One whole-trace episode with slot 0; returns its steps."""
    env.reset(seed=0)
    k, done = 0, False
    while not done:
        done = env.step(0)[2]
        k += 1
    return k


def episodes(env, count: int) -> int:
    k = 0
    for e in range(count):
        env.reset(seed=e)
        done = False
        while not done:
            done = env.step(0)[2]
            k += 1
    return k


def vector_steps(vec, steps: int) -> int:
    vec.reset(seed=list(range(vec.num_envs)))
    act = np.zeros(vec.num_envs, dtype=np.int64)
    for _ in range(steps):
        vec.step(act)
    return steps * vec.num_envs


def snapshot_cost(env, calls: int = 2000) -> tuple[float, float]:
    """(snapshot µs, restore µs), median of ``calls`` timed calls each, at the episode's middle."""
    env.reset(seed=3)
    k = 0
    while k < 100:
        if env.step(0)[2]:
            env.reset(seed=3)
        k += 1
    snap = env.snapshot()
    ts, tr = [], []
    for _ in range(calls):
        t = time.perf_counter()
        snap = env.snapshot()
        t1 = time.perf_counter()
        env.restore(snap)
        t2 = time.perf_counter()
        ts.append(t1 - t)
        tr.append(t2 - t1)
    return statistics.median(ts) * 1e6, statistics.median(tr) * 1e6


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=40, help="256-job episodes per timed run")
    ap.add_argument("--batch", type=int, default=8, help="environments in the vector form")
    ap.add_argument("--traces", default="KTH-SP2,lublin_256")
    ap.add_argument("--backfills", default="none,easy,conservative")
    args = ap.parse_args(argv)
    from schedlab.gym import SchedEnv, make_vec
    from schedlab.gym.env import BACKFILLS
    from schedlab.sim import Machine, simulate
    from schedlab.sim import step as engine
    from schedlab.sim.engine import prepare
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace

    print(f"{'trace':<11} {'row':<34} {'backfill':<12} {'steps':>9} {'seconds':>9} {'steps/s':>11} {'steps/CPU-s':>12}")
    for name in args.traces.split(","):
        w = load_trace(TRACES[name])
        for bf in args.backfills.split(","):
            env = SchedEnv(w, backfill=bf)
            steps = []
            sec = median_time(lambda: steps.append(whole_trace(env)), args.repeat)
            row(name, "one env, whole trace", bf, steps[-1], sec)
            env = SchedEnv(w, backfill=bf, copy=False)
            sec = median_time(lambda: steps.append(whole_trace(env)), args.repeat)
            row(name, "one env, whole trace, copy=False", bf, steps[-1], sec)
            env = SchedEnv(w, backfill=bf, episode_jobs=256)
            sec = median_time(lambda: steps.append(episodes(env, args.episodes)), args.repeat)
            row(name, f"one env, {args.episodes} x 256-job episodes", bf, steps[-1], sec)
            vec = make_vec(args.batch, w, backfill=bf, episode_jobs=256)
            per = 2000
            sec = median_time(lambda: steps.append(vector_steps(vec, per)), args.repeat)
            row(name, f"vector of {args.batch}, 256-job episodes", bf, steps[-1], sec)
            vec.close()
            rule = "fcfs" if bf == "none" else bf
            m = Machine(w.machine_procs)

            def raw():
                J, S, _G, _d, _o, _p = prepare(w, m, Strategy(rule))
                cur, tf = engine.new_cursor()
                steps.append(engine.run_first(J, S, cur, tf, BACKFILLS[bf]))

            sim = median_time(lambda: simulate(w, m, Strategy(rule)), args.repeat)
            sec = median_time(raw, args.repeat)
            row(name, "engine alone (run_first) / simulate", bf, steps[-1], sec, f"   simulate {sim:.4f} s")
        for label, options in (("256-job episode", dict(episode_jobs=256)), ("whole trace", {})):
            s, r = snapshot_cost(SchedEnv(w, **options))
            print(f"{name:<11} snapshot / restore, {label:<16} {s:8.1f} µs / {r:8.1f} µs")


if __name__ == "__main__":
    main()
