"""`--policy scojo` of `schedlab simulate` and `compare`: the SCOJO-PECT time-sharing engine."""

from __future__ import annotations

from typing import Optional

from ..errors import StrategyError

#: keys ``simulate --policy scojo --json`` prints besides the usual ones
SCOJO_JSON_KEYS: tuple[str, ...] = ("bsld", "bsld_by_class_width", "preemptions")
#: policy names routed to the time-sharing engine by ``compare --policies``
SCOJO_POLICIES = {"scojo": True, "scojo/no-smart-backfill": False}


def scojo_config(shares: Optional[str] = None, cycle: Optional[float] = None, smart_backfill: bool = True):
    """A ScojoConfig from the CLI's ``--shares L,M,S`` (fractions or percent) and ``--cycle S``."""
    from ..sim.timeshare import ScojoConfig

    kwargs: dict = {"smart_backfill": smart_backfill}
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
    return {key: ts[key] for key in SCOJO_JSON_KEYS}


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
