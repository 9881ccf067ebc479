"""Speed of a user's own policy (issue 36 Must-show): EASY with a user's static order ('smallest
estimated area first') and a user's dynamic order ('largest wait x processors first', recomputed
for every waiting job at every pass, as the greedy order's criteria), both registered from a plugin
file outside the package, beside EASY with the built-in ``estimate``, ``submit`` and greedy (f2,
dynamic) orders; and a user's dispatch rule ('start every job that fits', the same schedule as the
built-in ``list``) beside ``list``; on CTC-SP2 (430 processors, as bench_sim.py).

Each strategy gets one warm-up run (compilation or cache load; its schedule is validated), then
``--repeat`` rounds; a round times each strategy once, in turn, so that a busy machine slows all
of them alike; the table gives each median and its ratio to the built-in it is measured beside
(same run)::

    python benchmarks/speed/bench_plugin.py --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sim import PROCS  # noqa: E402  (the same machine sizes)

#: the user's file outside the package: area (static), waitwidth (dynamic), firstfit (a rule)
PLUGIN = Path(__file__).resolve().parents[2] / "examples" / "my_policies.py"
#: label -> (dispatch, order, the built-in it is compared with); order "greedy" is greedy f2
RUNS = {
    "easy/area (user, static)": ("easy", "area", "easy/estimate"),
    "easy/waitwidth (user, dynamic)": ("easy", "waitwidth", "easy/greedy(f2)"),
    "easy/estimate": ("easy", "estimate", None),
    "easy/submit": ("easy", "submit", None),
    "easy/greedy(f2)": ("easy", "greedy", None),
    "firstfit (user rule)": ("firstfit", "submit", "list"),
    "list": ("list", "submit", None),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="CTC-SP2", help="a trace name or file (names: $SCHEDLAB_WORKLOADS, as every verb)")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds after the warm-up (>= 3)")
    args = ap.parse_args(argv)
    if args.repeat < 3:
        ap.error("--repeat must be at least 3 (the median of >= 3 runs)")
    import schedlab
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.strategy import Criterion, Strategy

    schedlab.load_plugin(PLUGIN)
    workload = schedlab.load_trace(args.trace)
    procs = next((m for name, m in PROCS.items() if Path(args.trace).name.startswith(name)), workload.machine_procs)
    machine = Machine(procs)
    f2 = Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0))  # compare's default greedy
    strategies = {label: Strategy.greedy(f2, dispatch=rule) if order == "greedy" else Strategy(rule, order)
                  for label, (rule, order, _) in RUNS.items()}
    for strategy in strategies.values():  # warm-up; every schedule checked once
        validate_schedule(simulate(workload, machine, strategy))
    times: dict[str, list[float]] = {label: [] for label in RUNS}
    for _ in range(args.repeat):
        for label, strategy in strategies.items():
            t0 = time.perf_counter()
            simulate(workload, machine, strategy)
            times[label].append(time.perf_counter() - t0)
    median = {label: statistics.median(t) for label, t in times.items()}
    print(f"{args.trace}: {len(workload)} jobs, {procs} processors, median of {args.repeat}")
    print(f"{'strategy':<32} {'median s':>9} {'min s':>8}  ratio to the built-in beside it")
    for label, (_, _, beside) in RUNS.items():
        ratio = f"{median[label] / median[beside]:.2f} x {beside}" if beside else ""
        print(f"{label:<32} {median[label]:>9.3f} {min(times[label]):>8.3f}  {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
