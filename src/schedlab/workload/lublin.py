"""The Lublin-Feitelson model of rigid parallel jobs (JPDC 2003), as in the authors' ``m_lublin99.c``.

Method-notes topic 3 is the specification followed here, step by step:

- Step A: 48 half-hour daily-cycle weights from the Gamma(ANUM, BNUM) CDF, normalised to mean 1;
- Step B: rush-hour inter-arrival times e^g, g ~ Gamma(AARR*ARAR, BARR) redrawn while g > 13, spent
  through the weights so that the arrival rate of bucket b is proportional to w[b]; the time is
  truncated to whole seconds after every job (the C code keeps it in an ``unsigned long``);
- Step C: nodes: serial with SerialProb, else 2^par with par two-stage uniform (ULow, UMed, UHi,
  UProb), rounded to a power of two when the same u is below SerialProb + Pow2Prob;
- Step D: runtime e^h, h from a two-gamma mixture with p = pa*nodes + pb, redrawn while h > 12.

The draws are vectorised with numpy (a seeded ``numpy.random.Generator``); only Step B's
bucket walk, which is sequential by nature, is a small compiled loop. The typeless ("whole sample")
parameter set is the default: it reproduces the SCOJO-PECT thesis' Table 5 job mix (method-notes
topic 3, "Which set the SCOJO-PECT thesis used"). Random streams differ from drand48, so a seed
gives a workload *distributed* like the C generator's, not the thesis' exact traces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._config import njit
from .model import Workload

#: C constants of m_lublin99.c
TOO_MUCH_TIME = 12.0  # cap of the log-runtime
TOO_MUCH_ARRIVE_TIME = 13.0  # cap of the log inter-arrival time
BUCKETS = 48
SECONDS_IN_BUCKET = 1800.0
CYCLIC_DAY_START = 11


@dataclass(frozen=True)
class LublinParams:
    """One parameter set of the model (method-notes topic 3, table "Parameter sets")."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def for_machine(self, procs: int) -> "LublinParams":
        """The set moved to a machine of ``procs`` nodes as the C code's comments advise.

        "UHi = log2(P); keep UMed ~ UHi - 2.5": on 128 nodes the typeless set is unchanged
        (UHi 7, UMed 4.5).

        [DEF] Machines below 10 nodes: there UHi - 2.5 falls below ULow and the two-stage uniform
        U(ULow, UMed) would have its bounds reversed. The C comments leave this case open; here
        ULow is capped at UHi and UMed is clamped into [ULow, UHi], so that
        ULow <= UMed <= UHi always holds. On 10 nodes and more nothing changes; on 1 node every
        job is serial (2^0), on 2 nodes jobs are serial or 2-wide.
        """
        uhi = math.log2(procs)
        if uhi == self.uhi:
            return self
        from dataclasses import replace

        ulow = min(self.ulow, uhi)
        umed = min(max(uhi - 2.5, ulow), uhi)
        return replace(self, ulow=ulow, uhi=uhi, umed=umed)


#: the three sets of m_lublin99.c; "typeless" is the default (thesis Table 5)
PARAMETER_SETS: dict[str, LublinParams] = {
    "typeless": LublinParams(0.244, 0.576, 0.8, 4.5, 7.0, 0.86, 4.2, 0.94, 312.0, 0.03, -0.0054, 0.78,
                             10.2303, 0.4871, 8.1737, 3.9631, 1.0225),
    "batch": LublinParams(0.2927, 0.6686, 1.2, 5.0, 7.0, 0.875, 6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986,
                          6.0415, 0.8531, 6.1271, 5.2740, 1.0519),
    "interactive": LublinParams(0.1541, 0.625, 1.0, 3.0, 5.5, 0.705, 3.8351, 0.6605, 7.073, 0.6856, -0.0118,
                                0.9156, 6.5510, 0.6621, 8.9186, 3.6680, 0.9797),
}


def _gamma_cdf(x: float, shape: float, scale: float) -> float:
    """Regularised lower incomplete gamma P(shape, x/scale) by its power series (x small vs shape)."""
    z = x / scale
    if z <= 0.0:
        return 0.0
    # series: P(a, z) = z^a e^-z / Gamma(a+1) * sum_k z^k / ((a+1)...(a+k))
    term = 1.0
    total = 1.0
    k = 0
    while True:
        k += 1
        term *= z / (shape + k)
        total += term
        if term < total * 1e-17 or k > 10_000:
            break
    return math.exp(shape * math.log(z) - z - math.lgamma(shape + 1.0)) * total


def daily_weights(params: LublinParams) -> np.ndarray:
    """Step A: the 48 half-hour weights, bucket 0 (00:00-00:30) first, mean 1."""
    w = np.empty(BUCKETS)
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS):
        b = (i - 1) % BUCKETS
        w[b] = _gamma_cdf(i + 0.5, params.anum, params.bnum) - _gamma_cdf(i - 0.5, params.anum, params.bnum)
    return w / w.mean()


def _capped_gamma(rng: np.random.Generator, shape: float, scale: float, n: int, cap: float) -> np.ndarray:
    """n draws of Gamma(shape, scale), each redrawn while above ``cap`` (vectorised rejection)."""
    out = rng.gamma(shape, scale, n)
    bad = np.flatnonzero(out > cap)
    while bad.size:
        out[bad] = rng.gamma(shape, scale, bad.size)
        bad = bad[out[bad] > cap]
    return out


