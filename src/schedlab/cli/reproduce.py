"""`schedlab reproduce NAME`: run one experiment of the papers' set-up record by name.

The record is :file:`schedlab/papers/setups.toml` (issue 34 item 1); ``--list`` shows its entries,
``--show`` one entry's set-up, ``--print`` the command without running it.
"""

from __future__ import annotations

import shlex
from typing import List, Optional

import typer

from .app import app
from .options import OptionError


def _overrides(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise OptionError(f"--set {item!r}: expected NAME=VALUE, e.g. --set generations=2")
        out[key.strip()] = value.strip()
    return out


@app.command("reproduce", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def reproduce_command(
    ctx: typer.Context,
    name: Optional[str] = typer.Argument(None, help="Set-up name, e.g. ge/table3, gf/table3/ctc, ng/setup-I, sg/fig4 (see --list)."),
    list_: bool = typer.Option(False, "--list", help="List every set-up of the record (name, paper, item) and exit."),
    show: bool = typer.Option(False, "--show", help="Show NAME's set-up (trace, processors, months, scaling, load, groups, objective, budgets) and exit."),
    out: Optional[str] = typer.Option(None, "--out", help="Output of the run: its folder (or CSV file for compare set-ups)."),
    set_: List[str] = typer.Option([], "--set", metavar="NAME=VALUE", help="Override a budget (e.g. generations=2 for a quick run; a swept budget takes a list, e.g. pop=4,6) or a param of the set-up; repeat."),
    print_only: bool = typer.Option(False, "--print", help="Print the schedlab command instead of running it (without --out, a run folder is shown as DIR)."),
) -> None:
    """Run one experiment of the papers by its set-up name: Franke et al.'s greedy (ge/...) and fuzzy-rule
    (gf/...) strategies, Grimme et al.'s Grid bounds (ng/...), Gabaldon et al.'s federation GA (sg/...).

    Options after NAME that reproduce does not know (e.g. --workers 2) are passed to the verb it runs.
    """
    from ..papers import command, describe, get_setup, item_text, load_setups

    setups = load_setups()
    if list_:
        width = max(map(len, setups))
        for s in setups.values():
            typer.echo(f"{s.name:<{width}}  {s.short_paper:<5} {item_text(s)}" + ("  [variant]" if s.variant else ""))
        return
    if name is None:
        raise OptionError("give a set-up NAME or --list")
    setup = get_setup(name, setups)
    if show:
        for label, text in describe(setup):
            typer.echo(f"{label}: {text}")
        return
    if print_only and out is None and setup.out_option == "--out":
        out = "DIR"  # the command shown names where its run folder goes; running it needs a real --out
    argv = command(setup, _overrides(set_), out=out) + list(ctx.args)
    line = "schedlab " + shlex.join(argv)
    if print_only:
        typer.echo(line)
        return
    typer.echo(f"{setup.name}: {line}", err=True)
    rc = app(args=argv, prog_name="schedlab", standalone_mode=False)
    if rc:
        raise typer.Exit(rc)
