"""The node sets a backfill walk reads (schedlab.slurm.backfill), each made the fast way, against its
definition node by node (issue 44, speed): random reservations on up to 130 nodes (three bit-words),
times on a half-second grid so that begins, ends, t and t + L often coincide, both bf_touch
readings. The fast ways, and why they are the same sets:

- ``_cand_now``: the nodes that are not candidates from tau = now, the OR of the bitmaps of the
  reservations that end after now and begin by now + L, where the code before read each node's
  first reservation (``first_rb``); and the least first_rb after now + L among the partition's nodes
  (the pass's horizon reads it);
- ``_held_rounded``: the nodes of the reservations overlapping the rounded [s_r, e_r), ORed as
  bitmaps instead of node by node;
- ``_held_at``: the nodes held over [t, t + L], from the slot map's sliding window, asked only at
  some of the walk's times (a walk now makes it only when it reads it): the same as made at every time.

Whole runs are compared with the loop as it was before the speed work in tests/test_slurm_skip.py."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.slurm.backfill import _cand_now, _held_at, _held_rounded
from schedlab.slurm.nodespace import ONE, _nwords, _slot_add, _slot_grown

GRID = st.integers(0, 40).map(lambda x: x / 2.0)


@st.composite
def reservations(draw):
    """(N, [(rb, re, nodes)], partition nodes): re >= rb, some empty (rb == re)."""
    N = draw(st.sampled_from([1, 5, 64, 65, 130]))
    out = []
    for _ in range(draw(st.integers(0, 12))):
        rb = draw(GRID)
        re = rb + draw(st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.5]))
        nodes = sorted(set(draw(st.lists(st.integers(0, N - 1), min_size=1, max_size=8))))
        out.append((rb, re, nodes))
    part = sorted(set(draw(st.lists(st.integers(0, N - 1), min_size=1, max_size=N))))
    return N, out, part


def arrays(N, res):
    """The pass's arrays: RF (begin, end), RI (offset, count), rnodes, RB (bitmaps)."""
    W = _nwords(N)
    n = max(len(res), 1)
    RF = np.zeros((2, n))
    RI = np.zeros((3, n), dtype=np.int64)
    rnodes = np.zeros(max(sum(len(x[2]) for x in res), 1), dtype=np.int64)
    RB = np.zeros((n, W), dtype=np.uint64)
    used = 0
    for q, (rb, re, nodes) in enumerate(res):
        RF[0, q], RF[1, q] = rb, re
        RI[0, q], RI[1, q] = used, len(nodes)
        for v in nodes:
            rnodes[used] = v
            used += 1
            RB[q, v >> 6] |= ONE << np.uint64(v & 63)
    return RF, RI, rnodes, RB


def bits_of(row, N):
    return {v for v in range(N) if (int(row[v >> 6]) >> (v & 63)) & 1}


def mask(nodes, N):
    row = np.zeros(_nwords(N), dtype=np.uint64)
    for v in nodes:
        row[v >> 6] |= ONE << np.uint64(v & 63)
    return row


@settings(max_examples=examples(400), deadline=None)
@given(case=reservations(), now=GRID, L=st.sampled_from([0.5, 1.0, 2.5, 10.0]), excl=st.booleans())
def test_cand_now_is_first_rb_node_by_node(case, now, L, excl):
    N, res, part = case
    RF, RI, rnodes, RB = arrays(N, res)
    b_end = now + L
    first_rb = {v: min((rb for rb, re, nodes in res if re > now and v in nodes), default=np.inf) for v in range(N)}
    want = {v for v in part if (first_rb[v] < b_end if excl else first_rb[v] <= b_end)}
    want_nxt = min((first_rb[v] for v in part if v not in want), default=np.inf)
    candh = np.empty(_nwords(N), dtype=np.uint64)
    nxt = _cand_now(now, b_end, excl, len(res), RF, RB, mask(part, N), candh)
    assert bits_of(candh, N) & set(part) == want  # (nodes off the partition are never read)
    assert nxt == want_nxt


@settings(max_examples=examples(300), deadline=None)
@given(case=reservations(), s_r=GRID, length=st.sampled_from([0.0, 0.5, 2.0, 9.0]))
def test_held_rounded_is_the_overlapping_reservations_nodes(case, s_r, length):
    N, res, _ = case
    RF, RI, rnodes, RB = arrays(N, res)
    e_r = s_r + length
    held = mask([0], N) if N > 1 else np.zeros(1, dtype=np.uint64)  # ORed into: what was there stays
    _held_rounded(s_r, e_r, len(res), RF, RB, held)
    want = {v for rb, re, nodes in res if re > s_r and rb < e_r for v in nodes} | ({0} if N > 1 else set())
    assert bits_of(held, N) == want


@settings(max_examples=examples(300), deadline=None)
@given(case=reservations(), L=st.sampled_from([0.0, 0.5, 2.5, 10.0]), excl=st.booleans(),
       times=st.lists(GRID, min_size=1, max_size=12), read=st.lists(st.booleans(), min_size=12, max_size=12))
def test_held_at_read_at_some_times_is_held_at_each(case, L, excl, times, read):
    N, res, _ = case
    RF, RI, rnodes, RB = arrays(N, res)
    W = _nwords(N)
    xs, SB, S = np.empty(2), np.zeros((2, W), dtype=np.uint64), 0
    nempty = 0
    for q, (rb, re, _) in enumerate(res):
        if rb < re:
            if S + 2 > xs.shape[0]:
                xs, SB = _slot_grown(xs, SB, S)
            S = _slot_add(xs, SB, S, rb, re, RB, q)
        else:
            nempty += 1
    suf = np.empty((xs.shape[0], W), dtype=np.uint64)
    agg = np.zeros(W, dtype=np.uint64)
    held = np.empty(W, dtype=np.uint64)
    ia, wa, wm, wb = -1, 0, 0, -1
    for t, r in zip(sorted(times), read):
        if not r:
            continue  # a time the walk passes without reading held
        ia, wa, wm, wb = _held_at(t, L, excl, L <= 0.0, nempty, len(res), RF, RI, rnodes, S, xs, SB, suf, agg, held,
                                  ia, wa, wm, wb)
        want = {v for rb, re, nodes in res if (rb < t + L if excl else rb <= t + L) and re > t for v in nodes}
        assert bits_of(held, N) == want, t
