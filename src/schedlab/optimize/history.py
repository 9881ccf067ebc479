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
