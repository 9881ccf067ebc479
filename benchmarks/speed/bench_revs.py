"""Simulation speed of two (or more) git revisions in the same run: EASY and conservative per trace.

Every revision is checked out (``git worktree add --detach``) into a temporary folder and run in
its own subprocess (``PYTHONPATH=<checkout>/src``, its own numba cache), trace by trace and
revision after revision, so both see the same machine load. Each cell is the median of
``--repeat`` timed runs after one untimed run on the trace's first 200 jobs (compilation or cache
load) and one warm-up run; a cell whose warm-up
takes longer than ``--slow`` seconds is timed ``--slow-repeat`` times instead (RICC conservative
took minutes before issue 10). Ratios are new / old (< 1: faster)::

    python benchmarks/speed/bench_revs.py c3a0370 HEAD
    python benchmarks/speed/bench_revs.py c3a0370 HEAD --traces CTC,HPC2N --rules easy --repeat 5
    python benchmarks/speed/bench_revs.py e8cf977 HEAD --traces lublin:10000:71 --rules scojo --clock cpu
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

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
WORKLOADS = SHARED / "workloads"
DEFAULT_TRACES = ("CTC-SP2", "HPC2N", "SDSC-BLUE", "RICC", "CEA-Curie")
#: machine sizes that differ from the trace header (as benchmarks/speed/bench_sim.py)
PROCS = {"CTC-SP2": 430, "RICC": 8192, "METACENTRUM": 806, "lublin": 128}

CHILD = r"""
import json, statistics, sys, time
from schedlab import Machine, Strategy, simulate
from schedlab.workload import load_trace
path, procs, rules, repeat, slow, slow_repeat, clock = (sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4]),
                                                        float(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
now = time.process_time if clock == "cpu" else time.perf_counter
if path.startswith("lublin:"):  # lublin:JOBS:SEED, a generated workload (the SCOJO-PECT benchmark's)
    from schedlab.workload.lublin import lublin
    _, jobs, seed = path.split(":")
    w = lublin(int(jobs), procs, seed=int(seed))
else:
    w = load_trace(path, procs=procs)


def run_once(rule, jobs):
    if rule == "scojo":  # through simulate_scojo: older revisions' simulate() knows only the rigid rules
        from schedlab.sim.timeshare import simulate_scojo
        return simulate_scojo(jobs, procs)
    return simulate(jobs, Machine(procs), Strategy(rule))


out = {}
for rule in rules:
    run_once(rule, w.take(range(min(len(w), 200))))  # compile (or load) first: never timed
    t0 = now(); run_once(rule, w); first = now() - t0
    times = []
    for _ in range(slow_repeat if first > slow else repeat):
        t0 = now(); run_once(rule, w); times.append(now() - t0)
    out[rule] = {"first": first, "median": statistics.median(times), "runs": len(times), "jobs": len(w)}
print(json.dumps(out))
"""

def checkout(rev: str, where: Path) -> Path:
    path = where / rev.replace("/", "_")
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(path), rev],
                   check=True, capture_output=True)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="+", help="git revisions; the first is the baseline")
    ap.add_argument("--traces", default=",".join(DEFAULT_TRACES))
    ap.add_argument("--rules", default="easy,conservative")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--slow", type=float, default=60.0, help="a cell whose warm-up takes longer is timed --slow-repeat times")
    ap.add_argument("--slow-repeat", type=int, default=1)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall (perf_counter) or cpu (process_time: the process's own CPU seconds, steadier on a busy machine)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    traces = [t.strip() for t in args.traces.split(",") if t.strip()]
    paths = {}
    for t in traces:
        if t.startswith("lublin:"):  # lublin:JOBS:SEED on PROCS["lublin"] processors
            paths[t] = t
            continue
        hits = sorted(p for p in WORKLOADS.glob("*.swf.gz") if p.name.startswith(t))
        if not hits:
            ap.error(f"no trace {t!r} in {WORKLOADS}")
        paths[t] = hits[0]
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="schedlab-revs-") as tmp:
        dirs = {rev: checkout(rev, Path(tmp)) for rev in args.revs}
        try:
            for t, path in paths.items():
                for rev, d in dirs.items():
                    env = {**os.environ, "PYTHONPATH": str(d / "src"), "SCHEDLAB_CACHE_DIR": str(Path(tmp) / "cache")}
                    t0 = time.perf_counter()
                    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), str(_procs(t, path)),
                                           args.rules, str(args.repeat), str(args.slow), str(args.slow_repeat), args.clock],
                                          env=env, capture_output=True, text=True, cwd=tmp)
                    if proc.returncode != 0:
                        raise SystemExit(f"error: {rev} on {t}: {proc.stderr.strip().splitlines()[-1]}")
                    results.setdefault(t, {})[rev] = json.loads(proc.stdout.strip().splitlines()[-1])
                    print(f"{t} @ {rev}: {results[t][rev]} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
        finally:
            for d in dirs.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(d)], capture_output=True)
    base = args.revs[0]
    head = ["trace", "rule"] + [f"{r} s" for r in args.revs] + [f"{r}/{base}" for r in args.revs[1:]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for t in results:
        for rule in args.rules.split(","):
            cells = [results[t][r][rule] for r in args.revs]
            row = [t, rule] + [f"{c['median']:.3f} ({c['runs']})" for c in cells]
            row += [f"{c['median'] / cells[0]['median']:.3f}" for c in cells[1:]]
            print("| " + " | ".join(row) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def _procs(trace: str, path) -> int:
    if trace.startswith("lublin:"):
        return PROCS["lublin"]
    return PROCS.get(trace, 0) or _header_procs(path)


def _header_procs(path: Path) -> int:
    from schedlab.workload import read_trace

    return int(read_trace(path).machine_procs)


if __name__ == "__main__":
    sys.exit(main())
