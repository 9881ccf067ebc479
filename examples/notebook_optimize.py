"""A notebook's optimization, on the package's face alone (``import schedlab as sl``; issue 46).

Prepare a trace, run a small optimization into a run folder (re-running resumes it), compare the best
strategy with EASY on a month it was not trained on, and draw the schedules and the run's report::

    python examples/notebook_optimize.py RUN [GENERATIONS]

Each cell below is what a notebook cell would hold.
"""

from __future__ import annotations

import sys
from pathlib import Path

import schedlab as sl


def main(out: str | Path = "notebook-run", generations: int = 10, *, mu: int = 5, lam: int = 20,
         workers: int | None = None) -> dict:
    out = Path(out)
    # cell 1: the traces, prepared as every verb prepares a TRACE (read, clean, cut, group)
    train = sl.TraceSpec("KTH-SP2", months=1)
    test = sl.prepare_trace(sl.TraceSpec("KTH-SP2", months=2))
    machine = sl.Machine(test.machine_procs)
    owner = sl.Objective("10*AWRT1 + 4*AWRT2")

    # cell 2: the optimization, any algorithm of sl.OPTIMIZERS that searches the problem's space
    problem = sl.Problem("greedy", [train], owner)
    run = sl.minimize(problem, "es", generations, out=out / "run", workers=workers, mu=mu, lam=lam)
    if run.interrupted:  # Ctrl-C: the checkpoint is on disk; calling main again resumes
        return {"run": run}

    # cell 3: the best against EASY on two months (the second one unseen in training)
    rows = sl.compare_with_easy(run.best, [test], [machine], owner)
    for r in rows:
        print(f"{r['workload']}: objective {r['objective']:.6g} vs EASY {r['objective_easy']:.6g} "
              f"({r['objective_improvement_pct']:+.1f} %)")

    # cell 4: the figures: both schedules side by side, and the run's report when the package draws one
    schedules = {"easy": sl.simulate_any(test, machine, sl.Strategy("easy")),
                 "best": sl.simulate_any(test, machine, run.best)}
    plots = sl.plot_schedules(schedules, out / "plots")
    write_report = getattr(sl.report, "write", None)
    report = write_report(run.out) if write_report is not None else None
    return {"run": run, "rows": rows, "schedules": schedules, "plots": plots, "report": report}


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "notebook-run", int(sys.argv[2]) if len(sys.argv) > 2 else 10)
