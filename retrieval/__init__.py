"""Question in, evidence out, answer back: the retrieval modes, one module each.

- vector   — `db.index.vector.queryNodes` on chunk embeddings (vector.py)
- fulltext — `db.index.fulltext.queryNodes` on chunk text, query escaped (fulltext.py)
- hybrid   — weighted reciprocal-rank fusion of the two (hybrid.py)
- graph    — hybrid, then each top seed followed by the chunk it leads to through a shared
             rare phrase or a topic it names, and the chunks about the question's entities (graph.py)
- ppr      — Open GDS personalized PageRank over the chunk–entity graph, seeded by the
             question's entities and the top hybrid chunks (ppr.py)

`base.py` holds the interface (a neo4j-graphrag retriever), `Evidence`, `Filters`, `Analysis`
and the fusion weights; `analysis.py` the question analysis and its entities; `about.py` the
entity `--about` names; `relation.py`
the "how are A and B related" route; `context.py` the context graph; `answer.py` the cited
answer; `qa.py` one question end to end; `chat.py` multi-turn state. Filters (corpus, date
range, about) hold in every mode; everything runs in read transactions.
"""

from __future__ import annotations

from .analysis import QuestionAnalyzer
from .base import DEFAULT_MODE, MODES, WEIGHTS, Analysis, Evidence, Filters, Retriever, escape_lucene, lucene_query
from .fulltext import FulltextRetriever
from .graph import GraphRetriever
from .hybrid import HybridRetriever
from .ppr import PPRRetriever
from .vector import VectorRetriever

RETRIEVERS: dict[str, type[Retriever]] = {
    "vector": VectorRetriever,
    "fulltext": FulltextRetriever,
    "hybrid": HybridRetriever,
    "graph": GraphRetriever,
    "ppr": PPRRetriever,
}


def retriever(mode: str, graph, embedder, weights: dict | None = None, timings: dict | None = None) -> Retriever:
    """The retriever of `mode` (one of MODES)."""
    from ..errors import GraphragError

    if mode not in RETRIEVERS:
        raise GraphragError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
    return RETRIEVERS[mode](graph, embedder, weights, timings)


__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "RETRIEVERS",
    "WEIGHTS",
    "Analysis",
    "Evidence",
    "Filters",
    "FulltextRetriever",
    "GraphRetriever",
    "HybridRetriever",
    "PPRRetriever",
    "QuestionAnalyzer",
    "Retriever",
    "VectorRetriever",
    "escape_lucene",
    "lucene_query",
    "retriever",
]
