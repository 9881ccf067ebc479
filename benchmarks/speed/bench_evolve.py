"""Benchmark one greedy evaluation and the executor overhead of `schedlab evolve greedy`.

Prints, for a training trace (default: CTC-SP2 scaled to 1024 processors, as in
greedy-es-sorting-criteria): the time of one evaluation in this process (simulate +
compute_metrics + objective, median over a sample of random parameter vectors of the free
encoding), the throughput of the same sample through the local ProcessExecutor, the ratio of the
two (overhead of the executor), and the projected wall time of the paper-size optimization
(100 generations x 105 offspring) on the given number of workers.

Run::

    python benchmarks/speed/bench_evolve.py                       # CTC-SP2 -> 1024 procs, 2 workers
    python benchmarks/speed/bench_evolve.py --trace KTH-SP2 --samples 6 --workers 2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from schedlab.execute import ProcessExecutor
from schedlab.optimize.evolve import EvolveConfig, load_training
from schedlab.optimize.greedy import GreedyEncoding, ParamsEvaluator, TrainingSet
from schedlab.workload.spec import TraceSpec

CTC = "../shared/workloads/CTC-SP2-1996-3.1-cln.swf.gz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=CTC)
    ap.add_argument("--scale-to", type=int, default=1024)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--gene-scale", default="linear")
    args = ap.parse_args()

    config = EvolveConfig(traces=(args.trace,), trace_spec=TraceSpec(scale_to=args.scale_to or None))
    t = time.perf_counter()
    workloads, machines = load_training(config)
    print(f"load{' + scale' if args.scale_to else ''}: {time.perf_counter() - t:.2f} s, {len(workloads[0])} jobs, "
          f"{machines[0].procs} procs")
    training = TrainingSet(tuple(workloads), tuple(machines), config.objective)
    enc = GreedyEncoding(gene_scale=args.gene_scale)
    rng = np.random.default_rng(0)
    xs = list(enc.lower + rng.random((args.samples, len(enc))) * (enc.upper - enc.lower))
    evaluate = ParamsEvaluator(enc)
    evaluate(training, xs[0])  # compile / load the numba cache
    times = []
    for x in xs:
        t = time.perf_counter()
        evaluate(training, x)
        times.append(time.perf_counter() - t)
    serial = statistics.median(times)
    print(f"one evaluation (this process): median {serial:.3f} s, min {min(times):.3f} s, max {max(times):.3f} s")
    with ProcessExecutor(args.workers, training) as ex:
        ex.map(evaluate, xs[: args.workers])  # start and warm the workers
        t = time.perf_counter()
        ex.map(evaluate, xs)
        wall = time.perf_counter() - t
    ideal = max(sum(times) / args.workers, max(times))  # no schedule of these tasks can beat this
    print(f"{args.samples} evaluations on {args.workers} processes: {wall:.2f} s "
          f"(ideal {ideal:.2f} s; ratio {wall / ideal:.2f})")
    per_eval = wall / args.samples
    print(f"projected 100 x 105 optimization on {args.workers} workers: {100 * 105 * per_eval / 3600:.2f} h "
          f"(target <= 1 h needs <= {3600 / 10500 * args.workers:.2f} s per evaluation per worker)")


if __name__ == "__main__":
    main()
