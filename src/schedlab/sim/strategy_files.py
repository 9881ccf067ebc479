"""The file form of a strategy of any kind, read and written (the face's ``sl.load_strategy`` /
``sl.save_strategy``): a JSON object with the kind's ``to_dict`` fields and ``"kind"``
(:func:`schedlab.sim.strategies.strategy_to_dict` / ``strategy_from_dict``)."""

from __future__ import annotations

from ..errors import StrategyError


def load_strategy(path):
    """A strategy of any kind from a JSON file (its ``"kind"`` field selects the registry row; a file
    without one is a ``Strategy.to_json`` or a rule base); a clear one-line
    :class:`~schedlab.errors.StrategyError` naming the file. The file form every verb reads."""
    import json
    from pathlib import Path

    from .strategies import strategy_from_dict

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read strategy file: {exc.strerror or exc}") from None
    try:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StrategyError(f"strategy is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        return strategy_from_dict(doc)
    except StrategyError as exc:
        raise StrategyError(f"{path}: {exc}") from None
    except (TypeError, ValueError) as exc:  # e.g. a JSON list where an object is expected
        raise StrategyError(f"{path}: not a strategy: {exc}") from None


def save_strategy(strategy, path) -> None:
    """Write ``strategy`` (any kind with a file form) to ``path`` as :func:`load_strategy` reads it (atomically)."""
    import json

    from .._atomic import atomic_write_text
    from .strategies import strategy_to_dict

    atomic_write_text(path, json.dumps(strategy_to_dict(strategy), indent=2) + "\n")
