"""The availability profile (schedlab.sim.profile) against a plain list of steps: random
bookings at the earliest start, releases, drops of the past and fit tests, with enough steps
that blocks split (BC steps a block) and whole blocks are skipped and shifted lazily."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab._config import njit
from schedlab.sim import profile
from schedlab.sim.state import BC, P_CNT, P_SEQ, PROF_NB, new_site


@njit
def _load(S, t, f):
    profile._reset(S)
    for k in range(t.shape[0]):
        profile._push(S, t[k], f[k])


@njit
def _steps(S):
    n = 0
    for q in range(S.ctr[PROF_NB]):
        n += S.prof_b[P_CNT, S.prof_b[P_SEQ, q]]
    t = np.empty(n)
    f = np.empty(n, dtype=np.int64)
    k = 0
    for q in range(S.ctr[PROF_NB]):
        b = S.prof_b[P_SEQ, q]
        for i in range(S.prof_b[P_CNT, b]):
            t[k] = S.prof_t[b * BC + i]
            f[k] = profile._val(S, b, i)
            k += 1
    return t, f


class Plain:
    """The obvious profile: a sorted list of [time, free] steps."""

    def __init__(self, t, f):
        self.steps = [[float(a), int(b)] for a, b in zip(t, f)]

    def free_at(self, x):
        return [f for t, f in self.steps if t <= x][-1]

    def fits(self, s, e, w):
        return self.free_at(s) >= w and all(f >= w for t, f in self.steps if s < t < e)

    def earliest(self, w, d):
        return next(t for t, _ in self.steps if self.fits(t, t + d, w))

    def split(self, x):
        if x not in [t for t, _ in self.steps]:
            self.steps.append([x, self.free_at(x)])
            self.steps.sort()

    def add(self, s, e, delta):
        self.split(s)
        self.split(e)
        for st_ in self.steps:
            if s <= st_[0] < e:
                st_[1] += delta

    def drop_past(self, now):
        keep = [st_ for st_ in self.steps if st_[0] > now]
        self.steps = [[now, self.free_at(now)]] + keep


@settings(max_examples=60)
@given(data=st.data(), m=st.integers(1, 40), n0=st.integers(1, 150))
def test_profile_matches_a_plain_list(data, m, n0):
    # start: free counts rising to m at increasing times (the running jobs' estimated ends)
    times = np.cumsum(np.array(data.draw(st.lists(st.integers(1, 5), min_size=n0, max_size=n0)), dtype=float))
    free = np.sort(np.array(data.draw(st.lists(st.integers(0, m), min_size=n0, max_size=n0))))
    free[-1] = m
    times[0] = 0.0
    S = new_site(600, m, True)
    _load(S, times, free.astype(np.int64))
    plain = Plain(times, free)
    now = 0.0
    booked = []
    for _ in range(data.draw(st.integers(1, 300))):
        op = data.draw(st.sampled_from(["book", "book", "book", "fits", "drop", "release"]))
        if op == "book":
            w, d = data.draw(st.integers(1, m)), float(data.draw(st.integers(1, 30)))
            s = profile.reserve(S, w, d)
            assert s == plain.earliest(w, d)
            plain.add(s, s + d, -w)
            booked.append((s, s + d, w))
        elif op == "fits":
            w, d = data.draw(st.integers(1, m)), float(data.draw(st.integers(1, 30)))
            s = data.draw(st.sampled_from([t for t, _ in plain.steps]))
            assert profile.fits(S, s, s + d, w) == plain.fits(s, s + d, w)
        elif op == "drop":
            now = now + data.draw(st.integers(0, 10))
            profile.drop_past(S, now)
            plain.drop_past(now)
            booked = [(s, e, w) for s, e, w in booked if s >= now]
        elif booked:
            s, e, w = booked.pop(data.draw(st.integers(0, len(booked) - 1)))
            profile.release(S, s, e, w)
            plain.add(s, e, w)
        t, f = _steps(S)
        np.testing.assert_array_equal(t, [x for x, _ in plain.steps])
        np.testing.assert_array_equal(f, [y for _, y in plain.steps])
        assert profile.free_now(S) == plain.steps[0][1]
