"""The folder tree is the architecture: each top-level package folder is one part, and imports
point one way, down these layers:

    cli → server → evaluation → {loaders, linkers, kg, retrieval} → {admin, store} → core

Which folder is which package is read from pyproject's ``package-dir``, so a new folder is
checked as soon as it is mapped. Every import statement is read from the source (also those
inside functions, which Python runs late and which once hid a package cycle), resolved to
the part it names and checked against the layers. A part may import its own modules and any
lower layer, never a sibling or a higher one; and no modules import each other in a circle.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "graphrag_cypher"
# folder → dotted prefix, exactly as pyproject's package-dir maps them
FOLDERS = {
    folder: dotted
    for dotted, folder in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-dir"
    ].items()
}
# the part of a folder is its name; core is the ground floor
LAYERS = {
    "core": 0,
    "cypher": 0,
    "admin": 1,
    "store": 1,
    "loaders": 2,
    "linkers": 2,
    "kg": 2,
    "retrieval": 2,
    "evaluation": 3,
    "server": 4,
    "cli": 5,
}
PART_OF_PREFIX = {dotted: folder for folder, dotted in FOLDERS.items()}


def dotted(path: Path) -> str:
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [p for p in rest if p != "__init__"]
    return ".".join([FOLDERS[folder], *parts])


def part_of(module: str) -> str | None:
    """The part (top-level folder) a dotted module belongs to; None outside the package."""
    names = module.split(".")
    if names[0] != PACKAGE:
        return None
    if len(names) > 1 and f"{PACKAGE}.{names[1]}" in PART_OF_PREFIX:
        return PART_OF_PREFIX[f"{PACKAGE}.{names[1]}"]
    return "core"


def imports(path: Path):
    """(line, dotted module) for every import in the file, relative ones resolved."""
    module = dotted(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:  # `from graphrag_cypher import retrieval` names a part
                yield node.lineno, f"{target}.{alias.name}"


def sources():
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_every_part_has_a_layer_and_every_folder_is_mapped():
    assert set(FOLDERS) == set(LAYERS), "a package folder without a layer, or a layer without a folder"
    files = list(sources())
    assert len(files) > 50
    assert all(part_of(dotted(f)) in LAYERS for f in files)
    # the ground floor holds no sub-packages: a part is a top-level folder
    assert not [p for p in (ROOT / "core").iterdir() if p.is_dir() and (p / "__init__.py").exists()]


def test_every_package_folder_is_installed():
    """A sub-package pyproject does not list is left out of a wheel (the Docker image): editable
    installs find it anyway, so only this test notices."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    found = {dotted(init) for folder in FOLDERS for init in (ROOT / folder).rglob("__init__.py")}
    assert found == listed, f"not listed: {sorted(found - listed)}; listed but absent: {sorted(listed - found)}"


def test_imports_point_down_the_layers():
    wrong = []
    for path in sources():
        source = part_of(dotted(path))
        for line, target in imports(path):
            to = part_of(target)
            if to is None or to == source:
                continue
            if LAYERS[to] >= LAYERS[source]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({source}) imports {target} ({to})")
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(sorted(set(wrong)))


def module_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (a name imported from a package counts as its module)."""
    modules = {dotted(p) for p in sources()}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for path in sources():
        source = dotted(path)
        for _, target in imports(path):
            if target in modules and target != source:
                graph[source].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other_in_a_circle():
    # a package's __init__ that re-exports its modules is not a circle with them unless one of
    # them imports the package back
    found = circles(module_graph())
    assert not found, "modules that import each other in a circle:\n" + "\n".join(" ↔ ".join(c) for c in found)


def test_circles_are_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("graphrag_cypher.db", "core"),
        ("graphrag_cypher", "core"),
        ("graphrag_cypher.kg.store", "kg"),
        ("graphrag_cypher.store.ingest", "store"),
        ("graphrag_cypher.admin.neo4j_local", "admin"),
        ("graphrag_cypher.cli.main", "cli"),
        ("neo4j", None),
    ],
)
def test_part_of(text, expected):
    assert part_of(text) == expected
