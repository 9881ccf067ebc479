"""Numba compile flags in one place (STUMPY style): every kernel uses :func:`njit` from here.

``cache=True`` writes compiled kernels beside the sources so a new process reaches its first
simulation in about a second. Set ``SCHEDLAB_NUMBA_BOUNDSCHECK=1`` to compile kernels with bounds
checks while debugging; set ``NUMBA_DISABLE_JIT=1`` (numba's own switch) to run kernels as plain
Python, e.g. for coverage.
"""

from __future__ import annotations

import os

import numba

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
