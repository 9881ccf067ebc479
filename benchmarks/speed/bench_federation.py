"""Federation timings: one GA fitness evaluation (compiled package builder) on a 1,000-job HPC2N
package against the same builder run as plain Python (numba's ``NUMBA_DISABLE_JIT=1``, in a
subprocess) measured in the same run, METL, and the projected time of the paper's GA (500
generations x 200 individuals = 100,000 evaluations).

Run (under the shared lock)::

    python benchmarks/speed/bench_federation.py
    python benchmarks/speed/bench_federation.py --package 100 --repeat 50

``--ga``: whole GA-METL runs (``--generations`` x 200, run folder and checkpoints included) on the
package, median of ``--runs``: GA wall and CPU time, and the per-generation overhead = (GA CPU time -
evaluations x the median fitness time) / generations. With ``--baseline-src DIR`` (the ``src`` of an
older checkout, e.g. ``git worktree add /tmp/old 79b8a78``) the same runs are made with that code in
a subprocess and the ratios printed::

    python benchmarks/speed/bench_federation.py --ga --package 100 --runs 3 \
        --baseline-src /tmp/old/src

``--ga --sizes 100,1000`` (issue 34's speed bar: under 12 s and under 2 minutes): both package sizes
in one invocation, each with the worker count the run chooses itself from a measured evaluation
(``choose_workers``; printed with the measured evaluation and the dispatch estimate) and, for
comparison, the time with that count forced to 1 and 2 workers when the choice is 1 or 2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from bench_grid import _median_time as median_time  # noqa: E402  (one warm-up, then the median of repeat timed runs)
from schedlab.federation import FederationOptions, PackageProblem, default_platform  # noqa: E402
from schedlab.optimize.federation_run import FederationRunConfig, load_jobs  # noqa: E402
from schedlab.workload.spec import TraceSpec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    workloads = os.environ.get("SCHEDLAB_WORKLOADS") or str(ROOT.parent / "shared" / "workloads")  # as the tests
    ap.add_argument("--trace", default=str(Path(workloads) / "HPC2N-2002-2.2-cln.swf.gz"))
    ap.add_argument("--package", type=int, default=1000, help="package size (jobs from the trace's start)")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--ga", action="store_true", help="time whole GA-METL runs instead")
    ap.add_argument("--generations", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline-src", default=None, help="src folder of the code to compare against")
    ap.add_argument("--sizes", default=None, help="--ga on each of these package sizes (comma-separated)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one GA timing as JSON (subprocess)
    ap.add_argument("--spec", default="serial", help=argparse.SUPPRESS)  # executor of the timed runs
    ap.add_argument("--interpreted", action="store_true", help=argparse.SUPPRESS)  # one fitness, JIT off (subprocess)
    args = ap.parse_args()
    if args.ga and args.sizes:
        for size in (int(v) for v in args.sizes.split(",")):
            args.package = size
            ga_bench(args)
        return None
    if args.ga:
        return ga_bench(args)
    cfg = FederationRunConfig(TraceSpec(args.trace), method="ga-metl", package_size=args.package, jobs=args.package,
                              offset=args.offset)
    jobs = load_jobs(cfg)
    pf = default_platform()
    prob = PackageProblem(jobs, pf, FederationOptions(dynamic=args.dynamic), "ga-metl")
    rng = np.random.default_rng(0)
    orders = [rng.permutation(len(jobs)) for _ in range(args.repeat)]
    if args.interpreted:  # the subprocess below: the first order once, the kernels as plain Python
        t0 = time.perf_counter()
        makespan = prob.makespan(orders[0])
        print(json.dumps({"seconds": time.perf_counter() - t0, "makespan": makespan}))
        return None
    it = iter(range(10**9))
    fit = median_time(lambda: prob.makespan(orders[next(it) % len(orders)]), args.repeat)
    metl = median_time(prob.metl_order, max(3, args.repeat // 5))
    plain = interpreted(args)
    same = "same makespan" if plain["makespan"] == prob.makespan(orders[0]) else f"makespan {plain['makespan']} (differs)"
    evals = 500 * 200
    print(f"package of {len(jobs)} jobs ({Path(args.trace).name}, jobs {args.offset + 1}-{args.offset + len(jobs)}), "
          f"platform {pf.name}, {'dynamic' if args.dynamic else 'static'} model")
    print(f"  fitness evaluation (compiled, median of {args.repeat}): {fit * 1e3:8.3f} ms")
    print(f"  same builder as plain Python (first order, once):    {plain['seconds'] * 1e3:8.1f} ms   ratio {plain['seconds'] / fit:,.0f}x, {same}")
    print(f"  METL on the package (median):                        {metl * 1e3:8.3f} ms")
    print(f"  paper's GA, {evals:,} evaluations: projected {evals * fit / 60:.1f} min of fitness on one core")


def interpreted(args) -> dict:
    """One fitness evaluation of the first order with numba's JIT off (``NUMBA_DISABLE_JIT=1``: the
    package's kernels run as plain Python), in a subprocess: ``{"seconds", "makespan"}``."""
    cmd = [sys.executable, __file__, "--interpreted", "--trace", args.trace, "--package", str(args.package),
           "--offset", str(args.offset), "--repeat", str(args.repeat)] + (["--dynamic"] if args.dynamic else [])
    proc = subprocess.run(cmd, env=dict(os.environ, NUMBA_DISABLE_JIT="1"), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: the plain-Python run failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ga_runs(args) -> dict:
    """Median GA wall/CPU seconds of ``args.runs`` whole GA-METL runs, and the fitness time, in this process."""
    import schedlab.optimize.federation_run as fr
    from schedlab.optimize.federation_ga import FederationGAConfig

    cfg = FederationRunConfig(TraceSpec(args.trace), method="ga-metl", package_size=args.package, jobs=args.package,
                              offset=args.offset, ga=FederationGAConfig(generations=args.generations, pop=200))
    jobs = load_jobs(cfg)
    pf = default_platform()
    prob = PackageProblem(jobs, pf, FederationOptions(), "ga-metl")
    rng = np.random.default_rng(0)
    orders = [rng.permutation(len(jobs)) for _ in range(50)]
    it = iter(range(10**9))
    fit = median_time(lambda: prob.makespan(orders[next(it) % len(orders)]), 50)
    wall, cpu, makespans = [], [], []
    spec = args.spec if hasattr(fr, "choose_workers") else "serial"  # older code: serial only
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            t0, c0 = time.perf_counter(), time.process_time()
            res = fr.run_federation(cfg, pf, Path(d) / "run", jobs=jobs, executor=spec)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)  # the whole run (METL seed and final rebuild included)
            makespans.append(res.result["makespan"])
    evals = args.generations * 200
    med_cpu = float(np.median(cpu))
    return {"wall": float(np.median(wall)), "cpu": med_cpu, "fitness": fit, "makespan": makespans[0],
            "overhead": (med_cpu - evals * fit) / args.generations, "src": fr.__file__,
            "workers": res.result.get("workers", 1), "choice": res.result.get("workers_choice")}


