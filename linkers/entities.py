"""`graphrag link entities`: chunks -[:MENTIONS]-> known entities, and CO_OCCURS between them.

The names are every non-place ``__Entity__``'s name and aliases (a document's author, a
``Person`` from its metadata, is one by full name only: no surname alone); the matching is the place
linker's (:class:`.matcher.Matcher`: folded, word boundaries, a capital letter), and so is
the decision (:mod:`.disambiguation`): of overlapping names the longest wins, and a name
shared by several entities links the one the document names unambiguously elsewhere, or
none (counted as undecided); each edge keeps `candidates`, `confidence` and `rule`. An entity with a
``documentId`` (a story's character, say) is only looked for in that document. Afterwards
``(a)-[:CO_OCCURS {count}]->(b)`` counts the chunks two entities are both mentioned in.

A run is incremental unless told otherwise (``full=True``), or the graph has no entity state
yet (``(:__LinkState {id: 'entities'})``), or an entity it linked is gone, or the rules
changed. Since the decision is made per document, an incremental run decides again whole
documents: those with a chunk loaded or changed since the last run (``:PendingEntities``),
and those where an entity new or changed since (``linkedAs``: its names when last linked)
is or was named: a full-text shortlist on `chunk_text` per name, then the same exact matcher,
and the documents with edges to it. Documents are read, decided and written a page at a
time; CO_OCCURS is counted again for the pairs of the chunks decided again (all of it when
chunks were deleted since). ``full=True`` decides every document; both make the same edges.

A run first gives documents loaded before authors were people (an ``authors`` list, no
AUTHORED edge) their ``(:Person)-[:AUTHORED]->`` edges, as a load writes them today.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from graphrag_cypher.db import Graph
from graphrag_cypher.store.authors import backfill
from graphrag_cypher.text import fold

from .base import LinkOptions, LinkResult, options_for
from .contexts import RAW_WINDOW, Occurrence, longest_matches, window
from .disambiguation import Profile
from .matcher import Matcher, NameTable, build_name_table, fulltext_query, load_stoplist
from .mentions import count_mentions, sync_mentions
from .places import MIN_CONFIDENCE, SKIP_SECTIONS, resolve

LINKER = "entities"


@dataclass(kw_only=True)
class EntityLinkOptions(LinkOptions):
    min_length: int = 3
    require_capital: bool = True
    max_per_chunk: int = 25
    min_confidence: float = MIN_CONFIDENCE
    batch: int = 2000
    full: bool = False  # decide every document again (default: only what changed since the last run)
    documents_per_page: int = 200  # documents read, decided and written together
    page: int = 2000  # chunks per shortlist page


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

    full: bool = False
    names: int = 0
    entities: int = 0
    entities_changed: int = 0  # new or changed since the last run
    names_searched: int = 0  # their names, looked for in the other chunks
    chunks_shortlisted: int = 0
    documents: int = 0  # documents decided (again)
    chunks_scanned: int = 0
    matches: int = 0
    undecided: int = 0  # mentions whose best candidate is below min_confidence: no edge
    linked: int = 0  # mentions that got an edge
    rules: dict = field(default_factory=dict)  # rule → mentions decided by it
    co_occurs: int = 0
    co_occurs_created: int = 0
    co_occurs_removed: int = 0
    authored: int = 0  # AUTHORED edges made for documents loaded before authors were people

    @property
    def skipped(self) -> dict[str, int]:
        return {"undecided": self.undecided}


@dataclass
class _Names:
    table: NameTable
    matcher: Matcher
    scope: dict  # entity id → the document it belongs to
    profiles: dict
    rows: list  # entity_names rows, by id
    specs: dict  # entity id → what it is linked as (linkedAs)


def _spec(names: list[str], document: str | None) -> str:
    return json.dumps([names, document], ensure_ascii=False)


def _read_names(graph: Graph, options: EntityLinkOptions) -> _Names:
    rows = sorted(graph.read("linkers/entity_names"), key=lambda r: r["id"])
    names: dict[str, list[str]] = defaultdict(list)
    scope, profiles, specs = {}, {}, {}
    for row in rows:
        own = [name for name in row["names"] or [] if isinstance(name, str) and name.strip()]
        for name in own:
            names[name].append(row["id"])
        # A known entity is a described record: its first name is its title.
        profiles[row["id"]] = Profile(quality=1.0, titles=(fold(own[0]).strip(),) if own else ())
        if row["documentId"]:
            scope[row["id"]] = row["documentId"]
        specs[row["id"]] = _spec(own, row["documentId"])
    table = build_name_table(names, min_length=options.min_length, stoplist=load_stoplist(default=False))
    matcher = Matcher(table, require_capital=options.require_capital, skip_tails=False)
    return _Names(table, matcher, scope, profiles, rows, specs)


def _rules(options: EntityLinkOptions) -> dict:
    return {
        "minLength": options.min_length,
        "requireCapital": options.require_capital,
        "maxPerChunk": options.max_per_chunk,
        "minConfidence": options.min_confidence,
    }


def link_entities(graph: Graph, options: EntityLinkOptions | None = None, **fields) -> EntityLinkResult:
    """Link the chunks to the known entities they mention: read → match → decide → write, then CO_OCCURS."""
    options = options_for(EntityLinkOptions, options, fields)
    started = time.perf_counter()
    # documents whose `authors` list predates AUTHORED get their people first, so they are names too
    authored = 0 if options.dry_run else backfill(graph)["created"]
    names = _read_names(graph, options)
    state = graph.read("linkers/entity_state")
    counts = graph.read("linkers/chunk_counts")[0]
    stamped = sum(1 for row in names.rows if row["linkedAs"] is not None)
    rules = _rules(options)
    full = (
        options.full
        or not state
        or any(state[0].get(k) != v for k, v in rules.items())
        or stamped < (state[0]["entities"] or 0)  # an entity linked before is gone
    )
    chunks_lost = bool(state) and counts["total"] - counts["pending"] < (state[0]["chunks"] or 0)
    changed = [row for row in names.rows if row["linkedAs"] != names.specs[row["id"]]]
    result = EntityLinkResult(
        full=full,
        names=len(names.table.targets),
        entities=len(names.rows),
        entities_changed=len(changed),
        dry_run=options.dry_run,
        authored=authored,
    )
    if full:
        docs: Iterator[list[str]] = _document_pages(graph, options)
    else:
        wanted = _changed_documents(graph, names, changed, options, result)
        docs = iter(
            [wanted[i : i + options.documents_per_page] for i in range(0, len(wanted), options.documents_per_page)]
        )
    result.seconds["read"] = round(time.perf_counter() - started, 3)
    options.progress(
        f"entities: {len(names.table.targets)} names" + ("" if full else f", {len(changed)} entities new or changed")
    )
    started = time.perf_counter()
    pairs: set[tuple[str, str]] = set()
    for page in docs:
        _decide_documents(graph, names, page, options, result, pairs, track_pairs=not full and not chunks_lost)
        options.progress(f"entities: {result.documents} documents decided, {result.found} links")
    result.seconds["link"] = round(time.perf_counter() - started, 3)
    if not options.dry_run:
        started = time.perf_counter()
        if full or chunks_lost:
            co = graph.write("linkers/merge_co_occurs", maxPerChunk=options.max_per_chunk)[0]
            result.co_occurs, result.co_occurs_created = co["pairs"], co["created"]
            result.co_occurs_removed = graph.write("linkers/prune_co_occurs")[0]["removed"]
        else:
            ordered = sorted(pairs)
            for i in range(0, len(ordered), options.batch):
                co = graph.write(
                    "linkers/recount_co_occurs",
                    pairs=[list(p) for p in ordered[i : i + options.batch]],
                    maxPerChunk=options.max_per_chunk,
                )[0]
                result.co_occurs += co["pairs"]
                result.co_occurs_created += co["created"]
                result.co_occurs_removed += co["removed"]
        if options.corpus is None:  # a run over some corpora has not looked for the names in the others
            _save_state(graph, names, changed, options)
        result.seconds["write"] = round(time.perf_counter() - started, 3)
    result.total = count_mentions(graph, LINKER)
    return result


def _document_pages(graph: Graph, options: EntityLinkOptions) -> Iterator[list[str]]:
    after = ""
    while True:
        ids = graph.read_row("linkers/documents", after=after, limit=options.documents_per_page, corpus=options.corpus)[
            "ids"
        ]
        if ids:
            yield list(ids)
        if len(ids) < options.documents_per_page:
            return
        after = ids[-1]


def _changed_documents(
    graph: Graph, names: _Names, changed: list[dict], options: EntityLinkOptions, result: EntityLinkResult
) -> list[str]:
    """The documents to decide again: with a pending chunk, with edges to a changed entity, the
    document of a changed story-scoped entity, and those naming a changed entity (old names or new)."""
    docs = set(graph.read_row("linkers/pending_documents", corpus=options.corpus)["ids"])
    ids = [row["id"] for row in changed]
    for i in range(0, len(ids), options.batch):
        docs.update(
            graph.read_row(
                "linkers/entity_documents", ids=ids[i : i + options.batch], linker=LINKER, corpus=options.corpus
            )["ids"]
        )
    searched: set[str] = set()
    for row in changed:
        own, document = json.loads(names.specs[row["id"]])
        old, old_document = json.loads(row["linkedAs"]) if row["linkedAs"] else ([], None)
        for scoped in (document, old_document):
            if scoped:
                docs.add(scoped)
        if not document:
            searched.update(own)
        if row["linkedAs"] and not old_document:
            searched.update(old)
    table = build_name_table(
        {name: [1] for name in searched}, min_length=options.min_length, stoplist=load_stoplist(default=False)
    )
    result.names_searched = len(table.targets)
    matcher = Matcher(table, require_capital=options.require_capital, skip_tails=False)
    keys = sorted(table.targets)
    for start in range(0, len(keys), 50):
        queries = [fulltext_query(k) for k in keys[start : start + 50]]
        after = ""
        while True:
            row = graph.read_row(
                "linkers/shortlist", queries=queries, corpus=options.corpus, after=after, limit=options.page
            )
            result.chunks_shortlisted += len(row["ids"])
            for doc, text in zip(row["docIds"], row["texts"], strict=True):
                # a match in a section the linker skips still changes CO_OCCURS: decided again too
                if doc not in docs and matcher.find(text):
                    docs.add(doc)
            if len(row["ids"]) < options.page:
                break
            after = row["ids"][-1]
        options.progress(f"entities: {min(start + 50, len(keys))}/{len(keys)} changed names searched")
    return sorted(docs)


def _decide_documents(
    graph: Graph,
    names: _Names,
    doc_ids: list[str],
    options: EntityLinkOptions,
    result: EntityLinkResult,
    pairs: set,
    *,
    track_pairs: bool,
) -> None:
    """Match, decide and write the edges of whole documents (the decision reads the whole document)."""
    row = graph.read_row("linkers/document_chunks", docIds=doc_ids)
    chunks = [
        {"id": c, "docId": d, "section": s, "text": t, "pending": p}
        for c, d, s, t, p in zip(row["ids"], row["docIds"], row["sections"], row["texts"], row["pending"], strict=True)
    ]
    result.documents += len(doc_ids)
    skip = re.compile(SKIP_SECTIONS)
    chunk_doc = {c["id"]: c["docId"] for c in chunks}
    hits: dict[tuple[str, str], list[Occurrence]] = defaultdict(list)
    for chunk in chunks:
        if skip.fullmatch(chunk["section"] or ""):
            continue
        result.chunks_scanned += 1
        text = chunk["text"] or ""
        found = []
        for match in names.matcher.find(text):
            before, after = window(
                text[max(0, match.start - RAW_WINDOW) : match.start], text[match.end : match.end + RAW_WINDOW]
            )
            found.append(Occurrence(chunk["id"], match.key, match.start, match.end, match.surface, before, after))
        for occ in longest_matches(found):
            hits[(chunk["id"], occ.key)].append(occ)
    # Story-scoped entities only count in their own document.
    targets = dict(names.table.targets)
    scoped_hits: dict[tuple[str, str], list[Occurrence]] = {}
    for (chunk_id, key), surfaces in hits.items():  # surfaces: the occurrences
        allowed = tuple(t for t in targets[key] if names.scope.get(t, chunk_doc[chunk_id]) == chunk_doc[chunk_id])
        if allowed:
            scoped_key = key if allowed == targets[key] else f"{key}@{chunk_doc[chunk_id]}"
            targets[scoped_key] = allowed
            scoped_hits[(chunk_id, scoped_key)] = surfaces
    result.matches += len(scoped_hits)
    page = EntityLinkResult(dry_run=options.dry_run)
    edges = resolve(scoped_hits, targets, chunk_doc, names.profiles, options.min_confidence, linker=LINKER, result=page)
    result.undecided += page.undecided
    result.linked += page.linked
    for rule, n in page.rules.items():
        result.rules[rule] = result.rules.get(rule, 0) + n
    result.rules = dict(sorted(result.rules.items()))
    for props in edges.values():
        props.update(source="aho-corasick", linker=LINKER)
        props["keys"] = sorted({k.split("@", 1)[0] for k in props["keys"]})
    result.found += len(edges)
    if options.dry_run or not chunks:
        return
    chunk_ids = [c["id"] for c in chunks]
    if track_pairs:
        pairs.update(
            map(
                tuple,
                graph.read_row("linkers/chunk_pairs", chunkIds=chunk_ids, maxPerChunk=options.max_per_chunk)["pairs"],
            )
        )
    mine = graph.read_row("linkers/chunk_mentions", chunkIds=chunk_ids, linker=LINKER)
    existing = list(zip(mine["chunkIds"], mine["targetIds"], mine["props"], strict=True))
    changes = sync_mentions(graph, edges, chunk_ids, LINKER, options.batch, existing=existing)
    result.created, result.updated, result.removed = (
        result.created + changes.created,
        result.updated + changes.updated,
        result.removed + changes.removed,
    )
    pending = [c["id"] for c in chunks if c["pending"]]
    if pending:
        graph.write("linkers/unmark_pending", chunkIds=pending)
    if track_pairs and (changes.created or changes.removed):
        pairs.update(
            map(
                tuple,
                graph.read_row("linkers/chunk_pairs", chunkIds=chunk_ids, maxPerChunk=options.max_per_chunk)["pairs"],
            )
        )


def _save_state(graph: Graph, names: _Names, changed: list[dict], options: EntityLinkOptions) -> None:
    stamps = [{"id": row["id"], "linkedAs": names.specs[row["id"]]} for row in changed]
    counts = graph.read("linkers/chunk_counts")[0]
    rules = {**_rules(options), "entities": len(names.rows), "chunks": counts["total"] - counts["pending"]}
    for start in range(0, max(len(stamps), 1), options.batch):
        graph.write("linkers/save_entity_state", rules=rules, stamps=stamps[start : start + options.batch])
