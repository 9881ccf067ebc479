"""Write an SWF trace as a ``sacct --parsable2`` file in the form schedlab's sacct reader reads (issue 37).

The writer is :mod:`schedlab.workload.sacct_write` (its docstring gives every column); this is its
command line.

The jobs are the trace as ``load_trace`` prepares it (cleaned, cut to the first ``--months``
calendar months, user groups assigned)::

    python benchmarks/tools/swf_to_sacct.py KTH-SP2 --months 4 -o kth-4m.sacct
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from schedlab.workload.load import load_trace
from schedlab.workload.sacct_write import write_sacct


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", help="SWF trace: a path or a bundled name (KTH-SP2)")
    ap.add_argument("--months", type=int, default=None, help="keep the first N calendar months (as every verb's --months)")
    ap.add_argument("--procs", type=int, default=None, help="machine size when the header has none")
    ap.add_argument("--tz", default="UTC", help="zone of the written times (default UTC, as TZ=UTC sacct)")
    ap.add_argument("--partition", default="batch", help="partition of jobs whose SWF queue is -1")
    ap.add_argument("-o", "--out", type=Path, required=True, help="the sacct file (.gz: gzipped)")
    a = ap.parse_args(argv)
    w = load_trace(a.trace, procs=a.procs, months=a.months)
    write_sacct(w, a.out, tz=a.tz, partition=a.partition)
    print(f"{a.out}: {len(w)} jobs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
