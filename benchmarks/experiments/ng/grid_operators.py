"""The paper's variation operators against the problem-aware ones (issue 17) on setup I, at equal
evaluations: hypervolume, distance (gap) of POOL and RQ to the front, wall time, per seed.

    nice -n 19 .venv/bin/python benchmarks/experiments/ng/grid_operators.py --generations 40 --seeds 1,2,3 \
        --runs /tmp/grid-operators --out docs/results/grid-operators.md

Each run is a resumable run folder under ``--runs`` (re-running resumes; a larger --generations
extends), taken one run at a time (no other benchmark beside it). The gap
of a heuristic H is min over front points of max_k (F_k - H_k) / H_k (<= 0: the front reaches H).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from grid_fronts import bench_lock, pareto_with_report, run_row

from schedlab.grid.setups import load_grid
from schedlab.optimize.nsga2_grid import GridNSGA2Config


def summary_row(folder: Path, seed: int, variation: str) -> dict:
    """The table row of a finished run folder (:func:`grid_fronts.run_row`)."""
    return {"seed": seed, "variation": variation, **run_row(folder)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", default="I")
    ap.add_argument("--generations", type=int, default=40)
    ap.add_argument("--pop", type=int, default=70)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", default="/tmp/grid-operators")
    ap.add_argument("--out", default="")
    ap.add_argument("--summary-only", action="store_true",
                    help="only tabulate the finished run folders under --runs (no lock, no run)")
    args = ap.parse_args()
    trace = None if args.summary_only else load_grid(args.setup)
    rows = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        for variation in ("paper", "aware"):
            folder = Path(args.runs) / f"{args.setup}-{variation}-{seed}"
            if args.summary_only:
                if (folder / "comparison.json").exists():
                    rows.append(summary_row(folder, seed, variation))
                continue
            cfg = GridNSGA2Config(pop=args.pop, generations=args.generations, seed=seed, variation=variation)
            with bench_lock():
                res = pareto_with_report(trace, folder, cfg, executor=f"processes:{args.workers}", label=args.setup, extend=True)
            if res.interrupted:
                print("stopped; the same command resumes")
                return
            rows.append(summary_row(folder, seed, variation))
            print(rows[-1], flush=True)
    lines = ["| seed | variation | generations | evaluations | hypervolume | front | gap POOL | gap RQ | wall time (s) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['seed']} | {r['variation']} | {r['generations']} | {r['evaluations']:,} | {r['hypervolume']:.5g} | "
                     f"{r['front']} | {r['gap_pool']:+.3f} | {r['gap_rq']:+.3f} | {r['wall_s']:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(
            f"# Setup {args.setup}: the paper's variation against the problem-aware one (issue 17)\n\n"
            f"Made by `python benchmarks/experiments/ng/grid_operators.py --generations {args.generations} "
            f"--seeds {args.seeds} --workers {args.workers} --out docs/results/grid-operators.md` (pop {args.pop}; "
            "wall time on the 2-core machine with another run on the other core; gap <= 0: the front "
            "reaches the heuristic; POOL and RQ under the recommended readings).\n\n" + text)


if __name__ == "__main__":
    main()
