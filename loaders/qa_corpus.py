"""HippoRAG-style passage corpora: one pre-chunked document per passage.

Accepted shapes: a JSON list of {"title", "text"} objects; an object mapping a title to
its sentences (or to a text); an object mapping keys to {"title", "text"} objects.
Titles repeat across passages, so the id hashes title and text together; a passage that
appears twice (same title and text) is yielded once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from graphrag_cypher.model import ContentError, ItemError, ParsedDocument, Section
from graphrag_cypher.safe_io import read_json


def passage_id(title: str, text: str) -> str:
    return "passage:" + hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:16]


def parse_qa_corpora(paths, corpus: str) -> Iterator[ParsedDocument | ItemError]:
    """The passages of several corpus files as one corpus: a passage in more than one file (same
    title and text) is yielded once, from the first."""
    seen: set[str] = set()
    for path in paths:
        yield from parse_qa_corpus(path, corpus=corpus, seen=seen)


def parse_qa_corpus(
    path: str | os.PathLike, corpus: str | None = None, seen: set[str] | None = None
) -> Iterator[ParsedDocument | ItemError]:
    path = Path(path)
    corpus = corpus or path.stem
    seen = set() if seen is None else seen
    try:
        data = read_json(path)
    except OSError as exc:
        yield ItemError(str(path), f"cannot read: {exc.strerror or exc}")
        return
    except ContentError as exc:  # bad UTF-8, bad or too deep JSON, too large
        yield ItemError(str(path), str(exc))
        return
    for label, record in _records(data):
        item = f"{path.name} {label}"
        passage = _passage(record)
        if isinstance(passage, str):
            yield ItemError(item, passage)
            continue
        title, text = passage
        identifier = passage_id(title, text)
        if identifier in seen:
            continue
        seen.add(identifier)
        yield ParsedDocument(
            id=identifier,
            title=title,
            kind="passage",
            source=str(path),
            labels=("Passage",),
            metadata={"corpus": corpus},
            sections=[Section(text=text, title=title, seq=0)],
            prechunked=True,
        )


def _records(data) -> Iterator[tuple[str, object]]:
    if isinstance(data, list):
        for i, record in enumerate(data):
            yield f"item {i}", record
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict):
                yield f"key {key!r}", value
            else:  # title -> sentences (or text)
                yield f"key {key!r}", {"title": key, "text": value}
    else:
        yield "top level", "expected a JSON list or object"


def _passage(record) -> tuple[str, str] | str:
    if not isinstance(record, dict):
        return "expected an object with title and text"
    title, text = record.get("title"), record.get("text")
    if isinstance(text, list):
        text = " ".join(str(s).strip() for s in text if str(s).strip())
    if not isinstance(title, str) or not title.strip():
        return "missing title"
    if not isinstance(text, str) or not text.strip():
        return "missing text"
    # Kept as given (only trimmed) so that gold passages elsewhere hash to the same id.
    return title.strip(), text.strip()
