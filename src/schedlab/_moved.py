"""Names that moved to another module keep working from their old one for one release, with a
DeprecationWarning naming the new home (issue 46: policy names, run reports and figures by kind left
``cli/``). A module that lost names sets ``__getattr__ = moved(__name__, {OLD: "module:name", ...})``."""

from __future__ import annotations

from typing import Callable


def moved(old: str, homes: dict[str, str], adapt: dict[str, Callable] | None = None) -> Callable[[str], object]:
    """A module ``__getattr__`` for module ``old``: each name of ``homes`` is looked up in its new home
    (``"module:name"``) with a DeprecationWarning; ``adapt[name]`` wraps the value where the old name
    had other defaults; any other name is an AttributeError as usual."""

    def __getattr__(name: str):
        if name not in homes:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        import importlib
        import warnings

        module, _, attr = homes[name].partition(":")
        warnings.warn(f"{old}.{name} moved to {module}.{attr}; import it from there", DeprecationWarning, stacklevel=2)
        value = getattr(importlib.import_module(module), attr)
        return (adapt or {}).get(name, lambda v: v)(value)

    return __getattr__
