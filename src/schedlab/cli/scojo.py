"""`--policy scojo` of `schedlab simulate` and `compare`: the SCOJO-PECT time-sharing engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

from .._moved import moved
from ..errors import StrategyError
from ..strategy import registry

#: keys ``simulate --policy scojo --json`` prints besides the usual ones
SCOJO_JSON_KEYS: tuple[str, ...] = ("bsld", "bsld_by_class_width", "preemptions")
#: keys added for the optimised engines (``--policy scojo-opt`` / ``scojo-bottomline``)
OPT_JSON_KEYS: tuple[str, ...] = ("groups", "pruned_share")
#: engine policies of ``simulate --policy`` (and ``compare --policies``), with their help: the
#: ``scojo`` strategy kind's row (:data:`schedlab.strategy.registry.KINDS`)
ENGINES = dict(registry.kind("scojo").policies)
#: names that lived here, at their home (``compare --policies``' time-sharing names are the ``scojo`` kind's)
__getattr__ = moved(__name__, {"SCOJO_POLICIES": "schedlab.strategy.policies:SCOJO_POLICIES",
                               "policy_config": "schedlab.strategy.policies:policy_config"})


@dataclass(frozen=True)
class ScojoOptions:
    """The SCOJO-PECT options of ``simulate`` (:data:`SCOJO_OPTIONS`), received as one value: the
    config's options pass through to :meth:`ScojoConfig.from_options`, which checks them."""

    shares: Optional[str] = None
    cycle: Optional[float] = None
    no_smart_backfill: bool = False
    gantt: Optional[Path] = None
    gantt_window: Optional[str] = None
    search: Optional[str] = None
    budget: Optional[int] = None
    group_sizes: Optional[str] = None
    first_level_only: bool = False

    def config(self, policy: Optional[str]):
        """The ScojoConfig of ``policy`` when it is one of :data:`ENGINES`; else None, and then none of
        these options may be given."""
        from ..strategy.scojo_config import ScojoConfig
        from .options import OptionError

        if policy in ENGINES:
            return ScojoConfig.from_options(policy, shares=self.shares, cycle=self.cycle,
                                            smart_backfill=not self.no_smart_backfill, search=self.search,
                                            budget=self.budget, group_sizes=self.group_sizes,
                                            first_level_only=self.first_level_only)
        if (self.shares is not None or self.cycle is not None or self.no_smart_backfill or self.gantt is not None
                or self.gantt_window is not None):
            raise OptionError("--shares, --cycle, --no-smart-backfill and --gantt need --policy scojo")
        if self.search is not None or self.budget is not None or self.group_sizes is not None or self.first_level_only:
            raise OptionError("--search, --budget, --group-sizes and --first-level-only need --policy scojo-opt "
                                "or scojo-bottomline")
        return None

    def window(self):
        """``--gantt-window START,END`` -> (start, end) or None; a clear error for a bad window."""
        return gantt_window_option(self.gantt, self.gantt_window)


#: the SCOJO-PECT options of ``simulate``: parameter -> (type, option), in :class:`ScojoOptions`' order
SCOJO_OPTIONS: dict[str, tuple[Any, Any]] = {
    "shares": (Optional[str], typer.Option(None, "--shares", help="scojo: class shares L,M,S summing to 1 (default 0.73,0.265,0.005).")),
    "cycle": (Optional[float], typer.Option(None, "--cycle", help="scojo: cycle length in seconds (default 3600).")),
    "no_smart_backfill": (bool, typer.Option(False, "--no-smart-backfill", help="scojo: no smart backfilling of other classes.")),
    "gantt": (Optional[Path], typer.Option(None, "--gantt", help="scojo: write a PNG of nodes over time (slices shaded).")),
    "gantt_window": (Optional[str], typer.Option(None, "--gantt-window", metavar="START,END", help="scojo: time window of the --gantt chart, in SECONDS on the trace's clock (default: 6 hours from the first submit; 'plot --window-start' takes days).")),
    "search": (Optional[str], typer.Option(None, "--search", help="scojo-opt/scojo-bottomline: tree search lds or dds (default dds).")),
    "budget": (Optional[int], typer.Option(None, "--budget", help="scojo-opt/scojo-bottomline: schedules per search decision (default 10000).")),
    "group_sizes": (Optional[str], typer.Option(None, "--group-sizes", help="scojo-opt: largest long,medium group (default 30,20).")),
    "first_level_only": (bool, typer.Option(False, "--first-level-only", help="scojo-opt: no second search level.")),
}


def with_scojo_options(command):
    """``command`` with :data:`SCOJO_OPTIONS` in its Typer signature where it has its parameter
    ``scojo``, received there as one :class:`ScojoOptions` (as :func:`.options.with_trace_options`)."""
    from .options import spliced

    return spliced(command, "scojo", SCOJO_OPTIONS, lambda values: ScojoOptions(**values))


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
