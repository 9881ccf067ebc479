"""``SchedEnv``: a gymnasium environment over the resumable engine (:mod:`schedlab.sim.step`).

The contract (docs/gym.md has it in full):

- **mode "job"**: at every job decision (a time with a waiting job of which at least one fits) the
  action is a slot 0..window-1 of the first ``window`` waiting jobs in queue order; that job starts
  if it fits, else it becomes the head whose reservation the configured ``backfill`` ("none":
  FCFS, "easy": EASY) must not delay, and time moves on; with "conservative" every decision is one
  conservative-backfilling pass with that job's reservation first, and time moves on. Always 0 is
  FCFS / EASY / conservative backfilling exactly.
- **mode "strategy"**: at every time with a waiting job the action is one of the 13 strategies of
  genetic-fuzzy-rule-based-scheduling (``schedlab.strategy.rules.STRATEGIES``) for one pass; the
  observation is the rule base's 7 features (SD, U_m, PRCWQ_1..5).
- ``info["action_mask"]``: int8, 1 for the actions that name a job (job mode; all 13 in strategy mode).
- **reward** from an :class:`~schedlab.metrics.objective.Objective` f (minimised) over the episode's
  jobs: "end" gives -f(schedule) at the last step and 0 before; "step" gives -(f_t - f_{t-1}) with
  f_t = f over the episode's jobs started so far (an undefined metric of a partial set reads 0;
  f_0 = 0), so the step rewards sum to the end reward.
- **episode**: the whole trace, or ``episode_jobs`` consecutive jobs (in submit order) from a start
  drawn uniformly with the reset's seed among those with ``warm`` jobs before them, which run first
  under ``backfill``'s rule (a warm machine; they are not the episode's and count in no reward).
- :meth:`snapshot`/:meth:`restore`/:meth:`fork`: the whole state, exactly.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import gymnasium
import numpy as np
from gymnasium import spaces

from ..errors import SchedlabError, WorkloadError
from ..metrics.basic import compute_metrics
from ..metrics.objective import EASY_PREFIX, Objective
from ..sim import step as engine
from ..sim.engine import check_workload, prepare
from ..sim.model import Machine, Schedule
from ..sim.rulebase import SD_MODES, strategy_codes
from ..sim.state import FINISH, NQ, O_GREEDY, ORDER_CODES, RANK0, START, Site, new_site
from ..strategy import rules as R_
from ..strategy.model import Strategy
from ..workload.model import Workload
from ..workload.spec import TraceSpec, prepare_trace
from . import observe

#: default number of waiting jobs an action may name: RLScheduler's MAX_QUEUE_SIZE (HPCSim, SC'20), 128
WINDOW = 128
#: default objective: mean bounded slowdown, RLScheduler's default score (job_score_type 0)
OBJECTIVE = "mean_bounded_slowdown"
#: default time scale tau (s) of the observation's x / (x + tau): one hour, the order of typical waits
TIME_SCALE = 3600.0
#: default trace: the KTH-SP2 trace bundled with schedlab
TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
MODES = ("job", "strategy")
BACKFILLS = {"none": engine.BF_NONE, "easy": engine.BF_EASY, "conservative": engine.BF_CONSERVATIVE}
REWARDS = ("end", "step")
#: what an action that names an empty window slot does: "last" takes the last filled slot (the
#: default: gymnasium's check_env and most libraries sample from the action space without a mask);
#: "raise" refuses it with a one-line error
INVALID = ("last", "raise")
#: default of ``copy``: step() and reset() return fresh observation and action-mask arrays, which a
#: caller may keep (what gymnasium's own environments do); ``copy=False`` returns the environment's
#: buffers, overwritten by the next step (two array copies less a step, about 1.5 µs here: for a
#: policy that reads them at once, as a training loop that stores its own copy does; gymnasium's
#: check_env refuses it: "Environments must return new observation data on every call")
COPY = True


class GymError(SchedlabError, ValueError):
    """A bad environment option or action, as one line."""


def _choice(option: str, value, allowed) -> None:
    if value not in allowed:
        raise GymError(f"{option} must be one of {', '.join(map(str, allowed))}; got {value!r}")


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The whole state of an environment at a decision (:meth:`SchedEnv.snapshot`)."""

    site: tuple
    cur: np.ndarray
    tf: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    x: np.ndarray
    last: float
    done: bool
    episode: tuple


