"""``schedlab slurm check``: a site's own accounting log against ``--policy slurm`` (issue 44, item 3).

The question an operator asks before trusting the policy (or a tuned slurm.conf): run on the jobs
my Slurm really ran, with my slurm.conf, does it start them when my Slurm did? :func:`check_log`
simulates the log's jobs (as ``simulate --policy slurm`` does) and sets each job's simulated start
beside the one the log records (Start; Submit + the SWF wait of a converted log):

- the per-job start error (simulated - recorded, seconds): its distribution, and the share within
  ``tolerance`` = max(bf_interval, 5 s) (the issue's measure; a pass every bf_interval, recorded
  times in whole seconds);
- mean wait and AWRT (sum m p (C - r) / sum m p) per partition and per user group, recorded and
  simulated;
- the jobs the model cannot explain (error beyond the tolerance) and why, from what the log
  shows when it has the fields (``sacct --format ...,Eligible,Reservation``, and ``Restarts`` where the sacct version has it:
  22.05's refuses it, "Invalid field requested"): a job
  eligible later than its submission (held, ``--begin``, a dependency), one that ran in an
  advance reservation, one requeued (none of these is modelled, docs/slurm-policy-spec.md
  section 9); otherwise the direction says what the log does not show: started *earlier* than
  the model allows (the model had no room: nodes it lacks, a job it ran longer), or *later*
  (drained or down nodes, a reservation, a hold, the controller's own lag);
- a plot (recorded vs simulated wait, and the error histogram).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import SchedlabError


class CheckError(SchedlabError, ValueError):
    """A log ``slurm check`` cannot compare with (one line: which log, what it lacks)."""

#: the sacct fields that explain a job the model cannot (read when the log has them)
EXTRA_FIELDS = ("Submit", "Eligible", "Reservation", "Restarts")


def tolerance_of(policy) -> float:
    """max(bf_interval, 5) seconds: the issue's measure of a start "to the second"."""
    return float(max(policy.conf.sched["bf_interval"], 5))


@dataclass
class CheckReport:
    """What :func:`check_log` found; ``jobs``: one dict per job (trace order)."""

    tolerance: float
    jobs: list  # a job without a recorded start (the log's wait -1): recorded_start and error None
    groups: dict = field(default_factory=dict)  # ("partition" | "group", name) -> figures
    notes: tuple = ()
    #: the simulated run's CPU_UTIL (GPU_UTIL, MEM_UTIL) of a trace with resources
    #: (:func:`schedlab.metrics.resources.resource_utilisation`); {} otherwise, and the report is as before
    utilisation: dict = field(default_factory=dict)
    #: the same figures as the log records them (its starts, AllocCPUS and AllocTRES, against the same
    #: nodes: :func:`schedlab.metrics.resources.recorded_utilisation`); None where the log lacks one
    recorded_utilisation: dict = field(default_factory=dict)

    @property
    def error(self) -> np.ndarray:
        """The start errors of the jobs with a recorded start (the others have nothing to compare)."""
        return np.array([j["error"] for j in self.jobs if j["error"] is not None], dtype=float)

    @property
    def unrecorded(self) -> int:
        """Jobs whose log gives no start (wait -1): left out of every recorded-vs-simulated figure."""
        return sum(j["error"] is None for j in self.jobs)

    def within(self) -> int:
        return int(np.sum(np.abs(self.error) <= self.tolerance))

    def unexplained(self) -> list:
        return [j for j in self.jobs if j["error"] is not None and abs(j["error"]) > self.tolerance]

    def quantiles(self) -> dict:
        e = self.error
        qs = (0, 5, 25, 50, 75, 95, 100)
        return {f"p{q}": float(np.percentile(e, q)) for q in qs} if e.size else {}

    def summary(self) -> dict:
        e = self.error
        n = e.size  # the jobs compared: those with a recorded start
        return {"jobs": len(self.jobs), **({"without_recorded_start": self.unrecorded} if self.unrecorded else {}),
                "tolerance_s": self.tolerance, "within": self.within(),
                "within_pct": 100.0 * self.within() / n if n else float("nan"),
                "mean_abs_error_s": float(np.mean(np.abs(e))) if n else float("nan"),
                "error_quantiles_s": self.quantiles(), "unexplained": len(self.unexplained()),
                **({"simulated_utilisation_pct": self.utilisation,
                    "recorded_utilisation_pct": self.recorded_utilisation} if self.utilisation else {})}


