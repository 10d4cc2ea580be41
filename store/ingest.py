"""Parsed documents into the lexical graph: Document and Chunk nodes with vectors.

Each batch of documents is written in one transaction (upsert the documents, drop their
old chunks, create the new ones with vectors and NEXT_CHUNK links), and the document's
content hash is set in that same transaction. So an interrupted load leaves only whole
documents behind, and running it again skips them as unchanged: the end state is the
one of an uninterrupted run. Embedding (the slow part) runs in the calling thread while
a writer thread stores the previous batch. A local model pads each batch of texts to its
longest, so its texts go in windows sorted by length (`embed_window`); an endpoint's go in
document order. `LoadStats.seconds` says where a load's time went, step by step.

A load can be asked to stop (`should_stop`): it looks between documents and between embedding
calls, writes the documents it has fully embedded, drops the rest and reports `cancelled`, so
what it leaves is whole documents, as after an interruption.

Each document is its own unit of failure. One whose id is too long to index, whose chunks the
embedder refuses, or whose write Neo4j refuses is reported by name with the reason (`errors`)
and left out; the rest of the load goes on. A document's text past the character budget
(``GRAPHRAG_PARSE_MAX_CHARS``, see `graphrag_cypher.budget`) is cut, with a warning.

Work is in proportion to what is new: a chunk text is encoded once per load however often it
repeats, under any title (boilerplate shared by pages costs one encode), and not at all when the
graph holds a vector for it with the same title already (`Chunk.contentHash`: what the encoder
reads).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_cypher import telemetry
from graphrag_cypher.budget import MAX_KEY_CHARS, ParseBudget, cut_text, refused_reason, refused_write
from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError, Neo4jUnavailable

# Document properties that parsers' metadata may not overwrite.
RESERVED = {
    "id",
    "title",
    "kind",
    "source",
    "path",
    "uri",
    "contentHash",
    "corpus",
    "sourceRoot",
    "loader",
    "createdAt",
    "updatedAt",
    "topics",
}


@dataclass
class LoadOptions:
    loader: str
    source_root: str
    corpus: str | None = None
    chunk_size: int = 1000
    overlap: int = 100
    semantic: bool = False
    prune: bool = False
    topics: tuple[str, ...] = ()
    embed_batch: int = 1024  # chunks embedded before their documents are written
    embed_step: int = 64  # chunks per embedding call within a batch: where progress is told and a stop is seen
    # a local model's texts are sent sorted by length within windows of this many (document order
    # between windows): calls of like-length texts pad little; a stop drops at most one window
    embed_window: int = 512
    write_batch: int = 256  # chunks per write transaction: what an interruption can lose
    overlap_writes: bool = True  # write while the next batch is embedded
    max_chars: int | None = None  # a document's text past this is cut (None: GRAPHRAG_PARSE_MAX_CHARS)


@dataclass
class LoadStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0
    chunks_created: int = 0
    chunks_deleted: int = 0
    pruned_documents: int = 0
    embedded: int = 0
    reused_vectors: int = 0
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # loaded, but cut by a budget or a cap
    cancelled: bool = False  # stopped when asked, before the end of its items
    changed_ids: list[str] = field(default_factory=list)  # documents created or updated (not in the summary)
    # while it runs (not in the summary): items read, the one worked on and what is done with it
    # (reading, chunking, embedding), the chunks of the batch being embedded
    read: int = 0
    current: str | None = None
    phase: str | None = None
    embedding_done: int = 0
    embedding_total: int = 0
    # seconds spent per step (not in the summary): read (waiting for the next item: parsing when
    # items are parsed as they are read), chunk, lookup (stored hashes and vectors), encode,
    # write (on the writer thread, beside the rest) and write_wait (the load waiting for it)
    seconds: dict[str, float] = field(default_factory=dict)

    def took(self, step: str, started: float) -> None:
        """Add the time since `started` (a perf_counter reading) to `step`."""
        self.seconds[step] = self.seconds.get(step, 0.0) + time.perf_counter() - started

    def progress(self) -> dict:
        """How far a running load is: items read and finished, the item worked on, the chunks of
        the batch being embedded (done / total), and the counts so far."""
        result = self.to_dict()
        del result["errors"]
        result.pop("warnings", None)
        result.pop("cancelled", None)
        result["items"] = {"read": self.read, "done": self.created + self.updated + self.unchanged + self.failed}
        result["current"] = self.current
        result["phase"] = self.phase
        result["embedding"] = (
            {"done": self.embedding_done, "total": self.embedding_total} if self.embedding_total else None
        )
        return result

    def audited(self, loader: str) -> dict:
        """What the load changed, for its audit record."""
        return {
            "loaders": {loader: 1},
            "documents": {
                "created": self.created,
                "updated": self.updated,
                "unchanged": self.unchanged,
                "failed": self.failed,
                "deleted": self.pruned_documents,
            },
            "chunks": {"created": self.chunks_created, "deleted": self.chunks_deleted, "embedded": self.embedded},
        }

    def to_dict(self) -> dict:
        result: dict[str, Any] = {
            "documents": {
                "created": self.created,
                "updated": self.updated,
                "unchanged": self.unchanged,
                "failed": self.failed,
                "pruned": self.pruned_documents,
            },
            "chunks": {
                "created": self.chunks_created,
                "deleted": self.chunks_deleted,
                "embedded": self.embedded,
                "vectors_reused": self.reused_vectors,
            },
            "errors": self.errors,
            "warnings": self.warnings,
        }
        if self.cancelled:
            result["cancelled"] = True
        return result


def _storable(value) -> bool:
    if isinstance(value, (str, int, float, bool)):
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# The most characters one stored document property may hold (a list: all its strings together).
# Metadata comes from the file (front matter, HTML meta tags, PDF info), so it is capped where it
# is written: a longer string is cut, a longer list keeps its first items, and a longer value
# that had to be stored as JSON is left out; each is one line for the document.
MAX_PROPERTY_CHARS = 64 * 1024


def _capped(key: str, value, notes: list[str], limit: int = MAX_PROPERTY_CHARS):
    """`value` within `limit` characters (None: not stored), with a note when it was cut."""
    if isinstance(value, str) and len(value) > limit:
        notes.append(f"property {key!r} cut from {len(value):,} to {limit:,} characters")
        return value[:limit]
    if isinstance(value, list):
        total = 0
        for i, item in enumerate(value):
            total += len(item)
            if total > limit:
                notes.append(f"property {key!r} cut from {len(value):,} to {i:,} items ({limit:,}-character cap)")
                return value[:i]
    return value


# Bump when chunking or what is embedded changes, so stored documents are rebuilt.
PIPELINE_VERSION = "2"


def stored_hash(doc, options: LoadOptions) -> str:
    """What decides "unchanged": the content, how it is chunked and embedded, and the corpus
    and topics the load puts on it (loading a folder again under another --corpus moves it)."""
    recipe = f"{doc.content_hash}|{options.chunk_size}|{options.overlap}|{int(options.semantic)}|{PIPELINE_VERSION}"
    if options.corpus:  # absent when unset, so loads without a corpus keep their earlier hashes
        recipe += f"|corpus={options.corpus}"
    if options.topics:
        recipe += "|topics=" + json.dumps(list(options.topics), ensure_ascii=False)
    return hashlib.sha256(recipe.encode("utf-8")).hexdigest()


def embedding_input(title: str | None, text: str) -> str:
    """Chunks are embedded with their document's title in front: a passage about "Carrow"
    rarely repeats its own name, and the title is often what a question asks about."""
    return f"{title}\n{text}" if title else text


# Document properties under a range index that a parser's metadata may set (front matter's
# `date`): Neo4j refuses a key over about 8 KB, so these are cut at MAX_KEY_CHARS.
INDEXED_METADATA = frozenset({"date"})


def document_props(doc, options: LoadOptions, notes: list[str] | None = None) -> dict:
    """The Document node's properties; what MAX_PROPERTY_CHARS cut is added to `notes`."""
    notes = notes if notes is not None else []
    props = {}
    for key, value in doc.metadata.items():
        if key in RESERVED or value is None:
            continue
        if not _storable(value):
            value = json.dumps(value, ensure_ascii=False, default=str)
            if len(value) > MAX_PROPERTY_CHARS:
                notes.append(f"property {key!r} not stored: {len(value):,} characters of JSON, over the cap")
                continue
        props[key] = _capped(key, value, notes, MAX_KEY_CHARS if key in INDEXED_METADATA else MAX_PROPERTY_CHARS)
    props.update(
        title=_capped("title", doc.title, notes),
        kind=doc.kind,
        source=doc.source,
        path=doc.source,
        uri=doc.uri,
        contentHash=stored_hash(doc, options),
        corpus=options.corpus,
        sourceRoot=options.source_root,
        loader=options.loader,
    )
    if options.topics:
        props["topics"] = list(options.topics)
    return props


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Document kinds whose `source` is the document's own file or URL; other loaders' documents
# share theirs (the pages of one export, the entries of one feed) and are named by title too.
OWN_SOURCE_KINDS = frozenset({"file", "pdf", "code", "web"})


