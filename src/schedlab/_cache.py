"""schedlab's one cache folder: ``$SCHEDLAB_CACHE_DIR``, else ``~/.cache/schedlab``.

It holds the compiled kernels (``numba-<hash>/``, :mod:`schedlab._config`) and the traces
``schedlab workload fetch`` downloads (``workloads/``, :mod:`schedlab.workload.fetch`).
``$SCHEDLAB_CACHE``, the name the fetch cache used before, still works when
``$SCHEDLAB_CACHE_DIR`` is not set (deprecated).
"""

from __future__ import annotations

import os
from pathlib import Path

#: the variable naming the cache folder, and its deprecated alias
CACHE_VAR = "SCHEDLAB_CACHE_DIR"
DEPRECATED_CACHE_VAR = "SCHEDLAB_CACHE"


def fetched_traces() -> Path:
    """Where ``schedlab workload fetch`` keeps traces, and where names resolve to them: ``workloads/``."""
    return cache_root() / "workloads"


def cache_root() -> Path:
    """The cache folder: ``$SCHEDLAB_CACHE_DIR``, else ``$SCHEDLAB_CACHE`` (deprecated), else ~/.cache/schedlab."""
    root = os.environ.get(CACHE_VAR) or os.environ.get(DEPRECATED_CACHE_VAR)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "schedlab"
