"""A user's dynamic queue key or dispatch rule, compiled by us with numba to a declared signature
(issue 36 item 2): the engine calls it through one first-class function type, so one compiled
engine serves every user function and the user's file needs no numba of its own.

The user writes a plain Python function whose parameters are names from :data:`KEY_FIELDS` (a
dynamic queue key, one job at a time) or :data:`RULE_FIELDS` (a dispatch rule, the whole queue at
once), in any order and any subset; we compile it with ``numba.njit`` (numpy's error model:
x / 0 gives inf or nan, not an exception) and wrap it in a ``numba.cfunc`` of the full signature
that passes each parameter by name and turns an exception of the user's code into a failure value
(:data:`FAILED`; an exception cannot cross a cfunc). A function that numba
cannot compile, or a parameter outside the declared names, is a one-line
:class:`~schedlab.errors.StrategyError` naming the file, the function and (where numba gives one)
its line.
"""

from __future__ import annotations

import inspect
import re

import numpy as np

from ..errors import StrategyError

#: a dynamic key's parameters: (name, numba type name, meaning); the key returns one finite float
#: (smaller first; ties by submit order), recomputed for every waiting job at every pass
KEY_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("width", "int64", "the job's processors"),
    ("estimate", "float64", "the job's runtime estimate (s)"),
    ("group", "int64", "the job's user group 0..5"),
    ("submit", "float64", "the job's submit time"),
    ("wait", "float64", "now - submit"),
    ("now", "float64", "the time of the pass"),
    ("free", "int64", "free processors before the pass starts anything"),
    ("queued", "int64", "waiting jobs at the pass (this one included)"),
    ("machine", "int64", "the machine's processors"),
)
#: a dispatch rule's parameters: the waiting jobs in queue order (arrays, copies), the machine, the
#: running jobs by estimated end, and ``start``: set ``start[i] = 1`` to start the i-th waiting job now
#: (what the rule returns is ignored)
RULE_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("width", "int64[:]", "processors of each waiting job, in queue order"),
    ("estimate", "float64[:]", "runtime estimate of each waiting job"),
    ("wait", "float64[:]", "now - submit of each waiting job"),
    ("group", "int64[:]", "user group of each waiting job"),
    ("now", "float64", "the time of the pass"),
    ("free", "int64", "free processors now"),
    ("machine", "int64", "the machine's processors"),
    ("run_end", "float64[:]", "running jobs' estimated ends max(start + estimate, now), ascending"),
    ("run_width", "int64[:]", "processors of those running jobs"),
    ("start", "int64[:]", "out: 1 at position i starts the i-th waiting job now (all 0 on entry)"),
)


#: what the wrapper returns when the user's code raises: a key NaN (refused as not finite), a rule 1
#: (its result is 0 otherwise); the engine turns either into a one-line error (:mod:`schedlab.sim.user`)
FAILED = {"float64": "np.nan", "int64": "1"}


def signature(fields, result: str):
    """The numba signature ``result(field types...)``."""
    from numba import types

    def typ(name):
        if name.endswith("[:]"):
            return getattr(types, name[:-3])[:]
        return getattr(types, name)

    return typ(result)(*(typ(t) for _, t, _ in fields))


#: a static queue key's parameters (:func:`schedlab.strategy.register_order`): numpy arrays of every
#: job, passed by name, any subset in any order
STATIC_FIELDS: tuple[str, ...] = ("width", "estimate", "group", "rank", "submit")


def parameters(fn, names, *, what: str, where: str, required: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The parameter names of the user's function ``fn``, each one of ``names`` (the caller passes
    them by name, so their order is the user's); a parameter outside ``names``, with a default or
    variadic, a missing ``required`` one, or no Python signature at all is a one-line
    :class:`~schedlab.errors.StrategyError` naming ``where`` (the file), ``what`` and the function."""
    head = f"{where}: {what}: {getattr(fn, '__name__', repr(fn))}"
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise StrategyError(f"{head}: not a Python function (write a def over {', '.join(names)})") from None
    taken = []
    for p in params:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or p.default is not p.empty:
            raise StrategyError(f"{head}: parameter {p.name!r} must be a plain one without a default")
        if p.name not in names:
            raise StrategyError(f"{head}: unknown parameter {p.name!r}; it may take any of {', '.join(names)}")
        taken.append(p.name)
    missing = [r for r in required if r not in taken]
    if missing:
        raise StrategyError(f"{head}: must take {', '.join(map(repr, missing))}")
    return tuple(taken)


def compile_user(fn, fields, result: str, *, what: str, where: str, required: tuple[str, ...] = ()):
    """``fn`` (plain Python over some of ``fields``' names) compiled to a cfunc of every field, in
    order; ``what`` (e.g. ``"queue order 'x'"``) and ``where`` (its file) name it in errors."""
    import numba

    name = getattr(fn, "__name__", repr(fn))
    names = [f for f, _, _ in fields]
    taken = parameters(fn, names, what=what, where=where, required=required)
    call = f"_user({', '.join(f'{p}={p}' for p in taken)})"
    body = f"return {call}" if result != "int64" else f"{call}\n        return 0"
    source = (f"def _wrapped({', '.join(names)}):\n    try:\n        {body}\n"
              f"    except Exception:\n        return {FAILED[result]}\n")
    scope: dict = {}
    try:
        user = numba.njit(error_model="numpy")(getattr(fn, "py_func", fn))  # x / 0 gives inf or nan, as numpy
        exec(source, {"_user": user, "np": np}, scope)  # noqa: S102  (our own wrapper, from declared names)
        return numba.cfunc(signature(fields, result))(scope["_wrapped"])
    except Exception as exc:  # numba's typing and lowering errors: one line, with the user's line
        raise StrategyError(f"{_line(exc, where) or where}: {what}: {name} does not compile with numba "
                            f"for {result}({', '.join(f'{f}: {t}' for f, t, _ in fields if f in taken)}): "
                            f"{_first_line(exc)}") from None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _first_line(exc: BaseException) -> str:
    """The telling line of a numba error (not its 'Failed in ... pipeline' banner)."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    for ln in lines:
        if not ln.startswith(("Failed in", "During:", "File ", "- Resolution failure", "Rewrite")):
            return ln.rstrip(":")
    return lines[0] if lines else type(exc).__name__


def _line(exc: BaseException, where: str) -> str | None:
    """``where:LINE`` from the first 'File "<where>", line N' numba quotes, if any."""
    import os

    for m in re.finditer(r'File "([^"]+)", line (\d+)', _ANSI.sub("", str(exc))):
        if where and os.path.abspath(m.group(1)) == os.path.abspath(where):
            return f"{where}:{m.group(2)}"
    return None
