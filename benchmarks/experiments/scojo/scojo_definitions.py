"""Issue 33 item 1: how the thesis counts "% of jobs grouped" and which parts of SDSC-BLUE and
LANL-CM5 it likely ran. Three sections (docs/results/scojo-opt/definitions.md quotes their output)::

    python benchmarks/experiments/scojo/scojo_definitions.py grouped          # committed results only, no simulation
    python benchmarks/experiments/scojo/scojo_definitions.py groups           # 5 scojo-opt runs (~3 s each): group sizes
    python benchmarks/experiments/scojo/scojo_definitions.py groups --no-smart
    python benchmarks/experiments/scojo/scojo_definitions.py cuts             # month windows of the two traces (~5 s)
    python benchmarks/experiments/scojo/scojo_definitions.py cutruns          # scojo-opt on the first 10,000 jobs of each
    python benchmarks/experiments/scojo/scojo_definitions.py fig3grid         # Fig. 3 over a grid of slice lengths (~1 min)

``grouped``: our groups and grouped jobs (docs/results/scojo-opt/parts) as % of all jobs and of the
medium + long jobs, beside Tables 7 and 9; and what the thesis' own group counts allow: with
g_M medium groups of 10..20 jobs and g_L long groups of 5..30 (Section 7.2), the grouped jobs lie in
[10 g_M + 5 g_L, 20 g_M + 30 g_L], so a printed percentage is possible under a definition only if
its job count falls in that range (the denominators from Table 5: 10,000 jobs, N_med + N_long).

``groups``: the groups of our scojo-opt runs rebuilt from the plan record (a record whose plan jobs
are not all in the previous plan of its class starts a new group): groups, groups that keep at
least the minimum size after the group-finish cut, mean jobs per group, grouped jobs per class.

``cuts``: every window of 1, 2 or 3 calendar months (from the trace's start) and every block of
10,000 consecutive jobs (starting at every 1,000th) of SDSC-BLUE and LANL-CM5: class mix by run time (short < 600 s <= medium
< 10,800 s <= long, as Table 6), work shares, mean sizes, the ratio of long-narrow (> 8 h, <= 10 % of
the machine) to long jobs, and the offered load (work / (machine x window)); the windows with load
above 0.75 closest to Table 6's mix are listed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from scojo_experiments import REAL, SEEDS, THESIS_TABLE5, WORKLOADS

ROOT = Path(__file__).resolve().parents[3]
PARTS = ROOT / "docs" / "results" / "scojo-opt" / "parts"
#: thesis Table 7 (with smart backfilling) and Table 9 (without): (M groups, L groups, % grouped)
THESIS_T7 = {71: (24, 31, 17), 35: (23, 38, 19), 31: (20, 39, 18), 73: (30, 29, 18), 7: (37, 32, 23),
             "SDSC-BLUE": (9, 0, 3), "LANL-CM5": (50, 11, 19)}
THESIS_T9 = {31: (35, 46, 30), 35: (34, 39, 26), 71: (39, 33, 25.5), 73: (40, 32, 25.5), 7: (41, 32, 26),
             "SDSC-BLUE": (18, 9, 8), "LANL-CM5": (81, 14, 36.5)}
#: thesis Table 6: % of jobs short / medium / long, % of work, mean sizes, long-narrow / long
THESIS_T6 = {"SDSC-BLUE": ((73.7, 17.7, 8.6), (1, 15, 84), (34, 114, 112), 0.79),
             "LANL-CM5": ((61.5, 34.0, 4.5), (2, 41, 57), (74, 92, 244), 0.52)}
GROUP_MIN, GROUP_MAX = {"M": 10, "L": 5}, {"M": 20, "L": 30}


def _bounds(gm: int, gl: int) -> tuple[int, int]:
    return GROUP_MIN["M"] * gm + GROUP_MIN["L"] * gl, GROUP_MAX["M"] * gm + GROUP_MAX["L"] * gl


def grouped() -> None:
    print("## ours (committed parts): groups M / L, grouped jobs, % of all jobs, % of medium + long jobs")
    for policy, table in (("scojo-opt", THESIS_T7), ("scojo-opt_no-smart", THESIS_T9)):
        print(f"\n{policy}  (thesis {'Table 7' if table is THESIS_T7 else 'Table 9'})")
        print("| workload | ours M / L | grouped jobs | % of all | % of M+L | thesis M / L | thesis % |")
        print("|---|---|---|---|---|---|---|")
        for name in [f"lublin-seed{s}" for s in SEEDS] + list(REAL):
            r = json.loads((PARTS / f"{name}__{policy}.json").read_text())
            st = r["search"]
            ml = sum(sum(r["jobs_by_class_width"][c].values()) for c in ("medium", "long"))
            key = int(name.split("seed")[1]) if name.startswith("lublin") else name
            gm, gl, pct = table[key]
            print(f"| {name} | {st['groups_medium']} / {st['groups_long']} | {st['grouped_jobs']:,} | "
                  f"{100 * st['grouped_jobs'] / r['jobs']:.1f} | {100 * st['grouped_jobs'] / ml:.1f} | "
                  f"{gm} / {gl} | {pct} |")
    print("\n## what the thesis' own counts allow (synthetic seeds: 10,000 jobs, N_med + N_long from Table 5)")
    print("| table | seed | groups M / L | jobs in groups, min..max | % printed | jobs if of all | "
          "jobs if of M+L | of all possible? | of M+L possible? |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, table in (("7", THESIS_T7), ("9", THESIS_T9)):
        for s in SEEDS:
            gm, gl, pct = table[s]
            lo, hi = _bounds(gm, gl)
            ml = THESIS_TABLE5[s][1] + THESIS_TABLE5[s][2]
            # the printed % is rounded: allow +-0.5 percentage points (+-0.25 for the half-percent rows)
            tol = 0.25 if pct % 1 else 0.5
            j_all = (10_000 * (pct - tol) / 100, 10_000 * (pct + tol) / 100)
            j_ml = (100 * ml * (pct - tol) / 100, 100 * ml * (pct + tol) / 100)
            ok = lambda j: "yes" if j[1] >= lo and j[0] <= hi else "no"
            print(f"| {label} | {s} | {gm} / {gl} | {lo:,}..{hi:,} | {pct} | {j_all[0]:,.0f}..{j_all[1]:,.0f} | "
                  f"{j_ml[0]:,.0f}..{j_ml[1]:,.0f} | {ok(j_all)} | {ok(j_ml)} |")
    print("\n## real traces: job counts of a cut that make the printed % possible (N_med + N_long from Table 6)")
    for label, table in (("7", THESIS_T7), ("9", THESIS_T9)):
        for name, (mix, _, _, _) in THESIS_T6.items():
            gm, gl, pct = table[name]
            lo, hi = _bounds(gm, gl)
            tol = 0.25 if pct % 1 else 0.5
            ml = (mix[1] + mix[2]) / 100
            print(f"Table {label} {name}: {gm} / {gl} groups hold {lo:,}..{hi:,} jobs; {pct} % of all jobs -> "
                  f"{lo / ((pct + tol) / 100):,.0f}..{hi / ((pct - tol) / 100):,.0f} jobs in the cut; "
                  f"{pct} % of M+L -> {lo / ((pct + tol) / 100) / ml:,.0f}..{hi / ((pct - tol) / 100) / ml:,.0f} jobs")


def groups(smart: bool = True) -> None:
    from schedlab.sim import validate_schedule
    from schedlab.sim.scojo_opt import GroupConfig
    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
    from schedlab.workload.lublin import lublin

    print("| seed | groups (engine) | groups rebuilt | of them >= minimum size after the finish cut | "
          "mean jobs / group | grouped medium / medium jobs | grouped long / long jobs |")
    print("|---|---|---|---|---|---|---|")
    for seed in SEEDS:
        w = lublin(10_000, 128, seed=seed)
        s = simulate_scojo(w, 128, ScojoConfig(smart_backfill=smart, optimizer=GroupConfig()))
        validate_schedule(s)
        ts, p = s.timeshare, s.timeshare.plans
        cls = ts.job_class
        prev = {1: set(), 2: set()}
        sizes = []  # (class, jobs)
        for k in range(p.passes):
            c = int(p.cls[k])
            jobs = set(p.plan_job[p.plan_off[k]:p.plan_off[k + 1]].tolist())
            if not jobs <= prev[c]:
                sizes.append((c, len(jobs)))
            prev[c] = jobs
        full = sum(1 for c, n in sizes if n >= (GROUP_MIN["M"] if c == 1 else GROUP_MIN["L"]))
        grouped = np.unique(p.plan_job)
        gm, gl = (int(np.sum(cls[grouped] == k)) for k in (1, 2))
        nm, nl = (int(np.sum(cls == k)) for k in (1, 2))
        print(f"| {seed} | {ts.search_stats['groups']} | {len(sizes)} | {full} | "
              f"{np.mean([n for _, n in sizes]):.1f} | {gm} / {nm} ({100 * gm / nm:.1f} %) | "
              f"{gl} / {nl} ({100 * gl / nl:.1f} %) |")


def cutruns() -> None:
    """scojo-opt (with and without smart backfilling) on the first 10,000 jobs of each trace, with the
    trace's requested times as estimates (our committed set-up) and with exact estimates (thesis
    Section 5: "Actual job runtime information is available during job submission. Hence, we would
    not use user requested runtime estimates")."""
    from schedlab.sim import ScheduleInvalid, validate_schedule
    from schedlab.sim.scojo_opt import GroupConfig
    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo

    from scojo_experiments import workload

    notes = []

    print("| set-up | estimates | smart backfilling | groups M / L | grouped jobs | % of all | % of M+L | "
          "thesis M / L, % |")
    print("|---|---|---|---|---|---|---|---|")
    for name, exact, smart, table in ((n, e, sm, t) for n in REAL for e in (False, True)
                                      for sm, t in ((True, THESIS_T7), (False, THESIS_T9))):
        w, m = workload(f"{name}-head10000")
        if exact:
            w = w.replace(estimate=w.runtime)
        s = simulate_scojo(w, m, ScojoConfig(smart_backfill=smart, optimizer=GroupConfig()))
        try:
            validate_schedule(s)
            mark = ""
        except ScheduleInvalid as e:  # printed with the table, not hidden
            notes.append(f"{name}-head10000, {'exact' if exact else 'requested'} estimates, smart "
                         f"{'on' if smart else 'off'}: validator: {e}")
            mark = " (*)"
        st = s.timeshare.search_stats
        ml = int(np.sum(s.timeshare.job_class > 0))
        gm, gl, pct = table[name]
        print(f"| {name}-head10000 | {'exact' if exact else 'requested'} | {'on' if smart else 'off'} | "
              f"{st['groups_medium']} / {st['groups_long']} | "
              f"{st['grouped_jobs']} | {100 * st['grouped_jobs'] / len(w):.1f} | {100 * st['grouped_jobs'] / ml:.1f} | "
              f"{gm} / {gl}, {pct} |{mark}")
    for note in notes:
        print(f"(*) {note}")


