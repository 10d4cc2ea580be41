"""Documents in the graph: list them, read one, forget one completely.

`forget` removes a document, its chunks (with their mentions and phrase links), the phrases
that no longer join two chunks and the entities nothing else gives a source to, in one write
transaction, so `graphrag sanity` finds no orphans afterwards.
"""

from __future__ import annotations

from graphrag_cypher.audit import audited
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
    """Delete the document and everything only it gave a source to; counts of what went. One
    audit record (operation `forget`, with the id), also when there was no such document."""
    with audited(graph, "forget") as audit:
        found, _, persons, rows = graph.write_steps(
            ("audit/document_corpus", {"id": document_id}),
            ("phrases/release_documents", {"ids": [document_id]}),
            ("authors/release_documents", {"ids": [document_id]}),  # its authors no other document has go
            ("documents/forget", {"id": document_id}),
        )
        if not rows:
            raise DocumentNotFound(f"no document with id {document_id!r}: nothing forgotten")
        audit.corpus(found[0]["corpus"] if found else None)
        counts = {k: rows[0][k] for k in ("documents", "chunks", "phrases", "entities")}
        counts["entities"] += persons[0]["persons"]
        if rows[0]["relations"]:  # an infobox's edges, a records file's relations
            counts["relations"] = rows[0]["relations"]
            audit.add({"relationships": {"deleted": rows[0]["relations"]}})
        audit.ids("forgotten", [document_id])
        audit.add({"documents": {"deleted": counts["documents"]}, "chunks": {"deleted": counts["chunks"]}})
        audit.add({"entities": {"deleted": counts["entities"]}})
    return {"document_id": document_id, **counts}
