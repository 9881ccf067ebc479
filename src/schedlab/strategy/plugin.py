"""A researcher's own queue orders and dispatch rules, from a Python file outside the package (issue 36 item 2).

A plugin file is plain Python, loaded by path; it registers its orders with
:func:`schedlab.strategy.register_order`::

    from schedlab.strategy import register_order

    @register_order("area", "smallest estimated area (processors x estimate) first")
    def area(width, estimate, group, rank):
        return width * estimate

A dynamic key (``dynamic=True``) is plain Python over one job and the machine at a pass, by
parameter name (:data:`schedlab.strategy.user_code.KEY_FIELDS`), and a dispatch rule marks the
waiting jobs to start now (:data:`~schedlab.strategy.user_code.RULE_FIELDS`); we compile both
with numba. ``examples/my_policies.py`` holds one of each kind (a static and a dynamic order, two
rules).

``schedlab.load_plugin(path)`` (and ``--plugin FILE`` on every verb that takes a policy or an
order) loads it; the names it registers then work wherever a queue order or a policy is taken
(``Strategy("easy", "area")``, ``Strategy("firstfit", "waitwidth")``, ``--order area``,
``--policy firstfit``, ``--policies easy/area``). Static keys are computed once per job, then
the built-in orders' compiled kernels run them at their speed; dynamic keys and rules run in
the engine's pass (:mod:`schedlab.sim.user`); the rigid engine runs them (the rule base, the grid
and the time-sharing engines take built-in rules and orders).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from ..errors import StrategyError
from . import registry


def load_plugin(path) -> tuple[str, ...]:
    """Run the plugin file ``path``; the names of the queue orders, then the dispatch rules, it
    registered. Any failure (no
    such file, a syntax error, an exception, a bad registration, no order registered) is a one-line
    :class:`~schedlab.errors.StrategyError` naming the file, and its line where Python gives one."""
    file = Path(path).expanduser()
    source = str(file)
    if not file.is_file():
        raise StrategyError(f"{source}: no such plugin file")
    module = "schedlab_plugin_" + hashlib.sha256(str(file.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module, file)
    if spec is None or spec.loader is None:
        raise StrategyError(f"{source}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    before = {id(row) for row in (*registry.USER_ORDERS, *registry.USER_RULES)}
    registry._LOADING.append(source)
    try:
        spec.loader.exec_module(mod)
    except StrategyError as exc:
        raise StrategyError(str(exc) if str(exc).startswith(source) else f"{source}: {exc}") from None
    except SyntaxError as exc:
        raise StrategyError(f"{source}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:  # the user's code: one line, no traceback
        raise StrategyError(f"{registry._at_line(exc, source)}: {type(exc).__name__}: {exc}") from None
    finally:
        registry._LOADING.pop()
    sys.modules[module] = mod
    names = tuple(row.name for row in (*registry.USER_ORDERS, *registry.USER_RULES)
                  if row.source == source and id(row) not in before)
    if not names:
        raise StrategyError(f"{source}: registers no queue order or dispatch rule (use @register_order(NAME, HELP) "
                            "on a key function, @register_rule(NAME, HELP) on a rule)")
    return names


def load_plugins(paths):
    """Load each plugin file of ``paths`` (:func:`load_plugin`) and hand ``paths`` back: ``--plugin FILE``
    (repeatable; eager, so ``--plugin FILE --policy help`` lists its orders and rules) calls it on every
    verb that takes a policy or an order by name or strategy file (simulate, compare, evolve compare,
    bound); a bad file is a one-line error naming it."""
    for path in paths or ():
        load_plugin(path)
    return paths
