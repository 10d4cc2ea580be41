"""apply-schema and schema status against a real Neo4j."""

import json
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

CONSTRAINTS = {"document_id", "chunk_id", "entity_id", "place_pleiades_id", "wikidata_qid", "migration_version"}
INDEXES = {"chunk_text", "entity_names", "chunk_embedding", "document_content_hash", "chunk_content_hash"}


def rows(neo4j, text, **params):
    with neo4j.driver() as driver:
        return driver.execute_query(text, params).records


def shipped_migrations_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "migrations"
    source = resources.files("graphrag_cypher.cypher").joinpath("migrations")
    folder.mkdir()
    for entry in source.iterdir():
        if entry.name.endswith(".cypher"):
            (folder / entry.name).write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def test_empty_database_gets_the_whole_schema_online(neo4j, run_cli):
    result = run_cli("apply-schema", "--json")
    assert result.exit_code == 0, result.output
    applied = json.loads(result.stdout)["applied"]
    assert [m["file"] for m in applied][:3] == [
        "V0001__Constraints.cypher",
        "V0002__Lookup_indexes.cypher",
        "V0003__Fulltext_indexes.cypher",
    ]
    assert applied[-1]["type"] == "REPEATABLE"

    constraints = {r["name"] for r in rows(neo4j, "SHOW CONSTRAINTS YIELD name RETURN name")}
    assert CONSTRAINTS <= constraints
    indexes = {
        r["name"]: r
        for r in rows(neo4j, "SHOW INDEXES YIELD name, type, state, options RETURN name, type, state, options")
    }
    assert INDEXES <= set(indexes)
    assert all(r["state"] == "ONLINE" for r in indexes.values())
    vector = indexes["chunk_embedding"]["options"]["indexConfig"]
    assert vector["vector.dimensions"] == 384 and vector["vector.similarity_function"] == "COSINE"
    assert indexes["chunk_text"]["options"]["indexConfig"]["fulltext.analyzer"] == "standard-folding"

    recorded = rows(neo4j, "MATCH (m:__Migration) RETURN m.version AS v, m.checksum AS c, m.appliedAt AS at")
    assert len(recorded) == len(applied)
    assert all(len(r["c"]) == 64 and r["at"] is not None for r in recorded)


def test_second_apply_applies_nothing(neo4j, run_cli):
    assert run_cli("apply-schema").exit_code == 0
    result = run_cli("apply-schema", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"applied": [], "pending": []}


def test_folding_full_text_index_matches_accented_text(neo4j, run_cli):
    assert run_cli("apply-schema").exit_code == 0
    rows(neo4j, "CREATE (:Chunk {id: 'c1', text: 'The harbour of Alexandría and Côte'})")
    hits = rows(neo4j, "CALL db.index.fulltext.queryNodes('chunk_text', 'alexandria') YIELD node RETURN node.id AS id")
    assert [h["id"] for h in hits] == ["c1"]


