"""Document titles as entities, and the chunks that name them.

Encyclopedic corpora (wiki pages, QA passages) already say what each text is about: its
title. Registering every title as a `:Topic` entity, linked to its own chunks, and linking
every chunk that names another title (the linkers' matcher: folded, word boundaries,
capitalised), connects passages that talk about each other without any LLM. Graph
retrieval then walks seed chunk → topic → the passage about it (and back).

A run is incremental unless told otherwise (``full=True``) or the graph has no title state
yet (``(:__LinkState {id: 'titles'})``, written by every run): it matches only

* the chunks loaded or changed since the last run (the loader labels them ``:PendingTitles``)
  and the chunks of documents whose title is new or changed (``Document.titleTopic``, the
  topic a document was last linked to, says which), against all titles;
* the other chunks against the new titles only: a full-text shortlist on `chunk_text` for
  each new title, then the same exact matcher on the shortlisted texts;

and removes the topics whose title no document carries any more. Chunks are read and
written a page at a time, so memory holds the titles and one page of texts, never the
corpus. A full run reads every chunk; both make the same edges.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from graphrag_cypher.budget import MAX_KEY_CHARS
from graphrag_cypher.db import Graph
from graphrag_cypher.text import fold, is_word_char, norm_name

from .base import LinkOptions, LinkResult, options_for
from .matcher import Matcher, build_name_table, fulltext_query, load_stoplist

PAGE = 2000  # chunks per read
CATALOGUE_PAGE = 20000  # titles (or topics) per read: a few short strings each
NAMES_PER_QUERY = 50  # new titles per full-text shortlist
SPAN_CHUNKS = 5000  # pending chunks up to which a run looks up titles by word spans, not reads them all
SPAN_PAGE = 10  # chunks (or documents) per word-span lookup
TOPIC_DOCS = 50  # documents per topic read to name it


@dataclass(kw_only=True)
class TitleLinkOptions(LinkOptions):
    min_length: int = 4  # shortest title (folded) looked for in text
    batch: int = 2000
    full: bool = False  # match every chunk against every title (default: only what changed)
    page: int = PAGE


@dataclass(kw_only=True)
class TitleLinkResult(LinkResult):
    """What a title run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "title_mentions_found",
        "created": "mentions_created",
        "total": "mentions_total",
        "updated": "mentions_updated",
        "removed": "mentions_removed",
    }

    full: bool = False
    documents: int = 0
    topics: int = 0
    names_searched: int = 0
    chunks_scanned: int = 0  # chunks matched against every title
    new_titles: int = 0  # titles looked for in the other chunks (incremental runs)
    chunks_shortlisted: int = 0  # other chunks the full-text index offered for them
    topics_created: int = 0  # topics created or renamed
    topics_removed: int = 0  # topics no document is titled by any more


def entity_id(title: str) -> str:
    return "title:" + hashlib.sha1(fold(title).strip().encode("utf-8")).hexdigest()[:16]


def clean_title(title: str) -> str:
    return " ".join(title.split())


def topic_norm(title: str) -> str:
    """A topic's normName: its title's, within MAX_KEY_CHARS (an index key; a title that long
    names no topic a question would spell out)."""
    return norm_name(title)[:MAX_KEY_CHARS]


@dataclass
class Catalogue:
    """The titled documents: each topic's title (the first document's by id), the topics in
    the graph, and the documents whose chunks were never linked to their current title."""

    names: dict[str, str]  # topic id → title, documents in scope
    all_topics: set[str]  # topic ids of every titled document, any corpus
    docs: int  # titled documents in scope
    unlinked: list[tuple[str, str, str]]  # (document id, topic id, title) in scope not linked under its title


