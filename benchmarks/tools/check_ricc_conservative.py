"""One-off check: conservative backfilling on the WHOLE RICC-2010-2 trace (8192 processors, as its
archive states), validated by the shared validator. The test suite runs only its first 10,000 jobs
(tests/test_engine_real_traces.py, CONSERVATIVE_JOBS) because the whole trace takes minutes.

    python benchmarks/tools/check_ricc_conservative.py
"""

from __future__ import annotations

import time
from pathlib import Path

from schedlab import Machine, Strategy, simulate
from schedlab.sim import validate_schedule
from schedlab.workload import load_trace

TRACE = Path(__file__).resolve().parents[3] / "shared" / "workloads" / "RICC-2010-2.swf.gz"


def main() -> None:
    w = load_trace(TRACE, procs=8192)
    t = time.perf_counter()
    s = simulate(w, Machine(8192), Strategy("conservative"))
    sim = time.perf_counter() - t
    t = time.perf_counter()
    validate_schedule(s)
    val = time.perf_counter() - t
    print(f"RICC-2010-2: {len(w):,} jobs, conservative simulated in {sim:.1f} s, validator passed in {val:.1f} s")


if __name__ == "__main__":
    main()
