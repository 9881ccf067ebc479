"""One entry point for every kind of strategy the CLI and the comparisons accept.

``simulate_any(workload, machine, strategy)`` finds the strategy's kind in the registry
(:data:`schedlab.strategy.registry.KINDS`: a :class:`~schedlab.strategy.Strategy` is ``rigid``, a
rule base ``rulebase``, a :class:`~.timeshare.ScojoConfig` ``scojo``, a Slurm policy ``slurm``)
and calls the simulate function its row names. :func:`strategy_to_dict` / :func:`strategy_from_dict`
are the file form of every kind (the row's ``to_dict``/``from_dict`` plus a ``"kind"`` field);
:func:`scojo_to_dict` / :func:`scojo_from_dict` are the ``scojo`` row's.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from ..errors import StrategyError
from ..strategy import registry, rules


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


def _tuples(value):
    """JSON lists back to the tuples of a frozen config (nested)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def config_from_dict(cls, doc: Any, what: str, **nested):
    """A dataclass config from its ``asdict`` form: lists read as tuples, ``nested`` fields by their own
    reader; StrategyError naming unknown fields (the config checks its values itself)."""
    if not isinstance(doc, dict):
        raise StrategyError(f"{what} must be a JSON object, got {doc!r}")
    names = {f.name for f in fields(cls)}
    extra = set(doc) - names
    if extra:
        raise StrategyError(f"unknown {what} fields: {sorted(extra)}; {what} has {', '.join(sorted(names))}")
    kwargs = {k: nested[k](v) if k in nested and v is not None else _tuples(v) for k, v in doc.items()}
    try:
        return cls(**kwargs)
    except TypeError as exc:  # e.g. a number where a pair is expected
        raise StrategyError(f"{what}: {exc}") from None


#: the ``type`` of a SCOJO-PECT config's ``optimizer`` object -> its class (``schedlab.sim.scojo_opt``)
_OPTIMIZERS = {"group": "GroupConfig", "bottomline": "BottomLineConfig"}


def scojo_to_dict(config) -> dict[str, Any]:
    """A :class:`~.timeshare.ScojoConfig` as a JSON object: its fields, ``optimizer`` with a ``type``
    (``group``: GroupConfig, ``bottomline``: BottomLineConfig) or null."""
    d = asdict(config)
    if config.optimizer is not None:
        kind = next(k for k, cls in _OPTIMIZERS.items() if type(config.optimizer).__name__ == cls)
        d["optimizer"] = {"type": kind, **d["optimizer"]}
    return d


def _optimizer_from_dict(doc: Any):
    from . import scojo_opt

    if not isinstance(doc, dict) or doc.get("type") not in _OPTIMIZERS:
        raise StrategyError(f"a SCOJO-PECT optimizer needs \"type\": one of {', '.join(_OPTIMIZERS)}")
    cls = getattr(scojo_opt, _OPTIMIZERS[doc["type"]])
    body = {k: v for k, v in doc.items() if k != "type"}
    if cls is scojo_opt.BottomLineConfig:
        return config_from_dict(cls, body, "scojo-bottomline",
                                group=lambda g: config_from_dict(scojo_opt.GroupConfig, g, "scojo-opt group"))
    return config_from_dict(cls, body, "scojo-opt")


def scojo_from_dict(doc: Any):
    """The :class:`~.timeshare.ScojoConfig` of :func:`scojo_to_dict`'s object."""
    from .timeshare import ScojoConfig

    return config_from_dict(ScojoConfig, doc, "SCOJO-PECT", optimizer=_optimizer_from_dict)
