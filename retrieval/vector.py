"""vector — `db.index.vector.queryNodes` on chunk embeddings (cypher/queries/retrieval/vector.cypher)."""

from __future__ import annotations

from .base import Analysis, Evidence, fetch_size
from .retriever import Retriever


class VectorRetriever(Retriever):
    name = "vector"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        rows = self.graph.read(
            "retrieval/vector",
            embedding=self.embedding(analysis),
            k=k,
            fetch=fetch_size(k, analysis.filters),
            **analysis.filters.params(),
        )
        return [Evidence.from_row(r, [f"vector#{i + 1}"]) for i, r in enumerate(rows)]