def _awrt(m, p, response) -> float:
    w = m * p
    return float(np.sum(w * response) / np.sum(w)) if np.sum(w) > 0 else float("nan")


def why(job: dict, extra: dict | None) -> str:
    """The reason a job's start is off by more than the tolerance (module docstring)."""
    extra = extra or {}
    eligible, submit = extra.get("eligible"), extra.get("submit")
    if eligible is not None and submit is not None and eligible > submit + 1:
        return f"eligible {eligible - submit:.0f} s after submission (held, --begin or a dependency; not modelled)"
    if extra.get("reservation"):
        return f"ran in advance reservation {extra['reservation']} (not modelled)"
    if extra.get("restarts"):
        return f"requeued {extra['restarts']} time(s): the log's start is the last one (not modelled)"
    if job["error"] > 0:
        return ("started earlier than the model allows: the model had no room then (nodes it lacks, a job it "
                "ran longer, or another order)")
    return ("started later than the model: something the log does not show held it (drained or down nodes, "
            "a reservation, a hold, the controller's lag)")


def check_log(workload, policy, *, extras: dict | None = None) -> CheckReport:
    """Simulate ``workload`` (a prepared accounting log, recorded starts in its ``wait`` column)
    under ``policy`` and compare (module docstring). ``extras``: job id -> the fields of
    :func:`read_extras` (None: reasons from the direction alone)."""
    from ..sim.validate import validate_schedule
    from .policy import simulate_slurm

    recorded = workload.wait >= 0  # SWF's -1: the log does not say when the job started
    if not recorded.any():
        raise CheckError(f"slurm check: {workload.name or 'the log'}: no job has a recorded start (every wait is -1, "
                         "e.g. a generated trace): there is nothing to compare the simulation with")
    s = simulate_slurm(workload, workload.machine_procs, policy)
    validate_schedule(s)
    tol = tolerance_of(policy)
    rec_start = workload.submit + workload.wait
    rec_wait = workload.wait
    sim_wait = s.start - workload.submit
    run = np.maximum(workload.runtime, 0.0)
    sim_run = s.finish - s.start
    m = workload.procs.astype(float)
    jobs = []
    for k in range(len(workload)):
        job = {"id": int(workload.id[k]), "partition": s.slurm.partition[k], "group": int(workload.group[k]),
               "submit": float(workload.submit[k]), "recorded_start": float(rec_start[k]),
               "simulated_start": float(s.start[k]), "error": float(s.start[k] - rec_start[k]) if recorded[k] else None,
               "by": "main" if s.slurm.started_by[k] == 1 else "backfill",
               "held_by": s.slurm.pending_reason[k] if s.slurm.pending_reason else ""}
        if not recorded[k]:
            job["recorded_start"] = None
        elif abs(job["error"]) > tol:
            job["why"] = why(job, (extras or {}).get(job["id"]))
        jobs.append(job)
    from ..metrics.resources import capacities, has_resources, recorded_utilisation, resource_utilisation, set_names

    sets = [("partition", np.array(s.slurm.partition)), ("group", workload.group)]
    utilisation, rec_util = {}, {}
    if has_resources(s):  # a trace with resources: its QOS (as the trace names them) and the simulated utilisation
        named = set_names(s)
        if "qos" in named:
            keys, names = named["qos"]
            sets.append(("qos", np.array([names.get(int(q), "") for q in keys], dtype=object)))
        utilisation = resource_utilisation(s)
        rec_util = recorded_utilisation(workload, capacities(s))
    groups = {}
    for kind, keys in sets:
        for name in sorted(set(keys.tolist()), key=str):
            if kind == "qos" and name == "":  # a job of no QOS the trace names
                continue
            sel = (keys == name) & recorded  # recorded and simulated over the same jobs: those the log gives a start
            if not sel.any():
                continue
            groups[(kind, str(name))] = {
                "jobs": int(sel.sum()),
                "recorded_mean_wait_s": float(rec_wait[sel].mean()), "simulated_mean_wait_s": float(sim_wait[sel].mean()),
                "recorded_AWRT_s": _awrt(m[sel], run[sel], rec_wait[sel] + run[sel]),
                "simulated_AWRT_s": _awrt(m[sel], run[sel], sim_wait[sel] + sim_run[sel]),
            }
    return CheckReport(tolerance=tol, jobs=jobs, groups=groups, notes=tuple(s.slurm.notes), utilisation=utilisation,
                       recorded_utilisation=rec_util)


