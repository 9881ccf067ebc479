"""The golden file of the systems the engine matrix does not cover (issue 36 item 6): what their
results looked like before the issue-36 refactor (one trace preparation, one strategy concept, one
optimization loop, split event loops).

tests/golden/engine.json (tests/support/golden_cases.py) holds the rigid rules x orders on every trace and
the grid setups. This file, tests/golden/systems.json, holds:

- **scojo/WORKLOAD/POLICY**: SCOJO-PECT (``scojo``), the group optimiser (``scojo-opt``,
  :class:`~schedlab.sim.scojo_opt.GroupConfig` defaults) and the bottom line (``scojo-bottomline``,
  :class:`~schedlab.sim.scojo_opt.BottomLineConfig` defaults), smart backfilling on, as
  benchmarks/experiments/scojo/scojo_opt_experiments.py configures them, on two Lublin-Feitelson workloads (seeds 71
  and 31 of the thesis' five, :data:`LUBLIN_JOBS` jobs on 128 processors) and the first
  :data:`BLUE_JOBS` jobs of SDSC-BLUE (1152 processors). Recorded: SHA-256 of the first start
  times, of the whole time-shared schedule (node sets, execution intervals, preemption counts,
  slices, switch overheads) and of the optimiser's plan log, the search statistics, mean bounded
  slowdown (bound 10 s, the thesis'), UTIL and the number of preemptions.
- **federation/METHOD**: every method of :data:`schedlab.federation.METHODS` (the heuristics JPR,
  CBS, METL and a short seeded GA per GA method) on a window of HPC2N through
  :func:`~schedlab.optimize.federation_run.run_federation`: makespan, SHA-256 of the schedule
  (start, finish, start order, task nodes), of orders.json, packages.csv and (GA) history.csv
  without their timing columns.
- **optimizer/NAME**: a short seeded run (workers=1) of every optimizer: ``evolve greedy`` under
  every optimizer of the registry (ES, CMA-ES), ``rules evolve`` (symbiotic GFS), ``rules
  iterative``, the bound (NSGA-III over orders, also with a head start) and the grid NSGA-II over
  partitions (both variations), through the Python functions the CLI verbs call: the best
  objective value (the front for the multi-objective ones) and SHA-256 of the run folder's history
  file without its timing columns (``elapsed``, ``seconds``, ``cpu_seconds``) and of its best or
  front file.

A BLAS-dependent optimizer (``uses_blas``: CMA-ES; README "Replays") is recorded with the BLAS
kernel it ran under (``blas``) and the numbers of its history.csv (``history``: per generation the
best and median objective, the step size and the best parameters). Under the recording's kernel every field must be equal, hashes
included; under another kernel the hashes are not compared and the numbers must agree within
:data:`BLAS_RTOL` (relative), the evaluation count exactly.

Every schedule a case produces (the best strategy re-simulated, the bound's and the grid's front)
goes through the validator when checked. The workload cut or job cap is part of each entry.
``python tests/support/golden_systems.py`` records (only in a commit that says why results changed),
``--check`` compares (exit 1 on any difference); tests/test_golden_systems.py checks every entry.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

#: the tests folder (conftest.py, golden/, support/): on sys.path when run as a script
HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from conftest import trace_path  # noqa: E402

GOLDEN = HERE / "golden" / "systems.json"
#: the Lublin seeds (two of the thesis' five: 71, 31, 73, 35, 7) and the job count of each workload
LUBLIN_SEEDS = (71, 31)
LUBLIN_JOBS, LUBLIN_PROCS = 2_000, 128
BLUE, BLUE_PROCS, BLUE_JOBS = "SDSC-BLUE-2000-4.2-cln.swf.gz", 1152, 3_000
SCOJO_POLICIES = ("scojo", "scojo-opt", "scojo-bottomline")
#: the federation window (as tests/test_federation_ga.py) and the GA's tiny budget
HPC2N = "HPC2N-2002-2.2-cln.swf.gz"
FEDERATION = dict(offset=2000, jobs=200, package_size=100)
FEDERATION_GA = dict(generations=3, pop=12, seed=3)
#: how far a BLAS-dependent optimizer's numbers may move under another BLAS kernel (relative): the
#: kernels differ in the last bit of a product (about 1e-16); nine digits leave room for that to grow
#: over the few generations of a case, and none for a different search
BLAS_RTOL = 1e-9
#: result fields that under another BLAS kernel are not compared (they hash the last bits)
BLAS_HASHES = ("history_hash", "best_hash")
#: columns of history/packages files that hold wall or CPU time (left out of their hashes)
TIMING = ("elapsed", "seconds", "cpu_seconds")
#: the optimizer runs: training on the first month of the bundled KTH-SP2, tiny seeded budgets
EVOLVE = dict(traces=("KTH-SP2",), months=1, generations=2, mu=3, lam=6, seed=21)
GFS_SETTINGS = dict(rules=4, mu=12, lam=16, participations=2, k=3, n_best=2)
ITERATIVE_PARTITIONS = ((2.0,), (50.0, 90.0), (), (30.0,), (), (), ())
BOUND_JOBS = 300
BOUND = {"bound": dict(pop=8, generations=2, seed=2),
         "bound-head-start": dict(pop=8, generations=2, seed=1, sigma=5.0, window=20, block=6, head_start=3, moves=2)}
GRID_SITES = ("KTH-SP2:100", "SDSC-SP2:128")
GRID = {"grid-nsga2": dict(pop=6, generations=2, seed=4), "grid-nsga2-aware": dict(pop=6, generations=2, seed=4,
                                                                                   variation="aware")}


def cases() -> list[dict]:
    """Every case (without results), in a fixed order. Federation methods and evolve optimizers are
    read from their registries, so a new one shows up as a missing entry."""
    from schedlab.federation import GA_METHODS, METHODS
    from schedlab.strategy.registry import optimizer_names

    out = []
    workloads = [(f"lublin-seed{s}", LUBLIN_JOBS, LUBLIN_PROCS) for s in LUBLIN_SEEDS] + [("SDSC-BLUE", BLUE_JOBS, BLUE_PROCS)]
    for name, jobs, procs in workloads:
        for policy in SCOJO_POLICIES:
            out.append({"kind": "scojo", "workload": name, "policy": policy, "jobs": jobs, "procs": procs})
    for method in METHODS:
        case = {"kind": "federation", "method": method, "trace": HPC2N, **FEDERATION}
        if method in GA_METHODS:
            case["ga"] = FEDERATION_GA
        out.append(case)
    for name in optimizer_names():
        out.append({"kind": "optimizer", "name": f"evolve-{name}", "optimizer": name, **EVOLVE})
    out.append({"kind": "optimizer", "name": "rules-evolve", **EVOLVE, "seed": 5, "gfs": GFS_SETTINGS})
    out.append({"kind": "optimizer", "name": "rules-iterative", "traces": EVOLVE["traces"], "months": 1,
                "partitions": [list(p) for p in ITERATIVE_PARTITIONS]})
    for name, cfg in BOUND.items():
        out.append({"kind": "optimizer", "name": name, "trace": "KTH-SP2", "months": 1, "jobs": BOUND_JOBS, "bound": cfg})
    for name, cfg in GRID.items():
        out.append({"kind": "optimizer", "name": name, "sites": list(GRID_SITES), "months": 1, "nsga2": cfg})
    return out


def key(case: dict) -> str:
    if case["kind"] == "scojo":
        return f"scojo/{case['workload']}/{case['policy']}"
    if case["kind"] == "federation":
        return f"federation/{case['method']}"
    return f"optimizer/{case['name']}"


def needs_shared_traces(case: dict) -> bool:
    """Whether the case reads a trace of the shared folder (not only the bundled KTH-SP2)."""
    return case["kind"] == "federation" or case.get("workload") == "SDSC-BLUE" or "sites" in case


def system(case: dict) -> str:
    """What a case checks, for the fast tier: a SCOJO policy, a federation method or an optimizer."""
    if case["kind"] == "scojo":
        return f"scojo/{case['policy']}"
    return key(case)


def fast_keys(gold: dict) -> set[str]:
    """The entries of the fast tier (``pytest -m "not slow"``): per :func:`system` the cheapest as
    recorded (``seconds``), preferring one that needs no shared trace, so the bundled KTH-SP2 and the
    Lublin model cover every system they can; the others are marked ``slow``."""
    best: dict[str, dict] = {}
    for case in cases():
        k, g = key(case), system(case)
        rank = (needs_shared_traces(case), gold.get(k, {}).get("seconds", float("inf")))
        if g not in best or rank < best[g][0]:
            best[g] = (rank, k)
    return {k for _, k in best.values()}


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        a = a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64)
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _csv_digest(path: Path) -> str:
    """SHA-256 of a CSV file without its timing columns (:data:`TIMING`)."""
    rows = list(csv.reader(io.StringIO(path.read_text())))
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMING]
    return _text_digest("\n".join(",".join(r[i] for i in keep) for r in rows))


# ------------------------------------------------------------------------------------------ SCOJO-PECT
def scojo_workload(case: dict):
    """The case's workload: a Lublin seed (benchmarks/experiments/scojo/scojo_experiments.py's model, fewer jobs) or the first
    jobs of SDSC-BLUE on its 1152 processors."""
    from schedlab.workload import load_trace
    from schedlab.workload.lublin import lublin

    if case["workload"].startswith("lublin-seed"):
        return lublin(case["jobs"], case["procs"], seed=int(case["workload"].removeprefix("lublin-seed")))
    w = load_trace(str(trace_path(BLUE)), procs=case["procs"])
    return w.take(np.arange(min(case["jobs"], len(w))))


def scojo_config(policy: str, **change):
    """The policy's ScojoConfig as benchmarks/experiments/scojo/scojo_opt_experiments.py ``config()`` (smart backfilling on);
    ``change``: fields of the optimiser's config to differ (the test that the check can fail)."""
    from schedlab.sim.scojo_opt import BottomLineConfig, GroupConfig
    from schedlab.sim.timeshare import ScojoConfig

    opt = {"scojo": None, "scojo-opt": GroupConfig, "scojo-bottomline": BottomLineConfig}[policy]
    return ScojoConfig(smart_backfill=True, optimizer=None if opt is None else opt(**change))


