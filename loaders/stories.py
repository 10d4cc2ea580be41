"""Story collections: JSONL records, or a plain-text book with one story per title line.

Book rules (Project Gutenberg style): the licence header/footer outside the
"*** START OF" / "*** END OF" markers is dropped; a title is a short all-capitals line
with a blank line (or the start) before and after it; a title with no text of its own is
a book title or a table-of-contents entry, and a block made of title-like lines is a
table of contents, so neither becomes a story. Ordinal sub-titles ("FIRST STORY",
"SECOND PART", "2. HOW ...") become sections of the story above them. Ids are slugs of the printed
title (stable across runs); the document title is the printed one in title case.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from graphrag_cypher.model import ContentError, ItemError, ParsedDocument, Section
from graphrag_cypher.safe_io import iter_lines, loads_json, open_bytes
from graphrag_cypher.text import clean_paragraphs, slugify, title_case

MAX_TITLE_CHARS = 80
_START = re.compile(r"^\*\*\*\s*START OF.*$", re.MULTILINE | re.IGNORECASE)
_END = re.compile(r"^\*\*\*\s*END OF.*$", re.MULTILINE | re.IGNORECASE)
_SUBPART = re.compile(
    r"^(FIRST|SECOND|THIRD|FOURTH|FIFTH|SIXTH|SEVENTH|EIGHTH|NINTH|TENTH|LAST|PART\s+[IVXLC\d]+)\b.*"
    r"|^(\d+|[IVXLC]+)\.\s+\S.*"
    r"|.*\b(STORY|PART|TALE|CHAPTER)\s+([IVXLC]+|\d+)$"
)
_TOC_HEADING = re.compile(r"^(CONTENTS|TABLE OF CONTENTS|INDEX)\.?$", re.IGNORECASE)
MIN_STORY_LETTERS = 40


# --- JSONL ---------------------------------------------------------------------------------


def parse_stories_jsonl(path: str | os.PathLike, corpus: str | None = None) -> Iterator[ParsedDocument | ItemError]:
    """One story per line: {"id", "title", "text", ...}; other scalar fields become metadata."""
    path = Path(path)
    corpus = corpus or path.stem
    seen: set[str] = set()
    try:
        with open_bytes(path) as handle:
            yield from _stories_of_lines(path, corpus, seen, iter_lines(handle, errors="replace"))
    except ContentError as exc:
        yield ItemError(str(path), str(exc))
    except OSError as exc:
        yield ItemError(str(path), f"cannot read: {exc.strerror or exc}")


def _stories_of_lines(path: Path, corpus: str, seen: set[str], lines) -> Iterator[ParsedDocument | ItemError]:
    for number, line in lines:
        item = f"{path.name} line {number}"
        if isinstance(line, ContentError):
            yield ItemError(item, str(line))
            continue
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except json.JSONDecodeError as exc:
            yield ItemError(item, f"invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        except ContentError as exc:
            yield ItemError(item, str(exc))
            continue
        result = _story_from_record(record, corpus, str(path))
        if isinstance(result, str):
            yield ItemError(item, result)
        elif result.id in seen:
            yield ItemError(item, f"duplicate story id {result.id!r}, skipped")
        else:
            seen.add(result.id)
            yield result


def _story_from_record(record, corpus: str, source: str) -> ParsedDocument | str:
    if not isinstance(record, dict):
        return "expected a JSON object"
    missing = [key for key in ("id", "title", "text") if record.get(key) in (None, "")]
    if missing:
        return f"missing {', '.join(missing)}"
    text = clean_paragraphs(str(record["text"]))
    if not text:
        return "empty text"
    metadata: dict[str, str | int | float | bool] = {"corpus": corpus}
    for key, value in record.items():
        if key not in ("id", "title", "text") and isinstance(value, (str, int, float, bool)):
            metadata[key] = value
    return ParsedDocument(
        id=f"story:{corpus}:{record['id']}",
        title=" ".join(str(record["title"]).split()),
        kind="story",
        source=source,
        labels=("Story",),
        metadata=metadata,
        sections=[Section(text=text)],
    )


# --- plain-text books ----------------------------------------------------------------------


def parse_story_book(path: str | os.PathLike, corpus: str | None = None) -> Iterator[ParsedDocument | ItemError]:
    path = Path(path)
    corpus = corpus or path.stem
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        yield ItemError(str(path), f"cannot read: {exc.strerror or exc}")
        return
    stories = split_book(strip_gutenberg(text))
    if not stories:
        yield ItemError(str(path), "no upper-case story titles found")
        return
    used: dict[str, int] = {}
    for printed, parts in stories:
        slug = slugify(printed)
        used[slug] = used.get(slug, 0) + 1
        if used[slug] > 1:  # two stories of the same name: keep both, ids stay stable by order
            slug = f"{slug}-{used[slug]}"
        title = title_case(printed)
        sections = [Section(text=body, title=f"{title} > {title_case(sub)}" if sub else None) for sub, body in parts]
        yield ParsedDocument(
            id=f"story:{corpus}:{slug}",
            title=title,
            kind="story",
            source=str(path),
            labels=("Story",),
            metadata={"corpus": corpus, "printedTitle": printed},
            sections=sections,
        )


def strip_gutenberg(text: str) -> str:
    """The book between the Project Gutenberg START/END markers (all of it without them)."""
    text = text.replace("\r\n", "\n")
    start = _START.search(text)
    if start:
        text = text[start.end() :]
    end = _END.search(text)
    if end:
        text = text[: end.start()]
    return text


def split_book(text: str) -> list[tuple[str, list[tuple[str | None, str]]]]:
    """[(printed title, [(sub-title or None, body), ...])] in book order."""
    stories: list[tuple[str, list[tuple[str | None, str]]]] = []
    pending: str | None = None  # a title still waiting for its text
    for title, raw in _title_blocks(text):
        body = clean_paragraphs(raw)
        if _SUBPART.match(title) and (pending or stories):
            if pending:
                stories.append((pending, []))
                pending = None
            if _has_story_text(raw):
                stories[-1][1].append((title, body))
            continue
        if _TOC_HEADING.match(title) or not _has_story_text(raw):
            pending = None if _TOC_HEADING.match(title) else title
            continue
        stories.append((title, [(None, body)]))
        pending = None
    return [(title, parts) for title, parts in stories if parts]


def _title_blocks(text: str) -> Iterator[tuple[str, str]]:
    lines = text.split("\n")
    title: str | None = None
    body: list[str] = []
    for i, line in enumerate(lines):
        before = lines[i - 1] if i > 0 else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if is_title_line(line) and not before.strip() and not after.strip():
            if title is not None:
                yield title, "\n".join(body)
            title, body = " ".join(line.split()), []
        elif title is not None:
            body.append(line)
    if title is not None:
        yield title, "\n".join(body)


def is_title_line(line: str) -> bool:
    stripped = line.strip()
    letters = [c for c in stripped if c.isalpha()]
    return (
        0 < len(stripped) <= MAX_TITLE_CHARS
        and len(letters) >= 2
        and all(c.isupper() for c in letters)
        and not stripped.startswith("***")
    )


def _has_story_text(body: str) -> bool:
    """Real prose, not nothing and not a table of contents made of title-like lines."""
    if sum(c.isalpha() for c in body) < MIN_STORY_LETTERS:
        return False
    lines = [line for line in body.split("\n") if line.strip()]
    return not lines or sum(is_title_line(line) for line in lines) / len(lines) < 0.8
