"""The engine's in-place job sort (schedlab.sim.sort.sort_jobs), which the loops compiled without
reference counting use instead of np.argsort: it must give exactly what stable sorts by the same
keys give (the queue orders and the greedy order depend on it), on random keys with many ties."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.sim.sort import sort_jobs


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.integers(1, 12), st.sampled_from([1.0, -1.0]))
def test_sort_jobs_matches_a_stable_lexicographic_sort(seed, size, distinct, sign):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, size + 1))  # sort a prefix; the rest must stay untouched
    k1 = rng.integers(0, distinct, size).astype(np.float64)  # many ties: job numbers decide
    k2 = rng.integers(0, 3, size).astype(np.float64)
    a = rng.permutation(size).astype(np.int64)
    stack = np.full(size, -1, dtype=np.int64)

    got = a.copy()
    sort_jobs(got, n, k1, k2, sign, stack)
    part = a[:n]
    want = np.concatenate([part[np.lexsort((part, sign * k2[part], sign * k1[part]))], a[n:]])
    assert np.array_equal(got, want)

    by_value = a.copy()
    sort_jobs(by_value, n, None, None, 1.0, stack)
    assert np.array_equal(by_value, np.concatenate([np.sort(a[:n]), a[n:]]))


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 400),
       st.sampled_from(["sorted", "small-int", "wide-int", "negative-int", "fraction", "boundary"]))
def test_stable_order_matches_lexsort_by_key_then_job(seed, n, kind):
    """The rank rows' sort (schedlab.sim.state.stable_order) takes a shortcut for keys already in
    order and a uint16 radix sort for integral keys spanning < 65,536 values; every kind of key
    must give the jobs in the order of np.lexsort((jobs, key))."""
    from schedlab.sim.state import stable_order

    rng = np.random.default_rng(seed)
    key = {
        "sorted": lambda: np.sort(rng.integers(0, 5, n)).astype(np.float64),
        "small-int": lambda: rng.integers(1, 6, n).astype(np.float64),
        "wide-int": lambda: rng.integers(0, 10**6, n).astype(np.float64),
        "negative-int": lambda: -rng.integers(0, 70_000, n).astype(np.float64),
        "fraction": lambda: np.round(rng.uniform(0, 5, n), 1),
        "boundary": lambda: rng.choice([-7.0, 65_528.0, 65_529.0], n),  # a span of 65,535 and 65,536
    }[kind]()
    assert np.array_equal(stable_order(key), np.lexsort((np.arange(n), key)))
