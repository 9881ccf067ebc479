"""Issue 33 items 3-5: the open readings of SCOJO-PECT and of its group optimiser, measured.

``plain``   item 4: plain SCOJO-PECT under each open reading of the engine (cycle length, shares by
            time of day, smart backfilling, slice order, suspension only when needed, the 60 s switch
            overhead) beside EASY and conservative backfilling, on one seed and on SDSC-BLUE's first
            10,000 jobs with exact estimates (definitions.md section 1b).
``sweep``   items 3 and 5: every group-formation reading of GroupConfig (and the bottom line on the
            thesis' groups under the same reading) on the five seeds, with and without smart
            backfilling.
``report``  docs/results/scojo-opt/readings.md from the parts.

One JSON file per run in docs/results/scojo-opt/readings-parts/ (a finished part is skipped), so the
runs can be made in short sections on a shared machine. From the repository root::

    PYTHONPATH=src python benchmarks/experiments/scojo/scojo_readings.py plain
    PYTHONPATH=src python benchmarks/experiments/scojo/scojo_readings.py sweep
    PYTHONPATH=src python benchmarks/experiments/scojo/scojo_readings.py report
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from scojo_experiments import CUTS, SEEDS, workload

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "docs" / "results" / "scojo-opt"
PARTS = OUT / "readings-parts"
#: the workload of item 4's plain runs besides one seed: SDSC-BLUE's first 10,000 jobs, exact estimates
SDSC = CUTS[0]

#: day shares of the illustrative time-of-day schedule: 08:00-18:00 (long, medium, short) favour the
#: medium class, the night keeps the thesis' vector (the original's schedule is not readable)
DAY = (0.5, 0.45, 0.05)
THESIS_SHARES = (0.73, 0.265, 0.005)
#: item 4: reading -> (ScojoConfig fields, what it reads)
PLAIN = {
    "default": ({}, "thesis / method-notes topic 5 defaults"),
    "cycle-1800": ({"cycle": 1800.0}, "cycle 1800 s (not in the thesis)"),
    "cycle-7200": ({"cycle": 7200.0}, "cycle 7200 s"),
    "shares-by-day": ({"share_schedule": tuple(DAY if 8 <= h < 18 else THESIS_SHARES for h in range(24))},
                      "shares L/M/S 50/45/5 % from 08:00 to 18:00, the thesis' at night"),
    "no-smart": ({"smart_backfill": False}, "a slice's idle nodes only for its own class"),
    "order-LMS": ({"order": "LMS"}, "slice order L -> M -> S (the other cyclic order)"),
    "suspend-needed": ({"suspend": "needed"}, "the outgoing class suspended only when its nodes are needed"),
    "overhead-0": ({"overhead": 0.0}, "no switch overhead"),
    "overhead-0+suspend-needed": ({"overhead": 0.0, "suspend": "needed"}, "both"),
    "shares-work": (None, "shares L/M/S = the workload's own work by class (the thesis' 73/26.5/0.5 % are "
                          "its Lublin work mix, method-notes topic 5)"),
}


def work_shares(w) -> tuple[float, float, float]:
    """The workload's work (run time x processors) by class, as (long, medium, short) shares: the
    ``shares-work`` reading (classes by estimate, as the engine's)."""
    import numpy as np
    from schedlab.sim.timeshare import ScojoConfig

    work = np.bincount(ScojoConfig().classify(w.estimate), weights=w.runtime * w.procs, minlength=3)
    short, medium, long_ = work / work.sum()
    return (float(long_), float(medium), float(short))
#: items 2 and 5: group-formation reading -> GroupConfig fields. The sweep was made on the defaults
#: before issue 33 (``group_end="started"``): every other row is its reading on top of that base;
#: ``group_end=finish`` is today's default (the reading of Fig. 6 and 6.3.3, chosen in readings.md)
BASE = {"group_end": "started"}
READINGS = {
    "group_end=started": BASE,
    "group_end=finish": {},
    "form_at=submit": {**BASE, "form_at": "submit"},
    "form_at=slice_start": {**BASE, "form_at": "slice_start"},
    "form_class=both": {**BASE, "form_class": "both"},
    "criteria_scope=group": {**BASE, "criteria_scope": "group"},
    "size_factor=1,1": {**BASE, "size_factor": (1.0, 1.0)},
    "runtime_rule=work_mean": {**BASE, "runtime_rule": "work_mean"},
    "runtime_rule=mean_below": {**BASE, "runtime_rule": "mean_below"},
    "min_rule=more_than": {**BASE, "min_rule": "more_than"},
    "take=lsf": {**BASE, "take": "lsf"},
    "take=wide_first": {**BASE, "take": "wide_first"},
    "join": {**BASE, "join": True},
    "plan_nodes=any_held": {**BASE, "plan_nodes": "any_held"},
    "finish_rule=off": {**BASE, "finish_rule": False},
    # the two closest to Tables 7 and 9 in one dimension each, together
    "form_at=submit+finish_rule=off": {**BASE, "form_at": "submit", "finish_rule": False},
    "min_rule=more_than+finish_rule=off": {**BASE, "min_rule": "more_than", "finish_rule": False},
}
#: thesis Tables 7 (with smart backfilling) and 9 (without): seed -> (medium groups, long groups, %)
T7 = {71: (24, 31, 17), 35: (23, 38, 19), 31: (20, 39, 18), 73: (30, 29, 18), 7: (37, 32, 23)}
T9 = {71: (39, 33, 25.5), 35: (34, 39, 26), 31: (35, 46, 30), 73: (40, 32, 25.5), 7: (41, 32, 26)}
T8 = {71: 4, 31: 4, 35: 9, 73: 5, 7: 5}
BEGIN, END = "<!-- tables: python benchmarks/experiments/scojo/scojo_readings.py report -->", "<!-- end of tables -->"


def setup(name: str):
    """(workload, processors) of a set-up name: ``lublin-seedN`` or ``SDSC-BLUE-head10000-exact``
    (scojo_experiments.workload)."""
    return workload(name)


def measure(w, m, cfg=None, rigid: str | None = None) -> dict:
    """Run one schedule (SCOJO-PECT with ``cfg`` or the rigid policy ``rigid``), validate it (rule 6
    included), and return its figures."""
    from schedlab.metrics import compute_metrics
    from schedlab.metrics.timeshare import BSLD_BOUND, timeshare_metrics
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.sim.timeshare import simulate_scojo
    from schedlab.strategy import Strategy

    t0 = time.perf_counter()
    s = simulate(w, Machine(m), Strategy(rigid)) if rigid else simulate_scojo(w, m, cfg)
    sim_s = time.perf_counter() - t0
    validate_schedule(s)
    basic = compute_metrics(s, bound=BSLD_BOUND)
    ts = timeshare_metrics(s)
    out = {"UTIL": basic["UTIL"], "mean_bsld": basic["mean_bounded_slowdown"], "bsld": ts["bsld"],
           "sim_seconds": sim_s, "validated": True}
    if not rigid and s.timeshare.search_stats is not None:
        st = dict(s.timeshare.search_stats)
        groupable = int((s.timeshare.job_class >= 1).sum())  # medium + long jobs, the engine's classes
        st["pct_all"] = 100.0 * st["grouped_jobs"] / len(w)
        st["pct_ml"] = 100.0 * st["grouped_jobs"] / groupable if groupable else 0.0
        out["search"] = st
    return out


def _part(name: str, key: str, make) -> dict:
    path = PARTS / f"{name}__{key.replace('/', '_').replace('=', '-').replace(',', '_')}.json"
    if path.exists():
        return json.loads(path.read_text())
    rec = {"workload": name, "run": key, **make()}
    PARTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=1) + "\n")
    print(f"{name} {key}: {rec['sim_seconds']:.1f} s", flush=True)
    return rec


