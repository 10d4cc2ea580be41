"""hybrid — weighted reciprocal-rank fusion of the vector and full-text lists, in one query
(cypher/queries/retrieval/hybrid.cypher; weights `vectorWeight`, `fulltextWeight`, `rrfK`)."""

from __future__ import annotations

from .base import Analysis, Evidence, fetch_size, fulltext_query
from .retriever import Retriever


class HybridRetriever(Retriever):
    name = "hybrid"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        w = self.weights
        rows = self.graph.read(
            "retrieval/hybrid",
            embedding=self.embedding(analysis),
            query=fulltext_query(analysis),
            k=k,
            fetch=fetch_size(k, analysis.filters),
            vectorWeight=w["vectorWeight"],
            fulltextWeight=w["fulltextWeight"],
            rrfK=w["rrfK"],
            **analysis.filters.params(),
        )
        return [Evidence.from_row(r) for r in rows]
