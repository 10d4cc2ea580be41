"""The entities a question names: grouped by the name that found them, and of several the one
the question means."""

from __future__ import annotations

from ...text import fold
from ..base import Filters
from .graph_catalog import Catalog, _edges
from .plans import MAX_CANDIDATES, Hop


def _entity_spans(entities: list[dict], question: str) -> list[tuple[str, list[dict]]]:
    """The question's entities grouped by the name that found them (one name may find several)."""
    spans: dict[str, list[dict]] = {}
    for e in entities:
        spans.setdefault(" ".join(fold(e["matched"]).split()), []).append(e)
    # a name that is also a document noun or a corpus name is not what the question is about
    return [(name, group) for name, group in spans.items() if name]


def choose_entity(graph, candidates: list[dict], cat: Catalog, hop: Hop | None, filters: Filters):
    """(chosen, others, why): of several entities a name finds, the one the question means:
    of the type the relation needs, with edges of that relation, then the one most chunks of the
    scope link to."""
    if len(candidates) == 1:
        weights = graph.read("retrieval/entity_weights", ids=[candidates[0]["id"]], corpus=filters.corpus)
        return _public(candidates[0], weights[0] if weights else {}), [], ""
    weights = {
        w["id"]: w
        for w in graph.read("retrieval/entity_weights", ids=[e["id"] for e in candidates], corpus=filters.corpus)
    }
    need: frozenset[str] = frozenset()
    with_edges: set[str] = set()
    if hop is not None and hop.relation in cat.relations:
        rel = cat.relations[hop.relation]
        need = rel.sources if hop.x_is_source else rel.targets
        with_edges = {e["id"] for e in candidates[:MAX_CANDIDATES] if _edges(graph, [e["id"]], rel, hop.x_is_source)}

    def key(e):
        w = weights.get(e["id"], {})
        fits = bool(need & set(e.get("labels") or [])) if need else True
        edged = e["id"] in with_edges if hop is not None else True
        return (not edged, not fits, -(w.get("chunks") or 0), -(w.get("relations") or 0), e["id"])

    ranked = sorted(candidates, key=key)
    chosen = ranked[0]
    w = weights.get(chosen["id"], {})
    why = (
        f"{chosen['matched']!r} names {len(candidates)} entities; chose {chosen['id']} "
        f"({chosen.get('type') or 'entity'}, {w.get('chunks') or 0} chunks link to it"
        + (f", with {hop.relation} edges" if hop and chosen["id"] in with_edges else "")
        + ")"
    )
    return _public(chosen, w), [_public(e, weights.get(e["id"], {})) for e in ranked[1:]], why


def _public(e: dict, weight: dict) -> dict:
    return {
        "id": e["id"],
        "name": e["name"],
        "type": e.get("type"),
        "chunks": weight.get("chunks", 0),
        "relations": weight.get("relations", 0),
    }
