"""One tiny run folder of every kind the package writes, made once per test process by its verb.

``tests/test_plot_runs.py`` (``plot RUN``) and ``tests/test_report_write.py``
(``schedlab.report.write``) read the same folders; each made them on its own before, the same
commands twice per process. The folders are read-only to the tests (a test that changes one copies
it first).
"""

from __future__ import annotations

import json
from pathlib import Path

KTH = ["KTH-SP2", "--months", "1"]
CONF = "PriorityType=priority/multifactor\nSchedulerType=sched/backfill\nSchedulerParameters=bf_interval=30,bf_continue\n"
#: kind -> the command making a tiny run of it in folder --out ({hpc2n}, {parts}, {conf} filled in)
RUNS = {
    "greedy": ["evolve", "greedy", *KTH, "--generations", "1", "--mu", "2", "--lambda", "3", "--workers", "1"],
    "rules-symbiotic": ["rules", "evolve", *KTH, "--generations", "1", "--rules", "10", "--mu", "10", "--lambda", "10",
                        "--participations", "2", "--rho", "2", "--workers", "1"],
    "rules-iterative": ["rules", "iterative", *KTH, "--partitions", "{parts}", "--workers", "1"],
    "slurm-tune": ["evolve", "slurm", *KTH, "--slurm-conf", "{conf}", "--slurm-option", "queue_map=default",
                   "--generations", "1", "--lambda", "2", "--mu", "1", "--workers", "1"],
    "bound": ["bound", *KTH, "--generations", "2", "--pop", "4", "--workers", "1"],
    "grid-pareto": ["grid", "pareto", "--site", "KTH-SP2:100", "--site", "KTH-SP2:100", "--months", "1",
                    "--generations", "2", "--pop", "4", "--workers", "1"],
    "federation": ["federation", "run", "{hpc2n}", "--method", "ga-metl", "--package-size", "30", "--jobs", "60",
                   "--generations", "2", "--pop", "4"],
    "federation-compare": ["federation", "compare", "{hpc2n}", "--jobs", "30", "--workloads", "2", "--package-size", "30",
                           "--package-size", "15", "--methods", "jpr,metl"],
}


def make_runs(base: Path, hpc2n: Path) -> dict[str, Path]:
    """Run every command of :data:`RUNS` into ``base/KIND`` (kind -> folder); a failing verb fails here."""
    from schedlab.cli.main import main

    (base / "parts.json").write_text(json.dumps([[2.0], [75.0], [], [], [], [], []]))  # 4 situation classes
    (base / "site.conf").write_text(CONF)
    folders = {}
    for kind, argv in RUNS.items():
        argv = [a.format(hpc2n=hpc2n, parts=base / "parts.json", conf=base / "site.conf") for a in argv]
        assert main([*argv, "--out", str(base / kind)]) == 0, kind
        if kind != "federation-compare":  # a compare folder holds one run folder per workload and method
            assert json.loads((base / kind / "config.json").read_text())["kind"] == kind
        folders[kind] = base / kind
    return folders
