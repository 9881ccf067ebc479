"""How each strategy kind reads its policy names (issue 46 item 2): the ``policy`` hook of the rows of
:data:`schedlab.strategy.registry.KINDS`, which :func:`schedlab.strategy.registry.parse_policy` calls
(``simulate --policy``, ``compare --policies``, ``bound plot --with`` and Python alike).

A hook is ``(spec, [engines], [slurm]) -> config``: ``spec`` is the whole name (``easy/estimate``,
``scojo-opt/lds``); it receives ``engines`` (whether the caller simulates the time-sharing kinds) and
``slurm`` (a Slurm policy built by the caller from its site's slurm.conf) only when its parameters
name them, so a kind that builds its config from the name alone takes ``spec`` only (as the toy kind
of tests/test_strategy_kinds.py). Each raises a one-line
:class:`~schedlab.errors.StrategyError` naming the spec.
"""

from __future__ import annotations

from ..errors import StrategyError
from .model import Criterion, Strategy

#: the Greedy scheduler ``compare --policies greedy`` runs (greedy-es-sorting-criteria, f2 + FCFS):
#: user-group priority K = (5, 4, 3, 2, 1), group 1 first, ties by submit time (a = b = 0). On KTH-SP2
#: it beats EASY on the default objective 10*AWRT1 + 4*AWRT2 at the price of groups 3-5, as in the paper.
DEFAULT_GREEDY = Criterion("f2", a=0.0, b=0.0, K=(5.0, 4.0, 3.0, 2.0, 1.0))

#: the ``scojo`` kind's policy names (``compare --policies``), each -> (engine, smart backfilling,
#: optimizer options of :meth:`schedlab.strategy.scojo_config.ScojoConfig.from_options`)
SCOJO_POLICIES = {
    "scojo": ("scojo", True, {}),
    "scojo/no-smart-backfill": ("scojo", False, {}),
    "scojo-opt": ("scojo-opt", True, {}),
    "scojo-opt/no-smart-backfill": ("scojo-opt", False, {}),
    "scojo-opt/first-level": ("scojo-opt", True, {"second_level": False}),
    "scojo-opt/lds": ("scojo-opt", True, {"search": "lds"}),
    "scojo-bottomline": ("scojo-bottomline", True, {}),
    "scojo-bottomline/no-smart-backfill": ("scojo-bottomline", False, {}),
}


def rigid_policy(spec: str) -> Strategy:
    """``easy``, ``easy/estimate``, ``greedy``, ``conservative/greedy`` (a user's dispatch rule and
    order alike) -> a :class:`~schedlab.strategy.Strategy`; ``greedy`` is the Greedy scheduler with
    :data:`DEFAULT_GREEDY`."""
    dispatch, _, order = spec.partition("/")
    if dispatch == "greedy":
        if order:
            raise StrategyError(f"policy {spec!r}: greedy has its own queue order; give greedy or POLICY/greedy")
        return Strategy.greedy(DEFAULT_GREEDY)
    if order == "greedy":
        return Strategy.greedy(DEFAULT_GREEDY, dispatch=dispatch)
    return Strategy(dispatch, order or "submit")


def policy_config(spec: str):
    """The ScojoConfig of a name of :data:`SCOJO_POLICIES`."""
    from .scojo_config import ScojoConfig

    engine, smart, extra = SCOJO_POLICIES[spec]
    return ScojoConfig.from_options(engine, smart_backfill=smart, **extra)


def scojo_policy(spec: str, engines: bool = True):
    """A name of :data:`SCOJO_POLICIES` -> its ScojoConfig; ``engines`` False: the caller simulates the
    rigid kinds only (``bound plot --with``), and the name is refused."""
    if not engines:
        raise StrategyError(f"policy {spec!r} runs on the time-sharing engine: only simulate and compare take it")
    if spec not in SCOJO_POLICIES:
        raise StrategyError(f"unknown time-sharing policy {spec!r}; choose one of {', '.join(SCOJO_POLICIES)}")
    return policy_config(spec)


def slurm_policy(spec: str, slurm=None):
    """``slurm`` -> the Slurm policy the caller read from its site's slurm.conf (``--slurm-conf FILE``;
    from Python ``parse_policy("slurm", slurm=SlurmPolicy(...))``): the name alone holds no config."""
    if spec.partition("/")[2] or slurm is None:
        raise StrategyError("policy 'slurm' takes no order and needs --slurm-conf FILE (a slurm.conf excerpt)")
    return slurm
