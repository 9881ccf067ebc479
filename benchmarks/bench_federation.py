"""Federation timings: one GA fitness evaluation (compiled package builder) on a 1,000-job HPC2N
package against the plain-Python reference builder measured in the same run, METL, and the
projected time of the paper's GA (500 generations x 200 individuals = 100,000 evaluations).

Run (under the shared lock)::

    flock /work/wt/bench.lock python benchmarks/bench_federation.py
    flock /work/wt/bench.lock python benchmarks/bench_federation.py --package 100 --repeat 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bench_grid import _median_time as median_time  # noqa: E402  (one warm-up, then the median of repeat timed runs)
from schedlab.federation import FederationOptions, PackageProblem, default_platform  # noqa: E402
from schedlab.optimize.federation_run import FederationRunConfig, load_jobs  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(ROOT.parent / "shared" / "workloads" / "HPC2N-2002-2.2-cln.swf.gz"))
    ap.add_argument("--package", type=int, default=1000, help="package size (jobs from the trace's start)")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--dynamic", action="store_true")
    args = ap.parse_args()
    from federation_naive import naive_build

    cfg = FederationRunConfig(trace=args.trace, method="ga-metl", package_size=args.package, jobs=args.package,
                              offset=args.offset)
    jobs = load_jobs(cfg)
    pf = default_platform()
    prob = PackageProblem(jobs, pf, FederationOptions(dynamic=args.dynamic), "ga-metl")
    rng = np.random.default_rng(0)
    orders = [rng.permutation(len(jobs)) for _ in range(args.repeat)]
    it = iter(range(10**9))
    fit = median_time(lambda: prob.makespan(orders[next(it) % len(orders)]), args.repeat)
    metl = median_time(prob.metl_order, max(3, args.repeat // 5))
    rows = [(int(t), float(b), float(s), float(p)) for t, b, s, p in zip(jobs.tasks, jobs.base, jobs.sigma, jobs.ptbw)]
    cols = (pf.node_cluster, pf.node_power, pf.bandwidth)
    t0 = time.perf_counter()
    naive_build(cols, rows, "alg1", order=list(orders[0]), dynamic=args.dynamic)
    naive = time.perf_counter() - t0
    evals = 500 * 200
    print(f"package of {len(jobs)} jobs ({Path(args.trace).name}, jobs {args.offset + 1}-{args.offset + len(jobs)}), "
          f"platform {pf.name}, {'dynamic' if args.dynamic else 'static'} model")
    print(f"  fitness evaluation (compiled, median of {args.repeat}): {fit * 1e3:8.3f} ms")
    print(f"  plain-Python reference builder (same order, once):   {naive * 1e3:8.1f} ms   ratio {naive / fit:,.0f}x")
    print(f"  METL on the package (median):                        {metl * 1e3:8.3f} ms")
    print(f"  paper's GA, {evals:,} evaluations: projected {evals * fit / 60:.1f} min of fitness on one core")


if __name__ == "__main__":
    main()
