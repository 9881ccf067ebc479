"""Write an SWF workload out as Slurm `sacct --parsable2` text or a PBS accounting log.

Test helpers for the readers in schedlab.workload.sacct / .pbs: every SWF job becomes the record a
real system would have written for it (job steps, array elements, Torque and PBS Pro resource
syntax, D records for cancelled jobs, limits above 24 hours, UNLIMITED limits, ...), with ugly
but legal records interleaved (blank lines, repeated headers, L/Q/S/R records, a pending array
range, a job still running at the end of the log, jobs deleted before they started). The
injected records that become jobs are counted in the returned dict so that a test can predict
the cleaning counts of the converted file from those of the source.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from schedlab.workload.sacct import SACCT_FORMAT


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def _pbs_date(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%m/%d/%Y %H:%M:%S")


def slurm_duration(seconds: int, style: int = 0) -> str:
    """sacct's ``[D-]HH:MM:SS``; style 1 gives ``MM:SS`` below an hour, style 2 hours above 24."""
    seconds = int(seconds)
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    if style == 1 and seconds < 3600:
        return f"{m:02d}:{s:02d}"
    if style == 2:
        return f"{d * 24 + h:02d}:{m:02d}:{s:02d}"
    return f"{d}-{h:02d}:{m:02d}:{s:02d}" if d else f"{h:02d}:{m:02d}:{s:02d}"


def write_sacct(w, path: Path) -> dict[str, int]:
    """``w`` (SWF columns, UTC times) as ``TZ=UTC sacct --parsable2 --format SACCT_FORMAT`` output."""
    t0 = int(w.unix_start or 0)
    lines = [SACCT_FORMAT.replace(",", "|")]
    injected = {"cancelled": 0, "runtime": 0, "steps": 0}
    next_id = int(w.id.max()) + 1
    for j in range(len(w)):
        jid = int(w.id[j])
        submit = t0 + float(w.submit[j])
        runtime = float(w.runtime[j])
        status = int(w.status[j])
        started = runtime >= 0 and not (status == 5 and runtime <= 0)
        start = submit + max(float(w.wait[j]), 0.0)
        end = start + max(runtime, 0.0)
        est = float(w.estimate[j])
        limit = slurm_duration(est, j % 3) if est > 0 else ("UNLIMITED" if j % 2 else "Partition_Limit")
        state = {1: "COMPLETED", 0: "FAILED", 5: "CANCELLED by 0"}.get(status, "COMPLETED")
        alloc = int(w.procs[j]) if w.procs[j] > 0 and started else 0
        jobid = f"{jid - 1}_{j % 5}" if j % 11 == 0 else str(jid)  # some array elements (JobIDRaw unique)
        user, group, part = f"u{int(w.user[j])}", f"g{int(w.unix_group[j])}", f"q{int(w.queue[j])}"
        s_start, s_end = (_iso(start), _iso(end)) if started else ("Unknown", _iso(submit + 60) if status == 5 else "Unknown")
        elapsed = slurm_duration(runtime, j % 2) if started else "00:00:00"
        lines.append("|".join([str(jid), jobid, user, group, "acct", part, "normal", _iso(submit), s_start, s_end, elapsed, limit,
                               str(alloc), str(max(int(w.req_procs[j]), 0)), state]))
        if started:
            for step in (("batch", "extern") if j % 3 else ("batch", "extern", "0")):
                lines.append("|".join([f"{jid}.{step}", f"{jobid}.{step}", "", "", "acct", part, "normal", _iso(start), s_start, s_end,
                                       elapsed, "", str(alloc), "", state]))
                injected["steps"] += 1
        if j % 97 == 0:  # cancelled before it started
            lines.append("|".join([str(next_id), str(next_id), user, group, "acct", part, "normal", _iso(submit), "None", _iso(submit + 5),
                                   "00:00:00", "01:00:00", "0", "4", "CANCELLED by 1000"]))
            next_id += 1
            injected["cancelled"] += 1
        if j % 250 == 0:
            lines += ["", SACCT_FORMAT.replace(",", "|")]
    last = t0 + float(w.submit[-1])
    lines.append("|".join([str(next_id), f"{next_id}_[1-9%2]", "u1", "g1", "acct", "q1", "normal", _iso(last), "Unknown", "Unknown",
                           "00:00:00", "1-00:00:00", "0", "1", "PENDING"]))
    lines.append("|".join([str(next_id + 1), str(next_id + 1), "u1", "g1", "acct", "q1", "normal", _iso(last), _iso(last + 1), "Unknown",
                           "00:10:00", "1-00:00:00", "1", "1", "RUNNING"]))
    injected["not_finished"] = 2  # skipped by the reader, counted by state
    Path(path).write_text("\n".join(lines) + "\n")
    return injected


