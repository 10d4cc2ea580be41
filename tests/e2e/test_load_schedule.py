"""The order a load sends texts to the embedder, against the session's real Neo4j and the real
local model: a local model gets like-length texts in each call (sorted within windows of
`embed_window`, document order between windows) and writes the same graph as document order;
an endpoint keeps document order; a stop keeps whole documents; the load says where its time
went (`LoadStats.seconds`)."""

import time

import pytest

from graphrag_cypher.chunking import chunk_document
from graphrag_cypher.config import load_settings
from graphrag_cypher.db import connect, query
from graphrag_cypher.model import ParsedDocument, Section
from graphrag_cypher.store.ingest import Loader, LoadOptions, embedding_input

pytestmark = pytest.mark.e2e

SENTENCES = [
    "The miller counted sacks.",
    "A heron stood in the reeds below the weir while the wheel turned slowly in the brown water.",
    "Rain.",
    "The ferryman of the lower crossing kept a ledger of every cart, every goat and every pilgrim "
    "who paid him a copper to reach the market town on the far bank before the bells rang noon.",
]


def doc(n: int) -> ParsedDocument:
    # documents of one to several chunks whose lengths differ, so that order and length disagree
    text = " ".join(f"({n}.{i}) {SENTENCES[(n * 3 + i) % len(SENTENCES)]}" for i in range(1 + (n * 5) % 7))
    return ParsedDocument(
        id=f"mill:{n}", title=f"Mill {n}", kind="story", source=f"mills.jsonl#{n}", sections=[Section(text=text)]
    )


DOCS = [doc(n) for n in range(10)]


def options(**kw) -> LoadOptions:
    return LoadOptions(loader="test", source_root="mills", chunk_size=200, overlap=0, **kw)


class Recording:
    """The real local model, with the calls a load makes to it written down (and the name a
    load sees, to stand for an endpoint)."""

    def __init__(self, inner, name: str | None = None):
        self.inner, self.name, self.dimensions = inner, name or inner.name, inner.dimensions
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def model():
    from graphrag_cypher.embedder import make_embedder

    return make_embedder(load_settings())


@pytest.fixture
def graph(schema):
    with connect(load_settings()) as graph:
        yield graph


def wipe(graph) -> None:
    graph.run_schema(query("admin/delete_all_data"))


def stored(schema) -> dict:
    with schema.driver() as driver:
        records = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) OPTIONAL MATCH (c)-[:NEXT_CHUNK]->(n:Chunk) "
            "RETURN c.id AS id, d.id AS doc, n.id AS next, c.text AS text, c.contentHash AS hash, "
            "c.embeddingModel AS model, c.embedding AS embedding"
        ).records
    return {r["id"]: dict(r) for r in records}


def chunk_count(document: ParsedDocument) -> int:
    return sum(1 for c in chunk_document(document, size=200, overlap=0) if c.text.strip())


def test_a_local_model_gets_like_length_texts_and_writes_the_same_graph(schema, graph, model):
    in_order = Recording(model)
    Loader(graph, in_order, options(embed_step=4, embed_window=1)).run(iter(DOCS))
    before = stored(schema)
    wipe(graph)

    windowed = Recording(model)
    started = time.perf_counter()
    stats = Loader(graph, windowed, options(embed_step=4, embed_window=8)).run(iter(DOCS))
    wall = time.perf_counter() - started
    after = stored(schema)
    wipe(graph)

    sent = [t for call in in_order.calls for t in call]
    assert sent == [embedding_input(d.title, c.text) for d in DOCS for c in chunk_document(d, size=200, overlap=0)]
    assert len(sent) > 16, "three windows at least"
    got = [t for call in windowed.calls for t in call]
    assert got != sent, "the documents' order is not the length order"
    for start in range(0, len(sent), 8):  # each window: the same texts, shortest first
        assert got[start : start + 8] == sorted(sent[start : start + 8], key=len)
    assert all(len(call) <= 4 for call in windowed.calls), "progress and a stop every embed_step texts"

    assert before.keys() == after.keys() and len(before) == len(sent)
    for chunk_id, row in before.items():
        other = after[chunk_id]
        assert {k: v for k, v in row.items() if k != "embedding"} == {
            k: v for k, v in other.items() if k != "embedding"
        }
        assert max(abs(a - b) for a, b in zip(row["embedding"], other["embedding"], strict=True)) < 1e-4

    # where the time went: every step is counted, and the loading thread's steps fit in the wall time
    assert {"read", "chunk", "lookup", "encode", "write", "write_wait"} <= stats.seconds.keys()
    assert stats.seconds["encode"] > 0 and stats.seconds["write"] > 0
    serial = sum(stats.seconds[s] for s in ("read", "chunk", "lookup", "encode", "write_wait"))
    assert serial <= wall + 0.05
    assert "seconds" not in stats.to_dict() and "seconds" not in stats.progress()


def test_an_endpoint_gets_texts_in_document_order(schema, graph, model):
    endpoint = Recording(model, name="openai/text-embedding-3-small")
    Loader(graph, endpoint, options(embed_step=4, embed_window=8)).run(iter(DOCS))
    sent = [t for call in endpoint.calls for t in call]
    assert sent == [embedding_input(d.title, c.text) for d in DOCS for c in chunk_document(d, size=200, overlap=0)]


def test_a_stop_within_a_window_keeps_whole_documents(schema, graph, model):
    recording = Recording(model)
    stats = Loader(
        graph, recording, options(embed_step=4, embed_window=8), should_stop=lambda: len(recording.calls) >= 3
    ).run(iter(DOCS))
    assert stats.cancelled and len(recording.calls) == 3
    rows = stored(schema)
    written = {row["doc"] for row in rows.values()}
    counts = {d.id: chunk_count(d) for d in DOCS}
    # the first window (two calls) is embedded: every document whose chunks all lie in it is kept
    first, total = set(), 0
    for d in DOCS:
        total += counts[d.id]
        if total > 8:
            break
        first.add(d.id)
    assert first and first <= written
    for document in written:  # and only whole documents
        assert sum(1 for row in rows.values() if row["doc"] == document) == counts[document]
        assert all(row["embedding"] is not None for row in rows.values() if row["doc"] == document)
    assert stats.created == len(written) < len(DOCS)
