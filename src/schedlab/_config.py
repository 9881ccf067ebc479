"""Numba compile flags in one place (STUMPY style): every kernel uses :func:`njit` from here.

``cache=True`` keeps compiled kernels on disk so a new process reaches its first simulation in
about a second. Numba keys a cached kernel on its own source file only, but our kernels read
constants (state layouts) from other modules: after an edit or a partial upgrade to one file, a
stale kernel would silently use the old layout. So the cache lives in a folder named after a
hash of every schedlab source file (``$SCHEDLAB_CACHE_DIR``, default ``~/.cache/schedlab``), and
any change to the package compiles afresh. Set ``SCHEDLAB_NUMBA_BOUNDSCHECK=1`` to compile kernels with bounds
checks while debugging; set ``NUMBA_DISABLE_JIT=1`` (numba's own switch) to run kernels as plain
Python, e.g. for coverage.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _source_digest() -> str:
    """A short hash of every .py file of the schedlab package (names and contents)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    base = os.environ.get("SCHEDLAB_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "schedlab")
    return os.path.join(base, f"numba-{_source_digest()}")


if not os.environ.get("NUMBA_CACHE_DIR"):  # a user's explicit numba setting wins
    numba.config.CACHE_DIR = _cache_dir()

#: flags passed to every ``numba.njit`` of schedlab
NJIT_FLAGS: dict = {
    "cache": True,
    "nogil": True,
    "fastmath": False,  # schedules must be exact and reproducible
    "boundscheck": os.environ.get("SCHEDLAB_NUMBA_BOUNDSCHECK", "") == "1",
}


def njit(fn=None, **overrides):
    """``numba.njit`` with schedlab's flags; use as ``@njit`` or ``@njit(inline="always")``."""
    flags = {**NJIT_FLAGS, **overrides}
    if fn is None:
        return lambda f: numba.njit(**flags)(f)
    return numba.njit(**flags)(fn)
