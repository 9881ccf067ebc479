"""Issue 33's nine gaps: print "ours now" for every row of the issue's table from the committed results
(no simulation): docs/results/scojo-opt/parts (the README's runs, scojo-opt re-run under the default
``group_end="finish"``), docs/results/scojo-opt/readings-parts (benchmarks/experiments/scojo/scojo_readings.py) and
docs/results/scojo/results.json (plain SCOJO-PECT against EASY / conservative, issue 12)::

    python benchmarks/experiments/scojo/scojo_gaps.py

The table with the thesis' values and the readings is docs/results/scojo-opt/gaps.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from scojo_experiments import SEEDS
from scojo_opt_experiments import _ml
from scojo_readings import PARTS, T7, T9, _mean

ROOT = Path(__file__).resolve().parents[3]
OPT = ROOT / "docs" / "results" / "scojo-opt"
CLASSES = ("short", "medium", "long")


def _part(name: str, policy: str) -> dict | None:
    p = OPT / "parts" / f"{name}__{policy.replace('/', '_')}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _reading(name: str, run: str) -> dict | None:
    p = PARTS / f"{name}__{run.replace('/', '_').replace('=', '-').replace(',', '_')}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _pct(a: float, b: float) -> str:
    return f"{100 * (a / b - 1):+.1f} %"


def groups(policy: str, table: dict) -> None:
    rows = []
    for s in SEEDS:
        r = _part(f"lublin-seed{s}", policy)
        st = r["search"]
        rows.append((s, st["groups_medium"], st["groups_long"], 100 * st["grouped_jobs"] / r["jobs"],
                     100 * st["grouped_jobs"] / _ml(r), table[s]))
    print(f"### {policy}: seeds " + " / ".join(str(s) for s, *_ in rows))
    print("- groups M+L: " + " / ".join(f"{m + lg} ({m}/{lg})" for _, m, lg, *_ in rows)
          + "; thesis " + " / ".join(f"{t[0] + t[1]} ({t[0]}/{t[1]})" for *_, t in rows))
    print("- % of all jobs: " + " / ".join(f"{a:.1f}" for *_, a, _, _ in rows))
    print("- % of medium + long jobs: " + " / ".join(f"{b:.1f}" for *_, b, _ in rows)
          + "; thesis " + " / ".join(str(t[2]) for *_, t in rows)
          + f"; mean abs. gap {_mean([abs(b - t[2]) for *_, b, t in rows]):.1f} points")


def main() -> None:
    print("## Rows 1-2: Tables 7 and 9 (committed scojo-opt parts)")
    groups("scojo-opt", T7)
    groups("scojo-opt/no-smart", T9)

    print("\n## Row 3: the real traces (whole: committed parts; first 10,000 jobs, exact: readings-parts)")
    for base in ("SDSC-BLUE", "LANL-CM5"):
        st = _part(base, "scojo-opt")["search"]
        cut = _reading(f"{base}-head10000-exact", "opt/group_end=finish")
        cs = cut["search"]
        print(f"- {base}: whole trace {st['groups']} groups ({st['groups_medium']}/{st['groups_long']}); "
              f"first 10,000 jobs, exact {cs['groups']} ({cs['groups_medium']}/{cs['groups_long']}), "
              f"{cs['pct_all']:.1f} % of all, {cs['pct_ml']:.1f} % of M+L")

    print("\n## Row 4: pruned share, scojo-opt (smart backfilling), seeds " + " / ".join(map(str, SEEDS)))
    print("- " + " / ".join(f"{100 * _part(f'lublin-seed{s}', 'scojo-opt')['search']['pruned_share']:.1f}"
                            for s in SEEDS) + " %")

    print("\n## Rows 5-6: scojo-opt against plain scojo (smart backfilling)")
    ch = {c: [] for c in CLASSES}
    for s in SEEDS:
        o, p = _part(f"lublin-seed{s}", "scojo-opt"), _part(f"lublin-seed{s}", "scojo")
        for c in CLASSES:
            ch[c].append(o["bsld"][c] / p["bsld"][c] - 1)
    print("- mean of the per-seed changes: " + ", ".join(f"{c} {100 * _mean(ch[c]):+.1f} %" for c in CLASSES))
    i = SEEDS.index(31)
    print("- seed 31: " + ", ".join(f"{c} {100 * ch[c][i]:+.1f} %" for c in CLASSES))
    plain31 = _reading("lublin-seed31", "plain/default")
    best = {c: min((r["bsld"][c] / plain31["bsld"][c] - 1, r["run"]) for r in
                   (json.loads(p.read_text()) for p in PARTS.glob("lublin-seed31__opt_*.json"))
                   if not r["run"].endswith("/no-smart")) for c in ("medium", "long")}
    print("- seed 31, best of every group-formation reading in readings-parts: "
          + ", ".join(f"{c} {100 * v:+.1f} % ({run})" for c, (v, run) in best.items()))

    print("\n## Row 7: scojo-opt / bottom line, mean bounded slowdown")
    for smart, tag in ((True, ""), (False, "/no-smart")):
        q = []
        for n in [f"lublin-seed{s}" for s in SEEDS] + ["SDSC-BLUE", "LANL-CM5"]:
            o, b = _part(n, f"scojo-opt{tag}"), _part(n, f"scojo-bottomline{tag}")
            if o is None or b is None:
                print(f"- (no committed part for {n} scojo-opt{tag} / scojo-bottomline{tag})")
                continue
            q.append(o["mean_bsld"] / b["mean_bsld"])
        g = [_reading(f"lublin-seed{s}", f"opt/group_end=finish{tag}")["mean_bsld"]
             / _reading(f"lublin-seed{s}", f"bl-group/group_end=finish{tag}")["mean_bsld"] for s in SEEDS]
        print(f"- smart backfilling {'on' if smart else 'off'}: queue scope (committed) {min(q):.2f}-{max(q):.2f}, "
              f"bottom line better on {sum(x > 1 for x in q)}/{len(q)}; group scope, five seeds: mean {_mean(g):.2f} "
              f"({min(g):.2f}-{max(g):.2f})")

    print("\n## Row 8: plain SCOJO-PECT against EASY / conservative (docs/results/scojo/results.json)")
    res = {r["workload"]: r["policies"] for r in json.loads((ROOT / "docs/results/scojo/results.json").read_text())}
    syn = [f"lublin-seed{s}" for s in SEEDS]
    print(f"- mean bsld vs EASY, synthetic mean: "
          f"{100 * _mean([res[n]['scojo']['mean_bsld'] / res[n]['easy']['mean_bsld'] - 1 for n in syn]):+.0f} %")
    for c in CLASSES:
        rs = [res[n]["scojo"]["bsld"][c] / min(res[n]["easy"]["bsld"][c], res[n]["conservative"]["bsld"][c])
              for n in syn]
        print(f"- {c}: scojo / better of EASY, conservative on the five seeds {min(rs):.2f}-{max(rs):.2f}")
    for n in ("SDSC-BLUE", "LANL-CM5"):
        r = res[n]
        print(f"- {n} (whole): mean bsld vs EASY {_pct(r['scojo']['mean_bsld'], r['easy']['mean_bsld'])}; "
              + ", ".join(f"{c} {r['scojo']['bsld'][c] / min(r['easy']['bsld'][c], r['conservative']['bsld'][c]):.2f}"
                          for c in CLASSES))
    for n in ("SDSC-BLUE-head10000-exact", "LANL-CM5-head10000-exact"):
        d, e, k = (_reading(n, x) for x in ("plain/default", "rigid/easy", "rigid/conservative"))
        if d is None or e is None:
            print(f"- {n}: not run (python benchmarks/experiments/scojo/scojo_readings.py plain --workloads {n})")
            continue
        runs = [json.loads(p.read_text()) for p in sorted(PARTS.glob(f"{n}__plain_*.json"))]
        for r in (d, min(runs, key=lambda r: r["mean_bsld"])):
            print(f"- {n}, {r['run']}: mean bsld vs EASY {_pct(r['mean_bsld'], e['mean_bsld'])}; "
                  + ", ".join(f"{c} {r['bsld'][c] / min(e['bsld'][c], k['bsld'][c]):.2f}" for c in CLASSES))


if __name__ == "__main__":
    main()
