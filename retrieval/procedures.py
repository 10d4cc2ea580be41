"""Graph retrieval through the graphrag plugin's procedures.

- :func:`graph_via_procedure`: the whole `graph` mode (`GraphRetriever.rank`: hybrid seeds, the
  chunks about the question's entities, each seed's best neighbour placed after it) by one call
  of `graphrag.retrieve.graph`; the same rows in the same order as the Cypher files and Python.
- :func:`neighbours_via_procedure`: the rows of `retrieval/seed_neighbours.cypher` (each seed's
  strongest neighbours through a shared phrase or a topic it names) by one call of
  `graphrag.retrieve.neighbours`, `seedSimilarity` included.
"""

from __future__ import annotations

from graphrag_cypher.admin import plugin

from .base import ABOUT_RULES, WEIGHTS

GRAPH = "graphrag.retrieve.graph"

# The weights the graph procedure reads from its config, by their WEIGHTS names.
GRAPH_WEIGHTS = (
    "vectorWeight",
    "fulltextWeight",
    "rrfK",
    "graphCandidates",
    "linkSeeds",
    "linksPerSeed",
    "leadsPerSeed",
    "leadPool",
    "leadHits",
    "linkWeight",
    "coverWeight",
    "phraseCap",
    "maxPhraseChunks",
    "phraseChunksShare",
    "aboutWeight",
    "perEntity",
)


def has_graph_procedure(graph) -> bool:
    """Whether the graph mode runs in Neo4j: the procedure is installed and, for a key scoped to
    corpora, takes `corpora` (a plugin built before scopes would refuse the question; the Cypher
    path scopes it the same way)."""
    from graphrag_cypher.principal import current

    if not plugin.has(graph, GRAPH):
        return False
    return current().corpora is None or plugin.accepts(graph, GRAPH, "corpora")


def _filters(corpus: str | None, date_from: str | None, date_to: str | None, about: list[str] | None = None) -> dict:
    """The document filters of a procedure's config; `corpora`, the corpora of the key a question
    is asked for, only for a key scoped to corpora (a plugin built before scopes refuses the key:
    `has_graph_procedure` then sends the question down the Cypher path)."""
    from graphrag_cypher.principal import current

    scope = current().corpora
    return {
        "corpus": corpus,
        "from": date_from,
        "to": date_to,
        "about": list(about) if about else None,
        **({"corpora": list(scope)} if scope is not None else {}),
    }


def _procedure_config(config: dict) -> dict:
    """A config for a procedure: `about` only when set (a plugin built before it refuses the key, even null)."""
    return {key: value for key, value in config.items() if key != "about" or value is not None}


def neighbour_config(weights: dict | None = None, **filters) -> dict:
    """graphrag.retrieve.neighbours's config: seed_neighbours.cypher's parameters from the weights."""
    w = {**WEIGHTS, **(weights or {})}
    return {
        "maxPhraseChunks": w["maxPhraseChunks"],
        "phraseChunksShare": float(w["phraseChunksShare"]),
        "phraseCap": float(w["phraseCap"]),
        "aboutRules": sorted(ABOUT_RULES),
        "aboutWeight": float(w["aboutWeight"]),
        "linkWeight": float(w["linkWeight"]),
        "leadPool": int(w["leadPool"]),
        "leadHits": int(w["leadHits"]),
        "perSeed": int(w["leadsPerSeed"]),
        **_filters(filters.get("corpus"), filters.get("date_from"), filters.get("date_to"), filters.get("about")),
    }


def neighbours_via_procedure(
    graph,
    seed_ids: list[str],
    embedding: list[float],
    *,
    weights: dict | None = None,
    corpus: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    about: list[str] | None = None,
) -> list[dict]:
    """seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, strength, via
    per (seed, neighbour): seed_neighbours.cypher's rows, the graph mode's weights unless given."""
    config = neighbour_config(weights, corpus=corpus, date_from=date_from, date_to=date_to, about=about)
    return graph.read(
        "retrieval/neighbours_procedure", seedIds=list(seed_ids), embedding=embedding, config=_procedure_config(config)
    )


def graph_via_procedure(
    graph,
    embedding: list[float],
    query: str,
    *,
    k: int,
    weights: dict,
    entity_ids: list[str],
    terms: list[str],
    filters: dict,
    fetch: int,
    spare: int = 0,
    max_copies: int | None = None,
) -> list[dict]:
    """chunkId, documentId, title, uri, text, score, via, contentHash, copies: the graph mode's
    ranking, best first, the best `k` then up to `spare` more.

    `query` is the escaped Lucene query of the full-text list, `fetch` how many hits each index
    gives, `filters` {corpus, from, to, about} (Filters.params). With `max_copies`, each row's
    copies in scope (chunk_copies.cypher's columns) come in the same round trip; else null."""
    config = {
        **{name: weights[name] for name in GRAPH_WEIGHTS},
        "aboutRules": sorted(ABOUT_RULES),
        "k": k,
        **({"spare": spare} if spare else {}),
        "fetch": fetch,
        "entityIds": list(entity_ids),
        "terms": list(terms),
        **_filters(filters.get("corpus"), filters.get("from"), filters.get("to"), filters.get("about")),
    }
    return graph.read(
        "retrieval/graph_procedure",
        embedding=embedding,
        query=query,
        config=_procedure_config(config),
        maxCopies=max_copies,
    )
