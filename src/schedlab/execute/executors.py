"""The Executor seam: evaluate a pure function over many items serially, on local processes or Dask.

Every executor holds one heavy, read-only *payload* (e.g. the training Workloads) that reaches
each worker exactly ONCE — through the process-pool initializer, or by one Dask ``scatter`` with
``broadcast=True`` — never per task. ``map(fn, items)`` then returns ``[fn(payload, item) for item
in items]`` in item order (``progress(k)``, if given, is called as the k-th result arrives). ``fn`` must be a picklable top-level function and a pure function of
``(payload, item)``: randomness lives only in the optimizer on the driver, so a run gives the same
results on every executor and every worker count.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from .._signals import stop_in
from ..errors import SchedlabError

#: the payload installed in this worker process by :func:`_install_payload`
_WORKER_PAYLOAD: Any = None


class ExecutorError(SchedlabError):
    """An executor that cannot be created as asked (bad spec, unreachable Dask scheduler)."""


@runtime_checkable
class Executor(Protocol):
    """Maps ``fn(payload, item)`` over items, results in item order; a context manager."""

    payload: Any

    def map(
        self, fn: Callable[[Any, Any], Any], items: Iterable[Any], *, progress: Callable[[int], None] | None = None
    ) -> list[Any]: ...

    def close(self) -> None: ...

    def __enter__(self) -> "Executor": ...

    def __exit__(self, *exc: object) -> None: ...


class _Base:
    payload: Any = None
    workers: int = 1

    def close(self) -> None:  # pragma: no cover - trivial
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        return type(self).__name__


class SerialExecutor(_Base):
    """Evaluates in this process, one item after the other (the reference executor)."""

    def __init__(self, payload: Any = None) -> None:
        self.payload = payload

    def map(
        self, fn: Callable[[Any, Any], Any], items: Iterable[Any], *, progress: Callable[[int], None] | None = None
    ) -> list[Any]:
        out = []
        for item in items:
            out.append(fn(self.payload, item))
            if progress is not None:
                progress(len(out))
        return out

    def describe(self) -> str:
        return "serial"


def _install_payload(payload: Any) -> None:
    """Process-pool initializer: keep the payload for every later task; leave Ctrl-C and SIGTERM to the driver.

    A batch system stopping a job sends SIGTERM to all its processes; the workers ignore it so that
    the driver, not a broken pool, decides how the run ends (it checkpoints, then kills them).
    """
    global _WORKER_PAYLOAD
    _WORKER_PAYLOAD = payload
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: a worker gets SIGKILL when its driver dies (e.g. SIGKILLed), instead of idling orphaned."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux / no glibc: workers exit when their queue breaks
        pass


def _call_with_worker_payload(fn: Callable[[Any, Any], Any], item: Any) -> Any:
    return fn(_WORKER_PAYLOAD, item)


#: local worker processes per core beyond which a pool only thrashes (and, started by fork, a
#: mistyped count would start that many processes at once)
WORKERS_PER_CORE = 4


def max_local_workers() -> int:
    """The largest local pool :class:`ProcessExecutor` starts: :data:`WORKERS_PER_CORE` per core."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_local_workers(workers: int, flag: str = "") -> None:
    """Refuse a local pool larger than :func:`max_local_workers` (``flag``: the option that gave it)."""
    if workers > max_local_workers():
        raise ExecutorError(
            f"{workers} worker processes{f' ({flag})' if flag else ''} on a machine of {os.cpu_count() or 1} "
            f"cores: at most {max_local_workers()} ({WORKERS_PER_CORE} per core); use a Dask cluster for more"
        )


