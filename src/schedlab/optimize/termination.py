"""When a run of :func:`schedlab.optimize.run.run_generations` stops (:class:`Termination`) and
which of its generations it commits to the checkpoint (:class:`CheckpointPolicy`): the loop's two
policies as objects (issue 36 item 3), below the loop that reads them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointPolicy:
    """When :func:`~schedlab.optimize.run.run_generations` commits a generation (writes the
    checkpoint): after every ``every``-th generation since the last checkpoint, or, with ``every``
    None, once ``seconds`` of wall time passed since it; ``last`` False leaves the run's last
    generation to the caller (the federation run commits a package's end with the package's
    result). A generation not yet committed when a run stops is redone on resume, identically (the
    optimizer owns its randomness)."""

    every: int | None = 1
    seconds: float = 0.0
    last: bool = True

    def due(self, generations_since: int, seconds_since: float, last: bool) -> bool:
        if last and not self.last:
            return False
        return generations_since >= self.every if self.every else seconds_since >= self.seconds


#: the default: every generation is committed (ES, CMA-ES, GFS, the bound, grid NSGA-II)
EVERY_GENERATION = CheckpointPolicy()


@dataclass(frozen=True)
class LoopState:
    """Where a run stands after a generation: generations and evaluations told so far, and the
    run's wall seconds so far (every session of it: the ``elapsed`` column of its history)."""

    generation: int
    evaluations: int
    elapsed: float


@dataclass(frozen=True)
class Termination:
    """When :func:`~schedlab.optimize.run.run_generations` stops: as soon as any budget given is
    reached (None: no budget of that kind) -- ``generations`` told, ``evaluations`` made, or
    ``seconds`` of the run's wall time (all its sessions). The loop checks before every
    generation, so a generation once begun is finished (an evaluations budget may be passed by the
    last generation's candidates).

    The verbs' ``--generations N`` is ``Termination(generations=N)`` (an int given where a
    Termination is taken means that), the budget a :class:`~schedlab.optimize.run.RunFolder`
    compares and ``--extend`` raises. Generations and evaluations end a run where an uninterrupted
    one ends; a wall-time budget does not repeat (a resumed run counts the seconds of the sessions
    before it)."""

    generations: int | None = None
    evaluations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.generations is None and self.evaluations is None and self.seconds is None:
            raise ValueError("a Termination needs a budget: generations, evaluations or seconds")

    @classmethod
    def of(cls, budget: "Termination | int") -> "Termination":
        """``budget`` as a Termination (an int: that many generations)."""
        return budget if isinstance(budget, Termination) else cls(generations=int(budget))

    def done(self, state: LoopState) -> bool:
        return ((self.generations is not None and state.generation >= self.generations)
                or (self.evaluations is not None and state.evaluations >= self.evaluations)
                or (self.seconds is not None and state.elapsed >= self.seconds))
