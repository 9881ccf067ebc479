"""One entry point for every kind of strategy the CLI and the comparisons accept.

``simulate_any(workload, machine, strategy)`` finds the strategy's kind in the registry
(:data:`schedlab.strategy.registry.KINDS`: a :class:`~schedlab.strategy.Strategy` is ``rigid``, a
rule base ``rulebase``, a :class:`~schedlab.strategy.scojo_config.ScojoConfig` ``scojo``, a Slurm
policy ``slurm``) and calls the simulate function its row names. :func:`strategy_to_dict` / :func:`strategy_from_dict`
(now in :mod:`schedlab.strategy.registry`, importable here as before) are the file form of every kind
(the row's ``to_dict``/``from_dict`` plus a ``"kind"`` field); the ``scojo`` row's are
:func:`schedlab.strategy.scojo_config.scojo_to_dict` / ``scojo_from_dict``.
"""

from __future__ import annotations

from ..errors import StrategyError
from ..strategy import registry
# their old home: the file form of every kind lives with the kinds' rows
from ..strategy.registry import config_from_dict, strategy_from_dict, strategy_to_dict  # noqa: F401


def simulate_any(workload, machine, strategy, *, kill: bool = True):
    from .model import Machine

    if not isinstance(machine, Machine):
        machine = Machine(machine)
    try:
        kind = registry.kind_of(strategy)
    except KeyError:
        raise StrategyError(f"not a strategy of any kind ({', '.join(registry.kind_names())}): "
                            f"{type(strategy).__name__}") from None
    return registry.resolve(kind.simulate)(workload, machine, strategy, kill=kill)