def write_pbs(w, path: Path) -> dict[str, int]:
    """``w`` as a PBS accounting log: Torque syntax for even jobs, PBS Pro syntax for odd ones."""
    t0 = int(w.unix_start or 0)
    records: list[tuple[float, str]] = []
    injected = {"cancelled": 0, "runtime": 0}
    next_id = int(w.id.max()) + 1
    for j in range(len(w)):
        jid = f"{int(w.id[j])}.server"
        submit = t0 + float(w.submit[j])
        runtime = float(w.runtime[j])
        status = int(w.status[j])
        start = submit + max(float(w.wait[j]), 0.0)
        end = start + max(runtime, 0.0)
        queue = f"q{int(w.queue[j])}"
        records.append((submit, f"{_pbs_date(submit)};Q;{jid};queue={queue}"))
        if runtime < 0 and status != 5:  # never ran, not cancelled: the log only knows it was queued
            continue
        req, alloc = int(w.req_procs[j]), int(w.procs[j])
        torque = j % 2 == 0
        if req <= 0:
            res = ""
        elif torque:
            res = f"Resource_List.nodes={req // 4}:ppn=4" + (f"+1:ppn={req % 4}" if req % 4 else "") if req >= 4 else f"Resource_List.nodes=1:ppn={req}"
            res = res.replace("nodes=0:ppn=4+", "nodes=")
        else:
            res = f"Resource_List.ncpus={req} Resource_List.select={req}:ncpus=1" if j % 4 == 1 else f"Resource_List.select=1:ncpus={req}"
        est = float(w.estimate[j])
        if est > 0:
            res += f" Resource_List.walltime={slurm_duration(est, 2)}" if j % 3 else f" Resource_List.walltime={int(est)}"
        attrs = f"user=u{int(w.user[j])} group=g{int(w.unix_group[j])} jobname=job{j} queue={queue} ctime={int(submit)} qtime={int(submit)} etime={int(submit)}"
        if status == 5 and runtime <= 0:
            records.append((submit + 1, f"{_pbs_date(submit + 1)};D;{jid};requestor=u{int(w.user[j])}@login"))
            records.append((submit + 1, f"{_pbs_date(submit + 1)};E;{jid};{attrs} {res} Exit_status=-3".replace("  ", " ")))
            continue
        if alloc > 0:
            hosts = [min(4, alloc - k) for k in range(0, alloc, 4)]
            exec_host = "+".join(f"n{k}/0-{c - 1}" if c > 1 else f"n{k}/0" for k, c in enumerate(hosts)) if torque else \
                "+".join(f"n{k}/0*{c}" for k, c in enumerate(hosts))
            attrs += f" exec_host={exec_host}"
        attrs += f" start={int(start)}"
        records.append((start, f"{_pbs_date(start)};S;{jid};{attrs} {res}"))
        if status == 5:
            records.append((end, f"{_pbs_date(end)};D;{jid};requestor=u{int(w.user[j])}@login"))
        exit_status = {1: 0, 0: 1, 5: 271}.get(status, 0)
        used = f"resources_used.cput={slurm_duration(runtime * max(alloc, 1), 2)} resources_used.mem=1024kb resources_used.walltime={slurm_duration(runtime, 2)}"
        records.append((end, f"{_pbs_date(end)};E;{jid};{attrs} {res} session={j} end={int(end)} Exit_status={exit_status} {used}"))
        if j % 97 == 0:  # deleted while queued: Q and D records, no E (Torque)
            cid = f"{next_id}.server"
            next_id += 1
            records.append((submit, f"{_pbs_date(submit)};Q;{cid};queue={queue}"))
            records.append((submit + 30, f"{_pbs_date(submit + 30)};D;{cid};requestor=root@server"))
            injected["cancelled"] += 1
        if j % 250 == 0:
            records.append((submit, f"{_pbs_date(submit)};L;license;floating license hour:0 day:0 month:0 max:0"))
            records.append((submit, ""))
    last = max(t for t, _ in records)
    rid = f"{next_id}.server"
    records.append((last, f"{_pbs_date(last)};Q;{rid};queue=q1"))
    records.append((last, f"{_pbs_date(last)};S;{rid};user=u1 group=g1 queue=q1 ctime={int(last)} start={int(last)} exec_host=n0/0"))
    injected["not_finished"] = 1  # still running when the log ends: skipped by the reader, counted
    records.sort(key=lambda r: r[0])  # a log is written in time order
    Path(path).write_text("\n".join(r for _, r in records) + "\n")
    return injected


