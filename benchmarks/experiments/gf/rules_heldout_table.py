"""Issue 35's table from the ``evolve compare --json`` files that ``rules_heldout_experiments.sh table``
writes: each CTC-trained base (paper settings and remedies) on every other workload of GF's Table 1,
scaled to 1024 and load-calibrated, and at the workload's real size. Per cell: objective against
EASY in % (positive = better), UTIL difference in points, and the worst user group's AWRT change.

    python benchmarks/experiments/gf/rules_heldout_table.py docs/results/rules/heldout35
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SHORT = {"KTH-SP2": "KTH", "LANL-CM5": "LANL", "SDSC-SP2": "SDSC00", "SDSC-Par": "SDSC96"}
ORDER = ["iterative-CTC430", "iterative-CTC430-backfill", "iterative-CTC430-guard2",
         "iterative-CTC430-split6-select-backfill", "iterative-CTC430-multiload", "iterative-CTC430-multiload-backfill",
         "symbiotic-CTC430", "symbiotic-CTC430-backfill", "symbiotic-CTC430-guard2",
         "symbiotic-CTC430-split6-select-backfill"]


def short(trace: str) -> str:
    for prefix, name in SHORT.items():
        if trace.startswith(prefix):
            return name
    return trace


def cell(row: dict) -> str:
    worst = min(row[f"AWRT{i}_improvement_pct"] for i in range(1, 6) if row.get(f"AWRT{i}_improvement_pct") is not None)
    return f"{row['objective_improvement_pct']:+.1f} % (U {row['UTIL_diff_points']:+.2f}, worst group {worst:+.0f} %)"


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/rules/heldout35")
    for size, title in (("1024cal", "scaled to 1024, load-calibrated"), ("real", "at the workload's real size")):
        runs = [r for r in ORDER if (root / f"{r}-{size}.json").exists()]
        if not runs:
            continue
        rows = {r: json.loads((root / f"{r}-{size}.json").read_text())["rows"] for r in runs}
        traces = [short(row["workload"]) for row in rows[runs[0]]]
        print(f"#### Other workloads {title}: objective against EASY (UTIL points, worst group AWRT)\n")
        print("| base | " + " | ".join(traces) + " | worst |")
        print("|---" * (len(traces) + 2) + "|")
        for run in runs:
            worst = min(row["objective_improvement_pct"] for row in rows[run])
            print(f"| {run} | " + " | ".join(cell(row) for row in rows[run]) + f" | {worst:+.1f} % |")
        print()


if __name__ == "__main__":
    main()
