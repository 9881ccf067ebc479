"""GE Fig. 2 (issue 34 item 3): the CTC-trained greedy on another trace under readings of how that
trace was scaled and loaded. One line per reading: jobs, EASY and greedy (UTIL, AWRT1, AWRT2,
10*AWRT1+4*AWRT2) and the greedy's gain over EASY in %.

Readings (``--reading``, repeatable):
  ours        the set-up record's ge/fig2: scaled to 1024 and load-calibrated to EASY's UTIL on the
              original trace (q keeps GE Table I's job count)
  load:X      scaled to 1024 with f_adj = X * f (f = 1024/m; X = 1.05: 5 % more offered load than the
              exact ratio), q from GE Table I's job count
  q:Q         scaled to 1024 at f_adj = f with copy probability Q (0: every job enlarged, none copied;
              1: every job copied)
  unscaled    the trace on its own machine

    PYTHONPATH=src SCHEDLAB_WORKLOADS=../shared/workloads python benchmarks/experiments/ge/ge_fig2_readings.py \\
        KTH-SP2-1996-2.1-cln --reading ours --reading load:1.05 --reading q:0 --reading unscaled
"""

from __future__ import annotations

import argparse

from schedlab.metrics import compute_metrics
from schedlab.optimize.calibrate import rescale_workload
from schedlab.papers import get_setup
from schedlab.sim import Machine, simulate, validate_schedule
from schedlab.strategy import Strategy
from schedlab.workload import load_trace, scale


def reshaped(workload, reading: str):
    kind, _, value = reading.partition(":")
    target = get_setup("ge/fig2").scale_to
    f = target / workload.machine_procs
    if kind == "ours":
        return rescale_workload(workload, target, calibrate_load=True)
    if kind == "load":
        return scale(workload, target, f_adj=f * float(value))
    if kind == "q":
        return scale(workload, target, q=float(value))
    if kind == "unscaled":
        return workload
    raise SystemExit(f"error: unknown reading {reading!r}; ours, load:X, q:Q or unscaled")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--reading", action="append", default=[])
    ap.add_argument("--strategy", default=get_setup("ge/fig2").params["strategy"])
    args = ap.parse_args()
    greedy = Strategy.from_json(open(args.strategy).read())
    raw = load_trace(args.trace)
    for reading in args.reading or ["ours"]:
        w = reshaped(raw, reading)
        row = {}
        for name, strategy in (("EASY", Strategy("easy")), ("greedy", greedy)):
            schedule = simulate(w, Machine(w.machine_procs), strategy)
            validate_schedule(schedule)
            m = compute_metrics(schedule)
            row[name] = (m["UTIL"], m["AWRT1"], m["AWRT2"], 10 * m["AWRT1"] + 4 * m["AWRT2"])
        gain = 100 * (row["EASY"][3] - row["greedy"][3]) / row["EASY"][3]
        cells = " | ".join(f"{u:.2f} % / {a1:,.0f} / {a2:,.0f} / {o:,.0f}" for u, a1, a2, o in row.values())
        print(f"| {raw.name} | {reading} | {len(w):,} | {cells} | {gain:+.1f} |", flush=True)


if __name__ == "__main__":
    main()
