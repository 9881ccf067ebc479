"""Does the gap between an NSGA-II front and the POOL / RQ points close with budget? (issue 34 item 5)

One row per front: the folders of one run at growing --generations (the run folder copied after each
``grid pareto --extend`` step), each with front.csv and history.csv. Gaps (``front_vs_references``:
min over front points of max_k (F_k - H_k) / H_k, <= 0 = the front reaches the point) against every
heuristic point of every references.json given, and the hypervolume in the area of benefit (reference:
each site's AWRT without exchange, from the first references file) of the front, and how many of the
front's points lie in that area (better than no exchange on both sites).

    PYTHONPATH=src python benchmarks/grid_budget.py runs/ng-setupI-long-snap/g200 runs/ng-setupI-long-snap/g400 \\
        runs/ng-setupI-long-snap/g600 --refs recommended=runs/ng-setupI-long/references.json \\
        --refs issue5=docs/results/setupI/references.json
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np

from schedlab.optimize.grid_pareto import front_vs_references
from schedlab.optimize.nsga2_grid import hypervolume


def budget_rows(folders: list[Path], refs: dict[str, dict]) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows (strings) for the fronts in ``folders``."""
    first = next(iter(refs.values()))
    none = np.array([s["AWRT"] for s in first["none"]["sites"]], dtype=np.float64)
    points = [(f"{label} {name}", {name: ref}) for label, r in refs.items() for name, ref in r.items() if name != "none"]
    head = ["generations", "evaluations", "front", "front points in the area of benefit", "hypervolume",
            "hypervolume in the area of benefit"]
    head += [f"gap {p}" for p, _ in points]
    rows = []
    for folder in folders:
        F = np.genfromtxt(folder / "front.csv", delimiter=",", skip_header=1, usecols=(0, 1)).reshape(-1, 2)
        with open(folder / "history.csv") as fh:
            last = list(csv.DictReader(fh))[-1]
        inside = int(np.sum(np.all(F < none, axis=1)))
        row = [last["gen"], f"{int(last['evaluations']):,}", str(len(F)), str(inside), f"{float(last['hypervolume']):.4g}",
               f"{hypervolume(F, none):.3g}"]
        for _, one in points:
            (res,) = front_vs_references(F, one).values()
            row.append(f"{res['gap']:+.3f}")
        rows.append(row)
    return head, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--refs", action="append", required=True, metavar="LABEL=FILE",
                    help="a references.json (none/pool/rq AWRT per site) and the label of its reading; repeat")
    args = ap.parse_args()
    refs = {}
    for item in args.refs:
        label, _, path = item.partition("=")
        refs[label] = {k: v for k, v in json.loads(Path(path).read_text()).items() if isinstance(v, dict) and "sites" in v}
    head, rows = budget_rows(args.folders, refs)
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
