"""One registry row per dispatch rule, per queue order, per optimizer and per strategy kind.

Everything that needs to know which rules, orders or optimizers exist reads these tables:
:class:`schedlab.strategy.Strategy` (names, aliases), the engine (:mod:`schedlab.sim.dispatch`
builds its per-code kernel table from :data:`DISPATCH`, :func:`schedlab.sim.state.make_jobs`
its static sort keys from :data:`ORDERS`), the CLI help, the schedule validator (which replay
check a rule's starts must pass, which sort key an order uses) and the naive reference simulator
of the tests (``tests/support/naive.py``: one plain-Python function per ``naive`` name).

Adding a dispatch rule is one :class:`DispatchRule` row here plus its compiled pass kernel
``(J, S, view, now) -> started`` (see :mod:`schedlab.sim.dispatch`): the row names the kernel as
``"module:function"``; codes are the row's position (tests/test_registry.py adds a toy rule to
a copy of the package this way and checks it against the naive reference and the validator).

Adding a strategy kind (a config type the engines do not know yet) is one :class:`StrategyKind`
row in :data:`KINDS` plus its config type and its simulate function, both named by string:
:func:`schedlab.sim.strategies.simulate_any`, ``simulate --strategy FILE`` (the file's ``"kind"``
field), the ``--policy`` listing and its errors read the row (tests/test_strategy_kinds.py adds a
toy kind this way; docs/CONTRACTS.md "Strategy kinds" shows the diff).

A user's own queue order or dispatch rule needs no edit of the package: :func:`register_order`
and :func:`register_rule` (called from the user's file, which
:func:`schedlab.strategy.plugin.load_plugin` or ``--plugin FILE`` runs) add a row to
:data:`USER_ORDERS` (a code after the greedy order) or :data:`USER_RULES` (a code after the
built-in rules); the engine and the validator read a static order like a built-in one
(tests/test_plugin.py); a dynamic order's key and a rule reach the engine compiled, as arguments
(:mod:`schedlab.sim.user`, tests/test_plugin_dynamic.py).

Plain Python: importable by every layer (numba only when a user's dynamic key or rule is
registered, :mod:`.user_code`).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, fields
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True)
class DispatchRule:
    """A dispatch rule (genetic-fuzzy-rule-based-scheduling, Section 2.1).

    ``kernel``: ``"module:function"`` of the compiled pass ``(J, S, view, now) -> started`` that
    starts jobs of ``view`` (the waiting jobs in queue order) with ``start_job``.
    ``replay``: the validator's check at a start time where some job starts ahead of an earlier
    waiting one: ``"prefix"`` (forbidden: only a prefix of the queue may start), ``"easy"`` (must
    not delay the head's reservation), ``"conservative"`` (must not delay any earlier job's
    reservation), ``"any"`` (every start is legal by order), or ``"module:function"`` of a custom
    check ``(replay, t, ordered, k, pos, starters, running) -> None`` raising ``ScheduleInvalid``.
    ``naive``: name of the rule's plain-Python reference in ``tests/support/naive.py`` (``NAIVE_RULES``).
    """

    name: str
    help: str
    kernel: str
    replay: str
    naive: str
    source: str | None = None  # a user rule's plugin file (None: built in)
    compiled: object = None  # a user rule's numba cfunc (schedlab.strategy.user_code.RULE_FIELDS)
    takes: tuple[str, ...] = ()  # ... the fields its function takes (the engine fills only those)


@dataclass(frozen=True)
class QueueOrder:
    """A waiting-queue order (genetic-fuzzy-rule-based-scheduling, Section 4).

    ``key(width, estimate, group, rank)`` gives each job's static sort key (smaller first; ties by
    submit order, then trace order); ``None`` for the dynamic orders: the greedy order (greedy-es-
    sorting-criteria, Section III-A), which is a :class:`schedlab.strategy.Greedy` object, not a
    name, and a user's dynamic order (``dynamic``: its plain Python key over
    :data:`schedlab.strategy.user_code.KEY_FIELDS`, recomputed per waiting job at every pass;
    ``compiled``: that key as a numba cfunc).
    """

    name: str
    help: str
    key: Callable | None
    aliases: tuple[str, ...] = ()
    source: str | None = None  # a user order's plugin file (None: built in)
    takes: tuple[str, ...] = ()  # a user static key's parameters, passed by name (user_code.STATIC_FIELDS)
    dynamic: Callable | None = None  # a user's dynamic key (plain Python, one job at a time)
    compiled: object = None  # ... compiled (schedlab.strategy.user_code.compile_user)


@dataclass(frozen=True)
class Optimizer:
    """An ask/tell optimizer of real vectors (:class:`schedlab.optimize.run.Optimizer`):
    ``factory`` is ``"module:callable"`` (or the callable itself) taking
    ``(lower, upper, *, mu, lam, seed, x0)``; ``settings`` its fixed settings recorded in a run's
    config.json. :func:`make_optimizer` builds one by name; ``evolve greedy --optimizer NAME`` and
    :class:`schedlab.optimize.evolve.EvolveConfig` read the rows (tests/test_new_optimizer.py adds
    a test-only optimizer this way; docs/CONTRACTS.md "Optimizers" shows the diff).

    ``spaces``: the search spaces (rows of :data:`schedlab.optimize.problem.SPACES`) the algorithm
    searches, so :func:`schedlab.minimize` chooses every algorithm by name from this one table (issue
    46). The box optimizers (``es``, ``cmaes``: real vectors) search the greedy criteria and a Slurm
    configuration; the others are tied to one space and their ``factory`` names the ask/tell adapter
    :func:`~schedlab.optimize.run.run_generations` drives (built by their driver, not by
    :func:`make_optimizer`)."""

    name: str
    help: str
    factory: str | Callable
    settings: dict
    spaces: tuple[str, ...] = ("greedy", "slurm")

    @property
    def box(self) -> bool:
        """True for an optimizer of real vectors in a box (``make_optimizer``, ``--optimizer``)."""
        return "greedy" in self.spaces


@dataclass(frozen=True)
class StrategyKind:
    """A kind of strategy (issue 36 item 2): one config type, one way to simulate it.

    ``config``: ``"module:Class"`` of the kind's config objects (a ``X | Y`` union names several);
    ``simulate``: ``"module:function"`` ``(workload, machine, config, *, kill) -> Schedule``.
    ``to_dict`` / ``from_dict``: ``"module:function"`` turning a config into a JSON object and back
    (:class:`~schedlab.errors.StrategyError` naming the problem); a strategy file holds that object
    with ``"kind": name`` added. None: the kind has no file form (``slurm``: its config is read from
    the site's slurm.conf each time). ``policies``: the ``--policy`` names the kind answers to, with
    their help. ``policy``: ``"module:function"`` ``(spec, [engines], [slurm]) -> config`` for one of
    those names (:func:`parse_policy`; :mod:`schedlab.strategy.policies` holds the built-in kinds'); None:
    the kind has no policy names.
    Every name is resolved only when used (as :attr:`DispatchRule.kernel`): no layer imports the
    engines of every kind.
    """

    name: str
    help: str
    config: str
    simulate: str
    to_dict: str | None
    from_dict: str | None
    policies: tuple[tuple[str, str], ...] = ()
    policy: str | None = None


def _group_key(width, estimate, group, rank):
    return np.where((group >= 1) & (group <= 5), group, 6).astype(np.float64)  # group 0 (unassigned) last


#: dispatch rules; a rule's engine code is its index
DISPATCH: tuple[DispatchRule, ...] = (
    DispatchRule("fcfs", "start the queue head while it fits; nothing else",
                 "schedlab.sim.dispatch:fcfs_pass", replay="prefix", naive="fcfs"),
    DispatchRule("list", "start every queued job, in queue order, that fits now",
                 "schedlab.sim.dispatch:list_pass", replay="any", naive="list"),
    DispatchRule("easy", "EASY backfilling: reserve the head, backfill jobs that do not delay it",
                 "schedlab.sim.dispatch:easy_pass", replay="easy", naive="easy"),
    DispatchRule("conservative", "conservative backfilling: every queued job holds a reservation",
                 "schedlab.sim.dispatch:conservative_pass", replay="conservative", naive="conservative"),
)

#: queue orders; an order's engine code is its index; the dynamic greedy order comes last
ORDERS: tuple[QueueOrder, ...] = (
    QueueOrder("submit", "increasing submit time (= decreasing wait; alias fcfs)",
               lambda width, estimate, group, rank: rank.astype(np.float64), aliases=("fcfs", "wait")),
    QueueOrder("procs", "increasing requested processors",
               lambda width, estimate, group, rank: width.astype(np.float64)),
    QueueOrder("estimate", "increasing estimated run time (alias sjf)",
               lambda width, estimate, group, rank: estimate.astype(np.float64), aliases=("sjf",)),
    QueueOrder("group", "decreasing user-group priority (group 1 first)", _group_key),
    QueueOrder("greedy", "dynamic: decreasing greedy criterion f1..f4 (a Greedy object)", None),
)

#: ask/tell optimizers of ``schedlab evolve``
OPTIMIZERS: tuple[Optimizer, ...] = (
    Optimizer("es", "the paper's self-adaptive (mu+lambda)-ES", "schedlab.optimize.es:SelfAdaptiveES", {
        "algorithm": "self-adaptive (mu+lambda)-ES, Beyer & Schwefel 2002",
        "initial": "lambda points uniform in the box, step sizes 0.2 (hi - lo)",
        "recombination": "discrete over all mu parents (x), intermediate of 2 random parents (step sizes)",
        "mutation": "log-normal, tau' = 1/sqrt(2n), tau = 1/sqrt(2 sqrt(n))",
        "bounds": "reflection into [lo, hi]",
        "selection": "plus, stable sort (parents first on ties)",
    }),
    Optimizer("cmaes", "CMA-ES (cma package), a stronger baseline", "schedlab.optimize.cmaes:CMAES", {
        "algorithm": "CMA-ES (cma package) in the unit box, BoundTransform",
        "x0": "box centre",
        "sigma0": 0.3,
        "mu": "lambda // 2 unless --mu",
        "termination": "generation budget only",
    }),
    Optimizer("iterative", "the iterative GFS of Franke et al. (Algorithm 2): one situation class a generation",
              "schedlab.optimize.gfs_iterative:IterativeAskTell", {"algorithm": "iterative GFS, Algorithm 2"},
              spaces=("rules",)),
    Optimizer("symbiotic", "the symbiotic GFS (rule-base ES with rules as individuals)",
              "schedlab.optimize.gfs:SymbioticGFS", {"algorithm": "symbiotic GFS, (mu+lambda) over rules"},
              spaces=("rules",)),
    Optimizer("nsga3", "NSGA-III over priority orders: the Pareto bound of a trace (pymoo)",
              "schedlab.optimize.bound:BoundAskTell", {"algorithm": "NSGA-III, pymoo"}, spaces=("bound",)),
    Optimizer("nsga2", "NSGA-II over job-to-site partitions of a grid (pymoo operators of the paper)",
              "schedlab.optimize.nsga2_grid:NSGA2AskTell", {"algorithm": "NSGA-II"}, spaces=("grid",)),
    Optimizer("ga", "the federation GA over one package's job order (slowdown-guided-ga-federation)",
              "schedlab.optimize.federation_ga:PackageGAAskTell", {"algorithm": "GA, Table 1"},
              spaces=("federation",)),
)


#: strategy kinds; :func:`kind_of` tries them in this order
KINDS: tuple[StrategyKind, ...] = (
    StrategyKind("rigid", "a dispatch rule over a queue order (static, or the Greedy scheduler's dynamic one)",
                 "schedlab.strategy.model:Strategy", "schedlab.sim.engine:simulate",
                 "schedlab.strategy.model:Strategy.to_dict", "schedlab.strategy.model:Strategy.from_dict",
                 policies=(*((r.name, r.help) for r in DISPATCH),
                           ("greedy", "the Greedy scheduler of Franke et al., 'Greedy Scheduling with Complex Objectives' "
                                      "(criterion f2: user group 1 first, then 2, ...; FCFS dispatch); POLICY/greedy puts "
                                      "another dispatch rule under its order")),
                 policy="schedlab.strategy.policies:rigid_policy"),
    StrategyKind("rulebase", "a rule base choosing one of 13 rigid strategies by the situation (schedlab rules)",
                 "schedlab.strategy.rules:RuleBase", "schedlab.sim.rulebase:simulate_rulebase",
                 "schedlab.strategy.rules:rulebase_to_dict", "schedlab.strategy.rules:rulebase_from_dict"),
    StrategyKind("scojo", "SCOJO-PECT time sharing, plain, with the group optimiser or with the bottom line",
                 "schedlab.strategy.scojo_config:ScojoConfig", "schedlab.sim.timeshare:simulate_scojo",
                 "schedlab.strategy.scojo_config:scojo_to_dict", "schedlab.strategy.scojo_config:scojo_from_dict",
                 policies=(
                     ("scojo", "SCOJO-PECT time sharing (--shares, --cycle, --no-smart-backfill; own engine)"),
                     ("scojo-opt", "SCOJO-PECT with the group optimiser of Kanavallil's thesis (Windsor 2008) (--search, "
                                   "--budget, --group-sizes, --first-level-only; compare: "
                                   "scojo-opt[/no-smart-backfill|/first-level|/lds])"),
                     ("scojo-bottomline", "SCOJO-PECT with the search-based bottom line, DDS/LXF/dynB (--search, --budget; "
                                          "compare: scojo-bottomline[/no-smart-backfill])")),
                 policy="schedlab.strategy.policies:scojo_policy"),
    StrategyKind("slurm", "a site's Slurm 22.05 from its slurm.conf", "schedlab.slurm.policy:SlurmPolicy",
                 "schedlab.slurm.policy:simulate_slurm", None, None,
                 policies=(("slurm", "a site's Slurm 22.05 from its slurm.conf (--slurm-conf FILE): multifactor priority, "
                                     "main scheduler and backfill (docs/slurm-policy-spec.md); --slurm-shares, --slurm-qos, "
                                     "--slurm-option NAME=VALUE"),),
                 policy="schedlab.strategy.policies:slurm_policy"),
)


#: the other tables of names (issue 46 item 2), each kept beside the code it drives (a paper's numbering,
#: codes compiled into a kernel, the report of a run kind) and named here, ``"module:attribute"``, so one
#: place says where every set of names lives; :func:`table` reads one (imported only then)
TABLES: dict[str, tuple[str, str]] = {
    "rule-base strategies": ("schedlab.strategy.rules:STRATEGIES",
                             "the 13 strategies a rule base chooses from, its output codes (genetic-fuzzy-rule-based-scheduling)"),
    "time-sharing policies": ("schedlab.strategy.policies:SCOJO_POLICIES",
                              "the scojo kind's policy names with their engine and options (compare --policies)"),
    "federation methods": ("schedlab.federation.model:METHODS", "the federation's scheduling methods (federation --method)"),
    "grid exchanges": ("schedlab.grid.kernel:EXCHANGES", "the grid's job exchange policies, codes of its kernel"),
    "run figures": ("schedlab.report.runs:RUN_PLOTS", "the figures of a run folder, by its kind (plot RUN)"),
    "run reports": ("schedlab.report.runs:RUN_REPORTS",
                    "report.html of a run folder, by the kinds whose verb writes one (schedlab.report.write)"),
    "rules reports": ("schedlab.report.runs:RULES_REPORTS", "a rules run's report title and steps, by its kind"),
}


def table(name: str) -> tuple[str, ...]:
    """The names of :data:`TABLES` row ``name`` (a dict's keys, a tuple's items), in their order; KeyError
    naming the tables for none."""
    try:
        spec = TABLES[name][0]
    except KeyError:
        raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}") from None
    return tuple(resolve(spec))


def kind_names() -> tuple[str, ...]:
    return tuple(k.name for k in KINDS)


def _named(rows, name: str):
    """The row of ``rows`` called ``name``; KeyError for none."""
    for row in rows:
        if row.name == name:
            return row
    raise KeyError(name)


def kind(name: str) -> StrategyKind:
    return _named(KINDS, name)


def kind_of(strategy) -> StrategyKind:
    """The row whose config type ``strategy`` is an instance of; KeyError for none. Rows are tried
    in order and a row's config type is imported only when reached, so the rigid engine's callers
    import no other kind's engine."""
    for k in KINDS:
        if isinstance(strategy, resolve(k.config)):
            return k
    raise KeyError(type(strategy).__name__)


def policy_help() -> dict[str, str]:
    """Every ``--policy`` name of every kind, with its help, in row order (a user's dispatch rules,
    :func:`register_rule`, after the rigid kind's built-in ones)."""
    out = {}
    for k in KINDS:
        out.update(k.policies)
        if k.name == "rigid":
            out.update((r.name, f"{r.help} ({r.source})") for r in USER_RULES)
    return out


def policy_kind(name: str) -> StrategyKind:
    """The kind a ``--policy`` name belongs to; KeyError for none."""
    for k in KINDS:
        if any(name == n for n, _ in k.policies) or (k.name == "rigid" and any(r.name == name for r in USER_RULES)):
            return k
    raise KeyError(name)


def unknown_policy(spec: str):
    """The one error for a policy name no strategy kind answers to (every verb that takes policies,
    and :func:`parse_policy`): it names the name and every known one."""
    from ..errors import StrategyError

    return StrategyError(f"unknown policy {spec!r}; choose one of {', '.join(policy_help())} "
                         f"(or a strategy .json file of any kind: {', '.join(kind_names())})")


def parse_policy(spec: str, *, engines: bool = True, slurm=None):
    """A policy name or a strategy file -> the config of its kind: ``easy``, ``easy/estimate``,
    ``greedy``, ``conservative/greedy`` -> a :class:`~schedlab.strategy.Strategy`; ``scojo``,
    ``scojo-opt/lds``, ... -> a :class:`~schedlab.strategy.scojo_config.ScojoConfig`; ``slurm`` -> the
    Slurm policy given as ``slurm``; ``FILE.json`` -> a strategy of any kind
    (:func:`load_strategy_file`). The part before ``/`` picks the kind (:func:`policy_kind`), whose
    row's ``policy`` hook builds the config, receiving ``engines`` and ``slurm`` when its parameters
    name them (:mod:`schedlab.strategy.policies`). ``engines=False``: the caller simulates no
    time-sharing kind (``bound plot --with``). A name of no kind: :func:`unknown_policy`."""
    from pathlib import Path

    from ..errors import StrategyError

    spec = spec.strip()
    if spec.endswith(".json"):
        return load_strategy_file(Path(spec))
    name = spec.partition("/")[0]
    try:
        row = policy_kind(name)
    except KeyError:
        raise unknown_policy(name) from None
    if row.policy is None:
        raise StrategyError(f"policy {spec!r}: the {row.name} kind builds its strategies from options, not names")
    hook = resolve(row.policy)
    given = {"engines": engines, "slurm": slurm}
    return hook(spec, **{k: v for k, v in given.items() if k in inspect.signature(hook).parameters})


#: dispatch rules registered at run time (:func:`register_rule`, from a user's plugin file); the
#: k-th has engine code ``len(DISPATCH) + k`` (the engine gets its kernel as an argument, not from
#: the compiled rule table)
USER_RULES: list[DispatchRule] = []


def all_rules() -> tuple[DispatchRule, ...]:
    """Every dispatch rule, built-in then user ones; a rule's engine code is its index here."""
    return (*DISPATCH, *USER_RULES)


def rule_names() -> tuple[str, ...]:
    return tuple(r.name for r in all_rules())


def rule(name: str) -> DispatchRule:
    return all_rules()[rule_code(name)]


def rule_code(name: str) -> int:
    for code, r in enumerate(all_rules()):
        if r.name == name:
            return code
    raise KeyError(name)


#: queue orders registered at run time (:func:`register_order`, from a user's plugin file); the
#: k-th has engine code ``len(ORDERS) + k``, after the greedy order
USER_ORDERS: list[QueueOrder] = []


def all_orders() -> tuple[QueueOrder, ...]:
    """Every queue order, built-in then user ones; an order's engine code is its index here."""
    return (*ORDERS, *USER_ORDERS)


def static_orders() -> tuple[QueueOrder, ...]:
    return tuple(o for o in all_orders() if o.key is not None)


def named_orders() -> tuple[QueueOrder, ...]:
    """The orders a strategy names (``Strategy(rule, NAME)``, ``--order NAME``): the static ones and
    a user's dynamic ones (greedy is a :class:`~schedlab.strategy.Greedy` object instead)."""
    return tuple(o for o in all_orders() if o.key is not None or o.dynamic is not None)


def order_code(name: str) -> int:
    for code, o in enumerate(all_orders()):
        if o.name == name:
            return code
    raise KeyError(name)


def order(name: str) -> QueueOrder:
    """The row of queue order ``name`` (built in or registered); KeyError for none."""
    return all_orders()[order_code(name)]


def order_keys(row: QueueOrder, width, estimate, group, rank, submit) -> np.ndarray:
    """``row``'s static sort key of every job, as float64. A user key receives the columns its
    parameters name (:data:`~schedlab.strategy.user_code.STATIC_FIELDS`), by name, so
    ``key(estimate, width)`` gets each where its name says (issue 43 item 3). A user order's key is checked: one
    finite number per job, else a one-line :class:`~schedlab.errors.StrategyError` naming its file
    (and the line where its key failed)."""
    if row.source is None:
        return row.key(width, estimate, group, rank)
    from ..errors import StrategyError

    where = f"{row.source}: queue order {row.name!r}"
    try:
        columns = {"width": width, "estimate": estimate, "group": group, "rank": rank,
                   "submit": np.asarray(submit, dtype=np.float64)}
        # copies: the user's code may write into them
        key = np.asarray(row.key(**{p: np.array(columns[p]) for p in row.takes}), dtype=np.float64)
    except Exception as exc:  # the user's code: any failure is one line naming the file
        raise StrategyError(f"{_at_line(exc, row.source)}: queue order {row.name!r}: key failed: "
                            f"{type(exc).__name__}: {exc}") from None
    n = np.shape(rank)[0]
    if key.shape == () and n:
        key = np.full(n, float(key))
    if key.shape != (n,):
        raise StrategyError(f"{where}: key must give one number per job, shape ({n},), got shape {key.shape}")
    bad = np.flatnonzero(~np.isfinite(key))
    if bad.size:
        raise StrategyError(f"{where}: key gives {key[bad[0]]} for a job of width {width[bad[0]]}, estimate "
                            f"{estimate[bad[0]]}, group {group[bad[0]]}, rank {rank[bad[0]]} (keys must be finite)")
    return key


def _at_line(exc: BaseException, source: str) -> str:
    """``source:LINE`` of the innermost frame of ``exc``'s traceback in file ``source`` (``source``
    alone when none is)."""
    import os
    import traceback

    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == os.path.abspath(source):  # Python records the absolute path
            line = frame.lineno
    return source if line is None else f"{source}:{line}"


def register_order(name: str, help: str, key: Callable | None = None, *, dynamic: bool = False,
                   source: str | None = None):
    """Register a queue order ``name`` (without ``key``, a decorator).

    Static (the default): ``key(width, estimate, group, rank)`` gives each job's sort key: its
    parameters are any of the names :data:`schedlab.strategy.user_code.STATIC_FIELDS` in any order
    (``width, estimate, group, rank, submit``: numpy arrays of the jobs' processors, estimates, user
    groups 0..5, submit ranks 0..n-1 and submit times), each passed by name; one finite number per
    job out; smaller first, ties by submit order. A parameter outside those names (or with a
    default) is refused here in one line naming the file and the function, as for a dynamic key.
    The order runs through the built-in static orders' compiled kernels (the key is computed once
    per job before a simulation).

    ``dynamic=True``: ``key`` is plain Python over one job and the machine at a pass, taking any of
    the names of :data:`schedlab.strategy.user_code.KEY_FIELDS` (``width, estimate, group, submit,
    wait, now, free, queued, machine``) and giving one finite float; we compile it with numba and the
    engine recomputes it for every waiting job at every pass (as the greedy order's criteria), then
    sorts the queue by it (smaller first, ties by submit order). A key numba cannot compile, or a
    parameter outside those names, is refused here in one line naming the file and the function.

    The validator checks either kind. A name of a built-in order or alias is refused; registering
    a user order's name again replaces it (the same code). ``source``: the file named in its errors
    (:func:`schedlab.strategy.plugin.load_plugin` sets it)."""
    from ..errors import StrategyError

    if key is None:
        return lambda fn: register_order(name, help, fn, dynamic=dynamic, source=source)
    where = _checked_name(name, "queue order", source)
    if any(o.name == name or name in o.aliases for o in ORDERS) or name in ("greedy", *CRITERIA_NAMES):
        raise StrategyError(f"{where}queue order {name!r} is a built-in order; choose another name")
    if not callable(key):
        raise StrategyError(f"{where}queue order {name!r}: key must be a function (width, estimate, group, rank)")
    source = source or _plugin_file() or "<python>"
    if dynamic:
        from .user_code import KEY_FIELDS, compile_user

        compiled = compile_user(key, KEY_FIELDS, "float64", what=f"queue order {name!r}", where=source)
        _put(USER_ORDERS, QueueOrder(name, str(help), None, source=source, dynamic=key, compiled=compiled))
        return key
    from .user_code import STATIC_FIELDS, parameters

    takes = parameters(key, STATIC_FIELDS, what=f"queue order {name!r}", where=source)
    row = QueueOrder(name, str(help), key, source=source, takes=takes)
    sample = np.array([1, 4]), np.array([10.0, 3600.0]), np.array([1, 2]), np.array([0, 1]), np.array([0.0, 60.0])
    order_keys(row, *sample)  # a key of the wrong shape or NaN fails here, naming the file
    _put(USER_ORDERS, row)
    return key


def register_rule(name: str, help: str, rule: Callable | None = None, *, source: str | None = None):
    """Register a dispatch rule ``name`` from a user's file (without ``rule``, a decorator).

    ``rule`` is plain Python over the names of :data:`schedlab.strategy.user_code.RULE_FIELDS`
    (``width, estimate, wait, group``: the waiting jobs in queue order, as arrays; ``now, free,
    machine``; ``run_end, run_width``: the running jobs by estimated end; ``start``: the output),
    and must take ``start``: it sets ``start[i] = 1`` for each waiting job i to start now. We
    compile it with numba; at every pass the engine hands it copies of the queue's columns (in the
    order of the strategy's queue order, any of them, greedy and dynamic ones included), then starts
    the marked jobs in queue order through :mod:`schedlab.sim.ops`. A marked job wider than the
    processors still free stops the simulation with a one-line error naming the file, the rule,
    the job and the time; a job the rule never starts, likewise. The validator checks every
    schedule (each job once, not before its submit, its length, never more than the machine's
    processors; a user rule's choices themselves are its own: its replay check is ``"any"``).
    ``policy`` names it like a built-in rule (``--policy NAME``, ``NAME/ORDER``); a name of
    another policy is refused."""
    from ..errors import StrategyError

    if rule is None:
        return lambda fn: register_rule(name, help, fn, source=source)
    where = _checked_name(name, "dispatch rule", source)
    if any(r.name == name for r in DISPATCH) or name in {n for k in KINDS for n, _ in k.policies}:
        raise StrategyError(f"{where}dispatch rule {name!r} is a built-in policy; choose another name")
    if not callable(rule):
        raise StrategyError(f"{where}dispatch rule {name!r}: rule must be a function (width, free, start, ...)")
    source = source or _plugin_file() or "<python>"
    from .user_code import RULE_FIELDS, compile_user

    compiled = compile_user(rule, RULE_FIELDS, "int64", what=f"dispatch rule {name!r}", where=source,
                            required=("start",))
    _put(USER_RULES, DispatchRule(name, str(help), "", replay="any", naive=name, source=source, compiled=compiled,
                                  takes=tuple(inspect.signature(rule).parameters)))
    return rule


def _checked_name(name, what: str, source: str | None) -> str:
    """The ``"FILE: "`` prefix of a user row's errors, once ``name`` is a lower-case identifier."""
    from ..errors import StrategyError

    where = f"{source or _plugin_file()}: " if source or _plugin_file() else ""
    if not isinstance(name, str) or not name.isidentifier() or name.lower() != name:
        raise StrategyError(f"{where}{what} name {name!r} must be a lower-case identifier (e.g. 'area')")
    return where


def _put(rows: list, row) -> None:
    """Add a user row, or replace the row of the same name (its code stays)."""
    for k, o in enumerate(rows):
        if o.name == row.name:
            rows[k] = row
            return
    rows.append(row)


#: names an order may not take: the greedy criteria (a greedy order's spelling)
CRITERIA_NAMES = ("f1", "f2", "f3", "f4")
#: the plugin file being loaded (:func:`schedlab.strategy.plugin.load_plugin` sets it), for errors
_LOADING: list[str] = []


def _plugin_file() -> str | None:
    return _LOADING[-1] if _LOADING else None


#: engine code of the dynamic greedy order
GREEDY_CODE = order_code("greedy")


def order_aliases() -> dict[str, str]:
    return {a: o.name for o in ORDERS for a in o.aliases}


def optimizer_names(space: str = "greedy") -> tuple[str, ...]:
    """The names of the algorithms that search ``space`` (default: the box optimizers of ``--optimizer``)."""
    return tuple(o.name for o in OPTIMIZERS if space in o.spaces)


def optimizer(name: str) -> Optimizer:
    return _named(OPTIMIZERS, name)


def make_optimizer(name: str, lower, upper, *, mu: int, lam: int, seed: int, x0=None):
    """The ask/tell optimizer of :data:`OPTIMIZERS` row ``name`` over the box [lower, upper]."""
    try:
        row = optimizer(name)
        if not row.box:
            raise KeyError(name)
    except KeyError:
        raise ValueError(f"unknown optimizer {name!r}; choose {' or '.join(optimizer_names())}") from None
    factory = resolve(row.factory) if isinstance(row.factory, str) else row.factory
    return factory(lower, upper, mu=mu, lam=lam, seed=seed, x0=x0)


def resolve(spec: str):
    """The object ``"module:attribute"`` (or ``"module:Class.attribute"``) names."""
    module, _, attr = spec.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------------------- file form of every kind
def strategy_to_dict(strategy) -> dict[str, Any]:
    """``{"kind": ..., **the row's to_dict(strategy)}``; StrategyError for a kind without a file form."""
    from ..errors import StrategyError

    row = kind_of(strategy)
    if row.to_dict is None:
        raise StrategyError(f"a {row.name} strategy has no file form")
    return {"kind": row.name, **resolve(row.to_dict)(strategy)}


def strategy_from_dict(doc: Any):
    """A strategy of any kind from its JSON object: ``"kind"`` selects the registry row; an object
    without it is read as before kinds had names (a rule base when it has ``schedlab_rulebase``, else
    a rigid :class:`~schedlab.strategy.Strategy`)."""
    from ..errors import StrategyError

    if not isinstance(doc, dict) or "kind" not in doc:
        name = "rulebase" if is_rulebase_json(doc) else "rigid"
    else:
        name = doc["kind"]
        doc = {k: v for k, v in doc.items() if k != "kind"}
    try:
        row = kind(name)
    except (KeyError, TypeError):
        raise StrategyError(f"unknown strategy kind {name!r}; choose one of {', '.join(kind_names())}") from None
    if row.from_dict is None:
        raise StrategyError(f"a {row.name} strategy has no file form")
    return resolve(row.from_dict)(doc)


def is_rulebase_json(d: Any) -> bool:
    """A rule base's JSON object written before kinds had names (it carries ``schedlab_rulebase``)."""
    return isinstance(d, dict) and "schedlab_rulebase" in d


def load_strategy_file(path):
    """A strategy of any kind from a JSON file (:func:`strategy_from_dict`); a clear one-line error
    naming the file."""
    import json
    from pathlib import Path

    from ..errors import StrategyError

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
    """Write ``strategy`` (any kind with a file form) to ``path`` as :func:`load_strategy_file` reads it
    (atomically)."""
    import json

    from .._atomic import atomic_write_text

    atomic_write_text(path, json.dumps(strategy_to_dict(strategy), indent=2) + "\n")


# ---------------------------------------------------------------------------- file form of a dataclass config
def _tuples(value):
    """JSON lists back to the tuples of a frozen config (nested)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def config_from_dict(cls, doc: Any, what: str, **nested):
    """A dataclass config from its ``asdict`` form: lists read as tuples, ``nested`` fields by their own
    reader; StrategyError naming unknown fields (the config checks its values itself)."""
    from ..errors import StrategyError

    if not isinstance(doc, dict):
        raise StrategyError(f"{what} must be a JSON object, got {doc!r}")
    names = {f.name for f in fields(cls)}
    extra = set(doc) - names
    if extra:
        raise StrategyError(f"unknown {what} fields: {sorted(extra)}; {what} has {', '.join(sorted(names))}")
    kwargs = {k: nested[k](v) if k in nested and v is not None else _tuples(v) for k, v in doc.items()}
    try:
        return cls(**kwargs)
    except TypeError as exc:  # e.g. a number where a pair is expected
        raise StrategyError(f"{what}: {exc}") from None
