"""Which BLAS kernel this process computes with, for the run records and the replay promise.

OpenBLAS (numpy's BLAS) picks its kernels per CPU at load time (``OPENBLAS_CORETYPE`` overrides the
choice). Kernels round the last bit of a dot product or a matrix product differently, so an
optimizer whose own arithmetic goes through BLAS (CMA-ES's covariance algebra in the ``cma``
package; the k-means of the symbiotic rule evolution) replays bit for bit only under the kernel that
recorded it. Everything else in schedlab (the engines, the metrics of the golden cases, the ES,
NSGA-II) does not depend on it: README "Replays".
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def blas_kernel() -> str:
    """``"openblas 0.3.31 SkylakeX"`` for numpy's BLAS as loaded in this process (library, version,
    kernel architecture), or ``"unknown"`` when threadpoolctl cannot tell."""
    import numpy  # noqa: F401  (threadpoolctl lists only libraries already loaded)

    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # scikit-learn's dependency; absent only in a stripped environment
        return "unknown"
    blas = [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]
    # numpy's own (what its dot and linalg call); scipy may have loaded another OpenBLAS beside it
    blas.sort(key=lambda lib: "numpy" not in str(lib.get("filepath", "")))
    if not blas:
        return "unknown"
    parts = [blas[0].get("internal_api"), blas[0].get("version"), blas[0].get("architecture")]
    return " ".join(str(p) for p in parts if p) or "unknown"
