"""`graphrag link entities`: chunks -[:MENTIONS]-> known entities, and CO_OCCURS between them.

The names are every non-place ``__Entity__``'s name and aliases; the matching is the place
linker's (:class:`.matcher.Matcher`: folded, word boundaries, a capital letter), and so is
the decision (:mod:`.disambiguation`): of overlapping names the longest wins, and a name
shared by several entities links the one the document names unambiguously elsewhere, or
none (counted as undecided); each edge keeps `candidates`, `confidence` and `rule`. An entity with a
``documentId`` (a story's character, say) is only looked for in that document. Afterwards
``(a)-[:CO_OCCURS {count}]->(b)`` counts the chunks two entities are both mentioned in.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import ClassVar

from graphrag_cypher.db import Graph
from graphrag_cypher.text import fold

from .base import LinkOptions, LinkResult, options_for
from .contexts import RAW_WINDOW, Occurrence, longest_matches, window
from .disambiguation import Profile
from .matcher import Matcher, build_name_table, load_stoplist
from .mentions import count_mentions, iter_chunks, sync_mentions
from .places import MIN_CONFIDENCE, SKIP_SECTIONS, resolve

LINKER = "entities"


@dataclass(kw_only=True)
class EntityLinkOptions(LinkOptions):
    min_length: int = 3
    require_capital: bool = True
    max_per_chunk: int = 25
    min_confidence: float = MIN_CONFIDENCE
    batch: int = 2000


@dataclass(kw_only=True)
class EntityLinkResult(LinkResult):
    """What an entity run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "mentions",
        "created": "mentions_created",
        "updated": "mentions_updated",
        "removed": "mentions_removed",
        "total": "mentions_total",
    }

    names: int = 0
    entities: int = 0
    chunks_scanned: int = 0
    matches: int = 0
    undecided: int = 0  # mentions whose best candidate is below min_confidence: no edge
    linked: int = 0  # mentions that got an edge
    rules: dict = field(default_factory=dict)  # rule → mentions decided by it
    co_occurs: int = 0
    co_occurs_created: int = 0
    co_occurs_removed: int = 0

    @property
    def skipped(self) -> dict[str, int]:
        return {"undecided": self.undecided}


def link_entities(graph: Graph, options: EntityLinkOptions | None = None, **fields) -> EntityLinkResult:
    """Link the chunks to the known entities they mention: read → match → decide → write, then CO_OCCURS."""
    options = options_for(EntityLinkOptions, options, fields)
    started = time.perf_counter()
    rows = graph.read("linkers/entity_names")
    names: dict[str, list[str]] = defaultdict(list)
    scope = {}
    profiles = {}
    for row in sorted(rows, key=lambda r: r["id"]):
        own = [name for name in row["names"] or [] if isinstance(name, str) and name.strip()]
        for name in own:
            names[name].append(row["id"])
        # A known entity is a described record: its first name is its title.
        profiles[row["id"]] = Profile(quality=1.0, titles=(fold(own[0]).strip(),) if own else ())
        if row["documentId"]:
            scope[row["id"]] = row["documentId"]
    table = build_name_table(names, min_length=options.min_length, stoplist=load_stoplist(default=False))
    matcher = Matcher(table, require_capital=options.require_capital, skip_tails=False)
    skip = re.compile(SKIP_SECTIONS)
    chunks = list(iter_chunks(graph, options.corpus, with_text=True))
    chunk_doc = {c["id"]: c["docId"] for c in chunks}
    hits: dict[tuple[str, str], list[Occurrence]] = defaultdict(list)
    scanned = 0
    for chunk in chunks:
        if skip.fullmatch(chunk["section"] or ""):
            continue
        scanned += 1
        text = chunk["text"] or ""
        found = []
        for match in matcher.find(text):
            before, after = window(
                text[max(0, match.start - RAW_WINDOW) : match.start], text[match.end : match.end + RAW_WINDOW]
            )
            found.append(Occurrence(chunk["id"], match.key, match.start, match.end, match.surface, before, after))
        for occ in longest_matches(found):
            hits[(chunk["id"], occ.key)].append(occ)
    # Story-scoped entities only count in their own document.
    targets = {key: tuple(t for t in table.targets[key]) for key in table.targets}
    scoped_hits = {}
    for (chunk, key), surfaces in hits.items():  # surfaces: the occurrences
        allowed = tuple(t for t in targets[key] if scope.get(t, chunk_doc[chunk]) == chunk_doc[chunk])
        if allowed:
            scoped_key = key if allowed == targets[key] else f"{key}@{chunk_doc[chunk]}"
            targets[scoped_key] = allowed
            scoped_hits[(chunk, scoped_key)] = surfaces
    result = EntityLinkResult(
        names=len(table.targets),
        entities=len(rows),
        chunks_scanned=scanned,
        matches=len(scoped_hits),
        dry_run=options.dry_run,
    )
    result.seconds["match"] = round(time.perf_counter() - started, 3)
    options.progress(f"entities: {len(table.targets)} names, {len(scoped_hits)} chunk-name matches")
    started = time.perf_counter()
    edges = resolve(scoped_hits, targets, chunk_doc, profiles, options.min_confidence, linker=LINKER, result=result)
    for props in edges.values():
        props.update(source="aho-corasick", linker=LINKER)
        props["keys"] = sorted({k.split("@", 1)[0] for k in props["keys"]})
    result.found = len(edges)
    result.seconds["decide"] = round(time.perf_counter() - started, 3)
    if not options.dry_run:
        started = time.perf_counter()
        changes = sync_mentions(graph, edges, [c["id"] for c in chunks], LINKER, options.batch)
        result.created, result.updated, result.removed = changes.created, changes.updated, changes.removed
        co = graph.write("linkers/merge_co_occurs", maxPerChunk=options.max_per_chunk)[0]
        result.co_occurs, result.co_occurs_created = co["pairs"], co["created"]
        result.co_occurs_removed = graph.write("linkers/prune_co_occurs")[0]["removed"]
        result.seconds["write"] = round(time.perf_counter() - started, 3)
    result.total = count_mentions(graph, LINKER)
    return result
