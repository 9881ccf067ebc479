"""Node availability over time as bit-words, the way Slurm's backfill keeps it (backfill.c
``node_space_map``: time slots, each holding a bitmap of the nodes available in it; a job's
window is tested by combining the bitmaps of the slots across [start, start + limit]). Used by
the backfill pass of :mod:`schedlab.slurm.backfill` to find a job's earliest start in O(slots x
words) per pass instead of node by node.

Nodes are bits of ``uint64`` words (node v: bit v % 64 of word v // 64). What a backfill walk
reads at a candidate time t:

- the nodes *held* by the pass's reservations over the job's window: reservation [rb, re) holds
  its nodes for t when rb <= t + L (rb < t + L with bf_touch='exclusive') and re > t. A slot map
  (:func:`_slot_add`) keeps, for each slot [xs[i], xs[i + 1]) between consecutive reservation
  bounds, the union of the reservations covering it; for L > 0 a reservation with rb < re holds
  at t exactly when it covers a slot of the contiguous range from the slot holding t to the last
  slot beginning by t + L (before t + L, exclusive). Empty reservations (rb == re: a limit under
  bf_resolution) cover no slot but still hold over [rb - L, rb), and L <= 0 has no such range:
  both are tested reservation by reservation (:func:`_held_direct`);
- the free CPUs of the partition's nodes after each batch of expected ends, as bit planes
  (:func:`_planes_now`, :func:`_planes_extend`, made as far as a walk reaches: plane k holds bit k
  of each node's free CPUs; one plane for one-CPU nodes), so that the CPUs free on unheld nodes
  are sum_k 2^k popcount(plane_k & ~held).
"""

from __future__ import annotations

import numba
import numpy as np

from .._config import njit
from .layout import I_AOFF
from .ops import NO_NRT

ONE = np.uint64(1)
ZERO = np.uint64(0)

if numba.config.DISABLE_JIT:  # kernels as plain Python (coverage runs)

    def popcount(x):
        """The number of set bits of a uint64."""
        return bin(int(x)).count("1")

    def lowbit(x):
        """The index of the lowest set bit of a nonzero uint64."""
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def popcount(typingctx, x):
        """The number of set bits of a uint64 (llvm.ctpop)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]),
                                                "llvm.ctpop.i64")
            return builder.call(fn, [args[0]])

        return types.int64(x), codegen

    @intrinsic
    def lowbit(typingctx, x):
        """The index of the lowest set bit of a nonzero uint64 (llvm.cttz)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)]), "llvm.cttz.i64")
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

        return types.int64(x), codegen


@njit(**NO_NRT)
def _nwords(N):
    """Words of a bitmap of N nodes."""
    return (N + 63) >> 6


@njit(**NO_NRT)
def _set_bit(row, v):
    row[v >> 6] |= ONE << np.uint64(v & 63)


@njit(**NO_NRT)
def _planes_of(node_cpus):
    """Bit planes a node's free CPUs need (1 for one-CPU nodes)."""
    top = 1
    for v in range(node_cpus.shape[0]):
        top = max(top, node_cpus[v])
    k = 0
    while top > 0:
        k += 1
        top >>= 1
    return k


@njit(**NO_NRT)
def _write_node(out, b, v, c):
    """Node v's free CPUs ``c`` into the bit planes ``out[b, k, word]``."""
    w = v >> 6
    m = ONE << np.uint64(v & 63)
    for k in range(out.shape[1]):
        if (c >> k) & 1:
            out[b, k, w] |= m
        else:
            out[b, k, w] &= ~m


@njit(**NO_NRT)
def _planes_now(p, part_nodes, free, out, cnt):
    """``out[0]``: the free CPUs of partition p's nodes now as bit planes; ``cnt[v]`` = free[v]."""
    for k in range(out.shape[1]):
        for w in range(out.shape[2]):
            out[0, k, w] = ZERO
    for v in range(free.shape[0]):
        cnt[v] = free[v]
        if part_nodes[p, v] and free[v] > 0:
            _write_node(out, 0, v, free[v])


@njit(**NO_NRT)
def _planes_extend(p, part_nodes, byend, bcount, done, upto, JI, anode, acnt, alen, out, cnt):
    """``out[b]`` for b = done + 1 .. upto (``out[:done + 1]`` made): the free CPUs of partition p's
    nodes after the will-run batches [0, b), as bit planes; ``cnt``: each node's free CPUs after
    the batches [0, done), updated."""
    K, W = out.shape[1], out.shape[2]
    q = bcount[done - 1] if done > 0 else 0
    for b in range(done, upto):
        for k in range(K):
            for w in range(W):
                out[b + 1, k, w] = out[b, k, w]
        while q < bcount[b]:
            jj = byend[q]
            o = JI[I_AOFF, jj]
            for z in range(alen[jj]):
                v = anode[o + z]
                if part_nodes[p, v]:
                    cnt[v] += acnt[o + z]
                    _write_node(out, b + 1, v, cnt[v])
            q += 1


@njit
def _slot_grown(xs, SB, S):
    """The slot map's arrays with room for more bounds (``xs[:S]``, ``SB[:S]`` kept)."""
    cap = 2 * xs.shape[0] + 2
    xs2 = np.empty(cap)
    SB2 = np.zeros((cap, SB.shape[1]), dtype=np.uint64)
    xs2[:S] = xs[:S]
    SB2[:S] = SB[:S]
    return xs2, SB2


@njit(**NO_NRT)
def _slot_add(xs, SB, S, rb, re, RB, q):
    """Reservation [rb, re) (rb < re) holding the nodes ``RB[q]`` (a bitmap) into the slot map: bounds
    ``xs[:S]`` (sorted, distinct), ``SB[i]`` = the nodes of the reservations covering
    [xs[i], xs[i + 1]); room for two more bounds (:func:`_slot_grown`). Returns the new S."""
    i = _slot_bound(xs, SB, S, rb)
    S += i[1]
    e = _slot_bound(xs, SB, S, re)
    S += e[1]
    for s in range(i[0], e[0]):
        for w in range(SB.shape[1]):
            SB[s, w] |= RB[q, w]
    return S


@njit(**NO_NRT)
def _slot_bound(xs, SB, S, x):
    """The slot beginning at x, made by splitting the slot holding x when x is not yet a bound
    (the new slot starts with the nodes of the one it splits). Returns (its index, 1 if added)."""
    lo, hi = 0, S
    while lo < hi:  # the first bound >= x
        mid = (lo + hi) >> 1
        if xs[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    if lo < S and xs[lo] == x:
        return lo, 0
    W = SB.shape[1]
    for s in range(S, lo, -1):
        xs[s] = xs[s - 1]
        for w in range(W):
            SB[s, w] = SB[s - 1, w]
    xs[lo] = x
    for w in range(W):
        SB[lo, w] = SB[lo - 1, w] if lo > 0 else ZERO
    return lo, 1


@njit(**NO_NRT)
def _held_direct(t, L, excl, nres, RF, RI, rnodes, only_empty, held):
    """OR into ``held`` the nodes of the reservations holding at t for a window of length L,
    tested one by one: all of them, or (``only_empty``) those with rb == re, which no slot holds."""
    rb, re, roff, rlen = RF[0], RF[1], RI[0], RI[1]
    for q in range(nres):
        if only_empty and rb[q] != re[q]:
            continue
        if (rb[q] < t + L if excl else rb[q] <= t + L) and re[q] > t:
            for z in range(roff[q], roff[q] + rlen[q]):
                _set_bit(held, rnodes[z])

