"""Every query file is used, and every query name the code uses has its file.

Python loads Cypher by name, ``graph.read("area/name")`` or ``query("area/name")``, so the
names appear as string literals in the code. A query file no literal names is dead; a
literal with no file is a run-time error waiting for its first caller.
"""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "cypher" / "queries"
# the code that runs queries (not the tests): every package folder pyproject maps, and the benchmarks
PACKAGE_DIRS = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"]
CODE = (*(folder for folder in PACKAGE_DIRS.values() if folder != "cypher"), "bench")
NAME = re.compile(r"[a-z_]+/[a-z_0-9]+")


def query_files() -> set[str]:
    return {f"{path.parent.name}/{path.stem}" for path in QUERIES.glob("*/*.cypher")}


def named_in_code() -> dict[str, set[str]]:
    """Query names found as string literals, with the files that name them."""
    areas = {path.name for path in QUERIES.iterdir() if path.is_dir()}
    found: dict[str, set[str]] = {}
    for folder in CODE:
        for source in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"), filename=str(source))):
                if isinstance(node, ast.JoinedStr) and any(
                    isinstance(v, ast.Constant) and str(v.value).split("/")[0] in areas and "/" in str(v.value)
                    for v in node.values
                ):
                    raise AssertionError(
                        f"{source.relative_to(ROOT)}:{node.lineno}: a query name built at run "
                        "time cannot be checked; name the query in full"
                    )
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and NAME.fullmatch(node.value)
                    and node.value.split("/")[0] in areas
                ):
                    found.setdefault(node.value, set()).add(str(source.relative_to(ROOT)))
    return found


def test_the_scan_finds_known_uses():
    named = named_in_code()
    assert "ingest/chunks_to_embed" in named and "store/ingest.py" in named["ingest/chunks_to_embed"]
    assert "places/upsert_places" in named


def test_every_query_file_is_used():
    from graphrag_cypher.admin.neo4j_local import PACKAGED_CYPHER

    # the files the plugin jar carries are run by graphrag.search in Neo4j, whether Python names them or not
    packaged = {name.removesuffix(".cypher") for name in PACKAGED_CYPHER}
    unused = sorted(query_files() - set(named_in_code()) - packaged)
    assert not unused, f"query files no code names (delete them, or use them): {unused}"


def test_every_named_query_exists():
    named = named_in_code()
    missing = {name: sorted(named[name]) for name in sorted(set(named) - query_files())}
    assert not missing, f"query names with no cypher/queries/<name>.cypher file: {missing}"
