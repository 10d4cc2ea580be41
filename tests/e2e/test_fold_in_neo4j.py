"""The one fold and normName rule inside Neo4j: the plugin functions and the V0006 migration."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from graphrag_cypher.text import fold, norm_name

from ..unit.test_fold_cases import fold_cases
from .test_migrations import rows, shipped_migrations_copy

pytestmark = pytest.mark.e2e

PLEIADES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers" / "pleiades-sample.geojsonl"

NAMES = [row[0] for row in fold_cases()] + ["Tell el-Amarna", "Contestania (region)", "a\U0001d518b_c\x85d\u3000e", ""]


def _old_kg_norm(name: str) -> str:
    """normName as the knowledge graph wrote it before V0006 (compatibility forms, case folding)."""
    text = unicodedata.normalize("NFKD", name)
    return " ".join("".join(ch for ch in text if not unicodedata.combining(ch)).casefold().split())


def test_plugin_functions_equal_python_on_the_shared_cases(neo4j):
    found = rows(neo4j, "UNWIND $names AS n RETURN n, graphrag.fold(n) AS f, graphrag.normName(n) AS k", names=NAMES)
    assert [(r["f"], r["k"]) for r in found] == [(fold(n), norm_name(n)) for n in NAMES]


def test_v0006_recomputes_every_stored_norm_name_to_the_python_value(neo4j, run_cli, tmp_path):
    folder = shipped_migrations_copy(tmp_path)
    (folder / "V0006__One_normName.cypher").unlink()
    assert run_cli("apply-schema", "--migrations-dir", str(folder)).exit_code == 0
    entities = [
        {"id": f"e{i}", "name": n, "normName": (_old_kg_norm if i % 2 else fold)(n)} for i, n in enumerate(NAMES)
    ]
    rows(neo4j, "UNWIND $rows AS r CREATE (e:__Entity__ {id: r.id}) SET e += r", rows=entities)
    rows(neo4j, "CREATE (:__Entity__ {id: 'no-norm', name: 'Straße'}), (:__Entity__ {id: 'no-name', normName: 'kept'})")
    stale = rows(
        neo4j,
        "MATCH (e:__Entity__) WHERE e.name IS NOT NULL AND e.normName IS NOT NULL "
        "RETURN e.name AS name, e.normName AS norm",
    )
    assert any(r["norm"] != norm_name(r["name"]) for r in stale), "the old writers' values differ"

    assert run_cli("load", "pleiades", str(PLEIADES)).exit_code in (0, 3)  # the sample holds bad lines on purpose
    loaded = {r["id"]: r["norm"] for r in rows(neo4j, "MATCH (p:Place) RETURN p.id AS id, p.normName AS norm")}
    assert loaded["pleiades:893951"] == "babylon" and "babylon" in loaded.values() and len(loaded) > 5
    rows(neo4j, "MATCH (p:Place) SET p.normName = toLower(p.name)")  # as an older loader might have written it

    result = run_cli("apply-schema", "--json")  # the shipped folder: V0006 is pending
    assert result.exit_code == 0, result.output
    assert [m["file"] for m in json.loads(result.stdout)["applied"]] == ["V0006__One_normName.cypher"]
    stored = rows(neo4j, "MATCH (e:__Entity__) RETURN e.id AS id, e.name AS name, e.normName AS norm")
    by_id = {r["id"]: r for r in stored}
    assert by_id.pop("no-norm")["norm"] is None and by_id.pop("no-name")["norm"] == "kept"
    places = {r["id"]: r["norm"] for r in rows(neo4j, "MATCH (p:Place) RETURN p.id AS id, p.normName AS norm")}
    assert places == loaded, "the migration gives places the value the loader writes (names[0]: no '(Egypt)')"
    others = {k: v for k, v in by_id.items() if k not in places}
    assert {r["id"]: r["norm"] for r in others.values()} == {r["id"]: norm_name(r["name"]) for r in others.values()}
    assert run_cli("apply-schema", "--json").stdout.count("V0006") == 0, "applied once"