def read_extras(path, tz: str | None = None) -> dict:
    """Job id -> {submit, eligible (epoch s), reservation, restarts} from a ``sacct --parsable2``
    log that has those fields (:data:`EXTRA_FIELDS`; absent ones are left out); {} for a log
    without any of them or that is no sacct log (an SWF trace)."""
    from ..workload.sacct import job_fields

    rows = job_fields(path, EXTRA_FIELDS, tz=tz)
    out = {}
    for jid, f in rows.items():
        if not jid.isdigit():
            continue
        e = {"submit": f.get("Submit"), "eligible": f.get("Eligible"),
             "reservation": (f.get("Reservation") or "").strip(), "restarts": int(f.get("Restarts") or 0)}
        out[int(jid)] = e
    return out


def text_report(r: CheckReport, source: str) -> str:
    """The report as Markdown (also printed)."""
    s = r.summary()
    q = s["error_quantiles_s"]
    lines = [f"# slurm check: {source}", "",
             f"{s['jobs']:,} jobs; start error = simulated - recorded start. Within {r.tolerance:g} s "
             f"(max(bf_interval, 5)): {s['within']:,} ({s['within_pct']:.1f} %); mean |error| {s['mean_abs_error_s']:.1f} s.", ""]
    if r.unrecorded:
        lines[3:3] = [f"{r.unrecorded:,} of these jobs have no recorded start in the log (wait -1): simulated, but left "
                      f"out of every recorded-vs-simulated figure (the share within is of the {r.error.size:,} with a "
                      "start; errors, waits and AWRT per set likewise)."]
    if q:
        lines += ["| p0 | p5 | p25 | median | p75 | p95 | p100 |", "|---|---|---|---|---|---|---|",
                  "| " + " | ".join(f"{q[k]:g}" for k in ("p0", "p5", "p25", "p50", "p75", "p95", "p100")) + " |", ""]
    if r.utilisation:
        lines += utilisation_table(r)
    lines += ["| set | jobs | mean wait recorded | simulated | deviation | AWRT recorded | simulated |",
              "|---|---|---|---|---|---|---|"]
    for (kind, name), g in r.groups.items():
        rw, sw = g["recorded_mean_wait_s"], g["simulated_mean_wait_s"]
        dev = f"{100.0 * (sw - rw) / rw:+.1f} %" if rw > 0 else "n/a"
        lines.append(f"| {kind} {name} | {g['jobs']:,} | {rw:.1f} | {sw:.1f} | {dev} | "
                     f"{g['recorded_AWRT_s']:.1f} | {g['simulated_AWRT_s']:.1f} |")
    bad = sorted(r.unexplained(), key=lambda j: -abs(j["error"]))
    lines += ["", f"{len(bad):,} jobs the model cannot explain (|error| > {r.tolerance:g} s), by reason:"]
    reasons: dict[str, int] = {}
    for j in bad:
        key = j["why"].split(" (")[0].split(":")[0] if not j["why"].startswith("eligible") else "eligible after submission"
        reasons[key] = reasons.get(key, 0) + 1
    lines += [f"- {n:,}: {k}" for k, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
    lines += ["", "The largest errors:"] if bad else []
    for j in bad[:20]:
        lines.append(f"- job {j['id']} ({j['partition']}): recorded +{j['recorded_start'] - j['submit']:.0f} s, "
                     f"simulated +{j['simulated_start'] - j['submit']:.0f} s ({j['error']:+.0f} s): {j['why']}")
    if len(bad) > 20:
        lines.append(f"- ... and {len(bad) - 20:,} more (jobs.csv)")
    return "\n".join(lines) + "\n"


#: what the report says where the log does not record a resource for every job
_NOT_RECORDED = {"CPU_UTIL": "not in the log", "GPU_UTIL": "not in the log (no AllocTRES gres/gpu: AccountingStorageTRES)",
                 "MEM_UTIL": "not in the log (no AllocTRES mem)"}


def utilisation_table(r: CheckReport) -> list[str]:
    """report.md's lines of utilisation per resource, recorded (the log's starts, runtimes and
    AllocTRES) beside simulated, each over its own schedule's span against the slurm.conf's nodes."""
    def pct(v):
        return "n/a (no span)" if v is None else f"{v:,.2f} %"

    lines = ["Utilisation over each schedule's span (docs/resources.md), against the slurm.conf's nodes:", "",
             "| resource | recorded (log's starts, AllocTRES) | simulated |", "|---|---|---|"]
    for name, sim in r.utilisation.items():
        what = name.split("_")[0].replace("MEM", "memory")
        if not r.recorded_utilisation:
            rec = "not in the log (no recorded start for every job)"
        elif r.recorded_utilisation.get(name) is None:
            rec = _NOT_RECORDED[name]
        else:
            rec = pct(r.recorded_utilisation[name])
        lines.append(f"| {what} | {rec} | {pct(sim)} |")
    return lines + [""]


def write_outputs(r: CheckReport, folder: Path, source: str) -> list[Path]:
    """report.md, jobs.csv (one row per job) and check.png (recorded vs simulated wait, coloured by partition
    for a trace with resources; error histogram)."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    out = [folder / "report.md", folder / "jobs.csv", folder / "check.png"]
    out[0].write_text(text_report(r, source))
    keys = ("id", "partition", "group", "submit", "recorded_start", "simulated_start", "error", "by", "held_by", "why")
    with out[1].open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        for j in r.jobs:
            w.writerow({k: j.get(k, "") for k in keys})
    shown = [j for j in r.jobs if j["recorded_start"] is not None]  # the jobs the log gives a start
    rec = np.array([j["recorded_start"] - j["submit"] for j in shown])
    sim = np.array([j["simulated_start"] - j["submit"] for j in shown])
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2))
    parts = sorted({str(j["partition"]) for j in shown})
    if r.utilisation and len(parts) > 1:  # a trace with resources: each partition's jobs in their own colour
        of = np.array([str(j["partition"]) for j in shown])
        for i, name in enumerate(parts):
            a.scatter(rec[of == name], sim[of == name], s=8, color=f"C{i}", label=f"partition {name}")
        a.legend(fontsize="small")
    else:
        a.scatter(rec, sim, s=8)
    top = float(max(rec.max(initial=1), sim.max(initial=1)))
    a.plot([0, top], [0, top], lw=0.8, color="grey")
    a.set_xlabel("recorded wait (s)")
    a.set_ylabel("simulated wait (s)")
    a.set_title("each job")
    b.hist(r.error, bins=40)
    b.axvspan(-r.tolerance, r.tolerance, color="green", alpha=0.15, label=f"within {r.tolerance:g} s")
    b.set_xlabel("start error, simulated - recorded (s)")
    b.set_ylabel("jobs")
    b.legend()
    fig.suptitle(f"slurm check: {source}")
    fig.tight_layout()
    fig.savefig(out[2], dpi=110)
    plt.close(fig)
    return out
