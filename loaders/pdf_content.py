"""PDF to one section per page (PyMuPDF), with the PDF's own title, author and date."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_cypher.model import ContentError, Section
from graphrag_cypher.text import iso_date, tidy_lines


@dataclass
class PdfContent:
    title: str | None
    metadata: dict
    sections: list[Section]


def parse_pdf(data: bytes) -> PdfContent:
    import pymupdf

    if not data.startswith(b"%PDF"):
        raise ContentError("not a PDF (no %PDF header)")
    # MuPDF silently "repairs" a cut-off file and returns whatever pages survive; a missing
    # end-of-file marker is how we know it was truncated, so refuse rather than load half.
    if b"%%EOF" not in data[-2048:]:
        raise ContentError("truncated or corrupt PDF (no %%EOF marker at the end)")
    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            if doc.needs_pass:
                raise ContentError("encrypted PDF (needs a password)")
            sections = [_page_section(page) for page in doc]
            metadata = dict(doc.metadata or {})
    except ContentError:
        raise
    except Exception as exc:  # MuPDF raises its own error types for damaged files
        raise ContentError(f"corrupt PDF: {collapse(exc)}") from exc
    sections = [s for s in sections if s.text]
    if not sections:
        raise ContentError("no text layer (a scanned PDF?)")
    return PdfContent(_clean(metadata.get("title")), _metadata(metadata), sections)


def _page_section(page) -> Section:
    # sort=True orders text blocks top-to-bottom, left-to-right: reading order for most layouts.
    text = tidy_lines(page.get_text("text", sort=True))
    return Section(text=text, page=page.number + 1)


def _clean(value: str | None) -> str | None:
    return " ".join(value.split()) if value and value.strip() else None


def _metadata(raw: dict) -> dict:
    metadata: dict = {}
    author = _clean(raw.get("author"))
    if author:
        metadata["authors"] = [a.strip() for a in re.split(r";|\band\b", author) if a.strip()]
    date = iso_date(_clean(raw.get("creationDate")))
    if date:
        metadata["date"] = date
    for key in ("subject", "keywords", "producer"):
        value = _clean(raw.get(key))
        if value:
            metadata[key] = value
    return metadata


def collapse(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
