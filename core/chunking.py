"""Documents to chunks: sentence-aware, size-bounded, section-aware and code-aware.

Sentences come from `text.sentence_spans`, a regex splitter that knows abbreviations
("e.g.", "Dr.", "St."), initials, decimals and ellipses; it was chosen over pysbd to keep
the chunker dependency-free and fast (pysbd is pure Python but several times slower).

Rules:
- `size` and `overlap` count characters. A chunk never spans two sections.
- Text is packed sentence by sentence; the next chunk repeats the last whole sentences
  that fit in `overlap`, or, when the last sentence alone is longer, its last words.
- A sentence longer than `size` is split at whitespace. Only a "word" longer than `size`
  (a base64 blob, a giant URL) is cut inside, because it has no boundary to respect.
- Code sections are split at top-level blocks (a blank line followed by a line at
  column 0), then at line ends; never inside a line, and without overlap.
- Pre-chunked documents give one chunk per non-empty section, in `seq` order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from .model import ParsedDocument, Section
from .text import sentence_spans

Span = tuple[int, int]


@dataclass
class ChunkSpec:
    text: str
    index: int
    section: str | None
    page: int | None
    start: int  # char offset in the section text
    end: int


def chunk_document(doc: ParsedDocument, size: int = 1000, overlap: int = 100) -> list[ChunkSpec]:
    if size <= 0:
        raise ValueError("size must be positive")
    overlap = max(0, min(overlap, size // 2))
    if doc.prechunked:
        return _prechunked(doc.sections)
    chunks: list[ChunkSpec] = []
    for section in doc.sections:
        spans = chunk_code(section.text, size) if section.kind == "code" else chunk_text(section.text, size, overlap)
        for start, end in spans:
            chunks.append(ChunkSpec(section.text[start:end], len(chunks), section.title, section.page, start, end))
    return chunks


def _prechunked(sections: list[Section]) -> list[ChunkSpec]:
    ordered = sorted(enumerate(sections), key=lambda item: (item[1].seq is None, item[1].seq or 0, item[0]))
    use_seq = all(s.seq is not None for s in sections)
    chunks = []
    for position, (_, section) in enumerate(ordered):
        if not section.text.strip():
            continue
        index = section.seq if use_seq and section.seq is not None else position
        chunks.append(ChunkSpec(section.text, index, section.title, section.page, 0, len(section.text)))
    return chunks


# --- prose -------------------------------------------------------------------------------


def chunk_text(text: str, size: int = 1000, overlap: int = 100) -> list[Span]:
    """(start, end) offsets of the chunks of one section's prose."""
    units = [piece for span in sentence_spans(text) for piece in _split_long(text, span, size)]
    if not units:
        return []
    chunks: list[Span] = []
    chunk_start, i = units[0][0], 0
    while i < len(units):
        j, end = i, None
        while j < len(units) and units[j][1] - chunk_start <= size:
            end, j = units[j][1], j + 1
        if end is None:  # the overlap left no room for the next sentence: drop the overlap
            chunk_start = units[i][0]
            continue
        chunks.append((chunk_start, end))
        if j == len(units):
            break
        overlap_start = _overlap_start(text, units, i, j, end, overlap)
        fits = overlap_start is not None and units[j][1] - overlap_start <= size
        chunk_start = overlap_start if fits and overlap_start is not None else units[j][0]
        i = j
    return chunks


def _overlap_start(text: str, units: list[Span], first: int, stop: int, end: int, overlap: int) -> int | None:
    """Where the next chunk starts so that it repeats at most `overlap` chars of this one."""
    if overlap <= 0:
        return None
    start = None
    k = stop - 1
    while k >= first and end - units[k][0] <= overlap:
        start, k = units[k][0], k - 1
    if start is not None:
        return start
    # The last sentence alone is longer than the overlap: repeat its last whole words.
    for pos in range(end - overlap, end):
        if text[pos].isspace() and pos + 1 < end and not text[pos + 1].isspace():
            return pos + 1
    return None


