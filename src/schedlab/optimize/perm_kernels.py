"""Compiled operators of the permutation GA (slowdown-guided-ga-federation): kernels only, the
driver is :mod:`schedlab.optimize.federation_ga`."""

from __future__ import annotations

import numpy as np

from .._config import njit


@njit
def uox_pairs(A, B, masks, cross):  # pragma: no cover - compiled
    """Uniform-mask order crossover of the crossed matings (``cross``): Y0 = (A | B's order), Y1 = (B | A's order)."""
    m, n = A.shape
    Y0 = A.copy()
    Y1 = B.copy()
    taken0 = np.zeros(n, dtype=np.bool_)
    taken1 = np.zeros(n, dtype=np.bool_)
    for i in range(m):
        if not cross[i]:
            continue
        taken0[:] = False
        taken1[:] = False
        for k in range(n):
            if masks[i, k]:
                taken0[A[i, k]] = True
                taken1[B[i, k]] = True
        p0 = 0
        p1 = 0
        for k in range(n):
            if masks[i, k]:
                continue
            while taken0[B[i, p0]]:
                p0 += 1
            Y0[i, k] = B[i, p0]
            p0 += 1
            while taken1[A[i, p1]]:
                p1 += 1
            Y1[i, k] = A[i, p1]
            p1 += 1
    return Y0, Y1
