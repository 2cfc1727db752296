"""Report modules and functions of ``pymc_kameleon/`` that are too long, and private reach-ins.

Usage: ``python tools/check_code_size.py [package_dir]`` (default ``pymc_kameleon``); the exit
status is 1 if any module or function is over its limit, else 0. Standard library only.

**What counts as a line of code.** A physical line that is not blank and is not part of a
docstring (the string literal that opens a module, class or function body). Comments count:
they are read like code, and the "why" comments this project asks for belong to the size of a
unit. A function's lines are those of its ``def`` through its last statement, decorators
excluded; a nested function counts towards its parent and is also checked on its own.

**Private reach-ins** (reported, never fatal): a ``_name`` (not a dunder) that one module takes
from another, namely ``from x import _y``, ``module._y`` where ``module`` is an imported module,
``obj._y`` where ``obj`` is not ``self`` or ``cls``, and ``getattr(obj, "_y", ...)``. A private
*module* imported by a module of its own package (``from pymc_kameleon.plots import _draw`` in
``plots/``) is the package's own business and is not listed. The ``obj._y`` rule also lists a
class's use of a private field of another instance of itself (``other._y``); read the list with
that in mind. A reach-in into *another project's* internals that has no public alternative is
declared, with its reason, in :data:`DECLARED_REACH_INS` and is not listed.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DECLARED_REACH_INS",
    "FUNCTION_LIMIT",
    "MODULE_LIMIT",
    "CodeSize",
    "PrivateUse",
    "code_lines",
    "docstring_lines",
    "main",
    "private_uses",
    "scan",
]

MODULE_LIMIT = 400
"""Most lines of code a module may have."""

FUNCTION_LIMIT = 50
"""Most lines of code a function or method may have."""

_SELF_NAMES = frozenset({"self", "cls"})


@dataclass(frozen=True)
class CodeSize:
    """One module or function and its lines of code."""

    path: str
    name: str
    first_line: int
    lines: int


@dataclass(frozen=True)
class PrivateUse:
    """A private name used outside the module that defines it."""

    path: str
    line: int
    text: str


def docstring_lines(tree: ast.Module) -> set[int]:
    """Line numbers covered by the docstrings of the module and of every class and function."""
    covered: set[int] = set()
    bodies = [tree, *(n for n in ast.walk(tree) if isinstance(n, _DEFINITIONS))]
    for node in bodies:
        body = node.body
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            covered.update(range(first.lineno, first.end_lineno + 1))
    return covered


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def code_lines(source_lines: list[str], skip: set[int], first: int, last: int) -> int:
    """Non-blank lines from ``first`` to ``last`` (1-based, inclusive) not in ``skip``."""
    return sum(
        1
        for number in range(first, last + 1)
        if number not in skip and source_lines[number - 1].strip()
    )


def _function_sizes(path: str, tree: ast.Module, lines: list[str], skip: set[int]):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            size = code_lines(lines, skip, node.lineno, node.end_lineno)
            yield CodeSize(path, node.name, node.lineno, size)


def _imported_modules(tree: ast.Module) -> set[str]:
    """Local names bound to modules by ``import x`` / ``import x as y`` / ``from p import mod``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_private_module(path: str, module: str | None, name: str) -> bool:
    """True if ``from module import name`` imports a sibling private module of ``path``."""
    folder = Path(path).parent
    return (
        module is not None
        and folder.resolve().as_posix().endswith("/" + module.replace(".", "/"))
        and (folder / f"{name}.py").exists()
    )


def _getattr_private(node: ast.AST) -> str | None:
    """The name ``_y`` of a ``getattr(obj, "_y", ...)`` call on an object other than self/cls."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != "getattr" or len(node.args) < 2:
        return None
    owner, name = node.args[0], node.args[1]
    if isinstance(owner, ast.Name) and owner.id in _SELF_NAMES:
        return None
    if isinstance(name, ast.Constant) and isinstance(name.value, str) and _is_private(name.value):
        return name.value
    return None


def private_uses(path: str, tree: ast.Module, lines: list[str]) -> list[PrivateUse]:
    """Every private import, ``module._y``, ``obj._y`` and ``getattr(obj, "_y")`` in a module."""
    found = []
    modules = _imported_modules(tree)
    for node in ast.walk(tree):
        hidden = _getattr_private(node)
        if hidden is not None:
            text = lines[node.lineno - 1].strip()
            found.append(PrivateUse(path, node.lineno, f"getattr .{hidden}: {text}"))
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _is_private(alias.name) and not _own_private_module(
                    path, node.module, alias.name
                ):
                    text = f"from {node.module} import {alias.name}"
                    found.append(PrivateUse(path, node.lineno, text))
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in _SELF_NAMES:
                continue
            text = lines[node.lineno - 1].strip()
            kind = "module" if isinstance(owner, ast.Name) and owner.id in modules else "object"
            found.append(PrivateUse(path, node.lineno, f"{kind} .{node.attr}: {text}"))
    return found


DECLARED_REACH_INS = {
    ("_compat.py", "_tune"): "PyMC 5's parallel worker keeps a chain's number of warm-up "
    "iterations only in its private _tune; read once when the chain starts (PyMC 6 passes it)",
}
"""(file name, private name) -> why the reach-in is unavoidable."""


def _declared(use: PrivateUse) -> bool:
    return any(
        use.path.endswith("/" + file) and f".{name}:" in use.text
        for file, name in DECLARED_REACH_INS
    )


def scan(package: Path) -> tuple[list[CodeSize], list[CodeSize], list[PrivateUse]]:
    """Module sizes, function sizes and private uses of every ``*.py`` under ``package``."""
    modules, functions, privates = [], [], []
    for file in sorted(package.rglob("*.py")):
        path = file.as_posix()
        source = file.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=path)
        lines = source.splitlines()
        skip = docstring_lines(tree)
        modules.append(CodeSize(path, file.stem, 1, code_lines(lines, skip, 1, len(lines))))
        functions.extend(_function_sizes(path, tree, lines, skip))
        privates.extend(use for use in private_uses(path, tree, lines) if not _declared(use))
    privates.sort(key=lambda use: (use.path, use.line))
    return modules, functions, privates


def main(argv: list[str] | None = None) -> int:
    """Print the report; return 1 if a module or function is over its limit."""
    args = sys.argv[1:] if argv is None else argv
    package = Path(args[0] if args else "pymc_kameleon")
    modules, functions, privates = scan(package)
    long_modules = [m for m in modules if m.lines > MODULE_LIMIT]
    long_functions = [f for f in functions if f.lines > FUNCTION_LIMIT]
    print(f"modules over {MODULE_LIMIT} lines of code: {len(long_modules)}")
    for m in sorted(long_modules, key=lambda m: -m.lines):
        print(f"  {m.lines:5d}  {m.path}")
    print(f"functions over {FUNCTION_LIMIT} lines of code: {len(long_functions)}")
    for f in sorted(long_functions, key=lambda f: -f.lines):
        print(f"  {f.lines:5d}  {f.path}:{f.first_line} {f.name}")
    print(f"private names used across modules (report only): {len(privates)}")
    for p in privates:
        print(f"  {p.path}:{p.line}  {p.text}")
    return 1 if long_modules or long_functions else 0


if __name__ == "__main__":
    sys.exit(main())