def ga_bench(args) -> None:
    if args.json:
        print(json.dumps(ga_runs(args)))
        return
    rows = []
    if args.sizes:  # the run's own choice, then 1 and 2 workers forced (CPU is this process's only)
        rows.append(("this checkout, workers chosen (auto)", ga_runs(argparse.Namespace(**{**vars(args), "spec": "auto"}))))
        for w in (1, 2):
            rows.append((f"this checkout, {w} worker(s) forced",
                         ga_runs(argparse.Namespace(**{**vars(args), "spec": "serial" if w == 1 else f"processes:{w}"}))))
    new = rows[0][1] if rows else ga_runs(args)
    rows = rows or [("this checkout", new)]
    if args.baseline_src:
        cmd = [sys.executable, __file__, "--ga", "--json", "--package", str(args.package), "--offset", str(args.offset),
               "--generations", str(args.generations), "--runs", str(args.runs), "--trace", args.trace]
        env = dict(os.environ, PYTHONPATH=args.baseline_src)
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        rows.append((f"baseline {args.baseline_src}", json.loads(out.strip().splitlines()[-1])))
    print(f"GA-METL {args.generations} x 200 on a package of {args.package} jobs ({Path(args.trace).name}, "
          f"jobs {args.offset + 1}-{args.offset + args.package}), median of {args.runs} whole runs")
    for name, r in rows:
        print(f"  {name:<40} GA wall {r['wall']:8.1f} s  CPU {r['cpu']:8.1f} s  fitness {r['fitness'] * 1e3:6.3f} ms"
              f"  overhead/generation {r['overhead'] * 1e3:7.1f} ms  makespan {r['makespan']:,.0f}"
              f"  workers {r.get('workers', 1)}")
    if new.get("choice"):
        c = new["choice"]
        print(f"  worker choice: {c['workers']} (one evaluation {c['evaluation_ms']:.3f} ms, a generation's "
              f"evaluations {c['generation_ms']:.1f} ms, dispatch estimate {c['dispatch_ms']:.1f} ms)")
    if args.baseline_src:
        b = rows[-1][1]
        print(f"  ratio baseline/this: GA wall {b['wall'] / new['wall']:.2f}x, CPU {b['cpu'] / new['cpu']:.2f}x, "
              f"overhead per generation {b['overhead'] / new['overhead']:.1f}x")


if __name__ == "__main__":
    main()
