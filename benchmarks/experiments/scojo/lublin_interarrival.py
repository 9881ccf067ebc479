"""Issue 33 item 7: is the thesis' Table 5 inter-arrival time of seed 73 (797 s; ours 1,068 s) inside
the spread of the Lublin model's random stream? Prints the mean inter-arrival time (table5_row's
definition: last submit / jobs) of 10,000-job typeless workloads on 128 nodes for seeds 1..N, its
percentiles, where each of the thesis' five values falls, and our five seeds::

    python benchmarks/experiments/scojo/lublin_interarrival.py            # 50 seeds, ~2 s
    python benchmarks/experiments/scojo/lublin_interarrival.py --seeds 200
    python benchmarks/experiments/scojo/lublin_interarrival.py --arar 1   # the rush-hour shape without the ARAR factor
    python benchmarks/experiments/scojo/lublin_interarrival.py --start-hour 8
"""

from __future__ import annotations

import argparse

import numpy as np

from scojo_experiments import SEEDS, THESIS_TABLE5


def interarrival(seed: int, jobs: int = 10_000, arar: float | None = None, start_hour: int = 0,
                 gaps: bool = False) -> float:
    """table5_row's inter-arrival (last submit / jobs) of the seed's workload, or with ``gaps`` the
    mean gap (last - first) / (jobs - 1); ``arar`` replaces the typeless set's ARAR (1.0225), the
    factor m_lublin99.c multiplies the rush-hour shape AARR by; ``start_hour`` the day's start."""
    from dataclasses import replace

    from schedlab.workload.lublin import PARAMETER_SETS, lublin_columns

    p = PARAMETER_SETS["typeless"]
    if arar is not None:
        p = replace(p, arar=arar)
    sub = lublin_columns(jobs, 128, seed=seed, params=p, start_hour=start_hour)["submit"]
    return float((sub[-1] - sub[0]) / (jobs - 1) if gaps else sub[-1] / jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50, help="seeds 1..N (default 50)")
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--arar", type=float, default=None, help="replace ARAR (default: the model's 1.0225)")
    ap.add_argument("--start-hour", type=int, default=0, help="hour of day at time 0 (C default 0)")
    a = ap.parse_args()
    vals = np.array([interarrival(s, a.jobs, a.arar, a.start_hour) for s in range(1, a.seeds + 1)])
    q = np.percentile(vals, [0, 5, 25, 50, 75, 95, 100])
    arar = ("" if a.arar is None else f", ARAR = {a.arar}") + (f", day starts {a.start_hour}:00" if a.start_hour else "")
    print(f"mean inter-arrival of {a.jobs:,}-job typeless Lublin workloads{arar}, seeds 1..{a.seeds} (s):")
    print(f"  mean {vals.mean():,.0f}  sd {vals.std(ddof=1):,.0f}  (cv {vals.std(ddof=1) / vals.mean():.1%})")
    print("  min / 5 % / 25 % / median / 75 % / 95 % / max: " + " / ".join(f"{v:,.0f}" for v in q))
    print("thesis Table 5 vs ours (same seed number, different random stream):")
    for s in SEEDS:
        th = THESIS_TABLE5[s][-1]
        ours = interarrival(s, a.jobs, a.arar, a.start_hour)
        below = (vals <= th).mean()
        print(f"  seed {s:>2}: thesis {th:>5,} s (share of our {a.seeds} seeds at or below it: {below:5.1%})"
              f"   ours {ours:,.0f} s (at or below: {(vals <= ours).mean():5.1%})")
    gaps = np.array([interarrival(s, a.jobs, a.arar, a.start_hour, gaps=True) for s in range(1, a.seeds + 1)])
    print(f"the same seeds as mean gap (last - first) / (jobs - 1): mean {gaps.mean():,.0f} s")
    th_mean = np.mean([THESIS_TABLE5[s][-1] for s in SEEDS])
    sd5 = vals.std(ddof=1) / np.sqrt(len(SEEDS))
    print(f"thesis' five values: mean {th_mean:,.0f} s; a mean of 5 of ours: {vals.mean():,.0f} +- {sd5:,.0f} s (1 sd);"
          f" z = {(th_mean - vals.mean()) / sd5:+.1f}")


if __name__ == "__main__":
    main()
