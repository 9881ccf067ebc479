"""A slow, obviously-correct reference of jobs on nodes with CPUs, memory and GPUs (issue 47): plain
Python, strict FCFS (no backfill), first fit over the nodes in index order. It is the data model
the Slurm allocation (select/cons_tres) will be checked against, not a model of Slurm itself:

- a job asks for ``procs`` CPUs, ``req_mem`` MB and ``req_gpus`` GPUs in all (its Workload and
  resource table; -1: none), spread evenly over ``req_nodes`` nodes (-1: one node), each node
  getting procs/k CPUs, req_mem/k MB and req_gpus/k GPUs (the amounts must divide evenly);
- an exclusive job takes nodes on which nothing runs, and nothing else starts beside it;
- time jumps to the next submit or finish; at one time, finishes, then the queue head starts on
  the first k nodes (of its partition) that have room, then the next, until the head does not fit.
"""

from __future__ import annotations

import numpy as np

from schedlab.sim.model import NodeAllocation
from schedlab.sim.validate import validate_node_allocation
from schedlab.workload.resources import resources_of


def naive_node_fcfs(workload, machine, partitions=None):
    """(start, finish, NodeAllocation) of strict FCFS on ``machine``'s nodes (module docstring);
    ``partitions``: a partition name per job ('' for any node)."""
    w = workload
    n = len(w)
    res = resources_of(w)
    mem = [max(float(x), 0.0) for x in res.req_mem] if res is not None else [0.0] * n
    gpus = [max(int(x), 0) for x in res.req_gpus] if res is not None else [0] * n
    k_nodes = [max(int(x), 1) for x in res.req_nodes] if res is not None else [1] * n
    excl = [int(x) == 1 for x in res.exclusive] if res is not None else [False] * n
    free = [[nd.cpus, nd.mem, nd.gpus] for nd in machine.nodes]
    jobs_on = [set() for _ in machine.nodes]
    order = sorted(range(n), key=lambda j: (float(w.submit[j]), j))
    start, finish = [None] * n, [None] * n
    rows = []
    running: list[int] = []
    queue: list[int] = []
    t = 0.0
    nxt = 0
    while nxt < n or queue or running:
        times = [finish[j] for j in running] + ([float(w.submit[order[nxt]])] if nxt < n else [])
        t = min(times)
        for j in [j for j in running if finish[j] <= t]:
            running.remove(j)
            for r in [r for r in rows if r[0] == j]:
                free[r[1]][0] += r[2]
                free[r[1]][1] += r[3]
                free[r[1]][2] += r[4]
                jobs_on[r[1]].discard(j)
        while nxt < n and float(w.submit[order[nxt]]) <= t:
            queue.append(order[nxt])
            nxt += 1
        while queue:
            j = queue[0]
            k = k_nodes[j]
            need = (int(w.procs[j]) / k, mem[j] / k, gpus[j] / k)
            part = partitions[j] if partitions is not None else ""
            chosen = [x for x, nd in enumerate(machine.nodes)
                      if (not part or part in nd.partitions) and all(free[x][i] >= need[i] for i in range(3))
                      and not (excl[j] and jobs_on[x]) and not any(excl[o] for o in jobs_on[x])][:k]
            if len(chosen) < k:
                break
            queue.pop(0)
            start[j] = t
            finish[j] = t + float(w.runtime[j])
            for x in chosen:
                rows.append((j, x, int(need[0]), need[1], int(need[2])))
                for i in range(3):
                    free[x][i] -= need[i]
                jobs_on[x].add(j)
            running.append(j)  # a zero-length job's finish is the next event, at this same time
    return np.array(start, dtype=float), np.array(finish, dtype=float), NodeAllocation.from_rows(rows)


def checked_nodes(s, workload=None):
    """A ``--policy slurm`` schedule's node allocation through the node validator (no node over its CPUs,
    memory or GPUs at any instant, partitions, whole nodes), after asserting the run took the resource
    path (it has an allocation); ``workload``: the jobs (default the schedule's). The schedule."""
    r = s.slurm
    assert r.allocation is not None  # (the resource path, not the CPU-only one)
    validate_node_allocation(r.nodes, r.allocation, s.start, s.finish,
                             workload=s.workload if workload is None else workload, partitions=r.partition,
                             exclusive=r.exclusive)
    return s
