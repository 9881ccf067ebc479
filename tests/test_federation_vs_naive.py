"""The compiled package builders against the plain-Python reference (tests/support/federation_naive.py) on
random small platforms and packages (hypothesis); every compiled schedule is also validated."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.federation_naive import naive_build
from schedlab.federation import (FederatedJobs, FederationOptions, PackageProblem, Platform, schedule_workload,
                                 validate_federated)

POWERS = st.sampled_from([1.0, 0.8, 0.5, 0.4])


@st.composite
def cases(draw):
    K = draw(st.integers(1, 3))
    node_cluster, node_power = [], []
    for k in range(K):
        n = draw(st.integers(1, 4))
        for _ in range(n):
            node_cluster.append(k)
            node_power.append(draw(POWERS) if draw(st.booleans()) else 1.0 - 0.2 * k)
    bandwidth = [draw(st.sampled_from([5.0, 10.0, 40.0])) for _ in range(K)]
    N = len(node_cluster)
    J = draw(st.integers(1, 8))
    jobs = []
    for _ in range(J):
        jobs.append((draw(st.integers(1, N)), float(draw(st.integers(0, 50))), draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])),
                     float(draw(st.integers(0, 12)))))
    order = draw(st.permutations(list(range(J))))
    return (np.array(node_cluster), np.array(node_power), np.array(bandwidth)), jobs, list(order)


def _compiled(cols, jobs, method, order, dynamic):
    pf = Platform(tuple(f"c{k}" for k in range(len(cols[2]))), cols[0], cols[1], cols[2], normalize_power=False)
    a = np.array(jobs, dtype=float)
    fj = FederatedJobs(np.arange(len(jobs)), np.zeros(len(jobs)), a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3])
    s = schedule_workload(fj, pf, method, len(jobs), options=FederationOptions(dynamic=dynamic),
                          orders=[np.array(order)] if method.startswith("ga") else None)
    validate_federated(s)
    tk = [np.bincount(pf.node_cluster[s.tasks_node[s.alloc_ptr[j]:s.alloc_ptr[j + 1]]], minlength=pf.n_clusters).tolist()
          for j in range(len(jobs))]
    return s, tk


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("method", ["jpr", "cbs", "metl", "ga-metl"])
@given(case=cases())
def test_compiled_builder_matches_the_reference(method, dynamic, case):
    cols, jobs, order = case
    naive_method = "alg1" if method == "ga-metl" else method
    start, finish, sp, tk = naive_build(cols, jobs, naive_method, order=order if method == "ga-metl" else None,
                                        dynamic=dynamic)
    s, ctk = _compiled(cols, jobs, method, order, dynamic)
    assert ctk == tk
    np.testing.assert_allclose(s.start, start, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s.finish, finish, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s.sp, sp, rtol=1e-12)


@given(case=cases())
def test_metl_order_replayed_in_order_gives_metl_schedule(case):
    """METL's start order decoded by the strict-order builder reproduces METL's makespan exactly (so the
    GA-METL seed individual is worth exactly METL)."""
    cols, jobs, _ = case
    m, _ = _compiled(cols, jobs, "metl", None, False)
    g, _ = _compiled(cols, jobs, "ga-metl", m.orders[0], False)
    assert g.makespan == m.makespan
    np.testing.assert_array_equal(g.start, m.start)


@pytest.mark.parametrize("method", ["jpr", "ga-metl"])
@given(case=cases())
def test_fast_fitness_equals_the_full_builder(method, case):
    """The GA's fitness kernel (no node ids, static model) gives exactly the full builder's makespan
    (bit for bit: the same float operations in the same order), also for a whole population at once."""
    from schedlab.federation.kernel import build_in_order, makespan_in_order, makespans_in_orders

    cols, jobs, order = case
    pf = Platform(tuple(f"c{k}" for k in range(len(cols[2]))), cols[0], cols[1], cols[2], normalize_power=False)
    a = np.array(jobs, dtype=float)
    fj = FederatedJobs(np.arange(len(jobs)), np.zeros(len(jobs)), a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3])
    p = PackageProblem(fj, pf, FederationOptions(), method)
    orders = np.array([order, order[::-1]], dtype=np.int64)
    full = [build_in_order(o, p.JA, p.PA, p.opts).finish.max() for o in orders]
    assert [makespan_in_order(o, p.JA, p.PA, p.opts) for o in orders] == full
    none = np.zeros(0), np.zeros((0, p.PA.g_power.size), dtype=np.int64)
    assert makespans_in_orders(orders, p.JA, p.PA, p.opts, *none).tolist() == full
