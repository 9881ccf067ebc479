"""SCOJO-PECT simulation speed (issue 12 "Must show"): a 10,000-job Lublin workload (< 0.5 s) and
the whole SDSC-BLUE trace on 1152 processors (< 10 s), median of ``--repeat`` timed runs after a
warm-up (numba compile or cache load); EASY on the same workload in the same run as the baseline.

    python benchmarks/speed/bench_scojo.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bench_grid import _median_time as median_time  # one warm-up, then the median of repeat timed runs

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared")) / "workloads"
TARGETS = {"lublin-10000-seed71": 0.5, "SDSC-BLUE": 10.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from schedlab.sim import Machine, simulate
    from schedlab.sim.timeshare import simulate_scojo
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace
    from schedlab.workload.lublin import lublin

    cases = {
        "lublin-10000-seed71": (lublin(10_000, 128, seed=71), 128),
    }
    blue = load_trace(str(WORKLOADS / "SDSC-BLUE-2000-4.2-cln.swf.gz"))
    cases["SDSC-BLUE"] = (blue, 1152)
    print(f"{'workload':<22}{'jobs':>9}{'procs':>7}{'scojo s':>10}{'easy s':>9}{'scojo/easy':>12}{'target s':>10}  ok")
    for name, (w, m) in cases.items():
        ts = median_time(lambda: simulate_scojo(w, m), args.repeat)
        te = median_time(lambda: simulate(w, Machine(m), Strategy("easy")), args.repeat)
        target = TARGETS[name]
        print(f"{name:<22}{len(w):>9,}{m:>7}{ts:>10.3f}{te:>9.3f}{ts / te:>12.1f}{target:>10.1f}  {'yes' if ts < target else 'NO'}")


if __name__ == "__main__":
    main()
