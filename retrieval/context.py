"""The context graph of an answer: the entities and relations around its evidence
(cypher/queries/retrieval/context_graph.cypher) and along a relation question's paths."""

from __future__ import annotations

from .base import Evidence
from .shown import draw_params


def empty() -> dict:
    return {"nodes": [], "relationships": [], "mentions": []}


def path_graph(paths: list[dict]) -> dict:
    """The nodes and relationships of typed paths, for the context's NODES / RELATIONSHIPS."""
    nodes: dict[str, dict] = {}
    relationships: dict[tuple, dict] = {}
    for path in paths:
        if path.get("kind") != "typed":
            continue
        for node in path["nodes"]:
            nodes.setdefault(node["id"], node)
        for rel in path["relationships"]:
            relationships.setdefault((rel["start"], rel["type"], rel["end"]), rel)
    return {"nodes": list(nodes.values()), "relationships": list(relationships.values()), "mentions": []}


def evidence_graph(graph, evidence: list[Evidence], shown: dict | None = None, limit: int = 40) -> dict:
    """The entities the evidence chunks mention and the relations between them; `shown` is the
    confidence cut and what the question asks for (shown.draw_params; None: the cut, nothing asked)."""
    if not evidence:
        return empty()
    shown = shown or draw_params(graph.settings)
    rows = graph.read("retrieval/context_graph", chunkIds=[e.chunk_id for e in evidence], limit=limit, **shown)
    return rows[0] if rows else empty()


def merge_graphs(*graphs: dict) -> dict:
    """One context graph from several: nodes and relationships once each, mentions all."""
    nodes: dict[str, dict] = {}
    relationships: dict[tuple, dict] = {}
    mentions: list[dict] = []
    for g in graphs:
        for node in g.get("nodes", []):
            nodes.setdefault(node["id"], node)
        for rel in g.get("relationships", []):
            relationships.setdefault((rel["start"], rel["type"], rel["end"]), rel)
        mentions += g.get("mentions", [])
    return {"nodes": list(nodes.values()), "relationships": list(relationships.values()), "mentions": mentions}