def run_scojo(case: dict, validate: bool, **change) -> dict:
    from schedlab.metrics import compute_metrics
    from schedlab.metrics.timeshare import BSLD_BOUND
    from schedlab.sim import validate_schedule
    from schedlab.sim.timeshare import simulate_scojo

    s = simulate_scojo(scojo_workload(case), case["procs"], scojo_config(case["policy"], **change))
    if validate:
        validate_schedule(s)  # timeshared schedules: sim/validate_ts.py (plans replayed, rule 6)
    ts = s.timeshare
    m = compute_metrics(s, bound=BSLD_BOUND)
    out = {"hash": _digest(s.start), "ts_hash": _digest(ts.node_off, ts.node_ids, ts.iv_job, ts.iv_start, ts.iv_end,
                                                        ts.preemptions, ts.slice_class, ts.slice_begin, ts.slice_end,
                                                        ts.overheads),
           "mean_bsld": m["mean_bounded_slowdown"], "UTIL": m["UTIL"], "preemptions": int(ts.preemptions.sum())}
    if ts.plans is not None:
        p = ts.plans
        out["plan_hash"] = _digest(*(getattr(p, f) for f in p.__dataclass_fields__))
        out["search"] = dict(ts.search_stats)
    return out


# ------------------------------------------------------------------------------------------ federation
def run_federation_case(case: dict, validate: bool, folder: Path) -> dict:
    from schedlab.federation import default_platform, validate_federated
    from schedlab.optimize.federation_ga import FederationGAConfig
    from schedlab.optimize.federation_run import FederationRunConfig, run_federation
    from schedlab.workload.spec import TraceSpec

    ga = FederationGAConfig(**case["ga"]) if "ga" in case else FederationGAConfig()
    config = FederationRunConfig(TraceSpec(str(trace_path(case["trace"]))), method=case["method"], ga=ga,
                                 **{k: case[k] for k in FEDERATION})
    r = run_federation(config, default_platform(), folder, workers=1)
    s = r.schedule
    if validate:
        validate_federated(s)
    out = {"makespan": r.result["makespan"], "hash": _digest(s.start, s.finish, s.seq, s.alloc_ptr, s.tasks_node,
                                                            s.tasks_start, s.sp),
           "orders_hash": _text_digest((folder / "orders.json").read_text()),
           "packages_hash": _csv_digest(folder / "packages.csv")}
    if "ga" in case:
        out["history_hash"] = _csv_digest(folder / "history.csv")
    return out


