"""The golden matrix of the engine (issue 10): what a schedule looked like before a refactoring.

One entry per case: every trace of ../shared/workloads x every dispatch rule x every queue order
(static orders and the greedy order with criteria f1..f4 at fixed parameters, :data:`GREEDY`),
plus the Greedy scheduler (greedy order + FCFS) without killing, plus the grid setups I-IV of
nsga2-grid-performance-bounds under exchange none/POOL/RQ (issue 5's reading; RQ also under the
recommended reading of issue 17, key suffix ``@default``). Each entry stores a SHA-256 of the
start times (float64 bytes, trace order; grids also the executing site) and AWRT/UTIL.

Cases whose run on the whole trace takes too long for the suite carry a job cap (the first
``jobs`` jobs by submit) fixed in :func:`job_cap`; the cap is part of the entry, so the file
says exactly what was recorded. Regenerate with ``python tests/support/golden_cases.py`` only in a commit
that says why the schedules changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

#: the tests folder (conftest.py, golden/, support/): on sys.path when run as a script
HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from conftest import WORKLOADS, trace_path  # noqa: E402

GOLDEN = HERE / "golden" / "engine.json"
#: machine sizes that the archive states for traces whose copy here lost its header
#: (same as tests/test_engine_real_traces.py)
STATED_PROCS = {"METACENTRUM-2009-2.swf.gz": 806, "RICC-2010-2.swf.gz": 8192}
RULES = ("fcfs", "list", "easy", "conservative")
STATIC = ("submit", "procs", "estimate", "group")
#: the greedy criteria of the matrix: fixed, truly dynamic parameters (a, b > 0: the order changes
#: with time; group weights and priorities all different)
GREEDY_PARAMS = dict(a=1e-4, b=1e-3, w=(1.0, 0.9, 0.7, 0.5, 0.3), K=(5.0, 4.0, 3.0, 2.0, 1.0))
GREEDY = ("f1", "f2", "f3", "f4")
GRID_SETUPS = ("I", "II", "III", "IV")
GRID_EXCHANGES = ("none", "pool", "rq")


def traces() -> list[str]:
    return sorted(p.name for p in WORKLOADS.glob("*.swf.gz")) if WORKLOADS.is_dir() else []


_LOADED: dict[str, object] = {}


def load(name: str):
    """The trace read, cleaned and grouped, on its header's (or archive's stated) machine."""
    from schedlab.workload import job_width, load_trace, read_trace

    if name not in _LOADED:
        _LOADED.clear()
        raw = read_trace(trace_path(name))
        procs = raw.machine_procs or STATED_PROCS.get(name)
        if procs is None:
            w = load_trace(raw, procs=int(job_width(raw).max()))
            procs = max(w.machine_procs, int(np.ceil(np.sum(w.runtime * w.procs) / max(w.span, 1.0))))
        _LOADED[name] = load_trace(raw, procs=procs)
    return _LOADED[name]


def strategy(rule: str, order: str):
    from schedlab.strategy import Criterion, Greedy, Strategy

    if order in GREEDY:
        return Strategy(rule, Greedy((Criterion(order, **GREEDY_PARAMS),)))
    return Strategy(rule, order)


#: job caps of the combinations too slow on the whole trace (measured when the file was made):
#: Greedy with f1/f3 scans the queue for its best job at every start (O(queue) per job; FCFS lets
#: the queue grow long), conservative with a non-submit order rebuilds its profile whenever a job
#: joins ahead of waiting ones
SLOW_ORDERS_CAP = 80_000
CONSERVATIVE_REORDER_CAP = {"RICC": 50_000, "CEA-Curie": 50_000}


def job_cap(name: str, rule: str, order: str) -> int | None:
    """First jobs only for the combinations too slow on the whole trace (None: whole trace)."""
    if rule == "fcfs" and order in ("f1", "f3"):
        return SLOW_ORDERS_CAP
    if rule == "conservative" and order != "submit":
        for prefix, cap in CONSERVATIVE_REORDER_CAP.items():
            if name.startswith(prefix):
                return cap
    return None


def cases() -> list[dict]:
    """Every case of the matrix (without results), in a fixed order."""
    out = []
    for name in traces():
        for rule in RULES:
            for order in STATIC + GREEDY:
                out.append({"kind": "single", "trace": name, "rule": rule, "order": order, "kill": True,
                            "jobs": job_cap(name, rule, order)})
        for rule, order in (("easy", "submit"), ("conservative", "submit"), ("fcfs", "f2")):
            out.append({"kind": "single", "trace": name, "rule": rule, "order": order, "kill": False,
                        "jobs": job_cap(name, rule, order)})
    for setup in GRID_SETUPS:
        for ex in GRID_EXCHANGES:  # recorded under issue 5's reading of POOL/RQ (grid/readings.py)
            out.append({"kind": "grid", "setup": setup, "exchange": ex, "reading": "issue5"})
        # issue 17: RQ's recommended reading (local passes first, requests on a changed own queue)
        out.append({"kind": "grid", "setup": setup, "exchange": "rq", "reading": "default"})
    return out


def key(case: dict) -> str:
    if case["kind"] == "grid":
        suffix = "" if case["reading"] == "issue5" else f"@{case['reading']}"
        return f"grid/{case['setup']}/{case['exchange']}{suffix}"
    kill = "" if case["kill"] else "/nokill"
    return f"{case['trace']}/{case['rule']}/{case['order']}{kill}"


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def run(case: dict) -> dict:
    """The recorded result of one case: hash of the start times and AWRT/UTIL."""
    from schedlab.metrics import compute_metrics
    from schedlab.sim import Machine, simulate, validate_schedule

    if case["kind"] == "grid":
        from schedlab.grid.sim import check_site_schedules, simulate_grid
        from schedlab.metrics.grid import site_metrics

        trace = _grid_trace(case["setup"])
        g = simulate_grid(trace, case["exchange"], case["reading"])
        check_site_schedules(g)
        sites = site_metrics(g)
        return {"hash": _digest(g.start.astype(np.float64), g.site.astype(np.int64)),
                "AWRT": g.overall_awrt(), "site_AWRT": [s["AWRT"] for s in sites], "site_UTIL": [s["UTIL"] for s in sites]}
    w = load(case["trace"])
    if case["jobs"] is not None and case["jobs"] < len(w):
        w = w.take(np.sort(np.argsort(w.submit, kind="stable")[: case["jobs"]]))
    s = simulate(w, Machine(w.machine_procs), strategy(case["rule"], case["order"]), kill=case["kill"])
    if case.get("validate"):
        validate_schedule(s)
    m = compute_metrics(s)
    return {"hash": _digest(s.start.astype(np.float64)), "AWRT": m["AWRT"], "UTIL": m["UTIL"]}


#: entries that took at most this long when recorded run in one test per trace (each trace loaded
#: once); the longer ones run one test each, marked ``slow``
SUITE_SECONDS = 1.5
#: entries that took longer than this when recorded (RICC conservative/submit with and without
#: killing: 415 s and 636 s) are left to ``python tests/support/golden_cases.py --check --slow``: one test
#: that long would hold one of CI's two workers for the better part of the run (issue 46: the whole
#: suite must stay well under 30 minutes on 2 cores)
CI_SECONDS = 300.0
#: the trace bundled with the package (the shared folder's KTH-SP2, same bytes): its entries run
#: without the shared folder, in the fast tier
BUNDLED = "KTH-SP2-1996-2.1-cln.swf.gz"


def quick(case: dict, entry: dict) -> bool:
    """Whether a recorded entry runs inside its trace's (or setup's) test: at most
    :data:`SUITE_SECONDS`, or a trace's first entry (fcfs/submit: it also timed the kernels'
    compilation or cache load)."""
    return entry["seconds"] <= SUITE_SECONDS or key(case).endswith("/fcfs/submit")


def in_suite(entry: dict) -> bool:
    """Whether the test suite checks the entry (else only ``--check --slow`` does)."""
    return entry["seconds"] <= CI_SECONDS


def recorded_case(entry: dict) -> dict:
    """The case of a recorded single-site entry (the file holds the case's parameters)."""
    return {"kind": "single", **{f: entry[f] for f in ("trace", "rule", "order", "kill", "jobs")}}


def cheapest(gold: dict, keys, group) -> list[str]:
    """Of ``keys``, the one recorded fastest per ``group(key)``, in the order of ``keys``."""
    best: dict = {}
    for k in keys:
        g = group(k)
        if g not in best or gold[k]["seconds"] < gold[best[g]]["seconds"]:
            best[g] = k
    chosen = set(best.values())
    return [k for k in keys if k in chosen]


_GRIDS: dict[str, object] = {}


def _grid_trace(setup: str):
    from schedlab.grid.setups import load_grid

    if setup not in _GRIDS:
        _GRIDS.clear()
        _GRIDS[setup] = load_grid(setup)
    return _GRIDS[setup]


def only_arguments(argv: list[str], known: tuple[str, ...], prog: str, doc: str) -> list[str] | None:
    """The ``--only SUBSTRING ...`` list of a golden script's command line (empty: every entry), or
    None after printing the usage (``--only -h``) or the unknown argument: recording is the default,
    so a typo must not re-record."""
    only = argv[argv.index("--only") + 1:] if "--only" in argv else []
    flags = argv[:argv.index("--only")] if "--only" in argv else argv
    unknown = [a for a in flags if a not in known]
    if unknown or "-h" in only or "--help" in only:
        print(doc if not unknown else f"{prog}: unknown argument {unknown[0]!r} "
              f"(known: {' '.join(known)} --only SUBSTRING ...)", file=sys.stderr)
        return None
    return only


def write_golden(path: Path, data: dict) -> None:
    """Write a golden file (entries sorted by key) atomically, so a long recording can be resumed."""
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")
    tmp.replace(path)


def main(argv: list[str]) -> int:
    """``python tests/support/golden_cases.py [--check] [--slow] [--only SUBSTRING ...]``: (re)record entries
    into the golden file, or with ``--check`` compare them, each schedule validated unless
    ``--no-validate`` (exit 1 on any difference); ``--slow``: only the entries tests/test_golden.py
    leaves out (recorded above :data:`CI_SECONDS`)."""
    import time

    only = only_arguments(argv, ("--check", "--slow", "--no-validate"), "golden_cases.py", main.__doc__)
    if only is None:
        return 2
    data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    todo = [c for c in cases() if not only or any(o in key(c) for o in only)]
    if "--slow" in argv:  # only the entries the suite leaves out (tests/test_golden.py)
        todo = [c for c in todo if not in_suite(data[key(c)])]
    if "--check" in argv:
        bad = 0
        for i, case in enumerate(todo):
            t0 = time.perf_counter()
            got = run({**case, "validate": "--no-validate" not in argv})
            want = data[key(case)]
            diff = {k: (want[k], got[k]) for k in got if want[k] != got[k]}
            bad += bool(diff)
            print(f"[{i + 1}/{len(todo)}] {key(case)}: {'DIFFERS ' + str(diff) if diff else 'same'} "
                  f"({time.perf_counter() - t0:.1f} s, recorded {want['seconds']:.1f} s)", flush=True)
        return 1 if bad else 0
    for i, case in enumerate(todo):
        t0 = time.perf_counter()
        result = run(case)
        dt = time.perf_counter() - t0
        entry = {**{k: v for k, v in case.items() if k != "kind"}, **result, "seconds": round(dt, 3)}
        data[key(case)] = entry
        print(f"[{i + 1}/{len(todo)}] {key(case)}: {dt:.2f} s", flush=True)
        if (i + 1) % 10 == 0 or i + 1 == len(todo):  # write as we go (atomic), so a long run can be resumed
            write_golden(GOLDEN, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
