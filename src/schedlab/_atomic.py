"""Atomic file writes: a temporary file in the target's folder, then ``os.replace``.

Every file schedlab writes for a person (SWF traces, schedules, tables, run folders, figures)
goes through here, so an interrupted write never leaves a half-written file behind. The file gets
the mode an ordinary ``open(path, "w")`` would give it (0666 less the umask), not the 0600 of a
temporary file, so colleagues and web servers can read reports as the user's umask allows.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    """The process umask, read without changing it where Linux tells it (else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, os.replace)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600 files
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
