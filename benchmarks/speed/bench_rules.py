"""Speed of the rule-based loop: one evaluation of a 50-rule fuzzy base vs one EASY simulation.

genetic-fuzzy-rule-based-scheduling, Must-show of issue 11: on CTC scaled to 1024 processors
(load-calibrated), the median of ``--repeat`` runs of each, measured in the same process, and
their ratio. Also the 192-class Table 2 base (standard strategy everywhere) and, for scale,
conservative. Run under the shared lock:

    python benchmarks/speed/bench_rules.py ../shared/workloads/CTC-SP2-1996-3.1-cln.swf.gz
    python benchmarks/speed/bench_rules.py ../shared/workloads/CTC-SP2-1996-3.1-cln.swf.gz \
        --base docs/results/rules/symbiotic-CTC/best.json       # a trained base beside them

A random base picks strategies at random, conservative among them (its cost is conservative's
share of the passes); a base whose rules all favour EASY measures the controller itself. The
issue's "50-rule base within 2x of one EASY simulation" is read on that last row: the same
strategy as the EASY row, so the ratio is what the rules, the features and the per-pass
switching cost. A base that picks conservative pays conservative's own cost (10x EASY here)
whatever the controller does, and a trained base pays for the queues its strategies build.
"""

from __future__ import annotations

import argparse

import numpy as np

from schedlab.cli.options import TraceOptions
from schedlab.sim import Machine, simulate
from schedlab.sim.rulebase import simulate_rulebase
from schedlab.strategy import Strategy
from schedlab.strategy import rules as R

from bench_grid import _median_time as median_time  # one warm-up, then the median of repeat timed runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--scale-to", type=int, default=1024)
    ap.add_argument("--no-calibrate", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rules", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--base", action="append", default=[], metavar="FILE", help="also time this rule base (JSON)")
    a = ap.parse_args()
    w = TraceOptions(scale_to=a.scale_to, calibrate_load=not a.no_calibrate).load(a.trace)
    m = Machine(w.machine_procs)
    rng = np.random.default_rng(a.seed)  # centres/widths as the symbiotic run draws its first rules
    fuzzy = R.FuzzyRuleBase(rng.uniform(0, 100, (a.rules, 7)), rng.uniform(1, 50, (a.rules, 7)),
                            rng.choice(R.LEVELS, (a.rules, 13)))
    table = R.TableRuleBase()
    easy = median_time(lambda: simulate(w, m, Strategy("easy")), a.repeat)
    rows = [("EASY (rigid engine)", easy)]
    rows.append((f"{a.rules}-rule fuzzy base", median_time(lambda: simulate_rulebase(w, m, fuzzy), a.repeat)))
    rows.append(("192-class table, FCFS+wait everywhere", median_time(lambda: simulate_rulebase(w, m, table), a.repeat)))
    only_easy = R.TableRuleBase(table.partitions, (R.strategy_index("easy/submit"),) * table.n_classes)
    rows.append(("192-class table, EASY everywhere", median_time(lambda: simulate_rulebase(w, m, only_easy), a.repeat)))
    rec = np.zeros((a.rules, 13))
    rec[:, R.strategy_index("easy/submit")] = 5.0
    easy_fuzzy = R.FuzzyRuleBase(fuzzy.centre, fuzzy.width, rec)
    rows.append((f"{a.rules}-rule fuzzy base, all favouring EASY", median_time(lambda: simulate_rulebase(w, m, easy_fuzzy),
                                                                             a.repeat)))
    for path in a.base:
        rb = R.load_rulebase(path)
        rows.append((f"{path} ({rb.n_rules if hasattr(rb, 'n_rules') else rb.n_classes} rules)",
                     median_time(lambda: simulate_rulebase(w, m, rb), a.repeat)))
        shares = simulate_rulebase(w, m, rb).plan.share()
        print(f"  {path}: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in sorted(shares.items(), key=lambda kv: -kv[1])))
    rows.append(("conservative (rigid engine)", median_time(lambda: simulate(w, m, Strategy("conservative")), a.repeat)))
    share = simulate_rulebase(w, m, fuzzy).plan.share()
    print(f"{w.name}: {len(w):,} jobs on {m.procs} processors; median of {a.repeat} runs each (same process)")
    for label, t in rows:
        print(f"  {label:40s} {t:8.3f} s   ratio to EASY {t / easy:5.2f}")
    print("  strategies the fuzzy base used: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in
                                                        sorted(share.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
