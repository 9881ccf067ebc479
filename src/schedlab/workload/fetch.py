"""`fetch`: a Parallel Workloads Archive trace by its archive name into a local cache, verified.

The archive (Feitelson et al., https://www.cs.huji.ac.il/labs/parallel/workload/) keeps each log
as ``<base>/<folder>/<archive name>.swf.gz``. :func:`fetch` downloads it into ``<dir>/<name>.part``
(resuming a ``.part`` left by a broken download with an HTTP ``Range`` request, retrying broken
transfers), checks it, and only then renames it atomically to ``<dir>/<name>.swf.gz``: a file
under the final name is always complete and verified.

Checksums (:data:`ARCHIVE`) are sha256 of the *uncompressed* SWF text, so a re-compressed copy of
the same trace still verifies. Their source, stated honestly: schedlab's authors could not reach
the archive when this table was written; the values are those of the copies in the project's
``shared/workloads`` folder (MANIFEST.md, "sha256 of uncompressed .swf", copies taken from public
mirrors on GitHub). A trace whose archive file differs from those copies fails verification, with
both checksums in the error. Traces without a known checksum are refused unless the caller passes
``unverified=True`` (``--unverified``), in which case the computed checksum is printed so that it
can be added to the table.

The base URL is ``https://www.cs.huji.ac.il/labs/parallel/workload`` unless the environment variable
``SCHEDLAB_ARCHIVE_URL`` or the ``base_url`` argument (``--base-url``) says otherwise (a mirror, or
a local server in tests). The cache folder is ``$SCHEDLAB_CACHE_DIR/workloads``, else
``~/.cache/schedlab/workloads`` (:mod:`schedlab._cache`), unless ``dest`` (``--dir``) is given. A
fetched trace is then usable by its name in every verb (:func:`schedlab.workload.load.resolve_trace`).
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import SchedlabError

__all__ = ["ARCHIVE", "ArchiveTrace", "FetchError", "fetch", "find_trace", "default_cache", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload"


class FetchError(SchedlabError):
    """A trace that cannot be fetched (unknown name, network, checksum)."""


@dataclass(frozen=True)
class ArchiveTrace:
    """One archive log: its name, the archive folder, and the sha256 of its uncompressed SWF."""

    name: str
    folder: str
    sha256: str | None

    @property
    def file(self) -> str:
        return f"{self.name}.swf.gz"


#: archive name -> (archive folder, sha256 of the uncompressed .swf or None when unknown); source: see module docstring
ARCHIVE: dict[str, ArchiveTrace] = {
    t.name.lower(): t
    for t in (
        ArchiveTrace("CTC-SP2-1996-3.1-cln", "l_ctc_sp2", "8e33a9b597e1ddda2d2164347bac08c9444e1a2620a7947df52f0a1622ec4cde"),
        ArchiveTrace("KTH-SP2-1996-2.1-cln", "l_kth_sp2", "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"),
        ArchiveTrace("SDSC-SP2-1998-4.2-cln", "l_sdsc_sp2", "2bb635f4b5793f52bd49ccb8fd913d95f9c5be6346925162cadcaf0117e28cf2"),
        ArchiveTrace("SDSC-BLUE-2000-4.2-cln", "l_sdsc_blue", "13892839f430583231a14bb811fd50a31b5b529eb37faacdbbefb71e73390e3e"),
        ArchiveTrace("SDSC-DS-2004-2.1-cln", "l_sdsc_ds", "76814a412fa415e68ffb8cc0ae801c870988e5577e60275588050332f6b1e690"),
        ArchiveTrace("LANL-CM5-1994-4.1-cln", "l_lanl_cm5", "4766a62dabcc7403ec0a55534aff297203e692ddbf6637bd40100a3800f6354a"),
        ArchiveTrace("SDSC-Par-1996-3.1-cln", "l_sdsc_par", "fcb46fa6462b7ac460963025749f604f28b2e813101edd082a720842e80a7aa8"),
        ArchiveTrace("HPC2N-2002-2.2-cln", "l_hpc2n", "77b8993c73ae438385f6c0015708251f52dc316267b03ac19a406fbea2802afa"),
        ArchiveTrace("LLNL-Thunder-2007-1.1-cln", "l_llnl_thunder", "aad5a3120a6adf0342d46fb4830e022121cdfbd3de9ecdd9cf10145b8864b6a5"),
        ArchiveTrace("CEA-Curie-2011-2.1-cln", "l_cea_curie", "b732a04aea71e2f154c8feee580be549d0bba1462bc91ec581944cb3dd6d442d"),
        ArchiveTrace("RICC-2010-2", "l_ricc", "22bd213c68f9cbaf3cb0e7d43cae3c89230b49590a4cf77b76113a027b673987"),
        ArchiveTrace("METACENTRUM-2009-2", "l_metacentrum", "ea27bbff7260e450f06ffce0fa0401b591e878a16afa1d289d9d14d28a20e4da"),
        ArchiveTrace("OSC-Clust-2000-3.1-cln", "l_osc", "0ed54b81ccb10b11fbead557af8a37dd135e07e27756f1016c80ebceb7c8f79a"),
        ArchiveTrace("NASA-iPSC-1993-3.1-cln", "l_nasa_ipsc", "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"),
        ArchiveTrace("LPC-EGEE-2004-1.2-cln", "l_lpc", "c1ddb989e9ed9a5ad8eb29c9b5d809a1db82b3271fa141e6e118e41753f8093b"),
        ArchiveTrace("LCG-2005-1", "l_lcg", "f8e60cbd08ca990bdd39effc3b3787d7e60539419e2345661c0d5c3b4fa60f4e"),
        # no copy in shared/workloads: checksum unknown, refused unless --unverified
        ArchiveTrace("ANL-Intrepid-2009-1", "l_anl_int", None),
        ArchiveTrace("LLNL-Atlas-2006-2.1-cln", "l_llnl_atlas", None),
        ArchiveTrace("PIK-IPLEX-2009-1", "l_pik_iplex", None),
        ArchiveTrace("Sandia-Ross-2001-1.1-cln", "l_sandia_ross", None),
    )
}


def find_trace(name: str) -> ArchiveTrace:
    """The archive trace named ``name`` (case-insensitive, ``.swf``/``.gz`` optional; a unique
    prefix such as ``CTC-SP2`` is enough)."""
    key = name.strip().lower()
    for suffix in (".gz", ".swf"):
        if key.endswith(suffix):
            key = key[: -len(suffix)]
    if key in ARCHIVE:
        return ARCHIVE[key]
    hits = [t for k, t in ARCHIVE.items() if k.startswith(key)]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(t.name for t in ARCHIVE.values())
    if hits:
        raise FetchError(f"{name!r} is ambiguous: {', '.join(t.name for t in hits)}")
    raise FetchError(f"unknown archive trace {name!r}; known: {known}")


def bundled_file(trace: ArchiveTrace) -> Path | None:
    """The packaged copy of ``trace`` when schedlab ships it (KTH-SP2), else None."""
    from .load import bundled_path

    return bundled_path(trace.name)


def default_cache() -> Path:
    """``workloads/`` of schedlab's cache folder (:func:`schedlab._cache.fetched_traces`)."""
    from .._cache import fetched_traces

    return fetched_traces()


