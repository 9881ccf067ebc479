"""Speed of ``--policy slurm`` against EASY measured in the same run (issue 37, Must show: a year
of CTC-SP2 with bf_interval 30 s within 3x EASY's time, median of 5).

Each cell is the median of ``--runs`` timed runs after one warm-up run (numba compilation or
cache load), in CPU seconds of this process (``time.process_time``: less noisy than wall time on
a shared machine, though not free of it). Both policies run on the trace as ``load_trace``
prepares it, on its header's machine (CTC-SP2: 338 one-CPU nodes). The Slurm configuration is
``schedlab.slurm.conformance.SPEED_CONF`` with ``queue_map=default`` (one partition). ``--before SRC`` also times the
``src`` folder of another checkout (e.g. ``git archive OLD src | tar -x -C /tmp/old``) in a
subprocess, and says whether its starts are the same (a hash of the start times)::

    python benchmarks/speed/bench_slurm.py --runs 5
    python benchmarks/speed/bench_slurm.py --traces KTH --months 1 --runs 3 --before /tmp/old/src

Last figures (29 Nov 2026, shared 2-core machine; docs/slurm-policy-spec.md "Speed" says where
the time goes): the CTC-SP2 year, EASY 0.0324 s, ``--policy slurm`` 2.85 s = 88x EASY (5.72 s =
177x before the bit-word earliest-start walk and kernels without reference counting,
``--before`` the src of ef8a794), starts ``8847c13b3b8deea8`` both: the 3x target is not met.
After issue 44's behaviours (2 Dec 2026, load 1.2-1.7): main (9693171) 7.13 s, the walk's rework
5.20 s (EASY 0.046 s, 114x), starts ``f48cc22814b60543`` both (docs/slurm-policy-spec.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
WORKLOADS = Path(os.environ.get("SCHEDLAB_WORKLOADS", SHARED / "workloads"))
TRACES = {"CTC": "CTC-SP2-1996-3.1-cln.swf.gz", "KTH": "KTH-SP2-1996-2.1-cln.swf.gz"}
TARGET_RATIO = 3.0

def speed_conf() -> str:
    """The speed figures' slurm.conf text (schedlab.slurm.conformance.SPEED_CONF of this checkout;
    a ``--before`` run gets the text from here, its older ``src`` may not have it)."""
    from schedlab.slurm.conformance import SPEED_CONF

    return SPEED_CONF


def policy(conf: str):
    """``conf`` with ``queue_map=default`` (one partition)."""
    from schedlab.slurm.conf import parse_conf
    from schedlab.slurm.policy import SlurmOptions, SlurmPolicy

    return SlurmPolicy(parse_conf(conf, "bench_slurm.conf"), SlurmOptions(queue_map="default"))


def timed(fn, runs: int) -> tuple[list[float], object]:
    """One warm-up call, then ``runs`` timed ones: (CPU seconds of each, the last result)."""
    out = fn()
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return times, out


def start_hash(schedule) -> str:
    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(schedule.start, dtype=np.float64).tobytes()).hexdigest()[:16]


def measure(trace: str, months: int | None, runs: int, easy: bool, conf: str) -> dict:
    """Time --policy slurm (and EASY) with whatever ``schedlab`` this process imports."""
    from schedlab.sim import simulate
    from schedlab.sim.model import Machine
    from schedlab.sim.validate import validate_schedule
    from schedlab.slurm.policy import simulate_slurm
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace

    w = load_trace(str(WORKLOADS / trace), months=months)
    procs, pol = w.machine_procs, policy(conf)
    out = {"jobs": len(w), "procs": procs}
    times, s = timed(lambda: simulate_slurm(w, procs, pol), runs)
    validate_schedule(s)
    out.update(slurm=statistics.median(times), slurm_runs=times, hash=start_hash(s),
               backfilled=int((s.slurm.started_by == 2).sum()))
    if easy:
        times, s = timed(lambda: simulate(w, Machine(procs), Strategy("easy")), runs)
        validate_schedule(s)
        out.update(easy=statistics.median(times), easy_runs=times)
    return out


def measure_in(src: str, trace: str, months: int | None, runs: int) -> dict:
    """:func:`measure` (--policy slurm only) in a subprocess importing ``schedlab`` from ``src``."""
    env = dict(os.environ, PYTHONPATH=src)
    cmd = [sys.executable, __file__, "--worker", "--traces", trace, "--runs", str(runs), "--conf-text", speed_conf()]
    if months:
        cmd += ["--months", str(months)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: the run of {src} failed (exit {proc.returncode}): {tail}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="CTC", help=f"comma-separated, of {', '.join(TRACES)} (or a file name in the traces folder)")
    ap.add_argument("--months", type=int, help="only the first N months (default: the whole trace)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per cell after the warm-up (>= 3)")
    ap.add_argument("--before", metavar="SRC", help="also time --policy slurm from this src folder (the code before a change)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--conf-text", default=None, help=argparse.SUPPRESS)  # the worker's slurm.conf text
    args = ap.parse_args(argv)
    traces = [TRACES.get(t.strip(), t.strip()) for t in args.traces.split(",") if t.strip()]
    if args.worker:
        print(json.dumps(measure(traces[0], args.months, args.runs, easy=False, conf=args.conf_text or speed_conf())))
        return 0
    if args.runs < 3:
        ap.error("--runs must be at least 3 (the median of >= 3 runs)")
    missing = [t for t in traces if not (WORKLOADS / t).exists()]
    if missing:
        ap.error(f"no trace {missing[0]} in {WORKLOADS} (set SCHEDLAB_WORKLOADS)")
    results = []
    for trace in traces:
        r = {"trace": trace, "months": args.months, **measure(trace, args.months, args.runs, easy=True, conf=speed_conf())}
        r["ratio"] = r["slurm"] / r["easy"]
        if args.before:
            b = measure_in(args.before, trace, args.months, args.runs)
            r.update(before=b["slurm"], before_runs=b["slurm_runs"], before_ratio=b["slurm"] / r["easy"],
                     same_starts=b["hash"] == r["hash"])
        results.append(r)
    print(f"CPU seconds, median of {args.runs} runs after a warm-up; EASY timed in the same run")
    for r in results:
        span = f"first {r['months']} months" if r["months"] else "whole trace"
        print(f"{r['trace']} ({span}, {r['jobs']:,} jobs, {r['procs']} CPUs): EASY {r['easy']:.4f} s, "
              f"slurm {r['slurm']:.3f} s = {r['ratio']:,.1f}x EASY (target <= {TARGET_RATIO:g}x: "
              f"{'met' if r['ratio'] <= TARGET_RATIO else 'not met'}); backfilled {r['backfilled']:,}; starts {r['hash']}")
        if args.before:
            print(f"  before ({args.before}): slurm {r['before']:.3f} s = {r['before_ratio']:,.1f}x EASY; "
                  f"{r['before'] / r['slurm']:.2f}x faster now; starts {'identical' if r['same_starts'] else 'DIFFERENT'}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
