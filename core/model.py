"""What every parser produces: documents made of sections, or one-line item errors.

The database-writing side depends only on these names, so parsers stay free of Neo4j.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

# Extra Neo4j labels a parser may ask for. Anything else is a bug in the parser, and
# labels cannot be parameters in Cypher, so the allowlist is checked here, early.
ALLOWED_LABELS = frozenset({"Story", "Article", "WikiPage", "Passage", "WebPage", "EntityDocument", "FeedEntry"})
DOCUMENT_KINDS = frozenset({"file", "web", "story", "article", "wiki", "passage", "pdf", "code", "entity", "feed"})


@dataclass
class Section:
    """A piece of a document's text with its structure."""

    text: str
    title: str | None = None  # heading path, e.g. "Methods > Sampling"
    page: int | None = None  # PDF page number (1-based)
    kind: str = "text"  # "text" | "code"
    seq: int | None = None  # pre-chunked input: the original position


@dataclass
class ParsedDocument:
    id: str
    title: str
    kind: str
    source: str
    uri: str | None = None
    labels: tuple[str, ...] = ()
    metadata: dict = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    prechunked: bool = False
    # What a parse budget cut, one line each ("PDF cut at page 12 of 300: ..."); not stored.
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        unknown = set(self.labels) - ALLOWED_LABELS
        if unknown:
            raise ValueError(f"labels not in the allowlist: {sorted(unknown)}")
        if self.kind not in DOCUMENT_KINDS:
            raise ValueError(f"unknown document kind: {self.kind!r}")

    @property
    def content_hash(self) -> str:
        """sha256 of everything that ends up stored; equal hashes mean nothing to rewrite."""
        payload = {
            "title": self.title,
            "kind": self.kind,
            "uri": self.uri,
            "labels": list(self.labels),
            "metadata": self.metadata,
            "prechunked": self.prechunked,
            "sections": [[s.text, s.title, s.page, s.kind, s.seq] for s in self.sections],
        }
        encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(encoded.encode("utf-8")).hexdigest()

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


@dataclass
class ItemError:
    """One bad item (file, line, page): which one and what is wrong, in one line."""

    item: str
    error: str

    def __str__(self) -> str:
        return f"{self.item}: {self.error}"


class ContentError(ValueError):
    """Raised by a content parser when an input cannot become a document; callers turn
    it into an ItemError naming the item."""
