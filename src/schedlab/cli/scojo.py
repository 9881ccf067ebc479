"""`--policy scojo` of `schedlab simulate` and `compare`: the SCOJO-PECT time-sharing engine."""

from __future__ import annotations

from typing import Optional

from ..errors import StrategyError
from ..strategy import registry

#: keys ``simulate --policy scojo --json`` prints besides the usual ones
SCOJO_JSON_KEYS: tuple[str, ...] = ("bsld", "bsld_by_class_width", "preemptions")
#: keys added for the optimised engines (``--policy scojo-opt`` / ``scojo-bottomline``)
OPT_JSON_KEYS: tuple[str, ...] = ("groups", "pruned_share")
#: engine policies of ``simulate --policy`` (and ``compare --policies``), with their help: the
#: ``scojo`` strategy kind's row (:data:`schedlab.strategy.registry.KINDS`)
ENGINES = dict(registry.kind("scojo").policies)
#: policy names routed to the time-sharing engine by ``compare --policies``: (engine, smart
#: backfilling, optimizer options)
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


def optimizer_config(engine: str, search: Optional[str] = None, budget: Optional[int] = None,
                     group_sizes: Optional[str] = None, first_level_only: bool = False, extra: Optional[dict] = None):
    """The optimiser of ``--policy scojo-opt`` (GroupConfig) or ``scojo-bottomline``
    (BottomLineConfig) from ``--search lds|dds``, ``--budget N``, ``--group-sizes L,M`` and
    ``--first-level-only``; None for plain ``scojo``."""
    from ..sim.scojo_opt import BottomLineConfig, GroupConfig

    if engine == "scojo":
        if search is not None or budget is not None or group_sizes is not None or first_level_only:
            raise StrategyError("--search, --budget, --group-sizes and --first-level-only need --policy scojo-opt "
                                "or scojo-bottomline")
        return None
    kwargs: dict = dict(extra or {})
    if search is not None:
        if search.lower() not in ("lds", "dds"):
            raise StrategyError(f"--search must be lds or dds, got {search!r}")
        kwargs["search"] = search.lower()
    if budget is not None:
        if budget < 1:
            raise StrategyError(f"--budget must be >= 1 schedules per decision, got {budget}")
        kwargs["budget"] = int(budget)
    if engine == "scojo-bottomline":
        if group_sizes is not None or first_level_only:
            raise StrategyError("--group-sizes and --first-level-only need --policy scojo-opt")
        return BottomLineConfig(**kwargs)
    if group_sizes is not None:
        try:
            big_l, big_m = (int(x) for x in group_sizes.split(","))
        except ValueError:
            raise StrategyError(f"--group-sizes must be two integers L,M (e.g. 30,20), got {group_sizes!r}") from None
        kwargs["group_max"] = (big_l, big_m)
        kwargs["group_min"] = (min(5, big_l), min(10, big_m))
    if first_level_only:
        kwargs["second_level"] = False
    return GroupConfig(**kwargs)


def policy_config(spec: str):
    """The ScojoConfig of a ``compare --policies`` name of :data:`SCOJO_POLICIES`."""
    engine, smart, extra = SCOJO_POLICIES[spec]
    return scojo_config(smart_backfill=smart, optimizer=None if engine == "scojo" else optimizer_config(engine, extra=extra))


def scojo_config(shares: Optional[str] = None, cycle: Optional[float] = None, smart_backfill: bool = True,
                 optimizer=None):
    """A ScojoConfig from the CLI's ``--shares L,M,S`` (fractions or percent) and ``--cycle S``."""
    from ..sim.timeshare import ScojoConfig

    kwargs: dict = {"smart_backfill": smart_backfill, "optimizer": optimizer}
    if shares is not None:
        try:
            vals = tuple(float(x) for x in shares.split(","))
        except ValueError:
            raise StrategyError(f"--shares must be three numbers L,M,S (e.g. 0.73,0.265,0.005), got {shares!r}") from None
        if len(vals) != 3:
            raise StrategyError(f"--shares must be three numbers L,M,S (e.g. 0.73,0.265,0.005), got {shares!r}")
        if abs(sum(vals) - 100.0) < 1e-6:  # percent
            vals = tuple(v / 100.0 for v in vals)
        kwargs["shares"] = vals
    if cycle is not None:
        if not cycle > 0:
            raise StrategyError(f"--cycle must be a positive number of seconds, got {cycle:g}")
        kwargs["cycle"] = float(cycle)
    return ScojoConfig(**kwargs)


def scojo_keys(schedule) -> dict:
    """The time-sharing keys of ``--json`` (bound 600 s, thesis)."""
    from ..metrics.timeshare import timeshare_metrics

    ts = timeshare_metrics(schedule)
    out = {key: ts[key] for key in SCOJO_JSON_KEYS}
    stats = schedule.timeshare.search_stats
    if stats is not None:
        out.update({key: stats[key] for key in OPT_JSON_KEYS})
    return out


def gantt_window_option(gantt, window: Optional[str]):
    """``--gantt-window START,END`` -> (start, end) or None; a clear error for a bad window."""
    if window is None:
        return None
    if gantt is None:
        raise StrategyError("--gantt-window needs --gantt FILE.png")
    try:
        t0, t1 = (float(x) for x in window.split(","))
    except ValueError:
        raise StrategyError(f"--gantt-window must be START,END in seconds, got {window!r}") from None
    if not t1 > t0:
        raise StrategyError(f"--gantt-window END must be after START, got {window!r}")
    return t0, t1
