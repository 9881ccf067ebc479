"""Errors that schedlab reports to people: each renders as one clear line.

The CLI catches :class:`SchedlabError` and prints ``str(error)`` alone (exit code 2), never a
traceback. Library users may catch the specific subclasses.
"""

from __future__ import annotations


class SchedlabError(Exception):
    """Base class of every error schedlab raises on bad input."""


class SWFError(SchedlabError, ValueError):
    """A Standard Workload Format file that cannot be read, naming file, line and problem."""

    def __init__(self, path: object, line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


class WorkloadError(SchedlabError, ValueError):
    """A workload that cannot be used as asked (e.g. unclean for simulation, wider than the machine)."""


class StrategyError(SchedlabError, ValueError):
    """An unknown or malformed strategy (policy, order, criterion, parameters)."""


class ObjectiveError(SchedlabError, ValueError):
    """An objective expression that cannot be parsed or names an unknown metric."""


class RunError(SchedlabError):
    """A run folder that cannot be used (unwritable, or holding a run of a different config)."""


class OutputError(SchedlabError, OSError):
    """An output file or folder that cannot be written (missing folder, a file in the way, read-only,
    disk full), naming the path. Still an OSError, so code that handles write failures keeps working."""

    def __init__(self, message: str, cause: OSError | None = None, reason: str | None = None) -> None:
        # errno of the cause; strerror the reason in words, for callers that wrap it in their own message
        super().__init__(getattr(cause, "errno", None), reason or getattr(cause, "strerror", None) or message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class TraceNote(UserWarning):
    """Something a person should know about a trace that is no error (jobs the cleaning dropped, a header
    machine far wider than any job, a window reaching past the trace): issued with :func:`warnings.warn`,
    printed by the CLI as one ``note:`` line on stderr."""
