"""Speed of a user's queue order (issue 36 Must-show): EASY with 'smallest estimated area first',
registered from a plugin file outside the package, beside EASY with the built-in ``estimate`` and
``submit`` orders, on CTC-SP2 (430 processors, as bench_sim.py).

Each order gets one warm-up run (compilation or cache load), then ``--repeat`` rounds; a round
times each order once, in turn, so that a busy machine slows all of them alike; the table gives
each order's median and its ratio to the user order's median, measured in the same run::

    python benchmarks/bench_plugin.py --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sim import PROCS  # noqa: E402  (the same machine sizes)

PLUGIN = '''
from schedlab.strategy import register_order


@register_order("area", "smallest estimated area (processors x estimate) first")
def area(width, estimate, group, rank):
    return width * estimate
'''
ORDERS = ("area", "estimate", "submit")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="CTC-SP2", help="a trace name or file (names: $SCHEDLAB_WORKLOADS, as every verb)")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds after the warm-up (>= 3)")
    args = ap.parse_args(argv)
    if args.repeat < 3:
        ap.error("--repeat must be at least 3 (the median of >= 3 runs)")
    import schedlab
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.strategy import Strategy

    with tempfile.TemporaryDirectory() as folder:  # the plugin lives outside the package
        plugin = Path(folder) / "my_orders.py"
        plugin.write_text(PLUGIN)
        schedlab.load_plugin(plugin)
    workload = schedlab.load_trace(args.trace)
    procs = next((m for name, m in PROCS.items() if Path(args.trace).name.startswith(name)), workload.machine_procs)
    machine = Machine(procs)
    strategies = {order: Strategy("easy", order) for order in ORDERS}
    for strategy in strategies.values():  # warm-up; every schedule checked once
        validate_schedule(simulate(workload, machine, strategy))
    times: dict[str, list[float]] = {order: [] for order in ORDERS}
    for _ in range(args.repeat):
        for order, strategy in strategies.items():
            t0 = time.perf_counter()
            simulate(workload, machine, strategy)
            times[order].append(time.perf_counter() - t0)
    area = statistics.median(times["area"])
    print(f"{args.trace}: {len(workload)} jobs, {procs} processors, EASY, median of {args.repeat}")
    print(f"{'order':<10} {'median s':>9} {'min s':>8} {'area / this':>12}")
    for order in ORDERS:
        median = statistics.median(times[order])
        print(f"{order:<10} {median:>9.3f} {min(times[order]):>8.3f} {area / median:>12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
