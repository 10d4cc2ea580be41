"""`graphrag sanity`: the graph's verification queries (cypher/queries/sanity/) in one report."""

from __future__ import annotations

from graphrag_cypher.db import Graph


def check(graph: Graph, corpus: str | None = None, examples: int = 10) -> dict:
    """Counts, per-document coverage, Wikidata alignment, orphans and duplicates; `ok` is False
    when an integrity rule is broken (the `violations` say which)."""
    counts = graph.read("sanity/counts")[0]
    documents = graph.read("sanity/coverage", corpus=corpus)
    wikidata = graph.read("sanity/wikidata")[0]
    orphans = graph.read("sanity/orphans")[0]
    duplicates = graph.read("sanity/duplicates", examples=examples)[0]
    violations = [f"{name}: {count}" for name, count in orphans.items() if count]
    if duplicates["duplicateMentions"]:
        violations.append(f"duplicateMentions: {duplicates['duplicateMentions']}")
    with_places = sum(1 for d in documents if d["places"])
    return {
        "labels": {k: v for k, v in counts["labels"].items() if v},
        "relationships": {k: v for k, v in counts["relationships"].items() if v and not k.startswith("(")},
        "coverage": {
            "documents": documents,
            "summary": {
                "documents": len(documents),
                "documents_with_places": with_places,
                "chunks": sum(d["chunks"] for d in documents),
                "chunks_with_places": sum(d["chunksWithPlaces"] for d in documents),
                "place_links": sum(d["links"] for d in documents),
            },
        },
        "wikidata": wikidata,
        "orphans": orphans,
        "duplicates": duplicates,
        "violations": violations,
        "ok": not violations,
    }
