"""Group-optimised SCOJO-PECT speed (issue 13 "Must show": a whole optimised run on a 10,000-job
synthetic workload in under 5 minutes): median of ``--repeat`` timed runs after a warm-up (numba
compile or cache load), plain SCOJO-PECT and the bottom line on the same workload in the same run.

    python benchmarks/speed/bench_scojo_opt.py --repeat 3
    python benchmarks/speed/bench_scojo_opt.py --repeat 3 --policies scojo,scojo-opt-dds,scojo-opt-lds
    python benchmarks/speed/bench_scojo_opt.py --repeat 3 --policies scojo,scojo-opt-dds,scojo-bottomline-group
"""

from __future__ import annotations

import argparse

from bench_grid import _median_time as median_time  # one warm-up, then the median of repeat timed runs

TARGET = 300.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seeds", default="71", help="comma-separated Lublin seeds (10,000 jobs, 128 processors)")
    parser.add_argument("--policies", default="scojo,scojo-opt-dds,scojo-opt-lds,scojo-bottomline",
                        help="comma-separated subset (scojo first: the baseline of the ratio)")
    args = parser.parse_args()
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
    from schedlab.sim.timeshare import ScojoConfig, simulate_scojo
    from schedlab.workload.lublin import lublin

    configs = {"scojo": ScojoConfig(), "scojo-opt-dds": ScojoConfig(optimizer=GroupConfig()),
               "scojo-opt-lds": ScojoConfig(optimizer=GroupConfig(search="lds")),
               "scojo-bottomline": ScojoConfig(optimizer=BottomLineConfig()),
               # the bottom line on the optimiser's groups (readings.md item 3; issue 33's speed bar: < 30 s)
               "scojo-bottomline-group": ScojoConfig(optimizer=BottomLineConfig(scope="group", group=GroupConfig()))}
    configs = {k: configs[k] for k in args.policies.split(",")}
    print(f"{'workload':<22}{'policy':<24}{'seconds':>10}{'/ scojo':>10}{'target s':>10}  ok")
    for seed in (int(s) for s in args.seeds.split(",")):
        w = lublin(10_000, 128, seed=seed)
        base = None
        for name, cfg in configs.items():
            t = median_time(lambda: simulate_scojo(w, 128, cfg), args.repeat)
            base = base or t
            ok = "yes" if t < TARGET else "NO"
            print(f"{'lublin-10000-seed' + str(seed):<22}{name:<24}{t:>10.2f}{t / base:>10.1f}{TARGET:>10.0f}  {ok}")


if __name__ == "__main__":
    main()
