"""Document titles as entities, and the chunks that name them.

Encyclopedic corpora (wiki pages, QA passages) already say what each text is about: its
title. Registering every title as a `:Topic` entity, linked to its own chunks, and linking
every chunk that names another title (the linkers' matcher: folded, word boundaries,
capitalised), connects passages that talk about each other without any LLM. Graph
retrieval then walks seed chunk → topic → the passage about it (and back).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from graphrag_cypher.linkers.matcher import Matcher, fold, load_stoplist
from graphrag_cypher.text import norm_name

PAGE = 2000


def entity_id(title: str) -> str:
    return "title:" + hashlib.sha1(fold(title).strip().encode("utf-8")).hexdigest()[:16]


def link_titles(graph, corpus: str | None = None, min_length: int = 4, batch: int = 2000, dry_run: bool = False,
                on_progress=lambda message: None) -> dict:
    docs = []
    skip = 0
    while True:
        page = graph.read("titles/documents", corpus=corpus, skip=skip, limit=PAGE)
        docs += page
        skip += PAGE
        if len(page) < PAGE:
            break
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    by_entity: dict[str, dict] = {}
    for doc in docs:
        title = " ".join(doc["title"].split())
        row = by_entity.setdefault(entity_id(title), {"entityId": entity_id(title), "title": title,
                                                      "normName": norm_name(title), "chunkIds": []})
        row["chunkIds"] += [c["id"] for c in doc["chunks"]]
    matcher = Matcher({row["title"]: [key] for key, row in by_entity.items()}, min_length=min_length,
                      stoplist=load_stoplist(), require_capital=True, skip_tails=False)
    own = {cid: key for key, row in by_entity.items() for cid in row["chunkIds"]}
    mentions: dict[tuple[str, str], str] = {}
    for doc in docs:
        for chunk in doc["chunks"]:
            for match in matcher.find(chunk["text"] or ""):
                for target in match.targets:
                    if own.get(chunk["id"]) != target:
                        mentions.setdefault((chunk["id"], target), match.surface)
    result = {"documents": len(docs), "topics": len(by_entity), "names_searched": len(matcher),
              "title_mentions_found": len(mentions), "mentions_created": 0}
    if dry_run:
        return result
    rows = list(by_entity.values())
    for start in range(0, len(rows), batch):
        graph.write("titles/upsert_entities", rows=rows[start:start + batch], at=at)
        on_progress(f"topics: {min(start + batch, len(rows))}/{len(rows)}")
    links = [{"chunkId": c, "entityId": e, "matched": m} for (c, e), m in mentions.items()]
    before = graph.read("titles/count_mentions")[0]["total"]
    for start in range(0, len(links), batch):
        graph.write("titles/mentions", rows=links[start:start + batch], at=at)
        on_progress(f"mentions: {min(start + batch, len(links))}/{len(links)}")
    result["mentions_total"] = graph.read("titles/count_mentions")[0]["total"]
    result["mentions_created"] = result["mentions_total"] - before
    return result
