"""The relation route: "how are A and B related" answered from the paths that join A and B
(cypher/queries/retrieval/relation_paths.cypher, path_chunks.cypher, chunk_paths.cypher)."""

from __future__ import annotations

import re
import time

from .base import Analysis, Evidence
from .question.analyzer import QuestionAnalyzer

MAX_PATH_ENDS = 20  # entities per side of a relation question (each pair is one shortest-path search)


def relation(analyzer: QuestionAnalyzer, analysis: Analysis, k: int = 5) -> tuple[list[dict], list[Evidence]] | None:
    """Paths between the two entities a relation question names, and the chunks they rest on.

    Each side is every entity found by that name (a story's entity and its canonical one
    alike). Typed relations come first: a path such as Reynold -[DEFEATS]-> Brannock is
    evidence in itself, and its evidence is the chunks its entities came from. Only when
    no typed path joins the two are paths through shared chunks searched.
    None when a side names no known entity.
    """
    graph = analyzer.graph
    started = time.perf_counter()
    ends = []
    for phrase in (analysis.route.a, analysis.route.b):
        match = analyzer.entities(phrase, re.findall(r"\w+", phrase))
        if not match:
            return None
        ends.append([e["id"] for e in match][:MAX_PATH_ENDS])
    a, b = ends[0], [x for x in ends[1] if x not in ends[0]]
    if not b:
        return None
    params = analysis.filters.params()
    paths = [dict(p, kind="typed") for p in graph.read("retrieval/relation_paths", a=a, b=b, limit=k)]
    if paths:
        entity_ids = list(dict.fromkeys(n["id"] for p in paths for n in p["nodes"]))
        rows = graph.read("retrieval/path_chunks", entityIds=entity_ids, k=k, **params)
        evidence = [Evidence.from_row(r, [f"path: {', '.join(r['entities'][:4])}"]) for r in rows]
    else:
        paths = [dict(p, kind="via chunks") for p in graph.read("retrieval/chunk_paths", a=a, b=b, maxHops=3, limit=k)]
        chunk_ids = list(dict.fromkeys(cid for p in paths for cid in p["support"]))[: k * 2]
        rows = graph.read("retrieval/chunks_by_id", ids=chunk_ids, about=params["about"]) if chunk_ids else []
        evidence = [Evidence.from_row(dict(r, score=1.0 / (i + 1)), ["path"]) for i, r in enumerate(rows)]
    analyzer.timings["relation_ms"] = (time.perf_counter() - started) * 1000
    return paths, evidence
