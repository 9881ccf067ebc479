"""A user's dynamic queue order and dispatch rule in a pass (issue 36 item 2; kernels only).

The user's key and rule come compiled (:mod:`schedlab.strategy.user_code`) inside the ``G``
bundle of the run, a :class:`~schedlab.sim.state.UserPolicy` instead of the greedy parameters;
:func:`schedlab.sim.dispatch.schedule_pass` calls the three functions below, which numba resolves
by ``G``'s type at compile time: for a ``UserPolicy`` the user's code, for ``GreedyParams`` (the
greedy order) a constant, so the greedy and static-order engines compile as before. The
user's functions are called through numba's first-class function type (one signature each), so
one compiled engine serves every user file.

- :func:`dynamic_code` (G): the dynamic user order's code (-1: none);
- :func:`user_view` (J, S, G, now): the waiting queue sorted by the user's key, recomputed for every
  waiting job at ``now`` (smaller first; ties by job number = submit order), into
  ``S.i[ORDERED, :nq]``, as the greedy order's view; a non-finite key (or one that raised: NaN)
  sets ``ctr[UERR] = 1``;
- :func:`user_rule_pass` (J, S, G, view, now): the user's rule marks waiting jobs in copies of
  the queue's columns (only those its function takes, ``G.uses``); the marked ones start in queue order through :func:`.running.start_job`;
  a marked job wider than the processors free then sets ``ctr[UERR] = 2`` and ends the pass; a
  rule that raised (its wrapper returns 1) sets ``ctr[UERR] = 3`` and starts nothing.

After a failure no pass starts anything (``schedule_pass``) and the driver raises it
(:func:`schedlab.sim.engine.simulate`).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .._config import njit  # noqa: F401  (kernels: the cache keys on this module)
from .greedy import settle_view
from .ops import queue
from .running import start_job
from .state import (
    EST, EST_H, EST_N, ESTEND, FREE, GROUP, M, NQ, SUBMIT, UAT, UERR, UF, UI, UJOB, USE_EST, USE_GROUP,
    USE_RUN, USE_WAIT, USE_WIDTH, UVAL, UserPolicy, WIDTH,
)


def _is_user(G) -> bool:
    return isinstance(G, types.BaseNamedTuple) and G.instance_class is UserPolicy


def dynamic_code(G):
    """The code of the run's dynamic user order (-1: none); compiled only (see :func:`_dynamic_code`)."""
    raise NotImplementedError


def user_view(J, S, G, now):
    """Sort the queue by the user's key at ``now`` into ``S.i[ORDERED]``; compiled only."""
    raise NotImplementedError


def user_rule_pass(J, S, G, view, now):
    """Run the user's rule on ``view``; #started; compiled only."""
    raise NotImplementedError


@overload(dynamic_code, inline="always")
def _dynamic_code(G):
    if _is_user(G):
        return lambda G: G.dyn
    return lambda G: -1


@overload(user_view, inline="always")
def _user_view(J, S, G, now):
    if not _is_user(G):
        return lambda J, S, G, now: None

    def impl(J, S, G, now):
        ctr = S.ctr
        nq = ctr[NQ]
        q = queue(S)
        key = S.f[UF]
        free, m = ctr[FREE], ctr[M]
        for i in range(nq):
            j = q[i]
            r = J.f[SUBMIT, j]
            v = G.key(J.i[WIDTH, j], J.f[EST, j], J.i[GROUP, j], r, now - r, now, free, nq, m)
            if not np.isfinite(v) and ctr[UERR] == 0:
                ctr[UERR], ctr[UJOB] = 1, j
                S.x[UAT], S.x[UVAL] = now, v
            key[j] = v
        if ctr[UERR] == 0:
            settle_view(S, key, key, 1.0)  # key, then job number (= submit order), from the last pass's order

    return impl


@overload(user_rule_pass, inline="always")
def _user_rule_pass(J, S, G, view, now):
    if not _is_user(G):
        return lambda J, S, G, view, now: 0

    def impl(J, S, G, view, now):
        ctr, SI, SF = S.ctr, S.i, S.f
        nq, nr = view.shape[0], ctr[EST_N]
        width, group, run_width, flag = SI[UI, :nq], SI[UI + 1, :nq], SI[UI + 2, :nr], SI[UI + 3, :nq]
        est, wait, run_end = SF[UF + 1, :nq], SF[UF + 2, :nq], SF[UF + 3, :nr]
        uses = G.uses  # copies of the columns the rule takes: what it writes reaches nothing of the engine
        for i in range(nq):
            flag[i] = 0
        if uses & USE_WIDTH:
            for i in range(nq):
                width[i] = J.i[WIDTH, view[i]]
        if uses & USE_EST:
            for i in range(nq):
                est[i] = J.f[EST, view[i]]
        if uses & USE_WAIT:
            for i in range(nq):
                wait[i] = now - J.f[SUBMIT, view[i]]
        if uses & USE_GROUP:
            for i in range(nq):
                group[i] = J.i[GROUP, view[i]]
        if uses & USE_RUN:
            for k in range(nr):  # running jobs by estimated end (EST_H)
                j = SI[EST_H, k]
                run_end[k], run_width[k] = max(SF[ESTEND, j], now), J.i[WIDTH, j]
        if G.rule(width, est, wait, group, now, ctr[FREE], ctr[M], run_end, run_width, flag) != 0:
            ctr[UERR], ctr[UJOB] = 3, view[0]  # the rule raised (user_code.FAILED)
            S.x[UAT], S.x[UVAL] = now, ctr[FREE]
            return 0
        started = 0
        for i in range(nq):
            if flag[i] != 0:
                j = view[i]
                if J.i[WIDTH, j] > ctr[FREE]:
                    ctr[UERR], ctr[UJOB] = 2, j
                    S.x[UAT], S.x[UVAL] = now, ctr[FREE]
                    break
                start_job(J.f, J.i, ctr, SI, SF, j, now)
                started += 1
        return started

    return impl
