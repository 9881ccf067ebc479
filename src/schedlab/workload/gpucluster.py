"""A synthetic GPU-cluster workload (issue 47, item 6): a CPU partition and a GPU partition, jobs
that ask for memory and GPUs, and users of whom some submit more jobs at once than a QOS
``MaxJobsPerUser`` limit lets run.

It is **synthetic**: no site's log, no fitted model; its distributions are stated below and are
chosen to exercise resource-aware scheduling (jobs held by memory, by GPUs, by the per-user limit),
not to resemble any real machine. It is seeded and deterministic: one seed, one workload (numpy's
``default_rng``). Every parameter is a field of :class:`GpuClusterParams` with its default, and a
``schedlab workload generate gpu-cluster`` option.

Per job (``rng`` draws in this order, vectorised):

- partition: GPU with probability ``gpu_share``, else CPU (SWF queue 2 ``gpu`` / 1 ``cpu``, named in
  the header's ``SchedlabQueues`` line);
- user: heavy users (1 .. ``heavy_users``) submit ``heavy_share`` of the jobs in bursts of
  ``burst`` jobs at one instant (more than ``max_jobs_per_user``: the QOS limit holds the rest);
  light users (the others) submit one job at a time; users uniform within each kind;
- arrivals: the bursts and the light users' jobs are a Poisson stream of mean inter-arrival
  ``interarrival`` seconds (exponential gaps, whole seconds);
- CPU jobs: 2^k cores, k uniform in 0 .. log2(2 x ``cores_per_node``) (up to two nodes; a job wider
  than a node takes whole nodes), memory per core log-uniform in [``mem_per_core_min``,
  ``mem_per_core_max``] MB, capped at its nodes' memory;
- GPU jobs: 1, 2 or ... ``gpus_per_node`` GPUs (powers of two, uniform), one node, cores_per_node /
  gpus_per_node cores and mem_per_node / gpus_per_node MB per GPU;
- runtime log-uniform in [``runtime_min``, ``runtime_max``] seconds; estimate = runtime x a factor
  uniform in [1, ``overestimate``], rounded up to a minute and capped at ``runtime_max`` (Slurm's
  partition MaxTime), so runtime <= estimate.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from .model import Workload
from .resources import GPU, Resources

__all__ = ["GpuClusterParams", "gpu_cluster", "slurm_conf_text"]


@dataclass(frozen=True)
class GpuClusterParams:
    """The model's parameters (module docstring), each with its default."""

    jobs: int = field(default=2000, metadata={"help": "number of jobs"})
    cpu_nodes: int = field(default=16, metadata={"help": "nodes of the CPU partition"})
    gpu_nodes: int = field(default=4, metadata={"help": "nodes of the GPU partition"})
    cores_per_node: int = field(default=32, metadata={"help": "cores per node (both partitions)"})
    mem_per_node: int = field(default=192000, metadata={"help": "memory per node in MB (slurm.conf RealMemory), both partitions"})
    gpus_per_node: int = field(default=4, metadata={"help": "GPUs per node of the GPU partition (a power of two)"})
    gpu_share: float = field(default=0.3, metadata={"help": "probability that a job is a GPU job"})
    users: int = field(default=20, metadata={"help": "users in all"})
    heavy_users: int = field(default=3, metadata={"help": "users who submit in bursts above the QOS limit (users 1 .. heavy_users)"})
    heavy_share: float = field(default=0.4, metadata={"help": "share of the jobs that the heavy users submit"})
    max_jobs_per_user: int = field(default=8, metadata={"help": "the QOS MaxJobsPerUser the bursts exceed"})
    burst: int = field(default=16, metadata={"help": "jobs per burst of a heavy user (more than max_jobs_per_user)"})
    interarrival: float = field(default=300.0, metadata={"help": "mean seconds between arrivals (a burst is one arrival)"})
    mem_per_core_min: float = field(default=500.0, metadata={"help": "least memory per core of CPU jobs, MB (log-uniform)"})
    mem_per_core_max: float = field(default=8000.0, metadata={"help": "most memory per core of CPU jobs, MB (log-uniform)"})
    runtime_min: float = field(default=60.0, metadata={"help": "shortest runtime, seconds (log-uniform)"})
    runtime_max: float = field(default=86400.0, metadata={"help": "longest runtime and estimate (partition MaxTime), seconds"})
    overestimate: float = field(default=5.0, metadata={"help": "estimates: runtime x uniform [1, overestimate] (whole minutes, capped at runtime_max)"})

    def check(self) -> None:
        """ValueError naming the first parameter out of its range."""
        positive = ("jobs", "cpu_nodes", "gpu_nodes", "cores_per_node", "mem_per_node", "gpus_per_node", "users",
                    "max_jobs_per_user", "burst", "interarrival", "mem_per_core_min", "runtime_min")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.gpus_per_node & (self.gpus_per_node - 1) or self.cores_per_node % self.gpus_per_node:
            raise ValueError(f"gpus_per_node must be a power of two dividing cores_per_node ({self.cores_per_node}), "
                             f"got {self.gpus_per_node}")
        if self.cores_per_node & (self.cores_per_node - 1):
            raise ValueError(f"cores_per_node must be a power of two, got {self.cores_per_node}")
        for name in ("gpu_share", "heavy_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if not 0 <= self.heavy_users < self.users:
            raise ValueError(f"heavy_users must be in [0, users - 1 = {self.users - 1}], got {self.heavy_users}")
        if self.heavy_share > 0 and self.heavy_users == 0:
            raise ValueError("heavy_share > 0 needs heavy_users >= 1")
        if self.burst <= self.max_jobs_per_user:
            raise ValueError(f"burst ({self.burst}) must exceed max_jobs_per_user ({self.max_jobs_per_user}): "
                             "a heavy user's burst is what the limit holds")
        if self.cpu_nodes < 2:
            raise ValueError(f"cpu_nodes must be at least 2 (CPU jobs take up to two nodes), got {self.cpu_nodes}")
        if not self.mem_per_core_min <= self.mem_per_core_max:
            raise ValueError("mem_per_core_min must not exceed mem_per_core_max")
        if not self.runtime_min <= self.runtime_max:
            raise ValueError("runtime_min must not exceed runtime_max")
        if self.overestimate < 1:
            raise ValueError(f"overestimate must be at least 1, got {self.overestimate}")


def _log_uniform(rng, lo: float, hi: float, n: int) -> np.ndarray:
    return np.exp(rng.uniform(math.log(lo), math.log(hi), n))


def gpu_cluster(params: GpuClusterParams = GpuClusterParams(), *, seed: int = 0) -> Workload:
    """The workload of ``params`` and ``seed`` (module docstring), with its resource table."""
    p = params
    p.check()
    rng = np.random.default_rng(seed)
    n = p.jobs
    # users and arrivals: heavy jobs in bursts, light jobs one at a time; arrivals in a random mix
    bursts = min(int(round(p.heavy_share * n / p.burst)), n // p.burst)  # whole bursts only
    heavy_jobs = bursts * p.burst
    light_jobs = n - heavy_jobs
    arrivals = bursts + light_jobs
    kind = np.zeros(arrivals, bool)
    kind[rng.permutation(arrivals)[:bursts]] = True  # True: a burst
    gaps = np.floor(rng.exponential(p.interarrival, arrivals))
    when = np.cumsum(gaps)
    burst_user = rng.integers(1, p.heavy_users + 1, bursts) if bursts else np.zeros(0, np.int64)
    light_user = rng.integers(p.heavy_users + 1, p.users + 1, light_jobs)
    submit, user = [], []
    b = li = 0
    for a in range(arrivals):
        if kind[a]:
            submit += [when[a]] * p.burst
            user += [int(burst_user[b])] * p.burst
            b += 1
        else:
            submit.append(when[a])
            user.append(int(light_user[li]))
            li += 1
    submit = np.asarray(submit, np.float64)
    user = np.asarray(user, np.int64)
    # partitions and sizes
    gpu = rng.random(n) < p.gpu_share
    max_k = int(math.log2(2 * p.cores_per_node))
    cpu_cores = 2 ** rng.integers(0, max_k + 1, n)
    gpu_k = int(math.log2(p.gpus_per_node))
    gpus = np.where(gpu, 2 ** rng.integers(0, gpu_k + 1, n), 0)
    per_gpu_cores = p.cores_per_node // p.gpus_per_node
    cores = np.where(gpu, gpus * per_gpu_cores, cpu_cores)
    nodes = np.where(gpu, 1, np.maximum(1, cores // p.cores_per_node))
    mem_core = _log_uniform(rng, p.mem_per_core_min, p.mem_per_core_max, n)
    cpu_mem = np.minimum(np.round(cpu_cores * mem_core), nodes * p.mem_per_node)
    mem = np.where(gpu, gpus * (p.mem_per_node // p.gpus_per_node), cpu_mem).astype(np.float64)
    runtime = np.round(_log_uniform(rng, p.runtime_min, p.runtime_max, n))
    estimate = np.minimum(np.ceil(runtime * rng.uniform(1.0, p.overestimate, n) / 60.0) * 60.0, p.runtime_max)
    estimate = np.maximum(estimate, runtime)
    res = Resources.build(n, req_nodes=nodes, req_mem=mem, req_gres={GPU: gpus})
    procs_total = (p.cpu_nodes + p.gpu_nodes) * p.cores_per_node
    settings = " ".join(f"{k}={v}" for k, v in asdict(p).items())
    header = (
        " Version: 2.2",
        " Computer: synthetic GPU cluster (schedlab gpu-cluster model; not a real machine)",
        f" MaxJobs: {n}",
        f" MaxNodes: {p.cpu_nodes + p.gpu_nodes}",
        f" MaxProcs: {procs_total}",
        f" Note: synthetic, generated by schedlab: model=gpu-cluster seed={seed} {settings}",
        f" Note: partitions cpu ({p.cpu_nodes} nodes x {p.cores_per_node} cores, {p.mem_per_node} MB) and gpu "
        f"({p.gpu_nodes} nodes x {p.cores_per_node} cores, {p.mem_per_node} MB, {p.gpus_per_node} GPUs); "
        f"QOS normal MaxJobsPerUser={p.max_jobs_per_user}; users 1-{p.heavy_users} submit bursts of {p.burst}",
        " SchedlabQueues: cpu=1 gpu=2",
        " SchedlabQOS: normal=1",
    )
    return Workload.from_columns(
        {
            "submit": submit,
            "runtime": runtime,
            "procs": cores,
            "req_procs": cores,
            "estimate": estimate,
            "status": np.ones(n, np.int64),
            "user": user,
            "queue": np.where(gpu, 2, 1),
            "partition": np.ones(n, np.int64),
        },
        machine_procs=procs_total,
        name=f"gpu-cluster-seed{seed}",
        header=header,
        resources=res,
    )


def slurm_conf_text(params: GpuClusterParams = GpuClusterParams()) -> str:
    """A slurm.conf of the model's machine (NodeName lines with CPUs, RealMemory and Gres=gpu:N,
    PartitionName lines cpu and gpu), for ``--policy slurm --slurm-conf``, which models them
    (docs/slurm-policy-spec.md section 10)."""
    p = params
    last_cpu, last_gpu = p.cpu_nodes - 1, p.gpu_nodes - 1
    return "\n".join([
        "# synthetic GPU cluster of schedlab's gpu-cluster model",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "GresTypes=gpu",
        f"NodeName=c[0-{last_cpu}] CPUs={p.cores_per_node} RealMemory={p.mem_per_node}",
        f"NodeName=g[0-{last_gpu}] CPUs={p.cores_per_node} RealMemory={p.mem_per_node} Gres=gpu:{p.gpus_per_node}",
        f"PartitionName=cpu Nodes=c[0-{last_cpu}] Default=YES MaxTime={int(p.runtime_max // 60)}",
        f"PartitionName=gpu Nodes=g[0-{last_gpu}] MaxTime={int(p.runtime_max // 60)}",
    ]) + "\n"


#: the parameters as (name, type, default, help), for the CLI's options
PARAMETERS = tuple((f.name, f.type, f.default, f.metadata["help"]) for f in fields(GpuClusterParams))
