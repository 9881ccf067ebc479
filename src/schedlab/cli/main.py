"""The `schedlab` command: a thin Typer layer over the API. Bad input -> one line, exit 2."""

from __future__ import annotations

import sys

import typer

from ..errors import SchedlabError

_FLAGS = {"no_args_is_help": True, "add_completion": False, "pretty_exceptions_enable": False}

app = typer.Typer(
    name="schedlab",
    help="Develop online scheduling strategies for parallel machines and grids on real workload traces.",
    **_FLAGS,
)


def sub_app(name: str, help: str) -> typer.Typer:
    """A verb's sub-command group (``schedlab NAME ...``), registered on :data:`app`."""
    sub = typer.Typer(name=name, help=help, **_FLAGS)
    app.add_typer(sub, name=name)
    return sub


def _register() -> None:
    # Each verb lives in its own module; importing it registers its commands on `app`.
    from . import evolve, grid, simulate, workload  # noqa: F401
    from . import federation  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning every SchedlabError into one clear line and exit code 2."""
    _register()
    try:
        rc = app(args=argv, standalone_mode=False)
    except SchedlabError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("aborted", err=True)
        return 130
    except typer.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # click usage errors
        import click

        try:  # typer >= 0.29 vendors its own click
            from typer._click.exceptions import ClickException as TyperClickException
        except ImportError:  # pragma: no cover - older typer uses click itself
            TyperClickException = click.ClickException
        if isinstance(exc, (click.ClickException, TyperClickException)):
            exc.show()
            return 2
        raise
    return rc if isinstance(rc, int) else 0  # click returns typer.Exit's code in non-standalone mode


if __name__ == "__main__":  # pragma: no cover
    # `python -m schedlab.cli.main`: the commands register on the imported module's app
    from schedlab.cli.main import main as _main

    sys.exit(_main())
