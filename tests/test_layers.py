"""The layers import in one direction only (docs/architecture.md).

Every import of the project's own modules is read from the source (``ast``), at
the top of a module or inside a function, and checked against the arrows each
layer may follow. A function-level import is allowed to delay a heavy library,
never to hide a cycle: the graph with those imports included has none.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "vision", "hardware", "web", "models")

MAY_IMPORT: dict[str, frozenset[str]] = {
    "rules": frozenset({"rules"}),
    "table": frozenset({"rules", "table"}),
    "vision": frozenset({"rules", "vision"}),
    "hardware": frozenset({"rules", "hardware"}),
    "web": frozenset({"rules", "vision", "web"}),
    "models": frozenset({"rules", "vision", "models"}),
    "app": frozenset({"rules", "table", "vision", "hardware", "web", "models", "app"}),
}
"""Each layer and the layers it may import. ``table`` is ``companion`` itself: the table service,
its store and the replay; ``app`` is ``companion.app`` (and ``python -m companion``)."""


def layer(module: str) -> str:
    """The layer a module belongs to.

    >>> layer("companion.rules.game"), layer("companion.store"), layer("web.app")
    ('rules', 'table', 'web')
    """
    parts = module.split(".")
    if parts[0] == "companion":
        if parts[1:2] == ["rules"]:
            return "rules"
        if parts[1:2] in (["app"], ["__main__"]):
            return "app"
        return "table"
    return parts[0]


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(path: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """``(module, line, in_function)`` for each import of a project module in ``path``;
    ``from a import b`` names ``a.b`` where that is a module, else ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names = [f"{child.module}.{a.name}" if f"{child.module}.{a.name}" in known else child.module
                         for a in child.names]
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend((name, child.lineno, in_function) for name in names if name.split(".")[0] in PACKAGES)
            visit(child, inner)

    visit(tree, False)
    return found


MODULES = modules()
GRAPH = {name: imports(path, set(MODULES)) for name, path in MODULES.items()}


def test_every_module_is_found() -> None:
    assert {"companion.rules.game", "companion.table", "companion.app.cli", "vision.recognizer", "web.app"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_the_layers(module: str) -> None:
    mine = layer(module)
    wrong = [f"line {line}: {name} ({layer(name)})" for name, line, _ in GRAPH[module]
             if layer(name) not in MAY_IMPORT[mine]]
    assert not wrong, f"{module} ({mine}) may import only {sorted(MAY_IMPORT[mine])}: {wrong}"


def test_no_import_is_made_of_something_that_does_not_exist() -> None:
    missing = [(m, name) for m, found in GRAPH.items() for name, _, _ in found if name not in MODULES]
    assert not missing


def test_no_cycle_even_through_imports_inside_functions() -> None:
    edges = {m: {n for n, _, _ in found} - {m} for m, found in GRAPH.items()}
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        if node in path:
            cycle = path[path.index(node):] + [node]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if node in done:
            return
        for nxt in sorted(edges.get(node, ())):
            walk(nxt, path + [node])
        done.add(node)

    for module in sorted(edges):
        walk(module, [])


def test_the_rules_load_no_camera_web_or_gpio_library() -> None:
    """Beyond the project's own arrows: the pure core loads the standard library and pokerkit
    (pure Python, which ranks poker hands), nothing else."""
    import sys

    stdlib = set(sys.stdlib_module_names)
    for module, path in MODULES.items():
        if layer(module) != "rules":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top in ("companion", "pokerkit"), f"{module} imports {name}"


def test_a_layer_violation_is_caught(tmp_path: Path) -> None:
    """The check itself can fail: a rules module importing the web is refused."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from web.app import create_app\n")
    found = imports(bad, set(MODULES))
    assert found == [("web.app", 2, True)]
    assert layer(found[0][0]) not in MAY_IMPORT["rules"]