def item_name(doc: dict) -> str:
    """How a report names a document (its `source`, `title` and `kind`): its file or URL, and
    for a document that shares its source with others, its title too (shortened)."""
    source, title = doc.get("source") or "", doc.get("title") or ""
    if doc.get("kind") in OWN_SOURCE_KINDS or not title:
        return source
    return f"{source} [{title if len(title) <= 80 else title[:79] + '…'}]"


def refused_id(doc) -> str | None:
    """Why a document cannot be stored under its id (too long to be an index key), or None. A
    cut id could make two documents one, so such a document is an error, not cut."""
    if len(doc.id) > MAX_KEY_CHARS:
        return f"id too long: {len(doc.id):,} characters, more than the {MAX_KEY_CHARS:,} an id may have"
    return None


def within_text_budget(doc, max_chars: int) -> str | None:
    """Cut `doc`'s sections to `max_chars` characters in all (the last one kept cut), and say
    so; None when it is within the budget. Loaders that parse within a budget already (files,
    web pages) are within it; this holds every other loader's documents to it."""
    total = 0
    for i, section in enumerate(doc.sections):
        if total + len(section.text) > max_chars:
            length = sum(len(s.text) for s in doc.sections)
            head = cut_text(section.text, max_chars - total)
            kept = doc.sections[:i]
            if head.strip():
                kept.append(dataclasses.replace(section, text=head))
            doc.sections = kept
            return (
                f"text cut at character {total + len(head):,} of {length:,}: "
                f"{max_chars:,}-character budget reached (GRAPHRAG_PARSE_MAX_CHARS)"
            )
        total += len(section.text)
    return None


