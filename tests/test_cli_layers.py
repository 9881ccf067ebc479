"""The CLI's layers (issue 36, DESIGN.md "Directions that hold"): a verb module imports neither
another verb nor cli/main.py; what verbs share lives in modules below them."""

from __future__ import annotations

import ast
from pathlib import Path

import schedlab.cli

CLI = Path(schedlab.cli.__file__).parent


def _imports(path: Path) -> set[str]:
    """The cli modules ``path`` imports (``from .x import ...``, ``from . import x``), anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("schedlab.cli."):
            out.add(node.module.split(".")[2])
    return out


def _verbs() -> set[str]:
    """Modules that register commands: they take the app or a sub-command group (from cli/app.py, or
    from cli/main.py, where they lived before)."""
    verbs = set()
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in ("app", "main")
                    and {a.name for a in node.names} & {"app", "sub_app"} and path.stem != "main"):
                verbs.add(path.stem)
    return verbs


def test_verbs_import_neither_each_other_nor_main():
    verbs = _verbs()
    assert {"simulate", "evolve", "rules", "bound", "grid", "federation", "plot", "reproduce", "workload"} <= verbs
    wrong = {v: sorted(_imports(CLI / f"{v}.py") & (verbs | {"main"})) for v in sorted(verbs)}
    assert not any(wrong.values()), f"verb modules importing a verb or main: { {k: v for k, v in wrong.items() if v} }"
    # main registers every verb (importing it adds its commands to the app)
    assert verbs <= _imports(CLI / "main.py")


def test_optimize_does_not_import_report():
    """Issue 36: "`optimize` does not import `report`" (DESIGN.md: drivers return results; the CLI
    draws them). Any import of schedlab.report from an optimize module, anywhere in it."""
    import schedlab.optimize

    wrong = {}
    for path in sorted(Path(schedlab.optimize.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if (node.level == 2 and mod.split(".")[0] == "report") or mod.startswith("schedlab.report"):
                    wrong.setdefault(path.name, []).append(mod)
    assert wrong == {}
