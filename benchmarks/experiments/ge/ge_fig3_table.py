"""GE Fig. 3 beside Fig. 2 (issue 34 item 3): the objective's gain over EASY per workload of the
CTC-trained greedy (Fig. 2: its run folder's comparison.json and other_traces.json) and of the
greedy trained on the sum of the objectives of all workloads (Fig. 3: its run folder's
comparison.json). Writes ``fig3.png`` (grouped bars) and ``gains.md`` (the same numbers) into --out.

    PYTHONPATH=src python benchmarks/experiments/ge/ge_fig3_table.py --single docs/results/ctc1024cal-f2-log \\
        --multi docs/results/ge-fig3 --out docs/results/ge-fig3
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from schedlab._atomic import atomic_write_text
from schedlab.report.run_report import gains_figure, objective_gains


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--single", required=True, help="run folder of the CTC-trained greedy (ge/table3 + ge/fig2)")
    ap.add_argument("--multi", required=True, help="run folder of the multi-workload greedy (ge/fig3)")
    ap.add_argument("--out", required=True, help="folder for fig3.png and gains.md")
    args = ap.parse_args()
    single, multi, out = Path(args.single), Path(args.multi), Path(args.out)
    rows_single = json.loads((single / "comparison.json").read_text()) + json.loads((single / "other_traces.json").read_text())
    series = {"trained on CTC (Fig. 2)": objective_gains(rows_single),
              "trained on all five (Fig. 3)": objective_gains(json.loads((multi / "comparison.json").read_text()))}
    out.mkdir(parents=True, exist_ok=True)
    rows = gains_figure(series, out / "fig3.png", "10 AWRT1 + 4 AWRT2: greedy vs EASY, each trace scaled to 1,024, load-calibrated")
    lines = ["| workload | " + " | ".join(series) + " | Fig. 3 - Fig. 2 (points) |", "|---|" + "---|" * (len(series) + 1)]
    for w, vals in rows:
        cells = " | ".join("-" if v is None else f"{v:+.1f} %" for v in vals)
        diff = "-" if None in vals else f"{vals[1] - vals[0]:+.1f}"
        lines.append(f"| {w} | {cells} | {diff} |")
    atomic_write_text(out / "gains.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
