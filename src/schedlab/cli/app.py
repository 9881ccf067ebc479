"""The `schedlab` Typer app, its verbs' sub-command groups and the stop line of long runs: below every
verb module (cli/simulate.py, cli/evolve.py, ...), which register their commands here on import;
cli/main.py imports the verbs and runs the app."""

from __future__ import annotations

import typer
import typer.core

def _flag_type(self, ctx):
    """The help's type column: none for an on/off flag (``--json``), which takes no value; typer
    shows ``<bool>`` there, which reads as ``--json true`` (refused: "got unexpected extra
    argument") (issue 43). Other options as typer shows them."""
    if getattr(self, "is_flag", False) and not getattr(self, "count", False):
        return None
    return _typer_type(self, ctx)


_typer_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type

#: every group and command: no arguments shows the help, -h is --help, plain tracebacks off
_FLAGS = {"no_args_is_help": True, "add_completion": False, "pretty_exceptions_enable": False,
          "context_settings": {"help_option_names": ["-h", "--help"]}}

app = typer.Typer(
    name="schedlab",
    help="Develop online scheduling strategies for parallel machines and grids on real workload traces.",
    **_FLAGS,
)


def version() -> str:
    """schedlab's installed version (and the git commit when run from a checkout)."""
    from importlib import metadata

    try:
        text = metadata.version("schedlab")
    except metadata.PackageNotFoundError:  # pragma: no cover - source tree without install
        text = "unknown"
    return text


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"schedlab {version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                      help="Print schedlab's version and exit."),
) -> None:
    """Develop online scheduling strategies for parallel machines and grids on real workload traces."""


def sub_app(name: str, help: str) -> typer.Typer:
    """A verb's sub-command group (``schedlab NAME ...``), registered on :data:`app`."""
    sub = typer.Typer(name=name, help=help, **_FLAGS)
    app.add_typer(sub, name=name)
    return sub


_stop_reported: list[bool] = []


def stopped(what: str) -> typer.Exit:
    """One line saying what a stop by Ctrl-C or SIGTERM left behind; the Exit to raise (130 / 143)."""
    from .._signals import exit_code, stop_reason

    _stop_reported.append(True)
    typer.echo(f"interrupted by {stop_reason()}: {what}", err=True)
    return typer.Exit(exit_code())