@dataclass
class Checkpoint:
    """A marker in a load's item stream: when the Loader reaches it, every document before it
    is written (committed) and then `reached()` is called, so a source can record how far it
    got. `unchanged` names documents the source knows are current and did not send (a wiki
    page whose revision is stored): they count as unchanged, and --prune keeps them."""

    reached: Callable[[], None]
    unchanged: tuple[str, ...] = ()


class _Stopped(Exception):
    """Raised inside a load when it was asked to stop."""


class _Writer(threading.Thread):
    """Writes batches in order on its own thread. A batch Neo4j refuses (a value it cannot
    store, not a server gone or busy) is written again a document at a time, and each document
    refused alone goes to `on_refused(source, reason)`; any other failure stops the load."""

    def __init__(
        self,
        graph: Graph,
        stats: LoadStats,
        on_written: Callable[[int, int], None],
        on_refused: Callable[[str, str], None] = lambda source, reason: None,
    ):
        super().__init__(daemon=True, name="graphrag-writer")
        self.graph, self.stats, self.on_written, self.on_refused = graph, stats, on_written, on_refused
        self.batches: queue.Queue = queue.Queue(maxsize=16)
        self.error: BaseException | None = None
        self._trace_parent = telemetry.context_now()  # its writes are traced under the load's span

    def run(self) -> None:
        from graphrag_cypher.db import query

        from .authors import write_authored

        release = query("phrases/release_documents")
        upsert, create = query("ingest/upsert_documents"), query("ingest/create_chunks")
        while True:
            batch = self.batches.get()
            if batch is None:
                self.batches.task_done()
                return
            if self.error:
                self.batches.task_done()
                continue
            try:

                def work(tx, docs):
                    tx.run(release, ids=[doc["id"] for doc in docs]).consume()  # old chunks give counts back
                    rows = tx.run(upsert, docs=docs).data()
                    made = tx.run(create, docs=docs).single()["chunks"]
                    write_authored(tx, [{"id": doc["id"], "authors": doc["props"].get("authors")} for doc in docs])
                    return rows, made

                started = time.perf_counter()
                self._write(work, batch)
                self.stats.took("write", started)
            except BaseException as exc:  # surfaced by the loading thread
                self.error = exc
            finally:
                self.batches.task_done()

    @telemetry.traced("graphrag.load.write", lambda self, work, batch: {"documents": len(batch)})
    def _write(self, work: Callable, batch: list[dict]) -> None:
        """`work` on the batch in one transaction; when Neo4j refuses it, on each document alone."""
        from neo4j.exceptions import Neo4jError

        try:
            self._commit(work, batch)
            return
        except Neo4jError as exc:
            if not refused_write(exc):
                raise
        for doc in batch:  # a document of it Neo4j cannot store: find which
            try:
                self._commit(work, [doc])
            except Neo4jError as exc:
                if not refused_write(exc):
                    raise
                self.on_refused(item_name(doc["props"]), f"not written: {refused_reason(exc)}")

    def _commit(self, work: Callable, docs: list[dict]) -> None:
        with self.graph.session() as session:
            rows, made = session.execute_write(work, docs)
        self.stats.changed_ids.extend(doc["id"] for doc in docs)
        for row in rows:
            if row["created"]:
                self.stats.created += 1
            else:
                self.stats.updated += 1
            self.stats.chunks_deleted += row["deleted"]
        self.stats.chunks_created += made
        self.on_written(len(docs), made)

    def put(self, batch: list[dict]) -> None:
        if self.error:
            raise self.error
        started = time.perf_counter()
        self.batches.put(batch)
        self.stats.took("write_wait", started)

    def drain(self) -> None:
        """Wait until every queued batch is written."""
        started = time.perf_counter()
        self.batches.join()
        self.stats.took("write_wait", started)
        if self.error:
            raise self.error

    def finish(self) -> None:
        started = time.perf_counter()
        self.batches.put(None)
        self.join()
        self.stats.took("write_wait", started)
        if self.error:
            raise self.error


