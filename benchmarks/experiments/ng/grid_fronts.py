"""Full-size NSGA-II fronts (70 x 200) of the paper's setups, in resumable run folders (issue 17).

    nice -n 19 .venv/bin/python benchmarks/experiments/ng/grid_fronts.py --setups II,III,IV --generations 200 \
        --chunk 5 --workers 2 [--stop-at 14:10]

Runs the setups round-robin, ``--chunk`` generations at a time, each chunk under the shared
benchmark lock (``$SCHEDLAB_BENCH_LOCK``, the lock ``flock`` takes; skipped when unset or absent) so that it
never overlaps another helper's timing and the lock is released every few minutes. Every chunk
extends the run folder ``docs/results/setup<S>`` (``schedlab grid pareto --extend``) and rewrites
its front.png, hypervolume.png, history.csv (wall time per generation) and points.md. At
``--stop-at`` (UTC, HH:MM) the chunk in flight stops after its last complete generation; the
same command resumes. Equivalent CLI for one setup:
``schedlab grid pareto --setup II --out docs/results/setupII --generations N --extend --workers 2``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import json
import os
import signal
import time
from pathlib import Path

from schedlab.grid.setups import load_grid
from schedlab.optimize.grid_pareto import pareto
from schedlab.optimize.nsga2_grid import GridNSGA2Config
from schedlab.report.grid_report import write_front_report

LOCK = Path(os.environ.get("SCHEDLAB_BENCH_LOCK", "/nonexistent"))
RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"


def pareto_with_report(trace, folder, cfg, **kw):
    """pareto() and the front's report (points.md, front.png, hypervolume.png), as `grid pareto` writes them."""
    result = pareto(trace, folder, cfg, **kw)
    refs = json.loads((Path(folder) / "references.json").read_text())
    write_front_report(folder, result, refs, trace.names, cfg.limit)
    return result


