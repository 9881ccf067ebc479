"""Does the gap between an NSGA-II front and the POOL / RQ points close with budget? (issue 34 item 5)

One row per front: the folders of one run at growing --generations (the run folder copied after each
``grid pareto --extend`` step), each with front.csv and history.csv. Gaps (``front_vs_references``:
min over front points of max_k (F_k - H_k) / H_k, <= 0 = the front reaches the point) against every
heuristic point of every references.json given, and the hypervolume in the area of benefit (reference:
each site's AWRT without exchange, from the first references file) of the front, and how many of the
front's points lie in that area (better than no exchange on both sites).

    PYTHONPATH=src python benchmarks/experiments/ng/grid_budget.py runs/ng-setupI-long-snap/g200 runs/ng-setupI-long-snap/g400 \\
        runs/ng-setupI-long-snap/g600 --refs recommended=runs/ng-setupI-long/references.json \\
        --refs issue5=docs/results/setupI/references.json --setup I

``--setup S`` adds a second table: for POOL and RQ under the recommended and issue 5's readings, the
policy's point (AWRT per executing site, as the references) and the point of the partition it
realises (every job on the site where it ran) decoded as the search decodes any partition (each site
EASY on its jobs). A decoded point at least as good as the policy's on both sites means the policy's
point is reachable in the search space, so a front that stays short of it is a search shortfall.
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


def realised_rows(setup: str) -> list[str]:
    """Markdown rows: each policy and reading, its point, its realised partition's decoded point."""
    from schedlab.grid.partition import PartitionProblem
    from schedlab.grid.readings import Reading
    from schedlab.grid.setups import load_grid
    from schedlab.grid.sim import simulate_grid
    from schedlab.metrics.grid import site_metrics

    trace = load_grid(setup)
    problem = PartitionProblem.from_trace(trace)
    out = ["| policy | reading | jobs moved | policy's point (AWRT per site, s) | its partition decoded (s) | decoded vs policy |",
           "|---|---|---|---|---|---|"]
    for policy in ("pool", "rq"):
        for label, text in (("recommended", None), ("issue 5", "issue5")):
            reading = Reading.parse(text)
            sites = site_metrics(simulate_grid(trace, policy, reading=reading))  # AWRT per executing site
            own = [s["AWRT"] for s in sites]
            dec = problem.evaluate_raw(problem.realised(policy, reading=reading))[0]
            rel = ", ".join(f"{100 * (d - o) / o:+.1f} %" for d, o in zip(dec, own))
            out.append(f"| {policy.upper()} | {label} | {sum(s['migrated_in'] for s in sites):,} "
                       f"| {', '.join(f'{x:,.0f}' for x in own)} | {', '.join(f'{x:,.0f}' for x in dec)} | {rel} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--refs", action="append", required=True, metavar="LABEL=FILE",
                    help="a references.json (none/pool/rq AWRT per site) and the label of its reading; repeat")
    ap.add_argument("--setup", default="", help="also decode POOL's and RQ's realised partitions of this grid set-up (I..IV)")
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
    if args.setup:
        print()
        print("\n".join(realised_rows(args.setup)))


if __name__ == "__main__":
    main()
