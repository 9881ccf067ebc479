"""Issue 13 experiments: the group-optimised SCOJO-PECT against plain SCOJO-PECT and the bottom line
(thesis Figures 16-29 / 30-41, Tables 7-9 analogues) on the five synthetic Lublin workloads (seeds
71, 31, 73, 35, 7; 10,000 jobs, 128 processors), SDSC-BLUE (1152) and LANL-CM5 (1024).

One JSON file per (workload, policy) in OUT/parts/ (resumable: a finished part is skipped; run it
in short sections if you like); ``--report`` assembles OUT/README.md, OUT/results.json
and the figures from whatever parts exist::

    nice -n 19 python benchmarks/experiments/scojo/scojo_opt_experiments.py --workloads lublin
    nice -n 19 python benchmarks/experiments/scojo/scojo_opt_experiments.py --workloads SDSC-BLUE,LANL-CM5
    python benchmarks/experiments/scojo/scojo_opt_experiments.py --report
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from scojo_definitions import THESIS_T7, THESIS_T9  # thesis Tables 7 / 9: (M groups, L groups, % grouped)
from scojo_experiments import REAL, SEEDS, fmt, names, workload

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "docs" / "results" / "scojo-opt"
#: policy -> (smart backfilling, optimizer kind, optimizer options)
POLICIES = {
    "scojo": (True, None, {}),
    "scojo-opt": (True, "opt", {}),
    "scojo-opt/first-level": (True, "opt", {"second_level": False}),
    "scojo-bottomline": (True, "bottomline", {}),
    "scojo/no-smart": (False, None, {}),
    "scojo-opt/no-smart": (False, "opt", {}),
    "scojo-bottomline/no-smart": (False, "bottomline", {}),
}
THESIS_T8 = {71: 4, 31: 4, 35: 9, 73: 5, 7: 5}


def config(policy: str):
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
    from schedlab.sim.timeshare import ScojoConfig

    smart, kind, kwargs = POLICIES[policy]
    opt = None if kind is None else (GroupConfig if kind == "opt" else BottomLineConfig)(**kwargs)
    return ScojoConfig(smart_backfill=smart, optimizer=opt)


def run_one(name: str, policy: str) -> dict:
    from schedlab.metrics import compute_metrics
    from schedlab.metrics.timeshare import BSLD_BOUND, timeshare_metrics
    from schedlab.sim import validate_schedule
    from schedlab.sim.timeshare import simulate_scojo

    w, m = workload(name)
    t0 = time.perf_counter()
    s = simulate_scojo(w, m, config(policy))
    sim_s = time.perf_counter() - t0
    validate_schedule(s)
    basic = compute_metrics(s, bound=BSLD_BOUND)
    ts = timeshare_metrics(s)
    return {"workload": name, "policy": policy, "jobs": len(w), "procs": m, "UTIL": basic["UTIL"],
            "mean_response": basic["mean_response"], "mean_wait": basic["mean_wait"],
            "mean_bsld": basic["mean_bounded_slowdown"],
            **{k: ts[k] for k in ("bsld", "bsld_by_class_width", "jobs_by_class_width", "response_by_class",
                                  "wait_by_class", "preemptions")},
            "search": s.timeshare.search_stats, "sim_seconds": sim_s, "validated": True}


def _runs(parts, wls, pols):
    """(workload, policy, result) of every existing run, workloads then policies in order."""
    for w in wls:
        for pol in pols:
            if pol in parts[w]:
                yield w, pol, parts[w][pol]


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def _ml(r: dict) -> int:
    """The run's medium + long jobs (the engine's classes)."""
    return sum(sum(r["jobs_by_class_width"][c].values()) for c in ("medium", "long"))


def _claims(parts) -> list[str]:
    """The thesis' claims on the five seeds under the current defaults: holds / does not hold, with figures."""
    seeds = [s for s in SEEDS if f"lublin-seed{s}" in parts]
    if not seeds:
        return []
    runs = {s: parts[f"lublin-seed{s}"] for s in seeds}

    def change(s, a, b, c):  # % change of scojo-opt against a baseline, one class
        ra, rb = runs[s].get(a), runs[s].get(b)
        return None if not (ra and rb) else 100 * (ra["bsld"][c] / rb["bsld"][c] - 1)

    def mean(xs):
        xs = [x for x in xs if x is not None]
        return sum(xs) / len(xs) if xs else float("nan")

    def grouped(pol, table):
        rows = [(runs[s][pol]["search"], runs[s][pol], table[s]) for s in seeds if pol in runs[s]]
        gap = mean([abs(100 * st["grouped_jobs"] / _ml(r) - t[2]) for st, r, t in rows])
        ours = "/".join(str(st["groups"]) for st, _, _ in rows)
        thesis = "/".join(str(t[0] + t[1]) for _, _, t in rows)
        pct = "/".join(f"{100 * st['grouped_jobs'] / _ml(r):.1f}" for st, r, _ in rows)
        ggap = mean([abs(st["groups"] - t[0] - t[1]) for st, _, t in rows])
        return gap, ours, thesis, pct, "/".join(str(t[2]) for _, _, t in rows), ggap

    med = mean([change(s, "scojo-opt", "scojo", "medium") for s in seeds])
    lon = mean([change(s, "scojo-opt", "scojo", "long") for s in seeds])
    du = [runs[s]["scojo"]["UTIL"] - runs[s]["scojo-opt"]["UTIL"] for s in seeds if "scojo-opt" in runs[s]]
    g7, g9 = grouped("scojo-opt", THESIS_T7), grouped("scojo-opt/no-smart", THESIS_T9)
    pruned = [100 * runs[s]["scojo-opt"]["search"]["pruned_share"] for s in seeds if "scojo-opt" in runs[s]]
    L = ["### The thesis' claims under the current defaults (issue 33 item 6)", "",
         f"Lublin seeds {' / '.join(map(str, seeds))}, smart backfilling on unless said; \"mean\" is the mean of "
         "the per-seed changes. The readings behind each gap: `gaps.md`.", "",
         "| claim (thesis) | thesis | ours | holds? |", "|---|---|---|---|",
         f"| optimised vs plain, medium class (Figs. 16-22) | -9 % | {med:+.1f} % | "
         f"{'yes' if med <= -9 else 'no'} |",
         f"| optimised vs plain, long class (Figs. 16-22) | -15 % | {lon:+.1f} % | "
         f"{'yes' if lon <= -15 else 'no' if lon < 0 else 'no (worse)'} |",
         f"| utilization cost | < 2 % | at most {max(du):.2f} points | {'yes' if max(du) < 2 else 'no'} |"]
    if 31 in runs:
        m31, l31 = change(31, "scojo-opt", "scojo", "medium"), change(31, "scojo-opt", "scojo", "long")
        L.append(f"| Fig. 16, seed 31: medium / long | -49 % / -26 % | {m31:+.1f} % / {l31:+.1f} % | "
                 f"{'yes' if m31 <= -49 and l31 <= -26 else 'no'} |")
    L += [f"| groups formed, Table 7 (seeds) | {g7[2]} | {g7[1]} (mean gap {g7[5]:.1f} groups) | "
          f"{'roughly' if g7[5] < 5 else 'no'} |",
          f"| % of M+L jobs grouped, Table 7 | {g7[4]} | {g7[3]} (mean gap {g7[0]:.1f} points) | "
          f"{'roughly' if g7[0] < 3.5 else 'no'} |",
          f"| groups formed, Table 9 (no smart backfilling) | {g9[2]} | {g9[1]} (mean gap {g9[5]:.1f} groups) | "
          f"{'roughly' if g9[5] < 5 else 'no'} |",
          f"| % of M+L jobs grouped, Table 9 | {g9[4]} | {g9[3]} (mean gap {g9[0]:.1f} points) | "
          f"{'roughly' if g9[0] < 3.5 else 'no'} |",
          f"| share of nodes pruned, Table 8 | 4-9 % | {min(pruned):.1f}-{max(pruned):.1f} % | "
          f"{'yes' if max(pruned) <= 9 else 'no'} |"]
    for tag, smart in (("", "on"), ("/no-smart", "off")):
        q = [runs[s][f"scojo-opt{tag}"]["mean_bsld"] / runs[s][f"scojo-bottomline{tag}"]["mean_bsld"]
             for s in seeds if f"scojo-bottomline{tag}" in runs[s] and f"scojo-opt{tag}" in runs[s]]
        g = []
        for s in seeds:
            f = [OUT / "readings-parts" / f"lublin-seed{s}__{k}_group_end-finish{tag.replace('/', '_')}.json"
                 for k in ("opt", "bl-group")]
            if all(x.exists() for x in f):
                o, b = (json.loads(x.read_text()) for x in f)
                g.append(o["mean_bsld"] / b["mean_bsld"])
        if q:
            L.append(f"| optimised vs bottom line, queue scope (committed runs), smart backfilling {smart} "
                     f"(Fig. {40 if smart == 'on' else 41}) | ~0.9 | {min(q):.2f}-{max(q):.2f}, bottom line "
                     f"better on {sum(x > 1 for x in q)}/{len(q)} seeds | {'yes' if max(q) <= 0.95 else 'no'} |")
        if g:
            gm = mean(g)
            L.append(f"| the same, bottom line in group scope (readings.md item 3), smart backfilling {smart} | "
                     f"~0.9 | mean {gm:.2f} ({min(g):.2f}-{max(g):.2f}) | "
                     f"{'yes' if gm <= 0.95 else 'no (a tie)' if gm <= 1.02 else 'no'} |")
    return L + [""]