# ------------------------------------------------------------------------------------------ optimizers
def _validate_best(case: dict, best) -> None:
    """The best strategy re-simulated on the training workload, through the validator."""
    from schedlab.sim import validate_schedule
    from schedlab.sim.strategies import simulate_any
    from schedlab.workload import load_trace

    w = load_trace(case["traces"][0], months=case["months"])
    validate_schedule(simulate_any(w, w.machine_procs, best))


def run_optimizer(case: dict, validate: bool, folder: Path) -> dict:
    from schedlab.optimize.evolve import EvolveConfig
    from schedlab.workload.spec import TraceSpec

    name = case["name"]
    if name.startswith("evolve-") or name.startswith("rules-"):
        fields = {k: case[k] for k in ("generations", "mu", "lam", "seed", "optimizer") if k in case}
        config = EvolveConfig(traces=tuple(case["traces"]), trace_spec=TraceSpec(months=case.get("months")), **fields)
        if name.startswith("evolve-"):
            from schedlab.optimize.evolve import evolve_greedy

            r = evolve_greedy(config, folder, workers=1)
        elif name == "rules-evolve":
            from schedlab.optimize import gfs

            r = gfs.rules_evolve(config, folder, gfs.GFSSettings(**case["gfs"]), workers=1)
        else:
            from schedlab.optimize import gfs

            parts = tuple(tuple(p) for p in case["partitions"])
            r = gfs.rules_iterative(config, folder, parts, workers=1)
        if validate:
            _validate_best(case, r.best)
        out = {"best": r.best_f, "evaluations": r.evaluations, "history_hash": _csv_digest(folder / "history.csv"),
               "best_hash": _text_digest((folder / "best.json").read_text())}
        if blas_dependent(case):
            from schedlab._blas import blas_kernel

            with (folder / "history.csv").open() as fh:
                rows = list(csv.DictReader(fh))
            out.update(blas=blas_kernel(), history=[[float(v) for c, v in row.items() if c not in TIMING] for row in rows])
        return out
    if name.startswith("bound"):
        return _run_bound(case, validate, folder)
    return _run_grid(case, validate, folder)


