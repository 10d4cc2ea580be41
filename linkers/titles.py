"""Document titles as entities, and the chunks that name them.

Encyclopedic corpora (wiki pages, QA passages) already say what each text is about: its
title. Registering every title as a `:Topic` entity, linked to its own chunks, and linking
every chunk that names another title (the linkers' matcher: folded, word boundaries,
capitalised), connects passages that talk about each other without any LLM. Graph
retrieval then walks seed chunk → topic → the passage about it (and back).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from graphrag_cypher.db import Graph
from graphrag_cypher.text import fold, norm_name

from .base import LinkOptions, LinkResult, options_for
from .matcher import Matcher, load_stoplist

PAGE = 2000


@dataclass(kw_only=True)
class TitleLinkOptions(LinkOptions):
    min_length: int = 4  # shortest title (folded) looked for in text
    batch: int = 2000


@dataclass(kw_only=True)
class TitleLinkResult(LinkResult):
    """What a title run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "title_mentions_found",
        "created": "mentions_created",
        "total": "mentions_total",
        "updated": None,
        "removed": None,
    }

    documents: int = 0
    topics: int = 0
    names_searched: int = 0


def entity_id(title: str) -> str:
    return "title:" + hashlib.sha1(fold(title).strip().encode("utf-8")).hexdigest()[:16]


def link_titles(graph: Graph, options: TitleLinkOptions | None = None, **fields) -> TitleLinkResult:
    """Register every title as a :Topic of its chunks and link the chunks naming other titles."""
    options = options_for(TitleLinkOptions, options, fields)
    started = time.perf_counter()
    docs = []
    skip = 0
    while True:
        page = graph.read("titles/documents", corpus=options.corpus, skip=skip, limit=PAGE)
        docs += page
        skip += PAGE
        if len(page) < PAGE:
            break
    at = datetime.now(UTC).isoformat(timespec="seconds")
    by_entity: dict[str, dict] = {}
    for doc in docs:
        title = " ".join(doc["title"].split())
        row = by_entity.setdefault(
            entity_id(title),
            {"entityId": entity_id(title), "title": title, "normName": norm_name(title), "chunkIds": []},
        )
        row["chunkIds"] += [c["id"] for c in doc["chunks"]]
    matcher = Matcher(
        {row["title"]: [key] for key, row in by_entity.items()},
        min_length=options.min_length,
        stoplist=load_stoplist(),
        require_capital=True,
        skip_tails=False,
    )
    own = {cid: key for key, row in by_entity.items() for cid in row["chunkIds"]}
    mentions: dict[tuple[str, str], str] = {}
    for doc in docs:
        for chunk in doc["chunks"]:
            for match in matcher.find(chunk["text"] or ""):
                for target in match.targets:
                    if own.get(chunk["id"]) != target:
                        mentions.setdefault((chunk["id"], target), match.surface)
    result = TitleLinkResult(
        documents=len(docs),
        topics=len(by_entity),
        names_searched=len(matcher),
        found=len(mentions),
        dry_run=options.dry_run,
    )
    result.seconds["match"] = round(time.perf_counter() - started, 3)
    if options.dry_run:
        return result
    started = time.perf_counter()
    batch = options.batch
    rows = list(by_entity.values())
    for start in range(0, len(rows), batch):
        graph.write("titles/upsert_entities", rows=rows[start : start + batch], at=at)
        options.progress(f"topics: {min(start + batch, len(rows))}/{len(rows)}")
    links = [{"chunkId": c, "entityId": e, "matched": m} for (c, e), m in mentions.items()]
    before = graph.read("titles/count_mentions")[0]["total"]
    for start in range(0, len(links), batch):
        graph.write("titles/mentions", rows=links[start : start + batch], at=at)
        options.progress(f"mentions: {min(start + batch, len(links))}/{len(links)}")
    result.total = graph.read("titles/count_mentions")[0]["total"]
    result.created = result.total - before
    result.seconds["write"] = round(time.perf_counter() - started, 3)
    return result