_END: Any = object()


class Loader:
    """Turns a stream of ParsedDocument | ItemError into graph writes."""

    def __init__(
        self,
        graph: Graph,
        embedder,
        options: LoadOptions,
        on_error: Callable[[str], None] = lambda line: None,
        on_progress: Callable[[LoadStats], None] = lambda stats: None,
        should_stop: Callable[[], bool] = lambda: False,
    ):
        self.graph, self.embedder, self.options = graph, embedder, options
        self.on_error, self.on_progress, self.should_stop = on_error, on_progress, should_stop
        self.stats = LoadStats()
        self.seen: set[str] = set()
        self.max_chars = options.max_chars or ParseBudget.from_env().chars
        # vectors this load made or found, by content hash: the batch before this one may still
        # be on its way to the graph when this one looks for vectors there
        self.recent: OrderedDict[str, list[float]] = OrderedDict()

    @telemetry.traced(
        "graphrag.load", lambda self, items: {"loader": self.options.loader, "corpus": self.options.corpus}
    )
    def run(self, items: Iterable) -> LoadStats:
        """Load `items`; the load is one audit record (operation `learn` or `upload` for those
        loaders, else `load`), with what it changed, even when it fails."""
        from graphrag_cypher.audit import audited

        operation = self.options.loader if self.options.loader in ("learn", "upload") else "load"
        with audited(self.graph, operation, self.options.corpus) as audit:
            try:
                return self._run(items)
            finally:
                audit.add(self.stats.audited(self.options.loader))
                s = self.stats
                audit.only_if(bool(s.created or s.updated or s.failed or s.pruned_documents or s.chunks_deleted))

    def _run(self, items: Iterable) -> LoadStats:
        from graphrag_cypher.model import ItemError

        writer = _Writer(self.graph, self.stats, lambda docs, chunks: self.on_progress(self.stats), self._error)
        writer.start()
        pending: list = []
        pending_chunks = 0
        iterator = iter(items)
        try:
            while True:
                if self.should_stop():  # between documents: the next one is not even read
                    raise _Stopped
                started = time.perf_counter()
                item = next(iterator, _END)
                self.stats.took("read", started)
                if item is _END:
                    break
                if not isinstance(item, Checkpoint):
                    self.stats.read += 1
                    self.stats.current = item.item if isinstance(item, ItemError) else item.source
                    self.stats.phase = "reading"
                if isinstance(item, ItemError):
                    self._error(item.item, item.error)
                    self.on_progress(self.stats)
                    continue
                if isinstance(item, Checkpoint):
                    if pending:
                        self._flush(pending, writer)
                        pending, pending_chunks = [], 0
                    writer.drain()
                    self.seen.update(item.unchanged)
                    self.stats.unchanged += len(item.unchanged)
                    item.reached()
                    self.on_progress(self.stats)
                    continue
                if item.id in self.seen:
                    continue  # the same item twice in one run (e.g. a URL reached by two links)
                self.seen.add(item.id)
                refusal = refused_id(item)
                if refusal is not None:
                    self._error(item_name(vars(item)), refusal)
                    self.on_progress(self.stats)
                    continue
                for note in getattr(item, "notes", ()):
                    self._warn(item.source, note)
                cut = within_text_budget(item, self.max_chars)
                if cut is not None:
                    self._warn(item_name(vars(item)), cut)
                pending.append(item)
                pending_chunks += max(1, len(item.sections))
                self.on_progress(self.stats)
                if pending_chunks >= self.options.embed_batch:
                    self._flush(pending, writer)
                    pending, pending_chunks = [], 0
            if pending:
                self._flush(pending, writer)
        except _Stopped:
            self.stats.cancelled = True  # what is queued for the writer is whole documents: it is written
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # a crawl stops fetching
        finally:
            writer.finish()
        self.stats.embedding_done = self.stats.embedding_total = 0
        self.stats.current = self.stats.phase = None
        if self.options.prune and not self.stats.cancelled:  # a load cut short cannot tell what is gone
            self._prune()
        self.on_progress(self.stats)
        return self.stats

    # -- steps ----------------------------------------------------------------------------
    @telemetry.traced("graphrag.load.batch", lambda self, docs, writer: {"documents": len(docs)})
    def _flush(self, docs: list, writer: _Writer) -> None:
        started = time.perf_counter()
        stored = {
            row["id"]: row["contentHash"] for row in self.graph.read("ingest/document_hashes", ids=[d.id for d in docs])
        }
        self.stats.took("lookup", started)
        changed = []
        for doc in docs:
            if stored.get(doc.id) == stored_hash(doc, self.options):
                self.stats.unchanged += 1
            else:
                changed.append(doc)
        if not changed:
            self.on_progress(self.stats)
            return
        rows = []
        for doc in changed:
            if self.should_stop():  # nothing of this batch is embedded yet: it is dropped
                raise _Stopped
            self.stats.current, self.stats.phase = doc.source, "chunking"
            self.on_progress(self.stats)
            started = time.perf_counter()
            try:
                chunks = self._chunks(doc)
            except Exception as exc:  # one bad document never stops the load
                self._error(doc.source, f"cannot chunk: {exc}")
                continue
            finally:
                self.stats.took("chunk", started)
            if not chunks:
                self._error(doc.source, "no text to chunk")
                continue
            notes: list[str] = []
            props = document_props(doc, self.options, notes)
            props.setdefault("authors", None)  # a document that names no author now keeps no old list
            for note in notes:
                self._warn(doc.source, note)
            rows.append({"id": doc.id, "labels": list(doc.labels), "props": props, "chunks": chunks})
        try:
            failed = self._embed(rows)
            rows = [r for r in rows if r["id"] not in failed]
        except _Stopped:
            # documents every chunk of which has its vector are written; the others are dropped whole
            self._write([r for r in rows if all(c["embedding"] is not None for c in r["chunks"])], writer)
            raise
        self._write(rows, writer)

    def _write(self, rows: list[dict], writer: _Writer) -> None:
        group: list[dict] = []
        size = 0
        for row in rows:
            group.append(row)
            size += len(row["chunks"])
            if size >= self.options.write_batch:
                writer.put(group)
                group, size = [], 0
        if group:
            writer.put(group)
        if not self.options.overlap_writes:
            writer.drain()

    def _chunks(self, doc) -> list[dict]:
        from graphrag_cypher.chunking import chunk_document

        specs = chunk_document(doc, size=self.options.chunk_size, overlap=self.options.overlap)
        if self.options.semantic and not doc.prechunked and self.embedder is not None:
            specs = self._semantic(doc)
        chunks = []
        for spec in specs:
            if not spec.text.strip():
                continue
            props = {
                "text": spec.text,
                "index": spec.index,
                "title": doc.title,
                "contentHash": text_hash(embedding_input(doc.title, spec.text)),
                "section": spec.section,
                "page": spec.page,
                "corpus": self.options.corpus,
            }
            if doc.prechunked:
                props["seq"] = spec.index
            chunks.append({"id": f"{doc.id}::{spec.index}", "props": props, "embedding": None})
        return chunks

    def _semantic(self, doc):
        from graphrag_cypher.chunking import ChunkSpec, chunk_code, semantic_split
        from graphrag_cypher.text import split_sentences

        specs = []
        for section in doc.sections:
            if section.kind == "code":
                texts = [section.text[a:b] for a, b in chunk_code(section.text, self.options.chunk_size)]
            else:
                texts = semantic_split(split_sentences(section.text), self.embedder.embed, size=self.options.chunk_size)
            for text in texts:
                specs.append(ChunkSpec(text, len(specs), section.title, section.page, 0, len(text)))
        return specs

    # how many vectors `recent` keeps: a few batches' worth (a vector of 384 floats is ~12 KB)
    RECENT_VECTORS = 4096

    @telemetry.traced("graphrag.load.embed", lambda self, rows: {"documents": len(rows)})
    def _embed(self, rows: list[dict]) -> set[str]:
        """Give every chunk of `rows` its vector; returns the ids of the documents the embedder
        refused (each reported as failed): the caller leaves them out."""
        if self.embedder is None or not rows:
            return set()
        model = self.embedder.name

        # A chunk whose text this load embedded, or whose text and title the graph stores, keeps
        # that vector: a repeated passage costs one encode (boilerplate under other titles too:
        # the first title's vector serves them all), a changed document re-embeds only what
        # changed, and a document under a new id embeds nothing.
        def key(chunk: dict) -> str:
            return text_hash(chunk["props"]["text"])

        started = time.perf_counter()
        hashes = sorted({c["props"]["contentHash"] for r in rows for c in r["chunks"] if key(c) not in self.recent})
        known = {
            r["contentHash"]: r["embedding"]
            for r in (self.graph.read("ingest/chunk_vectors", hashes=hashes, model=model) if hashes else [])
        }
        self.stats.took("lookup", started)
        todo: dict[str, list[dict]] = {}  # text hash → its chunks, in document order
        texts: dict[str, str] = {}
        owners: dict[str, list[dict]] = {}  # text hash → the documents that have it
        for row in rows:
            for chunk in row["chunks"]:
                chunk["props"]["embeddingModel"] = model
                digest = key(chunk)
                owners.setdefault(digest, []).append(row)
                vector = self._recall(digest, known, chunk["props"]["contentHash"])
                if vector is not None:
                    chunk["embedding"] = vector
                    self.stats.reused_vectors += 1
                elif digest in todo:
                    todo[digest].append(chunk)
                    self.stats.reused_vectors += 1  # the same text as a chunk before it
                else:
                    todo[digest] = [chunk]
                    texts[digest] = embedding_input(chunk["props"]["title"], chunk["props"]["text"])
        if not todo:
            return set()
        # one call per `embed_step` distinct texts: progress moves and a stop is seen within a large
        # document, and the documents before the stop's window are complete, so a cancelled load
        # keeps them (and any of its window that is complete)
        order = self._schedule(list(todo), texts)
        failed: dict[str, str] = {}  # document id → why the embedder refused it
        step = max(1, self.options.embed_step)
        self.stats.embedding_done, self.stats.embedding_total = 0, len(order)
        self.stats.phase = "embedding"
        for start in range(0, len(order), step):
            if self.should_stop():
                raise _Stopped
            part = [d for d in order[start : start + step] if not all(o["id"] in failed for o in owners[d])]
            if not part:
                continue
            self.stats.current = owners[part[-1]][0]["props"]["source"]
            started = time.perf_counter()
            found = self._vectors(part, texts, owners, failed)
            self.stats.took("encode", started)
            for digest, vector in found:
                self._remember(digest, vector)
                for chunk in todo[digest]:
                    chunk["embedding"] = vector
                self.stats.embedded += 1
            self.stats.embedding_done += len(part)
            self.on_progress(self.stats)
        self.stats.embedding_done = self.stats.embedding_total = 0
        for row in rows:
            if row["id"] in failed:
                self._error(item_name(row["props"]), failed[row["id"]])
        return set(failed)

    def _schedule(self, order: list[str], texts: dict[str, str]) -> list[str]:
        """The order the texts (`order`: content hashes, in document order) are embedded in. A
        local model pads every batch to its longest text, so a call of texts in document order
        (a short passage beside a long one) costs up to twice the tokens of like-length texts:
        each window of `embed_window` texts is sorted by length. An endpoint is charged per
        text, and keeps document order (a stop keeps every document before it)."""
        window = self.options.embed_window
        name = getattr(self.embedder, "name", "") or ""
        if window <= 1 or name.startswith("openai/") or getattr(self.embedder, "backend", None) == "openai":
            return order
        return [
            digest
            for start in range(0, len(order), window)
            for digest in sorted(order[start : start + window], key=lambda d: len(texts[d]))
        ]

    def _vectors(self, part: list[str], texts: dict[str, str], owners: dict, failed: dict[str, str]):
        """(content hash, vector) for the texts of `part` in one call; when the embedder refuses
        the call for its input, each text alone, and the documents of a text refused alone are
        put in `failed`. A failure that is not about the input (the endpoint gone) stops the load."""
        try:
            return list(zip(part, self.embedder.embed([texts[d] for d in part]), strict=True))
        except Exception as exc:
            if not refuses_input(exc):
                raise
        found = []
        for digest in part:
            try:
                found.append((digest, self.embedder.embed([texts[digest]])[0]))
            except Exception as exc:
                if not refuses_input(exc):
                    raise
                for owner in owners[digest]:
                    failed.setdefault(owner["id"], f"not embedded: {refused_reason(exc)}")
        return found

    def _recall(self, digest: str, known: dict[str, list[float]], content_hash: str) -> list[float] | None:
        """The vector this load made for a text (`digest`), or the graph's for its text and title."""
        vector = self.recent.get(digest)
        if vector is not None:
            self.recent.move_to_end(digest)
            return vector
        vector = known.get(content_hash)
        if vector is not None:
            self._remember(digest, vector)
        return vector

    def _remember(self, digest: str, vector: list[float]) -> None:
        self.recent[digest] = vector
        self.recent.move_to_end(digest)
        while len(self.recent) > self.RECENT_VECTORS:
            self.recent.popitem(last=False)

    def _prune(self) -> None:
        if self.stats.failed:
            # An item that failed to parse this time is not proof that it is gone.
            self.on_error("--prune skipped: some items failed, so missing documents cannot be told from broken ones")
            return
        result = prune_documents(self.graph, self.options.source_root, self.options.corpus, self.seen)
        self.stats.pruned_documents = result["documents"]
        self.stats.chunks_deleted += result["chunks"] or 0

    def _warn(self, item: str, warning: str) -> None:
        """A document that loads, but not all of it: one line, and it does not count as failed."""
        self.stats.warnings.append({"item": item, "warning": warning})
        self.on_error(f"{item}: {warning}")

    def _error(self, item: str, error: str) -> None:
        self.stats.failed += 1
        self.stats.errors.append({"item": item, "error": error})
        self.on_error(f"{item}: {error}")


