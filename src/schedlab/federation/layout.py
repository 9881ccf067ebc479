"""The declared layouts of the federation kernels (:mod:`schedlab.federation.kernel`): four named
tuples of arrays instead of tuples read by position, and the names of the two counters.

Numba compiles a named tuple to the same structure as a plain tuple (fields are read at compile
time), so naming the fields costs nothing in the loops; a plain tuple still unpacks the same way.

``PlatformArrays`` (``PA``) is built once per platform by :func:`schedlab.federation.model.platform_arrays`;
``JobArrays`` (``JA``) per package by :func:`schedlab.federation.model.job_arrays`; ``BuildState``
(``ST``) and ``Built`` (``OUT``) by the builders for one schedule.
"""

from __future__ import annotations

from collections import namedtuple

#: the platform: a *group* is the nodes of one cluster with one power (groups sorted by power,
#: descending, then cluster); a *level* a run of groups of equal power. ``g_ptr``/``lvl_ptr``/``c_ptr``
#: are CSR pointers (groups' nodes in ``g_nodes``, levels' groups, clusters' groups in ``c_groups``);
#: ``node_group[n]`` the group of node n; ``bw[k]`` the maximum bandwidth of cluster k's link
PlatformArrays = namedtuple("PlatformArrays", "g_power g_cluster g_ptr lvl_ptr c_ptr c_groups node_group bw g_nodes")

#: the jobs of one package (and, after them, the jobs carried over from earlier packages): tasks,
#: base run time, communication share sigma and per-task bandwidth PTBW
JobArrays = namedtuple("JobArrays", "tasks base sigma ptbw")

#: the state while one schedule is built: free nodes per group (``free_cnt``; the free node ids of a
#: group at the start of its ``slot`` region), per cluster (``cfree``), link loads, the running jobs
#: (a heap of finish times, or a list under the dynamic model), :data:`RUNNING` / :data:`NEXT_SEQ`
#: in ``counters``, and per job the remaining base work, CPU slowdown and current slowdown
BuildState = namedtuple("BuildState", "free_cnt slot cfree loads run counters remaining spcpu cur_sp")

#: a built schedule: per job start, finish, slowdown, tasks per cluster (``jk``), its nodes
#: (``alloc_nodes[alloc_ptr[j]:alloc_ptr[j + 1]]``) and its place in the start order (``seq``)
Built = namedtuple("Built", "start finish sp jk alloc_ptr alloc_nodes seq")

#: ``BuildState.counters`` slots: jobs running now, the start order's next number
RUNNING, NEXT_SEQ = 0, 1