class SchedEnv(gymnasium.Env):
    """Scheduling on one parallel machine, one decision per step (module docstring; docs/gym.md)."""

    metadata = {"render_modes": []}

    def __init__(self, workload: Workload | TraceSpec | str | None = None, *, mode: str = "job",
                 backfill: str = "easy", window: int = WINDOW, episode_jobs: int | None = None, warm: int = 0,
                 kill: bool = True, objective: str | Objective = OBJECTIVE, reward: str = "end",
                 time_scale: float = TIME_SCALE, order: str = "submit", greedy=R_.DEFAULT_GREEDY,
                 sd_clip: str = "job", invalid: str = "last", copy: bool = COPY) -> None:
        _choice("mode", mode, MODES)
        _choice("backfill", backfill, BACKFILLS)
        _choice("reward", reward, REWARDS)
        _choice("invalid", invalid, INVALID)
        _choice("sd_clip", sd_clip, SD_MODES)
        _choice("order", order, ORDER_CODES)
        for name, v, lo in (("window", window, 1), ("episode_jobs", episode_jobs, 1), ("warm", warm, 0)):
            if v is not None and (int(v) != v or v < lo):
                raise GymError(f"{name} must be a whole number >= {lo}, got {v!r}")
        if not time_scale > 0:
            raise GymError(f"time_scale must be > 0 seconds, got {time_scale!r}")
        if isinstance(workload, TraceSpec):
            workload = prepare_trace(workload)
        elif not isinstance(workload, Workload):
            workload = prepare_trace(TraceSpec(str(workload) if workload is not None else TRACE))
        self.workload = workload
        self.machine = Machine(workload.machine_procs)
        check_workload(workload, self.machine)
        if len(workload) == 0:
            raise WorkloadError(f"{workload.name or 'workload'}: no jobs to schedule")
        if episode_jobs is not None and episode_jobs > len(workload):
            raise GymError(f"episode_jobs {episode_jobs} exceeds the trace's {len(workload)} jobs")
        self.mode, self.backfill, self.reward_mode, self.invalid = mode, backfill, reward, invalid
        self.window, self.episode_jobs, self.warm, self.kill = int(window), episode_jobs, int(warm), bool(kill)
        self.objective = Objective.of(objective)
        #: the metrics the reward needs (compute_metrics(only=...): the same values, not the whole set)
        self._names = {n.removeprefix(EASY_PREFIX) for n in self.objective.names}
        self.tau = float(time_scale)
        self._bf, self._sd = BACKFILLS[backfill], SD_MODES[sd_clip]
        self._order = ORDER_CODES[order]
        if mode == "strategy":
            self._sdisp, self._sord = strategy_codes()
            orders = sorted({int(o) for o in self._sord} - {O_GREEDY})
            strategy = Strategy("fcfs", greedy)
        else:
            orders, strategy = False, Strategy("fcfs", order)
        self._J, _s, self._G, _d, _o, self._perm = prepare(workload, self.machine, strategy, kill=self.kill,
                                                           ranks=orders if episode_jobs is None else False)
        if mode == "job":
            self.observation_space = spaces.Box(0.0, 1.0, (self.window * observe.NJ + observe.NM,), np.float32)
            self.action_space = spaces.Discrete(self.window)
            self._mask = np.zeros(self.window, dtype=np.int8)
        else:
            self.observation_space = spaces.Box(0.0, 100.0, (R_.N_FEATURES,), np.float32)
            self.action_space = spaces.Discrete(R_.N_STRATEGIES)
            self._mask = np.ones(R_.N_STRATEGIES, dtype=np.int8)
        self._nact, self._job, self._raise = int(self.action_space.n), mode == "job", invalid == "raise"
        self._obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        self._x = np.zeros(R_.N_FEATURES)
        self._copy = bool(copy)
        self._S = None
        self._S0 = None  # an empty site of the last episode's shape: reset copies it into self._S
        #: True while a snapshot or fork may hold this episode's job arrays (reset then allocates new ones)
        self._held = False
        self._B = None  # observe.Bundle over the state arrays, built at the first step after they change
        self._run = None  # its compiled step (observe.stepper)
        #: the per-job static observation values of the whole trace; an episode's are its columns' rows
        self._feat_all = observe.static_features(self._J, self.machine.procs, self.tau)
        self._stepr = reward == "step"
        self._done = True

    # ------------------------------------------------------------------ episodes
    def _episode_jobs(self) -> tuple[int, int, int]:
        """(first warm job, first episode job, end) in submit order for a new episode."""
        n = len(self.workload)
        if self.episode_jobs is None:
            return 0, 0, n
        lo = min(self.warm, n - self.episode_jobs)  # every episode gets its whole warm-up when the trace allows
        s = int(self.np_random.integers(lo, n - self.episode_jobs + 1))
        return max(0, s - self.warm), s, s + self.episode_jobs

    def _slice(self, a: int, b: int):
        """The ``Jobs`` bundle of jobs a..b-1 (submit order); order ranks are dropped (a speed path only).
        Written into the last episode's arrays when they have that shape and nothing else holds them
        (no snapshot, no fork: ``self._held``), so that the compiled step's bundle stays valid."""
        if a == 0 and b == self._J.f.shape[1]:
            self._feat = self._feat_all
            return self._J
        EJ = getattr(self, "_EJ", None)
        if EJ is not None and EJ is not self._J and not self._held and EJ.f.shape[1] == b - a:
            EJ.f[...] = self._J.f[:, a:b]
            EJ.i[...] = self._J.i[:, a:b]
            EJ.i[RANK0:] = -1
            self._feat[...] = self._feat_all[a:b]
            return EJ
        f = np.ascontiguousarray(self._J.f[:, a:b])
        i = np.ascontiguousarray(self._J.i[:, a:b])
        i[RANK0:] = -1
        self._feat = np.ascontiguousarray(self._feat_all[a:b])
        return type(self._J)(f, i)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        a, s, b = self._episode_jobs()
        self._episode = (a, s, b)
        EJ, feat = getattr(self, "_EJ", None), getattr(self, "_feat", None)
        self._EJ = self._slice(a, b)
        first = s - a
        cur, tf = engine.new_cursor(first)
        if self._S0 is not None and self._S0.f.shape[1] == b - a and not self._held:
            for x, y in zip(self._S, self._S0):  # the same empty machine, in the last episode's arrays
                x[...] = y
            self._cur[...], self._tf[...] = cur, tf
        else:
            self._S0 = new_site(b - a, self.machine.procs, self.kill, self._order)
            self._S = Site(*(x.copy() for x in self._S0))
            self._cur, self._tf = cur, tf
            self._B = None
        if self._EJ is not EJ or self._feat is not feat:
            self._B = None
        self._held = False
        self._easy = None
        if self.objective.needs_easy:
            self._easy = compute_metrics(self._baseline())
        J, S, cur, tf = self._EJ, self._S, self._cur, self._tf
        if self.mode == "job":
            more = engine.play_first(J, S, cur, tf, self._bf, first, self._sd)
        else:
            more = engine.advance(J, S, cur, tf, False, self._sd)
            k = R_.STRATEGIES.index({"none": "fcfs", "easy": "easy", "conservative": "conservative"}[self.backfill]
                                    + "/submit")
            while more and cur[engine.C_NEXT] <= first:
                more = engine.act_pass(J, S, self._G, cur, tf, self._sdisp[k], self._sord[k], self._sd)
        self._done = not more
        self._last = 0.0
        self._observe()
        return (self._obs.copy() if self._copy else self._obs), self._info()

    def _observe(self) -> None:
        if self._done:
            self._obs[:] = 0.0
            self._mask[:] = 0 if self.mode == "job" else 1
        elif self.mode == "job":
            observe.observe_jobs(self._EJ, self._S, self._tf[engine.T_NOW], self._obs, self._mask, self.tau, self._feat)
        else:
            engine.rule_features(self._S, self._tf, self._x)
            self._obs[:] = self._x

    def _info(self) -> dict:
        info = {"action_mask": self._mask.copy() if self._copy else self._mask, "time": self._tf.item(engine.T_NOW),
                "waiting": self._S.ctr.item(NQ)}
        if self.mode == "strategy":
            info["features"] = self._x.copy()
        return info

    def step(self, action):
        if self._done:  # also before the first reset
            raise GymError("the episode is over: call reset() first")
        a = int(action)
        if a < 0 or a >= self._nact:
            raise GymError(f"action {action!r} is outside 0..{self._nact - 1}")
        if self._job:
            if self._raise and self._mask[a] == 0:
                raise GymError(f"action {a} names an empty window slot ({int(self._mask.sum())} jobs in the window)")
            B = self._B
            if B is None:
                B = self._bundle()
            more = self._run(B, a)
        else:
            more = observe.pass_step(self._EJ, self._S, self._G, self._cur, self._tf, self._sdisp[a], self._sord[a],
                                     self._sd, self._x, self._obs)
        self._done = not more
        reward = self._reward() if (self._stepr or not more) else 0.0
        return (self._obs.copy() if self._copy else self._obs), reward, not more, False, self._info()

    def _bundle(self):
        """The compiled step's one-object view of the state arrays (rebuilt when they are replaced)."""
        self._B = observe.bundle(self._EJ, self._S, self._cur, self._tf, self._obs, self._mask, self._feat,
                                 self._bf, self._sd, self.tau)
        if self._run is None:
            self._run = observe.stepper(self._B)
        return self._B

    def _reward(self) -> float:
        """The reward of the step just taken (module docstring)."""
        if self.reward_mode == "step":
            value = self._objective(partial=True)
            reward, self._last = -(value - self._last), value
            return reward
        return -self._objective(partial=False) if self._done else 0.0

    # ------------------------------------------------------------------ schedules and rewards
    def schedule(self, *, warm: bool = False, strategy: Strategy | None = None) -> Schedule:
        """The episode's jobs as a :class:`Schedule` (trace order of those jobs; unstarted jobs NaN);
        ``warm``: with the warm-up jobs before them. ``strategy``: the strategy to validate it as
        (None: rules 1-4 of the validator only)."""
        a, s, b = self._episode
        lo = 0 if warm else s - a
        cols = np.arange(lo, b - a)
        rows = self._perm[a + cols]
        order = np.argsort(rows, kind="stable")
        w = self.workload.take(rows[order])
        return Schedule(w, self.machine, strategy, self._S.f[START, cols][order], self._S.f[FINISH, cols][order],
                        killed=self.kill)

    def _objective(self, *, partial: bool) -> float:
        sch = self.schedule()
        if partial:
            started = ~np.isnan(sch.start)
            if not started.any():
                return 0.0
            sch = Schedule(sch.workload.take(started), sch.machine, None, sch.start[started], sch.finish[started],
                           killed=sch.killed)
            values = {k: (0.0 if v is None else v) for k, v in compute_metrics(sch, only=self._names).items()}
            easy = None if self._easy is None else {k: (0.0 if v is None else v) for k, v in self._easy.items()}
            return self.objective(values, easy, who="the partial schedule")
        return self.objective(compute_metrics(sch, only=self._names), self._easy, who="the episode's schedule")

    def _baseline(self) -> Schedule:
        """EASY (or FCFS without backfilling) on the episode's jobs and warm-up, for ``EASY_*`` terms."""
        a, s, b = self._episode
        S = new_site(b - a, self.machine.procs, self.kill, self._order)
        cur, tf = engine.new_cursor(s - a)
        engine.run_first(self._EJ, S, cur, tf, engine.BF_EASY)
        cols = np.arange(s - a, b - a)
        rows = self._perm[a + cols]
        order = np.argsort(rows, kind="stable")
        return Schedule(self.workload.take(rows[order]), self.machine, Strategy("easy"), S.f[START, cols][order],
                        S.f[FINISH, cols][order], killed=self.kill)

    # ------------------------------------------------------------------ search
    def snapshot(self) -> Snapshot:
        """The whole state (engine arrays, cursor, observation, reward bookkeeping); restore with
        :meth:`restore` into this environment (or a :meth:`fork` of it)."""
        if self._S is None:
            raise GymError("nothing to snapshot: call reset() first")
        self._held = True
        return Snapshot(tuple(a.copy() for a in self._S), self._cur.copy(), self._tf.copy(), self._obs.copy(),
                        self._mask.copy(), self._x.copy(), self._last, self._done,
                        (self._episode, self._EJ, self._easy, self._feat))

    def restore(self, snap: Snapshot) -> None:
        """Put the state of ``snap`` back (exactly: the same steps give the same schedule)."""
        episode, EJ, easy, feat = snap.episode
        if self._S is None or self._S.f.shape != snap.site[3].shape:
            self._S = Site(*(a.copy() for a in snap.site))
            self._cur, self._tf = snap.cur.copy(), snap.tf.copy()
            self._B = None
        else:  # in place: the compiled step's bundle stays valid
            for a, b in zip(self._S, snap.site):
                a[...] = b
            self._cur[...], self._tf[...] = snap.cur, snap.tf
        if EJ is not self._EJ:
            self._B = None
        self._obs[:], self._mask[:], self._x[:] = snap.obs, snap.mask, snap.x
        self._last, self._done = snap.last, snap.done
        self._episode, self._EJ, self._easy, self._feat = episode, EJ, easy, feat
        self._held = True

    def fork(self) -> "SchedEnv":
        """An independent copy at the same decision (shares the read-only trace and jobs)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._obs, other._mask, other._x = self._obs.copy(), self._mask.copy(), self._x.copy()
        other._S, other._B = None, None
        other._np_random = copy.deepcopy(self._np_random)
        other.restore(self.snapshot())
        return other

    def rollout(self) -> float:
        """Finish the episode with the queue's first job at every decision left (FCFS / EASY from
        here, one compiled call) and return the end reward -f(schedule); a search evaluates a
        :meth:`fork` this way (see examples/gym_lookahead.py)."""
        if self._S is None:
            raise GymError("nothing to roll out: call reset() first")
        if not self._done:
            engine.run_first(self._EJ, self._S, self._cur, self._tf, self._bf)
            self._done = True
            self._observe()
        return -self._objective(partial=False)

    def action_masks(self) -> np.ndarray:
        """``info["action_mask"]`` as booleans (the method sb3-contrib's MaskablePPO asks an environment for)."""
        return self._mask.astype(bool)

    def decisions(self) -> int:
        """Decisions taken in this episode."""
        return int(self._cur[engine.C_STEPS])

