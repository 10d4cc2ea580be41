"""ppr — Open GDS personalized PageRank over the chunk–entity graph, seeded by the question's
entities and the top hybrid chunks, fused with the hybrid list by reciprocal rank (`rrfK`)
(cypher/queries/retrieval/ppr*.cypher)."""

from __future__ import annotations

from .base import Analysis, Evidence, Retriever
from .hybrid import HybridRetriever

PPR_GRAPH = "graphrag_ppr"


def fuse(lists: list[tuple[float, list[Evidence]]], rrf_k: float) -> list[Evidence]:
    """Weighted reciprocal-rank fusion: an item at rank r (from 1) of a list adds weight / (rrf_k + r)."""
    fused: dict[str, Evidence] = {}
    for weight, items in lists:
        for rank, ev in enumerate(items):
            target = fused.setdefault(
                ev.chunk_id, Evidence(ev.chunk_id, ev.document_id, ev.title, ev.uri, ev.text, 0.0, [])
            )
            target.score += weight / (rrf_k + rank + 1)
            target.via += ev.via
    return sorted(fused.values(), key=lambda e: -e.score)


class PPRRetriever(Retriever):
    name = "ppr"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        seeds = HybridRetriever(self.graph, self.embedder, self.weights, self.timings).rank(analysis, k)
        sources = [s.chunk_id for s in seeds] + [e["id"] for e in analysis.entities]
        if not sources or not self._ensure_projection():
            return seeds  # nothing to walk from, or no entities linked yet: hybrid is the answer
        rows = self.graph.read(
            "retrieval/ppr",
            name=PPR_GRAPH,
            sourceIds=sources,
            k=max(k * 3, 15),
            damping=0.5,
            **analysis.filters.params(),
        )
        walked = list({r["chunkId"]: Evidence.from_row(r, ["ppr"]) for r in rows}.values())
        # Seeds keep their place; PPR adds what the graph walk reaches; rank fusion of both lists.
        return fuse([(1.0, seeds), (1.0, walked)], self.weights["rrfK"])[:k]

    def _ensure_projection(self) -> bool:
        """A current GDS projection of the chunk–entity graph, made once and reused."""
        expected = self.graph.read("retrieval/ppr_graph_size")[0]["relationships"]
        if not expected:
            return False
        info = self.graph.read("retrieval/ppr_graph_info", name=PPR_GRAPH)
        # Undirected projection stores each relationship twice.
        if info and info[0]["relationshipCount"] == 2 * expected:
            return True
        if info:
            self.graph.read("retrieval/ppr_drop", name=PPR_GRAPH)
        self.graph.read("retrieval/ppr_project", name=PPR_GRAPH)
        return True
