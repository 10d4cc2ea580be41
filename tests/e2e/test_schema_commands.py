"""`graphrag schema validate` and `graphrag schema clean` against a real Neo4j."""

from __future__ import annotations

import json

import pytest

from .test_migrations import rows, shipped_migrations_copy

pytestmark = pytest.mark.e2e


def test_validate_is_quiet_on_a_fresh_schema_and_counts_pending(neo4j, run_cli, tmp_path):
    folder = shipped_migrations_copy(tmp_path)
    result = run_cli("schema", "validate", "--migrations-dir", str(folder))
    assert result.exit_code == 0 and result.output.startswith("valid: 0 applied, "), result.output
    assert run_cli("apply-schema", "--migrations-dir", str(folder)).exit_code == 0
    result = run_cli("schema", "validate", "--json", "--migrations-dir", str(folder))
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["valid"] and report["problems"] == [] and report["pending"] == []
    assert report["applied"] == len(list(folder.iterdir()))


def test_validate_names_each_changed_missing_and_malformed_file(neo4j, run_cli, tmp_path):
    folder = shipped_migrations_copy(tmp_path)
    assert run_cli("apply-schema", "--migrations-dir", str(folder)).exit_code == 0
    edited = folder / "V0002__Lookup_indexes.cypher"
    edited.write_text(edited.read_text() + "\nCREATE INDEX sneaky IF NOT EXISTS FOR (d:Document) ON (d.sneaky);\n")
    (folder / "V0003__Fulltext_indexes.cypher").unlink()
    (folder / "V7_bad name.cypher").write_text("RETURN 1;\n")
    (folder / "V0099__Empty.cypher").write_text("// nothing here\n")

    result = run_cli("schema", "validate", "--migrations-dir", str(folder))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 4, result.output
    assert sorted(line.split(":")[0] for line in lines) == ["changed", "empty", "malformed", "missing"]
    assert any(line.startswith("changed: V0002__Lookup_indexes.cypher: changed after it was applied") for line in lines)
    assert any(line.startswith("missing: V0003__Fulltext_indexes.cypher: applied on ") for line in lines)

    report = json.loads(run_cli("schema", "validate", "--json", "--migrations-dir", str(folder)).stdout)
    assert report["valid"] is False
    assert {(p["kind"], p["file"]) for p in report["problems"]} == {
        ("changed", "V0002__Lookup_indexes.cypher"),
        ("missing", "V0003__Fulltext_indexes.cypher"),
        ("malformed", "V7_bad name.cypher"),
        ("empty", "V0099__Empty.cypher"),
    }


def test_clean_refuses_without_yes_and_then_removes_everything(schema, run_cli):
    rows(schema, "CREATE (:Document {id: 'd1'})-[:HAS_CHUNK]->(:Chunk {id: 'c1', text: 'x'})")
    before_indexes = {
        r["name"] for r in rows(schema, "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")
    }
    before_constraints = {r["name"] for r in rows(schema, "SHOW CONSTRAINTS YIELD name RETURN name")}
    migrations = rows(schema, "MATCH (m:__Migration) RETURN count(m) AS n")[0]["n"]
    audits = rows(schema, "MATCH (a:__Audit) RETURN count(a) AS n")[0]["n"]
    assert before_indexes and before_constraints and migrations and audits == 1  # the apply-schema

    refused = run_cli("schema", "clean")
    assert refused.exit_code == 1 and "--yes" in refused.output and len(refused.output.strip().splitlines()) == 1
    assert rows(schema, "MATCH (n) RETURN count(n) AS n")[0]["n"] == migrations + audits + 2, "nothing was removed"

    result = run_cli("schema", "clean", "--yes")
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert {
        line.removeprefix("dropped constraint ") for line in lines if line.startswith("dropped constraint ")
    } == before_constraints
    dropped_indexes = {line.removeprefix("dropped index ") for line in lines if line.startswith("dropped index ")}
    assert dropped_indexes and dropped_indexes <= before_indexes
    assert (
        lines[-1]
        == f"deleted {migrations + audits + 2} node(s) and 1 relationship(s), {migrations} of them migration records"
    )
    assert rows(schema, "MATCH (n) RETURN count(n) AS n")[0]["n"] == 0
    assert rows(schema, "SHOW CONSTRAINTS YIELD name RETURN name") == []
    assert rows(schema, "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name") == []

    again = json.loads(run_cli("schema", "clean", "--yes", "--json").stdout)
    assert again == {"nodes": 0, "relationships": 0, "migrations": 0, "constraints": [], "indexes": []}
    applied = json.loads(run_cli("apply-schema", "--json").stdout)["applied"]
    assert len(applied) == migrations, "the schema applies again from scratch after a clean"
