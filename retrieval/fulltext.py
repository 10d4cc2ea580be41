"""fulltext — `db.index.fulltext.queryNodes` on chunk text, the question's words escaped
(cypher/queries/retrieval/fulltext.cypher)."""

from __future__ import annotations

from .base import Analysis, Evidence, fetch_size, fulltext_query
from .retriever import Retriever


class FulltextRetriever(Retriever):
    name = "fulltext"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        rows = self.graph.read(
            "retrieval/fulltext",
            query=fulltext_query(analysis),
            k=k,
            fetch=fetch_size(k, analysis.filters),
            **analysis.filters.params(),
        )
        return [Evidence.from_row(r, [f"fulltext#{i + 1}"]) for i, r in enumerate(rows)]
