"""Atomic file writes: a temporary file in the target's folder, then ``os.replace``.

Every file schedlab writes for a person (SWF traces, schedules, tables, run folders, figures)
goes through here, so an interrupted write never leaves a half-written file behind.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, os.replace)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically (newlines as given)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def save_figure_atomic(fig: Any, path: str | os.PathLike, **savefig_kwargs: Any) -> Path:
    """Render a matplotlib figure to PNG in memory, then write it atomically."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **savefig_kwargs)
    return atomic_write_bytes(path, buf.getvalue())
