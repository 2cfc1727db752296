"""No import circle between the modules of ``pymc_kameleon``, not even one hidden in a function.

Every module under ``pymc_kameleon/`` is parsed with :mod:`ast`, and every import of a module of
the package is an edge of the graph: at module level or inside a function, absolute or relative,
and ``from pymc_kameleon.x import y`` counts as an import of ``pymc_kameleon.x.y`` where ``y`` is
a submodule (else of ``pymc_kameleon.x``). A package's ``__init__`` importing its submodules is
an ordinary edge; the implicit import of the parent packages is not one (it is how Python imports
any submodule), so a submodule must import from its defining module, not from its package.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pymc_kameleon"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package ``__init__``) for every module of the package."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _imported_names(tree: ast.AST, package: str) -> set[str]:
    """Dotted names a module imports, ``from a import b`` giving ``a.b``; ``package`` is the
    package relative imports start from."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{source}" if source else base
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()

    def owner(name: str) -> str | None:  # the longest module name that ``name`` starts with
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        targets = {
            owner(imported) for imported in _imported_names(ast.parse(path.read_text()), package)
        }
        graph[name] = {target for target in targets if target and target != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module."""
    order, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node: str) -> None:  # Tarjan's algorithm
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in order:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], order[succ])
        if low[node] == order[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                cycles.append(_cycle_in(graph, set(component)))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return cycles


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A path from the component's first module back to itself, inside the component."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for succ in sorted(graph[node] & component):
            if succ == start:
                return [*paths[node], start]
            if succ not in paths:
                paths[succ] = [*paths[node], succ]
                frontier.append(succ)
    raise AssertionError(f"no cycle through {start}")  # a component always has one


def test_no_import_circle_in_the_package():
    cycles = _cycles(_import_graph())
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_check_sees_circles_inside_functions():
    source = "def f():\n    from . import b\n"
    assert _imported_names(ast.parse(source), "pymc_kameleon.x") == {"pymc_kameleon.x.b"}
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_has_the_package_s_edges():
    graph = _import_graph()
    assert "pymc_kameleon.bench.real.tables" in graph["pymc_kameleon.bench.real.models"]
    assert "pymc_kameleon.step_methods" in graph["pymc_kameleon"]
    assert len(graph) > 100