def refuses_input(exc: BaseException) -> bool:
    """Whether an embedder's failure is about what it was given (an endpoint's 400, 413 or 422;
    a local model's ValueError), so the document is at fault, not the embedder."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in (400, 413, 422)
    return isinstance(exc, (ValueError, TypeError, UnicodeError)) and not isinstance(exc, GraphragError)


def check_vector_index(graph: Graph, embedder) -> None:
    """Refuse an embedder whose vectors the chunk_embedding index cannot hold."""
    index = next((row for row in graph.read("admin/indexes") if row["name"] == "chunk_embedding"), None)
    if index is None:
        raise GraphragError("the vector index chunk_embedding does not exist: run `graphrag apply-schema` first")
    dimensions = (index.get("config") or {}).get("vector.dimensions")
    if dimensions is not None and int(dimensions) != embedder.dimensions:
        raise GraphragError(
            f"embedder {embedder.name} makes {embedder.dimensions}-dimensional vectors but the vector index "
            f"chunk_embedding holds {dimensions}: set GRAPHRAG_EMBEDDER/GRAPHRAG_EMBEDDING_DIMENSIONS to match "
            "and run `graphrag apply-schema`, then `graphrag embed`"
        )


class LoadInterrupted(Neo4jUnavailable):
    """The server went away mid-load; the message says what was written before it stopped
    (all of it kept: the next run skips it), and `result` holds those counts."""

    def __init__(self, reason: str, written: str, result: dict):
        super().__init__(f"{reason}; written before it stopped: {written}")
        self.reason, self.result = reason, result


def prune_documents(graph: Graph, source_root: str, corpus: str | None, keep: Iterable[str]) -> dict:
    """Delete the documents loaded earlier from `source_root` (and `corpus`) whose id is not in
    `keep`, with their chunks, which give their phrase counts back in the same transaction."""
    params = {"sourceRoot": source_root, "corpus": corpus}
    ids = [row["id"] for row in graph.read("ingest/prunable_documents", keep=sorted(keep), **params)]
    if not ids:
        return {"documents": 0, "chunks": 0}
    return graph.write_steps(
        ("phrases/release_documents", {"ids": ids}),
        ("authors/release_documents", {"ids": ids}),
        ("ingest/prune_documents", {"ids": ids, **params}),
    )[-1][0]


def common_root(paths: Iterable[str | Path]) -> str:
    """The folder the given paths share (resolved): a load's `source_root`, which --prune is scoped to."""
    resolved = [str(Path(p).resolve()) for p in paths]
    return os.path.commonpath(resolved) if resolved else ""


