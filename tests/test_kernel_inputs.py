"""The numba cache is keyed on the compiled sources (schedlab._config.compiled_sources): every module
defining a kernel, and the plain modules whose constants kernels read at compile time
(:data:`schedlab._config.KERNEL_INPUTS`). A plain module a kernel module imports names from and
that the key misses would leave stale kernels after an edit to it (a slot renumbered in a layout,
say): this test finds every such import and asks that the key holds it."""

from __future__ import annotations

import ast
from pathlib import Path

import schedlab
from schedlab._config import compiled_sources

ROOT = Path(schedlab.__file__).resolve().parent
#: plain modules kernel modules import functions or classes from, never constants a kernel bakes in
NOT_INPUTS = {"errors.py", "_config.py"}


def _imported_plain_modules() -> dict[str, set[str]]:
    """plain module (relative path) -> the kernel modules importing UPPER_CASE names from it."""
    keyed = {p.relative_to(ROOT).as_posix() for p in compiled_sources()}
    out: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        src = path.read_bytes()
        if path.relative_to(ROOT).as_posix() not in keyed:  # kernels, and the inputs themselves (chains)
            continue
        for node in ast.walk(ast.parse(src)):
            if not (isinstance(node, ast.ImportFrom) and node.level >= 1 and node.module):
                continue
            if not any(a.name.isupper() and len(a.name) > 1 for a in node.names):
                continue
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            target = base.joinpath(*node.module.split("."))
            target = target / "__init__.py" if target.is_dir() else target.with_suffix(".py")
            rel = target.relative_to(ROOT).as_posix()
            if rel not in keyed and target.name not in NOT_INPUTS and target.exists():
                out.setdefault(rel, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_every_layout_a_kernel_reads_keys_the_cache():
    assert _imported_plain_modules() == {}
