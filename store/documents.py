"""Documents in the graph: list them, read one, forget one completely.

`forget` removes a document, its chunks (with their mentions and phrase links), the phrases
that no longer join two chunks and the entities nothing else gives a source to, in one write
transaction, so `graphrag sanity` finds no orphans afterwards.
"""

from __future__ import annotations

from graphrag_cypher.errors import GraphragError

MAX_LIST = 500
MAX_CHUNKS = 50


class DocumentNotFound(GraphragError):
    """No document has the id asked for."""


def list_documents(graph, corpus: str | None = None, skip: int = 0, limit: int = 100) -> list[dict]:
    return graph.read("documents/list", corpus=corpus, skip=max(0, int(skip)), limit=max(1, min(int(limit), MAX_LIST)))


def get_document(graph, document_id: str, max_chunks: int = MAX_CHUNKS) -> dict:
    rows = graph.read("documents/get", id=document_id, maxChunks=max(0, min(int(max_chunks), MAX_CHUNKS)))
    if not rows:
        raise DocumentNotFound(f"no document with id {document_id!r} (list them with GET /documents)")
    return rows[0]


def forget(graph, document_id: str) -> dict:
    """Delete the document and everything only it gave a source to; counts of what went."""
    steps = graph.write_steps(
        ("phrases/release_documents", {"ids": [document_id]}),
        ("authors/release_documents", {"ids": [document_id]}),  # its authors no other document has go
        ("documents/forget", {"id": document_id}),
    )
    rows = steps[-1]
    if not rows:
        raise DocumentNotFound(f"no document with id {document_id!r}: nothing forgotten")
    counts = {k: rows[0][k] for k in ("documents", "chunks", "phrases", "entities")}
    counts["entities"] += steps[1][0]["persons"]
    return {"document_id": document_id, **counts}
