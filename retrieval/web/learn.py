"""`--learn-web` and `learn "topic"`: the pages a search gave, stored as web documents through the
ingest path, reusing the vectors the question's search made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from graphrag_cypher.model import ParsedDocument, Section

from .config import DEFAULT_CORPUS
from .rank import CHUNK_OVERLAP, CHUNK_SIZE
from .trace import WebFound, WebTrace


class _KnownVectors:
    """The query embedder, answering from the vectors the fallback already made."""

    def __init__(self, embedder, known: dict[str, list[float]]):
        self._embedder, self._known = embedder, known
        self.name, self.dimensions = embedder.name, embedder.dimensions
        self.computed = 0  # texts the embedder had to embed

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        todo = list(dict.fromkeys(t for t in texts if t not in self._known))
        self.computed += len(todo)
        if todo:
            self._known.update(zip(todo, self._embedder.embed(todo), strict=True))
        return [self._known[t] for t in texts]


def learned_nothing(note: str | None = None, error: str | None = None) -> dict:
    """`learned` of a --learn-web that stored nothing, shaped as `learn_pages` answers."""
    out: dict = {"documents": 0, "created": 0, "updated": 0, "unchanged": 0, "chunks": 0, "embedded": 0}
    return dict(out, errors=[], note=note, error=error)


def stored_page(doc: ParsedDocument, stamp: str) -> ParsedDocument:
    """A fetched page as a web document to store (kind `web`, :WebPage, `fetched` the date
    of the fetch whose text is stored)."""
    return ParsedDocument(
        id=doc.id,
        title=doc.title,
        kind="web",
        source=doc.source,
        uri=doc.uri,
        labels=tuple(doc.labels),
        metadata=dict(doc.metadata, fetched=stamp),
        sections=[Section(s.text, s.title, s.page, s.kind, s.seq) for s in doc.sections],
    )


@dataclass
class TopicPages:
    """What a topic's search gave to learn: the pages (web documents) and, in the trace, what
    became of each result (blocked, not fetched, no text, not needed)."""

    topic: str
    trace: WebTrace
    documents: list[ParsedDocument] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "topic": self.topic,
            "provider": self.trace.provider,
            "error": self.trace.error,
            "results": len(self.trace.results),
            "pages": [d.id for d in self.documents],
            "skipped": [  # the results tried or blocked that gave no page
                {"url": r.url, "why": r.why_dropped()}
                for r in self.trace.results
                if r.id is None and (r.blocked or r.error or r.dropped)
            ],
        }


def learn_pages(graph, embedder, found: WebFound, corpus: str = DEFAULT_CORPUS, today: date | None = None) -> dict:
    """Store the fetched pages that gave evidence as web documents (kind `web`, with `fetched`,
    the date of the fetch whose text is stored), through the ingest path in write
    transactions: unchanged pages are left as they are, changed ones are updated (a page the
    graph already held is refreshed this way). Returns the load's counts."""
    from graphrag_cypher.store.ingest import LoadOptions, load

    stamp = (today or date.today()).isoformat()
    docs = [stored_page(page.document, stamp) for page in found.pages if page.document is not None]
    if not docs:
        return learned_nothing("only search snippets gave evidence: nothing to learn")
    options = LoadOptions(
        loader="web-search", source_root="web-search", corpus=corpus, chunk_size=CHUNK_SIZE, overlap=CHUNK_OVERLAP
    )
    vectors = _KnownVectors(embedder, dict(found.vectors))
    stats = load(graph, vectors, options, docs)
    return {
        "documents": len(docs),
        "created": stats.created,
        "updated": stats.updated,
        "unchanged": stats.unchanged,
        "chunks": stats.chunks_created,
        "embedded": vectors.computed,  # chunks whose vector the question's search had not made
        "errors": [f"{e['item']}: {e['error']}" for e in stats.errors],
        "note": None,
        "error": None,
    }