def _run_bound(case: dict, validate: bool, folder: Path) -> dict:
    from schedlab.optimize.bound import BoundConfig, bound
    from schedlab.sim import Machine, validate_schedule
    from schedlab.sim.listsched import list_schedule
    from schedlab.workload import load_trace
    from schedlab.workload.swf import write_swf

    w = load_trace(case["trace"], months=case["months"])
    path = folder.parent / f"{folder.name}.swf"
    write_swf(w.take(np.arange(case["jobs"])), path)
    r = bound(str(path), folder / "run", BoundConfig(**case["bound"]), workers=1)
    if validate:  # every front order (the archive keeps the orders of small traces), as tests/test_bound.py
        w = load_trace(str(path))
        for x in r.archive.X:
            validate_schedule(list_schedule(w, Machine(w.machine_procs), x))
    return {"front": np.asarray(r.archive.F).min(axis=0).tolist(), "evaluations": r.evaluations,
            "history_hash": _csv_digest(folder / "run" / "history.csv"),
            "front_hash": _text_digest((folder / "run" / "front.csv").read_text())}


def _run_grid(case: dict, validate: bool, folder: Path) -> dict:
    from schedlab.grid.partition import PartitionProblem
    from schedlab.grid.setups import load_grid
    from schedlab.optimize.grid_pareto import pareto
    from schedlab.optimize.nsga2_grid import GridNSGA2Config
    from schedlab.sim import validate_schedule

    trace = load_grid(sites=list(case["sites"]), months=case["months"])
    r = pareto(trace, folder, GridNSGA2Config(**case["nsga2"]))
    if validate:  # every front partition's site schedules (EASY replayed per site)
        problem = PartitionProblem.from_trace(trace)
        for genes in r.front_X:
            sched = problem.schedule(genes, trace)
            for k in range(len(trace.names)):
                validate_schedule(sched.site_schedule(k))
    return {"front": np.asarray(r.front_F).tolist(), "evaluations": r.evaluations,
            "history_hash": _csv_digest(folder / "history.csv"),
            "front_hash": _text_digest((folder / "front.csv").read_text()),
            "points_hash": _text_digest((folder / "points.csv").read_text())}


