"""The event loop of one site (compiled; this module holds kernels only).

Semantics (genetic-fuzzy-rule-based-scheduling Section 2.1, greedy-es-sorting-criteria II-A): at
one timestamp all finishes are processed, then all arrivals, then ONE scheduling pass
(:func:`schedlab.sim.dispatch.schedule_pass`) when a job waits; a job of processing time 0
holds its processors during the pass that starts it and its finish is an event at the same
timestamp (another pass follows). The loop changes the site only through the engine's
operations (:mod:`.ops`).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .dispatch import schedule_pass
from .ops import enqueue, next_finish, release_finished, waiting
from .state import FIN_N, PROC, START, SUBMIT, WIDTH


@njit(_nrt=False)  # no reference counting: see the docstring
def site_loop(J, S, G, dispatch, order, origin, k, limit, weight):
    """The single-site event loop over the jobs with ``origin[j] == k`` (jobs sorted by submit);
    results in rows START/FINISH of S.f. The one loop of a site alone: :func:`simulate` (every
    origin 0) and each site of a grid without exchange (:mod:`schedlab.grid.kernel`).

    Returns True when stopped early because the site's lower bound of AWRT, sum over started jobs
    p m (C - r), exceeded ``limit * weight`` (checked about 32 times per run; ``limit`` = inf: never).

    Compiled without numba's reference counting, and so are its callees (they must allocate
    nothing: the queue sorts run in place in scratch rows, :mod:`.sort`). With it, every bundle
    array the inlined operations took out in the loop cost an atomic incref/decref pair: perf
    found 38 % of an EASY run on CTC-1024 in NRT_incref/NRT_decref; without, EASY takes 0.122 s
    instead of 0.190 s (FCFS 0.120 / 0.187, conservative 1.21 / 1.33), with the same schedules.
    """
    submit = J.f[SUBMIT]
    n = submit.shape[0]
    check_every = max(n // 32, 1)
    next_check = check_every
    events = 0
    i = 0
    while i < n and origin[i] != k:
        i += 1
    while i < n or S.ctr[FIN_N] > 0:
        now = np.inf
        if i < n:
            now = submit[i]
        t = next_finish(S)
        if t <= now:  # calls cost: skip empty ones
            now = t
            release_finished(J, S, now)
        while i < n and submit[i] <= now:
            if origin[i] == k:
                enqueue(J, S, i)
            i += 1
        while i < n and origin[i] != k:
            i += 1
        if waiting(S) > 0:
            schedule_pass(J, S, G, dispatch, order, now)
        if limit < np.inf:
            events += 1
            if events >= next_check:
                next_check += check_every
                if _awrt_numerator(J, S) > limit * weight:
                    return True
    return False


@njit
def _awrt_numerator(J, S):
    """sum over the started jobs of p m (C - r) (the numerator of AWRT, eq. (6))."""
    num = 0.0
    for j in range(J.f.shape[1]):
        s = S.f[START, j]
        if not np.isnan(s):
            num += J.f[PROC, j] * J.i[WIDTH, j] * (s + J.f[PROC, j] - J.f[SUBMIT, j])
    return num
