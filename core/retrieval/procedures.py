"""Graph retrieval's building blocks through the graphrag plugin's procedures.

:func:`neighbours_via_procedure` gives the rows of `retrieval/seed_neighbours.cypher` (the
chunks each seed leads to through a shared phrase or a topic it names) by one call of
`graphrag.retrieve.neighbours`, plus `seedSimilarity`: how alike seed and neighbour are
(Neo4j's `vector.similarity.cosine`, in [0, 1]).
"""

from __future__ import annotations

from graphrag_cypher import plugin

from .base import ABOUT_RULES, WEIGHTS

NEIGHBOURS = "graphrag.retrieve.neighbours"


def has_neighbours_procedure(graph) -> bool:
    return plugin.has(graph, NEIGHBOURS)


def neighbours_via_procedure(
    graph,
    seed_ids: list[str],
    embedding: list[float],
    *,
    max_phrase_chunks: float = WEIGHTS["maxPhraseChunks"],
    about_rules: set[str] | None = None,
    about_weight: float = WEIGHTS["aboutWeight"],
    corpus: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> list[dict]:
    """seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, via
    per (seed, neighbour): seed_neighbours.cypher's rows and the seed–neighbour similarity."""
    config = {
        "maxPhraseChunks": max_phrase_chunks,
        "aboutRules": sorted(ABOUT_RULES if about_rules is None else about_rules),
        "aboutWeight": float(about_weight),
        "corpus": corpus,
        "from": date_from,
        "to": date_to,
    }
    return graph.read("retrieval/neighbours_procedure", seedIds=list(seed_ids), embedding=embedding, config=config)
