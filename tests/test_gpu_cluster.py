"""The synthetic GPU-cluster workload (schedlab.workload.gpucluster): seeded and deterministic, and
the properties its docstring states of its distributions, each checked on a generated sample."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from schedlab.cli.main import main
from schedlab.workload import read_swf
from schedlab.workload.gpucluster import GpuClusterParams, gpu_cluster
from schedlab.workload.resources import resources_of

P = GpuClusterParams(jobs=4000)


@pytest.fixture(scope="module")
def w():
    return gpu_cluster(P, seed=7)


def test_seeded_and_deterministic(w):
    again = gpu_cluster(P, seed=7)
    for col in ("submit", "runtime", "procs", "estimate", "user", "queue"):
        assert np.array_equal(getattr(w, col), getattr(again, col)), col
    assert np.array_equal(w.resources.req_mem, again.resources.req_mem)
    assert np.array_equal(w.resources.req_gpus, again.resources.req_gpus)
    other = gpu_cluster(P, seed=8)
    assert not np.array_equal(w.submit, other.submit)


def test_gpu_share_is_the_stated_probability(w):
    """Each job is a GPU job with probability 0.3: the count of 4000 is within 4 standard deviations."""
    gpu = w.queue == 2
    sd = math.sqrt(P.jobs * P.gpu_share * (1 - P.gpu_share))
    assert abs(gpu.sum() - P.jobs * P.gpu_share) < 4 * sd
    assert set(np.unique(w.queue)) == {1, 2} and any("SchedlabQueues: cpu=1 gpu=2" in h for h in w.header)


def test_every_job_fits_a_node_of_its_partition(w):
    res = w.resources
    gpu = w.queue == 2
    # GPU jobs: 1, 2 or 4 GPUs on one node, 32/4 = 8 cores and 192000/4 = 48000 MB per GPU
    assert set(np.unique(res.req_gpus[gpu])) == {1, 2, 4}
    assert np.array_equal(w.procs[gpu], res.req_gpus[gpu] * 8) and np.all(res.req_nodes[gpu] == 1)
    assert np.array_equal(res.req_mem[gpu], res.req_gpus[gpu] * 48000.0)
    # CPU jobs: 1, 2, ..., 64 cores (up to two whole nodes), no GPUs, memory at most their nodes'
    cpu = ~gpu
    assert set(np.unique(w.procs[cpu])) == {1, 2, 4, 8, 16, 32, 64} and np.all(res.req_gpus[cpu] == 0)
    assert np.array_equal(res.req_nodes[cpu], np.where(w.procs[cpu] > 32, 2, 1))
    assert np.all(res.req_mem[cpu] <= res.req_nodes[cpu] * 192000.0)


def test_memory_per_core_is_log_uniform(w):
    """CPU jobs of at most 16 cores are never capped (16 x 8000 < 192000): log(mem/core) is uniform
    on [log 500, log 8000] (Kolmogorov-Smirnov, 1 - 0.001 confidence; rounding to whole MB aside)."""
    res = w.resources
    small = (w.queue == 1) & (w.procs <= 16)
    per_core = res.req_mem[small] / w.procs[small]
    assert per_core.min() >= 500 - 0.5 and per_core.max() <= 8000 + 0.5
    u = (np.log(per_core) - math.log(500)) / (math.log(8000) - math.log(500))
    assert stats.kstest(np.clip(u, 0, 1), "uniform").pvalue > 1e-3


def test_runtimes_log_uniform_and_never_above_their_estimate(w):
    assert np.all(w.runtime <= w.estimate) and np.all(w.estimate <= P.runtime_max) and w.runtime.min() >= P.runtime_min
    u = (np.log(w.runtime) - math.log(P.runtime_min)) / (math.log(P.runtime_max) - math.log(P.runtime_min))
    assert stats.kstest(np.clip(u, 0, 1), "uniform").pvalue > 1e-3


def test_exactly_the_heavy_users_exceed_the_qos_limit(w):
    """Users 1-3 submit bursts of 16 jobs at one instant, more than MaxJobsPerUser 8; light users one job
    at a time. Heavy jobs: round(0.4 x 4000 / 16) = 100 bursts = 1600 jobs."""
    pairs, counts = np.unique(np.stack([w.user, w.submit.astype(np.int64)]), axis=1, return_counts=True)
    over = set(pairs[0, counts > P.max_jobs_per_user].tolist())
    assert over == {1, 2, 3}
    assert int(np.isin(w.user, [1, 2, 3]).sum()) == 1600
    assert set(np.unique(w.user).tolist()) <= set(range(1, 21))


def test_cli_writes_swf_that_reads_back_with_memory_and_gpus(tmp_path, capsys):
    out, conf = tmp_path / "g.swf", tmp_path / "g.conf"
    assert main(["workload", "generate", "gpu-cluster", "--jobs", "300", "--seed", "3", "-o", str(out),
                 "--slurm-conf-out", str(conf)]) == 0
    made = gpu_cluster(GpuClusterParams(jobs=300), seed=3)
    back = read_swf(out)
    assert np.array_equal(back.resources.req_gpus, made.resources.req_gpus)
    assert np.array_equal(resources_of(back).req_mem, made.resources.req_mem)  # field 10 x cores / 1024
    assert "Gres=gpu:4" in conf.read_text() and "RealMemory=192000" in conf.read_text()
    capsys.readouterr()
    assert main(["simulate", str(out), "--policy", "easy", "--json"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "--policy easy does not model" in line]
    assert len(notes) == 1 and "memory (300 jobs)" in notes[0] and "GPUs (" in notes[0]
    assert main(["simulate", str(out), "--policy", "slurm", "--slurm-conf", str(conf), "--json"]) == 0
    err = capsys.readouterr().err
    assert "ignored" not in err and "does not model" not in err  # CR_Core_Memory, Gres=gpu:4: modelled (issue 47 item 2)


def test_bad_parameter_is_one_line(capsys, tmp_path):
    assert main(["workload", "generate", "gpu-cluster", "--burst", "4", "-o", str(tmp_path / "x.swf")]) == 2
    err = capsys.readouterr().err
    assert "--burst: burst (4) must exceed max_jobs_per_user (8)" in err and "Traceback" not in err
