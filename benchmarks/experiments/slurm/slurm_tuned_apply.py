"""A tuned slurm.conf.fragment applied to the real slurmctld (issue 37, Must show, last clause).

A small case (schedlab.slurm.conformance.tuned_case: one 4-CPU node, partitions ``batch`` and
``high``, accounts ``g1`` and ``g2`` as user groups 1 and 2) is written as an SWF trace; ``evolve slurm`` tunes the priority weights and backfill
settings that slurmctld honours without slurmdbd (PriorityWeightJobSize, PriorityWeightPartition,
bf_window, bf_max_job_test; Slurm 22.05 drops PriorityWeightAge/Fairshare/QOS without the database,
see schedlab.slurm.harness.NEEDS_DBD) from the case's default configuration under
``10*AWRT1 + 4*AWRT2``; the run's ``slurm.conf.fragment`` replaces its keys' lines in the case's
slurm.conf (schedlab.slurm.tuning.merge_fragment), and the same job list runs through the real slurmctld (schedlab.slurm.harness) and
through ``--policy slurm`` with that configuration. Starts are compared as
benchmarks/experiments/slurm/slurm_conformance.py compares them (within max(bf_interval, 1) + 1 = 2 s, and counted from
the previous start in the real order); the default configuration's simulated order is shown too, so
a reader sees what the tuning changed::

    python benchmarks/experiments/slurm/slurm_tuned_apply.py --out docs/results/slurm-tuned/apply.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # slurm_conformance

PARAMS = "PriorityWeightJobSize,PriorityWeightPartition,bf_window,bf_max_job_test"
OBJECTIVE = "10*AWRT1 + 4*AWRT2"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int, default=10)
    ap.add_argument("--lam", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "slurm-tuned" / "apply.md"))
    args = ap.parse_args(argv)
    from slurm_conformance import LAG, mismatch_lines, no_slurm, publish

    from schedlab.optimize.evolve_slurm import SlurmTuneConfig, evolve_slurm
    from schedlab.slurm.conformance import CASE_TOL as TOL, TUNED_CASE_CONF as DEFAULT_CONF, compare, simulate_case
    from schedlab.slurm.conformance import start_order as order, tuned_case, write_case_trace
    from schedlab.slurm.harness import SlurmCluster
    from schedlab.slurm.tuning import merge_fragment
    from schedlab.workload.spec import TraceSpec

    if no_slurm():
        return 2
    t0 = time.monotonic()
    jobs = tuned_case()
    with tempfile.TemporaryDirectory(prefix="schedlab-tuned-apply-") as tmp:
        folder = Path(tmp)
        trace = write_case_trace(jobs, folder / "case.swf")
        (folder / "default.conf").write_text(DEFAULT_CONF)
        config = SlurmTuneConfig(traces=(str(trace),), slurm_conf=str(folder / "default.conf"), objective=OBJECTIVE,
                                 generations=args.generations, mu=max(1, args.lam // 2), lam=args.lam,
                                 optimizer="cmaes", seed=args.seed, params=PARAMS,
                                 trace_spec=TraceSpec(procs=4))
        result = evolve_slurm(config, folder / "run")
        fragment = (folder / "run" / "slurm.conf.fragment").read_text()
        comparison = result.comparison
    tuned_conf = merge_fragment(DEFAULT_CONF, fragment)
    default_sim = simulate_case(jobs, DEFAULT_CONF)
    sim = simulate_case(jobs, tuned_conf)
    with SlurmCluster(conf=tuned_conf, cpus=4) as cluster:
        real = cluster.run(jobs)
        ignored = list(cluster.ignored) if hasattr(cluster, "ignored") else []
    absolute, relative, same_order = compare(real, sim, TOL)
    off_abs = {j for j, _, _ in absolute}
    r0, s0 = float(real.submit.min()), float(sim.workload.submit.min())
    n = len(jobs)
    rows = []
    import numpy as np

    real_rank = {int(j): k for k, j in enumerate(np.lexsort((np.arange(n), np.round(real.start - r0))))}
    sim_rank = {int(j): k for k, j in enumerate(np.lexsort((np.arange(n), sim.start - s0)))}
    for i, job in enumerate(jobs):
        rows.append(f"| {i + 1} | {job.account} | {job.partition} | {job.cpus} | {job.runtime:g} | {job.submit:g} | "
                    f"{default_sim.start[i] - s0:g} | {sim.start[i] - s0:g} | {real.start[i] - r0:g} | "
                    f"{'yes' if real_rank[i] == sim_rank[i] else 'no'} | "
                    f"{'yes' if i not in off_abs else 'no'} |")
    notes = mismatch_lines(absolute, relative, first=1)
    minutes = (time.monotonic() - t0) / 60
    cmd = " ".join(["python", "benchmarks/experiments/slurm/slurm_tuned_apply.py", *(argv if argv is not None else sys.argv[1:])])
    train = [c for c in comparison if c.get("set", "train") in ("train", "training")] or comparison
    changed = order(default_sim) != order(sim)
    text = "\n".join([
        "# The tuned slurm.conf.fragment on the real slurmctld (Slurm 22.05, one 4-CPU node on 127.0.0.1)",
        "",
        f"Written by `{cmd}` on {dt.date.today().isoformat()} ({minutes:.1f} min; a shared 2-core machine).",
        f"`evolve slurm` (CMA-ES, {args.generations} generations x {args.lam}, seed {args.seed}, "
        f"`--params {PARAMS}`, objective `{OBJECTIVE}`, account g2 one heavy user, user group 1, account g1 light users, user group 2) tuned the case's",
        "default configuration below on the case itself (written as SWF); the fragment it wrote replaced its keys'",
        "lines in that configuration, and the same 12 jobs ran through the real slurmctld (schedlab.slurm.harness)",
        "and through `--policy slurm`. Only settings slurmctld honours without slurmdbd are searched: Slurm 22.05",
        "sets PriorityWeightAge and PriorityWeightFairshare to 0 without the database and has no QOS records, so",
        "the fragment's Age/Fairshare/QOS weights stay at the default's 0.",
        "",
        "## Default configuration (the case's slurm.conf)",
        "", "```", DEFAULT_CONF.rstrip(), "```",
        "",
        "## The fragment applied (slurm.conf.fragment of the run)",
        "", "```", fragment.rstrip(), "```",
        "",
        "## Objective on the case (simulated; `current` is the default configuration)",
        "",
        "| schedule | objective | AWRT1 s | AWRT2 s | AWRT s | UTIL % |",
        "|---|---|---|---|---|---|",
        *(f"| {c['schedule']} | {c['objective']:.1f} | {c['AWRT1']:.1f} | {c['AWRT2']:.1f} | {c['AWRT']:.1f} | "
          f"{c['UTIL']:.1f} |" for c in train),
        "",
        "## Starts (seconds from the first submission)",
        "",
        f"A start matches when the simulated one is within {TOL:g} s of the real one; 'same rank' compares the",
        "job's place in the start order (real ties by job number, starts rounded to the second).",
        "",
        "| job | account | partition | CPUs | runtime s | submit s | default sim start | tuned sim start | "
        "tuned real start | same rank | start match |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"- start order, default simulated: {order(default_sim)}",
        f"- start order, tuned simulated:   {order(sim)}",
        f"- start order, tuned real:        "
        f"{[int(k) + 1 for k in np.lexsort((np.arange(n), np.round(real.start - r0)))]}",
        f"- the tuning {'changed' if changed else 'did NOT change'} the simulated start order",
        f"- real and simulated start order with the tuned fragment: {'the same' if same_order else 'DIFFERENT'}",
        f"- starts within {TOL:g} s: {n - len(absolute)} of {n}; counted from the previous start: "
        f"{n - len(relative)} of {n}",
        *(f"- harness ignored: {x}" for x in ignored),
        "",
        "## Mismatches",
        "",
        "The absolute starts fall behind by the real Slurm's lag (below), which grows along the chain of jobs",
        "waiting for each other and varies from run to run with the machine's load, so the share within 2 s",
        "varies too; the start order and the starts counted from the previous start do not carry the lag.",
        "",
        *notes,
        "",
        LAG + ".",
        "",
    ])
    return publish(args.out, text)


if __name__ == "__main__":
    sys.exit(main())
