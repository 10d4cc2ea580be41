"""Topic answers: every document of the scope that mentions the term, one cited sentence from
each (most mentions first, up to TOPIC_BUDGET), grouped under their communities."""

from __future__ import annotations

import re

from ...text import split_sentences
from ..answer import neutral, sources_for
from ..base import Evidence
from .detect import GlobalQuestion
from .patterns import _COLLECTION, _THEME_ANY
from .quotes import _excerpt, _readable
from .result import GlobalResult, _community
from .scope import Scope
from .terms import _fulltext, forms, java_pattern, python_pattern

TOPIC_BUDGET = 30  # documents quoted by a topic answer (then a count of the rest)

GROUPS_TARGET = 6  # a topic answer's groups: the finest level with at most this many (fewer for few documents)
MAX_HITS = 20000  # chunks the full-text shortlist of a topic may give
CHUNKS_PER_DOCUMENT = 3  # chunks with the most mentions read per document


def mentioning(graph, term: str, scope: Scope) -> list[dict]:
    """Every document of the scope that holds the term's forms, most mentions first."""
    term_forms = forms(term)
    query = _fulltext(term_forms)
    if not query:
        return []
    return graph.read(
        "global/mentions",
        query=query,
        pattern=java_pattern(term_forms),
        fetch=MAX_HITS,
        per=CHUNKS_PER_DOCUMENT,
        about=scope.about,
        **scope.params(),
    )


def _topic(graph, analysis, found: GlobalQuestion, scope: Scope) -> GlobalResult:
    term = found.term or ""
    rows = mentioning(graph, term, scope)
    reason = found.reason
    if not rows:
        # "harbours in Egypt": the head, when the rest only places or dates it ("history of Rome" stays whole)
        head = re.split(r"\s+(?:in|at|on|near|during|around|across|throughout|within)\s+", term, maxsplit=1)[0]
        if head != term and head:
            rows = mentioning(graph, head, scope)
            if rows:
                reason += f"; no document holds {term!r}, so its head {head!r}"
                term = head
    if not rows:
        return GlobalResult(None, f"topic {term!r}: no document of the scope mentions it; answered by the local route")
    pattern = python_pattern(forms(term))
    scope_words = re.compile(
        rf"^(?:{_COLLECTION}|{_THEME_ANY}|{re.escape(scope.corpus or '-')}|say|said|describe|portray)$", re.I
    )
    keywords = [k for k in analysis.keywords if not pattern.search(k) and not scope_words.match(k)]
    shown = rows[:TOPIC_BUDGET]
    evidence = []
    for row in shown:
        chunk, _sentence = _best_sentence(row["chunks"], pattern, keywords)
        evidence.append(
            Evidence(
                chunk["id"],
                row["documentId"],
                row["title"],
                row["uri"],
                chunk["text"],
                float(row["mentions"]),
                ["global:topic"],
            )
        )
    many = sum(1 for r in rows if r["mentions"] >= 2)
    result = GlobalResult(
        "topic",
        f"{reason}; {len(rows)} document(s) of the scope mention it ({many} more than once): the {len(shown)} with "
        f"the most mentions are quoted (budget {TOPIC_BUDGET})",
        term=term,
        documents_total=len(rows),
        shown=len(shown),
        rest=len(rows) - len(shown),
        budget=TOPIC_BUDGET,
    )
    for row, ev in zip(shown, evidence, strict=True):
        result.mentions[ev.document_id] = row["mentions"]
    for row, ev in zip(shown, evidence, strict=True):
        result.quotes[ev.chunk_id] = _best_sentence(
            [c for c in row["chunks"] if c["id"] == ev.chunk_id], pattern, keywords
        )[1]
    _group(graph, result, evidence)
    result.sources = sources_for(result.evidence)
    return result


def _best_sentence(chunks: list[dict], pattern: re.Pattern, keywords: list[str]) -> tuple[dict, str]:
    """The sentence holding the term that fits the question best (its other words, then a
    readable length), and the chunk it is in."""
    stems = {k.lower()[:5] for k in keywords if len(k) > 2}
    best, best_key = None, None
    for ci, chunk in enumerate(chunks):
        for si, sentence in enumerate(split_sentences(chunk["text"] or "")):
            hits = pattern.findall(sentence)
            if not hits:
                continue
            words = re.findall(r"\w+", sentence.lower())
            overlap = sum(1 for s in stems if any(w.startswith(s) for w in words))
            # ties: the earlier chunk (an abstract, an opening) before the one with the most mentions
            key = (
                overlap * 2 + (1.5 if len(hits) > 1 else 1) + _readable(sentence),
                -(chunk.get("index") or 0),
                -ci,
                -si,
            )
            if best_key is None or key > best_key:
                best, best_key = (chunk, sentence), key
    if best is None:  # the match spans a sentence break: the chunk's opening
        chunk = chunks[0]
        m = pattern.search(chunk["text"] or "")
        at = m.start() if m else 0
        return chunk, _excerpt(chunk["text"] or "", at)
    chunk, sentence = best
    m = pattern.search(sentence)
    return chunk, _excerpt(sentence, m.start() if m else 0)


