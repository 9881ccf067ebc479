"""The policies the verbs take by name or file (``simulate --policy``, ``compare --policies``,
``bound plot --with``, ``evolve``'s and ``rules``' strategy files): their names and help for the
options, and the ``--plugin`` option. Below the verb modules, which share it. Turning a name or a
file into a strategy lives with the strategy kinds (:func:`schedlab.strategy.registry.parse_policy`,
:func:`~schedlab.strategy.registry.load_strategy_file`, :mod:`schedlab.strategy.policies`); the old
names here still work for one release, with a DeprecationWarning."""

from __future__ import annotations

import typer

from .._moved import moved
from ..strategy import plugin, registry

#: every policy ``simulate --policy`` and ``compare --policies`` take, with its help: the ``--policy``
#: names of every strategy kind (:data:`schedlab.strategy.registry.KINDS`), in row order: the rigid
#: engine's dispatch rules and the Greedy scheduler, the time-sharing engine, Slurm.
#: Read at import for the options' help; the listing and the errors read the registry when called.
POLICY_HELP = registry.policy_help()
POLICIES: tuple[str, ...] = tuple(POLICY_HELP)
ORDER_HELP = {o.name: o.help for o in registry.named_orders()}


PLUGIN = typer.Option([], "--plugin", metavar="FILE", is_eager=True, callback=plugin.load_plugins,
                      help="A Python file registering your own queue orders and dispatch rules (@register_order, "
                           "@register_rule; README 'Your own queue order or dispatch rule'); repeat for several. "
                           "Before --policy help to list them.")

def _old_defaults(parse_policy):
    """``parse_policy`` as it was here: time-sharing names refused unless ``engines=True``."""
    import functools

    return functools.partial(parse_policy, engines=False)


#: names that lived here, at their home
__getattr__ = moved(__name__, {"DEFAULT_GREEDY": "schedlab.strategy.policies:DEFAULT_GREEDY",
                               "load_plugins": "schedlab.strategy.plugin:load_plugins",
                               "unknown_policy": "schedlab.strategy.registry:unknown_policy",
                               "load_strategy_file": "schedlab.strategy.registry:load_strategy_file",
                               "parse_policy": "schedlab.strategy.registry:parse_policy"},
                    adapt={"parse_policy": _old_defaults})
