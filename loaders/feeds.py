"""News feeds (RSS 0.9x-2.0, RSS 1.0, Atom): each entry a dated Document.

A feed is read from a file or fetched by URL with the crawler's rules (robots.txt, redirects
checked hop by hop, byte caps, deadlines, a delay between requests; see `web.py`), and parsed
by feedparser, which is always handed bytes (it never fetches anything itself). Each entry
becomes a `:Document:FeedEntry` of kind "feed" with

- `date` (yyyy-mm-dd, what the date filters of `ask` compare) and `published` (the full
  timestamp in UTC) from the entry's published date, else its updated date;
- `author`, `feed` (the feed's title), `feedUrl`, `uri` (the article's link), `entryId`, `tags`;
- its text: the entry's full content when the feed carries it; when it has only a summary
  (shorter than `SUMMARY_ONLY_CHARS` characters of text), the article page at its link,
  fetched with the same rules, and the summary when the page cannot be had (one error line).

Incremental by entry id and entry hash: the sha256 of what the feed says about an entry
(`entryHash`) is stored on its document, and an entry whose hash, corpus and loader are
unchanged is neither fetched nor parsed again; the documents' own content hashes then make
every other repeat a no-op. Document ids are the entry's id when it is a URL, URN or tag
URI, else "<feed URL>#<id>"; an entry without an id is known by its link.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from graphrag_cypher.model import ContentError, ItemError, ParsedDocument
from graphrag_cypher.store.ingest import Checkpoint
from graphrag_cypher.text import iso_date

from .web import PoliteClient

SUMMARY_ONLY_CHARS = 600  # an entry whose text is shorter than this is a teaser: its page is fetched
MAX_FEED_BYTES = 10 * 1024 * 1024


@dataclass
class FeedStats:
    """What a feed load did besides writing documents."""

    feeds: int = 0
    entries: int = 0
    unchanged: int = 0  # entries skipped by their entry hash, not fetched again
    pages_fetched: int = 0
    summary_only: int = 0  # entries loaded from their summary because the page could not be fetched
    undated: int = 0  # entries without a date: date filters never select them

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Entry:
    """One feed entry, before its article page is fetched."""

    doc_id: str
    entry_id: str
    title: str
    link: str | None
    author: str | None
    published: str | None  # ISO timestamp, UTC
    tags: list[str]
    html: str  # full content when the feed has it, else the summary
    full: bool  # whether `html` is the whole article
    feed_title: str | None
    feed_url: str
    language: str | None
    entry_hash: str = ""

    @property
    def date(self) -> str | None:
        return self.published[:10] if self.published else None


def _iso(struct) -> str | None:
    """feedparser's UTC struct_time as an ISO timestamp (None when the entry has no date)."""
    if not struct:
        return None
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(calendar.timegm(struct)))
    except (TypeError, ValueError, OverflowError):
        return None


def _text_length(html: str) -> int:
    from bs4 import BeautifulSoup

    return len(BeautifulSoup(html, "lxml").get_text(" ", strip=True)) if html.strip() else 0


def _doc_id(entry_id: str, feed_url: str) -> str:
    if ":" in entry_id:  # http(s) URL, urn:, tag: -- globally unique by construction
        return entry_id
    return f"{feed_url}#{entry_id}"


def parse_feed(data: bytes, feed_url: str, content_type: str | None = None) -> list[Entry]:
    """The entries of a feed document; ContentError when `data` is not a feed."""
    import feedparser

    headers = {"content-location": feed_url}
    if content_type:
        headers["content-type"] = content_type
    parsed = feedparser.parse(data, response_headers=headers)
    if not parsed.entries:
        if parsed.get("bozo"):
            reason = str(parsed.get("bozo_exception") or "unreadable").splitlines()[0]
            raise ContentError(f"not a readable RSS or Atom feed: {reason}")
        if not parsed.get("version"):
            raise ContentError("not an RSS or Atom feed")
        return []
    feed = parsed.feed
    entries = []
    for raw in parsed.entries:
        content = "\n".join(c.get("value", "") for c in raw.get("content") or [])
        summary = raw.get("summary") or ""
        html = content if _text_length(content) >= _text_length(summary) else summary
        entry_id = raw.get("id") or raw.get("link") or ""
        if not entry_id:
            key = json.dumps([raw.get("title"), raw.get("published"), summary], ensure_ascii=False)
            entry_id = "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
        entry = Entry(
            doc_id=_doc_id(entry_id, feed_url),
            entry_id=entry_id,
            title=(raw.get("title") or "").strip() or raw.get("link") or entry_id,
            link=raw.get("link"),
            author=raw.get("author") or feed.get("author"),
            published=_iso(dict.get(raw, "published_parsed") or dict.get(raw, "updated_parsed")),
            tags=[t.get("term") for t in raw.get("tags") or [] if t.get("term")],
            html=html,
            full=_text_length(html) >= SUMMARY_ONLY_CHARS,
            feed_title=feed.get("title"),
            feed_url=feed_url,
            language=raw.get("language") or feed.get("language"),
        )
        # what the feed says about the entry: a changed one is fetched and parsed again
        said = [entry.doc_id, entry.title, entry.link, entry.author, entry.published, entry.tags, entry.html]
        said.append(dict.get(raw, "updated"))  # dict's own get: feedparser's would warn and map it
        entry.entry_hash = hashlib.sha256(json.dumps(said, ensure_ascii=False).encode("utf-8")).hexdigest()
        entries.append(entry)
    return entries


