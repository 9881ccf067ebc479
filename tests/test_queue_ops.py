"""The waiting queue's operations (schedlab.sim.ops: enqueue, append, remove; dispatch._compact)
against a plain list, on random operation sequences.

The queue lives in row QUEUE from a moving head (``ctr[QHEAD]``): insertions and removals shift
the shorter side, dropping started jobs moves the head, and a queue that reaches the row's end
moves back to its start. Tiny machines with few jobs re-enqueue the same jobs many times (as a
grid site that gets back jobs it gave away), so every one of those paths runs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.sim.dispatch import _compact
from schedlab.sim.ops import append, enqueue, queue, remove
from schedlab.sim.state import KEY0, MARK, NQ, ORDER_CODES, QHEAD, QORDER, make_jobs, new_site


def _place(key, q, j):
    """Where ops.enqueue puts job j: the same binary search by (key, job) over q."""
    lo, hi = 0, len(q)
    while lo < hi:
        mid = (lo + hi) >> 1
        other = q[mid]
        if key[other] < key[j] or (key[other] == key[j] and other < j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@settings(max_examples=examples(300), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), steps=st.integers(1, 120),
       order=st.sampled_from(sorted(ORDER_CODES)))
def test_queue_operations_match_a_plain_list(seed, n, steps, order):
    rng = np.random.default_rng(seed)
    width = rng.integers(1, 4, n)  # few distinct keys: ties broken by job number
    est = rng.integers(1, 4, n).astype(np.float64)
    J = make_jobs(np.arange(n, dtype=np.float64), est, est.copy(), width, rng.integers(1, 6, n))
    S = new_site(n, 8, True)
    S.ctr[QORDER] = ORDER_CODES[order]
    key = J.f[KEY0 + ORDER_CODES[order]]
    model: list[int] = []
    for _ in range(steps):
        out = [j for j in range(n) if j not in model]
        op = rng.integers(4)
        if op == 0 and out:  # enqueue at its place by the order's key
            j = int(rng.choice(out))
            model.insert(_place(key, model, j), j)
            enqueue(J, S, j)
        elif op == 1 and out:  # append behind everything (the grid's RQ hand-over)
            j = int(rng.choice(out))
            model.append(j)
            append(S, j)
        elif op == 2 and model:  # one waiting job leaves
            j = int(rng.choice(model))
            model.remove(j)
            remove(S, j)
        elif op == 3 and model:  # a pass started some jobs: often a prefix (FCFS), else any
            k = int(rng.integers(1, len(model) + 1))
            started = model[:k] if rng.random() < 0.5 else [int(x) for x in rng.choice(model, k, replace=False)]
            for j in started:
                S.i[MARK, j] = 1
            model = [j for j in model if j not in started]
            _compact(S, len(started))
            assert not S.i[MARK].any()
        assert S.ctr[NQ] == len(model)
        assert queue(S).tolist() == model
        assert 0 <= S.ctr[QHEAD] and S.ctr[QHEAD] + S.ctr[NQ] <= n


def test_a_started_prefix_moves_the_head_and_a_full_row_moves_the_queue_back():
    """By hand, submit order, 3 jobs: after 0 and 1 start, the queue [2] starts at slot 2 of the
    row (nothing shifted); job 0 handed back (append) finds no slot behind it, so the queue moves
    to the row's start: [2, 0] at slots 0-1. Removing 2 then shifts nothing: the head moves."""
    J = make_jobs(np.arange(3, dtype=np.float64), np.ones(3), np.ones(3), np.ones(3, dtype=np.int64),
                  np.ones(3, dtype=np.int64))
    S = new_site(3, 4, True)
    S.ctr[QORDER] = ORDER_CODES["submit"]
    for j in range(3):
        enqueue(J, S, j)
    S.i[MARK, 0] = S.i[MARK, 1] = 1
    _compact(S, 2)
    assert (S.ctr[QHEAD], queue(S).tolist()) == (2, [2])
    append(S, 0)
    assert (S.ctr[QHEAD], queue(S).tolist()) == (0, [2, 0])
    remove(S, 2)
    assert (S.ctr[QHEAD], queue(S).tolist()) == (1, [0])
