"""Numba compile flags in one place (STUMPY style): every kernel uses :func:`njit` from here.

``cache=True`` keeps compiled kernels on disk so a new process reaches its first simulation in
about a second. Numba keys a cached kernel on its own source file only (the index holds the
defining file's modification time and size), but our kernels read constants (state layouts,
the registry's kernel table) and inline kernels from other modules: after an edit to one of
those, a stale kernel would silently use the old layout. So the cache lives in a folder named
after a hash of the compiled sources only, inside schedlab's one cache folder
(``$SCHEDLAB_CACHE_DIR``, default ``~/.cache/schedlab``; :mod:`schedlab._cache`): every module that defines kernels (its text contains ``njit``; such
modules hold kernels only, the Python drivers live elsewhere), :data:`KERNEL_INPUTS` (the
plain modules kernels read at compile time), and the registry's rule table (each rule's name
and kernel, each order's name: what the compiled rule table and order codes are made of; a
rule's help text is not). Editing anything else (CLI help, drivers, reports) reuses the compiled kernels. Set ``SCHEDLAB_NUMBA_BOUNDSCHECK=1`` to compile kernels with bounds
checks while debugging; set ``NUMBA_DISABLE_JIT=1`` (numba's own switch) to run kernels as plain
Python, e.g. for coverage.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


#: plain modules whose values kernels read at compile time (slot indices and codes; tests/test_kernel_inputs.py
#: finds every such import, chains included)
KERNEL_INPUTS: tuple[str, ...] = ("sim/state.py", "sim/ts_layout.py", "slurm/layout.py", "federation/layout.py",
                                  "grid/reading_codes.py", "strategy/scojo_config.py")


def compiled_sources() -> list[Path]:
    """The files the kernel cache is keyed on: modules defining kernels and :data:`KERNEL_INPUTS`."""
    root = Path(__file__).resolve().parent
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in KERNEL_INPUTS or b"njit" in path.read_bytes():
            out.append(path)
    return out


def _source_digest() -> str:
    """A short hash of the compiled sources (names and contents)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in compiled_sources():
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    from .strategy import registry

    h.update(repr([(r.name, r.kernel) for r in registry.DISPATCH] + [o.name for o in registry.ORDERS]).encode())
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    from ._cache import cache_root

    return str(cache_root() / f"numba-{_source_digest()}")


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
