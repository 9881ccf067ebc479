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


def output_problem(path: str | os.PathLike, *, folder: bool = False) -> str | None:
    """Why ``path`` cannot be written, in words, or None when it can as far as can be told before
    writing. A file's folder must exist; a ``folder`` output may be missing (it is made with its
    parents) but not sit below a file. Checked before any work so that nothing is simulated for an
    output that cannot be written (os.access cannot tell root that a read-only folder is read-only:
    the write itself then fails with :class:`~schedlab.errors.OutputError`)."""
    path = Path(path)
    if folder and path.exists() and not path.is_dir():
        return f"{path} is a file, not a folder"
    if not folder and path.is_dir():
        return f"{path} is a folder, not a file name"
    base = path if folder else path.parent
    first = base
    while not first.exists() and first != first.parent:
        first = first.parent
    if first.exists() and not first.is_dir():
        return f"{first} is a file, not a folder"
    if first != base and not folder:
        return f"folder {base} does not exist"
    if not os.access(first, os.W_OK):
        return f"folder {first} is not writable"
    return None


def output_error(path: str | os.PathLike, exc: OSError, what: str = "") -> OSError:
    """The one-line :class:`~schedlab.errors.OutputError` for a failed write of ``path`` (``what``:
    e.g. 'plot'), saying why in words where it can (missing folder, a file in the way)."""
    from .errors import OutputError

    if isinstance(exc, OutputError):
        return exc
    reason = (output_problem(path) if isinstance(exc, (FileNotFoundError, NotADirectoryError)) else None) or (
        exc.strerror or str(exc))
    return OutputError(f"{path}: cannot write{f' the {what}' if what else ''}: {reason}", exc, reason)


def make_folder(path: str | os.PathLike, what: str = "") -> Path:
    """Create the output folder ``path`` with its parents (fine when it exists); a failure is an
    :class:`~schedlab.errors.OutputError` naming it."""
    from .errors import OutputError

    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = output_problem(path, folder=True) or exc.strerror or str(exc)
        raise OutputError(f"{path}: cannot create the {what or 'output'} folder: {reason}", exc, reason) from None
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, os.replace); a
    failure is an :class:`~schedlab.errors.OutputError` (an OSError) naming ``path``."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise output_error(path, exc) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600 files
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise output_error(path, exc) from exc
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
