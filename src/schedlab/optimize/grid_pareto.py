"""`pareto`: the NSGA-II Pareto front of a grid's workload partitions, as a resumable run folder.

nsga2-grid-performance-bounds, Sections 4-5. The run folder holds ``config.json``,
``checkpoint`` (after every generation), ``history.csv`` (hypervolume per generation),
``points.csv`` (every evaluated partition), ``references.json`` (EASY/POOL/RQ simulations),
and at the end ``front.csv`` and ``comparison.json`` (does the front dominate / reach each
heuristic). ``points.md`` (table of the reference and front points), ``front.png`` and
``hypervolume.png`` are the report's (:func:`schedlab.report.grid_report.write_front_report`).
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from ..grid.partition import PartitionProblem
from ..grid.sim import GridTrace, simulate_grid
from ..metrics.grid import grid_summary
from .nsga2_grid import GridNSGA2Config, ParetoResult, front_csv, run_pareto
from .run import RunFolder
from .settings import DEFAULT_EXECUTOR


def trace_fingerprint(trace: GridTrace) -> str:
    """sha256 of the arrays a partition evaluation reads (so a run folder is bound to its data)."""
    p = PartitionProblem.from_trace(trace)
    h = hashlib.sha256()
    for a in (p.submit, p.run, p.est, p.procs, p.origin, p.site_procs):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def reference_points(trace: GridTrace) -> dict[str, dict]:
    """The ``grid simulate`` summaries of the no-exchange (EASY), POOL and RQ policies."""
    return {ex: grid_summary(simulate_grid(trace, ex)) for ex in ("none", "pool", "rq")}


def pareto(
    trace: GridTrace,
    out: str | os.PathLike,
    config: GridNSGA2Config,
    *,
    executor: str | None = DEFAULT_EXECUTOR,
    workers: int | None = None,
    label: str = "",
    on_generation=None,
    extend: bool = False,
) -> ParetoResult:
    """Run (or resume) NSGA-II on ``trace`` in folder ``out``; write the front and its comparison with
    the heuristics (the table and figures: :func:`schedlab.report.grid_report.write_front_report`).

    ``executor``/``workers`` as :func:`schedlab.execute.make_executor` (``serial``,
    ``processes:N``, ``dask:ADDRESS``); results do not depend on them. ``extend``: continue a
    run folder made with fewer generations to ``config.generations`` (the result equals an
    uninterrupted run of that many generations).
    """
    from ..execute.executors import make_executor

    payload = PartitionProblem.from_trace(trace, limit=config.limit)
    from .settings import check_memory

    check_memory(f"--pop {config.pop}", 40.0 * config.pop * payload.n_jobs,
                 f"a population of partitions of {payload.n_jobs:,} jobs")  # parents, offspring, their merge
    run_config = {
        "kind": "grid-pareto",
        "grid": label,
        "sites": [{"name": n, "procs": int(m), "jobs": int(np.sum(trace.origin == k))}
                  for k, (n, m) in enumerate(zip(trace.names, trace.site_procs))],
        "data_sha256": trace_fingerprint(trace),
        "nsga2": config.to_dict(),
    }
    run = RunFolder(out, run_config, budget=("nsga2", "generations"), extend=extend)
    if run.file("references.json").exists():
        refs = json.loads(run.file("references.json").read_text())
    else:
        refs = reference_points(trace)
        run.write_text("references.json", json.dumps(refs, indent=2) + "\n")
    with make_executor(executor, workers=workers, payload=payload) as ex:
        result = run_pareto(run, payload, config, ex, on_generation=on_generation)
    run.write_text("front.csv", front_csv(result.front_F, result.front_X, payload.origin, trace.names))
    comparison = front_vs_references(result.front_F, refs)
    run.write_text("comparison.json", json.dumps(comparison, indent=2) + "\n")
    return result


def front_vs_references(F: np.ndarray, references: dict[str, dict]) -> dict[str, dict]:
    """Where each heuristic lies relative to the front (Section 5.4: 'RQ lies on the front').

    Per policy: ``dominated`` (some front point is at least as good for every site and better for
    one), ``dominates`` (front points it dominates), and ``gap`` = min over front points of
    max_k (F_k - H_k) / H_k: <= 0 means a front point is at least as good on every site; a small
    positive gap means the heuristic lies just beyond (below) the front by that fraction.
    """
    out = {}
    F = np.asarray(F, dtype=np.float64)
    for name, ref in references.items():
        h = np.array([s["AWRT"] for s in ref["sites"]], dtype=np.float64)
        if F.size == 0:
            out[name] = {"AWRT": h.tolist(), "dominated": False, "dominates": 0, "gap": None}
            continue
        le = np.all(F <= h, axis=1) & np.any(F < h, axis=1)
        ge = np.all(F >= h, axis=1) & np.any(F > h, axis=1)
        gap = float(np.min(np.max((F - h) / h, axis=1)))
        out[name] = {"AWRT": h.tolist(), "dominated": bool(le.any()), "dominates": int(ge.sum()), "gap": gap}
    return out


def read_pareto_run(run_dir: str | os.PathLike) -> tuple[dict, ParetoResult, dict[str, dict]]:
    """(config, the result as far as the folder stores it, references) of a finished grid pareto run
    folder: ``front_F`` from front.csv (its first K columns: sites may share a name), ``points`` from
    points.csv, ``history`` from history.csv; ``front_X`` is not stored (empty). A RunError names a
    missing file or another kind of run."""
    from pathlib import Path

    from ..errors import RunError
    from .history import read_history

    run_dir = Path(run_dir)
    try:
        config = json.loads((run_dir / "config.json").read_text())
        if config.get("kind") != "grid-pareto":
            raise RunError(f"{run_dir}: a {config.get('kind')!r} run, not a grid pareto run")
        references = json.loads((run_dir / "references.json").read_text())
        k = len(config["sites"])
        rows = (run_dir / "front.csv").read_text().strip().splitlines()[1:]
        history, points = read_history(run_dir / "history.csv"), read_history(run_dir / "points.csv")
    except FileNotFoundError as exc:
        raise RunError(f"{run_dir}: not a finished grid pareto run ({Path(exc.filename).name} missing)") from None
    front = np.array([[float(v) for v in line.split(",")[:k]] for line in rows]).reshape(-1, k)
    result = ParetoResult(front, np.zeros((0, 0), np.int64), history, points, len(history),
                          int(history[-1]["evaluations"]) if history else 0)
    return config, result, references