def plain(names: list[str]) -> None:
    from schedlab.sim.timeshare import ScojoConfig

    for name in names:
        w, m = setup(name)
        for rigid in ("easy", "conservative"):
            _part(name, f"rigid/{rigid}", lambda: measure(w, m, rigid=rigid))
        for key, (kw, _) in PLAIN.items():
            kw = {"shares": work_shares(w)} if kw is None else kw
            _part(name, f"plain/{key}", lambda: measure(w, m, ScojoConfig(**kw)))


def sweep(names: list[str], readings: list[str]) -> None:
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
    from schedlab.sim.timeshare import ScojoConfig

    for name in names:
        w, m = setup(name)
        for smart in (True, False):
            tag = "" if smart else "/no-smart"
            _part(name, f"plain/default{tag}", lambda: measure(w, m, ScojoConfig(smart_backfill=smart)))
            for key in readings:
                g = GroupConfig(**READINGS[key])
                _part(name, f"opt/{key}{tag}", lambda: measure(w, m, ScojoConfig(smart_backfill=smart, optimizer=g)))
                bl = BottomLineConfig(scope="group", group=g)
                _part(name, f"bl-group/{key}{tag}",
                      lambda: measure(w, m, ScojoConfig(smart_backfill=smart, optimizer=bl)))


# ------------------------------------------------------------------------------------------ report
def _load() -> dict:
    return {(r["workload"], r["run"]): r for r in (json.loads(p.read_text()) for p in sorted(PARTS.glob("*.json")))}