def load(
    graph: Graph,
    embedder,
    options: LoadOptions,
    items: Iterable,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[LoadStats], None] = lambda stats: None,
    should_stop: Callable[[], bool] = lambda: False,
) -> LoadStats:
    """Stream parsed documents (and ItemErrors) into the graph; without an embedder chunks get no vector.
    When `should_stop()` turns true the load ends early with whole documents (`stats.cancelled`).

    Raises :class:`LoadInterrupted` when Neo4j goes away mid-load."""
    if options.corpus is not None and len(options.corpus) > MAX_KEY_CHARS:
        raise GraphragError(f"corpus name too long: {len(options.corpus):,} characters, at most {MAX_KEY_CHARS:,}")
    if embedder is not None:
        check_vector_index(graph, embedder)
    run = Loader(graph, embedder, options, on_error=on_error, on_progress=on_progress, should_stop=should_stop)
    try:
        return run.run(items)
    except Neo4jUnavailable as exc:
        s = run.stats
        raise LoadInterrupted(
            str(exc),
            f"{s.created} document(s) created, {s.updated} updated, "
            f"{s.chunks_created} chunk(s), all kept (the next run skips them)",
            s.to_dict(),
        ) from None


def embed_pending(
    graph: Graph, embedder, batch: int = 256, on_progress: Callable[[int], None] = lambda total: None
) -> int:
    """(Re)embed the chunks that have no vector or one from another model, `batch` chunks per
    embedding call and write transaction; returns how many were embedded. Interrupted, it
    keeps every finished batch and the next run goes on from there. One audit record (operation
    `embed`) when it embedded anything or failed."""
    from graphrag_cypher.audit import audited

    done = [0]

    def progress(total: int) -> None:
        done[0] = total
        on_progress(total)

    with audited(graph, "embed") as audit:
        try:
            return _embed_pending(graph, embedder, batch, progress)
        finally:
            audit.add({"chunks": {"embedded": done[0]}, "model": embedder.name})
            audit.only_if(done[0] > 0)


def _embed_pending(graph: Graph, embedder, batch: int, on_progress: Callable[[int], None]) -> int:
    check_vector_index(graph, embedder)
    total = 0
    while True:
        rows = graph.read("ingest/chunks_to_embed", model=embedder.name, limit=batch)
        if not rows:
            return total
        vectors = embedder.embed([embedding_input(r["title"], r["text"] or "") for r in rows])
        graph.write(
            "ingest/set_chunk_vectors",
            model=embedder.name,
            rows=[{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors, strict=True)],
        )
        total += len(rows)
        on_progress(total)
