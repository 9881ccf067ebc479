"""The tuned-fragment case of schedlab.slurm.conformance (issue 37, Must show: the tuned fragment applied to
the real slurmctld gives the start order the simulator predicts; its experiment script publishes the run). The fragment merge and the case's user
groups are checked without Slurm; the case under the tuned weights runs on the real slurmctld in a
test marked ``slurm`` (about a minute; skipped with a one-line reason where the Debian packages
``slurmctld slurmd munge`` or root are absent)."""

from __future__ import annotations

import pytest

from schedlab.slurm.conf import parse_conf
from schedlab.slurm.conformance import (
    CASE_TOL,
    TUNED_CASE_CONF,
    compare,
    simulate_case,
    start_order,
    tuned_case,
    write_case_trace,
)
from schedlab.slurm.tuning import current_values, fragment_text, merge_fragment
from schedlab.workload.load import load_trace


def tuned_conf(**weights):
    """The case's default slurm.conf with a fragment of ``weights`` merged in (the other settings the default's)."""
    values = dict(current_values(parse_conf(TUNED_CASE_CONF, "default.conf")), **weights)
    return merge_fragment(TUNED_CASE_CONF, fragment_text(values, TUNED_CASE_CONF))


def test_the_fragment_replaces_its_keys_lines_and_keeps_the_rest():
    text = tuned_conf(PriorityWeightJobSize=103, PriorityWeightPartition=22)
    lines = text.splitlines()
    assert "PriorityWeightJobSize=103" in lines and "PriorityWeightPartition=22" in lines
    # one line per key: the fragment's SchedulerParameters (bf items added) replaced the default's
    assert [ln for ln in lines if ln.startswith("SchedulerParameters=")] == [
        "SchedulerParameters=bf_interval=1,bf_resolution=1,bf_window=1440,bf_max_job_test=500"]
    assert sum(ln.startswith("PriorityType=") for ln in lines) == 1
    for kept in ("NodeName=sl1 CPUs=4", "PartitionName=high MaxTime=10 PriorityJobFactor=4 State=UP"):
        assert kept in lines
    assert not any(ln.startswith("#") for ln in lines)
    c = parse_conf(text, "tuned.conf")
    assert c.weights["jobsize"] == 103 and c.weights["partition"] == 22 and c.sched["bf_window"] == 1440


def test_the_case_trace_makes_the_accounts_user_groups_1_and_2(tmp_path):
    jobs = tuned_case()
    w = load_trace(str(write_case_trace(jobs, tmp_path / "case.swf")), procs=4)
    assert w.group.tolist() == [1 if j.account == "g2" else 2 for j in jobs]


def test_the_weights_change_the_simulated_order_of_the_case():
    jobs = tuned_case()
    default = simulate_case(jobs, TUNED_CASE_CONF)
    tuned = simulate_case(jobs, tuned_conf(PriorityWeightJobSize=103, PriorityWeightPartition=22))
    assert start_order(default) == list(range(1, len(jobs) + 1))  # all weights 0: first come, first served
    # the 4-CPU high job (10: size 103 + partition 22) goes before the 4-CPU batch jobs (103 + 22/4)
    assert start_order(tuned)[:2] == [1, 10]


@pytest.mark.slurm
def test_tuned_weights_on_the_real_slurmctld_give_the_simulated_start_order():
    from schedlab.slurm.harness import SlurmCluster, slurm_unavailable

    reason = slurm_unavailable()
    if reason:
        pytest.skip(reason)
    jobs = tuned_case()
    conf = tuned_conf(PriorityWeightJobSize=103, PriorityWeightPartition=22)
    with SlurmCluster(conf=conf, cpus=4) as cluster:
        real = cluster.run(jobs)
    sim = simulate_case(jobs, conf)
    absolute, relative, same_order = compare(real, sim, CASE_TOL)
    print("\nreal", real.start.tolist(), "\nsim ", sim.start.tolist(), "\noff:", absolute, relative)
    assert same_order and relative == [], (absolute, relative, same_order)
