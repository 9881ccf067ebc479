"""Issue 5's table for every reading of POOL and RQ (issue 17): jobs and AWRT per site under none,
POOL and RQ on setups I-IV of nsga2-grid-performance-bounds (Table 1).

    .venv/bin/python benchmarks/experiments/ng/grid_readings_table.py [--setups I,II,III,IV] [--out docs/results/grid-readings.md]
    .venv/bin/python benchmarks/experiments/ng/grid_readings_table.py --setups I --front docs/results/setupI

``--front RUN`` (a finished ``grid pareto`` run folder of that setup) also prints the gap of every
reading's POOL/RQ point to the run's front (``front_vs_references``: <= 0 = the front reaches it).

Needs ../shared/workloads. Every schedule goes through ``check_site_schedules`` (capacity,
submit, once). Writes a Markdown table (relative paths only) and prints it; each setup takes
seconds (16 readings + none).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from schedlab.grid.readings import DEFAULT, ISSUE5, all_readings
from schedlab.grid.setups import SETUPS, load_grid
from schedlab.grid.sim import check_site_schedules, simulate_grid
from schedlab.metrics.grid import grid_summary


def rows_for(setup: str) -> list[dict]:
    trace = load_grid(setup)
    out = []
    cases = [("none", None)] + [("pool", r) for r in all_readings("pool")] + [("rq", r) for r in all_readings("rq")]
    for exchange, reading in cases:
        t0 = time.perf_counter()
        g = simulate_grid(trace, exchange, reading)
        dt = time.perf_counter() - t0
        check_site_schedules(g)
        s = grid_summary(g)
        label = "" if reading is None else reading.label(exchange)
        tags = []
        if reading is not None and reading.label(exchange) == DEFAULT.label(exchange):
            tags.append("default")
        if reading is not None and reading.label(exchange) == ISSUE5.label(exchange):
            tags.append("issue 5")
        out.append({"setup": setup, "exchange": exchange, "reading": label, "tags": ", ".join(tags),
                    "sites": s["sites"], "AWRT": s["AWRT"], "seconds": dt})
    return out


def markdown(rows: list[dict]) -> str:
    lines = ["| setup | exchange | reading | site 1 | jobs 1 | AWRT 1 (s) | site 2 | jobs 2 | AWRT 2 (s) | moved 1->2 | moved 2->1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a, b = r["sites"]
        reading = r["reading"].replace("rq-", "").replace("pool-", "") or "-"
        if r["tags"]:
            reading += f" **({r['tags']})**"
        lines.append(f"| {r['setup']} | {r['exchange']} | {reading} | {a['name']} | {a['jobs']:,} | {a['AWRT']:,.0f} | "
                     f"{b['name']} | {b['jobs']:,} | {b['AWRT']:,.0f} | {a['migrated_out']:,} | {b['migrated_out']:,} |")
    return "\n".join(lines) + "\n"


def front_gaps(folder: Path, rows: list[dict]) -> str:
    """Markdown: gap of each reading's point to the front stored in ``folder``/front.csv."""
    import csv

    import numpy as np

    from schedlab.optimize.grid_pareto import front_vs_references

    with open(folder / "front.csv") as fh:
        F = np.array([[float(v) for k, v in r.items() if k.startswith("AWRT_")] for r in csv.DictReader(fh)])
    lines = [f"front of {folder}: gap of each reading's point", "", "| exchange | reading | gap | dominated |", "|---|---|---|---|"]
    for r in rows:
        cmp = front_vs_references(F, {"h": {"sites": r["sites"]}})["h"]
        lines.append(f"| {r['exchange']} | {r['reading']} {r['tags']} | {cmp['gap']:+.3f} | {cmp['dominated']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setups", default=",".join(SETUPS))
    ap.add_argument("--out", default="")
    ap.add_argument("--front", action="append", default=[], help="a grid pareto run folder (repeat)")
    args = ap.parse_args()
    rows = []
    for setup in args.setups.split(","):
        t0 = time.perf_counter()
        rows += rows_for(setup.strip().upper())
        print(f"setup {setup}: {time.perf_counter() - t0:.1f} s", flush=True)
    text = markdown(rows)
    print(text)
    for folder in args.front:
        print(front_gaps(Path(folder), [r for r in rows if r["exchange"] != "none"]))
    if args.out:
        head = ("# Jobs and AWRT per site under none, POOL and RQ, every reading (issue 17)\n\n"
                "Made by `.venv/bin/python benchmarks/experiments/ng/grid_readings_table.py --out docs/results/grid-readings.md`.\n"
                "Readings: `schedlab.grid.readings` (seq/when/take of RQ, take/keep of POOL); "
                "moved = jobs executed on the other site.\n\n")
        Path(args.out).write_text(head + text)


if __name__ == "__main__":
    main()