def _split_long(text: str, span: Span, size: int) -> list[Span]:
    """A sentence longer than `size` split at whitespace into pieces of at most `size`."""
    start, end = span
    pieces = []
    while end - start > size:
        cut = _last_space(text, start, start + size)
        if cut is None:  # one "word" longer than size: nothing to respect, cut it
            pieces.append((start, start + size))
            start += size
        else:
            piece_end = cut
            while piece_end > start and text[piece_end - 1].isspace():
                piece_end -= 1
            pieces.append((start, piece_end))
            start = cut
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        pieces.append((start, end))
    return pieces


def _last_space(text: str, start: int, limit: int) -> int | None:
    """The last whitespace position p with start < p <= limit (the piece text[start:p] fits)."""
    for pos in range(limit, start, -1):
        if text[pos].isspace():
            return pos
    return None


# --- code --------------------------------------------------------------------------------

_TOP_LEVEL = re.compile(r"\S")


def chunk_code(text: str, size: int = 1000) -> list[Span]:
    """(start, end) offsets of code chunks: whole top-level blocks, else whole lines."""
    chunks: list[Span] = []
    current: Span | None = None
    for block in _code_blocks(text):
        for piece in _split_block(text, block, size):
            if current is not None and piece[1] - current[0] <= size:
                current = (current[0], piece[1])
                continue
            if current is not None:
                chunks.append(current)
            current = piece
    if current is not None:
        chunks.append(current)
    return chunks


def _lines(text: str) -> list[Span]:
    """(start, end) of each line, newline excluded."""
    spans, start = [], 0
    for match in re.finditer(r"\n", text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _code_blocks(text: str) -> list[list[Span]]:
    """Lines grouped into top-level blocks; blank lines only separate blocks."""
    blocks: list[list[Span]] = []
    current: list[Span] = []
    previous_blank = True
    for start, end in _lines(text):
        line = text[start:end]
        if not line.strip():
            previous_blank = True
            continue
        starts_top_level = bool(_TOP_LEVEL.match(line)) and previous_blank
        if starts_top_level and current:
            blocks.append(current)
            current = []
        current.append((start, end))
        previous_blank = False
    if current:
        blocks.append(current)
    return blocks


def _split_block(text: str, lines: list[Span], size: int) -> list[Span]:
    """A block as one span, or, when it is longer than `size`, as runs of whole lines."""
    if lines[-1][1] - lines[0][0] <= size:
        return [(lines[0][0], _rstrip(text, lines[0][0], lines[-1][1]))]
    pieces, run = [], None
    for start, end in lines:
        if run is not None and end - run[0] <= size:
            run = (run[0], end)
            continue
        if run is not None:
            pieces.append(run)
        run = (start, end)
    if run is not None:  # always: `lines` is not empty
        pieces.append(run)
    return [(s, _rstrip(text, s, e)) for s, e in pieces]


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


# --- semantic ----------------------------------------------------------------------------


def semantic_split(
    sentences: list[str],
    embed: Callable[[list[str]], list[list[float]]],
    threshold_percentile: float = 90,
    size: int = 1000,
) -> list[str]:
    """Group sentences, starting a new group where adjacent sentences are least similar.

    A break goes where the cosine distance between neighbours is above the given
    percentile of all neighbour distances, or where the group would exceed `size`.
    A sentence written more than once is embedded once.
    """
    sentences = [s.strip() for s in sentences if s and s.strip()]
    if len(sentences) <= 1:
        return sentences
    distinct = list(dict.fromkeys(sentences))
    found = embed(distinct)
    if len(found) != len(distinct):
        raise ValueError(f"embed returned {len(found)} vectors for {len(distinct)} sentences")
    by_text = dict(zip(distinct, found, strict=True))
    vectors = [by_text[s] for s in sentences]
    distances = [0.0 if a is b else 1.0 - _cosine(a, b) for a, b in pairwise(vectors)]
    threshold = _percentile(distances, threshold_percentile)
    groups: list[list[str]] = [[sentences[0]]]
    for sentence, distance in zip(sentences[1:], distances, strict=True):
        length = sum(len(s) + 1 for s in groups[-1]) + len(sentence)
        if distance > threshold or length > size:
            groups.append([sentence])
        else:
            groups[-1].append(sentence)
    return [" ".join(group) for group in groups]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _percentile(values: list[float], percentile: float) -> float:
    """Linear-interpolation percentile (numpy's default), without numpy."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * max(0.0, min(100.0, percentile)) / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