def test_dry_run_changes_nothing(neo4j, run_cli):
    result = run_cli("apply-schema", "--dry-run", "--json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["applied"] == [] and len(out["pending"]) >= 4 and out["dry_run"] is True
    assert rows(neo4j, "MATCH (m:__Migration) RETURN count(m) AS n")[0]["n"] == 0
    assert not rows(neo4j, "SHOW CONSTRAINTS YIELD name WHERE name = 'document_id' RETURN name")


def test_status_reports_applied_pending_and_changed(neo4j, run_cli, tmp_path):
    folder = shipped_migrations_copy(tmp_path)
    status = json.loads(run_cli("schema", "status", "--json", "--migrations-dir", str(folder)).stdout)
    assert status["applied"] == [] and len(status["pending"]) == len(list(folder.iterdir()))

    assert run_cli("apply-schema", "--migrations-dir", str(folder)).exit_code == 0
    (folder / "V0100__Later.cypher").write_text("CREATE INDEX later IF NOT EXISTS FOR (d:Document) ON (d.later);\n")
    status = json.loads(run_cli("schema", "status", "--json", "--migrations-dir", str(folder)).stdout)
    assert [m["file"] for m in status["pending"]] == ["V0100__Later.cypher"]
    assert status["changed"] == []


def test_edited_applied_migration_is_refused_and_never_rerun(neo4j, run_cli, tmp_path):
    folder = shipped_migrations_copy(tmp_path)
    assert run_cli("apply-schema", "--migrations-dir", str(folder)).exit_code == 0
    edited = folder / "V0002__Lookup_indexes.cypher"
    edited.write_text(edited.read_text() + "\nCREATE INDEX sneaky IF NOT EXISTS FOR (d:Document) ON (d.sneaky);\n")
    (folder / "V0099__New.cypher").write_text("CREATE INDEX newer IF NOT EXISTS FOR (d:Document) ON (d.newer);\n")

    result = run_cli("apply-schema", "--migrations-dir", str(folder))
    assert result.exit_code == 1
    assert "V0002__Lookup_indexes.cypher was changed after it was applied" in result.output
    assert len(result.output.strip().splitlines()) == 1
    names = {r["name"] for r in rows(neo4j, "SHOW INDEXES YIELD name RETURN name")}
    assert "sneaky" not in names and "newer" not in names, "nothing is applied when a file was changed"

    status = run_cli("schema", "status", "--json", "--migrations-dir", str(folder))
    assert status.exit_code == 1
    assert [m["file"] for m in json.loads(status.stdout)["changed"]] == ["V0002__Lookup_indexes.cypher"]


def test_repeatable_migration_reapplies_when_dimensions_change(neo4j, run_cli):
    assert run_cli("apply-schema").exit_code == 0
    result = run_cli(
        "apply-schema", "--json", env={"GRAPHRAG_EMBEDDING_DIMENSIONS": "16", "GRAPHRAG_EMBEDDER": "test/tiny"}
    )
    assert [m["file"] for m in json.loads(result.stdout)["applied"]] == ["R__Vector_indexes.cypher"]
    config = rows(neo4j, "SHOW INDEXES YIELD name, options WHERE name = 'chunk_embedding' RETURN options")[0]
    assert config["options"]["indexConfig"]["vector.dimensions"] == 16
    doctor = json.loads(run_cli("doctor", "--json").stdout)  # back on the default 384-dim embedder
    assert any("16 dimensions" in w for w in doctor["warnings"])


def test_failing_statement_names_file_and_statement(neo4j, run_cli, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "V1__Good.cypher").write_text("CREATE INDEX good IF NOT EXISTS FOR (d:Document) ON (d.good);\n")
    (folder / "V2__Bad.cypher").write_text(
        "CREATE INDEX good2 IF NOT EXISTS FOR (d:Document) ON (d.x);\nCREATE NONSENSE;\n"
    )
    result = run_cli("apply-schema", "--migrations-dir", str(folder))
    assert result.exit_code == 1
    assert "V2__Bad.cypher, statement 2" in result.output
    versions = {r["v"] for r in rows(neo4j, "MATCH (m:__Migration) RETURN m.version AS v")}
    assert versions == {"1"}, "a failed migration is not recorded"
    assert run_cli("schema", "unlock").output.strip() == "no migration lock was held"


def test_concurrent_apply_leaves_one_record_per_version(neo4j, run_exe):
    env = neo4j.env()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: run_exe("apply-schema", "--json", env=env), range(2)))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    applied = [json.loads(r.stdout)["applied"] for r in results]
    assert sorted(len(a) for a in applied)[0] == 0, "one run applies everything, the other nothing"
    counts = rows(neo4j, "MATCH (m:__Migration) RETURN m.version AS v, count(*) AS n")
    assert counts and all(r["n"] == 1 for r in counts)
    assert rows(neo4j, "MATCH (l:__MigrationLock) RETURN count(l) AS n")[0]["n"] == 0


def test_a_held_lock_times_out_with_advice(neo4j, run_cli):
    assert run_cli("apply-schema").exit_code == 0
    rows(neo4j, "CREATE (:__MigrationLock {id: 'graphrag', owner: 'someone@elsewhere:1', acquiredAt: datetime()})")
    (Path.cwd() / "m").mkdir()
    (Path.cwd() / "m" / "V1__X.cypher").write_text("CREATE INDEX x IF NOT EXISTS FOR (d:Document) ON (d.x);\n")
    result = run_cli("apply-schema", "--migrations-dir", "m", "--lock-timeout", "1")
    assert result.exit_code == 1
    assert "held by someone@elsewhere:1" in result.output and "graphrag schema unlock" in result.output
    assert run_cli("schema", "unlock").output.strip() == "released the migration lock"
    assert run_cli("apply-schema", "--migrations-dir", "m").exit_code == 0