def run(case: dict, validate: bool = True) -> dict:
    """The recorded result of one case (run folders in a temporary directory, removed after)."""
    if case["kind"] == "scojo":
        return run_scojo(case, validate)
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        folder = Path(tmp) / "run"
        if case["kind"] == "federation":
            return run_federation_case(case, validate, folder)
        return run_optimizer(case, validate, folder)


def blas_dependent(case: dict) -> bool:
    """True for an ``evolve greedy`` case whose optimizer computes through BLAS (its class's ``uses_blas``)."""
    if case.get("kind") != "optimizer" or not case["name"].startswith("evolve-"):
        return False
    from schedlab.strategy.registry import optimizer, resolve

    factory = optimizer(case["optimizer"]).factory
    return bool(getattr(resolve(factory) if isinstance(factory, str) else factory, "uses_blas", False))


def _close(a, b, rtol: float) -> bool:
    """Numbers (or nested lists of them) equal within ``rtol`` relative; anything else exactly equal."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and bool(np.isclose(a, b, rtol=rtol, atol=0))
    return a == b


def compare(case: dict, want: dict, got: dict) -> dict:
    """The differing fields of a result and its entry: exact (every case is seeded and deterministic),
    except a BLAS-dependent optimizer's under another BLAS kernel than the recording's (module docstring)."""
    if blas_dependent(case) and got.get("blas") != want.get("blas"):
        return {k: (want.get(k), got[k]) for k in got
                if k not in BLAS_HASHES and k != "blas" and not _close(want.get(k), got[k], BLAS_RTOL)}
    return {k: (want.get(k), got[k]) for k in got if want.get(k) != got[k]}


def main(argv: list[str]) -> int:
    """``python tests/support/golden_systems.py [--check] [--no-validate] [--only SUBSTRING ...]``: (re)record
    entries into tests/golden/systems.json, or with ``--check`` compare them (exit 1 on any difference);
    every schedule validated unless ``--no-validate``."""
    import time

    from support.golden_cases import only_arguments, write_golden

    only = only_arguments(argv, ("--check", "--no-validate"), "golden_systems.py", main.__doc__)
    if only is None:
        return 2
    data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    todo = [c for c in cases() if not only or any(o in key(c) for o in only)]
    validate = "--no-validate" not in argv
    bad = 0
    for i, case in enumerate(todo):
        t0 = time.perf_counter()
        got = run(case, validate)
        dt = time.perf_counter() - t0
        if "--check" in argv:
            want = data.get(key(case), {})
            diff = compare(case, want, got)
            bad += bool(diff)
            print(f"[{i + 1}/{len(todo)}] {key(case)}: {'DIFFERS ' + str(diff) if diff else 'same'} "
                  f"({dt:.1f} s, recorded {want.get('seconds', float('nan')):.1f} s)", flush=True)
            continue
        data[key(case)] = {**{k: v for k, v in case.items() if k != "kind"}, **got, "seconds": round(dt, 3)}
        print(f"[{i + 1}/{len(todo)}] {key(case)}: {dt:.2f} s", flush=True)
        write_golden(GOLDEN, data)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
