"""The bulk path: `graphrag export` + `graphrag import` (neo4j-admin database import full) make
the graph `graphrag load` makes, and a Parquet file of vectors written outside graphrag (plain
pyarrow, as Spark or Ray would write it) imports unchanged.

The import runs into its own Neo4j home (the importer needs the database stopped), never the
session's server; the online load runs on the session's server.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ARTICLES = REPO / "loaders" / "sample" / "articles"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"

PASSAGES = [
    {"title": "Carrow", "text": "Carrow is a harbour town on the Vell estuary. The Salt Road ends at Carrow."},
    {"title": "Vell", "text": "The Vell rises in the Amber Hills and reaches the sea at Carrow."},
    {"title": "Salt Road", "text": "The Salt Road joined the Amber Hills to the harbour of Carrow."},
    {"title": "Carrow", "text": "Carrow, a second passage with the same title: the Lantern Fair is held there."},
    {"title": "Vell", "text": "The Vell rises in the Amber Hills and reaches the sea at Carrow."},  # a repeat: once
    {"title": "Lantern Fair", "text": 'The Lantern Fair of Carrow "lights" the Vell;\nit has, so they say, 3 nights.'},
]


@pytest.fixture(scope="module")
def articles(tmp_path_factory) -> Path:
    """The sample articles and one with people for authors (an initials-only one among them)."""
    import shutil

    folder = tmp_path_factory.mktemp("articles") / "articles"
    shutil.copytree(ARTICLES, folder)
    (folder / "miletus.md").write_text(
        '---\ntitle: Miletus\nauthors: ["Heath, Sebastian", "Ana Lima; Bo Chen", "S. Heath"]\n---\n\n'
        "# Miletus\n\nMiletus stood south of Ephesus, near the mouth of the Maeander. Its harbour faced Priene.\n",
        encoding="utf-8",
    )
    return folder


def settings_of(env: dict):
    from graphrag_cypher.config import load_settings

    return load_settings(dict(env))


def summary(env: dict) -> dict:
    from graphrag_cypher.db import connect
    from graphrag_cypher.store.bulk import graph_summary

    with connect(settings_of(env)) as graph:
        return graph_summary(graph, sample=500)


def passages(tmp_path: Path) -> Path:
    path = tmp_path / "passages.json"
    path.write_text(json.dumps(PASSAGES), encoding="utf-8")
    return path


def test_export_and_import_make_the_graph_load_makes(schema, run_cli, import_home, articles, tmp_path):
    corpus = passages(tmp_path)
    # online: load files and a passage corpus, link phrases
    for args in (["files", str(articles), "--corpus", "ancient"], ["qa-corpus", str(corpus), "--corpus", "qa"]):
        result = run_cli("load", *args, "--json")
        assert result.exit_code == 0, result.output
    assert run_cli("link", "phrases", "--json").exit_code == 0
    online = summary(schema.env())

    # bulk: export the same sources (vectors by the same model), import both folders together:
    # the phrases are derived again over both (a term's count spans the folders), nothing is
    # linked online
    for kind, source, corpus_name in (("files", articles, "ancient"), ("qa-corpus", corpus, "qa")):
        result = run_cli("export", kind, str(source), "--corpus", corpus_name, "--out", str(tmp_path / kind), "--json")
        assert result.exit_code == 0, result.output
    exported = json.loads(result.stdout)
    assert exported["documents"] == 5 and exported["duplicates"] == 0 and exported["embeddingModel"] == MODEL
    manifest = json.loads((tmp_path / "qa-corpus" / "manifest.json").read_text())
    assert manifest["derived"]["counts"]["has_phrase"] > 0  # an export carries its phrases
    result = run_cli(
        "import", str(tmp_path / "files"), str(tmp_path / "qa-corpus"), "--overwrite", "--json", env=import_home
    )
    assert result.exit_code == 0, result.output
    imported = json.loads(result.stdout)
    assert imported["embeddingModel"] == MODEL and imported["counts"]["chunks"] == online["labels"]["Chunk"]
    steps = (
        "derive_s",
        "convert_s",
        "stop_s",
        "import_s",
        "start_s",
        "schema_s",
        "indexes_s",
        "vector_index_s",
        "total_s",
    )
    assert list(imported["timings"]) == list(steps)
    assert imported["counts"]["has_phrase"] == online["relationships"]["HAS_PHRASE"]
    bulk = summary(import_home)

    from graphrag_cypher.store.bulk import summary_differences

    assert online["labels"]["Chunk"] == len(online["chunks"]) > 20  # every chunk compared
    assert {"Document", "Chunk", "Passage", "Phrase", "Term", "Word", "Person", "__PhraseState"} <= set(
        online["labels"]
    )
    assert {"FROM_DOCUMENT", "NEXT_CHUNK", "HAS_PHRASE", "HAS_TERM", "LEADS", "AUTHORED"} <= set(
        online["relationships"]
    )
    assert "PendingPhrases" not in online["labels"]
    # what linking wrote is compared too: each sampled chunk's pairs, leads, terms, words, authors
    assert sum(len(links["phrases"]) for links in online["links"].values()) > 20
    assert len(online["terms"]) > 50
    # "S. Heath" is Sebastian Heath: three people, one document
    assert sorted(online["authors"]) == ["person:ana lima", "person:bo chen", "person:sebastian heath"]
    assert len({d for a in online["authors"].values() for d in a["documents"]}) == 1
    # the same model in other batches may differ in the last bits of a vector
    assert summary_differences(online, bulk, vector_tolerance=1e-5) == []

    # a later online load of the same source finds every imported document unchanged
    result = run_cli("load", "qa-corpus", str(corpus), "--corpus", "qa", "--no-embed", "--json", env=import_home)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["documents"]["unchanged"] == 5


def test_a_parquet_file_of_vectors_written_outside_graphrag_imports_unchanged(run_cli, import_home, articles, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "export"
    result = run_cli("export", "files", str(articles), "--no-embed", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    # what a Spark or Ray job does: read chunks/, embed title + text, write chunks/ back with
    # `embedding` (here list<double>) and `embeddingModel`, rows and columns in another order,
    # its own file names and a _SUCCESS marker
    chunks = pa.concat_tables(pq.read_table(p) for p in sorted((out / "chunks").glob("*.parquet")))
    rng = random.Random(7)
    vectors = {cid: [rng.uniform(-1, 1) for _ in range(384)] for cid in chunks.column("id").to_pylist()}
    rows = chunks.drop_columns(["embedding", "embeddingModel"]).to_pylist()
    rng.shuffle(rows)
    for row in rows:
        row["embedding"], row["embeddingModel"], row["__index_level_0__"] = vectors[row["id"]], MODEL, 0
    names = list(reversed(list(rows[0])))
    table = pa.table({name: [row[name] for row in rows] for name in names})
    for path in (out / "chunks").glob("*.parquet"):
        path.unlink()
    half = len(rows) // 2
    pq.write_table(table.slice(0, half), out / "chunks" / "part-00000-5e1f.c000.snappy.parquet", compression="snappy")
    pq.write_table(table.slice(half), out / "chunks" / "part-00001-5e1f.c000.snappy.parquet", compression="snappy")
    (out / "chunks" / "_SUCCESS").write_text("")

    result = run_cli("import", str(out), "--overwrite", "--no-link", "--json", env=import_home)
    assert result.exit_code == 0, result.output
    imported = json.loads(result.stdout)
    assert imported["counts"]["chunks"] == len(rows) and imported["embeddingModel"] == MODEL
    assert imported["ignored_columns"] == ["__index_level_0__"]

    from graphrag_cypher.db import connect

    with connect(settings_of(import_home)) as graph:
        stored = {r["id"]: r for r in graph.read("bulk/chunk_properties", ids=sorted(vectors))}
    assert len(stored) == len(rows)
    for cid, vector in vectors.items():
        props = stored[cid]["properties"]
        assert props["embedding"] == pa.array(vector, pa.float32()).to_pylist()  # float32, every bit kept
        assert props["embeddingModel"] == MODEL and "__index_level_0__" not in props
    # the ones the export wrote: text, positions and the chain of chunks are the export's
    first = next(r for r in rows if r["index"] == 1)
    assert stored[first["id"]]["properties"]["text"] == first["text"]
    assert stored[first["id"]]["next"] is not None and stored[first["id"]]["document"]
    # chunks/ rewritten: derived/ no longer matches and was derived again; --no-link imports no
    # phrases (the chunks wait for `graphrag link phrases`), the authors still
    derived = json.loads((out / "derived" / "derived.json").read_text())
    assert [row[1] for row in derived["from"] if "chunks" in row[1]] == [
        "chunks/part-00000-5e1f.c000.snappy.parquet",
        "chunks/part-00001-5e1f.c000.snappy.parquet",
    ]
    assert imported["phrases"] is None and "has_phrase" not in imported["counts"]
    assert imported["counts"]["authored"] == derived["counts"]["authored"] > 0
    assert all("PendingPhrases" in r["labels"] and "lowerWords" not in r["properties"] for r in stored.values())


def test_import_refuses_without_overwrite_and_vectors_of_another_size(run_cli, import_home, tmp_path):
    result = run_cli("import", str(tmp_path), env=import_home)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: import replaces the database neo4j (Community has one user database): pass --overwrite to replace it"
    ]
    out = tmp_path / "export"
    assert run_cli("export", "files", str(ARTICLES), "--out", str(out), "--json").exit_code == 0
    result = run_cli("export", "files", str(ARTICLES), "--out", str(out), "--json")
    assert result.exit_code == 1 and "not empty" in result.output
    env = dict(import_home, GRAPHRAG_EMBEDDING_DIMENSIONS="768")
    result = run_cli("import", str(out), "--overwrite", env=env)
    assert result.exit_code == 1 and "a vector has 384 dimensions but the vector index holds 768" in result.output
    env = dict(import_home, GRAPHRAG_EMBEDDER="openai/nomic-embed-text", GRAPHRAG_EMBEDDING_DIMENSIONS="384")
    result = run_cli("import", str(out), "--overwrite", env=env)
    assert result.exit_code == 1 and f"embedded with {MODEL} but GRAPHRAG_EMBEDDER is openai/nomic" in result.output


def test_chunk_labels_are_the_online_loaders():
    from graphrag_cypher.store.bulk import chunk_labels

    assert chunk_labels()[0] == "Chunk"
