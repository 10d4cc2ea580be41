"""Themes answers: the communities of the scope at the level nearest THEME_TARGET, a line per
theme with its key phrases and a cited sentence of a member chunk near its centroid."""

from __future__ import annotations

import re

from ...text import fold, split_sentences
from ..answer import neutral, sources_for
from ..base import Evidence
from .detect import GlobalQuestion
from .quotes import _excerpt, _readable
from .result import GlobalResult, _community
from .scope import Scope

THEME_BUDGET = 10  # themes shown at most
THEME_TARGET = 8  # the level whose in-scope community count is nearest this is chosen
THEME_MIN = 5  # ... and has at least this many, where a level has
THEME_DOCUMENTS = 8  # a themes answer aims at this many distinct documents cited
REPRESENTATIVES = 6  # in-scope documents read per theme (nearest the centroid first)
NO_COMMUNITIES = "no communities are built: run graphrag communities build"


def choose_level(rows: list[dict], scope_chunks: int) -> tuple[int | None, list[dict], str]:
    """(level, its substantial communities ranked, why): a community is substantial when at
    least max(2, 1 % of the scope's chunks) of its member chunks are in the scope; the level
    whose count of those is nearest THEME_TARGET, preferring levels with at least THEME_MIN."""
    floor = max(2, scope_chunks // 100) if scope_chunks >= 20 else 1
    by_level: dict[int, list[dict]] = {}
    for r in rows:
        if r["inScopeChunks"] >= floor:
            by_level.setdefault(r["level"], []).append(r)
    if not by_level:
        return None, [], "no community has member chunks in the scope"
    counts = {level: len(members) for level, members in by_level.items()}
    enough = [level for level in counts if counts[level] >= THEME_MIN]
    pool = enough or list(counts)
    level = min(pool, key=lambda lv: (abs(counts[lv] - THEME_TARGET), lv))
    ranked = sorted(by_level[level], key=lambda r: (-r["inScopeChunks"], -r["inScopeDocuments"], r["id"]))
    shown = ", ".join(f"level {lv}: {n}" for lv, n in sorted(counts.items()))
    why = (
        f"level {level}: {counts[level]} communities hold at least {floor} in-scope chunk(s) ({shown}); the nearest "
        f"to {THEME_TARGET}" + (f" with at least {THEME_MIN}" if enough else f" (no level has {THEME_MIN})")
    )
    return level, ranked, why


def _themes(graph, found: GlobalQuestion, scope: Scope) -> GlobalResult:
    levels = graph.read("global/levels")
    if not levels:
        return GlobalResult(None, NO_COMMUNITIES)
    rows = graph.read("global/scope_communities", **scope.params())
    scope_chunks = max((sum(r["inScopeChunks"] for r in rows if r["level"] == lv["level"]) for lv in levels), default=0)
    level, ranked, why = choose_level(rows, scope_chunks)
    if level is None:
        return GlobalResult(None, f"{why}: no themes to show; answered by the local route")
    chosen = ranked[:THEME_BUDGET]
    reps = graph.read("global/representatives", ids=[r["id"] for r in chosen], per=REPRESENTATIVES, **scope.params())
    by_community: dict[str, list[dict]] = {}
    for r in reps:
        by_community.setdefault(r["communityId"], []).append(r)
    picks = _pick_sentences(chosen, by_community)
    evidence = []
    seen_chunks: set[str] = set()
    for community in chosen:
        for rep, _sentence in picks[community["id"]]:
            if rep["chunkId"] not in seen_chunks:
                seen_chunks.add(rep["chunkId"])
                evidence.append(member_evidence(rep, community["id"]))
    result = GlobalResult("themes", f"{found.reason}; {why}", level=level, budget=THEME_BUDGET)
    result.evidence = evidence
    result.sources = sources_for(evidence)
    result.picks, result.chosen, result.candidates = picks, chosen, by_community
    result.shown = len(chosen)
    result.rest = len(ranked) - len(chosen)
    result.documents_total = len({ev.document_id for ev in evidence})
    for rank, r in enumerate(ranked, 1):
        used = rank <= len(chosen)
        result.communities.append(
            _community(
                r,
                documents=r["inScopeDocuments"],
                score=r["inScopeChunks"],
                used=used,
                why=(
                    f"rank {rank} of {len(ranked)} at level {level} by in-scope member chunks ({r['inScopeChunks']})"
                    + ("" if used else f"; beyond the budget of {THEME_BUDGET} themes")
                ),
            )
        )
    return result


def _pick_sentences(chosen: list[dict], by_community: dict[str, list[dict]]) -> dict[str, list[tuple[dict, str]]]:
    """Each theme's quoted sentences (its chunk row, the sentence): one per theme from a document
    no theme before it quoted (else its best chunk again); with fewer themes than THEME_DOCUMENTS,
    a second one each from another document, until that many documents are cited."""
    used_docs: set[str] = set()
    picks: dict[str, list[tuple[dict, str]]] = {r["id"]: [] for r in chosen}

    def pick(community: dict) -> bool:
        phrases = list(community.get("phrases") or [])
        for rep in by_community.get(community["id"], []):
            if rep["documentId"] in used_docs or any(p[0]["chunkId"] == rep["chunkId"] for p in picks[community["id"]]):
                continue
            sentence = _theme_sentence(rep["text"] or "", phrases)
            if sentence:
                used_docs.add(rep["documentId"])
                picks[community["id"]].append((rep, sentence))
                return True
        return False

    for community in chosen:
        if not pick(community):  # every document of the theme quoted already: its best chunk again
            reps_here = by_community.get(community["id"], [])
            if reps_here:
                sentence = _theme_sentence(reps_here[0]["text"] or "", list(community.get("phrases") or []))
                if sentence:
                    picks[community["id"]].append((reps_here[0], sentence))
    if len(chosen) < THEME_DOCUMENTS:  # few themes: a second sentence each, from another document
        for community in chosen:
            if len(used_docs) >= THEME_DOCUMENTS:
                break
            pick(community)
    return picks


def member_evidence(rep: dict, community_id: str) -> Evidence:
    """A theme's member chunk (a row of global/representatives) as evidence."""
    return Evidence(
        rep["chunkId"],
        rep["documentId"],
        rep["title"],
        rep["uri"],
        rep["text"] or "",
        float(rep["similarity"] or 0.0),
        ["global:themes", community_id],
    )


def _theme_sentence(text: str, phrases: list[str]) -> str | None:
    """The chunk's sentence with the most of the community's phrases (then a readable length)."""
    regexes = [re.compile(rf"(?<!\w){re.escape(fold(p))}(?!\w)") for p in phrases if p and p.strip()]
    best, best_key = None, None
    for i, sentence in enumerate(split_sentences(text)):
        folded = fold(sentence)
        hits = sum(1 for r in regexes if r.search(folded))
        key = (hits + _readable(sentence), -i)
        if best_key is None or key > best_key:
            best, best_key = sentence, key
    if best is None:
        return None
    first = next((m.start() for r in regexes for m in [r.search(fold(best))] if m), 0)
    return _excerpt(best, first)


def _theme_lines(result: GlobalResult, scope: Scope, total: int, zh: bool) -> list[str]:
    cite = {s.document_id: s.cite for s in result.sources}
    chosen, picks = result.chosen, result.picks
    noun = neutral(scope.noun)
    if zh:
        lines = [f"{total} 篇{noun}的主题，来自图的 {len(chosen)} 个社区（摘录；未用 LLM）："]
    else:
        lines = [f"Themes of the {total} {noun}, from {len(chosen)} communities of the graph (extractive; no LLM):"]
    for i, community in enumerate(chosen, 1):
        title = neutral(community.get("title")) or community["id"]
        phrases = ", ".join(neutral(p) for p in (community.get("phrases") or [])[:5])
        quotes = "; ".join(f"“{s}” [{cite[rep['documentId']]}]" for rep, s in picks.get(community["id"], []))
        key = (f"（关键词：{phrases}）" if zh else f" (key phrases: {phrases})") if phrases else ""
        colon = "：" if zh else ": "
        lines.append(f"{i}. {title}{key}{colon}{quotes}" if quotes else f"{i}. {title}{key}")
    if result.rest:
        lines.append(
            f"……另有 {result.rest} 个较小的社区。" if zh else f"… and {result.rest} smaller communities at this level."
        )
    return lines
