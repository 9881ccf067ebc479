"""Issue 12 experiments: SCOJO-PECT against EASY and conservative backfilling (rigid) on the five
synthetic Lublin-Feitelson workloads of the thesis (seeds 71, 31, 73, 35, 7; 10,000 jobs, 128
processors) and on SDSC-BLUE (1152) and LANL-CM5 (1024). Every schedule is validated.

Per workload one JSON file in OUT/parts/ (so the runs can be split into short locked sections);
``--report`` assembles OUT/README.md (tables), OUT/results.json, OUT/bsld_by_class.png and a
Gantt window OUT/gantt_lublin71.png from the parts::

    python benchmarks/experiments/scojo/scojo_experiments.py --workloads lublin
    python benchmarks/experiments/scojo/scojo_experiments.py --workloads SDSC-BLUE
    python benchmarks/experiments/scojo/scojo_experiments.py --workloads LANL-CM5
    python benchmarks/experiments/scojo/scojo_experiments.py --report

``--workloads cuts`` runs the thesis' real-trace set-ups (``CUTS``: the first 10,000 jobs of each trace,
exact estimates); their SCOJO-PECT readings are in docs/results/scojo-opt/readings.md
(benchmarks/experiments/scojo/scojo_readings.py uses the same names).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from schedlab.papers import get_setup

ROOT = Path(__file__).resolve().parents[3]
WORKLOADS = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared")) / "workloads"
OUT = ROOT / "docs" / "results" / "scojo"
SEEDS = (71, 31, 73, 35, 7)
#: the real traces and their machines, from the papers' set-up record (scojo/fig21, scojo/fig22)
REAL = {name: (f"{s.traces[0]}.swf.gz", s.procs) for name, s in
        (("SDSC-BLUE", get_setup("scojo/fig21")), ("LANL-CM5", get_setup("scojo/fig22")))}
POLICIES = ("easy", "conservative", "scojo", "scojo/no-smart-backfill", "scojo/suspend-needed", "scojo/cycle-7200")
#: the SCOJO-PECT variants: default readings, no smart backfilling, the "needed" suspension reading
#: (ScojoConfig.suspend), and the 7200 s cycle of method-notes topic 5's sensitivity runs
VARIANTS = {
    "scojo": {},
    "scojo/no-smart-backfill": {"smart_backfill": False},
    "scojo/suspend-needed": {"suspend": "needed"},
    "scojo/cycle-7200": {"cycle": 7200.0},
}
#: thesis Table 5, for the comparison table (N %, W %, S mean size per class; inter-arrival s)
THESIS_TABLE5 = {
    71: (64, 19, 17, 0.5, 26.5, 73, 9, 17, 19, 808),
    31: (63, 20, 17, 0.5, 25, 74.5, 9, 16, 20, 859),
    73: (64, 20, 16, 0.4, 26.5, 73.5, 9, 17, 21, 797),
    35: (65, 19, 16, 0.5, 27, 72.5, 9, 18, 20, 800),
    7: (64, 20, 16, 0.5, 26, 73.5, 8, 17, 21, 839),
}


#: the thesis' real-trace set-ups (docs/results/scojo-opt/definitions.md section 1b): the first 10,000 jobs
#: (LANL-CM5's reproduce thesis Table 6's class mix; SDSC-BLUE's are the closest cut) with exact run-time
#: estimates (thesis Section 5: "Actual job runtime information is available during job submission");
#: ``--workloads cuts`` selects them
CUTS = ("SDSC-BLUE-head10000-exact", "LANL-CM5-head10000-exact")


def workload(name: str):
    """(workload, processors) of a set-up name: ``lublin-seedN``, a real trace (``SDSC-BLUE``), its first N
    jobs (``SDSC-BLUE-head10000``), either with exact estimates (suffix ``-exact``)."""
    from schedlab.workload import load_trace
    from schedlab.workload.lublin import lublin

    if name.startswith("lublin-"):
        return lublin(10_000, 128, seed=int(name.split("seed")[1])), 128
    exact = name.endswith("-exact")
    base, _, head = name.removesuffix("-exact").partition("-head")
    path, procs = REAL[base]
    w = load_trace(str(WORKLOADS / path), procs=procs)
    if head:  # the first N jobs (a shorter run when the whole trace cannot be afforded)
        import numpy as np

        w = w.take(np.arange(min(int(head), len(w))))
    if exact:
        w = w.replace(estimate=w.runtime)
    return w, procs


def run_one(name: str, progress) -> dict:
    from schedlab.metrics import compute_metrics
    from schedlab.metrics.timeshare import BSLD_BOUND, timeshare_metrics
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
    from schedlab.strategy import Strategy

    w, m = workload(name)
    out = {"workload": name, "jobs": len(w), "procs": m, "policies": {}}
    for policy in POLICIES:
        progress(f"{name}: {policy}")
        t0 = time.perf_counter()
        if policy.startswith("scojo"):
            s = simulate_scojo(w, m, ScojoConfig(**VARIANTS[policy]))
        else:
            s = simulate(w, Machine(m), Strategy(policy))
        sim_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        validate_schedule(s)
        val_s = time.perf_counter() - t0
        basic = compute_metrics(s, bound=BSLD_BOUND)
        ts = timeshare_metrics(s)
        out["policies"][policy] = {
            "UTIL": basic["UTIL"],
            "mean_response": basic["mean_response"],
            "mean_wait": basic["mean_wait"],
            "mean_bsld": basic["mean_bounded_slowdown"],
            **{k: ts[k] for k in ("bsld", "bsld_by_class_width", "jobs_by_class_width", "response_by_class",
                                  "wait_by_class", "preemptions", "slices", "switches")},
            "sim_seconds": sim_s,
            "validate_seconds": val_s,
            "validated": True,
        }
    return out


def names(selection: str) -> list[str]:
    out = []
    for part in selection.split(","):
        if part == "lublin":
            out += [f"lublin-seed{s}" for s in SEEDS]
        elif part == "all":
            out += [f"lublin-seed{s}" for s in SEEDS] + list(REAL)
        elif part == "cuts":
            out += list(CUTS)
        else:
            out.append(part)
    return out


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def report() -> None:
    from schedlab.workload.lublin import lublin, table5_row

    parts = [json.loads(p.read_text()) for p in sorted((OUT / "parts").glob("*.json"))]
    order = [f"lublin-seed{s}" for s in SEEDS] + list(REAL)
    parts.sort(key=lambda r: (order.index(r["workload"].partition("-head")[0]), r["workload"]))
    (OUT / "results.json").write_text(json.dumps(parts, indent=1) + "\n")
    lines = ["# SCOJO-PECT against EASY and conservative backfilling (issue 12)", ""]
    lines += ["Made by (from the repository root; the real-trace runs were serialised with the other benchmarks "
              "of a shared 2-core machine, whose test runs may have run beside them):", "", "```"]
    lines += ["python benchmarks/experiments/scojo/scojo_experiments.py --workloads lublin",
              "python benchmarks/experiments/scojo/scojo_experiments.py --workloads SDSC-BLUE",
              "python benchmarks/experiments/scojo/scojo_experiments.py --workloads LANL-CM5",
              "python benchmarks/experiments/scojo/scojo_experiments.py --report", "```", ""]
    lines += ["SCOJO-PECT with the thesis' values and method-notes topic 5 defaults (shares L 73 % / M 26.5 % / "
              "S 0.5 %, cycle 3600 s, minimum slice 60 s, switch overhead 60 s, order L -> S -> M, every job of "
              "the outgoing class suspended at its slice end); EASY and conservative are the rigid engine "
              "(FCFS queue). Jobs killed at their estimate; Lublin estimates are exact. Bounded slowdown "
              "max(1, response / max(run time, 600 s)), response including suspended time; classes by run "
              "time: short < 10 min <= medium < 3 h <= long; width: narrow <= 10 %, medium <= 50 %, wide > 50 % "
              "of the machine. Every schedule passed the shared validator (`validated` in results.json).", "",
              "Variants: `scojo/no-smart-backfill` (smart backfilling off), `scojo/suspend-needed` (jobs of the "
              "outgoing class suspended only when the incoming class needs their nodes, `ScojoConfig.suspend`), "
              "`scojo/cycle-7200` (cycle 7200 s instead of 3600 s, method-notes topic 5's sensitivity run).", ""]
    # Table 5
    lines += ["## Generator: thesis Table 5 (10,000 jobs, 128 processors, typeless parameter set)", ""]
    lines += ["| seed | | N short % | N med % | N long % | W short % | W med % | W long % | S short | S med | S long | inter-arrival s |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for seed in SEEDS:
        r = table5_row(lublin(10_000, 128, seed=seed))
        ours = (r["N_short"], r["N_med"], r["N_long"], r["W_short"], r["W_med"], r["W_long"], r["S_short"],
                r["S_med"], r["S_long"], r["interarrival"])
        lines.append(f"| {seed} | ours | " + " | ".join(fmt(v, 1 if i < 9 else 0) for i, v in enumerate(ours)) + " |")
        lines.append(f"| {seed} | thesis | " + " | ".join(str(v) for v in THESIS_TABLE5[seed]) + " |")
    lines.append("")
    # main table
    lines += ["## Mean bounded slowdown (bound 600 s) per run-time class, response, wait, utilization", ""]
    lines += ["| workload | policy | BSLD short | BSLD medium | BSLD long | BSLD all | response s | wait s | UTIL % | preemptions |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in parts:
        for pol, v in r["policies"].items():  # noqa: B007
            b = v["bsld"]
            lines.append(f"| {r['workload']} | {pol} | {fmt(b['short'], 2)} | {fmt(b['medium'], 2)} | {fmt(b['long'], 2)} | "
                         f"{fmt(v['mean_bsld'], 2)} | {fmt(v['mean_response'], 0)} | {fmt(v['mean_wait'], 0)} | "
                         f"{fmt(v['UTIL'], 2)} | {v['preemptions']:,} |")
    lines.append("")
    # finding
    lines += ["## The thesis' qualitative finding: short and medium jobs gain", ""]
    lines += ["Ratio of SCOJO-PECT's mean bounded slowdown to the better of EASY and conservative (< 1: SCOJO-PECT better).", ""]
    lines += ["| workload | variant | short | medium | long | short gains? | medium gains? |", "|---|---|---|---|---|---|---|"]
    for r in parts:
        p = r["policies"]
        for variant in VARIANTS:
            if variant not in p:
                continue
            ratios = {}
            for c in ("short", "medium", "long"):
                rigid = [x for x in (p["easy"]["bsld"][c], p["conservative"]["bsld"][c]) if x is not None]
                mine = p[variant]["bsld"][c]
                ratios[c] = mine / min(rigid) if rigid and mine is not None else None
            yes = {c: "-" if ratios[c] is None else ("yes" if ratios[c] < 1 else "no") for c in ratios}
            lines.append(f"| {r['workload']} | {variant} | {fmt(ratios['short'], 2)} | {fmt(ratios['medium'], 2)} | "
                         f"{fmt(ratios['long'], 2)} | {yes['short']} | {yes['medium']} |")
    lines.append("")
    # class x width
    lines += ["## Bounded slowdown by class x width (SCOJO-PECT / EASY / conservative)", ""]
    lines += ["| workload | class | narrow | medium | wide |", "|---|---|---|---|---|"]
    for r in parts:
        p = r["policies"]
        for c in ("short", "medium", "long"):
            cells = []
            for wd in ("narrow", "medium", "wide"):
                vals = [p[k]["bsld_by_class_width"][c][wd] for k in ("scojo", "easy", "conservative")]
                njobs = p["scojo"]["jobs_by_class_width"][c][wd]
                cells.append("-" if njobs == 0 else " / ".join(fmt(x, 1) for x in vals) + f" ({njobs:,})")
            lines.append(f"| {r['workload']} | {c} | " + " | ".join(cells) + " |")
    lines += ["", "(jobs in the cell in brackets)", ""]
    lines += ["Figures: `bsld_by_class.png` (the first table as bars, log scale), `gantt_lublin71.png` (a 6 h "
              "window of the seed-71 run: nodes over time, slices shaded, switch overheads grey).", ""]
    (OUT / "README.md").write_text("\n".join(lines))
    figure(parts)
    from schedlab.report.gantt import gantt_figure
    from schedlab.sim.timeshare import simulate_scojo

    s = simulate_scojo(lublin(10_000, 128, seed=71), 128)
    gantt_figure(s, 400_000, 400_000 + 6 * 3600, OUT / "gantt_lublin71.png",
                 title="SCOJO-PECT on Lublin seed 71 (128 nodes): 6 h from t = 400,000 s")


def figure(parts) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from schedlab._atomic import save_figure_atomic

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5), sharey=True)
    pols = [p for p in POLICIES if all(p in r["policies"] for r in parts)]
    x = np.arange(len(parts))
    width = 0.8 / len(pols)
    for ax, c in zip(axes, ("short", "medium", "long")):
        for i, pol in enumerate(pols):
            vals = [r["policies"][pol]["bsld"][c] or np.nan for r in parts]
            ax.bar(x + (i - (len(pols) - 1) / 2) * width, vals, width=width, label=pol)
        ax.set_xticks(x, [r["workload"].replace("lublin-", "") for r in parts], rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_title(f"{c} jobs")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("mean bounded slowdown (bound 600 s)")
    axes[2].legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save_figure_atomic(fig, OUT / "bsld_by_class.png", dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="",
                        help="lublin, SDSC-BLUE, LANL-CM5, SDSC-BLUE-head20000 (first N jobs), lublin-seed71, ... or all")
    parser.add_argument("--report", action="store_true", help="assemble README.md, results.json and figures from the parts")
    args = parser.parse_args()
    from rich.progress import Progress

    (OUT / "parts").mkdir(parents=True, exist_ok=True)
    todo = names(args.workloads) if args.workloads else []
    with Progress() as bar:
        task = bar.add_task("experiments", total=len(todo) * len(POLICIES))

        def progress(text):
            bar.update(task, description=text, advance=0)

        for name in todo:
            t0 = time.perf_counter()
            res = run_one(name, lambda text: (progress(text), bar.advance(task)))
            (OUT / "parts" / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
            bar.console.print(f"{name}: {time.perf_counter() - t0:.1f} s")
    if args.report:
        report()


if __name__ == "__main__":
    main()
