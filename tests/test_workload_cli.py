"""`schedlab workload ...` through schedlab.cli.main.main: outputs, files, one-line errors (exit 2)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from conftest import trace_path
from schedlab.cli.main import main
from schedlab.workload import clean, load_trace, read_swf

LINE = "1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["workload", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_info_table_and_json(capsys):
    code, out, _ = run(capsys, "info", "KTH-SP2")
    assert code == 0
    for words in ("28,476", "100 processors", "332.9 days", "offered load", "214", "group 5"):
        assert words in out
    code, out, _ = run(capsys, "info", "kth-sp2-1996-2.1-cln", "--json")
    info = json.loads(out)
    assert code == 0 and info["jobs"] == 28476 and info["machine_procs"] == 100 and info["users"] == 214
    assert info["estimate_share"] == 1.0 and 0 < info["median_runtime_over_estimate"] < 1
    assert sum(g["job_share"] for g in info["groups"].values()) == pytest.approx(1.0)
    code, out, _ = run(capsys, "info", "KTH-SP2", "--json", "--procs", "200")
    assert json.loads(out)["offered_load"] == pytest.approx(info["offered_load"] / 2)


def test_clean_writes_swf_and_prints_report(capsys, tmp_path):
    out_file = tmp_path / "ctc.swf.gz"
    code, out, _ = run(capsys, "clean", str(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), "--procs", "430", "--missing-estimate", "drop", "-o", str(out_file))
    assert code == 0 and "runtime missing or <= 0" in out and "77,199" in out
    w = read_swf(out_file)
    assert len(w) == 77199 and w.machine_procs == 430 and (w.estimate > 0).all()


def test_cut_group_scale(capsys, tmp_path):
    code, out, _ = run(capsys, "cut", "KTH-SP2", "--months", "1", "-o", str(tmp_path / "k1.swf"))
    k1 = read_swf(tmp_path / "k1.swf")
    assert code == 0 and k1.submit[0] == 0 and k1.span < 31 * 86400 and 1000 < len(k1) < 5000
    code, out, _ = run(capsys, "group", "KTH-SP2", "-o", str(tmp_path / "g.swf"))
    g = read_swf(tmp_path / "g.swf")
    assert code == 0 and "share of runtime*procs" in out
    assert np.array_equal(g.group, load_trace("KTH-SP2").group) and set(g.group.tolist()) == {1, 2, 3, 4, 5}
    code, out, _ = run(capsys, "scale", str(tmp_path / "k1.swf"), "--scale-to", "400", "--scale-seed", "3", "--q", "0", "-o", str(tmp_path / "s.swf"))
    s = read_swf(tmp_path / "s.swf")
    cleaned, _ = clean(k1)
    assert code == 0 and s.machine_procs == 400 and len(s) == len(cleaned)  # q = 0: every job enlarged once
    assert np.array_equal(s.procs, np.minimum(4 * cleaned.procs, 400))


def test_malformed_line_is_one_line_error_naming_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.swf.gz"
    bad.write_bytes(gzip.compress(("; MaxProcs: 8\n" + LINE + LINE.replace(" 4 ", " x ", 1)).encode()))
    for verb in (["info", str(bad)], ["clean", str(bad), "-o", str(tmp_path / "o.swf")]):
        code, out, err = run(capsys, *verb)
        assert code == 2 and out == ""
        assert err.startswith(f"error: {bad}:3: field 5 (procs) is not a number") and err.count("\n") == 1
    assert not (tmp_path / "o.swf").exists()


def test_missing_procs_and_other_errors(capsys, tmp_path):
    plain = tmp_path / "noheader.swf"
    plain.write_text(LINE)
    code, out, err = run(capsys, "clean", str(plain), "-o", str(tmp_path / "o.swf"))
    assert code == 2 and err == "error: noheader has no MaxProcs/MaxNodes header; pass --procs\n"
    assert run(capsys, "clean", str(plain), "--procs", "8", "-o", str(tmp_path / "o.swf"))[0] == 0
    code, _, err = run(capsys, "info", str(tmp_path / "missing.swf"))
    assert code == 2 and "no such file" in err and "KTH-SP2" in err
    code, _, err = run(capsys, "cut", "KTH-SP2", "--months", "0", "-o", str(tmp_path / "c.swf"))
    assert code == 2 and "--months must be a positive whole number" in err
    code, _, err = run(capsys, "clean", "KTH-SP2", "--missing-estimate", "zero", "-o", str(tmp_path / "c.swf"))
    assert code == 2 and "missing_estimate" in err
    code, _, err = run(capsys, "cut", "KTH-SP2", "-o", str(tmp_path / "c.swf"))  # usage error: no traceback
    assert code == 2 and "--months" in err and "Traceback" not in err


def test_info_counts_users_as_the_groups_do(capsys, tmp_path):
    # issue 32: a Lublin trace (no user ids) showed "users 0" next to "group 1: 1 users"
    out_file = tmp_path / "l.swf"
    assert main(["workload", "generate", "lublin", "--jobs", "200", "--procs", "32", "-o", str(out_file)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "info", str(out_file), "--json")
    info = json.loads(out)
    assert code == 0 and info["unknown_user_jobs"] == 200
    assert info["users"] + 1 == sum(g["users"] for g in info["groups"].values()) == 1  # + the unknown user
    code, out, _ = run(capsys, "info", str(out_file))
    assert "0 + 1 unknown (200 jobs have no user id; the groups count them as one user)" in out


def test_written_traces_have_headers_that_match_their_jobs(capsys, tmp_path):
    # issue 32: cleaned/cut SWFs kept the archive's MaxJobs/MaxRecords/StartTime/EndTime
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from schedlab.workload.swf import parse_header

    def value(w, key):
        return next(h.split(":", 1)[1].strip() for h in w.header if h.strip().startswith(key + ":"))

    for verb in (["cut", "KTH-SP2", "--months", "1"], ["clean", "KTH-SP2", "--missing-estimate", "drop", "--months", "2"],
                 ["group", "KTH-SP2", "--months", "1"]):
        out_file = tmp_path / "o.swf"
        code, _, err = run(capsys, *verb, "-o", str(out_file))
        assert code == 0, err
        w = read_swf(out_file)
        assert int(value(w, "MaxRecords")) == len(w) == int(value(w, "MaxJobs")) < 28476
        zone = ZoneInfo("Europe/Stockholm")
        start = datetime.fromtimestamp(parse_header(w.header)["unix_start"], zone)
        assert value(w, "StartTime") == start.strftime("%a %b %d %H:%M:%S %Z %Y")
        end = datetime.fromtimestamp(w.unix_start + int((w.submit + w.wait + w.runtime).max()), zone)
        assert value(w, "EndTime") == end.strftime("%a %b %d %H:%M:%S %Z %Y") and end.year == 1996
