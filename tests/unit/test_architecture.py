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
    # the ground floor holds no sub-packages (a part is a top-level folder), but the lexicon: data files
    # and their reader, which the plugin's jar packs too
    assert not [
        p for p in (ROOT / "core").iterdir() if p.is_dir() and (p / "__init__.py").exists() and p.name != "lexicon"
    ]


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


# --- retrieval: the routes are one registry, and no module or function grows past its bound ----

RETRIEVAL = ROOT / "retrieval"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_ASK_LINES = 60  # qa.ask: analyse, offer the question to the routes, the shared tail


def oversized(root: Path) -> list[str]:
    """Every module of `root` over MAX_MODULE_LINES lines and every function over MAX_FUNCTION_LINES."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text("utf-8")
        name = path.relative_to(root.parent)
        if source.count("\n") > MAX_MODULE_LINES:
            found.append(f"{name}: {source.count(chr(10))} lines (bound {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(f"{name}: {node.name} is {lines} lines (bound {MAX_FUNCTION_LINES})")
    return found


def route_classes(root: Path) -> dict[str, str]:
    """Every class under `root` that is a route (it has `claim` and `answer` methods): name -> module."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                if {"claim", "answer"} <= methods and not any(
                    isinstance(b, ast.Name) and b.id == "Protocol" for b in node.bases
                ):
                    found[node.name] = str(path.relative_to(root.parent))
    return found


def unregistered_routes(root: Path, registered: set[str]) -> list[str]:
    """Route classes that are not in the registry (by class name)."""
    return [
        f"{module}: {name} is not in ROUTES" for name, module in route_classes(root).items() if name not in registered
    ]


def test_no_module_or_function_in_retrieval_is_over_its_bound():
    assert oversized(RETRIEVAL) == []


def test_ask_reads_as_the_route_loop():
    tree = ast.parse((RETRIEVAL / "qa.py").read_text("utf-8"))
    (ask,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "ask"]
    assert (ask.end_lineno or 0) - ask.lineno + 1 <= MAX_ASK_LINES


def test_every_route_is_in_the_registry():
    from graphrag_cypher.retrieval.routes import ROUTES

    registered = {type(route).__name__ for route in ROUTES}
    assert [r.name for r in ROUTES] == ["global", "relation", "structured", "search"]
    assert len({r.name for r in ROUTES}) == len(ROUTES)
    assert unregistered_routes(RETRIEVAL, registered) == []
    # and every route module under routes/ holds a registered route
    modules = {Path(m).stem for m in route_classes(RETRIEVAL / "routes").values()}
    assert modules == {p.stem for p in (RETRIEVAL / "routes").glob("*.py")} - {"__init__", "base"}


def test_the_checks_find_what_they_look_for(tmp_path):
    """A route left out of the registry, a long module and a long function are each reported."""
    routes = tmp_path / "retrieval" / "routes"
    routes.mkdir(parents=True)
    (routes / "extra.py").write_text(
        "class ExtraRoute:\n    def claim(self, asked):\n        return True\n\n"
        "    def answer(self, asked, claim):\n        return None\n"
    )
    (routes / "long.py").write_text("def f():\n" + "    x = 1\n" * 85 + "\n" * 520)
    assert unregistered_routes(tmp_path / "retrieval", {"SearchRoute"}) == [
        "retrieval/routes/extra.py: ExtraRoute is not in ROUTES"
    ]
    assert unregistered_routes(tmp_path / "retrieval", {"ExtraRoute"}) == []
    assert oversized(tmp_path / "retrieval") == [
        "retrieval/routes/long.py: 606 lines (bound 600)",
        "retrieval/routes/long.py: f is 86 lines (bound 80)",
    ]


def test_every_word_list_is_in_the_lexicon():
    """A module-level set of words outside core/lexicon, or a word `Set.of` in the plugin's Java, is a
    second copy of a list the lexicon holds (test_lexicon.py has the scanners and their self-test)."""
    from .test_lexicon import java_word_lists, word_lists_outside_lexicon

    assert word_lists_outside_lexicon(ROOT) == []
    assert java_word_lists(ROOT) == []
