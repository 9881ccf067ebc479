"""Side by side: AccaSim 1.1.3's EASY and schedlab's EASY on KTH-SP2, job by job.

AccaSim never kills a job at its estimate, so ours runs with ``kill=False``. The script joins the
two schedules by job id and explains every job whose wait differs:

1. it checks *each* schedule, on its own, against standard EASY (schedlab.sim.easy_check: the head of the queue starts as
   soon as it fits; a job may jump the head only if it does not delay the head's reservation,
   computed from the running jobs' estimated ends max(S + estimate, t)). The checks find the
   decisions where a simulator deviates from standard EASY:
   ``reservation broken`` (a backfill at time t moved the head's reservation later) and
   ``head held`` (the head fitted after the pass at some time t' but was not started);
2. a job whose wait differs is put in the first class that applies to it in AccaSim's schedule,
   in ours, else ``knock-on`` (both simulators decided legally for this job, from machine states
   made different by earlier decisions);
3. jobs present on one side only are classified by why the other side left them out.

Run (AccaSim takes ~30 s)::

    python benchmarks/experiments/peers/accasim_compare.py --accasim /work/accasim-venv/bin/python
    python benchmarks/experiments/peers/accasim_compare.py --accasim-csv kth-easy.csv   # reuse an AccaSim run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.sim.easy_check import easy_deviations

ROOT = Path(__file__).resolve().parents[3]
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
TRACE = SHARED / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
RUNNER = SHARED / "peers" / "accasim_run.py"


# ---------------------------------------------------------------------------- the two schedules
def ours(trace: Path):
    from schedlab.sim import simulate, validate_schedule
    from schedlab.sim.model import Machine
    from schedlab.strategy import Strategy
    from schedlab.workload import load_trace

    w = load_trace(str(trace))
    s = simulate(w, Machine(w.machine_procs), Strategy("easy"), kill=False)
    validate_schedule(s)
    return w, s


def run_accasim(python: str, trace: Path, procs_field: str, out_csv: Path) -> dict:
    cmd = [python, str(RUNNER), str(trace), "auto", "EASY", "--procs-field", procs_field, "--csv", str(out_csv),
           "--out-dir", tempfile.mkdtemp(prefix="accasim-")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: AccaSim failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(acc: pd.DataFrame, w, s, raw) -> dict:
    """Join by job id, check both schedules against standard EASY, classify every difference."""
    m = int(s.machine.procs)
    a = acc.set_index("job_id")
    o = pd.DataFrame({"submit": w.submit, "start": s.start, "end": s.finish, "procs": w.procs,
                      "estimate": w.estimate, "runtime": w.runtime}, index=pd.Index(w.id, name="job_id"))
    # AccaSim keeps absolute trace times; compare waits (start - submit), which do not depend on the origin
    a_dev = easy_deviations(a.index.to_numpy(), a.submit.to_numpy(float), a.start.to_numpy(float),
                            a.end.to_numpy(float), a.procs.to_numpy(np.int64), a.requested_time.to_numpy(float), m)
    o_dev = easy_deviations(o.index.to_numpy(), o.submit.to_numpy(float), o.start.to_numpy(float),
                            o.end.to_numpy(float), o.procs.to_numpy(np.int64), o.estimate.to_numpy(float), m)
    both = a.index.intersection(o.index)
    wait_a = (a.start - a.submit).loc[both]
    wait_o = (o.start - o.submit).loc[both]
    diff = (wait_a - wait_o)
    differing = diff[diff != 0]
    classes: Counter = Counter()
    examples: dict[str, list] = defaultdict(list)
    for job in differing.index:
        if job in a_dev["reservation broken"]:
            d = a_dev["reservation broken"][job]
            kind = ("AccaSim: started ahead of a head that fitted (head not retried)" if d["reservation_before"] <= d["t"]
                    else "AccaSim: backfill delayed the head's reservation")
        elif job in a_dev["head held"]:
            kind = ("AccaSim: head held one pass behind a zero-length job" if a_dev["head held"][job]["zero_length_job_at_fit"]
                    else "AccaSim: head not started although it fitted")
        elif job in o_dev["reservation broken"] or job in o_dev["head held"]:
            kind = "schedlab: deviation from standard EASY"
        else:
            kind = "knock-on (both decisions legal EASY; different machine state)"
        classes[kind] += 1
        if len(examples[kind]) < 3:
            examples[kind].append({"job": int(job), "wait_accasim": float(wait_a[job]), "wait_schedlab": float(wait_o[job]),
                                   **{f"accasim_{k}": v for k, v in (a_dev["reservation broken"].get(job)
                                                                      or a_dev["head held"].get(job) or {}).items()}})
    first = None
    if len(differing):
        t_first = (a.start - a.submit + o.submit).loc[differing.index]
        t_first = np.minimum(t_first.to_numpy(), o.start.loc[differing.index].to_numpy())
        j = differing.index[int(np.argmin(t_first))]
        first = {"job": int(j), "wait_accasim": float(wait_a[j]), "wait_schedlab": float(wait_o[j])}
    only_a = a.index.difference(o.index)
    only_o = o.index.difference(a.index)
    raw_df = pd.DataFrame({"runtime": raw.runtime, "procs": raw.procs, "req_procs": raw.req_procs,
                           "estimate": raw.estimate}, index=pd.Index(raw.id))
    only_a_kinds = Counter("zero runtime (schedlab's cleaning drops runtime <= 0)" if raw_df.runtime.get(j, -1) == 0
                           else "other" for j in only_a)
    # AccaSim's default processors field is the requested one (field 8) when given
    width_differs = int(((raw_df.req_procs != -1) & (raw_df.req_procs != raw_df.procs)).sum())
    starts_off_event = _off_event_starts(a)
    return {
        "jobs": {"accasim": len(a), "schedlab": len(o), "both": len(both), "only_accasim": len(only_a),
                 "only_schedlab": len(only_o)},
        "only_accasim_kinds": dict(only_a_kinds), "only_schedlab_ids": [int(j) for j in only_o][:10],
        "same_wait": int((diff == 0).sum()), "different_wait": int(len(differing)),
        "classes": dict(classes.most_common()), "examples": dict(examples), "first_difference": first,
        "accasim_deviations": {k: len(v) for k, v in a_dev.items()},
        "schedlab_deviations": {k: len(v) for k, v in o_dev.items()},
        "accasim_head_held_zero_length": sum(1 for d in a_dev["head held"].values() if d["zero_length_job_at_fit"]),
        "accasim_head_held_lost_s": {"median": _median([d["lost_s"] for d in a_dev["head held"].values()]),
                                     "max": max([d["lost_s"] for d in a_dev["head held"].values()], default=None)},
        "accasim_starts_off_event": starts_off_event,
        "jobs_with_requested_ne_allocated_procs": width_differs,
        "joined_jobs_with_other_width": int((a.procs.loc[both] != o.procs.loc[both]).sum()),
        "joined_jobs_with_other_estimate": int((a.requested_time.loc[both] != o.estimate.loc[both]).sum()),
        "joined_jobs_with_other_runtime": int((a.runtime.loc[both] != (o.end - o.start).loc[both]).sum()),
        "mean_wait": {"accasim": float((a.start - a.submit).mean()), "schedlab": float((o.start - o.submit).mean())},
        "abs_wait_difference": {"median": float(differing.abs().median()) if len(differing) else 0.0,
                                "max": float(differing.abs().max()) if len(differing) else 0.0},
    }


def _median(values):
    return float(np.median(values)) if values else None


def _off_event_starts(a: pd.DataFrame) -> int:
    """AccaSim starts at a second when no job arrived or ended: its 1-second clock stepping."""
    events = set(a.submit.tolist()) | set(a.end.tolist())
    return int(sum(1 for t in a.start.tolist() if t not in events))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--accasim", metavar="PYTHON", help="python of a venv with accasim 1.1.3 (runs it)")
    src.add_argument("--accasim-csv", metavar="FILE", help="per-job CSV of an earlier accasim_run.py --csv")
    ap.add_argument("--procs-field", default="allocated", choices=("allocated", "requested", "accasim"))
    ap.add_argument("--json", metavar="FILE", help="write the findings as JSON")
    args = ap.parse_args(argv)
    from schedlab.workload import read_trace

    if args.accasim:
        out_csv = Path(tempfile.mkdtemp(prefix="accasim-")) / "kth-easy.csv"
        summary = run_accasim(args.accasim, TRACE, args.procs_field, out_csv)
        print(f"AccaSim: {summary['jobs_completed']} jobs in {summary['wall_s']:.1f} s", file=sys.stderr)
    else:
        out_csv = Path(args.accasim_csv)
    acc = pd.read_csv(out_csv)
    w, s = ours(TRACE)
    findings = compare(acc, w, s, read_trace(str(TRACE)))
    text = json.dumps(findings, indent=2, default=float)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
