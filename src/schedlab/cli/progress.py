"""Progress of the long runs on stderr, one renderer for every verb (evolve, rules, bound, grid
pareto, federation).

On a terminal: a Rich bar per (sub-)run with its label, ``gen 3/10`` (the federation GA: ``package 2/5
gen 3/10``), the run's figures and an ETA.
Otherwise (CI, a batch system's job log): one plain line per generation, e.g.
``symbiotic  gen 3/10  evals 240  best 1.23457e+06  elapsed 12 s``, so a log shows that a run lives
and how far it is without a bar's redraws. Runs whose generations take milliseconds (the
federation GA) print at most one line every ``every`` seconds (:data:`PLAIN_EVERY`), the first
and the last generation always. A generation that takes long (rule-base or greedy runs on large
traces) also gets a line every :data:`HEARTBEAT` seconds from the evaluations finished within it,
e.g. ``symbiotic  gen 4/10 running: 42 % of its evaluations done``.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

#: in plain mode, the shortest time between two lines of a run of quick generations (``every``)
PLAIN_EVERY = 10.0


#: in plain mode, a line at least this often (seconds) while one generation's evaluations run
HEARTBEAT = 60.0


def _interactive(console) -> bool:
    return bool(console.is_terminal and not console.is_dumb_terminal)


class RunProgress:
    """Progress of one command's runs: :meth:`start` a run, :meth:`step` after each generation (or
    class, ``unit``), :meth:`advance` within one (the bar only), :meth:`stop` at the end."""

    def __init__(self, unit: str = "gen", *, every: float = 0.0, terminal: Optional[bool] = None,
                 heartbeat: float = HEARTBEAT) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.terminal = _interactive(self.console) if terminal is None else terminal
        self.unit, self.every, self.heartbeat = unit, every, heartbeat
        self.runs: dict[str, dict[str, Any]] = {}
        self.bar = None

    def start(self, label: str, total: int, done: int = 0, text: str = "-", count=None) -> None:
        """A run of ``total`` generations, ``done`` of them already (a resumed run); ``count(done,
        total)`` says how far it is (default ``gen 3/10``; a run of several searches says which, e.g.
        the federation GA's ``package 2/5 gen 3/10``)."""
        now = time.monotonic()
        count = count or (lambda d, t: f"{self.unit} {d}/{t}")
        run = self.runs[label] = {"total": int(total), "done": int(done), "t0": now, "shown": None, "beat": now,
                                  "count": count}
        if not self.terminal:
            return
        if self.bar is None:  # shown only once the run folder is accepted and the run begins
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                TextColumn("{task.fields[count]}"),
                                TextColumn("{task.fields[text]}"), TimeRemainingColumn(), console=self.console)
            self.bar.start()
        run["task"] = self.bar.add_task(label, total=total, completed=done, count=count(int(done), int(total)), text=text)

    def advance(self, label: str, completed: float) -> None:
        """``completed`` generations including a fraction of the running one (a smooth bar and ETA;
        without a terminal a line every ``heartbeat`` seconds)."""
        if label not in self.runs:
            return
        run = self.runs[label]
        if self.terminal:
            self.bar.update(run["task"], completed=completed)
            return
        now = time.monotonic()
        if now - run["beat"] >= self.heartbeat:
            run["beat"] = now
            running = int(completed) + 1
            share = 100.0 * (completed - int(completed))
            self._write(f"{label}  {run['count'](running, run['total'])} running: {share:.0f} % of its evaluations done"
                        f"  ({now - run['t0']:.0f} s since start)")

    def step(self, label: str, text: str, done: Optional[int] = None, elapsed: Optional[float] = None) -> None:
        """Generation ``done`` (default: one more) of run ``label`` finished; ``text`` its figures,
        ``elapsed`` the run's seconds so far (default: since :meth:`start`)."""
        run = self.runs[label]
        run["done"] = done = int(done) if done is not None else run["done"] + 1
        if self.terminal:
            self.bar.update(run["task"], completed=done, count=run["count"](done, run["total"]), text=text)
            return
        now = time.monotonic()
        if run["shown"] is not None and done < run["total"] and now - run["shown"] < self.every:
            return
        run["shown"] = run["beat"] = now
        seconds = elapsed if elapsed is not None else now - run["t0"]
        self._write(f"{label}  {run['count'](done, run['total'])}  {text}  elapsed {seconds:.0f} s")

    @staticmethod
    def _write(line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class EvaluationProgress:
    """evolve's and ``rules evolve``'s callbacks on the shared renderer (:class:`RunProgress`):
    generation, evaluations, best objective, ETA per (sub-)run."""

    def __init__(self, lam: int) -> None:
        self.lam = lam
        self.view = RunProgress()

    def stop(self) -> None:
        self.view.stop()

    def start(self, label: str, total: int, done: int) -> None:
        self.view.start(label, total, done)

    def tick(self, label: str, generations: int, evaluations: int) -> None:
        """One more evaluation finished: advance by a fraction of a generation (smooth ETA)."""
        in_flight = evaluations - generations * self.lam
        self.view.advance(label, generations + in_flight / self.lam)

    def step(self, label: str, row: dict[str, Any]) -> None:
        self.view.step(label, f"evals {row['evaluations']}  best {row['best']:.6g}", done=row["gen"],
                       elapsed=row.get("elapsed"))
