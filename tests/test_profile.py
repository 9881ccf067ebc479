"""The availability profile (schedlab.sim.profile) against a plain list of steps: random
bookings at the earliest start, releases, drops of the past and fit tests on profiles of up to
hundreds of steps."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.sim import profile
from schedlab.sim.state import PROF_N, new_site


def _load(S, t, f):
    S.prof_t[:len(t)] = t
    S.prof_f[:len(f)] = f
    S.ctr[PROF_N] = len(t)


def _steps(S):
    p = S.ctr[PROF_N]
    return S.prof_t[:p], S.prof_f[:p]


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


def _random_profile(data, m, n0):
    """A site whose profile has free counts rising to m at increasing times (the running jobs'
    estimated ends), and the same profile as a plain list."""
    times = np.cumsum(np.array(data.draw(st.lists(st.integers(1, 5), min_size=n0, max_size=n0)), dtype=float))
    free = np.sort(np.array(data.draw(st.lists(st.integers(0, m), min_size=n0, max_size=n0))))
    free[-1] = m
    times[0] = 0.0
    S = new_site(800, m, True)
    _load(S, times, free.astype(np.int64))
    plain = Plain(times, free)
    return S, plain


@settings(max_examples=examples(60))
@given(data=st.data(), m=st.integers(1, 40), n0=st.integers(1, 150))
def test_profile_matches_a_plain_list(data, m, n0):
    S, plain = _random_profile(data, m, n0)
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


@settings(max_examples=examples(60))
@given(data=st.data(), m=st.integers(1, 40), n0=st.integers(1, 150))
def test_staircase_answers_like_a_walk_across_bookings(data, m, n0):
    """The lazily scanned running minimum (profile._stair), cut back after each booking
    (_stair_cut) as conservative's reservation loop does, answers "do w processors fit during
    [now, now + d)?" exactly as the plain list, whatever was asked and booked before."""
    S, plain = _random_profile(data, m, n0)
    nl = sc = 0
    for _ in range(data.draw(st.integers(1, 200))):
        w, d = data.draw(st.integers(1, m)), float(data.draw(st.integers(1, 60)))
        if data.draw(st.booleans()):
            ok, nl, sc = profile._stair(S.prof_t, S.prof_f, S.ctr[PROF_N], nl, sc, w, d)
            assert ok == plain.fits(0.0, d, w)
        else:
            s = profile._reserve(S.ctr, S.prof_t, S.prof_f, w, d)
            assert s == plain.earliest(w, d)
            plain.add(s, s + d, -w)
            nl, sc = profile._stair_cut(S.prof_t, S.ctr[PROF_N], nl, sc, s)
        # the levels built so far are the running minimum of the steps scanned
        t, f = _steps(S)
        base = S.prof_t.shape[0] // 2
        assert sc <= len(t) and nl <= sc
        if sc:
            run = np.minimum.accumulate(f[:sc])
            drops = np.r_[True, run[1:] < run[:-1]]
            assert nl == drops.sum()
            np.testing.assert_array_equal(S.prof_t[base:base + nl], t[:sc][drops])
            np.testing.assert_array_equal(S.prof_f[base:base + nl], run[drops])


@settings(max_examples=examples(80))
@given(data=st.data(), m=st.integers(1, 40), n=st.integers(2, 400))
def test_find_walks_long_windows_like_a_plain_scan(data, m, n):
    """``_find`` checks a window in whole chunks of steps before the step-by-step tail: on long
    profiles with free counts going up and down and windows spanning many steps it answers what
    a scan of the plain steps answers (the earliest fitting step from ``k`` on and the first step
    at or after that window's end)."""
    t = np.cumsum(np.array(data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=float))
    f = np.array(data.draw(st.lists(st.integers(0, m), min_size=n, max_size=n)), dtype=np.int64)
    f[-1] = m  # the empty machine after the last step: every job fits there
    for _ in range(10):
        w = data.draw(st.integers(1, m))
        d = float(data.draw(st.integers(1, 3 * n)))
        k0 = data.draw(st.integers(0, n - 1))
        k = next(i for i in range(k0, n) if all(f[j] >= w for j in range(i, n) if t[j] < t[i] + d))
        l = next((j for j in range(k + 1, n) if t[j] >= t[k] + d), n)
        assert profile._find(t, f, n, w, d, k0) == (k, l)