#: thesis Table 1 (jobs 3-10): submit, runtime, size; tests/test_scojo_thesis_figures.py works Fig. 3 by hand
FIG3_TABLE1 = [(10, 65, 7), (35, 34, 3), (40, 9, 7), (41, 5, 2), (50, 5, 3), (75, 98, 4), (77, 80, 5), (90, 40, 6)]


def fig3grid() -> None:
    """Fig. 3 on 10 nodes for a grid of slice lengths (L, S, M) and of the jobs before Table 1 (J0
    medium, J1 long, J2 short 4 x 1): how many runs show the text's statements in order (J3 starts
    at 10 in an M slice; next L slice runs J1 and J3; next S slice starts J5, J6, J7 with J1 and J3
    off; next M slice resumes J3 at its start and starts J4), and of those how many also show
    "Job 8 starts immediately after job 4 is finished" (C5) and "Job 9 does not have to wait" (C6)."""
    import itertools

    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
    from schedlab.workload import Workload

    counts: dict = {}
    for L, S, M in itertools.product([2, 4, 5, 6, 8, 10, 15, 20], [2, 4, 6, 8, 10, 12, 15],
                                     [20, 25, 30, 31, 32, 34, 35, 40, 45]):
        for (r1, w1), (r0, w0) in itertools.product([(75, 1), (80, 2), (100, 2), (120, 2), (150, 3), (90, 3)],
                                                    [(10, 1), (12, 1), (20, 1)]):
            rows = [(0, r0, w0), (0, r1, w1), (0, 4, 1)] + FIG3_TABLE1
            sub, rt, wd = (list(c) for c in zip(*rows))
            wl = Workload.from_columns({"submit": sub, "runtime": rt, "estimate": rt, "procs": wd}, machine_procs=10)
            C = L + S + M
            s = simulate_scojo(wl, 10, ScojoConfig(shares=(L / C, M / C, S / C), cycle=float(C), min_slice=0.1,
                                                   overhead=0.0, short_bound=10.0, long_bound=70.0))
            key = _fig3_claims(s)
            counts[key] = counts.get(key, 0) + 1
    print(f"{sum(counts.values())} runs; statements 1-4 shown in {sum(v for k, v in counts.items() if k)} of them")
    for key, v in sorted(counts.items(), key=str):
        if key:
            print(f"  C5 (J8 at J4's end) {key[0]}, C6 (J9 does not wait) {key[1]}: {v} runs")


