"""schedlab.optimize: evolution strategies (ask/tell), the greedy strategy space, resumable runs (DESIGN.md).

One way into every optimizer: :func:`schedlab.optimize.problem.minimize` over a :class:`Problem`.
Names are imported when first used, so a verb (and ``optimize.settings``) does not load every optimizer.
"""

from importlib import import_module as _import

_NAMES = {
    "make_optimizer": "..strategy.registry", "CMAES": ".cmaes", "SelfAdaptiveES": ".es",
    "EvolveConfig": ".evolve", "EvolveResult": ".evolve", "compare_with_easy": ".evolve", "evolve_greedy": ".evolve",
    "GreedyEncoding": ".greedy", "ParamsEvaluator": ".greedy", "TrainingSet": ".greedy",
    "CheckpointPolicy": ".run", "RunFolder": ".run", "RunResult": ".run", "Termination": ".run", "optimize": ".run",
    "Problem": ".problem", "minimize": ".problem",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_import(_NAMES[name], __name__), name)
