"""Readings of the exchange rules POOL and RQ (nsga2-grid-performance-bounds, Section 5.3).

The paper describes each heuristic in one paragraph; several of its sentences can be read more
than one way, and the readings give different schedules (issue 17 measures them on setups I-IV).
Each reading is a named option here, with the text it reads; :class:`Reading` bundles one choice
per option and turns it into the codes the compiled loop (:mod:`schedlab.grid.kernel`) reads.

RQ, Section 5.3 (quoted in full, the bullets numbered here)::

    (1) When a job arrives at the decision maker component that has been submitted from the
        local user community, it is added to the end of the local waiting queue.
    (2) On every modification of the local waiting queue, the local scheduling algorithm (in
        our case EASY) is invoked. During this step, either the first job in the local waiting
        queue is started, or one other job from the local waiting queue may or may not be
        backfilled.
    (3) The decision maker requests all remote queues from all sites and -- subsequently
        iterating over all remote jobs -- adds each job that could be started immediately to
        the end of the local waiting queue. During this step, the number of potentially free
        resources at the current instant is reduced by the number of requested resources of
        each added remote. Note however, that the real number of currently unused resources is
        left untouched.

``rq_seq`` -- when, within one instant, a site's request comes relative to the other sites' own
passes:

- ``local-first`` (default): every site runs its own pass (2) at the instant before any site
  requests (3). Bullet (2) is what a site does with its own queue; (3) then iterates over
  "remote jobs", i.e. jobs their own site has not started. Without it site 0 takes jobs that
  just arrived at site 1 and that site 1's own pass would have started at once (issue 17: on
  setup I KTH-SP2 then executes 38,895 jobs, not its own 28,467).
- ``interleaved``: site by site in index order, pass (2) then request (3) (site 0 requests
  before site 1 has passed). The reading of issue 5, kept for comparison (the golden file's
  ``grid/*/rq`` entries).

``rq_when`` -- which instants a site requests at:

- ``every``: at every event instant (any finish or arrival anywhere); issue 5's reading.
- ``queue-changed`` (default): only when the requesting site's own waiting queue was modified at
  this instant (one of its users' jobs arrived, its pass started a waiting job, or another
  site's request took a job from it): bullets (2)-(3) are one sequence triggered "on every
  modification of the local waiting queue".
- ``own-arrival``: only when one of its own users' jobs arrives at this instant: bullet (1)
  names that as the event the decision maker component handles.

``rq_take`` -- which remote jobs move:

- ``budget`` (default): every remote job whose width fits the virtual budget b (b starts at the
  site's free processors and is lowered by every moved job; "the number of potentially free
  resources ... is reduced by the number of requested resources of each added remote ... the
  real number of currently unused resources is left untouched"); the moved jobs join the end
  of the local queue and the local pass runs again; a moved job that pass does not start waits
  there (it may be requested away again).
- ``startable``: only remote jobs "that could be started immediately" in the strict sense:
  jobs the requesting site's EASY pass starts at this instant when appended behind the jobs
  moved so far (width <= free processors left; if the site has waiting jobs, ending by its
  head's reservation or fitting the processors the reservation leaves spare); the others stay
  home. (The test is EASY's, the paper's local rule, whatever rule the site runs.)

POOL, Section 5.3 (the cited POOL work, Grimme et al. [15], is not among ../shared/papers)::

    In their approach (POOL) a central job pool is used to migrate jobs between Grid sites:
    in case a considered job cannot be executed locally, the decision maker publishes it into
    a central pool. At the same time, each site includes the pooled jobs into its local
    scheduling process and thus enables job exchange between independent sites.

A job is published at its arrival instant if its own site's pass (run first) did not start it
("a considered job" is the arriving one; "cannot be executed locally" = its site cannot start it
now). It stays in its origin's queue as well: the origin may still start it itself. (Publishing
every job that waits at any later instant as well gives the same pool as ``pool-keep
persistent``: a job waits from its arrival on until it starts.)

``pool_take`` -- how another site "includes the pooled jobs into its local scheduling process":

- ``backfill`` (default): after its own pass, a site takes pooled jobs (pool order = submit
  order) that fit its free processors now and do not delay its own head's reservation (EASY's
  backfill test); a site with an empty queue takes any pooled job that fits. The pooled jobs are
  scheduled like the last jobs of the local queue. Issue 5's reading.
- ``idle``: a site takes pooled jobs only when its own queue is empty (pooled jobs never compete
  with local waiting jobs).

``pool_keep`` -- how long a published job stays offered:

- ``persistent`` (default): until it starts anywhere (issue 5's reading: "a central pool" that
  holds the job).
- ``once``: only in the scheduling round of its publishing; afterwards only its origin's queue
  holds it.

Recommended defaults (from the text): ``local-first``, ``queue-changed``, ``budget`` for RQ and
``backfill``, ``persistent`` for POOL; see :data:`DEFAULT`. Issue 5's reading is :data:`ISSUE5`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from ..errors import WorkloadError
from .reading_codes import DEFAULTS, OPTIONS, SLOTS, codes_of

#: the options each exchange policy reads
POLICY_OPTIONS = {"none": (), "pool": ("pool_take", "pool_keep"), "rq": ("rq_seq", "rq_when", "rq_take")}


@dataclass(frozen=True)
class Reading:
    """One reading of POOL and RQ: a value per option (module docstring quotes the text of each)."""

    rq_seq: str = DEFAULTS["rq_seq"]
    rq_when: str = DEFAULTS["rq_when"]
    rq_take: str = DEFAULTS["rq_take"]
    pool_take: str = DEFAULTS["pool_take"]
    pool_keep: str = DEFAULTS["pool_keep"]

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in OPTIONS[f.name]:
                raise WorkloadError(
                    f"reading {f.name.replace('_', '-')}={value!r}: choose one of {', '.join(OPTIONS[f.name])}")

    def codes(self) -> np.ndarray:
        """The int64 vector the compiled loop reads (slots of :mod:`schedlab.grid.reading_codes`)."""
        return codes_of({name: getattr(self, name) for name in SLOTS})

    def label(self, exchange: str | None = None) -> str:
        """``rq-seq=local-first,rq-when=...`` (only the options ``exchange`` reads, when given)."""
        names = POLICY_OPTIONS[exchange] if exchange else tuple(SLOTS)
        return ",".join(f"{n.replace('_', '-')}={getattr(self, n)}" for n in names)

    @classmethod
    def parse(cls, text: str | None, base: "Reading | None" = None) -> "Reading":
        """``"rq-when=every,rq-take=startable"`` (options not named keep ``base``'s value, default
        :data:`DEFAULT`); also a named reading (:data:`NAMED`). A bad text is a WorkloadError."""
        base = DEFAULT if base is None else base
        text = (text or "").strip()
        if not text:
            return base
        if text in NAMED:
            return NAMED[text]
        changes = {}
        for part in text.split(","):
            name, sep, value = part.strip().partition("=")
            key = name.strip().replace("-", "_")
            if not sep or key not in OPTIONS:
                raise WorkloadError(
                    f"reading {part.strip()!r}: expected OPTION=VALUE with OPTION one of "
                    f"{', '.join(n.replace('_', '-') for n in OPTIONS)}, or a named reading ({', '.join(NAMED)})")
            changes[key] = value.strip()
        return replace(base, **changes)


#: the recommended reading (module docstring: why, from the text)
DEFAULT = Reading()
#: issue 5's reading: requests interleaved with the passes, at every instant, budget moves
ISSUE5 = Reading(rq_seq="interleaved", rq_when="every", rq_take="budget", pool_take="backfill", pool_keep="persistent")
NAMED: dict[str, Reading] = {"default": DEFAULT, "issue5": ISSUE5}


def all_readings(exchange: str) -> list[Reading]:
    """Every combination of the options ``exchange`` reads (the others at their defaults)."""
    import itertools

    names = POLICY_OPTIONS[exchange]
    return [replace(DEFAULT, **dict(zip(names, combo))) for combo in itertools.product(*(OPTIONS[n] for n in names))]
