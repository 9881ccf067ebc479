"""Multi-site simulation: K independent EASY sites exchanging jobs (none, POOL, RQ).

nsga2-grid-performance-bounds, Sections 3 and 5.3; the exact exchange rules are in
:mod:`schedlab.grid.kernel`. The sites' traces are merged into one trace ordered by submit time
(ties: site index, then trace order), each site's trace first rebased so that its first job is
submitted at 0 (shift by the whole seconds of its first submit) (the paper aligns the recordings on their own start, Section 4.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import WorkloadError
from ..sim.model import Machine, Schedule
from ..strategy.model import Strategy
from ..workload.model import ALL_COLUMNS, Workload
from .kernel import EXCHANGES, grid_kernel


@dataclass(frozen=True)
class Site:
    """One grid site: its name, its own trace (jobs submitted there) and its processors m_k."""

    name: str
    workload: Workload
    procs: int

    def __post_init__(self) -> None:
        if int(self.procs) != self.procs or self.procs <= 0:
            raise WorkloadError(f"site {self.name}: size must be a positive number of processors, got {self.procs!r}")
        object.__setattr__(self, "procs", int(self.procs))
        w = self.workload
        if len(w):
            if np.any(w.procs <= 0) or np.any(w.runtime < 0):
                raise WorkloadError(f"site {self.name}: unclean workload (procs <= 0 or runtime < 0); clean it first")
            if np.any(w.procs > self.procs):
                j = int(np.argmax(w.procs > self.procs))
                raise WorkloadError(
                    f"site {self.name}: job {int(w.id[j])} needs {int(w.procs[j])} processors, the site has {self.procs}"
                )
            if np.any(w.estimate <= 0):
                j = int(np.argmax(w.estimate <= 0))
                raise WorkloadError(f"site {self.name}: job {int(w.id[j])} has no runtime estimate; clean it first")


@dataclass(frozen=True, eq=False)
class GridTrace:
    """The merged trace of a grid: all jobs ordered by submit, with their origin site.

    ``workload`` holds every job (submit rebased per site); ``origin[j]`` is the index of the
    site job j was submitted to; ``site_procs[k]`` = m_k; ``run`` = min(runtime, estimate), the
    processing time of a job killed at its estimate.
    """

    workload: Workload
    origin: np.ndarray
    site_procs: np.ndarray
    names: tuple[str, ...]

    @classmethod
    def merge(cls, sites: Sequence[Site]) -> "GridTrace":
        """Merge the sites' traces: each rebased to its first submit, then stable-sorted by submit."""
        if len(sites) < 2:
            raise WorkloadError(f"a grid needs at least 2 sites, got {len(sites)}")
        parts = []
        origins = []
        for k, s in enumerate(sites):
            w = s.workload.sorted_by_submit()
            if len(w):
                w = w.replace(submit=w.submit - np.floor(w.submit[0]))
            parts.append(w)
            origins.append(np.full(len(w), k, dtype=np.int64))
        cols = {name: np.concatenate([getattr(w, name) for w in parts]) for name in ALL_COLUMNS}
        origin = np.concatenate(origins)
        order = np.lexsort((np.arange(origin.size), origin, cols["submit"]))
        merged = Workload.from_columns({name: v[order] for name, v in cols.items()}, name="+".join(s.name for s in sites))
        return cls(
            workload=merged,
            origin=origin[order],
            site_procs=np.array([s.procs for s in sites], dtype=np.int64),
            names=tuple(s.name for s in sites),
        )

    @property
    def run(self) -> np.ndarray:
        return np.minimum(self.workload.runtime, self.workload.estimate).astype(np.float64)

    def __len__(self) -> int:
        return len(self.workload)


