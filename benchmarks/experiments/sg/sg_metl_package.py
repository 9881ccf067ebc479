"""METL's makespan by package size (issue 45 item 3, SG Fig. 5): table and figure of a METL-only run.

Reads the results.json of `schedlab federation compare ... --methods metl` runs (one per METL loss
reading) and, for the comparison at packages of 100, the committed Fig. 4 run; prints a markdown
table and writes a PNG of METL's makespan against the package size, one line per workload.

Usage (from the repository root):

    python benchmarks/experiments/sg/sg_metl_package.py docs/results/federation/sg/metl-package \
        --fig4 docs/results/federation/sg/fig4/results.json
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def table(results: list[dict], method: str = "metl") -> dict[str, dict[int, float]]:
    """workload -> package size -> makespan (s) of ``method``."""
    out: dict[str, dict[int, float]] = {}
    for r in results:
        if r["method"] == method:
            out.setdefault(r["workload"], {})[int(r["package_size"])] = float(r["makespan"])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="holds one sub-folder per METL loss reading, each with results.json")
    p.add_argument("--fig4", type=Path, help="results.json of the Fig. 4 run (packages of 100)")
    a = p.parse_args()
    readings = sorted(d.name for d in a.folder.iterdir() if (d / "results.json").is_file())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(readings), figsize=(5.5 * len(readings), 4), sharey=True, squeeze=False)
    metl = {}
    for ax, name in zip(axes[0], readings):
        t = table(json.loads((a.folder / name / "results.json").read_text()))
        metl[name] = t
        sizes = sorted(next(iter(t.values())))
        print(f"### METL loss {name}: makespan (h) by package size\n")
        print("| workload | " + " | ".join(str(s) for s in sizes) + " | 100 -> 1,000 | 100 -> whole | largest / smallest - 1 | falls with size |")
        print("|---|" + "---|" * (len(sizes) + 4))
        for w, v in sorted(t.items()):
            mono = all(v[x] >= v[y] for x, y in zip(sizes, sizes[1:]))
            print(f"| {w} | " + " | ".join(f"{v[s] / 3600:,.1f}" for s in sizes)
                  + f" | {100 * (v[1000] / v[100] - 1):+.1f} % | {100 * (v[sizes[-1]] / v[100] - 1):+.1f} %"
                  + f" | {100 * (max(v.values()) / min(v.values()) - 1):.1f} % | {'yes' if mono else 'no'} |")
            ax.plot(sizes, [v[s] / 3600 for s in sizes], marker="o", label=w)
        print()
        ax.set_xscale("log")
        ax.set_xticks(sizes, [str(s) for s in sizes])
        ax.set_xlabel("package size (jobs; 2000 = the whole workload)")
        ax.set_title(f"METL, loss {name}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("makespan (h), max F - min I")
    axes[0][-1].legend(fontsize=8)
    fig.tight_layout()
    png = a.folder / "metl_by_package_size.png"
    fig.savefig(png, dpi=110)
    print(f"figure: {png.name}\n")
    if a.fig4:
        f4 = json.loads(a.fig4.read_text())
        print("### Packages of 100 (Fig. 4): the GAs against METL as run per package and on the whole workload (absolute loss)\n")
        print("| workload | GA-Random | GA-METL | METL per package of 100 | METL on the whole workload | GA-Random vs METL per package | GA-Random vs METL whole | GA-METL vs METL whole |")
        print("|---|---|---|---|---|---|---|---|")
        ga_r, ga_m, m = table(f4, "ga-random"), table(f4, "ga-metl"), metl["absolute"]
        for w in sorted(m):
            r, g, m100, mall = ga_r[w][100], ga_m[w][100], m[w][100], m[w][max(m[w])]
            print(f"| {w} | {r / 3600:,.1f} | {g / 3600:,.1f} | {m100 / 3600:,.1f} | {mall / 3600:,.1f} | "
                  f"{100 * (r / m100 - 1):+.1f} % | {100 * (r / mall - 1):+.1f} % | {100 * (g / mall - 1):+.1f} % |")


if __name__ == "__main__":
    main()