class ProcessExecutor(_Base):
    """A local pool of ``workers`` processes (None: all cores); the payload is sent once per worker."""

    def __init__(self, workers: int | None = None, payload: Any = None) -> None:
        from concurrent.futures import ProcessPoolExecutor

        if workers is None:
            workers = os.cpu_count() or 1
        if int(workers) != workers or workers < 1:
            raise ExecutorError(f"number of worker processes must be a positive whole number, got {workers!r}")
        check_local_workers(workers)
        self.workers = int(workers)
        self.payload = payload
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, initializer=_install_payload, initargs=(payload,)
        )

    def map(
        self, fn: Callable[[Any, Any], Any], items: Iterable[Any], *, progress: Callable[[int], None] | None = None
    ) -> list[Any]:
        from concurrent.futures import as_completed

        items = list(items)
        futures = [self._pool.submit(_call_with_worker_payload, fn, item) for item in items]
        try:
            if progress is not None:
                for done, _ in enumerate(as_completed(futures), 1):
                    progress(done)
            return [f.result() for f in futures]
        except BaseException as exc:
            if stop_in(exc) is None:
                for f in futures:
                    f.cancel()
                raise
            self._abort()  # Ctrl-C: do not wait for evaluations in flight, their results are discarded
            raise

    def _abort(self) -> None:
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            proc.kill()  # workers ignore SIGTERM (see _install_payload)
        for proc in processes:
            proc.join(5)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def describe(self) -> str:
        return f"processes:{self.workers}"


def _call_with_scattered_payload(fn: Callable[[Any, Any], Any], item: Any, payload: Any) -> Any:
    return fn(payload, item)


class DaskExecutor(_Base):
    """A dask.distributed cluster: ``address`` (tcp://host:port) or ``scheduler_file``; neither = a LocalCluster.

    The payload is scattered once with ``broadcast=True`` so every worker holds a copy; tasks refer
    to it by its future, so it is not serialised again per task.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        scheduler_file: str | None = None,
        payload: Any = None,
        n_workers: int | None = None,
    ) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dependency is declared
            raise ExecutorError("the Dask executor needs the 'distributed' package") from exc
        self._cluster = None
        try:
            if address is not None:
                self._client = Client(address, timeout="20s")
            elif scheduler_file is not None:
                if not os.path.exists(scheduler_file):
                    raise ExecutorError(f"{scheduler_file}: Dask scheduler file does not exist")
                self._client = Client(scheduler_file=scheduler_file, timeout="20s")
            else:
                self._cluster = LocalCluster(
                    n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True
                )
                self._client = Client(self._cluster)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(f"cannot connect to the Dask scheduler {address or scheduler_file}: {exc}") from exc
        self.address = address or scheduler_file or "local"
        self.payload = payload
        self._payload_future = self._client.scatter(payload, broadcast=True) if payload is not None else None
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))

    def map(
        self, fn: Callable[[Any, Any], Any], items: Iterable[Any], *, progress: Callable[[int], None] | None = None
    ) -> list[Any]:
        from distributed import as_completed

        items = list(items)
        futures = [
            self._client.submit(_call_with_scattered_payload, fn, item, self._payload_future, pure=False)
            for item in items
        ]
        try:
            if progress is not None:
                for done, _ in enumerate(as_completed(futures), 1):
                    progress(done)
            return self._client.gather(futures)
        except BaseException:
            self._client.cancel(futures)
            raise

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def describe(self) -> str:
        return f"dask:{self.address}"


def make_executor(
    spec: str | None = None, *, workers: int | None = None, payload: Any = None
) -> SerialExecutor | ProcessExecutor | DaskExecutor:
    """Build an executor from a spec: ``serial``, ``processes`` / ``processes:N``, ``dask`` (a local
    cluster), ``dask:tcp://host:port`` or ``dask:/path/scheduler.json`` (a scheduler file).

    ``spec=None`` means local processes with ``workers`` workers (None: all cores; 1: serial).
    """
    if spec is None or spec == "":
        if workers == 1:
            return SerialExecutor(payload)
        return ProcessExecutor(workers, payload)
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "serial" and not arg:
        return SerialExecutor(payload)
    if kind in ("processes", "process", "local"):
        if arg:
            try:
                workers = int(arg)
            except ValueError as exc:
                raise ExecutorError(f"executor spec {spec!r}: worker count {arg!r} is not a whole number") from exc
        return ProcessExecutor(workers, payload)
    if kind == "dask":
        if not arg:
            return DaskExecutor(payload=payload, n_workers=workers)
        if arg.endswith(".json") or os.path.exists(arg):
            return DaskExecutor(scheduler_file=arg, payload=payload)
        return DaskExecutor(arg, payload=payload)
    if kind in ("tcp", "tls", "inproc", "ucx"):
        return DaskExecutor(spec, payload=payload)
    raise ExecutorError(f"unknown executor {spec!r}; use serial, processes[:N], dask or dask:ADDRESS")
