"""The `schedlab` command: a thin Typer layer over the API. Bad input -> one line, exit 2."""

from __future__ import annotations

import sys

import typer

from ..errors import SchedlabError
from .app import _stop_reported, app, stopped, sub_app  # noqa: F401  (stopped, sub_app: re-exported, as before)


def _register() -> None:
    # Each verb lives in its own module; importing it registers its commands on `app`.
    from . import bound, evolve, federation, grid, plot, reproduce, rules, simulate, slurm, workload  # noqa: F401


def _usage_message(exc) -> str:
    """A command-line usage error (unknown option, missing argument, bad value) as one line, with
    where to read the command's help."""
    param, ctx = getattr(exc, "param", None), getattr(exc, "ctx", None)
    if type(exc).__name__ == "MissingParameter" and param is not None and param.param_type_name == "argument":
        text = f"missing {(param.name or 'argument').upper()}"
    else:
        text = " ".join(exc.format_message().split()).rstrip(".")
    names = []
    while ctx is not None and ctx.parent is not None:  # the verb's path below the program's own name,
        names.insert(0, ctx.info_name)                 # which is not 'schedlab' under python -m or pytest
        ctx = ctx.parent
    return f"{text} (see '{' '.join(['schedlab', *names])} --help')"


def _notes():
    """A context in which every :class:`~schedlab.errors.TraceNote` prints as one ``note: ...`` line on
    stderr, each distinct note once (a trace loaded twice says it once); other warnings as before."""
    import contextlib
    import warnings

    from ..errors import TraceNote

    seen: set[str] = set()

    @contextlib.contextmanager
    def scope():
        with warnings.catch_warnings():
            warnings.simplefilter("always", TraceNote)
            shown = warnings.showwarning

            def show(message, category, *args, **kwargs):
                if not issubclass(category, TraceNote):
                    return shown(message, category, *args, **kwargs)
                if str(message) not in seen:
                    seen.add(str(message))
                    typer.echo(f"note: {message}", err=True)

            warnings.showwarning = show
            yield

    return scope()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning every SchedlabError into one clear line and exit code 2.

    Ctrl-C ends with exit code 130, SIGTERM (batch systems at their time limit) with 143; long
    runs stop after their last checkpoint and say so (:func:`stopped`).
    """
    from .._signals import EXIT_SIGINT, exit_code, stop_in, stop_reason, stop_signals

    from ..optimize.run import discard_unstarted_runs, forget_fresh_runs

    _register()
    _stop_reported.clear()
    forget_fresh_runs()
    try:
        with stop_signals(), _notes():
            rc = app(args=argv, prog_name="schedlab", standalone_mode=False)
    except SchedlabError as exc:
        discard_unstarted_runs()
        typer.echo(f"error: {exc}", err=True)
        return 2
    except MemoryError as exc:  # a size or budget too large for this machine: say so, no traceback
        discard_unstarted_runs()
        what = str(exc).strip() or "an allocation failed"
        typer.echo(f"error: not enough memory ({what}); smaller sizes or budgets fit (--pop, --jobs, --scale-to, ...)",
                   err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt) as exc:
        typer.echo(f"stopped by {stop_reason(exc)}", err=True)
        return exit_code(exc)
    except typer.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # click usage errors
        if stop_in(exc) is not None:  # Ctrl-C / SIGTERM that a C extension wrapped (see stop_in)
            typer.echo(f"stopped by {stop_reason(exc)}", err=True)
            return exit_code(exc)
        import click

        try:  # typer >= 0.29 vendors its own click
            from typer._click.exceptions import ClickException as TyperClickException
        except ImportError:  # pragma: no cover - older typer uses click itself
            TyperClickException = click.ClickException
        if isinstance(exc, (click.ClickException, TyperClickException)):
            typer.echo(f"error: {_usage_message(exc)}", err=True)
            return 2
        discard_unstarted_runs()  # a defect: still, the corrected command must find no stale run folder
        raise
    rc = rc if isinstance(rc, int) else 0  # click returns typer.Exit's code in non-standalone mode
    if rc == EXIT_SIGINT and not _stop_reported:  # typer turns KeyboardInterrupt (and so SIGTERM) into exit 130
        typer.echo(f"stopped by {stop_reason()}", err=True)
        return exit_code()
    return rc


if __name__ == "__main__":  # pragma: no cover
    # `python -m schedlab.cli.main`: the commands register on the imported module's app
    from schedlab.cli.main import main as _main

    sys.exit(_main())