def read_catalogue(graph: Graph, corpus: str | None, page: int) -> Catalogue:
    names: dict[str, str] = {}
    all_topics: set[str] = set()
    unlinked = []
    docs = 0
    after = ""
    while True:
        row = graph.read_row("titles/catalogue", after=after, limit=page, corpus=corpus)
        for doc, raw, in_scope, stamp in zip(row["ids"], row["titles"], row["inScope"], row["stamps"], strict=True):
            title = clean_title(raw)
            key = entity_id(title)
            all_topics.add(key)
            if in_scope:
                docs += 1
                names.setdefault(key, title)
                if stamp != raw:
                    unlinked.append((doc, key, raw))
        if len(row["ids"]) < page:
            break
        after = row["ids"][-1]
    return Catalogue(names, all_topics, docs, unlinked)


def read_topics(graph: Graph, page: int) -> dict[str, tuple[str, str]]:
    """The title linker's topics in the graph: id → (name, normName)."""
    topics: dict[str, tuple[str, str]] = {}
    after = ""
    while True:
        row = graph.read_row("titles/topics", after=after, limit=page)
        for key, name, norm in zip(row["ids"], row["names"], row["normNames"], strict=True):
            topics[key] = (name, norm)
        if len(row["ids"]) < page:
            return topics
        after = row["ids"][-1]


Row = tuple[str, str, str, str, bool]  # chunk id, document id, title ('' when none), text, pending


def _rows(row: dict) -> list[Row]:
    pending = row.get("pending") or [False] * len(row["ids"])
    return list(zip(row["ids"], row["docIds"], row["titles"], row["texts"], pending, strict=True))


def _pages(graph: Graph, name: str, page: int, **params) -> Iterator[list[Row]]:
    """Pages of chunk rows from a paged chunk query."""
    after = ""
    while True:
        row = graph.read_row(name, after=after, limit=page, **params)
        yield _rows(row)
        if len(row["ids"]) < page:
            return
        after = row["ids"][-1]


def _document_pages(graph: Graph, doc_ids: list[str], page: int) -> Iterator[list[Row]]:
    for start in range(0, len(doc_ids), page):
        yield _rows(graph.read_row("titles/document_chunks", docIds=doc_ids[start : start + page]))


class _Writer:
    """The title edges of chunks brought to what the run decided, a page at a time."""

    def __init__(self, graph: Graph, options: TitleLinkOptions, result: TitleLinkResult):
        self.graph, self.options, self.result = graph, options, result
        self.at = datetime.now(UTC).isoformat(timespec="seconds")

    def sync(self, edges: dict[tuple[str, str], tuple[str, str]], chunk_ids: list[str], done: list[str]) -> None:
        """Make the title edges of `chunk_ids` exactly `edges` ({(chunk, topic): (rule, matched)});
        the chunks `done` lose their pending label."""
        if self.options.dry_run or not chunk_ids:
            return
        before = {
            (r["chunkId"], r["entityId"]): (r["rule"], r["matched"])
            for r in self.graph.read("titles/chunk_mentions", chunkIds=chunk_ids)
        }
        create, update = [], []
        for (chunk, topic), (rule, matched) in sorted(edges.items()):
            old = before.get((chunk, topic))
            row = {"chunkId": chunk, "entityId": topic, "rule": rule, "matched": matched}
            if old is None:
                create.append(row)
            elif old != (rule, matched):
                update.append(row)
        remove = [{"chunkId": c, "entityId": t} for c, t in sorted(before) if (c, t) not in edges]
        self.write(create, update, remove, done)

    def add(self, edges: dict[tuple[str, str], tuple[str, str]]) -> None:
        """Add `edges` where missing (new titles found in chunks linked before)."""
        if self.options.dry_run or not edges:
            return
        rows = [{"chunkId": c, "entityId": t, "rule": r, "matched": m} for (c, t), (r, m) in sorted(edges.items())]
        self.write(rows, [], [], [])

    def write(self, create: list, update: list, remove: list, done: list) -> None:
        batch = self.options.batch
        for start in range(0, max(len(create), len(update), len(remove), len(done)), batch):
            end = start + batch
            [row] = self.graph.write(
                "titles/write_mentions",
                create=create[start:end],
                update=update[start:end],
                remove=remove[start:end],
                done=done[start:end],
                at=self.at,
            )
            self.result.created += row["created"]
            self.result.updated += row["updated"]
            self.result.removed += row["removed"]


