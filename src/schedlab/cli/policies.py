"""The policies the verbs take by name or file (``simulate --policy``, ``compare --policies``,
``bound plot --with``, ``evolve``'s and ``rules``' strategy files): their names and help in one
place, the parser and the strategy-file reader. Below the verb modules, which share it."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import StrategyError
from ..strategy import Criterion, Strategy, registry

#: the Greedy scheduler ``compare --policies greedy`` runs (greedy-es-sorting-criteria, f2 + FCFS):
#: user-group priority K = (5, 4, 3, 2, 1), group 1 first, ties by submit time (a = b = 0). On KTH-SP2
#: it beats EASY on the default objective 10*AWRT1 + 4*AWRT2 at the price of groups 3-5, as in the paper.
DEFAULT_GREEDY = Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0))
#: every policy ``simulate --policy`` and ``compare --policies`` take, with its help: the ``--policy``
#: names of every strategy kind (:data:`schedlab.strategy.registry.KINDS`), in row order: the rigid
#: engine's dispatch rules and the Greedy scheduler, the time-sharing engine (cli/scojo.py), Slurm.
#: Read at import for the options' help; the listing and the errors read the registry when called.
POLICY_HELP = registry.policy_help()
POLICIES: tuple[str, ...] = tuple(POLICY_HELP)
ORDER_HELP = {o.name: o.help for o in registry.named_orders()}


def load_plugins(value):
    """``--plugin FILE`` (repeatable; eager, so ``--plugin FILE --policy help`` lists its orders and
    rules): run each user file, which registers its queue orders and dispatch rules
    (:func:`schedlab.load_plugin`); a bad file is a one-line error naming it. Every verb that takes a
    policy or an order by name or strategy file takes this one option (simulate, compare, evolve
    compare, bound)."""
    from ..strategy.plugin import load_plugin

    for path in value or ():
        load_plugin(path)
    return value


PLUGIN = typer.Option([], "--plugin", metavar="FILE", is_eager=True, callback=load_plugins,
                      help="A Python file registering your own queue orders and dispatch rules (@register_order, "
                           "@register_rule; README 'Your own queue order or dispatch rule'); repeat for several. "
                           "Before --policy help to list them.")


def unknown_policy(spec: str) -> StrategyError:
    """The one error for a policy name no strategy kind answers to (every verb that takes policies)."""
    return StrategyError(f"unknown policy {spec!r}; choose one of {', '.join(registry.policy_help())} "
                         f"(or a strategy .json file of any kind: {', '.join(registry.kind_names())})")


def load_strategy_file(path: Path):
    """A strategy of any kind from a JSON file (:func:`schedlab.sim.strategy_files.load_strategy`)."""
    from ..sim.strategy_files import load_strategy

    return load_strategy(path)


def parse_policy(spec: str, *, engines: bool = False, slurm=None):
    """``easy``, ``easy/estimate``, ``greedy``, ``conservative/greedy`` or ``FILE.json`` -> a Strategy;
    with ``engines`` also the time-sharing policies of ``compare`` (``scojo-opt/lds``, ...) -> a ScojoConfig."""
    from .scojo import SCOJO_POLICIES, policy_config

    spec = spec.strip()
    if spec.endswith(".json"):
        return load_strategy_file(Path(spec))
    dispatch, _, order = spec.partition("/")
    try:
        kind = registry.policy_kind(dispatch)
    except KeyError:
        raise unknown_policy(dispatch) from None
    if kind.policy is not None:  # a kind that builds its config from the name alone
        return registry.resolve(kind.policy)(spec)
    if kind.name == "slurm":
        if order or slurm is None:
            raise StrategyError("policy 'slurm' takes no order and needs --slurm-conf FILE (a slurm.conf excerpt)")
        return slurm
    if kind.name == "scojo":
        if not engines:
            raise StrategyError(f"policy {spec!r} runs on the time-sharing engine: only simulate and compare take it")
        if spec not in SCOJO_POLICIES:
            raise StrategyError(f"unknown time-sharing policy {spec!r}; choose one of {', '.join(SCOJO_POLICIES)}")
        return policy_config(spec)
    if dispatch == "greedy":
        if order:
            raise StrategyError(f"policy {spec!r}: greedy has its own queue order; give greedy or POLICY/greedy")
        return Strategy.greedy(DEFAULT_GREEDY)
    if order == "greedy":
        return Strategy.greedy(DEFAULT_GREEDY, dispatch=dispatch)
    return Strategy(dispatch, order or "submit")
