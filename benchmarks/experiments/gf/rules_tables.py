"""Tables 3/4 analogues (genetic-fuzzy-rule-based-scheduling) from the run folders of
benchmarks/experiments/gf/rules_experiments.sh: per workload and approach, % improvement over EASY of AWRT,
AWRT_1..5 and the objective (positive = better than EASY; the paper's K_% = (K_EASY - K)/K_EASY),
and U as the difference in percentage points (rule base - EASY).

    python benchmarks/experiments/gf/rules_tables.py docs/results/rules > docs/results/rules/tables.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COLS = ["AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5"]
#: run-folder suffix -> row label: CTC runs on the papers' 430 processors; the header's 338 is a variant
LABELS = {"CTC430": "CTC (430 processors, as the papers)", "CTC": "CTC338 (header's batch partition; variant)"}


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/rules")
    for approach, title in (("iterative", "Table 3 analogue: iterative rule base (Algorithm 2, Table 2 partitions)"),
                            ("symbiotic", "Table 4 analogue: symbiotic evolution of fuzzy rules")):
        runs = sorted(p for p in root.glob(f"{approach}-*") if (p / "comparison.json").exists())
        print(f"### {title}\n")
        if not runs:
            print("(no finished run)\n")
            continue
        print("| workload | " + " | ".join(f"{c} [%]" for c in COLS) + " | U [points] | f_obj [%] | runs/time |")
        print("|---" * (len(COLS) + 4) + "|")
        for run in runs:
            row = json.loads((run / "comparison.json").read_text())[0]
            hist = (run / "history.csv").read_text().splitlines()
            steps = len(hist) - 1
            print(f"| {LABELS.get(run.name.split('-', 1)[1], run.name.split('-', 1)[1])} | " + " | ".join(fmt(row.get(f"{c}_improvement_pct")) for c in COLS)
                  + f" | {fmt(row.get('UTIL_diff_points'))} | {fmt(row.get('objective_improvement_pct'))} | {steps} steps |")
        print()


if __name__ == "__main__":
    main()
