"""Fig. 7 analogue (genetic-fuzzy-rule-based-scheduling): rule bases trained on CTC applied to the
other workloads, beside the evolved greedy of greedy-es-sorting-criteria trained on CTC-1024 for
the same objective. Reads the ``schedlab compare --csv`` tables that ``rules_experiments.sh fig7``
writes (one per workload: EASY, then the rule bases), prints a markdown table of % improvement over
EASY (positive = better; U as the difference in points) and draws ``fig7.png`` (f_obj per
workload and base).

    python benchmarks/experiments/gf/rules_fig7.py docs/results/rules/fig7 > docs/results/rules/fig7/README.md
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ORDER = ["CTC", "KTH", "LANL", "SDSC00", "SDSC96"]
COLS = ["AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5"]


def base_name(strategy: str) -> str:
    """'docs/results/rules/symbiotic-CTC/best.json' -> 'symbiotic-CTC'."""
    p = Path(strategy)
    if p.suffix != ".json":
        return strategy
    return p.parent.name if p.parent.name.startswith(("symbiotic", "iterative")) else f"greedy {p.parent.name}"


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/rules/fig7")
    rows = []
    for w in ORDER:
        f = folder / f"{w}.csv"
        if not f.exists():
            continue
        t = pd.read_csv(f)
        easy = t[t.strategy == "easy"].iloc[0]
        for _, r in t[t.strategy != "easy"].iterrows():
            row = {"workload": w, "base": base_name(r.strategy)}
            for c in COLS + ["objective"]:
                row[c] = 100.0 * (easy[c] - r[c]) / easy[c]
            row["U"] = r.UTIL - easy.UTIL
            rows.append(row)
    if not rows:
        raise SystemExit(f"{folder}: no compare tables (run: sh benchmarks/experiments/gf/rules_experiments.sh fig7)")
    df = pd.DataFrame(rows)
    print("# Fig. 7 analogue: rule bases trained on CTC-1024, applied to every workload\n")
    print("Each workload scaled to 1024 processors and load-calibrated; objective `10*AWRT1+4*AWRT2`;")
    print("% improvement over EASY on the same workload (positive = better), U in points.")
    print("Made by `sh benchmarks/experiments/gf/rules_experiments.sh fig7` (run from the repository root).\n")
    print("| workload | base | " + " | ".join(f"{c} [%]" for c in COLS) + " | U [points] | f_obj [%] |")
    print("|---|---|" + "---|" * (len(COLS) + 2))
    for r in rows:
        cells = " | ".join(f"{r[c]:.2f}" for c in COLS)
        print(f"| {r['workload']} | {r['base']} | {cells} | {r['U']:.2f} | {r['objective']:.2f} |")
    mean = df[df.workload != "CTC"].groupby("base")["objective"].mean()
    print("\nMean f_obj improvement on the four workloads not trained on: "
          + ", ".join(f"{b} {v:+.2f} %" for b, v in mean.items()) + "\n")
    print("![f_obj against EASY per workload](fig7.png)")
    piv = df.pivot(index="workload", columns="base", values="objective").reindex([w for w in ORDER if w in set(df.workload)])
    ax = piv.plot.bar(figsize=(7, 3.6), rot=0)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("f_obj improvement over EASY [%]")
    ax.set_title("Rule bases trained on CTC-1024 (10*AWRT1+4*AWRT2)")
    ax.legend(title=None, fontsize=8)
    plt.tight_layout()
    plt.savefig(folder / "fig7.png", dpi=120)


if __name__ == "__main__":
    main()