def _group(graph, result: GlobalResult, evidence: list[Evidence]) -> None:
    """Documents under the community of their quoted chunk, at the finest level with at most
    GROUPS_TARGET groups (the top level when every level has more); without communities, as
    they rank. Groups keep the rank of their best document."""
    rows = graph.read("global/chunk_communities", ids=[ev.chunk_id for ev in evidence])
    if not rows:
        result.evidence = evidence
        result.level = None
        result.reason += "; no communities are built, so the documents are not grouped"
        return
    by_level: dict[int, dict[str, dict]] = {}
    for r in rows:
        by_level.setdefault(r["level"], {})[r["chunkId"]] = r
    counts = {level: len({r["id"] for r in chunks.values()}) for level, chunks in by_level.items()}
    target = min(GROUPS_TARGET, max(2, len(evidence) // 3))  # groups of about three documents or more
    fitting = [level for level in sorted(counts) if counts[level] <= target]
    level = fitting[-1] if fitting else min(counts)
    result.level = level
    shown = ", ".join(f"level {lv}: {n}" for lv, n in sorted(counts.items()))
    result.reason += (
        f"; grouped by the communities of level {level} ({counts[level]} group(s); {shown}): the finest level with at "
        f"most {target} groups"
        if fitting
        else f"; grouped at the top level ({shown})"
    )
    chosen = by_level[level]
    groups: dict[str | None, list[Evidence]] = {}
    for ev in evidence:
        community = chosen.get(ev.chunk_id)
        groups.setdefault(community["id"] if community else None, []).append(ev)
    if len(groups) > target:  # still many: communities of one document go under "Other documents"
        others = [ev for cid, members in groups.items() if cid is None or len(members) < 2 for ev in members]
        groups = {cid: members for cid, members in groups.items() if cid is not None and len(members) >= 2}
        if others:
            groups[None] = others
        result.reason += f"; {len(others)} document(s) alone in their community are listed as other documents"
    result.evidence = [ev for members in groups.values() for ev in members]
    info = {r["id"]: r for r in chosen.values()}
    for cid, members in groups.items():
        if cid is None:
            continue
        r = info[cid]
        result.communities.append(
            _community(
                r,
                documents=len(members),
                score=sum(result.mentions.get(ev.document_id, 0) for ev in members),
                used=True,
                why=f"holds the quoted chunk of {len(members)} matching document(s)",
            )
        )
    result.groups = groups


def _topic_lines(result: GlobalResult, scope: Scope, total: int, zh: bool) -> list[str]:
    cite = {s.document_id: s.cite for s in result.sources}
    term = neutral(result.term)
    noun = neutral(scope.noun)
    shown_forms = " or ".join(f"“{neutral(f)}”" for f in forms(result.term or "")[:2])
    many = sum(1 for ev in result.evidence if result.mentions.get(ev.document_id, 0) >= 2)
    if zh:
        lines = [
            f"{total} 篇{noun}中有 {result.documents_total} 篇提到“{term}”（{many} 篇提到不止一次）；每篇引一句（摘录；未用 LLM）："
        ]
    else:
        lines = [
            f"{result.documents_total} of the {total} {noun} mention {shown_forms} ({many} of the quoted ones more than "
            f"once); one cited sentence from each, most mentions first (extractive; no LLM):"
        ]
    titles = {c["id"]: c for c in result.communities}
    groups = result.groups or {None: result.evidence}
    for cid, members in groups.items():
        indent = ""
        if len(groups) > 1 or cid is not None:
            head = titles[cid]["title"] if cid in titles else None
            lines.append(f"{neutral(head)}:" if head else ("其他：" if zh else "Other documents:"))
            indent = "  "
        for ev in members:
            lines.append(f"{indent}- “{result.quotes.get(ev.chunk_id, '')}” [{cite[ev.document_id]}]")
    if result.rest:
        lines.append(
            f"……另有 {result.rest} 篇{noun}提到它。"
            if zh
            else f"… and {result.rest} more {noun if result.rest > 1 else 'document'} mention it."
        )
    return lines