@dataclass(frozen=True, eq=False)
class GridSchedule:
    """Start time and executing site of every job of a :class:`GridTrace`."""

    trace: GridTrace
    exchange: str
    start: np.ndarray
    site: np.ndarray

    @property
    def finish(self) -> np.ndarray:
        return self.start + self.trace.run

    def site_schedule(self, k: int) -> Schedule:
        """The single-site schedule of the jobs executed at site k."""
        mask = self.site == k
        return Schedule(
            workload=self.trace.workload.take(mask).replace(name=self.trace.names[k]),
            machine=Machine(int(self.trace.site_procs[k])),
            strategy=Strategy("easy"),
            start=self.start[mask],
            finish=self.finish[mask],
            killed=True,
            # without exchange a site's schedule is a plain EASY schedule: site=None makes
            # validate_schedule replay the EASY rules; with exchange, jobs join remote queues
            # after their submit, so only capacity/submit/once/finish are checked
            site=None if self.exchange in ("none", "partition") else np.full(int(mask.sum()), k, dtype=np.int64),
        )

    def overall_awrt(self) -> float:
        """AWRT over all jobs of the grid (eq. (2) over the union of the sites)."""
        run = self.trace.run
        area = run * self.trace.workload.procs
        total = float(area.sum())
        from ..metrics.basic import weighted_sum

        return weighted_sum(area, self.finish - self.trace.workload.submit) / total if total > 0 else float("nan")


def simulate_grid(sites: Sequence[Site] | GridTrace, exchange: str = "none", reading=None) -> GridSchedule:
    """Simulate K EASY sites with job exchange ``none``, ``pool`` or ``rq``.

    nsga2-grid-performance-bounds, Section 5.3 (RQ, POOL) and Section 3 (model); rules in
    :mod:`schedlab.grid.kernel`. ``reading``: a :class:`schedlab.grid.readings.Reading`, a
    reading text (``"rq-when=every"``, ``"issue5"``) or None for the recommended default.
    """
    from .readings import Reading

    reading = reading if isinstance(reading, Reading) else Reading.parse(reading)
    if exchange not in EXCHANGES:
        raise WorkloadError(f"unknown exchange policy {exchange!r}; choose one of {', '.join(EXCHANGES)}")
    trace = sites if isinstance(sites, GridTrace) else GridTrace.merge(sites)
    w = trace.workload
    start, site, _awrt, _aborted = grid_kernel(
        np.ascontiguousarray(w.submit, dtype=np.float64),
        trace.run,
        np.ascontiguousarray(w.estimate, dtype=np.float64),
        np.ascontiguousarray(w.procs, dtype=np.int64),
        np.ascontiguousarray(trace.origin, dtype=np.int64),
        trace.site_procs,
        EXCHANGES[exchange],
        np.inf,
        reading=reading,
    )
    return GridSchedule(trace=trace, exchange=exchange, start=start, site=site)


def check_site_schedules(schedule: GridSchedule) -> None:
    """Per site: capacity never exceeded, no start before submit, every job once, finish = start + p.

    The checks that hold for every exchange policy (a migrated job joins the remote queue after
    its submit, so EASY's reservation order does not apply across sites); raises AssertionError.
    """
    trace = schedule.trace
    w = trace.workload
    n = len(w)
    assert schedule.start.shape == (n,) and schedule.site.shape == (n,), "one start and one site per job"
    assert np.all(schedule.start >= 0), "every job scheduled exactly once"
    assert np.all((schedule.site >= 0) & (schedule.site < len(trace.names))), "every job on a site"
    late = schedule.start < w.submit
    assert not late.any(), f"job {int(w.id[np.argmax(late)])} starts before its submit time"
    for k in range(len(trace.names)):
        mask = schedule.site == k
        assert np.all(w.procs[mask] <= trace.site_procs[k]), f"a job wider than site {k} runs there"
        s = schedule.start[mask]
        f = schedule.finish[mask]
        p = w.procs[mask]
        times = np.concatenate([s, f])
        delta = np.concatenate([p, -p])
        order = np.lexsort((delta, times))  # at one instant, finishes (negative) first
        busy = np.cumsum(delta[order])
        assert busy.max(initial=0) <= trace.site_procs[k], f"site {k} over capacity: {busy.max()} > {trace.site_procs[k]}"
