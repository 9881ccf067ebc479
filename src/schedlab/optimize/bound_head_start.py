"""The bound's head start (module docstring of :mod:`schedlab.optimize.bound`, "head start"):
group-priority variants of EASY's and the seed strategies' realised orders, then chains of greedy
steps, on the shared run loop (:class:`HeadStartAskTell`); split from bound.py along that seam."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bound_problem import KEEP_ORDERS_MAX_JOBS, OBJECTIVES, BoundConfig, BoundProblem, evaluate_order, mutate_k
from .run import AskTell


@dataclass
class HeadStart:
    """What the head start made: the chains' final orders (named) and every schedule it evaluated."""

    improved: list[tuple[str, np.ndarray]]
    F: np.ndarray
    #: the evaluated orders, kept only for traces of at most KEEP_ORDERS_MAX_JOBS jobs (else None)
    X: np.ndarray | None
    source: list[str]
    #: per chain: weighted score of its seed and of its final order (lower is better)
    scores: list[tuple[float, float]]


#: the head start's group-priority variants: inside consecutive blocks of this many positions
HEAD_START_BLOCKS = (50, 200, 1000)


def group_first_blocks(x: np.ndarray, group: np.ndarray, groups: Sequence[int], block: int) -> np.ndarray:
    """Inside each run of ``block`` consecutive positions of x, the jobs of ``groups`` first; both
    sides keep their order in x (a group move of every window at once)."""
    n = x.size
    later = ~np.isin(group[x], np.asarray(groups))
    return x[np.lexsort((np.arange(n), later, np.arange(n) // block))]


def head_start_variants(seeds: Sequence[tuple[str, np.ndarray]], group: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """EASY's and the seed strategies' realised orders, then each with every single user group and
    every pair of groups first inside blocks of :data:`HEAD_START_BLOCKS` positions."""
    from itertools import combinations

    base = [(k, x) for k, x in seeds if k == "easy" or k.startswith("strategy:")]
    sets = [(g,) for g in range(1, 6)] + list(combinations(range(1, 6), 2))
    out = list(base)
    for k, x in base:
        for gs in sets:
            for b in HEAD_START_BLOCKS:
                out.append((f"{k}+groups{''.join(map(str, gs))}-first/{b}", group_first_blocks(x, group, gs, b)))
    return out


class HeadStartAskTell(AskTell):
    """The head start in the terms of the shared run loop (:func:`schedlab.optimize.run.run_generations`):
    generation 0 evaluates the group-priority variants (:func:`head_start_variants`) and starts
    the chains, every later one is a greedy step of every chain. Its checkpoint (phase
    ``head-start``) holds the chains and their generator, so a stopped head start resumes at its
    last step; the variants are rebuilt from the seeds."""

    def __init__(self, problem: BoundProblem, config: BoundConfig, variants: list[tuple[str, np.ndarray]], chains: int,
                 saved: dict[str, Any] | None = None) -> None:
        self.problem, self.config, self.variants, self.chains = problem, config, variants, chains
        self.keep = problem.n <= KEEP_ORDERS_MAX_JOBS
        self.s: dict[str, Any] = saved["head_start"] if saved is not None else {
            "generation": 0, "evaluations": 0, "rng": np.random.default_rng([config.seed, 0x68656164])}

    @property
    def generation(self) -> int:
        return self.s["generation"]

    @property
    def evaluations(self) -> int:
        return self.s["evaluations"]

    def _score(self, c: int, f: np.ndarray) -> float:
        from ..metrics.basic import weighted_sum

        return weighted_sum(self.s["weights"][c], f / self.s["scale"])

    def ask(self) -> list[np.ndarray]:
        s = self.s
        if s["generation"] == 0:
            return [x for _, x in self.variants]
        return [mutate_k(s["cur"][c], self.problem.group, s["rng"], self.config) for c in range(self.chains)]

    def tell(self, x, results) -> None:
        s, chains, score = self.s, self.chains, self._score
        F = np.asarray(results, dtype=np.float64).reshape(len(x), len(OBJECTIVES))
        if s["generation"] == 0:
            s["scale"] = np.maximum(np.abs(F[0]), 1e-9)  # EASY's values
            s["weights"] = [np.full(len(OBJECTIVES), 1.0 / len(OBJECTIVES)) if c == 0
                            else s["rng"].dirichlet(np.ones(len(OBJECTIVES))) for c in range(chains)]
            s["start"] = start = [int(np.argmin([score(c, f) for f in F])) for c in range(chains)]
            s["cur"], s["cur_f"] = [self.variants[v][1] for v in start], [F[v] for v in start]
            s["first"] = [score(c, s["cur_f"][c]) for c in range(chains)]
            s["Fs"], s["source"] = [F], [k for k, _ in self.variants]
            s["Xs"] = [np.array([x for _, x in self.variants], dtype=np.int64)] if self.keep else []
        else:
            for c in range(chains):
                if score(c, F[c]) < score(c, s["cur_f"][c]):
                    s["cur"][c], s["cur_f"][c] = x[c], F[c]
            s["Fs"].append(F)
            if self.keep:
                s["Xs"].append(np.array(x, dtype=np.int64))
            s["source"] += [f"{self.variants[s['start'][c]][0]}+head-start" for c in range(chains)]
        s["generation"] += 1
        s["evaluations"] += len(x)

    def row(self, elapsed: float) -> dict[str, Any]:
        return {"step": self.s["generation"], "evaluations": self.s["evaluations"], "elapsed": elapsed}

    def checkpoint(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {"phase": "head-start", "head_start": self.s, "history": rows}

    def result(self) -> HeadStart:
        s, chains = self.s, self.chains
        names = [f"{self.variants[s['start'][c]][0]}+head-start" for c in range(chains)]
        return HeadStart(list(zip(names, s["cur"])), np.vstack(s["Fs"]), np.vstack(s["Xs"]) if self.keep else None,
                         s["source"], [(s["first"][c], self._score(c, s["cur_f"][c])) for c in range(chains)])


class _Unsaved:
    """A run folder that keeps nothing (a head start outside a run)."""

    def save_checkpoint(self, state: dict[str, Any]) -> None:
        pass


def head_start(problem: BoundProblem, config: BoundConfig, seeds: Sequence[tuple[str, np.ndarray]],
               executor, run=None, saved: dict[str, Any] | None = None) -> HeadStart | None:
    """Improved variants of EASY's and the seed strategies' realised orders (module docstring,
    "head start"): the group-priority variants (:func:`head_start_variants`) are evaluated, then
    ``max(pop - len(seeds), 1)`` chains, each from the variant best under its weights, improve
    by ``config.head_start`` greedy steps; all randomness from one generator seeded by ``config.seed``.

    The steps go through the shared run loop (:class:`HeadStartAskTell`), checkpointed in ``run``
    (a RunFolder; None: nowhere) after every step and resumed from ``saved`` (such a checkpoint);
    None when Ctrl-C or SIGTERM stopped it."""
    from .run import run_generations

    variants = head_start_variants(seeds, problem.group)
    if len(variants) == 0 or config.head_start == 0:
        return HeadStart([], np.empty((0, len(OBJECTIVES))), None, [], [])
    adapter = HeadStartAskTell(problem, config, variants, max(config.pop - len(seeds), 1), saved)
    rows = list(saved["history"]) if saved is not None else []
    stopped = run_generations(run if run is not None else _Unsaved(), adapter, evaluate_order, executor,
                              config.head_start + 1, rows, rows[-1]["elapsed"] if rows else 0.0,
                              write_files=lambda rows: None)
    return None if stopped else adapter.result()
