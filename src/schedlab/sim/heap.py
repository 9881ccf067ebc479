"""Indexed binary min-heaps of job indices for the event loop (finish events, estimated ends).

A heap is three things: ``heap`` (int64, the job indices in heap order), ``pos`` (int64 per job:
its slot in ``heap`` or -1) and a size ``n`` that every function takes and returns. Jobs are
ordered by ``key[job]``, ties by job index, so the order never depends on insertion history
(deterministic events, SimPy style). ``pos`` makes removal of any job O(log n).
"""

from __future__ import annotations

from .._config import njit


@njit(inline="always")
def _less(key, a, b):
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit
def _sift_up(heap, pos, key, i):
    j = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        q = heap[p]
        if _less(key, j, q):
            heap[i] = q
            pos[q] = i
            i = p
        else:
            break
    heap[i] = j
    pos[j] = i


@njit
def _sift_down(heap, pos, key, n, i):
    j = heap[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _less(key, heap[c + 1], heap[c]):
            c += 1
        if _less(key, heap[c], j):
            heap[i] = heap[c]
            pos[heap[i]] = i
            i = c
        else:
            break
    heap[i] = j
    pos[j] = i


@njit
def heap_push(heap, pos, n, key, j):
    """Insert job ``j``; returns the new size."""
    heap[n] = j
    pos[j] = n
    _sift_up(heap, pos, key, n)
    return n + 1


@njit
def heap_pop(heap, pos, n, key):
    """Remove the job with the smallest key; returns (job, new size)."""
    top = heap[0]
    n -= 1
    if n > 0:
        heap[0] = heap[n]
        pos[heap[0]] = 0
        _sift_down(heap, pos, key, n, 0)
    pos[top] = -1
    return top, n


@njit
def heap_remove(heap, pos, n, key, j):
    """Remove job ``j`` (which must be in the heap); returns the new size."""
    i = pos[j]
    n -= 1
    if i != n:
        last = heap[n]
        heap[i] = last
        pos[last] = i
        _sift_down(heap, pos, key, n, i)
        _sift_up(heap, pos, key, pos[last])
    pos[j] = -1
    return n
