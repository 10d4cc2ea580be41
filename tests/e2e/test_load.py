"""`graphrag load` into a real Neo4j: lexical graph, incremental, resumable, bad input."""

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ..conftest import graphrag_exe

pytestmark = pytest.mark.e2e

TALES = [
    {
        "id": "t1",
        "title": "The Fox and the Well",
        "text": "A fox fell into a well. A goat came by and asked whether "
        "the water was good. The fox praised it, and the goat jumped in. The fox climbed out on the goat's back.",
    },
    {
        "id": "t2",
        "title": "The Lantern",
        "text": "A girl carried a silver lantern through the Birch Wood at night. "
        "The owls followed its light to the mill, where the miller was waiting.",
    },
]


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def load(run_cli, *args):
    result = run_cli("load", *args, "--json")
    return result.exit_code, json.loads(result.stdout)


def counts(neo4j) -> dict:
    with neo4j.driver() as driver:
        row = driver.execute_query(
            "CALL { MATCH (d:Document) RETURN count(d) AS documents } "
            "CALL { MATCH (c:Chunk) RETURN count(c) AS chunks } "
            "CALL { MATCH (:Chunk)-[r:FROM_DOCUMENT]->(:Document) RETURN count(r) AS from_document } "
            "CALL { MATCH (:Chunk)-[r:NEXT_CHUNK]->(:Chunk) RETURN count(r) AS next_chunk } "
            "CALL { MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN count(c) AS embedded } "
            "RETURN documents, chunks, from_document, next_chunk, embedded"
        ).records[0]
    return dict(row)


def query(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text, params).records]


def test_stories_become_documents_with_embedded_chunks(schema, run_cli, tmp_path):
    path = write_jsonl(tmp_path / "tales.jsonl", TALES)
    code, out = load(run_cli, "stories", str(path), "--corpus", "tales", "--chunk-size", "120", "--overlap", "0")
    assert code == 0, out
    assert out["documents"] == {"created": 2, "updated": 0, "unchanged": 0, "failed": 0, "pruned": 0}
    c = counts(schema)
    assert c["documents"] == 2 and c["chunks"] == out["chunks"]["created"] >= 3
    assert c["from_document"] == c["chunks"] == c["embedded"]
    assert c["next_chunk"] == c["chunks"] - 2, "chunks of each story are chained in order"
    story = query(
        schema,
        "MATCH (d:Story {id: 'story:tales:t1'}) RETURN d.title AS title, d.kind AS kind, "
        "d.corpus AS corpus, labels(d) AS labels",
    )[0]
    assert story == {
        "title": "The Fox and the Well",
        "kind": "story",
        "corpus": "tales",
        "labels": ["Document", "Story"],
    }
    hits = query(
        schema,
        "MATCH (c:Chunk {id: 'story:tales:t2::0'}) "
        "CALL db.index.vector.queryNodes('chunk_embedding', 1, c.embedding) YIELD node, score "
        "RETURN node.id AS id, score",
    )
    assert hits[0]["id"] == "story:tales:t2::0" and hits[0]["score"] > 0.99


def test_second_run_changes_nothing_and_edits_replace_only_that_document(schema, run_cli, tmp_path):
    path = write_jsonl(tmp_path / "tales.jsonl", TALES)
    load(run_cli, "stories", str(path), "--corpus", "tales", "--chunk-size", "120", "--overlap", "0")
    before = counts(schema)
    code, again = load(run_cli, "stories", str(path), "--corpus", "tales", "--chunk-size", "120", "--overlap", "0")
    assert code == 0 and again["documents"]["unchanged"] == 2 and again["chunks"]["created"] == 0
    assert counts(schema) == before

    edited = [TALES[0], dict(TALES[1], text=TALES[1]["text"] + " The miller thanked her and lit his own lamp.")]
    write_jsonl(path, edited)
    code, out = load(run_cli, "stories", str(path), "--corpus", "tales", "--chunk-size", "120", "--overlap", "0")
    assert out["documents"]["updated"] == 1 and out["documents"]["unchanged"] == 1
    assert out["chunks"]["vectors_reused"] >= 1, "unchanged chunk texts keep their vectors"
    after = counts(schema)
    assert after["documents"] == 2 and after["chunks"] == after["embedded"] == after["from_document"]
    texts = [
        r["t"]
        for r in query(
            schema,
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {id: 'story:tales:t2'}) RETURN c.text AS t ORDER BY c.index",
        )
    ]
    assert "lit his own lamp" in " ".join(texts)


def test_bad_lines_are_reported_and_the_rest_loads(schema, run_cli, tmp_path):
    path = tmp_path / "tales.jsonl"
    path.write_text(json.dumps(TALES[0]) + "\n{not json\n" + json.dumps(TALES[1]) + "\n", encoding="utf-8")
    result = run_cli("load", "stories", str(path), "--json")
    assert result.exit_code == 3
    out = json.loads(result.stdout)
    assert out["documents"]["created"] == 2 and out["documents"]["failed"] == 1
    assert out["errors"][0]["item"].endswith("line 2")
    assert "line 2" in result.stderr