def _fig3_claims(s):
    """None unless the text's statements 1-4 hold; else (C5, C6) as booleans."""
    ts = s.timeshare
    sl = list(zip(ts.slice_class.tolist(), ts.slice_begin.tolist(), ts.slice_end.tolist()))
    iv = {j: [(a, b) for jj, a, b in zip(ts.iv_job, ts.iv_start, ts.iv_end) if jj == j] for j in range(11)}
    st = s.start
    here = [x for x in sl if x[1] <= st[3] < x[2]]
    if st[3] != 10 or not here or here[0][0] != 1 or sl.index(here[0]) + 3 >= len(sl):
        return None
    i = sl.index(here[0])
    Ls, Ss, Ms = sl[i + 1], sl[i + 2], sl[i + 3]
    if (Ls[0], Ss[0], Ms[0]) != (2, 0, 1):
        return None
    runs_in = lambda j, x: any(a < x[2] and b > x[1] for a, b in iv[j])
    if not (runs_in(1, Ls) and runs_in(3, Ls)) or not all(Ss[1] <= st[j] < Ss[2] for j in (5, 6, 7)):
        return None
    if any(a <= Ss[1] < b for j in (1, 3) for a, b in iv[j]):
        return None
    if not any(a == Ms[1] for a, _ in iv[3]) or st[4] != Ms[1]:
        return None
    return bool(st[8] == s.finish[4]), bool(st[9] <= max(77.0, st[8]))


