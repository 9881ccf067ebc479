"""An SWF trace written as a ``sacct --parsable2`` file in the form :mod:`schedlab.workload.sacct` reads (issue 37).

The file is what a site running Slurm would export with the README's command (``TZ=UTC sacct
--allusers --parsable2 --format JobIDRaw,JobID,User,Group,Account,Partition,QOS,Submit,Start,End,
Elapsed,Timelimit,AllocCPUS,ReqCPUS,State``): the header line of those field names, then one
allocation line per job (no job steps). The jobs are the trace as ``load_trace`` prepares it
(cleaned, cut, user groups assigned). Per job:

- JobIDRaw/JobID: the SWF job number;
- User ``u<SWF user>``; Group ``g<SWF Unix group>`` (empty when -1);
- Account ``ug<schedlab user group>`` (1 = heaviest users .. 5, by the cut's resource consumption),
  so the owner's user groups are the site's accounts; the reader numbers accounts 1, 2, ... in
  order of first appearance (its ``SchedlabAccounts:`` header line names them), so the SWF Unix
  group column of the read-back trace holds that number, not the group itself;
- Partition ``q<SWF queue>``, or ``partition`` (default ``batch``) when the queue is -1;
- QOS ``normal``;
- Submit/Start/End: ISO local times (``2024-03-01T12:00:00``) in ``tz`` (default UTC, as
  ``TZ=UTC sacct`` prints them; read them back with ``--format sacct:ZONE`` for another zone);
- Elapsed: the run time, Timelimit: the SWF requested time, both ``[D-]HH:MM:SS`` (whole seconds:
  Slurm's limits are whole minutes, but the SWF estimate is kept exact so the jobs are the same);
- AllocCPUS: the processors used, ReqCPUS: the processors requested (used when -1);
- State ``TIMEOUT`` when the run time reached the limit, else ``COMPLETED``.

The command-line writer is benchmarks/tools/swf_to_sacct.py; tests/test_swf_to_sacct.py reads the
written file back with the sacct reader.
"""

from __future__ import annotations

import gzip
from datetime import datetime
from pathlib import Path

from .accounting import parse_zone
from .model import Workload
from .sacct import SACCT_FORMAT
from .timezone import trace_epoch

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
