"""Indexed binary min-heaps of job indices for the event loop (finish events, estimated ends).

A heap lives in two rows of the site's int64 matrix ``SI``: row ``h`` holds job indices in heap
order, row ``p`` each job's slot in row ``h`` (or -1); every function takes and returns the size
``n``. Jobs are ordered by ``SF[k, job]`` (a row of the site's float matrix), ties by job index,
so the order never depends on insertion history (deterministic events, SimPy style). The slot row
makes removal of any job O(log n). Rows of two matrices, not separate arrays, because every
array argument of a compiled call costs time in the hot loop. The functions with loops are
compiled without numba's reference counting (``_nrt=False``, borrowed arrays only): inlined, each
call cost atomic increfs and decrefs of both matrices (EASY on CTC-1024: 0.22 s -> 0.20 s).
"""

from __future__ import annotations

from .._config import njit


@njit(inline="always")
def _less(SF, k, a, b):
    return SF[k, a] < SF[k, b] or (SF[k, a] == SF[k, b] and a < b)


@njit(_nrt=False)
def _sift_up(SI, SF, h, p, k, i):
    j = SI[h, i]
    while i > 0:
        up = (i - 1) >> 1
        q = SI[h, up]
        if _less(SF, k, j, q):
            SI[h, i] = q
            SI[p, q] = i
            i = up
        else:
            break
    SI[h, i] = j
    SI[p, j] = i


@njit(_nrt=False)
def _sift_down(SI, SF, h, p, k, n, i):
    j = SI[h, i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _less(SF, k, SI[h, c + 1], SI[h, c]):
            c += 1
        if _less(SF, k, SI[h, c], j):
            SI[h, i] = SI[h, c]
            SI[p, SI[h, i]] = i
            i = c
        else:
            break
    SI[h, i] = j
    SI[p, j] = i


@njit(_nrt=False)
def heap_push(SI, SF, h, p, k, n, j):
    """Insert job ``j``; returns the new size."""
    SI[h, n] = j
    SI[p, j] = n
    _sift_up(SI, SF, h, p, k, n)
    return n + 1


@njit(_nrt=False)
def heap_pop(SI, SF, h, p, k, n):
    """Remove the job with the smallest key; returns (job, new size)."""
    top = SI[h, 0]
    n -= 1
    if n > 0:
        SI[h, 0] = SI[h, n]
        SI[p, SI[h, 0]] = 0
        _sift_down(SI, SF, h, p, k, n, 0)
    SI[p, top] = -1
    return top, n


@njit(_nrt=False)
def heap_remove(SI, SF, h, p, k, n, j):
    """Remove job ``j`` (which must be in the heap); returns the new size."""
    i = SI[p, j]
    n -= 1
    if i != n:
        last = SI[h, n]
        SI[h, i] = last
        SI[p, last] = i
        _sift_down(SI, SF, h, p, k, n, i)
        _sift_up(SI, SF, h, p, k, SI[p, last])
    SI[p, j] = -1
    return n


# ---------------------------------------------------------------------------- sorted list
@njit(_nrt=False)
def _find(SI, SF, row, k, n, j):
    """First slot of row ``row`` (sorted by (SF[k, job], job), n entries) not before job j."""
    key = SF[k, j]
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        other = SI[row, mid]
        if SF[k, other] < key or (SF[k, other] == key and other < j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(_nrt=False)
def sorted_insert(SI, SF, row, k, n, j):
    """Insert job j into row ``row`` kept sorted by (SF[k, job], job); returns the new size.

    A sorted list rather than a heap where walks in key order matter more than updates (the
    running jobs by estimated end: EASY's reservation and the conservative profile walk them).
    """
    lo = _find(SI, SF, row, k, n, j)
    for i in range(n, lo, -1):
        SI[row, i] = SI[row, i - 1]
    SI[row, lo] = j
    return n + 1


@njit(_nrt=False)
def sorted_remove(SI, SF, row, k, n, j):
    """Remove job j from the sorted row ``row``; returns the new size."""
    lo = _find(SI, SF, row, k, n, j)
    for i in range(lo, n - 1):
        SI[row, i] = SI[row, i + 1]
    return n - 1
