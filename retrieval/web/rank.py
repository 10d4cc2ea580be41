"""Ranking a search's pages against the question: a page's first chunks, those sharing most
question words embedded (or the result's snippet where the page could not be had), the chunks
nearest the question kept, or each page judged by its best chunk."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from graphrag_cypher.lexicon import stem
from graphrag_cypher.model import ParsedDocument

from .fetch import read_page
from .trace import ResultTrace, WebChunk, WebPage, WebTrace

CHUNKS_PER_PAGE = 40  # chunks of a page considered (a long page's first ones)
EMBEDDED_PER_PAGE = 8  # of those, the ones sharing most question words are embedded
CHUNK_SIZE, CHUNK_OVERLAP = 1000, 100  # as `graphrag load url` chunks, so learned chunks match

Candidate = tuple[ResultTrace, ParsedDocument | None, str, str, str]  # result, page, chunk id, text, embedded text
Scored = tuple[float, ResultTrace, ParsedDocument | None, WebChunk]  # cosine first


def chunks_to_embed(
    to_fetch: list[ResultTrace], documents: dict, query: str, keywords: Iterable[str]
) -> list[Candidate]:
    """The chunks to embed: of each page, those sharing most question words (the keywords, else
    the query's words); a result without a page (or without text) gives its snippet instead."""
    words = _stems(keywords) or _stems(re.findall(r"\w+", query))
    out: list[Candidate] = []
    for result in to_fetch:
        doc = read_page(result, documents.get(result.url))
        if doc is not None:
            texts = _page_chunks(doc)
            if not texts:
                result.dropped = "the page has no text"
            for chunk_id, text in _best_by_words(texts, words, EMBEDDED_PER_PAGE):
                out.append((result, doc, chunk_id, text, _embedding_input(doc.title, text)))
            result.chunks = len(texts)
            if texts:
                continue
        if result.snippet:
            result.snippet_used = True
            out.append(
                (
                    result,
                    None,
                    f"{result.url}::snippet",
                    result.snippet,
                    _embedding_input(result.title, result.snippet),
                )
            )
    return out


def by_similarity(found: list[Candidate], vectors: list[list[float]], question_vector: Sequence[float]) -> list[Scored]:
    """Each chunk with its cosine to the question, nearest first (each result's best noted in its trace)."""
    out: list[Scored] = []
    for (result, doc, chunk_id, text, embedded), vector in zip(found, vectors, strict=True):
        sim = _cosine(question_vector, vector)
        if result.best_similarity is None or sim > result.best_similarity:
            result.best_similarity = sim
        out.append((sim, result, doc, WebChunk(chunk_id, text, sim, vector, embedded)))
    out.sort(key=lambda s: -s[0])
    return out


def by_page(chosen: list[Scored]) -> dict[str, WebPage]:
    """The chosen chunks by page (URL), in the order of each page's best chunk."""
    out: dict[str, WebPage] = {}
    for _sim, result, doc, chunk in chosen:
        page = out.get(result.url)
        if page is None:
            page = out[result.url] = WebPage("", result, doc, [])
        page.chunks.append(chunk)
    return out


def note_unused(trace: WebTrace, used: dict[str, WebPage], k: int, min_similarity: float | None, judged: bool) -> None:
    """Say in the trace why each compared result gave no evidence: under the gate, or outranked."""
    for result in trace.results:
        if result.url not in used and result.best_similarity is not None and result.dropped is None:
            if not judged and min_similarity is not None and result.best_similarity < min_similarity:
                result.dropped = f"cosine {result.best_similarity:.3f} below the gate ({min_similarity:g})"
            else:
                result.dropped = f"other results were closer to the question (the best {k} chunk(s) are used)"


def judge_pages(scored: list[Scored], judge: Callable, trace: WebTrace) -> set[str]:
    """The URLs of the pages the judge called off-topic, each judged by its best chunk."""
    from ..base import Evidence

    best: dict[str, tuple] = {}
    for _sim, result, doc, chunk in scored:  # best first
        if result.url not in best:
            best[result.url] = (result, doc, chunk)
    if not best:
        return set()
    passages = [
        Evidence(
            chunk.chunk_id, result.url, doc.title if doc else result.title, result.url, chunk.text, chunk.similarity
        )
        for result, doc, chunk in best.values()
    ]
    verdicts, trace.judged_by = judge(passages)
    off = set()
    for url, (result, _doc, chunk) in best.items():
        relevant, reason = verdicts.get(chunk.chunk_id, (True, "no verdict: kept"))
        if not relevant:
            off.add(url)
            result.dropped = f"judged off-topic by {trace.judged_by}" + (f": {reason}" if reason else "")
    return off


def _embedding_input(title: str | None, text: str) -> str:
    from graphrag_cypher.store.ingest import embedding_input

    return embedding_input(title, text)


def _page_chunks(doc: ParsedDocument) -> list[tuple[str, str]]:
    """(chunk id, text) of a page's first chunks, ids as a load gives them (`<url>::<index>`)."""
    from graphrag_cypher.chunking import chunk_document

    specs = chunk_document(doc, size=CHUNK_SIZE, overlap=CHUNK_OVERLAP)
    return [(f"{doc.id}::{s.index}", s.text) for s in specs if s.text.strip()][:CHUNKS_PER_PAGE]


_stem = lru_cache(maxsize=65536)(stem)  # a page repeats its words: each is stemmed once


def _stems(words: Iterable[str]) -> set[str]:
    return {_stem(w.lower()) for w in words if len(w) > 2}


def _best_by_words(texts: list[tuple[str, str]], stems: set[str], n: int) -> list[tuple[str, str]]:
    """The `n` chunks sharing most question word stems (the lexicon's; ties: earlier chunks), in page order."""
    if len(texts) <= n:
        return texts

    def overlap(text: str) -> int:
        words = {_stem(w) for w in set(re.findall(r"\w+", text.lower()))}
        return len(stems & words)

    ranked = sorted(range(len(texts)), key=lambda i: (-overlap(texts[i][1]), i))[:n]
    return [texts[i] for i in sorted(ranked)]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0
