"""Stop long runs cleanly on Ctrl-C (SIGINT) and on SIGTERM, the signal batch systems send.

Slurm sends SIGTERM at the time limit (SIGKILL after a grace period), PBS and ``kill`` do the
same. Inside :func:`stop_signals` SIGTERM raises :class:`Terminated`, a ``KeyboardInterrupt``,
so every loop that already stops cleanly on Ctrl-C (checkpoint of the last complete generation
on disk, ``interrupted=True``) stops the same way on SIGTERM. :func:`exit_code` then tells the
CLI which exit code to use: :data:`EXIT_SIGINT` (130) after Ctrl-C, :data:`EXIT_SIGTERM` (143)
after SIGTERM, the shell's ``128 + signal number`` convention.

SIGINT keeps Python's own handler (``KeyboardInterrupt``); where SIGINT is ignored (a
background job of a non-interactive shell, ``nohup``), it stays ignored, as POSIX has it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: exit code after Ctrl-C (128 + SIGINT)
EXIT_SIGINT = 128 + signal.SIGINT
#: exit code after SIGTERM (128 + SIGTERM)
EXIT_SIGTERM = 128 + signal.SIGTERM

_last: list[int] = []  # the signals that stopped a run in this process, latest last
_pending: list[int] = []  # SIGTERMs whose Terminated no loop has handled yet (see raise_pending)


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM arrives inside :func:`stop_signals`."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stop_in(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM (a :class:`KeyboardInterrupt`) behind ``exc``, else None.

    A signal handler runs wherever the main thread is. When that is Python code called from a C
    extension (numba's dispatcher unpickling a constant, a NumPy callback), the extension reports
    the handler's exception as a ``SystemError`` whose ``__cause__`` is the ``KeyboardInterrupt``;
    every place that stops cleanly on Ctrl-C asks this function instead of catching
    ``KeyboardInterrupt`` alone, so such a stop is still a stop.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            _pending.clear()  # handled: no longer pending (raise_pending)
            return exc
        if not isinstance(exc, SystemError):  # only the C-call wrapper hides a stop
            return None
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _on_sigterm(signum, frame) -> None:
    _last.append(signum)
    _pending.append(signum)
    raise Terminated(signum)


def raise_pending() -> None:
    """Raise the SIGTERM that arrived but was swallowed; nothing when there is none.

    When the handler runs inside a ``__del__`` or a weakref callback (the garbage collector runs
    those wherever an allocation triggers it), Python prints "Exception ignored" and goes on: the
    run would not stop. A loop calls this between its steps, so such a SIGTERM stops it at the next
    step, as any other would. A stop that a loop handled is no longer pending (:func:`stop_in`).
    """
    if _pending:
        signum = _pending[-1]
        _pending.clear()
        raise Terminated(signum)


@contextmanager
def stop_signals() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while the block runs (main thread only; nests)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is _on_sigterm:
        yield
        return
    _last.clear()
    _pending.clear()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_reason(exc: BaseException | None = None) -> str:
    """``SIGTERM`` or ``Ctrl-C``: what stopped the run (``exc``, else the latest signal seen)."""
    return "SIGTERM" if exit_code(exc) == EXIT_SIGTERM else "Ctrl-C"


def exit_code(exc: BaseException | None = None) -> int:
    """143 if SIGTERM stopped the run (``exc`` a :class:`Terminated`, else the latest signal seen), else 130."""
    exc = stop_in(exc) or exc
    if isinstance(exc, Terminated) or (exc is None and _last and _last[-1] == signal.SIGTERM):
        return EXIT_SIGTERM
    return EXIT_SIGINT
