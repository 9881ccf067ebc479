"""schedlab.optimize: evolution strategies (ask/tell), the greedy strategy space, resumable runs (DESIGN.md);
one way into every optimizer: :func:`~schedlab.optimize.problem.minimize` over a :class:`~schedlab.optimize.problem.Problem`."""

from ..strategy.registry import make_optimizer
from .cmaes import CMAES
from .es import SelfAdaptiveES
from .evolve import EvolveConfig, EvolveResult, compare_with_easy, evolve_greedy
from .greedy import GreedyEncoding, ParamsEvaluator, TrainingSet
from .problem import Problem, minimize
from .run import CheckpointPolicy, RunFolder, RunResult, Termination, optimize

__all__ = [
    "CMAES",
    "CheckpointPolicy",
    "EvolveConfig",
    "EvolveResult",
    "GreedyEncoding",
    "ParamsEvaluator",
    "Problem",
    "RunFolder",
    "RunResult",
    "SelfAdaptiveES",
    "Termination",
    "TrainingSet",
    "compare_with_easy",
    "evolve_greedy",
    "make_optimizer",
    "minimize",
    "optimize",
]
