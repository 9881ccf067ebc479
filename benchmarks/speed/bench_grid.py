"""Grid timings: exchange policies and one partition evaluation per setup, and the projected time
of a full NSGA-II run (nsga2-grid-performance-bounds: 70 x 200 = 14,000 evaluations, which took
two days on a 120-CPU cluster; our bar: one hour on 2 cores).

Run::

    python benchmarks/speed/bench_grid.py            # setups I-IV
    python benchmarks/speed/bench_grid.py --setup I --repeat 7 --workers 2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from schedlab.grid.partition import PartitionProblem
from schedlab.grid.setups import SETUPS, load_grid
from schedlab.grid.sim import simulate_grid

PAPER_SECONDS = 2 * 24 * 3600  # "about two days per setup" on 120 CPUs (Section 5.2)


def _median_time(fn, repeat: int) -> float:
    fn()  # compile / warm up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="append", choices=list(SETUPS), help="setups to time (default: all)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2, help="cores of the projected full run")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'setup':<6}{'jobs':>8}{'none s':>9}{'pool s':>9}{'rq s':>9}{'eval s':>9}{'mutant s':>10}"
          f"{'70x200 min':>12}{'vs paper':>10}")
    for setup in args.setup or list(SETUPS):
        trace = load_grid(setup)
        times = {ex: _median_time(lambda ex=ex: simulate_grid(trace, ex), max(1, args.repeat // 2))
                 for ex in ("none", "pool", "rq")}
        problem = PartitionProblem.from_trace(trace)
        genes = trace.origin.copy()
        ev = _median_time(lambda: problem.evaluate_raw(genes), args.repeat)
        mutant = genes.copy()
        flip = rng.choice(genes.size, 5000, replace=False)
        mutant[flip] = 1 - mutant[flip]
        ev_mut = _median_time(lambda: problem.evaluate_raw(mutant), args.repeat)
        full = 70 * 200 * max(ev, ev_mut) / args.workers
        print(f"{setup:<6}{len(trace):>8}{times['none']:>9.3f}{times['pool']:>9.3f}{times['rq']:>9.3f}"
              f"{ev:>9.3f}{ev_mut:>10.3f}{full / 60:>12.1f}{PAPER_SECONDS / full:>9.0f}x")


if __name__ == "__main__":
    main()
