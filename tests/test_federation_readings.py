"""The workload makespan and package-start readings (slowdown-guided-ga-federation, Sect. 3: "max(F_i) -
min(I_j) for all the jobs in the workload") on a hand-worked two-package case, and the GA's worker
count chosen from the measured evaluation cost."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.federation import FederationOptions, PackageProblem, schedule_workload, validate_federated
from schedlab.federation.model import FederationOptionError
from schedlab.federation.schedule import carry_over
from schedlab.optimize.federation_run import workers_for
from test_federation_handworked import jobs, platform

# One cluster of 4 nodes of power 1: every SP is 1, a job runs its base time. Packages of 2 jobs:
# package 1 = A (2 tasks, 100 s), B (2 tasks, 10 s); package 2 = C (2 tasks, 10 s), D (4 tasks, 10 s).
PF = platform((4, 1.0), bandwidth=10.0)
JOBS = jobs((2, 100, 0.5, 1.0), (2, 10, 0.5, 1.0), (2, 10, 0.5, 1.0), (4, 10, 0.5, 1.0))


def schedule(method="jpr", orders=None, **opts):
    s = schedule_workload(JOBS, PF, method, 2, options=FederationOptions(**opts), orders=orders)
    validate_federated(s)
    return s


def test_barrier_packages_start_on_the_empty_platform_and_both_readings_agree():
    # package 1: A 0-100 and B 0-10 side by side (makespan 100); package 2 starts at 100 on the empty
    # platform: C 100-110, D (4 nodes) waits for C: 110-120 (makespan 20). max F - min I = 120 = 100 + 20.
    for reading in ("workload", "package-sum"):
        s = schedule(package_start="barrier", makespan=reading)
        assert s.start.tolist() == [0, 0, 100, 110] and s.finish.tolist() == [100, 10, 110, 120]
        assert s.package_makespan.tolist() == [100, 20]
        assert s.makespan == 120


def test_carry_releases_the_next_package_at_the_last_start_on_the_platform_left():
    # package 2 is released at 0 (B, the last job of package 1, started at 0) while A (until 100) and
    # B (until 10) hold all 4 nodes: C starts when B ends, 10-20; D needs all 4 nodes: A ends at 100,
    # D 100-110. Workload makespan max F - min I = 110 - 0 = 110 (the paper's, default); the package
    # makespans from their release are 100 and 110, summed 210 (reading package-sum).
    s = schedule()
    assert s.start.tolist() == [0, 0, 10, 100] and s.finish.tolist() == [100, 10, 20, 110]
    assert s.package_makespan.tolist() == [100, 110]
    assert s.makespan == 110
    assert schedule(makespan="package-sum").makespan == 210


def test_the_ga_fitness_sees_the_jobs_carried_over():
    # package 2 after package 1 in submit order: A (finish 100) and B (finish 10) carried over.
    # order C, D: 110 (as above); order D, C: D waits for A, 100-110, then C 110-120: 120.
    opts = FederationOptions()
    carry = carry_over(JOBS, PF, opts, "ga-metl", [np.array([0, 1])])
    assert carry.release == 0 and carry.finish.tolist() == [100, 10]
    p = PackageProblem(JOBS.take(slice(2, 4)), PF, opts, "ga-metl", carry)
    assert p.makespan(np.array([0, 1])) == 110 and p.makespan(np.array([1, 0])) == 120
    assert p.makespans(np.array([[0, 1], [1, 0]])).tolist() == [110, 120]
    # the same orders through schedule_workload: the GA's best is the schedule's package makespan
    s = schedule("ga-metl", orders=[np.array([0, 1]), np.array([1, 0])])
    assert s.package_makespan.tolist() == [100, 120] and s.makespan == 120


def test_readings_are_checked():
    with pytest.raises(FederationOptionError, match="package start"):
        FederationOptions(package_start="after")
    with pytest.raises(FederationOptionError, match="makespan reading"):
        FederationOptions(makespan="sum")
    with pytest.raises(FederationOptionError, match="--package-start barrier"):
        schedule(dynamic=True)
    schedule(dynamic=True, package_start="barrier")


def test_legacy_readings_keep_the_recorded_options_of_older_run_folders():
    assert FederationOptions(package_start="barrier", makespan="package-sum").to_dict() == {
        "dynamic": False, "metl_loss": "absolute", "cbs_cap_chunk": True}
    assert FederationOptions().to_dict()["package_start"] == "carry"


def test_worker_count_follows_the_evaluation_cost_not_the_cores():
    # 100-job package: 0.03 ms x 200 = 6 ms per generation, less than two workers save (3 ms) minus
    # their dispatch (2 x 2 ms + 200 x 100 x 8 bytes x 2 ns = 4.3 ms): one worker
    assert workers_for(0.03e-3, 200, 100, cores=2)["workers"] == 1
    # 1,000-job package: 0.3 ms -> 60 ms per generation; two workers: 30 + 4 + 3.2 = 37.2 ms < 60
    assert workers_for(0.3e-3, 200, 1000, cores=2)["workers"] == 2
    assert workers_for(0.3e-3, 200, 1000, cores=1)["workers"] == 1
    assert workers_for(5e-3, 200, 1000, cores=4)["workers"] == 4
