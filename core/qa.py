"""One question, end to end: analyse, route, retrieve, build the context, answer, check citations."""

from __future__ import annotations

import time
from typing import Callable

from . import llm
from .answer import (CitationFilter, build_context, describe_paths, extractive_answer, llm_messages,
                     mermaid, sources_for)
from .errors import GraphragError
from .retrieval import DEFAULT_MODE, Retriever

NO_LLM_NOTE = ("No LLM is configured (set OPENAI_BASE_URL and GRAPHRAG_LLM_MODEL); "
               "this answer quotes the most relevant sentences of the evidence.")


def ask(graph, embedder, settings, question: str, mode: str = DEFAULT_MODE, k: int = 5, corpus: str | None = None,
        date_from: str | None = None, date_to: str | None = None, use_llm: bool = True, history=(),
        on_token: Callable[[str], None] | None = None, today=None) -> dict:
    """Answer `question`. With an LLM and `on_token`, the answer streams to `on_token` as it is
    checked: each citation is held back until it closes, checked against the ids the context
    gave and written as its sources' titles; an unknown one never reaches `on_token`."""
    if not question or not question.strip():
        raise GraphragError("the question is empty: ask something, e.g. graphrag ask \"Who made the silver lantern?\"")
    started = time.perf_counter()
    today = today or _today()
    retriever = Retriever(graph, embedder)
    analysis = retriever.analyze(question, corpus=corpus, date_from=date_from, date_to=date_to, today=today)
    route_used, paths = "search", []
    evidence = None
    if getattr(analysis.route, "kind", "search") == "relation":
        found = retriever.relation(analysis, k)
        if found is not None and found[1]:
            paths, evidence = found
            route_used = "relation"
    if evidence is None:
        evidence = retriever.retrieve(analysis, mode, k)
    sources = sources_for(evidence)
    graph_context = _merge_graphs(retriever.path_graph(paths), retriever.context_graph(evidence))
    context = build_context(sources, graph_context)
    timings = dict(retriever.timings)
    llm_used = bool(use_llm and settings.llm_configured)
    answer_started = time.perf_counter()
    checker = CitationFilter(context.cites, emit=on_token if llm_used else None)
    if llm_used:
        llm.stream(settings, llm_messages(question, context.text, analysis.language, history), checker.feed)
        note = None
    else:
        lead = describe_paths(paths, context) if route_used == "relation" else ""
        quoted = extractive_answer(analysis.search_text, sources, embedder.embed if embedder else None)
        checker.feed(" ".join(part for part in (lead, quoted) if part))
        note = NO_LLM_NOTE
    checked = checker.close()
    timings["answer_ms"] = (time.perf_counter() - answer_started) * 1000
    timings["total_ms"] = (time.perf_counter() - started) * 1000
    cited = [s for s in sources if s.cite in checked.cited]
    return {
        "question": question,
        "answer": checked.text,
        "answer_with_titles": checked.titled,
        "citations": [s.to_dict() for s in cited],
        "dropped_citations": checked.dropped,
        "sources": [s.to_dict() for s in sources],
        "evidence": [dict(ev.to_dict(), source=_cite_of(sources, ev.document_id)) for ev in evidence],
        "mode": mode if route_used == "search" else "relation",
        "route": route_used,
        "paths": [_path_with_ids(p, context.node_ids) for p in paths],
        "filters": analysis.filters.to_dict(),
        "entities": analysis.entities,
        "keywords": analysis.keywords,
        "language": analysis.language,
        "llm": {"used": llm_used, "model": settings.llm_model if llm_used else None, "note": note},
        "context": context.text,
        "mermaid": mermaid(graph_context, sources),
        "timings_ms": {key: round(value, 1) for key, value in timings.items()},
    }


def _merge_graphs(*graphs: dict) -> dict:
    """One context graph from several: nodes and relationships once each, mentions all."""
    nodes: dict[str, dict] = {}
    relationships: dict[tuple, dict] = {}
    mentions: list[dict] = []
    for g in graphs:
        for node in g.get("nodes", []):
            nodes.setdefault(node["id"], node)
        for rel in g.get("relationships", []):
            relationships.setdefault((rel["start"], rel["type"], rel["end"]), rel)
        mentions += g.get("mentions", [])
    return {"nodes": list(nodes.values()), "relationships": list(relationships.values()), "mentions": mentions}


def _path_with_ids(path: dict, node_ids: dict[str, str]) -> dict:
    """A path as --json shows it: each node also with the id it had in the context (`cite`)."""
    return dict(path, nodes=[dict(n, cite=node_ids.get(n["id"])) for n in path["nodes"]])


def _cite_of(sources, document_id: str) -> str | None:
    return next((s.cite for s in sources if s.document_id == document_id), None)


def _today():
    """Today, or GRAPHRAG_TODAY (YYYY-MM-DD) to make relative dates reproducible."""
    import os
    from datetime import date

    value = os.environ.get("GRAPHRAG_TODAY")
    return date.fromisoformat(value) if value else date.today()