def swf_sha256(data: bytes) -> str:
    """sha256 of the uncompressed SWF text of gzip (or plain) ``data``."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise FetchError(f"downloaded file is not valid gzip ({exc})") from None
    return hashlib.sha256(data).hexdigest()


def _download(url: str, part: Path, *, timeout: float, progress: Callable[[int, int | None], None] | None) -> None:
    """Append the rest of ``url`` to ``part`` (Range request when it has bytes already)."""
    import urllib.error
    import urllib.request

    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # nothing left to fetch: the .part is complete
            return
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    with response:
        if have and response.status != 206:  # server ignored the Range: start over
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        mode = "ab" if have else "wb"
        done = have
        with open(part, mode) as fh:
            if progress:
                progress(done, total)
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                fh.write(chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
        if total is not None and done < total:
            raise ConnectionError(f"connection closed after {done:,} of {total:,} bytes")


def fetch(
    name: str,
    dest: str | os.PathLike | None = None,
    *,
    base_url: str | None = None,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 60.0,
    unverified: bool = False,
    progress: Callable[[int, int | None], None] | None = None,
    on_retry: Callable[[int, str], None] | None = None,
    bundled: bool = True,
) -> Path:
    """Download archive trace ``name`` into ``dest`` (default :func:`default_cache`); return its path.

    A verified file already there is returned as is. A broken transfer is retried ``retries``
    times (``backoff`` seconds times the attempt number between tries), each resuming the
    ``.part`` file; if all fail, the ``.part`` stays so that the next call resumes it. A checksum
    mismatch removes the ``.part`` and raises :class:`FetchError` naming both checksums.
    A trace shipped with schedlab (:func:`bundled_file`) needs no download: with ``bundled`` (the
    default) its packaged copy is copied into ``dest`` instead.
    """
    trace = find_trace(name)
    if trace.sha256 is None and not unverified:
        raise FetchError(f"{trace.name}: no checksum known in schedlab's table; pass --unverified to fetch it "
                         "without verification (its sha256 is printed so it can be added)")
    folder = Path(dest) if dest is not None else default_cache()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"{folder}: cannot create cache folder: {exc.strerror or exc}") from None
    final = folder / trace.file
    if final.exists() and (trace.sha256 is None or swf_sha256(final.read_bytes()) == trace.sha256):
        return final
    packaged = bundled_file(trace) if bundled else None
    if packaged is not None:
        from .._atomic import atomic_write_bytes

        atomic_write_bytes(final, packaged.read_bytes(), fsync=False)
        return final
    base = (base_url or os.environ.get("SCHEDLAB_ARCHIVE_URL") or DEFAULT_BASE_URL).rstrip("/")
    url = f"{base}/{trace.folder}/{trace.file}"
    part = folder / (trace.file + ".part")
    attempt = 0
    while True:
        try:
            _download(url, part, timeout=timeout, progress=progress)
            break
        except FetchError:
            raise
        except (OSError, http.client.HTTPException) as exc:  # URLError, resets, timeouts, short reads
            attempt += 1
            reason = getattr(exc, "reason", None) or exc
            if attempt > retries:
                have = part.stat().st_size if part.exists() else 0
                if have == 0:  # nothing to resume: no empty .part left behind, and none named
                    part.unlink(missing_ok=True)
                    raise FetchError(f"{url}: download failed after {attempt} tries ({reason}); nothing was "
                                     "downloaded, run the same command again when the archive is reachable") from None
                raise FetchError(f"{url}: download failed after {attempt} tries ({reason}); {have:,} bytes kept in "
                                 f"{part}, run the same command again to resume") from None
            if on_retry:
                on_retry(attempt, str(reason))
            time.sleep(backoff * attempt)
    got = swf_sha256(part.read_bytes())
    if trace.sha256 is not None and got != trace.sha256:
        part.unlink()
        raise FetchError(f"{url}: checksum mismatch (sha256 of the uncompressed SWF {got}, expected {trace.sha256}); "
                         f"nothing kept")
    os.replace(part, final)
    return final
