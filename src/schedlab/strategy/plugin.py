"""A researcher's own queue orders, from a Python file outside the package (issue 36 item 2).

A plugin file is plain Python, loaded by path; it registers its orders with
:func:`schedlab.strategy.register_order`::

    from schedlab.strategy import register_order

    @register_order("area", "smallest estimated area (processors x estimate) first")
    def area(width, estimate, group, rank):
        return width * estimate

``schedlab.load_plugin(path)`` (and ``--plugin FILE`` on ``simulate``/``compare``) loads it; the
names it registers then work wherever a queue order is taken (``Strategy("easy", "area")``,
``--order area``, ``--policies easy/area``). Only static keys over the job's own fields are
supported (computed once per job, then the built-in orders' compiled kernels run them at their
speed); keys over the wait or the machine state, and user dispatch rules, are not (yet).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from ..errors import StrategyError
from . import registry


def load_plugin(path) -> tuple[str, ...]:
    """Run the plugin file ``path``; the names of the queue orders it registered. Any failure (no
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
    before = {o.name: o for o in registry.USER_ORDERS}
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
    names = tuple(o.name for o in registry.USER_ORDERS if o.source == source and before.get(o.name) is not o)
    if not names:
        raise StrategyError(f"{source}: registers no queue order (use @register_order(NAME, HELP) on a key function)")
    return names
