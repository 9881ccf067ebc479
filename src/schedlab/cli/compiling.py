"""Compile the numba kernels a command needs before anything is timed, saying so while it lasts.

The first run after an install or an upgrade compiles the kernels (tens of seconds; numba then
keeps them in ``$SCHEDLAB_CACHE_DIR``, see :mod:`schedlab._config`). A command warms up on a
few jobs of its own trace, so only the kernels it uses, with the argument types it uses, are
compiled or loaded, and its timings (``sim_seconds``) never include compilation: the warm-up
time is reported apart (``compile_seconds``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: say so only when the warm-up lasts longer than this (kernels cached on disk load in about a second)
NOTICE_AFTER = 2.0
#: jobs of the command's own trace the warm-up simulates
WARM_JOBS = 8


def warm_up(what: str, fn: Callable[[], Any], *, stream=None) -> float:
    """Run ``fn`` (a tiny simulation); if it lasts over :data:`NOTICE_AFTER` s, one line says kernels
    compile, finished by the time taken (or by "interrupted" when ``fn`` did not finish: Ctrl-C).
    Returns the seconds ``fn`` took."""
    return say_while(f"compiling the {what} kernels (once after an install or upgrade; later runs load them)", fn,
                     stream=stream)[1]


def say_while(text: str, fn: Callable[[], Any], *, stream=None) -> tuple[Any, float]:
    """Run ``fn``; if it lasts over :data:`NOTICE_AFTER` s, the line ``text ...`` says what is under way
    (a command is never silent for long before its first progress line, issue 43), finished by the
    time taken (or "interrupted"). Returns (what ``fn`` returned, its seconds)."""
    stream = stream or sys.stderr
    shown = threading.Event()
    out = None

    def notice() -> None:
        shown.set()
        stream.write(f"{text} ...")
        stream.flush()

    timer = threading.Timer(NOTICE_AFTER, notice)
    timer.daemon = True
    t0 = time.perf_counter()
    timer.start()
    done = False
    try:
        out = fn()
        done = True
    finally:
        timer.cancel()
        seconds = time.perf_counter() - t0
        if shown.is_set():
            stream.write(f" done in {seconds:.1f} s\n" if done else f" interrupted after {seconds:.1f} s\n")
            stream.flush()
    return out, seconds


def tiny_workload():
    """Four hand-made jobs in user groups 1-4 on a 4-processor machine (a week apart, so a greedy order
    meets every time-of-week class): the argument types of every real trace."""
    from ..workload.model import Workload

    week = 7 * 86400.0
    return Workload.from_columns(
        {"submit": [0.0, 1.0, week, 2 * week], "runtime": [10.0, 5.0, 7.0, 3.0], "estimate": [20.0, 5.0, 9.0, 4.0],
         "procs": [2, 4, 1, 3], "user": [1, 2, 3, 4], "group": [1, 2, 3, 4]},
        machine_procs=4, name="warm-up",
    )


def warm_simulation(workload, procs: int | None, strategies, *, kill: bool = True) -> float:
    """Simulate each strategy on the first :data:`WARM_JOBS` jobs of ``workload`` (None: :func:`tiny_workload`):
    compiles (or loads) the engine for exactly these strategies and argument types; the seconds it took."""
    import numpy as np

    from ..sim.model import Machine
    from ..sim.strategies import simulate_any

    if workload is None:
        workload = tiny_workload()
        procs = workload.machine_procs
    tiny = workload.take(np.arange(min(len(workload), WARM_JOBS)))
    machine = Machine(procs)

    def run() -> None:
        for strategy in strategies:
            simulate_any(tiny, machine, strategy, kill=kill)  # rigid, --policy scojo or a rule base

    return warm_up("simulation", run)


def warm_grid(trace, exchanges) -> float:
    """Simulate each exchange policy on the first jobs of every site of ``trace`` (a GridTrace)."""
    import numpy as np

    from ..grid.sim import GridTrace, Site, simulate_grid

    sites = []
    for k, (name, procs) in enumerate(zip(trace.names, trace.site_procs)):
        own = np.flatnonzero(trace.origin == k)[:WARM_JOBS]
        sites.append(Site(name, trace.workload.take(own), int(procs)))
    tiny = GridTrace.merge(sites)

    def run() -> None:
        for exchange in exchanges:
            simulate_grid(tiny, exchange)

    return warm_up("grid simulation", run)
