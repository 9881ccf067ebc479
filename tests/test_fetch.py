"""`workload fetch` against a local HTTP server on 127.0.0.1 (no test reaches the internet):
success, checksum mismatch, and a server that dies mid-download (then resume with Range)."""

from __future__ import annotations

import gzip
import hashlib
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from schedlab.cli.main import main
from schedlab.workload.fetch import ARCHIVE, FetchError, fetch, find_trace
from schedlab.workload.load import bundled_path

KTH = find_trace("KTH-SP2")
GOOD = bundled_path("KTH-SP2").read_bytes()  # the bundled copy of the archive file


class Archive(BaseHTTPRequestHandler):
    """Serves ``files`` (path -> bytes) with Range support; ``cut_first`` breaks the first N GETs
    after half the body (Content-Length promises all of it)."""

    files: dict[str, bytes] = {}
    cut_first = 0
    ranges: list[str | None] = []

    def do_GET(self):  # noqa: N802
        body = self.files.get(self.path)
        type(self).ranges.append(self.headers.get("Range"))
        if body is None:
            self.send_error(404)
            return
        start = 0
        if self.headers.get("Range"):
            start = int(self.headers["Range"].split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        rest = body[start:]
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        if type(self).cut_first > 0:
            type(self).cut_first -= 1
            self.wfile.write(rest[: len(rest) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(rest)

    def log_message(self, *args):  # quiet
        pass


@contextmanager
def serving(handler):
    """A ThreadingHTTPServer on 127.0.0.1 with ``handler``; yields its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server():
    Archive.files = {}
    Archive.cut_first = 0
    Archive.ranges = []
    with serving(Archive) as url:
        yield url


def _url_path(trace) -> str:
    return f"/{trace.folder}/{trace.file}"


def test_the_table_checksum_is_that_of_the_bundled_trace():
    # the table's value for KTH-SP2 is the sha256 of the uncompressed SWF, and the bundled copy has it
    assert hashlib.sha256(gzip.decompress(GOOD)).hexdigest() == KTH.sha256
    assert all(t.sha256 is None or len(t.sha256) == 64 for t in ARCHIVE.values())


def test_success_writes_the_verified_file_under_its_archive_name(server, tmp_path):
    Archive.files = {_url_path(KTH): GOOD}
    seen = []
    path = fetch("kth-sp2-1996-2.1-cln.swf.gz", tmp_path, base_url=server, bundled=False, progress=lambda d, t: seen.append((d, t)))
    assert path == tmp_path / "KTH-SP2-1996-2.1-cln.swf.gz"
    assert path.read_bytes() == GOOD
    assert not (tmp_path / (KTH.file + ".part")).exists()
    assert seen[-1] == (len(GOOD), len(GOOD))  # progress reached the total
    # a second call finds the verified file and does not download again
    before = len(Archive.ranges)
    assert fetch("KTH-SP2", tmp_path, base_url=server, bundled=False) == path
    assert len(Archive.ranges) == before


def test_cli_fetch_succeeds_with_the_base_url_from_the_environment(server, tmp_path, monkeypatch, capsys):
    other = find_trace("ANL-Intrepid")  # not bundled (KTH-SP2 is, and is copied, not downloaded)
    Archive.files = {_url_path(other): GOOD}
    monkeypatch.setenv("SCHEDLAB_ARCHIVE_URL", server)
    assert main(["workload", "fetch", "ANL-Intrepid", "--unverified", "--dir", str(tmp_path)]) == 0
    assert f"NOT verified (sha256 of the uncompressed SWF: {KTH.sha256})" in capsys.readouterr().out
    assert (tmp_path / other.file).read_bytes() == GOOD and Archive.ranges == [None]


def test_checksum_mismatch_keeps_nothing(server, tmp_path, capsys):
    other = gzip.compress(gzip.decompress(GOOD).replace(b" 1 ", b" 2 ", 1))  # one field changed
    Archive.files = {_url_path(KTH): other}
    with pytest.raises(FetchError, match="checksum mismatch"):
        fetch("KTH-SP2", tmp_path, base_url=server, bundled=False)
    assert list(tmp_path.iterdir()) == []  # neither the final name nor a .part
    # through the CLI (a trace that is not bundled, served with KTH's bytes): one line, exit code 2
    ctc = find_trace("CTC-SP2")
    Archive.files = {_url_path(ctc): GOOD}
    assert main(["workload", "fetch", "CTC-SP2", "--dir", str(tmp_path), "--base-url", server]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "checksum mismatch" in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_server_gone_mid_download_then_resumed_with_a_range_request(server, tmp_path):
    Archive.files = {_url_path(KTH): GOOD}
    Archive.cut_first = 1
    with pytest.raises(FetchError, match="run the same command again to resume"):
        fetch("KTH-SP2", tmp_path, base_url=server, bundled=False, retries=0)
    part = tmp_path / (KTH.file + ".part")
    assert not (tmp_path / KTH.file).exists()  # never a partial file under the final name
    assert 0 < part.stat().st_size < len(GOOD)
    have = part.stat().st_size
    path = fetch("KTH-SP2", tmp_path, base_url=server, bundled=False, retries=0)
    assert Archive.ranges[-1] == f"bytes={have}-"  # resumed where it broke
    assert path.read_bytes() == GOOD and not part.exists()


def test_a_broken_transfer_is_retried_within_one_call(server, tmp_path):
    Archive.files = {_url_path(KTH): GOOD}
    Archive.cut_first = 2
    retries = []
    path = fetch("KTH-SP2", tmp_path, base_url=server, bundled=False, retries=3, backoff=0.0, on_retry=lambda a, r: retries.append(a))
    assert path.read_bytes() == GOOD
    assert retries == [1, 2]
    assert Archive.ranges[0] is None and all(r and r.startswith("bytes=") for r in Archive.ranges[1:])


def test_server_down_is_one_line_error_and_unknown_names_refused(tmp_path, capsys):
    with pytest.raises(FetchError, match="download failed"):
        fetch("KTH-SP2", tmp_path, base_url="http://127.0.0.1:9", retries=0, bundled=False)  # nothing listens on port 9
    assert not (tmp_path / KTH.file).exists()
    assert main(["workload", "fetch", "NO-SUCH-TRACE", "--dir", str(tmp_path)]) == 2
    assert "unknown archive trace" in capsys.readouterr().err
    with pytest.raises(FetchError, match="no checksum known"):
        fetch("ANL-Intrepid", tmp_path, base_url="http://127.0.0.1:9")


def test_bundled_trace_is_copied_not_downloaded(tmp_path, capsys):
    # issue 32: 'fetch KTH-SP2' went to the network for a trace schedlab ships
    assert main(["workload", "fetch", "KTH-SP2", "--dir", str(tmp_path), "--base-url", "http://127.0.0.1:9"]) == 0
    out = capsys.readouterr().out
    assert "bundled with schedlab and needs no fetch" in out and str(tmp_path / KTH.file) in out
    assert (tmp_path / KTH.file).read_bytes() == GOOD


def test_offline_says_nothing_was_downloaded(tmp_path, capsys):
    # issue 32: offline, the error said "0 bytes kept in ....part" of a file that did not exist
    assert main(["workload", "fetch", "CTC-SP2", "--dir", str(tmp_path), "--base-url", "http://127.0.0.1:9",
                 "--retries", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing was downloaded" in err and ".part" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_fetched_trace_is_used_by_name_in_every_verb(server, tmp_path, monkeypatch, capsys):
    # issue 32: 'workload info CTC-SP2-1996-3.1-cln' after 'fetch' said "no such file"
    monkeypatch.setenv("SCHEDLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHEDLAB_WORKLOADS", str(tmp_path / "no-workloads"))
    name = "ANL-Intrepid-2009-1"
    Archive.files = {_url_path(find_trace(name)): GOOD}  # KTH's bytes under another archive name
    code = main(["workload", "info", name, "--json"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and str(tmp_path / "cache" / "workloads") in err
    assert main(["workload", "fetch", name, "--unverified", "--base-url", server]) == 0
    assert (tmp_path / "cache" / "workloads" / f"{name}.swf.gz").exists()  # the one cache variable
    capsys.readouterr()
    for argv in (["workload", "info", name, "--json"], ["workload", "info", "anl-intrepid", "--json"],
                 ["simulate", name, "--months", "1", "--json"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        assert '"jobs": ' in out


def test_old_cache_variable_still_works(monkeypatch, tmp_path):
    from schedlab.workload.fetch import default_cache

    monkeypatch.delenv("SCHEDLAB_CACHE_DIR", raising=False)
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "old"))
    assert default_cache() == tmp_path / "old" / "workloads"
    monkeypatch.setenv("SCHEDLAB_CACHE_DIR", str(tmp_path / "new"))
    assert default_cache() == tmp_path / "new" / "workloads"