def _queue_bl(name: str, smart: bool) -> dict | None:
    """The committed bottom line, queue scope (docs/results/scojo-opt/parts; it has no group readings)."""
    p = OUT / "parts" / f"{name}__scojo-bottomline{'' if smart else '_no-smart'}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def _f(v, d=2):
    return "-" if v is None else f"{v:.{d}f}"


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def _plain_table(parts, name) -> list[str]:
    easy, cons = parts.get((name, "rigid/easy")), parts.get((name, "rigid/conservative"))
    if easy is None:
        return []
    best = {c: min(easy["bsld"][c], cons["bsld"][c]) for c in ("short", "medium", "long")}
    lines = [f"#### {name}", "",
             f"EASY: bsld S / M / L {easy['bsld']['short']:.2f} / {easy['bsld']['medium']:.2f} / "
             f"{easy['bsld']['long']:.2f}, mean {easy['mean_bsld']:.2f}, UTIL {easy['UTIL']:.1f} %; conservative: "
             f"{cons['bsld']['short']:.2f} / {cons['bsld']['medium']:.2f} / {cons['bsld']['long']:.2f}, mean "
             f"{cons['mean_bsld']:.2f}, UTIL {cons['UTIL']:.1f} %.", "",
             "| reading | what it reads | bsld short | bsld medium | bsld long | mean bsld | UTIL % | medium / better "
             "of EASY, cons. | long / better | medium vs default |", "|---|---|---|---|---|---|---|---|---|---|"]
    base = parts.get((name, "plain/default"))
    for key, (_, what) in PLAIN.items():
        r = parts.get((name, f"plain/{key}"))
        if r is None:
            continue
        b = r["bsld"]
        lines.append(f"| {key} | {what} | {b['short']:.2f} | {b['medium']:.2f} | {b['long']:.2f} | "
                     f"{r['mean_bsld']:.2f} | {r['UTIL']:.1f} | {_f(_ratio(b['medium'], best['medium']))} | "
                     f"{_f(_ratio(b['long'], best['long']))} | "
                     f"{_f(_ratio(b['medium'], base['bsld']['medium']) if base else None)} |")
    return lines + [""]


