"""Article chunk files (the ISAW converter's output): one JSON array of strings per article.

Each string is one chunk; it is NFC-normalised and its whitespace collapsed, and its
position is kept as `seq` (empty strings are dropped without renumbering the rest).
Article fields come from keyword options or from `<name>.meta.json` beside the file
(`id`, `title`, `year`, `journal`, `url`, plus any other flat values); options win.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from graphrag_cypher.model import ItemError, ParsedDocument, Section
from graphrag_cypher.safe_io import read_json
from graphrag_cypher.text import collapse_whitespace

META_SUFFIX = ".meta.json"


def parse_chunks_file(
    path: str | os.PathLike,
    *,
    article_id: str | None = None,
    title: str | None = None,
    year: int | str | None = None,
    journal: str | None = None,
    url: str | None = None,
    corpus: str | None = None,
) -> ParsedDocument | ItemError:
    path = Path(path)
    try:
        chunks = read_json(path)
        meta = _side_meta(path)
    except OSError as exc:
        return ItemError(str(path), f"cannot read: {exc.strerror or exc}")
    except ValueError as exc:  # ContentError from safe_io: bad UTF-8, bad or too deep JSON, too large
        return ItemError(str(path), str(exc))
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        return ItemError(str(path), "expected a JSON array of strings (one per chunk)")
    sections = [Section(text=text, seq=seq) for seq, text in enumerate(map(normalise_chunk, chunks)) if text]
    if not sections:
        return ItemError(str(path), "no non-empty chunks")
    options = {"id": article_id, "title": title, "year": year, "journal": journal, "url": url, "corpus": corpus}
    fields = {**meta, **{k: v for k, v in options.items() if v is not None}}
    identifier = str(fields.pop("id", None) or _stem(path))
    metadata = {k: v for k, v in fields.items() if k not in ("title", "url") and _storable(v)}
    if "year" in metadata and str(metadata["year"]).isdigit():
        metadata["year"] = int(metadata["year"])
    return ParsedDocument(
        id=f"article:{identifier}",
        title=str(fields.get("title") or identifier),
        kind="article",
        source=str(path),
        uri=fields.get("url"),
        labels=("Article",),
        metadata=metadata,
        sections=sections,
        prechunked=True,
    )


def parse_chunks_folder(root: str | os.PathLike, **options) -> Iterator[ParsedDocument | ItemError]:
    """Every chunk file under `root` (side files `*.meta.json` excluded), sorted by path."""
    for path in sorted(Path(root).rglob("*.json")):
        if not path.name.endswith(META_SUFFIX):
            yield parse_chunks_file(path, **options)


def normalise_chunk(text: str) -> str:
    return collapse_whitespace(unicodedata.normalize("NFC", text))


def _stem(path: Path) -> str:
    return path.name[: -len(".json")] if path.name.endswith(".json") else path.stem


def _side_meta(path: Path) -> dict:
    side = path.with_name(_stem(path) + META_SUFFIX)
    if not side.exists():
        return {}
    try:
        meta = read_json(side)
    except ValueError as exc:
        raise ValueError(f"{side.name}: {exc}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{side.name} is not a JSON object")
    return meta


def _storable(value) -> bool:
    if isinstance(value, (str, int, float, bool)):
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