def _document(entry: Entry, page: ParsedDocument | None, complete: bool = True) -> ParsedDocument:
    """The entry as a document: the page's text when it was fetched, else the feed's. An
    incomplete one (its page could not be fetched) gets no entry hash, so the next run tries again."""
    from .html_content import parse_html

    if page is not None and page.sections:
        sections = page.sections
    else:
        sections = parse_html(f"<html><body><main>{entry.html}</main></body></html>", base_url=entry.link).sections
    date = entry.date or (iso_date(page.metadata.get("date")) if page is not None else None)
    metadata = {
        "date": date,
        "published": entry.published,
        "author": entry.author,
        "feed": entry.feed_title,
        "feedUrl": entry.feed_url,
        "entryId": entry.entry_id,
        "entryHash": entry.entry_hash if complete else "",
        "tags": entry.tags or None,
        "language": entry.language,
        "fullText": page is not None or entry.full,
    }
    return ParsedDocument(
        id=entry.doc_id,
        title=entry.title,
        kind="feed",
        source=entry.feed_url,
        uri=entry.link,
        labels=("FeedEntry",),
        metadata={k: v for k, v in metadata.items() if v is not None},
        sections=sections,
    )


@dataclass
class FeedRun:
    """One `load feed`: the items for `ingest.load`, and what it did (`stats`)."""

    graph: object
    sources: Iterable[str]
    corpus: str | None = None
    full: bool = False  # fetch and parse every entry, even unchanged ones
    fetch_pages: bool = True
    client: PoliteClient = field(default_factory=PoliteClient)
    stats: FeedStats = field(default_factory=FeedStats)

    def items(self) -> Iterator[ParsedDocument | ItemError | Checkpoint]:
        with self.client as client:
            for source in self.sources:
                yield from self._feed(client, source)

    def _feed(self, client: PoliteClient, source: str) -> Iterator[ParsedDocument | ItemError | Checkpoint]:
        if source.startswith(("http://", "https://")):
            got = client.get(source)
            if isinstance(got, ItemError):
                yield got
                return
            feed_url, content_type, data = got
            if content_type in ("text/html", "application/xhtml+xml"):
                yield ItemError(source, f"an HTML page, not a feed (content type {content_type})")
                return
        else:
            path = Path(source)
            if not path.is_file():
                yield ItemError(source, "no such file (a feed is a file or an http(s) URL)")
                return
            if path.stat().st_size > MAX_FEED_BYTES:
                yield ItemError(source, f"larger than {MAX_FEED_BYTES / 1e6:.0f} MB, skipped")
                return
            feed_url, content_type, data = str(path.resolve()), None, path.read_bytes()
        try:
            entries = parse_feed(data, feed_url, content_type)
        except ContentError as exc:
            yield ItemError(source, str(exc))
            return
        self.stats.feeds += 1
        self.stats.entries += len(entries)
        known = {
            r["id"]: r
            for r in self.graph.read("ingest/feed_entries", ids=[e.doc_id for e in entries])  # type: ignore[attr-defined]
        }
        current = []
        for entry in entries:
            row = known.get(entry.doc_id)
            if not self.full and row and row["entryHash"] == entry.entry_hash and row["corpus"] == self.corpus:
                current.append(entry.doc_id)
                continue
            if not entry.date:
                self.stats.undated += 1
            page, complete = None, True
            if not entry.full and entry.link and self.fetch_pages:
                fetched = client.page(entry.link)
                if isinstance(fetched, ItemError):
                    self.stats.summary_only += 1
                    complete = False
                    yield ItemError(
                        entry.link, f"article page not fetched ({fetched.error}); loaded the feed's summary"
                    )
                else:
                    self.stats.pages_fetched += 1
                    page = fetched
            yield _document(entry, page, complete)
        self.stats.unchanged += len(current)
        yield Checkpoint(reached=lambda: None, unchanged=tuple(current))