@njit
def _spend(points_in: np.ndarray, w: np.ndarray, start_bucket: int) -> np.ndarray:
    """Step B's bucket walk: the whole-second arrival time of each job (C ``arrive()``)."""
    n = points_in.shape[0]
    out = np.empty(n, np.float64)
    cur = start_bucket
    points = 0.0
    rem = 0.0
    t = 0.0
    nb = w.shape[0]
    for i in range(n):
        points += points_in[i]
        dt = 0.0
        b = cur
        while points > w[b]:
            points -= w[b]
            b = (b + 1) % nb
            dt += 1800.0
        new_rem = points / w[b]
        dt += 1800.0 * (new_rem - rem)
        rem = new_rem
        t = math.floor(t + dt)
        cur = b
        out[i] = t
    return out


def lublin_columns(jobs: int, procs: int = 128, *, seed: int = 0, params: str | LublinParams = "typeless",
                   start_hour: int = 0) -> dict[str, np.ndarray]:
    """Submit, runtime and nodes of ``jobs`` jobs of the model on ``procs`` nodes (numpy columns)."""
    p = PARAMETER_SETS[params] if isinstance(params, str) else params
    p = p.for_machine(procs)
    rng = np.random.default_rng(seed)
    n = int(jobs)
    # Step B: arrivals
    g = _capped_gamma(rng, p.aarr * p.arar, p.barr, n, TOO_MUCH_ARRIVE_TIME)
    submit = _spend(np.exp(g) / SECONDS_IN_BUCKET, daily_weights(p), int(start_hour * BUCKETS // 24))
    # Step C: nodes
    u = rng.random(n)
    v = rng.random(n)
    low = rng.uniform(p.ulow, p.umed, n)
    high = rng.uniform(p.umed, p.uhi, n)
    par = np.where(v <= p.uprob, low, high)
    par = np.where(u <= p.serial_prob + p.pow2_prob, np.floor(par + 0.5), par)
    nodes = np.floor(2.0 ** par + 0.5).astype(np.int64)
    nodes[u <= p.serial_prob] = 1
    np.minimum(nodes, procs, out=nodes)  # [DEF] cap at the machine size (only a fractional UHi can exceed it)
    # Step D: runtimes (v and h redrawn together while h > 12)
    mix = np.clip(p.pa * nodes + p.pb, 0.0, 1.0)
    h = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        first = rng.random(todo.size) <= mix[todo]
        h1 = rng.gamma(p.a1, p.b1, todo.size)
        h2 = rng.gamma(p.a2, p.b2, todo.size)
        h[todo] = np.where(first, h1, h2)
        todo = todo[h[todo] > TOO_MUCH_TIME]
    runtime = np.maximum(np.floor(np.exp(h)), 1.0)
    return {"submit": submit, "runtime": runtime, "procs": nodes}


def lublin(jobs: int, procs: int = 128, *, seed: int = 0, params: str = "typeless", start_hour: int = 0) -> Workload:
    """A Lublin-Feitelson workload of ``jobs`` rigid jobs on ``procs`` nodes, seeded.

    SWF mapping as m_lublin99.c: submit, runtime, allocated and requested processors, status 1,
    queue = job type (0 for the typeless set, as the C code labels it). The model makes no user
    estimate: ``estimate = runtime`` (exact estimates, method-notes topic 3 [DEF]). The header
    records the model, parameter set, machine size and seed.
    """
    if params not in PARAMETER_SETS:
        raise ValueError(f"unknown Lublin parameter set {params!r}; one of {sorted(PARAMETER_SETS)}")
    if jobs < 0 or procs <= 0:
        raise ValueError(f"need jobs >= 0 and procs > 0, got jobs={jobs}, procs={procs}")
    cols = lublin_columns(jobs, procs, seed=seed, params=params, start_hour=start_hour)
    n = len(cols["submit"])
    queue = np.full(n, 1 if params == "batch" else 0, np.int64)
    header = (
        " Version: 2.2",
        f" Computer: Lublin-Feitelson model (m_lublin99.c, JPDC 2003), {params} parameter set",
        f" MaxJobs: {n}",
        f" MaxNodes: {procs}",
        f" MaxProcs: {procs}",
        f" Note: generated by schedlab: model=lublin99 params={params} jobs={n} procs={procs} seed={seed} "
        f"start_hour={start_hour} estimates=exact",
    )
    return Workload.from_columns(
        {
            **cols,
            "req_procs": cols["procs"],
            "estimate": cols["runtime"],
            "status": np.ones(n, np.int64),
            "queue": queue,
        },
        machine_procs=int(procs),
        name=f"lublin-{params}-{procs}-seed{seed}",
        header=header,
    )


#: runtime classes of the SCOJO-PECT thesis (Table 4): short < 600 s <= medium < 10,800 s <= long
CLASS_BOUNDS: tuple[float, float] = (600.0, 10800.0)


def table5_row(workload: Workload) -> dict[str, float]:
    """The thesis' Table 5 columns of a workload: % of jobs and of work per runtime class, mean
    sizes per class, mean inter-arrival time (s). Classes by runtime (Lublin estimates are exact)."""
    rt = workload.runtime
    size = workload.procs.astype(float)
    cls = np.searchsorted(np.asarray(CLASS_BOUNDS), rt, side="right")
    work = rt * size
    row: dict[str, float] = {}
    for c, name in enumerate(("short", "med", "long")):
        mask = cls == c
        row[f"N_{name}"] = 100.0 * mask.mean()
        row[f"W_{name}"] = 100.0 * work[mask].sum() / work.sum()
        row[f"S_{name}"] = float(size[mask].mean()) if mask.any() else float("nan")
    sub = np.sort(workload.submit)
    row["interarrival"] = float(sub[-1] / len(sub))  # first arrival is after time 0 (C: t > 0)
    return row