def _match_page(rows: list[Row], matcher: Matcher, result: TitleLinkResult) -> dict[tuple[str, str], tuple[str, str]]:
    """The title edges of a page of chunks: its own topic, and each other title it names (the first surface)."""
    edges: dict[tuple[str, str], tuple[str, str]] = {}
    for chunk, _, title, text, _ in rows:
        if not title:
            continue
        result.chunks_scanned += 1
        title = clean_title(title)
        own = entity_id(title)
        edges[(chunk, own)] = ("own-title", title)
        for match in matcher.find(text or ""):
            for target in match.targets:
                if target != own and (chunk, target) not in edges:
                    edges[(chunk, target)] = ("title-in-text", match.surface)
                    result.found += 1
    return edges


def word_runs(text: str) -> list[tuple[int, int]]:
    """[start, end) of each run of word characters (the matcher's: letters, digits, marks, "_")."""
    runs, start = [], None
    for i, ch in enumerate(text):
        if is_word_char(ch):
            if start is None:
                start = i
        elif start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(text)))
    return runs


def span_norms(text: str, max_runs: int) -> set[str]:
    """The normName of every span of up to `max_runs` (+2) word runs of `text`: a title the
    matcher finds in it is one of these (a match starts and ends on word boundaries, and its
    normName, like its fold, is the title's)."""
    runs = word_runs(text)
    norms = set()
    for i, (start, _) in enumerate(runs):
        for j in range(i, min(len(runs), i + max_runs + 2)):
            norm = norm_name(text[start : runs[j][1]])
            if norm:
                norms.add(norm)
    return norms


def _runs_of(title: str) -> int:
    return len(word_runs(fold(title)))


def link_titles(graph: Graph, options: TitleLinkOptions | None = None, **fields) -> TitleLinkResult:
    """Register every title as a :Topic of its chunks and link the chunks naming other titles
    (incremental: only what changed since the last run; ``full=True``: everything)."""
    options = options_for(TitleLinkOptions, options, fields)
    started = time.perf_counter()
    rows = graph.read("titles/state")
    state = rows[0] if rows else None
    counts = graph.read("titles/chunk_counts")[0]
    full = options.full or state is None or state["minLength"] != options.min_length or state["maxRuns"] is None
    lost = state is not None and counts["total"] - counts["pending"] < (state["chunks"] or 0)
    if not full and not lost and options.corpus is None and counts["pending"] <= SPAN_CHUNKS:
        assert state is not None  # no state makes a full run
        return _link_changes(graph, options, state, started)
    return _link_by_catalogue(graph, options, full, started)


