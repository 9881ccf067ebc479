"""Simulation speed: every dispatch rule (and greedy f2) on every trace of ../shared/workloads.

Each cell is the median of ``--repeat`` (>= 3) timed runs of ``schedlab.sim.simulate`` after one
warm-up run (numba compilation or cache load), on the trace as ``load_trace`` prepares it
(CTC-SP2 on 430 processors, as in the papers). With ``--accasim PYTHON`` it also runs AccaSim
(../shared/peers/accasim_run.py) on KTH-SP2 with FCFS and EASY and prints how many times faster
ours is in the same run. Quick check::

    python benchmarks/speed/bench_sim.py --traces KTH --repeat 3
    python benchmarks/speed/bench_sim.py --traces KTH --rules fcfs,easy --accasim /work/accasim-venv/bin/python

Targets of issue 3 are checked in the ``target`` column (EASY on CTC <= 0.1 s, on HPC2N <= 0.3 s,
greedy f2 on CTC <= 0.3 s, conservative on CTC <= 2 s, >= 500x AccaSim's EASY on KTH-SP2).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
WORKLOADS = SHARED / "workloads"
ACCASIM_RUNNER = SHARED / "peers" / "accasim_run.py"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"

#: machine sizes that differ from the trace header, as in the papers
#: machine sizes the papers/archive state where the header is silent or differs (CTC: the papers'
#: 430; RICC: MANIFEST.md, 1024 nodes x 8 cores; METACENTRUM: the archive's 806 processors) —
#: the same sizes as tests/test_engine_real_traces.py
PROCS = {"CTC-SP2": 430, "RICC": 8192, "METACENTRUM": 806}
RULES = ("fcfs", "list", "easy", "conservative", "greedy")
#: (trace prefix, rule) -> seconds, from issue 3 "Must show"
TARGETS = {("CTC-SP2", "easy"): 0.1, ("HPC2N", "easy"): 0.3, ("CTC-SP2", "greedy"): 0.3, ("CTC-SP2", "conservative"): 2.0}
ACCASIM_RATIO_TARGET = 500.0


def short_name(path: Path) -> str:
    """``CTC-SP2-1996-3.1-cln.swf.gz`` -> ``CTC-SP2`` (the name before the year)."""
    parts = path.name.split("-")
    for i, part in enumerate(parts):
        if part[:4].isdigit() and len(part) >= 4:
            return "-".join(parts[:i]) or path.name
    return path.name.removesuffix(".gz").removesuffix(".swf")


def strategy_of(rule: str):
    """A dispatch rule on a submit-ordered queue, or ``greedy``: f2 with aging, re-sorted at every event."""
    from schedlab.strategy import Criterion, Strategy

    if rule == "greedy":  # a > 0 and b > 0: a truly dynamic order (greedy-es-sorting-criteria f2)
        return Strategy.greedy(Criterion("f2", a=1e-5, b=1e-6, K=(5, 4, 3, 2, 1)))
    return Strategy(rule)


def time_rule(workload, procs: int, rule: str, repeat: int, *, kill: bool = True) -> dict:
    """Warm-up run, then ``repeat`` timed runs of simulate(): first, median, min (seconds)."""
    from schedlab.sim import simulate
    from schedlab.sim.model import Machine

    machine, strategy = Machine(procs), strategy_of(rule)
    t0 = time.perf_counter()
    simulate(workload, machine, strategy, kill=kill)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        simulate(workload, machine, strategy, kill=kill)
        times.append(time.perf_counter() - t0)
    return {"first": first, "median": statistics.median(times), "min": min(times)}


def run_accasim(python: str, dispatcher: str, timeout: float) -> dict:
    """One AccaSim run on KTH-SP2 (m from the header, processors = allocated, as ours): its JSON line."""
    cmd = [python, str(ACCASIM_RUNNER), str(WORKLOADS / KTH), "auto", dispatcher, "--procs-field", "allocated",
           "--timeout", str(int(timeout))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: AccaSim {dispatcher} failed (exit {proc.returncode}): {tail}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold_start(trace: str) -> float:
    """Seconds for a new process to print its first result (`schedlab simulate TRACE --json`)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())",
                    "simulate", trace, "--json"], check=True,
                   capture_output=True, cwd=ROOT)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="", help="comma-separated name fragments (default: every trace)")
    ap.add_argument("--rules", default=",".join(RULES), help=f"comma-separated, of {', '.join(RULES)}")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per cell after the warm-up (>= 3)")
    ap.add_argument("--accasim", metavar="PYTHON", help="python of a venv with accasim 1.1.3: also time AccaSim on KTH-SP2")
    ap.add_argument("--accasim-timeout", type=float, default=1800.0)
    ap.add_argument("--cold", action="store_true", help="also time a new process's first result (numba cache)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.repeat < 3:
        ap.error("--repeat must be at least 3 (the median of >= 3 runs)")
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        ap.error(f"unknown rules {unknown}; choose from {', '.join(RULES)}")
    wanted = [t.strip().lower() for t in args.traces.split(",") if t.strip()]
    paths = sorted(p for p in WORKLOADS.glob("*.swf.gz") if not wanted or any(w in p.name.lower() for w in wanted))
    if not paths:
        ap.error(f"no trace in {WORKLOADS} matches --traces {args.traces!r}")

    from rich.console import Console
    from rich.table import Table

    from schedlab.workload import load_trace

    console = Console(stderr=True)
    results = []
    for path in paths:
        name = short_name(path)
        with console.status(f"loading {name} ..."):
            workload = load_trace(str(path), procs=PROCS.get(name))
        procs = PROCS.get(name, workload.machine_procs)
        for rule in rules:
            with console.status(f"{name}: {rule} x {args.repeat + 1} ..."):
                t = time_rule(workload, procs, rule, args.repeat)
            target = TARGETS.get((name, rule))
            results.append({"trace": name, "jobs": len(workload), "procs": procs, "rule": rule, **t,
                            "jobs_per_s": len(workload) / t["median"], "target": target})

    accasim = []
    if args.accasim:
        workload = load_trace(str(WORKLOADS / KTH))
        for dispatcher, rule in (("FCFS", "fcfs"), ("EASY", "easy")):
            with console.status(f"AccaSim {dispatcher} on KTH-SP2 (slow) ..."):
                peer = run_accasim(args.accasim, dispatcher, args.accasim_timeout)
            with console.status(f"ours {rule} on KTH-SP2, no killing ..."):
                ours = time_rule(workload, workload.machine_procs, rule, args.repeat, kill=False)
            accasim.append({"rule": rule, "accasim_wall_s": peer["wall_s"], "accasim_sim_s": peer.get("accasim_sim_time_s"),
                            "accasim_jobs": peer.get("jobs_completed"), "ours_s": ours["median"],
                            "ratio_wall": peer["wall_s"] / ours["median"],
                            "ratio_sim": (peer["accasim_sim_time_s"] / ours["median"]) if peer.get("accasim_sim_time_s") else None})
    cold = cold_start("KTH-SP2") if args.cold else None

    out = Console()
    if not out.is_terminal:  # piped into a file or a note: do not squeeze the table into 80 columns
        out = Console(width=160)
    table = Table(title=f"simulate(): median of {args.repeat} runs after a warm-up (seconds)", header_style="bold")
    for col in ("trace", "jobs", "m", "rule", "first s", "median s", "min s", "jobs/s", "target"):
        table.add_column(col, justify="left" if col in ("trace", "rule") else "right")
    for r in results:
        mark = ""
        if r["target"] is not None:
            ok = r["median"] <= r["target"]
            mark = f"[{'green' if ok else 'red'}]{'<=' if ok else '>'} {r['target']:g} s[/]"
        table.add_row(r["trace"], f"{r['jobs']:,}", f"{r['procs']:,}", r["rule"], f"{r['first']:.3f}",
                      f"{r['median']:.4f}", f"{r['min']:.4f}", f"{r['jobs_per_s']:,.0f}", mark)
    out.print(table)
    if accasim:
        peer_table = Table(title="AccaSim 1.1.3 vs schedlab on KTH-SP2 (no killing, same run)", header_style="bold")
        for col in ("rule", "AccaSim wall s", "AccaSim loop s", "ours median s", "ratio (wall)", "ratio (loop)"):
            peer_table.add_column(col, justify="right")
        for a in accasim:
            ok = a["ratio_wall"] >= ACCASIM_RATIO_TARGET
            peer_table.add_row(a["rule"], f"{a['accasim_wall_s']:.1f}",
                               "-" if a["accasim_sim_s"] is None else f"{a['accasim_sim_s']:.1f}", f"{a['ours_s']:.4f}",
                               f"[{'green' if ok else 'red'}]{a['ratio_wall']:,.0f}x[/]",
                               "-" if a["ratio_sim"] is None else f"{a['ratio_sim']:,.0f}x")
        out.print(peer_table)
    if cold is not None:
        out.print(f"new process to first result (schedlab simulate KTH-SP2 --json): {cold:.2f} s (target <= 3 s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "accasim": accasim, "cold_start_s": cold}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
