"""schedlab.execute: the Executor seam (serial, local processes, Dask) — see DESIGN.md."""

from .executors import (
    DaskExecutor,
    Executor,
    ExecutorError,
    ProcessExecutor,
    SerialExecutor,
    make_executor,
)

__all__ = ["DaskExecutor", "Executor", "ExecutorError", "ProcessExecutor", "SerialExecutor", "make_executor"]
