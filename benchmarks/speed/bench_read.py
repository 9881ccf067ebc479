"""Benchmark `read_swf`: wall time (median of several reads) and peak memory, per trace.

Each trace is measured in a fresh subprocess so that peak memory is that of reading it:
``peak RSS`` is the process's maximum resident set (ru_maxrss, includes Python, numpy and pandas),
``baseline RSS`` the same just before the first read (after importing schedlab and pandas), and ``tracemalloc peak``
the Python/numpy allocations of one read. Target (issue 2): CTC-SP2 in < 1 s and < 300 MB.
Baseline measured in the same process: plain ``pandas.read_csv`` of the same file (whitespace
separated, ``;`` comments, no validation, no header parsing); ``ratio`` = read_swf / baseline.

    python benchmarks/speed/bench_read.py                 # CTC-SP2
    python benchmarks/speed/bench_read.py --all           # every trace in ../shared/workloads
    python benchmarks/speed/bench_read.py FILE [FILE...] --repeat 7
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared")) / "workloads"

_CHILD = r"""
import json, resource, statistics, sys, time, tracemalloc
import pandas  # read_swf imports it lazily; count it in the baseline RSS, not the read
from schedlab.workload import read_swf
path, repeat = sys.argv[1], int(sys.argv[2])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
w = read_swf(path)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
del w
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    w = read_swf(path)
    times.append(time.perf_counter() - t0)
    del w
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
plain = []
for _ in range(repeat):
    t0 = time.perf_counter()
    df = pandas.read_csv(path, sep=r"\s+", comment=";", header=None, engine="c")
    plain.append(time.perf_counter() - t0)
    del df
w = read_swf(path)
print(json.dumps({"jobs": len(w), "median_s": statistics.median(times), "min_s": min(times),
                  "base_kb": base, "peak_kb": peak, "traced_b": traced, "plain_s": statistics.median(plain)}))
"""


def measure(path: Path, repeat: int) -> dict:
    """Read ``path`` in a fresh interpreter: timings and memory."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(repeat)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*", type=Path, help="SWF files (default: CTC-SP2)")
    parser.add_argument("--all", action="store_true", help="every *.swf.gz in ../shared/workloads")
    parser.add_argument("--repeat", type=int, default=5, help="timed reads per trace (median reported)")
    args = parser.parse_args(argv)
    traces = args.traces or ([*sorted(WORKLOADS.glob("*.swf.gz"))] if args.all else [WORKLOADS / "CTC-SP2-1996-3.1-cln.swf.gz"])
    header = f"{'trace':<34} {'jobs':>8} {'median s':>9} {'min s':>7} {'baseline RSS MB':>16} {'peak RSS MB':>12} {'tracemalloc MB':>15} {'pandas s':>9} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for path in traces:
        r = measure(path, args.repeat)
        print(
            f"{path.name:<34} {r['jobs']:>8,} {r['median_s']:>9.3f} {r['min_s']:>7.3f} "
            f"{r['base_kb'] / 1024:>16.0f} {r['peak_kb'] / 1024:>12.0f} {r['traced_b'] / 2**20:>15.1f} {r['plain_s']:>9.3f} {r['median_s'] / r['plain_s']:>6.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