def _link_by_catalogue(graph: Graph, options: TitleLinkOptions, full: bool, started: float) -> TitleLinkResult:
    """Every title in hand (read page by page): a full run, or an incremental one after chunks were
    deleted, over one corpus, or after a large load."""
    result = TitleLinkResult(full=full, dry_run=options.dry_run)
    catalogue = read_catalogue(graph, options.corpus, CATALOGUE_PAGE)
    topics = read_topics(graph, CATALOGUE_PAGE)
    result.documents, result.topics = catalogue.docs, len(catalogue.names)
    table = build_name_table(
        {title: [key] for key, title in catalogue.names.items()},
        min_length=options.min_length,
        stoplist=load_stoplist(),
    )
    matcher = Matcher(table, require_capital=True, skip_tails=False)
    result.names_searched = len(matcher)
    result.seconds["read"] = round(time.perf_counter() - started, 3)
    options.progress(
        f"titles: {len(catalogue.names)} topics of {catalogue.docs} documents"
        + ("" if full else f", {len(catalogue.unlinked)} document(s) new or renamed")
    )

    writer = _Writer(graph, options, result)
    started = time.perf_counter()
    changed = [
        {"entityId": key, "title": title, "normName": topic_norm(title)}
        for key, title in sorted(catalogue.names.items())
        if topics.get(key) != (title, topic_norm(title))
    ]
    gone = sorted(key for key in topics if key not in catalogue.all_topics)
    _write_topics(graph, options, result, changed, gone)

    # Chunks matched against every title: all (full), or the new, changed and renamed ones.
    if full:
        pages = _pages(graph, "titles/chunks", options.page, corpus=options.corpus)
    else:
        unlinked = sorted({doc for doc, _, _ in catalogue.unlinked})
        pages = _chained(
            _document_pages(graph, unlinked, max(1, options.page // 20)),
            _pages(graph, "titles/pending_chunks", options.page, corpus=options.corpus),
        )
    for rows in pages:
        writer.sync(_match_page(rows, matcher, result), [r[0] for r in rows], [r[0] for r in rows if r[4]])
        options.progress(f"titles: {result.chunks_scanned} chunks matched, {result.found} mentions")
    if not full:
        new_keys = {key for _, key, _ in catalogue.unlinked if key in catalogue.names}
        _search_new_titles(graph, options, result, writer, {key: catalogue.names[key] for key in new_keys})
    result.seconds["link"] = round(time.perf_counter() - started, 3)
    max_runs = max((_runs_of(key) for key in table.targets), default=0)
    _save(graph, options, result, [(doc, raw) for doc, _, raw in catalogue.unlinked], max_runs)
    return result


def _link_changes(graph: Graph, options: TitleLinkOptions, state: dict, started: float) -> TitleLinkResult:
    """An incremental run that reads no more titles than the change needs: the new and renamed
    documents (found in Neo4j), the topics they touch, and for each page of new chunks the
    topics whose normName is one of its word spans' (an index lookup)."""
    result = TitleLinkResult(full=False, dry_run=options.dry_run)
    unlinked = graph.read("titles/unlinked_documents")
    new: dict[str, list[tuple[str, str]]] = {}  # topic id → (document id, title) of the new documents
    touched = set()
    for row in unlinked:
        title = clean_title(row["title"])
        new.setdefault(entity_id(title), []).append((row["id"], title))
        touched.add(entity_id(title))
        if row["linked"] is not None:
            touched.add(entity_id(clean_title(row["linked"])))
    moving = {row["id"] for row in unlinked}
    names: dict[str, str] = {}  # topic id → its title from now on
    changed, gone = [], []
    ids = sorted(touched)
    for start in range(0, len(ids), options.batch):
        for row in graph.read("titles/topic_documents", ids=ids[start : start + options.batch], limit=TOPIC_DOCS):
            key = row["id"]
            carriers = [
                (d, clean_title(t)) for d, t in row["docs"] if d not in moving and entity_id(clean_title(t)) == key
            ]
            carriers += new.get(key, [])
            if not carriers:
                if row["exists"] and len(row["docs"]) < TOPIC_DOCS:
                    gone.append(key)
                continue
            names[key] = min(carriers)[1]
            if not row["exists"] or (row["name"], row["normName"]) != (names[key], topic_norm(names[key])):
                changed.append({"entityId": key, "title": names[key], "normName": topic_norm(names[key])})
    result.documents, result.topics = len(unlinked), len(touched)
    result.seconds["read"] = round(time.perf_counter() - started, 3)
    options.progress(f"titles: {len(unlinked)} document(s) new or renamed, {len(touched)} topic(s) touched")

    started = time.perf_counter()
    _write_topics(graph, options, result, changed, sorted(gone))
    max_runs = max([state["maxRuns"], *(_runs_of(title) for title in names.values())])
    writer = _Writer(graph, options, result)
    pages = _chained(
        _document_pages(graph, sorted(moving), SPAN_PAGE),
        _pages(graph, "titles/pending_chunks", SPAN_PAGE, corpus=None),
    )
    for rows in pages:
        norms = sorted(set().union(*(span_norms(r[3], max_runs) for r in rows if r[2])) if rows else set())
        row = graph.read_row("titles/topics_by_norm", norms=norms)
        candidates = {key: name for key, name in zip(row["ids"], row["names"], strict=True)}
        candidates.update({key: title for key, title in names.items() if key in candidates})
        table = build_name_table(
            {name: [key] for key, name in candidates.items()}, min_length=options.min_length, stoplist=load_stoplist()
        )
        result.names_searched += len(table.targets)
        matcher = Matcher(table, require_capital=True, skip_tails=False)
        writer.sync(_match_page(rows, matcher, result), [r[0] for r in rows], [r[0] for r in rows if r[4]])
        options.progress(f"titles: {result.chunks_scanned} chunks matched, {result.found} mentions")
    _search_new_titles(graph, options, result, writer, {key: names[key] for key in new if key in names})
    result.seconds["link"] = round(time.perf_counter() - started, 3)
    _save(graph, options, result, [(row["id"], row["title"]) for row in unlinked], max_runs)
    return result


def _write_topics(
    graph: Graph, options: TitleLinkOptions, result: TitleLinkResult, changed: list[dict], gone: list[str]
) -> None:
    result.topics_created, result.topics_removed = len(changed), len(gone)
    if options.dry_run:
        result.total = graph.read("titles/count_mentions")[0]["total"]
        return
    for start in range(0, len(changed), options.batch):
        graph.write("titles/upsert_entities", rows=changed[start : start + options.batch])
    for start in range(0, len(gone), options.batch):
        graph.write("titles/delete_topics", ids=gone[start : start + options.batch])


def _search_new_titles(
    graph: Graph, options: TitleLinkOptions, result: TitleLinkResult, writer: _Writer, titles: dict[str, str]
) -> None:
    """The other chunks, against the new titles only (a full-text shortlist, then the exact matcher)."""
    table = build_name_table(
        {title: [key] for key, title in titles.items()}, min_length=options.min_length, stoplist=load_stoplist()
    )
    result.new_titles = len(table.targets)
    matcher = Matcher(table, require_capital=True, skip_tails=False)
    folded = sorted(table.targets)
    for start in range(0, len(folded), NAMES_PER_QUERY):
        queries = [fulltext_query(k) for k in folded[start : start + NAMES_PER_QUERY]]
        for rows in _pages(graph, "titles/shortlist", options.page, queries=queries, corpus=options.corpus):
            result.chunks_shortlisted += len(rows)
            found: dict[tuple[str, str], tuple[str, str]] = {}
            for chunk, _, title, text, _ in rows:
                own = entity_id(clean_title(title))
                for match in matcher.find(text or ""):
                    for target in match.targets:
                        if target != own and (chunk, target) not in found:
                            found[(chunk, target)] = ("title-in-text", match.surface)
            result.found += len(found)
            writer.add(found)
        options.progress(f"titles: {min(start + NAMES_PER_QUERY, len(folded))}/{len(folded)} new titles searched")


def _save(
    graph: Graph, options: TitleLinkOptions, result: TitleLinkResult, stamps: list[tuple[str, str]], max_runs: int
) -> None:
    """The state the next run starts from, and the documents linked stamped with their title."""
    if options.dry_run:
        return
    counts = graph.read("titles/chunk_counts")[0]
    state = {"minLength": options.min_length, "maxRuns": max_runs, "chunks": counts["total"] - counts["pending"]}
    rows = [{"docId": doc, "title": title} for doc, title in stamps]
    for start in range(0, max(len(rows), 1), options.batch):
        graph.write("titles/save_state", state=state, stamps=rows[start : start + options.batch])
    result.total = graph.read("titles/count_mentions")[0]["total"]


def _chained(*iterators: Iterator) -> Iterator:
    for iterator in iterators:
        yield from iterator