def _mix(rt, size, m):
    cls = np.searchsorted([600.0, 10800.0], rt, side="right")
    work = rt * size
    n = [100 * np.mean(cls == c) for c in range(3)]
    wk = [100 * work[cls == c].sum() / work.sum() for c in range(3)]
    sz = [float(size[cls == c].mean()) if np.any(cls == c) else float("nan") for c in range(3)]
    long_ = cls == 2
    narrow = long_ & (rt > 8 * 3600) & (size <= 0.1 * m)
    return n, wk, sz, (narrow.sum() / long_.sum() if long_.any() else float("nan"))


def cuts(top: int) -> None:
    from datetime import datetime

    from schedlab.workload import load_trace
    from schedlab.workload.cut import add_months
    from schedlab.workload.timezone import trace_epoch, trace_zone

    for name, (path, m) in REAL.items():
        w = load_trace(str(WORKLOADS / path), procs=m).sorted_by_submit()
        sub, rt, size = w.submit, w.runtime.astype(float), w.procs.astype(float)
        zone, epoch = trace_zone(w), trace_epoch(w)
        start = datetime.fromtimestamp(epoch + min(0.0, float(np.floor(sub[0]))), tz=zone)
        edges = [add_months(start, k).timestamp() - epoch for k in range(0, 40)]
        edges = [e for e in edges if e <= sub[-1]] + [float(sub[-1]) + 1]
        rows = []
        for months in (1, 2, 3):
            for k in range(len(edges) - months):
                a, b = edges[k], edges[k + months]
                sel = (sub >= a) & (sub < b)
                if sel.sum() < 100:
                    continue
                label = f"{add_months(start, k):%Y-%m} +{months}mo"
                rows.append((label, sel, b - a))
        for k in range(0, len(sub) - 10_000 + 1, 1_000):
            sel = np.zeros(len(sub), bool)
            sel[k:k + 10_000] = True
            rows.append((f"jobs {k + 1}-{k + 10_000}", sel, float(sub[k + 9_999] - sub[k])))
        mix6, work6, size6, ln6 = THESIS_T6[name]
        out = []
        for label, sel, span in rows:
            n, wk, sz, ln = _mix(rt[sel], size[sel], m)
            load = float((rt[sel] * size[sel]).sum() / (m * span))
            dist = sum(abs(x - y) for x, y in zip(n, mix6))
            both = dist + sum(abs(x - y) for x, y in zip(wk, work6)) + sum(abs(x - y) for x, y in zip(sz, size6)) / 10
            out.append((dist, label, int(sel.sum()), span / 86400, load, n, wk, sz, ln, both))
        whole_n, whole_w, whole_s, whole_ln = _mix(rt, size, m)
        print(f"\n## {name} ({m} processors), Table 6: jobs {mix6} %, work {work6} %, sizes {size6}, "
              f"long-narrow/long {ln6}")
        print(f"whole trace: jobs {[round(float(x), 1) for x in whole_n]} %, work "
              f"{[round(float(x), 1) for x in whole_w]} %, sizes {[round(x) for x in whole_s]}, "
              f"long-narrow/long {whole_ln:.2f}, offered load "
              f"{(rt * size).sum() / (m * (sub[-1] - sub[0])):.2f}")
        print(f"windows with offered load > 0.75: {sum(1 for o in out if o[4] > 0.75)} of {len(out)}; "
              f"closest to Table 6's job mix (|dN| summed over the classes):")
        print("| window | jobs | days | load | N short / med / long % | W % | sizes | long-narrow/long | |dN| |")
        print("|---|---|---|---|---|---|---|---|---|")
        for dist, label, nj, days, load, n, wk, sz, ln, _ in sorted(o for o in out if o[4] > 0.75)[:top]:
            print(f"| {label} | {nj:,} | {days:.0f} | {load:.2f} | {n[0]:.1f} / {n[1]:.1f} / {n[2]:.1f} | "
                  f"{wk[0]:.0f} / {wk[1]:.0f} / {wk[2]:.0f} | {sz[0]:.0f} / {sz[1]:.0f} / {sz[2]:.0f} | {ln:.2f} | "
                  f"{dist:.1f} |")
        print("closest in jobs, work and sizes (|dN| + |dW| + |dS| / 10), load > 0.75:")
        for dist, label, nj, days, load, n, wk, sz, ln, _ in sorted((o for o in out if o[4] > 0.75),
                                                                   key=lambda o: o[-1])[:3]:
            print(f"| {label} | {nj:,} | {days:.0f} | {load:.2f} | {n[0]:.1f} / {n[1]:.1f} / {n[2]:.1f} | "
                  f"{wk[0]:.0f} / {wk[1]:.0f} / {wk[2]:.0f} | {sz[0]:.0f} / {sz[1]:.0f} / {sz[2]:.0f} | {ln:.2f} | "
                  f"{dist:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("section", choices=("grouped", "groups", "cuts", "cutruns", "fig3grid"))
    ap.add_argument("--no-smart", action="store_true", help="groups: without smart backfilling (Table 9)")
    ap.add_argument("--top", type=int, default=8, help="cuts: windows listed per trace")
    a = ap.parse_args()
    {"grouped": grouped, "groups": lambda: groups(not a.no_smart), "cuts": lambda: cuts(a.top), "cutruns": cutruns, "fig3grid": fig3grid}[a.section]()


if __name__ == "__main__":
    main()
