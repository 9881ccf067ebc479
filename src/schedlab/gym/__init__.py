"""A gymnasium environment over schedlab's engine (``pip install 'schedlab[gym]'``); docs/gym.md.

``gymnasium.make("schedlab/Sched-v0", ...)`` or :class:`SchedEnv` directly; :func:`make_vec` for
several environments stepped in one call. Nothing else in schedlab imports this package.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError:  # pragma: no cover - exercised by test_gym's subprocess check
    from ..errors import SchedlabError

    class GymMissing(SchedlabError, ImportError):
        """gymnasium is not installed."""

    raise GymMissing("schedlab.gym needs gymnasium: pip install 'schedlab[gym]'") from None

from .env import SchedEnv, Snapshot, GymError  # noqa: E402
from .vector import make_vec  # noqa: E402

ENV_ID = "schedlab/Sched-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="schedlab.gym.env:SchedEnv")

__all__ = ["ENV_ID", "GymError", "SchedEnv", "Snapshot", "make_vec"]
