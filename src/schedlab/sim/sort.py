"""An in-place sort of job numbers that allocates nothing, for loops compiled without numba's
reference counting (``_nrt=False``: they cannot call ``np.argsort`` or ``ndarray.sort``, which
allocate).

:func:`sort_jobs` sorts ``a[:n]`` ascending by (``s * k1[j]``, ``s * k2[j]``, ``j``): a total
order (job numbers are unique), so the result is the one stable sorts by the same keys give.
Quicksort (median of three, Hoare partition) with insertion sort below 16 elements; the explicit
stack of pending ranges lives in a caller's scratch row (at most 2 log2(n) entries).
"""

from __future__ import annotations

from .._config import njit

_SMALL = 16  # ranges this short are insertion-sorted


@njit(inline="always")
def _lt(k1, k2, s, x, y):
    """x before y: by s * k1, then s * k2, then job number (``k1`` None: by value x < y)."""
    if k1 is None:  # pruned at compile time
        return x < y
    a, b = s * k1[x], s * k1[y]
    if a != b:
        return a < b
    a, b = s * k2[x], s * k2[y]
    if a != b:
        return a < b
    return x < y


@njit(_nrt=False)  # no reference counting: borrowed arrays only
def sort_jobs(a, n, k1, k2, s, stack):
    """Sort ``a[:n]`` in place ascending by (s * k1[j], s * k2[j], j), or by value when ``k1`` is
    None; ``stack``: scratch of at least 2 log2(n) + 2 integers."""
    top = 0
    lo, hi = 0, n - 1
    while True:
        while hi - lo >= _SMALL:
            mid = (lo + hi) >> 1
            if _lt(k1, k2, s, a[mid], a[lo]):
                a[mid], a[lo] = a[lo], a[mid]
            if _lt(k1, k2, s, a[hi], a[mid]):
                a[mid], a[hi] = a[hi], a[mid]
                if _lt(k1, k2, s, a[mid], a[lo]):
                    a[mid], a[lo] = a[lo], a[mid]
            p = a[mid]
            i, j = lo, hi
            while i <= j:
                while _lt(k1, k2, s, a[i], p):
                    i += 1
                while _lt(k1, k2, s, p, a[j]):
                    j -= 1
                if i <= j:
                    a[i], a[j] = a[j], a[i]
                    i += 1
                    j -= 1
            if j - lo < hi - i:  # push the larger side, go on with the smaller
                stack[top], stack[top + 1] = i, hi
                hi = j
            else:
                stack[top], stack[top + 1] = lo, j
                lo = i
            top += 2
        for x in range(lo + 1, hi + 1):
            v = a[x]
            y = x - 1
            while y >= lo and _lt(k1, k2, s, v, a[y]):
                a[y + 1] = a[y]
                y -= 1
            a[y + 1] = v
        if top == 0:
            return
        top -= 2
        lo, hi = stack[top], stack[top + 1]
