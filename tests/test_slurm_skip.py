"""--policy slurm skips backfill passes that provably start nothing (kernel.slurm_loop, _backfill's
horizon) and resumes a pass after submissions alone where the queue order first differs from the
last pass's: the starts must be those of the same loop running every pass whole
(``skip_passes=False``), and those of the loop as it was before the speed work, in plain Python
(tests/support/slurm_naive.py: no pass skipped, resumed or ended early, the queue sorted for every run).
Random cases are built to reach every reading of the time a skipped pass relies on: a short
bf_window (jobs entering it later), short bf_interval and PriorityCalcPeriod with age and
fair-share weights (passes due with nothing submitted or ended), jobs past their limit
(expected ends that move with time), small bf_max_job_test, both bf_touch readings, two
partitions sharing nodes. Every schedule goes through the shared validator."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from schedlab.sim.validate import validate_schedule
from schedlab.slurm.conf import parse_conf
from schedlab.slurm.conformance import SPEED_CONF
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm

from support import slurm_naive
from test_slurm_policy import jobs

#: (procs, node lines, CPUs of partition short): two partitions sharing nodes, wide or one-CPU nodes
NODES = ((6, "NodeName=a,b,c CPUs=2\nPartitionName=batch Nodes=a,b,c Default=YES\nPartitionName=short Nodes=b,c\n", 2),
         (6, "NodeName=a,b,c,d,e,f CPUs=1\nPartitionName=batch Nodes=a,b,c,d,e,f Default=YES\nPartitionName=short Nodes=e,f\n", 2))
#: more nodes for the crowded cases (tens of reservations per pass): 70 one-CPU nodes (two
#: bit-words, nodespace), or 12 nodes of 3 CPUs (two bit planes)
_MANY = ",".join(f"n{v}" for v in range(70))
CROWDED_NODES = ((70, f"NodeName={_MANY} CPUs=1\nPartitionName=batch Nodes={_MANY} Default=YES\n"
                      f"PartitionName=short Nodes={','.join(f'n{v}' for v in range(50, 70))}\n", 20),
                 (36, "NodeName=a,b,c,d,e,f,g,h,i,j,k,l CPUs=3\nPartitionName=batch Nodes=a,b,c,d,e,f,g,h,i,j,k,l Default=YES\n"
                      "PartitionName=short Nodes=j,k,l\n", 9))


def both(w, procs, policy):
    """The schedule with skipping and the one running every pass, both validated."""
    fast = simulate_slurm(w, procs, policy)
    slow = simulate_slurm(w, procs, policy, skip_passes=False)
    validate_schedule(fast)
    validate_schedule(slow)
    return fast, slow


@st.composite
def cases(draw, nodes=NODES, njobs=(2, 30), last_submit=60, cpus=6, max_test=(1, 2, 5, 500)):
    procs, nodes, short = draw(st.sampled_from(nodes))
    n = draw(st.integers(*njobs))
    unit = draw(st.sampled_from([1.0, 10.0, 60.0]))
    rows = [(draw(st.integers(0, last_submit)) * unit, draw(st.integers(1, cpus)), draw(st.integers(0, 40)) * unit / 2,
             draw(st.integers(1, 30)), draw(st.sampled_from([1, 2])), draw(st.integers(1, 3))) for _ in range(n)]
    rows = [(s, min(c, short) if q == 2 else c, r, lim, q, a) for s, c, r, lim, q, a in rows]
    sched = ",".join([f"bf_interval={draw(st.sampled_from([1, 5, 30]))}",
                      f"bf_window={draw(st.sampled_from([1, 3, 10, 1440]))}",
                      f"bf_resolution={draw(st.sampled_from([1, 60, 300]))}",
                      f"bf_max_job_test={draw(st.sampled_from(max_test))}",
                      f"sched_interval={draw(st.sampled_from([5, 60]))}"]
                     + [f"bf_node_space_size={v}" for v in draw(st.sampled_from([[], [], [3], [8]]))])
    conf = ("PriorityType=priority/multifactor\nPriorityCalcPeriod=1\n"
            "AccountingStorageType=accounting_storage/slurmdbd\n"
            f"PriorityWeightAge={draw(st.sampled_from([0, 1000]))}\nPriorityMaxAge={draw(st.sampled_from([5, 60]))}\n"
            f"PriorityWeightFairshare={draw(st.sampled_from([0, 10000]))}\nPriorityWeightJobSize=100\n"
            f"OverTimeLimit={draw(st.sampled_from([0, 1]))}\nSchedulerType=sched/backfill\n"
            f"SchedulerParameters={sched}\n" + nodes)
    options = SlurmOptions(bf_touch=draw(st.sampled_from(["inclusive", "exclusive"])),
                           kill_check=draw(st.sampled_from(["periodic-30s", "exact"])),
                           will_run_batching=draw(st.sampled_from(["doubling-30s", "exact"])),
                           bf_max_job_test_counts=draw(st.sampled_from(["tried", "popped"])),
                           fairshare=draw(st.sampled_from(["fair-tree", "classic"])),
                           # issue 44: the anchors, and the main run after a job end
                           controller_start=draw(st.sampled_from(["settled", "-7.5", "3"])),
                           unix_start=draw(st.sampled_from(["header", "30", "1000000017"])),
                           sched_on_end=draw(st.sampled_from(["tick-after-batch-delay", "immediate"])))
    return rows, procs, conf, options


@settings(max_examples=examples(300), deadline=None)
@given(case=cases())
def test_skipping_passes_keeps_every_start(case):
    rows, procs, conf, options = case
    fast, slow = both(jobs(rows, procs=procs), procs, SlurmPolicy(parse_conf(conf, "t.conf"), options))
    np.testing.assert_array_equal(fast.start, slow.start)
    np.testing.assert_array_equal(fast.slurm.started_by, slow.slurm.started_by)


def test_skipping_passes_keeps_every_start_on_a_kth_month():
    # the speed figures' configuration (SPEED_CONF, one partition, as the speed benchmark) on a real
    # trace: thousands of passes, most of them skipped
    from conftest import trace_path

    from schedlab.workload.load import load_trace

    w = load_trace(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"), months=1)
    fast, slow = both(w, w.machine_procs, SlurmPolicy(parse_conf(SPEED_CONF, "speed.conf"), SlurmOptions(queue_map="default")))
    assert (fast.slurm.started_by == 2).sum() > 100  # backfill did work
    np.testing.assert_array_equal(fast.start, slow.start)


# ------------------------------------------------------------------ hand-worked: time alone changes a pass
# Age weight and PriorityCalcPeriod=1 make a pass due every minute with nothing submitted or ended
# and the queue order unchanged; in each case a later pass starts a job the first one did not, so
# a skip that ignored the horizon would start it only at the next job end.
AGE = ("AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\nPriorityCalcPeriod=1\nPriorityWeightAge=1000\nPriorityMaxAge=60\n"
       "PriorityWeightJobSize=100\n")


def test_a_job_that_loses_its_last_candidate_node_frees_a_test_for_the_next():
    # nodes a, b of 2 CPUs, bf_max_job_test=2. Z (2 CPUs, 600 s) runs on a. R (4 CPUs) is reserved on
    # a and b from 600; X (3 CPUs, limit 5 min) cannot start but has candidate nodes while
    # now + 300 < 600, so it is tested and the pass stops before Y (1 CPU, 1 min). At 300 X's
    # candidates are gone: it is not counted, Y is tested and backfilled on b (300 + 60 < 600).
    conf = AGE + "SchedulerParameters=bf_interval=30,bf_max_job_test=2\nNodeName=a,b CPUs=2\n" \
                 "PartitionName=batch Nodes=a,b Default=YES\n"
    rows = [(0, 2, 600, 10, 1, 1), (1, 4, 60, 10, 1, 1), (1, 3, 60, 5, 1, 1), (1, 1, 60, 1, 1, 1)]
    fast, slow = both(jobs(rows, 4), 4, SlurmPolicy(parse_conf(conf, "t.conf")))
    assert fast.start.tolist() == slow.start.tolist() == [0, 600, 660, 300]
    assert fast.slurm.started_by.tolist() == [1, 1, 1, 2]


def test_a_job_entering_the_window_moves_a_reservation_and_frees_a_node():
    # nodes a, b, c of 1 CPU, bf_window=15 min. Z1 runs on a until 1020, Z2 on b until 420; c is free.
    # At 1: A (3 CPUs) can start only at 1020, beyond the window's end (900): no reservation; C (2
    # CPUs, 12 min) is reserved on b, c from 420; D (1 CPU, 10 min) overlaps that on c and waits.
    # At 120 the window reaches 1020: A is reserved on a, b, c from 1020, C (420 + 720 >= 1020) no
    # longer fits before it and gets no reservation, and D (120 + 600 < 1020) starts on c.
    conf = AGE + "SchedulerParameters=bf_interval=30,bf_window=15\nNodeName=a,b,c CPUs=1\n" \
                 "PartitionName=batch Nodes=a,b,c Default=YES\n"
    rows = [(0, 1, 1020, 17, 1, 1), (0, 1, 420, 7, 1, 1), (1, 3, 60, 10, 1, 1), (1, 2, 60, 12, 1, 1),
            (1, 1, 60, 10, 1, 1)]
    fast, slow = both(jobs(rows, 3), 3, SlurmPolicy(parse_conf(conf, "t.conf")))
    assert fast.start.tolist() == slow.start.tolist() == [0, 0, 1020, 1080, 120]
    assert fast.slurm.started_by.tolist() == [1, 1, 1, 1, 2]


def same_as_reference(case):
    """The compiled loop's starts (validated) are those of tests/support/slurm_naive.py."""
    rows, procs, conf, options = case
    w = jobs(rows, procs=procs)
    policy = SlurmPolicy(parse_conf(conf, "t.conf"), options)
    fast = simulate_slurm(w, procs, policy)
    validate_schedule(fast)
    start, by = slurm_naive.starts(w, procs, policy)
    np.testing.assert_array_equal(fast.start, start)
    np.testing.assert_array_equal(fast.slurm.started_by, by)


@settings(max_examples=examples(500), deadline=None)
@given(case=cases())
def test_the_compiled_loop_keeps_the_starts_of_the_plain_reference(case):
    # the kernels' speed-ups (kept queue order, kept reservation state, skipped and resumed passes,
    # the bit-word walk) against the loop as it was before them, in plain Python, every pass whole
    # (tests/support/slurm_naive.py)
    same_as_reference(case)


@settings(max_examples=examples(150), deadline=None)
@given(case=cases(nodes=CROWDED_NODES, njobs=(30, 60), last_submit=10, cpus=30, max_test=(500,)))
def test_crowded_passes_keep_the_starts_of_the_plain_reference(case):
    # many jobs submitted at once on more nodes: passes with tens of reservations, so a job's
    # earliest-start walk slides its window over many slots of the reservation map (the bit-word
    # walk of nodespace), with limits under bf_resolution (reservations of no length), nodes past
    # one bit-word and nodes of several CPUs (bit planes); against the plain reference as above
    same_as_reference(case)
