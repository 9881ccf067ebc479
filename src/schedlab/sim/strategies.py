"""One entry point for every kind of strategy the CLI and the comparisons accept.

``simulate_any(workload, machine, strategy)`` finds the strategy's kind in the registry
(:data:`schedlab.strategy.registry.KINDS`: a :class:`~schedlab.strategy.Strategy` is ``rigid``, a
rule base ``rulebase``, a :class:`~schedlab.strategy.scojo_config.ScojoConfig` ``scojo``, a Slurm
policy ``slurm``) and calls the simulate function its row names. :func:`strategy_to_dict` / :func:`strategy_from_dict`
are the file form of every kind (the row's ``to_dict``/``from_dict`` plus a ``"kind"`` field);
the ``scojo`` row's are :func:`schedlab.strategy.scojo_config.scojo_to_dict` / ``scojo_from_dict``.
"""

from __future__ import annotations

from typing import Any

from ..errors import StrategyError
from ..strategy import registry, rules
from ..strategy.registry import config_from_dict  # noqa: F401  (its old home)


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


# ---------------------------------------------------------------------------- file form of every kind
def strategy_to_dict(strategy) -> dict[str, Any]:
    """``{"kind": ..., **the row's to_dict(strategy)}``; StrategyError for a kind without a file form."""
    kind = registry.kind_of(strategy)
    if kind.to_dict is None:
        raise StrategyError(f"a {kind.name} strategy has no file form")
    return {"kind": kind.name, **registry.resolve(kind.to_dict)(strategy)}


def strategy_from_dict(doc: Any):
    """A strategy of any kind from its JSON object: ``"kind"`` selects the registry row; an object
    without it is read as before kinds had names (a rule base when it has ``schedlab_rulebase``, else
    a rigid :class:`~schedlab.strategy.Strategy`)."""
    if not isinstance(doc, dict) or "kind" not in doc:
        name = "rulebase" if rules.is_rulebase_json(doc) else "rigid"
    else:
        name = doc["kind"]
        doc = {k: v for k, v in doc.items() if k != "kind"}
    try:
        kind = registry.kind(name)
    except (KeyError, TypeError):
        raise StrategyError(f"unknown strategy kind {name!r}; choose one of {', '.join(registry.kind_names())}") from None
    if kind.from_dict is None:
        raise StrategyError(f"a {kind.name} strategy has no file form")
    return registry.resolve(kind.from_dict)(doc)
