"""Scaling to another machine size (Ernemann et al. 2003, method-notes topic 1)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.workload import SCALED_JOB_COUNTS, Workload, load_trace, scale
from schedlab.workload.scale import calibrate_q, known_trace


def small(n: int = 2000, m: int = 100, seed: int = 3) -> Workload:
    rng = np.random.default_rng(seed)
    return Workload.from_columns(
        {
            "submit": np.sort(rng.integers(0, 10**6, n)).astype(float),
            "runtime": rng.integers(1, 10**4, n).astype(float),
            "procs": rng.integers(1, m + 1, n),
            "estimate": rng.integers(1, 2 * 10**4, n).astype(float),
            "user": rng.integers(0, 30, n),
            "preceding": np.arange(n),
        },
        machine_procs=m,
        name="toy",
        header=(" MaxNodes: 100", " MaxProcs: 100"),
    )


def area(w: Workload) -> float:
    return float((w.runtime * w.procs).sum())


def test_copy_only_and_enlarge_only_branches():
    w = small()
    copied = scale(w, 400, q=1.0, seed=1)  # f = 4: every job copied exactly 4 times
    assert len(copied) == 4 * len(w) and area(copied) == pytest.approx(4 * area(w))
    assert np.array_equal(copied.procs, np.repeat(w.procs, 4))
    enlarged = scale(w, 400, q=0.0, seed=1)  # every job 4 times wider
    assert len(enlarged) == len(w) and np.array_equal(enlarged.procs, np.minimum(4 * w.procs, 400))
    assert np.array_equal(enlarged.runtime, w.runtime) and np.array_equal(enlarged.estimate, w.estimate)


def test_expected_job_count_area_and_invariants():
    w = small()
    s = scale(w, 1024, q=0.5, seed=7)  # f = 10.24
    expected = len(w) * (1 + 0.5 * (10.24 - 1))
    assert abs(len(s) - expected) < 0.06 * expected
    assert area(s) == pytest.approx(10.24 * area(w), rel=0.05)
    assert s.machine_procs == 1024 and s.procs.max() <= 1024 and s.procs.min() >= 1
    assert s.id.tolist() == list(range(1, len(s) + 1)) and np.all(np.diff(s.submit) >= 0)
    assert (s.preceding == -1).all()
    assert s.header[0] == " MaxNodes: 1024" and s.header[1] == " MaxProcs: 1024" and "f_adj=10.24" in s.header[2]
    # users are kept, so their shares (and user groups) stay about the same
    assert set(s.user.tolist()) == set(w.user.tolist())


def test_deterministic_for_seed():
    w = small()
    a, b, c = scale(w, 1024, seed=5), scale(w, 1024, seed=5), scale(w, 1024, seed=6)
    assert np.array_equal(a.procs, b.procs) and np.array_equal(a.submit, b.submit)
    assert not (len(a) == len(c) and np.array_equal(a.procs, c.procs))


def test_same_size_is_unchanged_and_f_adj_raises_area():
    w = small()
    same = scale(w, 100, seed=2)
    assert np.array_equal(same.procs, w.procs) and len(same) == len(w)
    bigger = scale(w, 1024, f_adj=12.0, q=0.0, seed=2)
    assert np.array_equal(bigger.procs, np.clip(np.rint(w.procs * 12.0), 1, 1024))


def test_q_calibrated_for_known_traces():
    assert known_trace("CTC-SP2-1996-3.1-cln") == "CTC" and known_trace("KTH-SP2") == "KTH" and known_trace("foo") is None
    assert calibrate_q(1000, 1500, 3.0) == pytest.approx(0.25)
    assert calibrate_q(1000, 10**6, 3.0) == 1.0
    kth = load_trace("KTH-SP2")
    s = scale(kth, 1024, seed=0)
    target = SCALED_JOB_COUNTS["KTH"][2]
    assert abs(len(s) - target) < 0.01 * target
    q = (target / len(kth) - 1) / (10.24 - 1)  # ~0.528, method-notes topic 1
    assert f"q={q:.6g}," in s.header[-1]
    other = scale(kth.replace(name="other"), 1024, seed=0)  # not a published trace: q = 0.5
    assert "q=0.5," in other.header[-1] and len(other) < len(s)


def test_bad_input():
    w = small()
    with pytest.raises(WorkloadError, match="pass --procs"):
        scale(w.replace(machine_procs=None), 1024)
    with pytest.raises(WorkloadError, match="clean it first"):
        scale(w.replace(procs=np.where(w.procs == 1, -1, w.procs)), 1024)
    for kwargs in [{"q": 1.5}, {"f_adj": -1.0}, {"f_adj": float("nan")}]:
        with pytest.raises(WorkloadError):
            scale(w, 1024, **kwargs)
    with pytest.raises(WorkloadError):
        scale(w, 0)
    with pytest.raises(WorkloadError, match="seed"):
        scale(w, 1024, seed=-1)


def test_a_target_that_would_not_fit_in_memory_is_refused_before_drawing():
    w = small()
    # 2,000 jobs to 10^9 processors at q = 0.5: about 10^10 jobs expected (E[n'] = n (1 + q (f_adj - 1)))
    with pytest.raises(WorkloadError, match=r"about 10,000,001,000 jobs; at most 50,000,000"):
        scale(w, 10**9)
    # enlarging only (q = 0) keeps the job count, so the same target is fine
    big = scale(w, 10**9, q=0.0)
    assert len(big) == len(w) and big.machine_procs == 10**9


# ----------------------------------------------------------------------- load calibration (step 5)


def _easy_schedule(w: Workload):
    from schedlab.metrics import compute_metrics
    from schedlab.sim import Machine, simulate, validate_schedule
    from schedlab.strategy import Strategy

    s = simulate(w, Machine(w.machine_procs), Strategy("easy"))
    validate_schedule(s)
    return compute_metrics(s)


def test_load_calibration_reaches_the_target_utilisation():
    """f_adj rises above f = m'/m until EASY's UTIL on the scaled trace is within tol of the target."""
    from schedlab.optimize.calibrate import load_target, scale_to_util

    w = load_trace("KTH-SP2", months=2)
    target = load_target(w, 256)  # not CTC -> EASY's UTIL on the original trace and machine
    assert target == pytest.approx(_easy_schedule(w)["UTIL"])
    util_plain = _easy_schedule(scale(w, 256))["UTIL"]
    goal = util_plain + 3.0  # a load the exact ratio f = 2.56 does not reach
    scaled, cal = scale_to_util(w, 256, goal, tol=0.05)
    assert cal.f == 2.56 and cal.steps[0]["f_adj"] == 2.56 and cal.f_adj > cal.f
    assert abs(_easy_schedule(scaled)["UTIL"] - goal) <= 0.05
    assert cal.util == pytest.approx(_easy_schedule(scaled)["UTIL"])
    assert scaled.machine_procs == 256 and f"f_adj={cal.f_adj:.6g}" in scaled.header[-1]


def test_load_calibration_never_goes_below_the_exact_ratio():
    from schedlab.optimize.calibrate import scale_to_util

    w = small(800, 100)
    scaled, cal = scale_to_util(w, 200, 1.0)  # a target below anything reachable at f
    assert [s["f_adj"] for s in cal.steps] == [2.0]
    assert _easy_schedule(scaled)["UTIL"] > 1.0
    with pytest.raises(WorkloadError, match="target utilisation"):
        scale_to_util(w, 200, 0.0)


def test_ctc_on_1024_targets_the_published_utilisation():
    from schedlab.optimize.calibrate import CTC_1024_EASY_UTIL, load_target

    w = small(50, 430).replace(name="CTC-SP2-1996-3.1-cln", machine_procs=430)
    assert load_target(w, 1024) == CTC_1024_EASY_UTIL == 66.99


def _same_jobs(a: Workload, b: Workload) -> bool:
    return a.machine_procs == b.machine_procs and all(
        np.array_equal(getattr(a, c), getattr(b, c)) for c in ("submit", "runtime", "procs", "estimate"))


@pytest.mark.parametrize("calibrate", [False, True])
def test_every_trace_loader_scales_through_the_one_rescale(calibrate):
    """--scale-to / --calibrate-load: TraceOptions, evolve's training traces and federation jobs all
    give the workload of optimize.calibrate.rescale_workload (plain scale, or scale_to_util to load_target)."""
    from schedlab.cli.options import TraceOptions
    from schedlab.optimize.calibrate import load_target, rescale_workload, scale_to_util
    from schedlab.optimize.evolve import EvolveConfig, load_training
    from schedlab.optimize.federation_run import FederationRunConfig, load_jobs
    from schedlab.workload.spec import TraceSpec

    w = load_trace("KTH-SP2", months=1)
    ref = rescale_workload(w, 150, calibrate)
    direct = scale_to_util(w, 150, load_target(w, 150))[0] if calibrate else scale(w, 150)
    assert _same_jobs(ref, direct) and ref.machine_procs == 150 and len(ref) > len(w)
    assert _same_jobs(ref, scale(w, 150)) != calibrate  # on KTH's first month calibration raises f_adj above 1.5
    assert rescale_workload(w, None, False) is w
    assert _same_jobs(TraceOptions(None, 1, 150, calibrate).load("KTH-SP2"), ref)
    spec = TraceSpec(months=1, scale_to=150, calibrate_load=calibrate)
    (trained,), (machine,) = load_training(EvolveConfig(traces=("KTH-SP2",), trace_spec=spec))
    assert _same_jobs(trained, ref) and machine.procs == 150
    jobs = load_jobs(FederationRunConfig(TraceSpec("KTH-SP2", months=1, scale_to=150, calibrate_load=calibrate),
                                         method="jpr", package_size=10))
    assert np.array_equal(jobs.tasks, ref.procs) and np.array_equal(jobs.base, ref.runtime)
