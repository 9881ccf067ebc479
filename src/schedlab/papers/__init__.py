"""One record of the papers' experimental set-ups (issue 34 item 1): ``setups.toml`` and its loader.

Each entry names one experiment after its paper and table or figure (``ge/table3``,
``gf/table3/ctc``, ``ng/setup-I``, ``sg/fig4``) and holds its trace(s), machine size, months,
scaling target, load calibration, user-group rule, objective and budgets as data.
:func:`command` turns an entry into the ``schedlab`` argument list that runs it (``schedlab
reproduce NAME``); :func:`paper_sizes` tells ``workload info`` the machine size the papers use for
a trace whose header says another.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..errors import SchedlabError

__all__ = ["SetupError", "Setup", "load_setups", "get_setup", "command", "paper_sizes", "describe", "PAPER_ABBREVIATIONS"]

#: paper file name -> the short name the set-up names start with
PAPER_ABBREVIATIONS = {
    "greedy-es-sorting-criteria": "GE",
    "genetic-fuzzy-rule-based-scheduling": "GF",
    "nsga2-grid-performance-bounds": "NG",
    "slowdown-guided-ga-federation": "SG",
    "group-based-search-scojo-pect": "SCOJO",
}

_FIELDS = {
    "paper": str, "item": str, "verb": str, "args": list, "traces": list, "pass_traces": bool, "procs": int,
    "months": int, "scale_to": int, "calibrate_load": bool, "load_target": str, "groups": str, "objective": str,
    "pass_objective": bool, "options": list, "budgets": dict, "params": dict, "out_option": str, "variant": bool,
    "result": str, "note": str,
}
_REQUIRED = ("paper", "item", "verb", "traces", "objective")
_NAME = re.compile(r"^[a-z]+(/[A-Za-z0-9-]+)+$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: verbs whose --objective takes the entry's objective (the others state it in words only)
_OBJECTIVE_VERBS = {"evolve greedy", "evolve compare", "rules iterative", "rules evolve", "compare"}


class SetupError(SchedlabError, ValueError):
    """A set-up record that does not hold together, or a set-up name or override it does not know."""


@dataclass(frozen=True)
class Setup:
    """One experiment of :file:`setups.toml` (see the file's header for every field)."""

    name: str
    paper: str
    item: str
    verb: str
    traces: tuple[str, ...]
    objective: str
    args: tuple[str, ...] = ()
    pass_traces: bool = True
    procs: int | None = None
    months: int | None = None
    scale_to: int | None = None
    calibrate_load: bool = False
    load_target: str = ""
    groups: str = ""
    pass_objective: bool | None = None
    options: tuple[str, ...] = ()
    budgets: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    out_option: str = "--out"
    variant: bool = False
    result: str = ""
    note: str = ""

    @property
    def short_paper(self) -> str:
        return PAPER_ABBREVIATIONS.get(self.paper, self.paper)


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _distinct_positive(values: list) -> bool:
    """A swept budget's values: at least one, each a positive number, none twice."""
    return bool(values) and all(_positive(v) for v in values) and len(set(values)) == len(values)


def _check_entry(name: str, raw: dict, defaults: dict, where: str) -> Setup:
    if not _NAME.match(name):
        raise SetupError(f"{where}: set-up name {name!r} is not PAPER/ITEM[/...] (letters, digits, '-')")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise SetupError(f"{where}: set-up {name!r} has unknown field(s) {', '.join(unknown)}")
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise SetupError(f"{where}: set-up {name!r} lacks {', '.join(missing)}")
    for key, value in raw.items():
        kind = _FIELDS[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise SetupError(f"{where}: set-up {name!r}: {key} must be a {kind.__name__}, got {value!r}")
        if kind is int and value <= 0:
            raise SetupError(f"{where}: set-up {name!r}: {key} must be positive, got {value}")
        if kind is list and not all(isinstance(v, str) for v in value):
            raise SetupError(f"{where}: set-up {name!r}: {key} must be a list of strings")
    if raw["paper"] not in PAPER_ABBREVIATIONS:
        raise SetupError(f"{where}: set-up {name!r}: unknown paper {raw['paper']!r}; one of {', '.join(PAPER_ABBREVIATIONS)}")
    if not raw["traces"]:
        raise SetupError(f"{where}: set-up {name!r} names no trace")
    if raw.get("calibrate_load") and "scale_to" not in raw:
        raise SetupError(f"{where}: set-up {name!r}: calibrate_load needs scale_to")
    for key, value in raw.get("budgets", {}).items():
        if isinstance(value, list):  # a sweep: the option repeated, once per value
            if not _distinct_positive(value):
                raise SetupError(f"{where}: set-up {name!r}: budget {key} must be a positive number or a list of "
                                 f"distinct positive numbers, got {value!r}")
        elif not _positive(value):
            raise SetupError(f"{where}: set-up {name!r}: budget {key} must be a positive number, got {value!r}")
    params = raw.get("params", {})
    for key, value in params.items():
        if not isinstance(value, str):
            raise SetupError(f"{where}: set-up {name!r}: param {key} must be a string, got {value!r}")
    used = {p for s in [*raw.get("args", []), *raw["traces"], *raw.get("options", [])] for p in _PLACEHOLDER.findall(s)}
    if used - set(params):
        raise SetupError(f"{where}: set-up {name!r}: placeholder(s) {', '.join(sorted(used - set(params)))} have no default in params")
    if set(params) - used:
        raise SetupError(f"{where}: set-up {name!r}: param(s) {', '.join(sorted(set(params) - used))} are used nowhere")
    if set(params) & set(raw.get("budgets", {})):
        raise SetupError(f"{where}: set-up {name!r}: {', '.join(sorted(set(params) & set(raw['budgets'])))} is both a budget and a param")
    groups = raw.get("groups", "")
    groups = defaults.get(f"{groups}_groups", groups)
    tuples = {k: tuple(v) for k, v in raw.items() if _FIELDS[k] is list}
    return Setup(name=name, **{**raw, **tuples, "groups": groups})


def load_setups(path: str | Path | None = None) -> dict[str, Setup]:
    """Every set-up of the record (the packaged ``setups.toml`` unless ``path``), checked, by name."""
    where = "setups.toml" if path is None else str(path)
    source = resources.files(__package__).joinpath("setups.toml") if path is None else Path(path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except OSError as e:
        raise SetupError(f"{where}: cannot read the set-up record ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise SetupError(f"{where}: not valid TOML ({e})") from None
    extra = sorted(set(data) - {"defaults", "setups"})
    if extra:
        raise SetupError(f"{where}: unknown table(s) {', '.join(extra)}; expected [defaults] and [setups.\"NAME\"]")
    defaults = data.get("defaults", {})
    setups = data.get("setups", {})
    if not isinstance(setups, dict) or not setups:
        raise SetupError(f"{where}: no [setups.\"NAME\"] entries")
    return {name: _check_entry(name, raw if isinstance(raw, dict) else {}, defaults, where) for name, raw in setups.items()}


def get_setup(name: str, setups: dict[str, Setup] | None = None) -> Setup:
    """The set-up called ``name``; an unknown name is a SetupError listing the close ones."""
    setups = load_setups() if setups is None else setups
    if name in setups:
        return setups[name]
    near = [n for n in setups if n.startswith(name.split("/")[0] + "/")] or list(setups)
    raise SetupError(f"unknown set-up {name!r}; one of {', '.join(near)} ('schedlab reproduce --list' shows all)")


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def resolve(setup: Setup, overrides: dict[str, str] | None = None) -> tuple[dict, dict]:
    """(budgets, params) of ``setup`` with ``overrides`` (NAME -> text) applied; an override that is
    neither a budget nor a param of the entry, or a budget that is not a positive number, is a SetupError."""
    budgets, params = dict(setup.budgets), dict(setup.params)
    for key, text in (overrides or {}).items():
        if key in budgets:
            swept = isinstance(budgets[key], list)
            try:
                values = [_number(t) for t in text.split(",")] if swept else [_number(text)]
            except ValueError:
                values = []
            if not _distinct_positive(values):  # one value, or a sweep's list
                what = "a list of distinct positive numbers (comma-separated)" if swept else "a positive number"
                raise SetupError(f"--set {key}={text}: budget {key} of {setup.name} must be {what}")
            budgets[key] = values if swept else values[0]
        elif key in params:
            params[key] = text
        else:
            known = ", ".join([*budgets, *params]) or "none"
            raise SetupError(f"--set {key}={text}: {setup.name} has no budget or param {key!r} (it has: {known})")
    return budgets, params


def command(setup: Setup, overrides: dict[str, str] | None = None, out: str | None = None) -> list[str]:
    """The ``schedlab`` argument list (verb first) that runs ``setup``, budgets/params overridden."""
    budgets, params = resolve(setup, overrides)

    def fill(items):
        return [_PLACEHOLDER.sub(lambda m: params[m.group(1)], s) for s in items]

    argv = setup.verb.split() + fill(setup.args)
    if setup.pass_traces:
        argv += fill(setup.traces)
    if setup.procs is not None and setup.pass_traces:
        argv += ["--procs", str(setup.procs)]
    if setup.months is not None:
        argv += ["--months", str(setup.months)]
    if setup.scale_to is not None:
        argv += ["--scale-to", str(setup.scale_to)]
    if setup.calibrate_load:
        argv.append("--calibrate-load")
    pass_objective = setup.verb in _OBJECTIVE_VERBS if setup.pass_objective is None else setup.pass_objective
    if pass_objective:
        argv += ["--objective", setup.objective]
    argv += fill(setup.options)
    for key, value in budgets.items():
        for v in value if isinstance(value, list) else [value]:
            argv += [f"--{key}", str(v)]
    if out is not None:
        if not setup.out_option:
            raise SetupError(f"{setup.name} writes no output folder or file: drop --out")
        argv += [setup.out_option, out]
    elif setup.out_option == "--out":
        raise SetupError(f"{setup.name} writes a run folder: give --out DIR")
    return argv


def paper_sizes(trace_name: str, setups: dict[str, Setup] | None = None) -> dict[int, list[str]]:
    """Machine sizes the papers (not the variants) run the trace ``trace_name`` on -> the papers' short
    names, e.g. ``{430: ['GE', 'GF', 'NG']}`` for CTC-SP2-1996-3.1-cln. A trace matches by its archive name
    (a ``.swf``/``.swf.gz`` suffix and folders ignored)."""
    setups = load_setups() if setups is None else setups
    base = re.sub(r"\.swf(\.gz)?$", "", Path(str(trace_name)).name)
    sizes: dict[int, list[str]] = {}
    for s in setups.values():
        if s.variant or s.procs is None:
            continue
        names = [s.traces[0]]  # procs is the size of an entry's first trace
        if base in names and base:
            papers = sizes.setdefault(s.procs, [])
            if s.short_paper not in papers:
                papers.append(s.short_paper)
    return {k: sorted(v) for k, v in sizes.items()}


def item_text(setup: Setup) -> str:
    """The entry's item with its params' values in place of their ``{name}`` (e.g. sg/fig4's
    "Wk-1..Wk-{wk}" reads "Wk-1..Wk-6"), as ``--list`` and ``--show`` print it."""
    return _PLACEHOLDER.sub(lambda m: str(setup.params.get(m.group(1), m.group(0))), setup.item)


def describe(setup: Setup) -> list[tuple[str, str]]:
    """The set-up as (label, text) rows, for ``reproduce --list NAME`` and result READMEs."""
    rows = [("set-up", setup.name + (" (a variant the papers did not use)" if setup.variant else "")),
            ("paper", f"{setup.paper} ({setup.short_paper}), {item_text(setup)}"),
            ("traces", ", ".join(setup.traces))]
    if setup.procs is not None:
        rows.append(("processors", f"{setup.procs:,}"))
    rows.append(("months", "all" if setup.months is None else str(setup.months)))
    if setup.scale_to is not None:
        rows.append(("scaled to", f"{setup.scale_to:,} processors" + (", load-calibrated" if setup.calibrate_load else ", exact ratio")))
    if setup.load_target:
        rows.append(("load target", setup.load_target))
    if setup.groups:
        rows.append(("user groups", setup.groups))
    rows.append(("objective", setup.objective))
    if setup.budgets:
        rows.append(("budgets", ", ".join(f"{k} {', '.join(map(str, v)) if isinstance(v, list) else v}"
                                          for k, v in setup.budgets.items())))
    if setup.result:
        rows.append(("result", setup.result))
    if setup.note:
        rows.append(("note", setup.note))
    return rows
