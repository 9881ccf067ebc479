"""Write an SWF trace as a ``sacct --parsable2`` file in the form schedlab's sacct reader reads (issue 37).

The file is what a site running Slurm would export with the README's command (``TZ=UTC sacct
--allusers --parsable2 --format JobIDRaw,JobID,User,Group,Account,Partition,QOS,Submit,Start,End,
Elapsed,Timelimit,AllocCPUS,ReqCPUS,State``): the header line of those field names, then one
allocation line per job (no job steps). The jobs are the trace as ``load_trace`` prepares it
(cleaned, cut to the first ``--months`` calendar months, user groups assigned). Per job:

- JobIDRaw/JobID: the SWF job number;
- User ``u<SWF user>``; Group ``g<SWF Unix group>`` (empty when -1);
- Account ``ug<schedlab user group>`` (1 = heaviest users .. 5, by the cut's resource consumption),
  so the owner's user groups are the site's accounts; the reader numbers accounts 1, 2, ... in
  order of first appearance (its ``SchedlabAccounts:`` header line names them), so the SWF Unix
  group column of the read-back trace holds that number, not the group itself;
- Partition ``q<SWF queue>``, or ``--partition`` (default ``batch``) when the queue is -1;
- QOS ``normal``;
- Submit/Start/End: ISO local times (``2024-03-01T12:00:00``) in ``--tz`` (default UTC, as
  ``TZ=UTC sacct`` prints them; read them back with ``--format sacct:ZONE`` for another zone);
- Elapsed: the run time, Timelimit: the SWF requested time, both ``[D-]HH:MM:SS`` (whole seconds:
  Slurm's limits are whole minutes, but the SWF estimate is kept exact so the jobs are the same);
- AllocCPUS: the processors used, ReqCPUS: the processors requested (used when -1);
- State ``TIMEOUT`` when the run time reached the limit, else ``COMPLETED``.

    python benchmarks/tools/swf_to_sacct.py KTH-SP2 --months 4 -o kth-4m.sacct
"""

from __future__ import annotations

import argparse
import gzip
import sys
from datetime import datetime
from pathlib import Path

from schedlab.workload.accounting import parse_zone
from schedlab.workload.load import load_trace
from schedlab.workload.model import Workload
from schedlab.workload.sacct import SACCT_FORMAT
from schedlab.workload.timezone import trace_epoch

__all__ = ["duration", "sacct_lines", "write_sacct"]


def duration(seconds: float) -> str:
    """Slurm's ``[D-]HH:MM:SS`` of whole ``seconds``."""
    d, rest = divmod(int(round(seconds)), 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return (f"{d}-" if d else "") + f"{h:02d}:{m:02d}:{s:02d}"


def sacct_lines(w: Workload, *, tz: str | None = None, partition: str = "batch") -> list[str]:
    """The ``--parsable2`` lines (header first) of the jobs of ``w`` (see the module docstring)."""
    zone = parse_zone(tz)
    epoch = trace_epoch(w)

    def when(t: float) -> str:
        return datetime.fromtimestamp(epoch + float(t), tz=zone).strftime("%Y-%m-%dT%H:%M:%S")

    lines = [SACCT_FORMAT.replace(",", "|")]
    for j in range(len(w)):
        submit, wait, run = float(w.submit[j]), float(w.wait[j]), float(w.runtime[j])
        procs, req = int(w.procs[j]), int(w.req_procs[j])
        limit = float(w.estimate[j])
        start = submit + wait
        queue = int(w.queue[j])
        group = int(w.unix_group[j])
        fields = [
            str(int(w.id[j])), str(int(w.id[j])),
            f"u{int(w.user[j])}", f"g{group}" if group >= 0 else "", f"ug{int(w.group[j])}",
            f"q{queue}" if queue >= 0 else partition, "normal",
            when(submit), when(start), when(start + run),
            duration(run), duration(limit) if limit > 0 else "UNLIMITED",
            str(procs), str(req if req > 0 else procs),
            "TIMEOUT" if limit > 0 and run >= limit else "COMPLETED",
        ]
        lines.append("|".join(fields))
    return lines


def write_sacct(w: Workload, out: Path, **kw) -> Path:
    """Write :func:`sacct_lines` to ``out`` (gzip when it ends in ``.gz``)."""
    text = "\n".join(sacct_lines(w, **kw)) + "\n"
    if out.name.endswith(".gz"):
        with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(text.encode("utf-8"))  # mtime 0: the same jobs give the same bytes
    else:
        out.write_text(text, encoding="utf-8")
    return out


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
