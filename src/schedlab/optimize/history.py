"""The one history.csv writer of every optimizer (issue 36, "one optimization loop").

Each optimizer declares only its columns (in order); how a row becomes a line is decided here, once:

* a column a row lacks, or holds None, is empty (e.g. the held-out scores before they exist, the
  strategy values of a class the iterative GFS does not simulate);
* ``elapsed`` (wall seconds) is written ``%.3f`` unless ``elapsed_format`` is None;
* a float (numpy's float64 too) is ``repr(float(v))``, which reads back to the same float;
* anything else is ``str(v)`` (ints, bools, names), quoted by the csv module where it must be.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: the wall-time column of every history (left out of comparisons of two runs' histories)
ELAPSED = "elapsed"


def _cell(column: str, value: Any, elapsed_format: str | None) -> Any:
    if value is None:
        return ""
    if column == ELAPSED and elapsed_format is not None:
        return format(value, elapsed_format)
    if isinstance(value, float):
        return repr(float(value))
    return value


def history_csv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str], *, elapsed_format: str | None = ".3f") -> str:
    """history.csv text: a header of ``columns``, then one line per row (cells as the module says)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(c, row.get(c), elapsed_format) for c in columns])
    return buf.getvalue()


def _read_cell(text: str) -> Any:
    """A cell of :func:`history_csv` back: empty -> None, a whole number -> int, a number -> float, else text."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_history(path) -> list[dict[str, Any]]:
    """The rows of a history.csv (or any CSV :func:`history_csv` wrote, e.g. a grid run's points.csv)
    as dicts, the cells read back as :func:`_read_cell` says."""
    with open(path, newline="") as fh:
        return [{k: _read_cell(v) for k, v in row.items()} for row in csv.DictReader(fh)]