def report() -> None:
    parts = {}
    for p in sorted((OUT / "parts").glob("*.json")):
        r = json.loads(p.read_text())
        parts.setdefault(r["workload"], {})[r["policy"]] = r
    order = [f"lublin-seed{s}" for s in SEEDS] + list(REAL)
    wls = [w for w in order if w in parts]
    (OUT / "results.json").write_text(json.dumps([parts[w] for w in wls], indent=1) + "\n")
    L = ["# Group-optimised SCOJO-PECT against plain SCOJO-PECT and the bottom line (issue 13)", ""]
    L += ["Made by (from the repository root), one process per workload x policy (a finished part is skipped, "
          "so the same commands resume); several runs at a time beside other work "
          "on a 2-core machine (the real-trace bottom-line runs take 6 to 48 CPU minutes each), so `sim s` are not benchmarks (see `benchmarks/speed/bench_scojo_opt.py`):",
          "", "```",
          "nice -n 19 python benchmarks/experiments/scojo/scojo_opt_experiments.py --workloads lublin,SDSC-BLUE,LANL-CM5 \\",
          "    --policies scojo,scojo-opt,scojo-opt/first-level,scojo/no-smart,scojo-opt/no-smart",
          "nice -n 19 python benchmarks/experiments/scojo/scojo_opt_experiments.py --workloads lublin \\",
          "    --policies scojo-bottomline,scojo-bottomline/no-smart",
          "nice -n 19 python benchmarks/experiments/scojo/scojo_opt_experiments.py --workloads LANL-CM5,SDSC-BLUE \\",
          "    --policies scojo-bottomline,scojo-bottomline/no-smart",
          "python benchmarks/experiments/scojo/scojo_opt_experiments.py --report", "```", ""]
    L += ["Policies: `scojo` = plain SCOJO-PECT (issue 12); `scojo-opt` = the thesis' group optimiser with the "
          "defaults of `GroupConfig` (L30/M20 groups, DDS, 10,000 schedules per decision, B&B, force shifting 1.5, "
          "weighted best-of-three 1.1/0.95/1.1, Fig. 8 group finish with delta 0.1 / minUtil 0.5, a group ending "
          "when its last planned job has started or its group-finish job has terminated: `group_end=\"finish\"`, "
          "the default since issue 33, see readings.md); "
          "`/first-level` = without the second search level; `scojo-bottomline` = DDS/LXF/dynB (method-notes "
          "topic 4, `BottomLineConfig`); `/no-smart` = smart backfilling off. Bounded slowdown with bound 600 s, "
          "classes by run time (short < 10 min <= medium < 3 h <= long), width narrow <= 10 % < medium <= 50 % < "
          "wide. Every schedule passed the shared validator as it stood when it was run; its rule 6 then only "
          "checked the engine's own count of passes in which a backfill delayed a planned job (0 in every run). "
          "Rule 6 now replays every committed plan against the schedule without that count "
          "(`schedlab.sim.validate_plans`): the `scojo-opt`, `scojo-opt/first-level` and `scojo-opt/no-smart` runs "
          "were re-run under it with the issue-33 default (readings.md, item 6). The plain `scojo` runs and the "
          "`scojo-bottomline` runs (queue scope) keep no plan and read no group reading; they were re-run under the "
          "current defaults and validator (after removing their parts, the commands above) and equal the committed "
          "ones in every figure but `sim s` (SDSC-BLUE `scojo-bottomline`: 1,886 s, and SDSC-BLUE "
          "`scojo-bottomline/no-smart`: 4,841 s, the two re-run last). The nine gaps of issue 33 to the "
          "thesis and the readings behind them: `gaps.md`.", ""]
    missing = [(w, p) for w in wls for p in POLICIES if p not in parts[w]]
    if missing:
        L += [f"**Incomplete**: {len(missing)} runs missing: " + ", ".join(f"{w} {p}" for w, p in missing), ""]
    # Table 7 / 9
    L += ["## Groups formed (thesis Tables 7 and 9)", "",
          "\"% of M+L\": of the medium + long jobs, the groupable ones (5.1.1), the denominator the thesis' own "
          "numbers support (definitions.md section 1); \"% of all\" cannot hold the thesis' percentages with "
          "groups of at most 20 / 30 jobs. Thesis: Table 7 (smart backfilling on), Table 9 (off); its SDSC-BLUE and "
          "LANL-CM5 rows are for its cuts (very likely the first 10,000 jobs, definitions.md section 1b), not the "
          "whole traces run here.", "",
          "| workload | smart backfilling | M groups | L groups | groups | % of all jobs | % of M+L jobs | "
          "thesis M / L | thesis % |",
          "|---|---|---|---|---|---|---|---|---|"]
    for w in wls:
        key = int(w.split("seed")[1]) if "seed" in w else w
        for pol, smart in (("scojo-opt", "on"), ("scojo-opt/no-smart", "off")):
            r = parts[w].get(pol)
            if r:
                st = r["search"]
                th = (THESIS_T7 if smart == "on" else THESIS_T9).get(key)
                L.append(f"| {w} | {smart} | {st['groups_medium']} | {st['groups_long']} | {st['groups']} | "
                         f"{100 * st['grouped_jobs'] / r['jobs']:.1f} | {100 * st['grouped_jobs'] / _ml(r):.1f} | "
                         f"{'-' if th is None else f'{th[0]} / {th[1]} | {th[2]}'} |" + (" - |" if th is None else ""))
    L.append("")
    # Table 8
    L += ["## Branch and bound (thesis Table 8)", "",
          "| workload | policy | explored nodes | pruned nodes | pruned % | schedules | searches | thesis % |",
          "|---|---|---|---|---|---|---|---|"]
    for w, pol, r in _runs(parts, wls, ("scojo-opt", "scojo-opt/first-level", "scojo-opt/no-smart")):
        key = int(w.split("seed")[1]) if "seed" in w else w
        st = r["search"]
        L.append(f"| {w} | {pol} | {st['explored_nodes']:,} | {st['pruned_nodes']:,} | "
                 f"{100 * st['pruned_share']:.1f} | {st['schedules']:,} | {st['searches']:,} | "
                 f"{THESIS_T8.get(key, '-') if pol == 'scojo-opt' else '-'} |")
    L.append("")
    # main table
    L += ["## Bounded slowdown per class, response, wait, utilization (thesis Figs. 16-26, 30-41)", "",
          "| workload | policy | BSLD short | BSLD medium | BSLD long | BSLD all | response s | wait s | UTIL % | sim s |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for w, pol, r in _runs(parts, wls, POLICIES):
        b = r["bsld"]
        L.append(f"| {w} | {pol} | {fmt(b['short'], 2)} | {fmt(b['medium'], 2)} | {fmt(b['long'], 2)} | "
                 f"{fmt(r['mean_bsld'], 2)} | {fmt(r['mean_response'], 0)} | {fmt(r['mean_wait'], 0)} | "
                 f"{fmt(r['UTIL'], 2)} | {fmt(r['sim_seconds'], 1)} |")
    L.append("")
    # the thesis' claims
    L += ["## The thesis' claims: 9 % (medium) and 15 % (long) better bounded slowdown, < 2 % utilization cost", "",
          "Change of scojo-opt against scojo (negative = better; utilization in points):", "",
          "| workload | smart backfilling | medium % | long % | short % | response % | wait % | UTIL points |",
          "|---|---|---|---|---|---|---|---|"]
    summary = {}
    for w in wls:
        for a, b, smart in (("scojo-opt", "scojo", "on"), ("scojo-opt/no-smart", "scojo/no-smart", "off")):
            ra, rb = parts[w].get(a), parts[w].get(b)
            if not (ra and rb):
                continue
            ch = {c: _ratio(ra["bsld"][c], rb["bsld"][c]) for c in ("short", "medium", "long")}
            ch["response"] = _ratio(ra["mean_response"], rb["mean_response"])
            ch["wait"] = _ratio(ra["mean_wait"], rb["mean_wait"])
            du = ra["UTIL"] - rb["UTIL"]
            summary.setdefault((smart, "seed" in w), []).append((ch, du))
            pc = {k: "-" if v is None else f"{100 * (v - 1):+.1f}" for k, v in ch.items()}
            L.append(f"| {w} | {smart} | {pc['medium']} | {pc['long']} | {pc['short']} | {pc['response']} | "
                     f"{pc['wait']} | {du:+.2f} |")
    L.append("")
    for (smart, synth), rows in sorted(summary.items()):
        med = [c["medium"] for c, _ in rows if c["medium"] is not None]
        lon = [c["long"] for c, _ in rows if c["long"] is not None]
        du = [d for _, d in rows]
        if med and lon:
            L.append(f"- {'synthetic' if synth else 'real traces'}, smart backfilling {smart}: mean change medium "
                     f"{100 * (sum(med) / len(med) - 1):+.1f} %, long {100 * (sum(lon) / len(lon) - 1):+.1f} %, "
                     f"utilization {sum(du) / len(du):+.2f} points over {len(rows)} workloads.")
    L.append("")
    L += _claims(parts)
    # bottom line
    L += ["## Optimised against the bottom line (thesis Figs. 40-41)", "",
          "Ratio scojo-opt / scojo-bottomline of the mean bounded slowdown (< 1: the optimiser is better):", "",
          "| workload | smart backfilling | short | medium | long | all |", "|---|---|---|---|---|---|"]
    for w in wls:
        for a, b, smart in (("scojo-opt", "scojo-bottomline", "on"),
                            ("scojo-opt/no-smart", "scojo-bottomline/no-smart", "off")):
            ra, rb = parts[w].get(a), parts[w].get(b)
            if ra and rb:
                cells = [fmt(_ratio(ra["bsld"][c], rb["bsld"][c]), 2) for c in ("short", "medium", "long")]
                L.append(f"| {w} | {smart} | " + " | ".join(cells) + f" | {fmt(_ratio(ra['mean_bsld'], rb['mean_bsld']), 2)} |")
    L.append("")
    L += ["Figures: `bsld_class_width.png` (bounded slowdown by class x width, scojo vs scojo-opt vs bottom line, "
          "smart backfilling on; thesis Figs. 16-22, 40), `bsld_class_width_nosmart.png` (the same without smart "
          "backfilling; Figs. 30-36, 41), `response_wait_util.png` (Figs. 23-26, 28-29).", ""]
    (OUT / "README.md").write_text("\n".join(L))
    figures(parts, wls)


def figures(parts, wls) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from schedlab._atomic import save_figure_atomic

    cells = [(c, wd) for c in ("short", "medium", "long") for wd in ("narrow", "medium", "wide")]
    for suffix, pols in (("", ("scojo", "scojo-opt", "scojo-opt/first-level", "scojo-bottomline")),
                         ("_nosmart", ("scojo/no-smart", "scojo-opt/no-smart", "scojo-bottomline/no-smart"))):
        fig, axes = plt.subplots(len(wls), 1, figsize=(12, 2.6 * len(wls)), squeeze=False)
        for ax, w in zip(axes[:, 0], wls):
            x = np.arange(len(cells))
            have = [p for p in pols if p in parts[w]]
            width = 0.8 / max(1, len(have))
            for i, pol in enumerate(have):
                vals = [parts[w][pol]["bsld_by_class_width"][c][wd] or np.nan for c, wd in cells]
                ax.bar(x + (i - (len(have) - 1) / 2) * width, vals, width=width, label=pol)
            ax.set_xticks(x, [f"{c[0].upper()}-{wd}" for c, wd in cells], fontsize=8)
            ax.set_yscale("log")
            ax.set_title(w, fontsize=9)
            ax.grid(axis="y", alpha=0.3)
            ax.set_ylabel("mean BSLD")
        axes[0, 0].legend(fontsize=7, ncol=4, loc="upper left")
        fig.tight_layout()
        save_figure_atomic(fig, OUT / f"bsld_class_width{suffix}.png", dpi=80)
        plt.close(fig)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    pols = [p for p in POLICIES]
    x = np.arange(len(wls))
    width = 0.8 / len(pols)
    for ax, (key, label) in zip(axes, (("mean_response", "mean response s"), ("mean_wait", "mean wait s"),
                                       ("UTIL", "utilization %"))):
        for i, pol in enumerate(pols):
            vals = [parts[w][pol][key] if pol in parts[w] else np.nan for w in wls]
            ax.bar(x + (i - (len(pols) - 1) / 2) * width, vals, width=width, label=pol)
        ax.set_xticks(x, [w.replace("lublin-", "") for w in wls], rotation=45, ha="right", fontsize=8)
        ax.set_title(label)
        ax.grid(axis="y", alpha=0.3)
        if key == "UTIL":
            ax.set_ylim(40, 100)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, ncol=len(pols), loc="lower center")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save_figure_atomic(fig, OUT / "response_wait_util.png", dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="", help="lublin, SDSC-BLUE, LANL-CM5, lublin-seed71, ... or all")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated subset of " + ", ".join(POLICIES))
    parser.add_argument("--report", action="store_true", help="assemble README.md, results.json and figures")
    args = parser.parse_args()
    from rich.progress import Progress

    pols = [p for p in args.policies.split(",") if p]
    bad = [p for p in pols if p not in POLICIES]
    if bad:
        raise SystemExit(f"unknown policies {bad}; choose from {', '.join(POLICIES)}")
    (OUT / "parts").mkdir(parents=True, exist_ok=True)
    todo = [(w, p) for w in (names(args.workloads) if args.workloads else []) for p in pols]
    todo = [(w, p) for w, p in todo if not (OUT / "parts" / f"{w}__{p.replace('/', '_')}.json").exists()]
    with Progress() as bar:
        task = bar.add_task("experiments", total=len(todo))
        for w, p in todo:
            bar.update(task, description=f"{w}: {p}")
            res = run_one(w, p)
            path = OUT / "parts" / f"{w}__{p.replace('/', '_')}.json"
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(res, indent=1) + "\n")
            tmp.replace(path)
            bar.console.print(f"{w} {p}: {res['sim_seconds']:.1f} s")
            bar.advance(task)
    if args.report:
        report()


if __name__ == "__main__":
    main()