def _reading_rows(parts, smart: bool) -> list[str]:
    tag = "" if smart else "/no-smart"
    table = T7 if smart else T9
    names = [f"lublin-seed{s}" for s in SEEDS]
    lines = ["| reading | groups M / L (5 seeds) | % grouped of all | % grouped of M+L | thesis % | "
             "mean abs. gap % M+L | mean abs. gap groups | pruned share % | opt / plain: S / M / L / mean | "
             "opt / bottom line (group scope): M / L / mean | opt / bottom line (queue): mean | UTIL % opt |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in READINGS:
        rows = [(n, parts.get((n, f"opt/{key}{tag}")), parts.get((n, f"plain/default{tag}")),
                 parts.get((n, f"bl-group/{key}{tag}")), _queue_bl(n, smart)) for n in names]
        if any(r[1] is None for r in rows):
            continue
        st = [r[1]["search"] for r in rows]
        seeds = [int(n.split("seed")[1]) for n in names]
        gm = " ".join(f"{s['groups_medium']}/{s['groups_long']}" for s in st)
        gap_pct = _mean([abs(s["pct_ml"] - table[sd][2]) for s, sd in zip(st, seeds)])
        gap_g = _mean([abs(s["groups_medium"] - table[sd][0]) + abs(s["groups_long"] - table[sd][1])
                       for s, sd in zip(st, seeds)])

        def rat(i, c):
            return _mean([_ratio(r[1]["bsld"][c] if c != "mean" else r[1]["mean_bsld"],
                                 (r[i]["bsld"][c] if c != "mean" else r[i]["mean_bsld"]) if r[i] else None)
                          for r in rows])

        pct_all = " ".join(f"{s['pct_all']:.1f}" for s in st)
        pct_ml = " ".join(f"{s['pct_ml']:.1f}" for s in st)
        thesis = " ".join(str(table[sd][2]) for sd in seeds)
        lines.append(
            f"| {key} | {gm} | {pct_all} | {pct_ml} | {thesis} | "
            f"{gap_pct:.1f} | {gap_g:.1f} | {100 * _mean([s['pruned_share'] for s in st]):.1f} | "
            f"{_f(rat(2, 'short'))} / {_f(rat(2, 'medium'))} / {_f(rat(2, 'long'))} / {_f(rat(2, 'mean'))} | "
            f"{_f(rat(3, 'medium'))} / {_f(rat(3, 'long'))} / {_f(rat(3, 'mean'))} | {_f(rat(4, 'mean'))} | "
            f"{_mean([r[1]['UTIL'] for r in rows]):.1f} |")
    return lines + [""]


#: thesis Tables 7 and 9 for the real traces: (medium groups, long groups, %)
REAL_T = {"SDSC-BLUE": ((9, 0, 3), (18, 9, 8)), "LANL-CM5": ((50, 11, 19), (81, 14, 36.5))}


def _real_rows(parts) -> list[str]:
    lines = ["| set-up | reading | smart backfilling | groups M / L | % of all | % of M+L | thesis M / L, % | "
             "pruned % | opt / plain mean bsld | opt / bottom line (group scope) mean bsld |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for base in REAL_T:
        name = f"{base}-head10000-exact"
        for key in READINGS:
            for smart in (True, False):
                tag = "" if smart else "/no-smart"
                r = parts.get((name, f"opt/{key}{tag}"))
                if r is None:
                    continue
                st = r["search"]
                gm, gl, pct = REAL_T[base][0 if smart else 1]
                pl, bl = parts.get((name, f"plain/default{tag}")), parts.get((name, f"bl-group/{key}{tag}"))
                lines.append(f"| {name} | {key} | {'on' if smart else 'off'} | {st['groups_medium']} / "
                             f"{st['groups_long']} | {st['pct_all']:.1f} | {st['pct_ml']:.1f} | {gm} / {gl}, {pct} | "
                             f"{100 * st['pruned_share']:.1f} | "
                             f"{_f(_ratio(r['mean_bsld'], pl['mean_bsld'] if pl else None))} | "
                             f"{_f(_ratio(r['mean_bsld'], bl['mean_bsld'] if bl else None))} |")
    return lines + [""]


def report() -> None:
    parts = _load()
    lines = ["Made by (from the repository root, `PYTHONPATH=src`, `SCHEDLAB_SHARED` pointing at the folder that "
             "holds `workloads/`):", "", "```",
             "python benchmarks/experiments/scojo/scojo_readings.py plain",
             "python benchmarks/experiments/scojo/scojo_readings.py plain --workloads LANL-CM5-head10000-exact",
             "python benchmarks/experiments/scojo/scojo_readings.py sweep",
             "python benchmarks/experiments/scojo/scojo_readings.py report", "```", "",
             "Every schedule passed the shared validator (rule 6, the plan replay, included). Bounded slowdown "
             "with bound 600 s, classes by run time as in `docs/results/scojo/`. Ratios are means over the five "
             "seeds of the per-seed ratio. Each run's figures are in `readings-parts/`.", ""]
    lines += ["### Plain SCOJO-PECT: the engine's open readings and the medium class (item 4)", ""]
    for name in ("lublin-seed71", *CUTS):
        lines += _plain_table(parts, name)
    lines += ["### Group-formation readings, five seeds (items 3 and 5)", "",
              "Groups per seed in the order 71 / 31 / 73 / 35 / 7 (medium / long). \"% of M+L\" is the percentage of "
              "the medium and long jobs (the definition the thesis' numbers support, definitions.md section 1). "
              "The gaps are to the thesis' Table 7 (with smart backfilling) or Table 9 (without), per seed, "
              "averaged. \"bottom line (group scope)\" is the bottom line searching the groups the same reading "
              "forms, with the same budget (10,000 schedules per decision); \"(queue)\" is the committed bottom line "
              "that searches the class's waiting queue at every pass (`docs/results/scojo-opt/parts`).", "",
              "#### With smart backfilling (thesis Tables 7, 8, Figs. 16-22, 40)", ""]
    lines += _reading_rows(parts, True)
    lines += ["#### Without smart backfilling (thesis Table 9, Fig. 41)", ""]
    lines += _reading_rows(parts, False)
    lines += ["### The thesis' real-trace set-ups (definitions.md section 1b: the first 10,000 jobs, exact "
              "estimates)", ""]
    lines += _real_rows(parts)
    doc = OUT / "readings.md"  # the tables go between the markers; the text around them is kept
    text = doc.read_text() if doc.exists() else f"{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    doc.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("plain", "sweep", "report"))
    ap.add_argument("--workloads", default=None,
                    help="comma-separated set-ups (lublin-seedN, SDSC-BLUE-head10000-exact, LANL-CM5-head10000-exact)")
    ap.add_argument("--readings", default="all", help="keys of READINGS separated by ';'")
    a = ap.parse_args()
    if a.what == "plain":
        plain(a.workloads.split(",") if a.workloads else ["lublin-seed71", SDSC])
    elif a.what == "sweep":
        readings = list(READINGS) if a.readings == "all" else a.readings.split(";")
        sweep(a.workloads.split(",") if a.workloads else [f"lublin-seed{s}" for s in SEEDS], readings)
    else:
        report()


if __name__ == "__main__":
    main()
