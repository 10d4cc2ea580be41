"""Document identity: two folders with the same file names, one folder under two corpora, the
move from the old `file:<relative path>` ids. Every load against the real Neo4j the tests start."""

from __future__ import annotations

import json

import pytest

from graphrag_cypher.loaders.files import source_key

pytestmark = pytest.mark.e2e


def folder(root, name: str, files: dict[str, str]):
    path = root / name
    for relative, text in files.items():
        (path / relative).parent.mkdir(parents=True, exist_ok=True)
        (path / relative).write_text(text, encoding="utf-8")
    return path


def load(run_cli, *args):
    result = run_cli("load", "files", *args, "--json")
    return result.exit_code, json.loads(result.stdout)


def documents(neo4j) -> dict[str, dict]:
    with neo4j.driver() as driver:
        rows = driver.execute_query(
            "MATCH (d:Document) OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) "
            "RETURN d.id AS id, d.corpus AS corpus, collect(DISTINCT c.corpus) AS chunkCorpora, "
            "collect(c.text) AS texts ORDER BY id"
        ).records
    return {
        r["id"]: {"corpus": r["corpus"], "chunkCorpora": r["chunkCorpora"], "text": " ".join(r["texts"])} for r in rows
    }


@pytest.fixture
def two_collections(tmp_path):
    a = folder(
        tmp_path,
        "colA",
        {
            "readme.txt": "Collection A is about harbours of the Aegean.",
            "notes/ships.md": "# Ships\n\nTriremes had three banks of oars.",
        },
    )
    b = folder(tmp_path, "colB", {"readme.txt": "Collection B is about roads of Gaul."})
    return a, b


def test_same_file_names_in_two_folders_are_two_documents(schema, run_cli, two_collections):
    a, b = two_collections
    assert load(run_cli, str(a), "--corpus", "a", "--no-embed")[0] == 0
    code, out = load(run_cli, str(b), "--corpus", "b", "--no-embed")
    assert code == 0 and out["documents"]["created"] == 1  # was: 1 updated, colA's readme overwritten
    docs = documents(schema)
    assert docs[f"file:{source_key(a)}:readme.txt"] == {
        "corpus": "a",
        "chunkCorpora": ["a"],
        "text": "Collection A is about harbours of the Aegean.",
    }
    assert docs[f"file:{source_key(b)}:readme.txt"]["text"] == "Collection B is about roads of Gaul."
    assert len(docs) == 3
    # a re-run of the same folder finds its own documents
    code, out = load(run_cli, str(a), "--corpus", "a", "--no-embed")
    assert out["documents"] == {"created": 0, "updated": 0, "unchanged": 2, "failed": 0, "pruned": 0}
    # a file of the folder loaded on its own is the same document
    code, out = load(run_cli, str(a / "readme.txt"), "--corpus", "a", "--no-embed")
    assert out["documents"]["unchanged"] == 1 and len(documents(schema)) == 3


def test_another_corpus_moves_the_folder_and_prune_stays_in_its_source(schema, run_cli, two_collections):
    a, b = two_collections
    load(run_cli, str(a), "--corpus", "a", "--no-embed")
    load(run_cli, str(b), "--corpus", "b", "--no-embed")
    code, out = load(run_cli, str(a), "--corpus", "archive", "--no-embed")
    assert out["documents"]["updated"] == 2  # was: 2 unchanged, the documents left in corpus "a"
    docs = documents(schema)
    moved = [d for i, d in docs.items() if i.startswith(f"file:{source_key(a)}:")]
    assert [(d["corpus"], d["chunkCorpora"]) for d in moved] == [("archive", ["archive"])] * 2
    # --prune removes what is gone from this folder, nothing of the other one
    (a / "notes" / "ships.md").unlink()
    code, out = load(run_cli, str(a), "--corpus", "archive", "--no-embed", "--prune")
    assert out["documents"]["pruned"] == 1 and out["documents"]["unchanged"] == 1
    assert sorted(documents(schema)) == sorted([f"file:{source_key(a)}:readme.txt", f"file:{source_key(b)}:readme.txt"])


def test_learn_keys_its_folder_too(schema, run_cli, two_collections):
    a, _ = two_collections
    first = run_cli("learn", f"harbours | path: {a}", "--no-embed", "--json")
    assert first.exit_code == 0, first.output
    assert sorted(documents(schema)) == sorted(f"file:{source_key(a)}:{p}" for p in ("notes/ships.md", "readme.txt"))
    again = json.loads(run_cli("learn", f"harbours | path: {a}", "--no-embed", "--json").stdout)
    assert again["documents"]["unchanged"] == 2
    other_topic = json.loads(run_cli("learn", f"ships | path: {a}", "--no-embed", "--json").stdout)
    assert other_topic["documents"]["updated"] == 2  # topics are part of what decides "unchanged"


def test_old_ids_migrate_by_loading_again_with_prune(schema, run_cli, two_collections):
    """A graph loaded before ids carried a source key: the documented move is the same load with
    --prune; the documents come back under the new ids and no chunk is embedded again."""
    a, _ = two_collections
    code, first = load(run_cli, str(a))
    assert code == 0 and first["chunks"]["embedded"] == 2
    prefix = f"file:{source_key(a)}:"
    with schema.driver() as driver:  # what an older version stored
        driver.execute_query(
            "MATCH (d:Document) WHERE d.id STARTS WITH $prefix "
            "SET d.id = 'file:' + substring(d.id, size($prefix)) "
            "WITH d MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) SET c.id = d.id + '::' + c.index",
            prefix=prefix,
        )
    assert sorted(documents(schema)) == ["file:notes/ships.md", "file:readme.txt"]
    code, out = load(run_cli, str(a), "--prune")
    assert code == 0
    assert out["documents"]["created"] == 2 and out["documents"]["pruned"] == 2
    assert out["chunks"]["embedded"] == 0 and out["chunks"]["vectors_reused"] == 2
    assert sorted(documents(schema)) == [prefix + "notes/ships.md", prefix + "readme.txt"]
