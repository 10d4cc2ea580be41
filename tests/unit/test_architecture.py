"""Imports point one way: cli → server → evaluation → {loaders, linkers, kg, retrieval} → core.

Every import statement is read from the source (also those inside functions, which Python
only runs late and which once hid a package cycle), resolved to the part it names, and
checked against the layers below. A part may import its own modules and any lower layer,
never a sibling or a higher one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "graphrag_cypher"
# folder → dotted prefix, as pyproject's package-dir maps them
FOLDERS = {
    "core": PACKAGE,
    "cli": f"{PACKAGE}.cli",
    "loaders": f"{PACKAGE}.loaders",
    "linkers": f"{PACKAGE}.linkers",
    "cypher": f"{PACKAGE}.cypher",
}
LAYERS = {
    "core": 0,
    "cypher": 0,
    "loaders": 1,
    "linkers": 1,
    "kg": 1,
    "retrieval": 1,
    "evaluation": 2,
    "server": 3,
    "cli": 4,
}


def dotted(path: Path) -> str:
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [p for p in rest if p != "__init__"]
    return ".".join([FOLDERS[folder], *parts])


def part_of(module: str) -> str | None:
    """The part a dotted module belongs to; None for modules outside the package."""
    names = module.split(".")
    if names[0] != PACKAGE:
        return None
    if len(names) == 1 or names[1] not in LAYERS:
        return "core"
    return names[1]


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


def test_every_source_file_is_mapped():
    files = list(sources())
    assert len(files) > 50
    assert all(part_of(dotted(f)) in LAYERS for f in files)


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


@pytest.mark.parametrize(
    "text, expected",
    [
        ("graphrag_cypher.db", "core"),
        ("graphrag_cypher", "core"),
        ("graphrag_cypher.kg.store", "kg"),
        ("graphrag_cypher.cli.main", "cli"),
        ("neo4j", None),
    ],
)
def test_part_of(text, expected):
    assert part_of(text) == expected