# ------------------------------------------------------------------ hand-made logs with resources
#: ``TZ=UTC sacct --parsable2 --format JobIDRaw,User,Partition,Submit,Start,End,AllocCPUS,ReqCPUS,State,NNodes,ReqMem,ReqTRES,AllocTRES``
#: of four jobs and a step, each value chosen so a test works its resources out by hand:
#: 101: 4 CPUs, ReqMem total 8000M (22.05: 4 x DefMemPerCPU 2000), 2 GPUs on 1 node;
#: 102: 8 CPUs on 2 nodes, ReqMem 2000Mc (per CPU, before 21.08) -> 16000 MB, no GRES, AllocTRES mem=16000M;
#: 103: 2 CPUs, ReqMem 4Gn (per node) on 1 node -> 4096 MB, typed GPUs gres/gpu=1,gres/gpu:a100=1;
#: 104: cancelled before it started: NNodes 3 is its request, AllocTRES empty, ReqTRES mem=1.5G -> 1536 MB.
RESOURCE_SACCT = "\n".join([
    "JobIDRaw|User|Partition|Submit|Start|End|AllocCPUS|ReqCPUS|State|NNodes|ReqMem|ReqTRES|AllocTRES",
    "101|ann|gpu|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T01:01:00|4|4|COMPLETED|1|8000M|"
    "billing=4,cpu=4,gres/gpu=2,mem=8000M,node=1|billing=4,cpu=4,gres/gpu=2,mem=8000M,node=1",
    "101.batch|||2024-01-01T00:01:00|2024-01-01T00:01:00|2024-01-01T01:01:00|4||COMPLETED|1||"
    "|cpu=4,gres/gpu=2,mem=8000M,node=1",
    "102|bob|cpu|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T00:40:00|8|8|COMPLETED|2|2000Mc|"
    "billing=8,cpu=8,node=2|billing=8,cpu=8,mem=16000M,node=2",
    "103|ann|gpu|2024-01-01T00:20:00|2024-01-01T02:00:00|2024-01-01T03:00:00|2|2|FAILED|1|4Gn|"
    "cpu=2,gres/gpu:a100=1,gres/gpu=1,node=1|cpu=2,gres/gpu:a100=1,gres/gpu=1,mem=4G,node=1",
    "104|bob|cpu|2024-01-01T00:30:00|None|2024-01-01T00:31:00|0|16|CANCELLED by 1000|3||"
    "cpu=16,mem=1.5G,node=3|",
]) + "\n"

#: a PBS Pro / Torque log of three jobs with resources (E records; values worked out in the tests):
#: 7: PBS Pro select=2:ncpus=4:mem=3gb:ngpus=1 -> 8 CPUs, 2 nodes, 6144 MB, 2 GPUs, place=scatter:excl,
#:    exec_host on two hosts, resources_used.mem=2097152kb -> 2048 MB used;
#: 8: Torque nodes=2:ppn=4:gpus=2 -> 8 CPUs, 2 nodes, 4 GPUs, Resource_List.mem=16gb, naccesspolicy=shared;
#: 9: PBS Pro ncpus=2 ngpus=1 mem=512mb nodect=1, no place: exclusive unknown.
RESOURCE_PBS = "\n".join([
    "01/01/2024 00:01:00;E;7.srv;user=ann group=g queue=gpu ctime=1704067200 start=1704067260 end=1704070860 "
    "exec_host=a1/0*4+a2/0*4 Resource_List.select=2:ncpus=4:mem=3gb:ngpus=1 Resource_List.place=scatter:excl "
    "Resource_List.walltime=02:00:00 Exit_status=0 resources_used.mem=2097152kb resources_used.walltime=01:00:00",
    "01/01/2024 00:02:00;E;8.srv;user=bob group=g queue=cpu ctime=1704067300 start=1704067300 end=1704068200 "
    "exec_host=b1/0-3+b2/0-3 Resource_List.nodes=2:ppn=4:gpus=2 Resource_List.mem=16gb "
    "Resource_List.naccesspolicy=shared Resource_List.walltime=1800 Exit_status=0",
    "01/01/2024 00:03:00;E;9.srv;user=ann group=g queue=gpu ctime=1704067400 start=1704067400 end=1704067700 "
    "exec_host=a3/0+a3/1 Resource_List.ncpus=2 Resource_List.ngpus=1 Resource_List.mem=512mb Resource_List.nodect=1 "
    "Resource_List.walltime=600 Exit_status=0",
]) + "\n"
