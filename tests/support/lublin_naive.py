"""A slow plain-Python port of m_lublin99.c's sampling (method-notes topic 3), for distribution tests.

Written from the C code's structure, not from schedlab.workload.lublin: one job at a time, the C
gamma sampler (sum of floor(a) unit exponentials plus a Beta(a', 1-a')*Exp(1) fractional part,
Jain 1991) on Python's ``random`` stream, the static ``points``/``reminder`` state of ``arrive()``,
and the daily-cycle weights from the gamma CDF by numerical integration (Simpson).
"""

from __future__ import annotations

import math
import random


def _exp(rng):
    return -math.log(1.0 - rng.random())


def _beta(rng, a, b):
    # Johnk's method, as in the C code for the fractional part
    while True:
        y1 = rng.random() ** (1.0 / a)
        y2 = rng.random() ** (1.0 / b)
        if y1 + y2 <= 1.0 and y1 + y2 > 0.0:
            return y1 / (y1 + y2)


def gamma(rng, a, b):
    whole = int(a)
    frac = a - whole
    total = sum(_exp(rng) for _ in range(whole))
    if frac > 0.0:
        total += _beta(rng, frac, 1.0 - frac) * _exp(rng)
    return b * total


def _gamma_pdf(x, a, b):
    return math.exp((a - 1) * math.log(x) - x / b - math.lgamma(a) - a * math.log(b)) if x > 0 else 0.0


def _gamma_cdf_diff(lo, hi, a, b, steps=200):
    h = (hi - lo) / steps
    s = _gamma_pdf(lo, a, b) + _gamma_pdf(hi, a, b)
    for k in range(1, steps):
        s += (4 if k % 2 else 2) * _gamma_pdf(lo + k * h, a, b)
    return s * h / 3


def weights(anum, bnum):
    w = [0.0] * 48
    for i in range(11, 59):
        w[(i - 1) % 48] = _gamma_cdf_diff(i - 0.5, i + 0.5, anum, bnum)
    mean = sum(w) / 48
    return [x / mean for x in w]


TYPELESS = dict(serial=0.244, pow2=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86, a1=4.2, b1=0.94,
                a2=312.0, b2=0.03, pa=-0.0054, pb=0.78, aarr=10.2303, barr=0.4871, anum=8.1737,
                bnum=3.9631, arar=1.0225)


def generate(n, seed, p=TYPELESS):
    """n jobs (submit, runtime, nodes) as three lists."""
    rng = random.Random(seed)
    w = weights(p["anum"], p["bnum"])
    state = {"cur": 0, "points": 0.0, "rem": 0.0, "t": 0}

    def arrive():
        while True:
            g = gamma(rng, p["aarr"] * p["arar"], p["barr"])
            if g <= 13.0:
                break
        state["points"] += math.exp(g) / 1800.0
        dt, b = 0.0, state["cur"]
        while state["points"] > w[b]:
            state["points"] -= w[b]
            b = (b + 1) % 48
            dt += 1800.0
        new_rem = state["points"] / w[b]
        dt += 1800.0 * (new_rem - state["rem"])
        state["rem"] = new_rem
        state["t"] = int(state["t"] + dt)
        state["cur"] = b
        return state["t"]

    submit, runtime, nodes = [], [], []
    for _ in range(n):
        submit.append(arrive())
        u = rng.random()
        if u <= p["serial"]:
            k = 1
        else:
            par = rng.uniform(p["ulow"], p["umed"]) if rng.random() <= p["uprob"] else rng.uniform(p["umed"], p["uhi"])
            if u <= p["serial"] + p["pow2"]:
                par = math.floor(par + 0.5)
            k = int(math.floor(2.0 ** par + 0.5))
        mix = min(1.0, max(0.0, p["pa"] * k + p["pb"]))
        while True:
            h = gamma(rng, p["a1"], p["b1"]) if rng.random() <= mix else gamma(rng, p["a2"], p["b2"])
            if h <= 12.0:
                break
        runtime.append(max(1, int(math.exp(h))))
        nodes.append(k)
    return submit, runtime, nodes
