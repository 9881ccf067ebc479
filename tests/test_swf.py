"""SWF reading and writing: values, header, round trips, and one-line errors for damaged files."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from conftest import trace_path
from schedlab import SWFError, Workload, read_swf, write_swf
from schedlab.workload.model import ALL_COLUMNS, FLOAT_FIELDS, SWF_FIELDS
from schedlab.workload.swf import parse_header

GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n2 10 0 50.5 2 1.25 -1 2 60 -1 0 8 1 -1 -1 -1 -1 -1\n"


def same(a: Workload, b: Workload) -> None:
    assert len(a) == len(b)
    for name in SWF_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.header == b.header
    assert (a.machine_procs, a.unix_start, a.timezone) == (b.machine_procs, b.unix_start, b.timezone)


def write(tmp_path, text: str | bytes, name: str = "t.swf"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def test_values_header_and_metadata(tmp_path):
    text = "; Version: 2.2\n;   UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n; MaxNodes: 50\n; MaxProcs: 100 (batch)\n" + GOOD
    w = read_swf(write(tmp_path, text, "KTH-demo.swf"))
    assert len(w) == 2 and w.name == "KTH-demo"
    assert w.machine_procs == 100 and w.unix_start == 843480031 and w.timezone == "Europe/Stockholm"
    assert w.header[0] == " Version: 2.2" and w.header[4] == " MaxProcs: 100 (batch)"
    assert w.runtime.tolist() == [100.0, 50.5] and w.cpu.tolist() == [-1.0, 1.25]
    assert w.procs.dtype == np.int64 and w.user.tolist() == [7, 8] and w.group.tolist() == [0, 0]


def test_header_fallbacks():
    assert parse_header((" MaxNodes: 256",))["machine_procs"] == 256
    assert parse_header((" MaxNodes: 64", " MaxProcs: 128"))["machine_procs"] == 128
    assert parse_header((" TimeZone: 3600",))["timezone"] == "Etc/GMT-1"
    assert parse_header((" TimeZone: -28800",))["timezone"] == "Etc/GMT+8"
    assert parse_header((" TimeZone: 0", " TimeZoneString: US/Pacific"))["timezone"] == "US/Pacific"
    assert parse_header(()) == {"machine_procs": None, "unix_start": None, "timezone": None}


def test_no_machine_size_reads_and_procs_overrides(tmp_path):
    p = write(tmp_path, GOOD)
    assert read_swf(p).machine_procs is None
    assert read_swf(p, procs=430).machine_procs == 430


def test_gzip_and_name(tmp_path):
    p = tmp_path / "X-1.swf.gz"
    p.write_bytes(gzip.compress(GOOD.encode()))
    w = read_swf(p)
    assert w.name == "X-1" and len(w) == 2


def test_comments_between_jobs_and_blank_lines(tmp_path):
    lines = GOOD.splitlines()
    w = read_swf(write(tmp_path, "; a\n\n" + lines[0] + "\n; mid\n   \n" + lines[1] + "\n"))
    assert len(w) == 2 and w.header == (" a", " mid")


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("; h\n1 2 3\n", 2, "expected 18 fields, found 3"),
        (GOOD + "3 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1 9\n", 3, "found 19"),
        ("; h\n" + GOOD.replace("50.5", "abc"), 3, "field 4 (runtime) is not a number"),
        (GOOD.replace("50.5", "nan"), 2, "not a number"),
        (GOOD.replace("50.5", "inf"), 2, "not a number"),
        (GOOD.replace(" 2 1.25", " 2.5 1.25"), 2, "field 5 (procs) must be an integer"),
        ("; only a header\n", None, "no jobs"),
        ("", None, "no jobs"),
    ],
)
def test_errors_name_file_line_problem(tmp_path, text, line, words):
    p = write(tmp_path, text, "bad.swf")
    with pytest.raises(SWFError) as info:
        read_swf(p)
    assert info.value.line == line and words in info.value.problem
    msg = str(info.value)
    assert str(p) in msg and "\n" not in msg
    if line is not None:
        assert f"bad.swf:{line}:" in msg


def test_missing_file_and_corrupt_gzip(tmp_path):
    with pytest.raises(SWFError, match="no such file"):
        read_swf(tmp_path / "nope.swf")
    data = gzip.compress((GOOD * 200).encode())
    with pytest.raises(SWFError, match="gzip"):
        read_swf(write(tmp_path, data[: len(data) // 2], "cut.swf.gz"))
    with pytest.raises(SWFError, match="gzip"):
        read_swf(write(tmp_path, b"\x1f\x8b" + b"garbage" * 10, "junk.swf.gz"))


def test_write_is_atomic_and_formats(tmp_path):
    w = read_swf(write(tmp_path, "; MaxProcs: 8\n" + GOOD))
    out = write_swf(w, tmp_path / "o.swf")
    text = out.read_text().splitlines()
    assert text[0] == "; MaxProcs: 8"
    assert text[1].split() == "1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1".split()
    assert text[2].split()[3:6] == ["50.5", "2", "1.25"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    same(read_swf(write_swf(w, tmp_path / "o.swf.gz")), w)


@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz", "lublin_256.swf.gz"])
def test_real_trace_round_trip(tmp_path, name):
    w = read_swf(trace_path(name))
    same(read_swf(write_swf(w, tmp_path / "rt.swf")), w)


# ------------------------------------------------------------------------------- hypothesis
finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
ints = st.integers(min_value=-(2**40), max_value=2**40)


@st.composite
def workloads(draw):
    n = draw(st.integers(min_value=1, max_value=20))
    cols = {}
    for name in SWF_FIELDS:
        elem = finite if name in FLOAT_FIELDS else ints
        cols[name] = draw(st.lists(elem, min_size=n, max_size=n, unique=name == "id"))  # job numbers are unique
    header = draw(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30), max_size=4))
    return Workload.from_columns(cols, header=tuple(header), name="h")


@given(workloads(), st.booleans())
@settings(max_examples=examples(40))
def test_round_trip_generated(tmp_path_factory, w, gz):
    path = tmp_path_factory.mktemp("rt") / ("g.swf.gz" if gz else "g.swf")
    back = read_swf(write_swf(w, path))
    for name in SWF_FIELDS:
        np.testing.assert_array_equal(getattr(back, name), getattr(w, name), err_msg=name)
    assert back.header == w.header


damage = st.one_of(
    st.text(max_size=60),
    st.binary(max_size=60),
    st.lists(st.sampled_from(["1", "-1", "2.5", "nan", "NaN", "inf", "-inf", "1e400", "NA", "", "x", "0x1", "1,5", '"', ";"]), max_size=25).map(" ".join),
    st.lists(st.integers(-5, 5).map(str), min_size=0, max_size=30).map(" ".join),
)


@given(st.lists(damage, min_size=1, max_size=3), st.integers(0, 2), st.booleans())
@settings(max_examples=examples(60))
def test_damaged_lines_only_raise_swferror(tmp_path_factory, bad_lines, where, gz):
    good = GOOD.encode().splitlines()
    lines = good[:where] + [b.encode("utf-8", "surrogatepass") if isinstance(b, str) else b for b in bad_lines] + good[where:]
    data = b"; MaxProcs: 8\n" + b"\n".join(lines) + b"\n"
    path = tmp_path_factory.mktemp("dmg") / ("d.swf.gz" if gz else "d.swf")
    path.write_bytes(gzip.compress(data) if gz else data)
    try:
        w = read_swf(path)
    except SWFError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:  # damage that is still valid SWF (blank lines, comments, 18 numbers) must parse exactly
        assert len(w) >= 2
        assert all(np.isfinite(getattr(w, c)).all() for c in FLOAT_FIELDS)
        assert set(ALL_COLUMNS) <= set(w.columns())


def test_user_groups_survive_write_and_read(tmp_path):
    w = read_swf(write(tmp_path, GOOD)).replace(group=np.array([2, 5]))
    back = read_swf(write_swf(w, tmp_path / "g.swf"))
    assert back.group.tolist() == [2, 5] and back.header[-1] == " SchedlabUserGroups: 7:2 8:5"
    assert write_swf(back, tmp_path / "g2.swf").read_text() == (tmp_path / "g.swf").read_text()
    mixed = w.replace(user=np.array([7, 7]))  # one user in two groups is not a user grouping
    assert read_swf(write_swf(mixed, tmp_path / "m.swf")).group.tolist() == [0, 0]


def test_a_repeated_job_number_is_an_error_naming_both_lines(tmp_path, capsys):
    """Issue 43: a trace with job 5 twice was simulated and --schedule-out wrote two rows with id 5.
    Lines: 1 header, 2 job 1, 3 comment, 4 job 5, 5 job 2, 6 job 5 again, 7 job 2 again: the first repeat in
    file order is line 6 (of line 4); two repeated numbers in all. -1 (unknown) may repeat."""
    from schedlab.cli.main import main
    from conftest import one_line_error

    rows = ["1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1", "; note", "5 1 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1",
            "2 2 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1", "5 3 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1",
            "2 4 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1"]
    path = tmp_path / "dup.swf"
    path.write_text("; MaxProcs: 8\n" + "\n".join(rows) + "\n")
    with pytest.raises(SWFError, match=r"dup.swf:6: job number 5 repeats the job on line 4 \(2 repeated job numbers"):
        read_swf(path)
    code = main(["simulate", str(path)])
    one_line_error(code, capsys.readouterr().err, f"{path}:6:", "job number 5 repeats the job on line 4", "must be unique")
    unknown = tmp_path / "unknown.swf"
    unknown.write_text("; MaxProcs: 8\n" + "\n".join(r.replace("5 ", "-1 ", 1) if r.startswith("5 ") else r for r in rows[:3]) + "\n")
    assert list(read_swf(unknown).id) == [1, -1]
