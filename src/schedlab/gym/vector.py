"""Several environments stepped in one call: gymnasium's synchronous vector env over :class:`SchedEnv`
copies that share one prepared trace (each draws its own episodes from its own seed)."""

from __future__ import annotations

from gymnasium.vector import AutoresetMode, SyncVectorEnv

from ..workload.model import Workload
from ..workload.spec import TraceSpec, prepare_trace
from .env import TRACE, SchedEnv


def make_vec(num_envs: int, workload: Workload | TraceSpec | str | None = None, **options) -> SyncVectorEnv:
    """``num_envs`` environments with the same options (:class:`SchedEnv`), stepped together;
    ``info["action_mask"]`` comes stacked (num_envs x actions). Episodes restart on their own at the
    step after they end (gymnasium's next-step autoreset)."""
    if not isinstance(workload, Workload):  # read and prepare the trace once for all of them
        workload = prepare_trace(workload if isinstance(workload, TraceSpec) else TraceSpec(str(workload or TRACE)))
    return SyncVectorEnv([lambda: SchedEnv(workload, **options) for _ in range(int(num_envs))],
                         autoreset_mode=AutoresetMode.NEXT_STEP)
