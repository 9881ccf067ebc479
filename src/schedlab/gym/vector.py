"""Several environments stepped in one call.

:class:`SchedVectorEnv` (what :func:`make_vec` returns for job decisions): the states of ``num_envs``
:class:`SchedEnv` copies live stacked along a first axis, and one compiled call
(:func:`schedlab.gym.observe.batch_job_step`) takes the decision of every environment and fills the
(num_envs x observation) float32 batch; Python runs only for the environments whose episode ended
(reward, then a reset at their next step: gymnasium's next-step autoreset). Each copy is a full
``SchedEnv`` whose arrays are views into the stacks, so ``vec.envs[k].schedule()``, ``snapshot()``
and the rewards are the single environment's. Its episodes must all have the same number of jobs
(the whole trace, or ``episode_jobs`` + ``warm`` <= the trace's jobs).

Strategy decisions (``mode="strategy"``) come as gymnasium's :class:`~gymnasium.vector.SyncVectorEnv`
over ``SchedEnv`` copies (one compiled call per environment).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space

from ..sim.state import Jobs, Site
from ..workload.model import Workload
from ..workload.spec import TraceSpec, prepare_trace
from . import observe
from .env import TRACE, GymError, SchedEnv


def make_vec(num_envs: int, workload: Workload | TraceSpec | str | None = None, **options):
    """``num_envs`` environments with the same options (:class:`SchedEnv`) stepped together; the
    trace is read and prepared once. ``info["action_mask"]`` comes stacked (num_envs x actions)."""
    if int(num_envs) != num_envs or num_envs < 1:
        raise GymError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
    if not isinstance(workload, Workload):
        workload = prepare_trace(workload if isinstance(workload, TraceSpec) else TraceSpec(str(workload or TRACE)))
    if options.get("mode", "job") == "strategy":
        return SyncVectorEnv([lambda: SchedEnv(workload, **options) for _ in range(int(num_envs))],
                             autoreset_mode=AutoresetMode.NEXT_STEP)
    return SchedVectorEnv([SchedEnv(workload, **options) for _ in range(int(num_envs))])


class SchedVectorEnv(VectorEnv):
    """Job-decision environments stacked for one compiled step call (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, envs: list[SchedEnv]) -> None:
        e0 = envs[0]
        n = len(e0.workload) if e0.episode_jobs is None else e0.episode_jobs + e0.warm
        if n > len(e0.workload):
            raise GymError(f"episode_jobs + warm = {n} exceeds the trace's {len(e0.workload)} jobs: episodes would "
                           f"differ in length, which the stacked batch cannot hold")
        self.envs, self.num_envs, self._n = envs, len(envs), n
        self.single_observation_space, self.single_action_space = e0.observation_space, e0.action_space
        self.observation_space = batch_space(e0.observation_space, self.num_envs)
        self.action_space = batch_space(e0.action_space, self.num_envs)
        N = self.num_envs
        self._obs = np.zeros((N,) + e0.observation_space.shape, dtype=np.float32)
        self._mask = np.zeros((N, e0.window), dtype=np.int8)
        self._stack = None
        self._live = np.ones(N, dtype=np.bool_)
        self._more = np.ones(N, dtype=np.bool_)
        self._reset_next = np.zeros(N, dtype=np.bool_)
        for k, env in enumerate(envs):
            env._obs, env._mask = self._obs[k], self._mask[k]

    def _bind(self, k: int) -> None:
        """Copy environment k's fresh state into the stacks and make its arrays views of them."""
        env = self.envs[k]
        arrays = (env._EJ.f, env._EJ.i, *env._S, env._cur, env._tf, env._feat)
        if self._stack is None:
            self._stack = [np.zeros((self.num_envs,) + a.shape, dtype=a.dtype) for a in arrays]
        for st, a in zip(self._stack, arrays):
            st[k] = a
        v = [st[k] for st in self._stack]
        env._EJ, env._S, env._cur, env._tf, env._feat = Jobs(v[0], v[1]), Site(*v[2:8]), v[8], v[9], v[10]
        env._B = None

    def _reset_one(self, k: int, seed=None) -> None:
        self.envs[k].reset(seed=seed)
        self._bind(k)
        self._more[k] = not self.envs[k]._done

    def reset(self, *, seed=None, options=None):
        seeds = seed if isinstance(seed, (list, tuple, np.ndarray)) else (
            [None] * self.num_envs if seed is None else [int(seed) + k for k in range(self.num_envs)])
        for k in range(self.num_envs):
            self._reset_one(k, seeds[k])
        self._reset_next[:] = False
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, actions):
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        e0 = self.envs[0]
        if acts.min() < 0 or acts.max() >= e0.action_space.n:
            raise GymError(f"actions must lie in 0..{e0.action_space.n - 1}, got {acts.tolist()}")
        rewards = np.zeros(self.num_envs)
        live = self._live
        if self._reset_next.any():  # next-step autoreset: this step only resets them
            for k in np.flatnonzero(self._reset_next):
                self._reset_one(int(k))
            np.logical_not(self._reset_next, out=live)
        else:
            live[:] = True
        if e0.invalid == "raise":
            bad = np.flatnonzero(live & (self._mask[np.arange(self.num_envs), acts] == 0))
            if bad.size:
                raise GymError(f"action {acts[bad[0]]} of environment {bad[0]} names an empty window slot")
        st = self._stack
        observe.batch_job_step(st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7], st[8], st[9], st[10], acts, live,
                               e0._bf, e0._sd, self._obs, self._mask, e0.tau, self._more)
        term = live & ~self._more
        if e0.reward_mode == "step":
            for k in np.flatnonzero(live):
                self.envs[k]._done = not self._more[k]
                rewards[k] = self.envs[k]._reward()
        elif term.any():
            for k in np.flatnonzero(term):
                self.envs[k]._done = True
                rewards[k] = self.envs[k]._reward()
        self._reset_next[:] = term
        return self._obs.copy(), rewards, term, np.zeros(self.num_envs, dtype=np.bool_), {"action_mask": self._mask.copy()}

    def close_extras(self, **kwargs) -> None:
        self._stack = None