@contextlib.contextmanager
def bench_lock():
    if not LOCK.exists():
        yield
        return
    with LOCK.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def done_generations(folder: Path) -> int:
    hist = folder / "history.csv"
    return max(len(hist.read_text().splitlines()) - 1, 0) if hist.exists() else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setups", default="II,III,IV")
    ap.add_argument("--generations", type=int, default=200)
    ap.add_argument("--pop", type=int, default=70)
    ap.add_argument("--chunk", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stop-at", default="", help="UTC HH:MM: stop cleanly at this time")
    ap.add_argument("--summary", default="", help="only tabulate the setups' run folders into this Markdown file")
    args = ap.parse_args()
    if args.summary:
        Path(args.summary).write_text(
            "# NSGA-II fronts of the paper's setups, paper's start and operators (issue 17)\n\n"
            "Run folders `setup<S>/` (front.png, hypervolume.png, history.csv, points.md, comparison.json); made "
            "by `python benchmarks/experiments/ng/grid_fronts.py --setups II,III,IV --generations 200 --chunk 200 --workers 1` "
            "(setup I: issue 5's run, 2 workers), one process per setup, two at a time on the 2-core machine; "
            "this table by `python benchmarks/experiments/ng/grid_fronts.py --setups I,II,III,IV --summary docs/results/grid-fronts.md`.\n\n"
            "Hypervolume: the run's own (reference 100,000 s per site, eq. (4)), and in the area of benefit "
            "(reference = each site's AWRT without exchange) for the front and for the POOL and RQ points alone. "
            "Gap of a heuristic H: min over front points of max_k (F_k - H_k) / H_k (<= 0: the front reaches H). "
            "POOL and RQ under the readings in `references.json` (setup I: issue 5's; II-IV: the recommended ones).\n\n"
            + summary_md([s.strip().upper() for s in args.setups.split(",")]))
        return
    stop = None
    if args.stop_at:
        h, m = map(int, args.stop_at.split(":"))
        now = dt.datetime.now(dt.timezone.utc)
        stop = now.replace(hour=h, minute=m, second=0, microsecond=0)

        def alarm(signum, frame):
            raise KeyboardInterrupt("stop-at")

        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(max(int((stop - now).total_seconds()), 1))
    try:
        run_chunks(args, stop)
    except KeyboardInterrupt:
        print("stopped between chunks; resume: the same command")


def benefit_hypervolume(folder: Path) -> tuple[float, int, float, float]:
    """(hypervolume of the final front against the no-exchange point, front points that leave a
    site without jobs, the same hypervolume of the POOL point alone and of the RQ point alone).

    The reference point is each site's AWRT without exchange, so only the area of mutual
    benefit counts (Section 5.4): the run's own hypervolume (reference 100,000 s per site) is
    dominated by the corner a few extreme partitions reach, e.g. every job on the larger site
    (eq. (2) gives a site that executes no job AWRT 0)."""
    import json

    import numpy as np

    from schedlab.optimize.nsga2_grid import hypervolume

    front = np.genfromtxt(folder / "front.csv", delimiter=",", skip_header=1, usecols=(0, 1, 2, 3)).reshape(-1, 4)
    F, jobs = front[:, :2], front[:, 2:]
    refs = json.loads((folder / "references.json").read_text())
    none = np.array([s["AWRT"] for s in refs["none"]["sites"]], dtype=np.float64)
    alone = [hypervolume(np.array([[s["AWRT"] for s in refs[h]["sites"]]]), none) for h in ("pool", "rq")]
    return hypervolume(F, none), int(np.sum(np.any(jobs == 0, axis=1))), alone[0], alone[1]


def run_row(folder: Path) -> dict:
    """The summary of a finished run folder: history.csv's last row, comparison.json and the front
    size (shared with grid_operators.py)."""
    import csv
    import json

    with open(folder / "history.csv") as fh:
        last = list(csv.DictReader(fh))[-1]
    comp = json.loads((folder / "comparison.json").read_text())
    front = len((folder / "front.csv").read_text().splitlines()) - 1
    return {"generations": int(last["gen"]), "evaluations": int(last["evaluations"]),
            "hypervolume": float(last["hypervolume"]), "front": front, "gap_pool": comp["pool"]["gap"],
            "gap_rq": comp["rq"]["gap"], "wall_s": float(last["elapsed"]),
            "best_AWRT_1": float(last["best_AWRT_1"]), "best_AWRT_2": float(last["best_AWRT_2"]),
            "pool_dominates": comp["pool"]["dominates"], "rq_dominates": comp["rq"]["dominates"]}


def summary_md(setups: list[str]) -> str:
    """A table of the setups' run folders: budget, hypervolume, front, gaps to POOL/RQ, wall time."""
    import json

    lines = ["| setup | sites | generations | evaluations | hypervolume | hypervolume in the area of benefit: front, POOL, RQ | front "
             "| front points leaving a site empty | best AWRT 1 | best AWRT 2 | gap POOL | gap RQ "
             "| front points POOL / RQ dominate | wall time |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in setups:
        folder = RESULTS / f"setup{s}"
        if not (folder / "comparison.json").exists():
            lines.append(f"| {s} | (no finished run folder) |" + " |" * 12)
            continue
        hv_benefit, empty, hv_pool, hv_rq = benefit_hypervolume(folder)
        r = run_row(folder)
        sites = json.loads((folder / "config.json").read_text())["sites"]
        names = " + ".join(f"{x['name']} ({x['procs']})" for x in sites)
        lines.append(
            f"| {s} | {names} | {r['generations']} | {r['evaluations']:,} | {r['hypervolume']:.4g} "
            f"| {hv_benefit:.3g}, {hv_pool:.3g}, {hv_rq:.3g} | {r['front']} | {empty} | {r['best_AWRT_1']:,.0f} "
            f"| {r['best_AWRT_2']:,.0f} | {r['gap_pool']:+.3f} | {r['gap_rq']:+.3f} | {r['pool_dominates']} / {r['rq_dominates']} "
            f"| {r['wall_s'] / 60:.0f} min |")
    return "\n".join(lines) + "\n"


def run_chunks(args, stop) -> None:
    setups = [s.strip().upper() for s in args.setups.split(",")]
    traces = {}
    while True:
        todo = [s for s in setups if done_generations(RESULTS / f"setup{s}") < args.generations]
        if not todo or (stop and dt.datetime.now(dt.timezone.utc) >= stop):
            break
        for s in todo:
            folder = RESULTS / f"setup{s}"
            target = min(done_generations(folder) + args.chunk, args.generations)
            if s not in traces:
                traces[s] = load_grid(s)
            cfg = GridNSGA2Config(pop=args.pop, generations=target, seed=args.seed)
            t0 = time.perf_counter()
            with bench_lock():
                res = pareto_with_report(traces[s], folder, cfg, executor=f"processes:{args.workers}", label=s, extend=True)
            print(f"setup {s}: {res.generations} generations, hypervolume {res.history[-1]['hypervolume']:.4g}, "
                  f"run wall time {res.history[-1]['elapsed']:.0f} s (chunk {time.perf_counter() - t0:.0f} s)",
                  flush=True)
            if res.interrupted:
                print(f"stopped; resume: the same command (reached {res.generations} generations)")
                return


if __name__ == "__main__":
    main()
