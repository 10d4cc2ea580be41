"""Answers with an LLM, Microsoft GraphRAG's map-reduce: each community (its report and in-scope
sources) mapped to scored points with citations, the best points reduced to one streamed answer."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from ..answer import LANGUAGES, CitationFilter, Source, build_context, neutral, sources_for
from ..base import Evidence
from .extractive import _extractive
from .result import GlobalResult, _check
from .themes import member_evidence

MAP_PARALLEL = 4  # map requests in flight
MAP_COMMUNITIES = 10  # communities mapped at most
MAP_SOURCES = 8  # sources given to one map request
REDUCE_POINTS = 24  # best points given to the reduce request


@cache
def prompt(name: str) -> str:
    """A prompt of cypher/prompts/ (global_map, global_reduce)."""
    return resources.files("graphrag_cypher.cypher").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def _map_groups(result: GlobalResult) -> list[tuple[dict, list[Evidence]]]:
    """(community, its evidence) for each community to map: the chosen themes (each with its
    in-scope chunks nearest the centroid), or the groups of a topic's documents (in batches of
    MAP_SOURCES documents; where no communities are built, the documents as they rank)."""
    groups: list[tuple[dict, list[Evidence]]] = []
    if result.family == "themes":
        for community in result.chosen:
            members = [
                member_evidence(r, community["id"]) for r in result.candidates.get(community["id"], [])[:MAP_SOURCES]
            ]
            groups.append((community, members))
    else:
        titles = {c["id"]: c for c in result.communities}
        for cid, members in (result.groups or {None: result.evidence}).items():
            for start in range(0, len(members), MAP_SOURCES):
                head = titles.get(cid) or {"id": None, "title": None, "phrases": []}
                groups.append((head, members[start : start + MAP_SOURCES]))
    return [(c, m) for c, m in groups[:MAP_COMMUNITIES] if m]


def _map_reduce(graph, settings, analysis, result: GlobalResult, on_token, convert) -> None:
    """Map each community (its report and in-scope sources) to scored points with citations, a
    few requests in flight; reduce the best points to one streamed answer whose citations are
    checked against every source the maps were given."""
    from concurrent.futures import ThreadPoolExecutor

    from ... import llm

    language = LANGUAGES.get(analysis.language, "the language of the question")
    question = analysis.question
    groups = _map_groups(result)
    if result.family == "themes":  # the maps read more than the quoted sentences: cite ids for all of it
        _cite_members(result, groups)
    by_doc = {s.document_id: s for s in result.sources}
    ids = [c["id"] for c, _ in groups if c.get("id")]
    reports = {r["id"]: r for r in graph.read("global/reports", ids=ids)} if ids else {}
    system = prompt("global_map").replace("{language}", language)

    def one(item: tuple[dict, list[Evidence]]) -> list[dict]:
        community, members = item
        report = reports.get(community.get("id"), {})
        return _map_one(settings, system, question, community, members, by_doc, report, result)

    workers = 1 if settings.local_model_path is not None else MAP_PARALLEL
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(groups) or 1))) as pool:
        mapped = list(pool.map(one, groups))
    result.map_requests = len(groups)
    points = sorted((p for ps in mapped for p in ps), key=lambda p: -p["score"])
    result.map_points = len(points)
    if not points:
        _extractive(result, analysis.language == "zh")
        result.reason += "; the map step found no relevant point, so the answer is extractive"
        if on_token is not None:
            on_token(result.titled)
        return
    listed = "\n".join(
        f"[score {p['score']}] ({neutral(p['community'].get('title')) or 'documents'}) {p['text']}"
        for p in points[:REDUCE_POINTS]
    )
    messages = [
        {"role": "system", "content": prompt("global_reduce").replace("{language}", language)},
        {"role": "user", "content": f"POINTS:\n{listed}\n\nQUESTION: {question}"},
    ]
    _check(
        result,
        lambda feed: llm.stream(settings, messages, feed),
        emit=on_token,
        convert=convert.applied if convert is not None else None,
    )
    result.method, result.llm_used = "map-reduce", True


def _cite_members(result: GlobalResult, groups: list[tuple[dict, list[Evidence]]]) -> None:
    """Every chunk a map reads becomes evidence (and its document a source) the answer may cite."""
    seen = {ev.chunk_id for ev in result.evidence}
    for _, members in groups:
        for ev in members:
            if ev.chunk_id not in seen:
                seen.add(ev.chunk_id)
                result.evidence.append(ev)
    result.sources = sources_for(result.evidence)


def _map_one(
    settings,
    system: str,
    question: str,
    community: dict,
    members: list[Evidence],
    by_doc: dict[str, Source],
    report: dict,
    result: GlobalResult,
) -> list[dict]:
    """One map request: the community's points on the question, each with a 0-100 score and only
    the citations its sources gave (the dropped ones are counted in `result.map_dropped`)."""
    from ... import llm

    sources: dict[str, Source] = {}
    for ev in members:
        s = by_doc[ev.document_id]
        sources.setdefault(s.cite, Source(s.cite, s.document_id, s.title, s.uri)).chunks.append(ev)
    context = build_context(list(sources.values()), max_chars=6000)
    head = [
        f"COMMUNITY: {neutral(community.get('title')) or 'documents that mention the subject'}",
        "KEY PHRASES: " + ", ".join(neutral(p) for p in community.get("phrases") or []),
    ]
    body = report.get("llmReport") or report.get("summary")
    if body:
        head.append("REPORT: " + neutral(body)[:2000])
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": "\n".join(head) + f"\n\n{context.text}\n\nQUESTION: {question}"},
    ]
    try:
        reply = llm.complete(settings, messages, {"type": "json_object"})
    except llm.LLMRequestRefused:  # an endpoint without JSON mode: plain JSON by the prompt
        reply = llm.complete(settings, messages)
    points = []
    for point in _parse_points(reply):
        checker = CitationFilter(context.cites)
        checker.feed(point["description"])
        checked = checker.close()
        result.map_dropped.extend(checked.dropped)
        if checked.text.strip() and point["score"] > 0:
            points.append({"text": checked.text, "score": point["score"], "community": community})
    return points


def _parse_points(reply: str) -> list[dict]:
    """[{description, score}] from a map reply (JSON, perhaps in a code fence); unreadable: []."""
    text = (reply or "").strip()
    if text.startswith("```"):
        text = text.strip("`").split("\n", 1)[-1]
    try:
        start = min(i for i in (text.find("{"), text.find("[")) if i >= 0)
        data = json.loads(text[start : max(text.rfind("}"), text.rfind("]")) + 1])
    except ValueError:
        return []
    rows = data.get("points") if isinstance(data, dict) else data
    out = []
    for row in rows or []:
        if not isinstance(row, dict):
            continue
        description = row.get("description") or row.get("point") or row.get("text")
        try:
            score = max(0, min(100, int(float(row.get("score", 50)))))
        except (TypeError, ValueError):
            score = 50
        if isinstance(description, str) and description.strip():
            out.append({"description": description.strip(), "score": score})
    return out
