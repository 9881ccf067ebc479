"""Run folders made by the code at fc6410e (before configs held a TraceSpec), for tests/test_config_spec.py.

Made with that commit's code, in its own throwaway worktree, so it uses the flattened keywords of then:
    git worktree add /tmp/old main --detach   # main at fc6410e
    PYTHONPATH=/tmp/old/src python tests/data/old_runs/make_old.py tests/data/old_runs
(serial, bundled KTH-SP2; library versions in each config.json's "versions")."""
import sys, time
from pathlib import Path
out = Path(sys.argv[1])
which = sys.argv[2:] or ["greedy", "greedy-options", "rules", "slurm", "federation"]
CONF = "PriorityType=priority/multifactor\nSchedulerType=sched/backfill\nSchedulerParameters=bf_interval=30,bf_continue\n"
t = time.time()
if "greedy" in which:
    from schedlab.optimize.evolve import EvolveConfig, evolve_greedy
    evolve_greedy(EvolveConfig(traces=("KTH-SP2",), months=1, generations=1, mu=2, lam=2, seed=1), out / "greedy", executor="serial")
    print("greedy", time.time() - t, flush=True)
if "greedy-options" in which:
    from schedlab.optimize.evolve import EvolveConfig, evolve_greedy
    evolve_greedy(EvolveConfig(traces=("KTH-SP2",), objective="AWRT", months=2, split_months=1, scale_to=64, calibrate_load=True,
                               format="swf", test=("KTH-SP2",), dispatch="easy", generations=1, mu=2, lam=2, seed=1),
                  out / "greedy-options", executor="serial")
    print("greedy-options", time.time() - t, flush=True)
if "rules" in which:
    from schedlab.optimize import gfs
    from schedlab.optimize.evolve import EvolveConfig
    gfs.rules_evolve(EvolveConfig(traces=("KTH-SP2",), months=1, scale_to=64, generations=1, seed=2), out / "rules",
                     gfs.GFSSettings(rules=4, mu=12, lam=16, participations=2, k=3, n_best=2), executor="serial")
    print("rules", time.time() - t, flush=True)
if "slurm" in which:
    from schedlab.optimize.evolve_slurm import SlurmTuneConfig, evolve_slurm
    conf = out / "site.conf"
    conf.write_text(CONF)
    evolve_slurm(SlurmTuneConfig(traces=("KTH-SP2",), slurm_conf=str(conf), months=2, split_months=1, generations=1, mu=2,
                                 lam=2, slurm_option="queue_map=default", seed=3), out / "slurm", executor="serial")
    print("slurm", time.time() - t, flush=True)
if "federation" in which:
    from schedlab.federation import default_platform
    from schedlab.optimize.federation_ga import FederationGAConfig
    from schedlab.optimize.federation_run import FederationRunConfig, run_federation
    run_federation(FederationRunConfig(trace="KTH-SP2", method="ga-random", package_size=5, jobs=10, months=1, scale_to=64,
                                       format="swf", ga=FederationGAConfig(generations=2, pop=4, seed=1)),
                   default_platform(), out / "federation", executor="serial")
    print("federation", time.time() - t, flush=True)
