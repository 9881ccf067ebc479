"""Jobs' resources (nodes, memory, GPUs, GRES, exclusive) read from sacct, PBS and SWF: hand-made
lines (tests/accounting_writers.py) whose values are worked out by hand in the comments; a trace
without them runs as before; malformed TRES strings are one-line errors naming file and line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from support.accounting_writers import RESOURCE_PBS, RESOURCE_SACCT
from schedlab.cli.main import main
from schedlab.errors import SWFError
from schedlab.workload import clean, read_swf, workload_info
from schedlab.workload.pbs import parse_pbs, pbs_size
from schedlab.workload.resources import GPU, Resources, parse_req_mem, parse_tres, resources_of
from schedlab.workload.sacct import parse_sacct

SWF_LINES = """; Version: 2.2
; MaxProcs: 16
1 0 0 100 4 -1 1024 8 200 2048 1 1 1 1 1 1 -1 -1
2 10 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1
"""


def _sacct(tmp_path, text=RESOURCE_SACCT):
    path = tmp_path / "res.sacct"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------- units
def test_memory_and_tres_units_by_hand():
    assert parse_tres("billing=4,cpu=4,gres/gpu=2,mem=8000M,node=1") == {"billing": 4, "cpu": 4, "gres/gpu": 2, "mem": 8000.0, "node": 1}
    assert parse_tres("mem=1.5G")["mem"] == 1536.0  # 1.5 x 1024
    assert parse_tres("mem=512K")["mem"] == 0.5
    assert parse_tres("") == {}
    assert parse_req_mem("8000M", 4, 1) == 8000.0  # 22.05: the job's total
    assert parse_req_mem("2000Mc", 4, 1) == 8000.0  # per CPU x 4 CPUs
    assert parse_req_mem("4Gn", 4, 2) == 8192.0  # per node: 4096 x 2 nodes
    assert parse_req_mem("0n", 4, 2) == -1.0  # no memory asked for
    assert pbs_size("4gb") == 4096.0 and pbs_size("1024kb") == 1.0 and pbs_size("1048576") == 1.0  # bytes
    assert pbs_size("1mw") == 8.0  # words of 8 bytes


@pytest.mark.parametrize("text, problem", [
    ("cpu=4,gres/gpu", "TRES item 'gres/gpu' is not name=value"),
    ("cpu=four", "TRES cpu='four' is not a count"),
    ("mem=8X", "not a memory amount: '8X'"),
    ("cpu=4,cpu=4", "TRES cpu given twice"),
])
def test_malformed_tres_is_a_one_line_error_naming_file_line_and_field(tmp_path, capsys, text, problem):
    lines = RESOURCE_SACCT.splitlines()
    f = lines[3].split("|")  # job 102, line 4 of the file
    f[11] = text  # its ReqTRES
    lines[3] = "|".join(f)
    path = _sacct(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(SWFError) as err:
        parse_sacct(path)
    assert str(err.value).startswith(f"{path}:4: cannot read ReqTRES: ") and problem in str(err.value)
    out = tmp_path / "x.swf"
    assert main(["workload", "convert", str(path), "--from", "sacct", "-o", str(out)]) != 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and not out.exists()
    assert len([line for line in captured.err.splitlines() if problem in line]) == 1


def test_bad_reqmem_and_nnodes_name_the_field(tmp_path):
    lines = RESOURCE_SACCT.splitlines()
    f = lines[3].split("|")
    f[10] = "2000Mx"
    lines[3] = "|".join(f)
    with pytest.raises(SWFError, match=r":4: cannot read ReqMem: not a ReqMem value: '2000Mx'"):
        parse_sacct(_sacct(tmp_path, "\n".join(lines) + "\n"))


# ---------------------------------------------------------------------------- sacct
def test_sacct_resources_by_hand(tmp_path):
    w, report = parse_sacct(_sacct(tmp_path), procs=32)
    res = w.resources
    assert list(w.id) == [101, 102, 103, 104] and report.skipped["job steps"] == 1
    assert list(w.req_procs) == [4, 8, 2, 16] and list(w.procs) == [4, 8, 2, -1]
    # requested memory: 8000M total; 2000Mc x 8 CPUs; 4Gn x 1 node; never started: ReqTRES mem=1.5G
    assert list(res.req_mem) == [8000.0, 16000.0, 4096.0, 1536.0]
    # allocated memory: AllocTRES mem= (104 never ran: unknown)
    assert list(res.mem) == [8000.0, 16000.0, 4096.0, -1.0]
    assert list(res.req_nodes) == [1, 2, 1, 3] and list(res.nodes) == [1, 2, 1, -1]
    # GPUs: a ReqTRES without gres/gpu asks for 0; typed GPUs by name beside the total
    assert list(res.req_gpus) == [2, 0, 1, 0] and list(res.gpus) == [2, 0, 1, -1]
    assert list(res.req_gres["gpu:a100"]) == [0, 0, 1, 0]
    assert list(res.exclusive) == [-1, -1, -1, -1]  # sacct records no --exclusive
    # SWF field 10: requested memory per requested processor in KB: 8000 x 1024 / 4 = 2,048,000
    assert list(w.req_mem) == [2048000.0, 2048000.0, 2097152.0, 1536 * 1024 / 16]
    assert list(w.mem) == [-1.0] * 4  # sacct: no used memory


def test_sacct_without_resource_fields_has_no_table(tmp_path):
    text = "\n".join("|".join(line.split("|")[:9]) for line in RESOURCE_SACCT.splitlines()) + "\n"
    w, _ = parse_sacct(_sacct(tmp_path, text), procs=32)
    assert w.resources is None and resources_of(w) is None
    assert list(w.req_mem) == [-1.0] * 4 and "resources" not in workload_info(w)


# ---------------------------------------------------------------------------- PBS
def test_pbs_resources_by_hand(tmp_path):
    path = tmp_path / "res.pbs"
    path.write_text(RESOURCE_PBS)
    w, _ = parse_pbs(path, procs=32)
    res = w.resources
    assert list(w.id) == [7, 8, 9] and list(w.req_procs) == [8, 8, 2] and list(w.procs) == [8, 8, 2]
    # select 2 chunks x 3gb; Torque mem=16gb; mem=512mb
    assert list(res.req_mem) == [6144.0, 16384.0, 512.0]
    # 2 chunks x ngpus=1; Torque nodes=2:...:gpus=2 -> 2 x 2; ngpus=1
    assert list(res.req_gpus) == [2, 4, 1] and list(res.gpus) == [-1, -1, -1]  # PBS logs no allocated GPUs
    assert list(res.req_nodes) == [2, 2, 1] and list(res.nodes) == [2, 2, 1]  # distinct exec_host hosts
    assert list(res.used_mem) == [2048.0, -1.0, -1.0]  # 2097152kb / 1024
    assert list(res.exclusive) == [1, 0, -1]  # place=scatter:excl; naccesspolicy=shared; not said
    # SWF field 7: used memory per allocated processor in KB: 2048 x 1024 / 8
    assert w.mem[0] == 262144.0 and w.req_mem[0] == 6144 * 1024 / 8


def test_pbs_bad_size_names_file_line_and_attribute(tmp_path):
    path = tmp_path / "res.pbs"
    path.write_text(RESOURCE_PBS.replace("Resource_List.mem=16gb", "Resource_List.mem=16 gigs"))
    with pytest.raises(SWFError, match=r"res\.pbs:2: E record for 8\.srv: cannot read resources: Resource_List\.mem: not a PBS size"):
        parse_pbs(path)


# ---------------------------------------------------------------------------- SWF
def test_swf_memory_fields_by_hand(tmp_path):
    path = tmp_path / "m.swf"
    path.write_text(SWF_LINES)
    w = read_swf(path)
    assert w.resources is None  # no schedlab GPU line: the table comes from the fields
    res = resources_of(w)
    # job 1: used 1024 KB x 4 procs = 4 MB; requested 2048 KB x 8 requested procs = 16 MB; job 2: -1 (absent)
    assert list(res.used_mem) == [4.0, -1.0] and list(res.req_mem) == [16.0, -1.0]
    assert workload_info(w)["resources"]["memory_requested"] == {"jobs": 1, "median_mb": 16.0, "max_mb": 16.0}


def test_convert_keeps_what_swf_can_and_says_what_not(tmp_path, capsys):
    out = tmp_path / "res.swf"
    assert main(["workload", "convert", str(_sacct(tmp_path)), "--from", "sacct", "--procs", "32", "-o", str(out)]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note: SWF cannot carry")]
    assert len(notes) == 1 and "node counts" in notes[0] and "allocated memory" in notes[0] and "gpu:a100" in notes[0]
    back = read_swf(out)
    res = back.resources
    assert list(res.req_gpus) == [2, 0, 1, 0]  # the SchedlabGPUs header line
    assert list(res.req_mem) == [8000.0, 16000.0, 4096.0, 1536.0]  # field 10 x requested processors
    assert list(res.req_nodes) == [-1] * 4 and GPU + ":a100" not in res.req_gres  # what SWF cannot carry


def test_cleaning_and_taking_keep_rows_aligned(tmp_path):
    w, _ = parse_sacct(_sacct(tmp_path), procs=32)
    cleaned, report = clean(w)
    assert list(cleaned.id) == [101, 102, 103] and report.cancelled == 1
    assert list(cleaned.resources.req_gpus) == [2, 0, 1]
    back = w.take(np.array([2, 0]))
    assert list(back.resources.req_mem) == [4096.0, 8000.0]
    with pytest.raises(ValueError, match="resources have 2 rows, expected 4"):
        w.replace(resources=back.resources)


def test_info_shows_resources(tmp_path, capsys):
    path = _sacct(tmp_path)
    assert main(["workload", "info", str(path), "--procs", "32", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)["resources"]
    assert info["gpus_requested"] == {"jobs": 2, "total": 3, "max": 2}
    assert info["memory_requested"]["jobs"] == 4 and info["gres"] == ["gpu", "gpu:a100"]
    assert main(["workload", "info", str(path), "--procs", "32"]) == 0
    out = capsys.readouterr().out
    assert "GPUs requested" in out and "2 jobs, 3 GPUs in all, largest 2" in out


def test_simulate_names_what_a_cpu_only_policy_ignores_in_one_note(tmp_path, capsys):
    path = _sacct(tmp_path)
    assert main(["simulate", str(path), "--procs", "32", "--policy", "easy", "--json"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:") and "request" in line]
    assert err == ["note: the trace's jobs request memory (3 jobs) and GPUs (2 jobs); --policy easy does not model them "
                   "(not modelled: nodes are CPUs only (CR_CPU)): ignored, every job gets its CPUs alone"]


def test_training_on_a_trace_with_gpus_says_the_strategies_ignore_them(tmp_path, capsys):
    # evolve greedy (and the rules commands) search CPU-only strategies: a GPU cluster's log gets the note
    # simulate gives, not an optimum for another machine without a word; the preparation evolve slurm shares
    # (whose policy models GPUs where the slurm.conf has them) says nothing of it
    import warnings

    from schedlab.errors import TraceNote
    from schedlab.optimize.evolve import EvolveConfig, prepare
    from schedlab.workload.spec import TraceSpec

    path = _sacct(tmp_path)
    code = main(["evolve", "greedy", str(path), "--procs", "32", "--format", "sacct", "--objective", "AWRT",
                 "--generations", "1", "--mu", "1", "--lambda", "2", "--workers", "1", "--out", str(tmp_path / "run")])
    err = [line for line in capsys.readouterr().err.splitlines() if "request" in line]
    assert code == 0 and err == ["note: res: the trace's jobs request memory (3 jobs) and GPUs (2 jobs); optimizing greedy "
                                 "and rule-base strategies does not model them (not modelled: nodes are CPUs only "
                                 "(CR_CPU)): ignored, every job gets its CPUs alone"]
    config = EvolveConfig(traces=(str(path),), objective="AWRT", trace_spec=TraceSpec(procs=32, format="sacct"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", TraceNote)
        prepare(config)
    assert seen and not [w for w in seen if "request" in str(w.message)]  # its other notes, none on resources


def test_a_trace_without_resources_gets_no_note(tmp_path, capsys):
    text = "\n".join("|".join(line.split("|")[:9]) for line in RESOURCE_SACCT.splitlines()) + "\n"
    assert main(["simulate", str(_sacct(tmp_path, text)), "--procs", "32", "--policy", "easy", "--json"]) == 0
    assert "note: the trace's jobs request" not in capsys.readouterr().err


def test_resources_build_refuses_unknown_columns():
    with pytest.raises(ValueError, match="unknown resource columns"):
        Resources.build(2, cpus=[1, 2])


def test_swf_with_gpu_line_round_trips_exactly(tmp_path):
    """Field 7 of 0.1 KB on 3 processors is 0.3 / 1024 MB in the table; written back it stays 0.1, not
    0.1 * 3 / 1024 * 1024 / 3 = 0.10000000000000002 (float drift); the GPU line is rewritten for the jobs kept."""
    path = tmp_path / "g.swf"
    path.write_text("; MaxProcs: 16\n; SchedlabGPUs: 2:1 1:2\n"
                    "1 0 0 100 3 -1 0.1 3 200 333 1 1 1 1 1 1 -1 -1\n2 10 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1\n")
    w = read_swf(path)
    assert list(w.resources.req_gpus) == [2, 1] and w.resources.used_mem[0] == 0.1 * 3 / 1024
    out = tmp_path / "back.swf"
    from schedlab.workload import write_swf

    write_swf(w.take(np.array([1])), out)
    back = read_swf(out)
    assert list(back.id) == [2] and list(back.resources.req_gpus) == [1]
    write_swf(w, out)
    again = read_swf(out)
    assert again.mem[0] == 0.1 and again.req_mem[0] == 333.0


def test_bad_gpu_line_names_file_and_line(tmp_path):
    path = tmp_path / "g.swf"
    path.write_text("; MaxProcs: 16\n; SchedlabGPUs: two:1\n1 0 0 100 3 -1 -1 3 200 -1 1 1 1 1 1 1 -1 -1\n")
    with pytest.raises(SWFError, match=r"g\.swf:2: SchedlabGPUs: 'two:1' is not COUNT:IDS"):
        read_swf(path)


def test_a_bad_tres_with_bad_lines_skip_is_counted_and_named(tmp_path):
    lines = RESOURCE_SACCT.splitlines()
    f = lines[3].split("|")
    f[12] = "cpu=8,mem"  # job 102's AllocTRES
    lines[3] = "|".join(f)
    path = _sacct(tmp_path, "\n".join(lines) + "\n")
    w, report = parse_sacct(path, bad_lines="skip")
    assert list(w.id) == [101, 103, 104] and report.skipped["damaged lines"] == 1
    assert report.first_damaged == f"{path}:4: cannot read AllocTRES: TRES item 'mem' is not name=value"
    assert list(w.resources.req_gpus) == [2, 1, 0]  # the rows stay aligned with the jobs kept
