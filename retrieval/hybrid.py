"""hybrid — weighted reciprocal-rank fusion of the vector and full-text lists, in one query
(cypher/queries/retrieval/hybrid.cypher; weights `vectorWeight`, `fulltextWeight`, `rrfK`), which
also reads each row's copies: a question is one round trip."""

from __future__ import annotations

from .base import MAX_COPIES, Analysis, Evidence, copy_spare, fetch_size, fulltext_query
from .retriever import Retriever


class HybridRetriever(Retriever):
    name = "hybrid"

    def rank(self, analysis: Analysis, k: int, spare: int = 0, copies: bool = False) -> list[Evidence]:
        """The best `k`, then up to `spare` more of the same ranking (the index hits asked for are
        those of k, so the first k are the same); with `copies`, each row's copies in scope."""
        w = self.weights
        rows = self.graph.read(
            "retrieval/hybrid",
            embedding=self.embedding(analysis),
            query=fulltext_query(analysis),
            k=k + spare,
            fetch=fetch_size(k, analysis.filters),
            vectorWeight=w["vectorWeight"],
            fulltextWeight=w["fulltextWeight"],
            rrfK=w["rrfK"],
            maxCopies=MAX_COPIES if copies else None,
            **analysis.filters.params(),
        )
        return [Evidence.from_row(r) for r in rows]

    def ranked(self, analysis: Analysis, n: int) -> list[Evidence]:
        return self.rank(analysis, n, spare=copy_spare(n), copies=True)