def test_folder_of_mixed_files_and_prune(schema, run_cli, tmp_path):
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# Harbours\n\n## Alexandria\n\nThe Pharos stood at the harbour entrance.\n")
    (folder / "sub" / "b.txt").write_text("Ephesus lay near the mouth of the Cayster river.\n")
    (folder / "page.html").write_text(
        "<html><head><title>Carthage</title></head><body><nav>menu</nav>"
        "<main><h1>Carthage</h1><p>Byrsa hill overlooked the harbour.</p></main></body></html>"
    )
    (folder / "blob.txt").write_bytes(b"\x00\x01\x02binary" * 100)
    code, out = load(run_cli, "files", str(folder))
    assert code == 3 and out["documents"]["created"] == 3 and out["documents"]["failed"] == 1
    assert "binary" in out["errors"][0]["error"]
    sections = {r["s"] for r in query(schema, "MATCH (c:Chunk) RETURN c.section AS s")}
    assert any(s and "Alexandria" in s for s in sections), "Markdown headings are kept as section titles"
    assert not query(schema, "MATCH (c:Chunk) WHERE c.text CONTAINS 'menu' RETURN c"), "navigation is dropped"

    (folder / "blob.txt").unlink()
    (folder / "sub" / "b.txt").unlink()
    code, out = load(run_cli, "files", str(folder), "--prune")
    assert code == 0 and out["documents"]["pruned"] == 1 and out["documents"]["unchanged"] == 2
    assert counts(schema)["documents"] == 2


def test_qa_corpus_one_document_and_chunk_per_passage(schema, run_cli, tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps(
            [
                {"title": "Ostia", "text": "Ostia was the harbour city of ancient Rome."},
                {"title": "Ostia", "text": "Ostia Antica is an archaeological site."},
                {"title": "Tiber", "text": "The Tiber flows through Rome to the sea at Ostia."},
            ]
        )
    )
    code, out = load(run_cli, "qa-corpus", str(corpus), "--corpus", "qa")
    assert code == 0 and out["documents"]["created"] == 3
    c = counts(schema)
    assert c["documents"] == c["chunks"] == 3 and c["next_chunk"] == 0
    assert len(query(schema, "MATCH (d:Passage {title: 'Ostia'}) RETURN d")) == 2


def test_embedder_that_does_not_fit_the_index_is_refused(schema, run_cli, tmp_path):
    run_cli("apply-schema", env={"GRAPHRAG_EMBEDDER": "test/tiny", "GRAPHRAG_EMBEDDING_DIMENSIONS": "16"})
    path = write_jsonl(tmp_path / "tales.jsonl", TALES)
    result = run_cli("load", "stories", str(path))
    assert result.exit_code == 1
    assert "384-dimensional" in result.output and "holds 16" in result.output
    assert counts(schema)["documents"] == 0


def test_no_embed_then_embed(schema, run_cli, tmp_path):
    path = write_jsonl(tmp_path / "tales.jsonl", TALES)
    code, _ = load(run_cli, "stories", str(path), "--no-embed")
    assert code == 0 and counts(schema)["embedded"] == 0
    result = run_cli("embed", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["embedded"] == counts(schema)["chunks"]
    assert counts(schema)["embedded"] == counts(schema)["chunks"]
    assert json.loads(run_cli("embed", "--json").stdout)["embedded"] == 0


@pytest.mark.scale
@pytest.mark.process
def test_kill_9_then_rerun_equals_a_clean_load(schema, tmp_path):
    """A load killed mid-way and run again ends exactly like an uninterrupted one."""
    passages = [
        {
            "title": f"Place {i}",
            "text": f"Place {i} lies on the road from town {i % 17} to town {i % 29}. "
            f"It is known for its {['wells', 'olives', 'bridges', 'mills'][i % 4]}.",
        }
        for i in range(3000)
    ]
    corpus = tmp_path / "big.json"
    corpus.write_text(json.dumps(passages))
    cmd = [graphrag_exe(), "load", "qa-corpus", str(corpus), "--no-embed", "--json"]
    env = dict(schema.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "none.env"))
    import os

    process = subprocess.Popen(cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while counts(schema)["documents"] < 300 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    # a commit the client sent just before it died may still land on the server: wait for it
    partial, settled = -1, counts(schema)["documents"]
    while partial != settled:
        partial = settled
        time.sleep(1.0)
        settled = counts(schema)["documents"]
    assert 0 < partial < 3000, f"the kill should land mid-way (had {partial})"
    rerun = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    out = json.loads(rerun.stdout)
    assert out["documents"]["unchanged"] == partial and out["documents"]["created"] == 3000 - partial
    assert counts(schema) == {"documents": 3000, "chunks": 3000, "from_document": 3000, "next_chunk": 0, "embedded": 0}
