"""Cold and warm start of the README's main job for two (or more) git revisions in the same run.

The main job is ``schedlab compare KTH-SP2 --policies fcfs,list,easy,conservative`` (the README's
first command, install excluded). Each revision is checked out (``git worktree add --detach``) into
a temporary folder and run as a new process with ``PYTHONPATH=<checkout>/src``. A *cold* run starts
from an empty kernel cache (its own ``SCHEDLAB_CACHE_DIR``), so it includes every numba compile the
command needs; a *warm* run repeats the command on the cache the cold run filled. Runs alternate
revision by revision, so all revisions see the same machine load; each cell is the median of
``--repeat`` runs, and the table gives the ratio to the first revision (< 1: faster). Besides the
wall time, each run's CPU time (user + system of the process) is reported: on a machine that is
busy with other work it is the steadier figure of what compiling costs::

    python benchmarks/speed/bench_cold.py c3a0370 HEAD
    python benchmarks/speed/bench_cold.py c3a0370 HEAD --repeat 3 --json cold.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_revs import checkout

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ["compare", "KTH-SP2", "--policies", "fcfs,list,easy,conservative"]


def timed(src: Path, cache: Path, cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the main job run as a new process."""
    env = {**os.environ, "PYTHONPATH": str(src), "SCHEDLAB_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())",
                           *COMMAND], env=env, capture_output=True, text=True, cwd=cwd)
    took = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"error: {src}: {(proc.stderr.strip().splitlines() or ['exit %d' % proc.returncode])[-1]}")
    return took, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="+", help="git revisions; the first is the baseline")
    ap.add_argument("--repeat", type=int, default=3, help="cold runs (and warm runs) per revision")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    times: dict[str, dict[str, list[float]]] = {r: {"cold": [], "warm": [], "cold_cpu": [], "warm_cpu": []}
                                                for r in args.revs}
    load = []
    with tempfile.TemporaryDirectory(prefix="schedlab-cold-") as tmp:
        dirs = {rev: checkout(rev, Path(tmp)) for rev in args.revs}
        try:
            for k in range(args.repeat):
                for rev, d in dirs.items():
                    cache = Path(tmp) / f"cache-{rev.replace('/', '_')}-{k}"
                    load.append(os.getloadavg()[0])
                    for kind in ("cold", "warm"):
                        wall, cpu = timed(d / "src", cache, tmp)
                        times[rev][kind].append(wall)
                        times[rev][kind + "_cpu"].append(cpu)
                    print(f"{rev} run {k + 1}: cold {times[rev]['cold'][-1]:.1f} s (CPU {times[rev]['cold_cpu'][-1]:.1f} s), "
                          f"warm {times[rev]['warm'][-1]:.1f} s (CPU {times[rev]['warm_cpu'][-1]:.1f} s)",
                          file=sys.stderr, flush=True)
        finally:
            for d in dirs.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(d)], capture_output=True)
    base = args.revs[0]
    print(f"`schedlab {' '.join(COMMAND)}`, median of {args.repeat} (1-min load average at the starts: "
          f"{min(load):.1f} to {max(load):.1f})\n")
    head = ["revision", "cold s", "cold CPU s", "warm s", "warm CPU s", "cold / " + base, "cold CPU / " + base,
            "warm / " + base]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    med = {r: {k: statistics.median(v) for k, v in t.items()} for r, t in times.items()}
    for rev in args.revs:
        m, b = med[rev], med[base]
        print(f"| {rev} | {m['cold']:.1f} | {m['cold_cpu']:.1f} | {m['warm']:.1f} | {m['warm_cpu']:.1f} "
              f"| {m['cold'] / b['cold']:.2f} | {m['cold_cpu'] / b['cold_cpu']:.2f} | {m['warm'] / b['warm']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": times, "median": med, "load": load}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
