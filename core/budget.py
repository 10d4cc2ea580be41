"""How much one document may cost to parse, whatever its size on disk.

A file's byte cap (`files.DEFAULT_MAX_BYTES`, the fetcher's `max_bytes`) bounds what is read,
not what comes out of it: a few kilobytes of PDF can inflate to megabytes of text operators,
and a few hundred bytes of YAML to hundreds of megabytes. Every extractor (PDF, HTML, text,
Markdown, code) works within a `ParseBudget` and reports what it cut as one line per item:

- ``GRAPHRAG_PARSE_SECONDS`` (60): wall time for one document. A PDF is parsed in a child
  process that is killed at this deadline (one MuPDF call on a huge page cannot be
  interrupted otherwise); HTML and Markdown check the clock as they walk.
- ``GRAPHRAG_PARSE_MAX_CHARS`` (2,000,000): extracted characters per document; the text past
  it is cut (about 800 dense pages).
- ``GRAPHRAG_PARSE_MAX_PAGES`` (2,000): PDF pages read.
- ``GRAPHRAG_PARSE_MAX_MB`` (256): decompressed page content per PDF, in MB.
- ``GRAPHRAG_PARSE_PAGE_MB`` (4): decompressed content of one PDF page, in MB; a bigger page
  is skipped before MuPDF reads it (real pages hold tens of kilobytes).
- ``GRAPHRAG_PARSE_PAGE_RATIO`` (100): how many times a PDF page's content may inflate when
  decompressed (past its first 256 KB); more is a compression bomb, and the page is skipped
  (a 5 KB page of 2 MB of repeated text operators inflates 400 times; real pages 3-30 times).
- ``GRAPHRAG_PARSE_MEMORY_MB`` (2,048): address space of the PDF-parsing child process.

A document over a budget keeps the part within it and says what was cut
(`ParsedDocument.notes`): "PDF cut at page 12 of 300: 2,000,000-character budget reached".
The character budget holds for every loader's documents (a MediaWiki page, a feed entry, a
record): the load cuts a longer document's text and says so in its result's warnings.

Bounds on what reaches an index. Neo4j refuses a range-index key over about 8 KB ("Property
value too large to index"), and one refused write fails its whole transaction, so every value
that user text reaches under an index or uniqueness constraint is bounded before it is written:

- ``MAX_TOKEN_CHARS`` (64): a longer "word" (a base64 blob, a minified line, a hash) is never
  a `:Word` of the vocabulary nor part of a `:Phrase`; the chunk keeps it as text.
- ``MAX_PHRASE_CHARS`` (256): a longer run of capitalised words is not a phrase (its words
  still are).
- ``MAX_KEY_CHARS`` (1,024; at most 4 KB in UTF-8): ids and other keys (document and chunk
  ids, entity ids and normalised names, corpus names). An id over it is the document's error,
  one line (a cut id could merge two documents); an indexed metadata value over it (a
  front-matter `date`) is cut, with a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import GraphragError

MB = 1024 * 1024
MAX_TOKEN_CHARS = 64
MAX_PHRASE_CHARS = 256
MAX_KEY_CHARS = 1024
ENV_NAMES = (
    "GRAPHRAG_PARSE_SECONDS",
    "GRAPHRAG_PARSE_MAX_CHARS",
    "GRAPHRAG_PARSE_MAX_PAGES",
    "GRAPHRAG_PARSE_MAX_MB",
    "GRAPHRAG_PARSE_PAGE_MB",
    "GRAPHRAG_PARSE_PAGE_RATIO",
    "GRAPHRAG_PARSE_MEMORY_MB",
)


@dataclass(frozen=True)
class ParseBudget:
    seconds: float = 60.0
    chars: int = 2_000_000
    pages: int = 2_000
    decompressed: int = 256 * MB
    page_bytes: int = 4 * MB
    page_ratio: float = 100.0
    memory: int = 2048 * MB

    @classmethod
    def from_env(cls, environ: dict | None = None) -> ParseBudget:
        """The budget the environment sets; a value that is not a positive number is a
        one-line GraphragError naming the variable."""
        env = environ if environ is not None else os.environ
        default = cls()
        return cls(
            seconds=_positive(env, "GRAPHRAG_PARSE_SECONDS", default.seconds),
            chars=int(_positive(env, "GRAPHRAG_PARSE_MAX_CHARS", default.chars)),
            pages=int(_positive(env, "GRAPHRAG_PARSE_MAX_PAGES", default.pages)),
            decompressed=int(_positive(env, "GRAPHRAG_PARSE_MAX_MB", default.decompressed / MB) * MB),
            page_bytes=int(_positive(env, "GRAPHRAG_PARSE_PAGE_MB", default.page_bytes / MB) * MB),
            page_ratio=_positive(env, "GRAPHRAG_PARSE_PAGE_RATIO", default.page_ratio),
            memory=int(_positive(env, "GRAPHRAG_PARSE_MEMORY_MB", default.memory / MB) * MB),
        )


def _positive(env, name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or not str(raw).strip():
        return default
    try:
        value = float(str(raw).replace("_", "").replace(",", ""))
    except ValueError:
        raise GraphragError(f"{name}={raw!r} is not a number") from None
    if not value > 0:
        raise GraphragError(f"{name}={raw!r}: must be more than 0")
    return value


def megabytes(n: int) -> str:
    return f"{n / MB:,.1f} MB" if n < 10 * MB else f"{n / MB:,.0f} MB"


def cut_text(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at the last line break before it when there is one
    in the last tenth (so a cut rarely splits a word)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    return head[:newline] if newline >= limit * 0.9 else head


def refused_write(exc: BaseException) -> bool:
    """Whether Neo4j refused a write for what it holds (a value it cannot index, a transaction
    too large for its memory), not because it is busy or going away: the documents are at
    fault, and one alone can be skipped."""
    from neo4j.exceptions import Neo4jError, TransientError

    if not isinstance(exc, Neo4jError):
        return False
    return not isinstance(exc, TransientError) or (exc.code or "").endswith("MemoryPoolOutOfMemoryError")


def refused_reason(exc: BaseException) -> str:
    """Why Neo4j refused a write, as one short line."""
    message = " ".join(str(getattr(exc, "message", None) or exc).split())
    return message if len(message) <= 200 else message[:199] + "…"
