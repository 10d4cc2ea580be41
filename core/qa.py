"""One question, end to end: analyse, route, retrieve, build the context, answer, check citations."""

from __future__ import annotations

import time
from typing import Callable

from .answer import (build_context, check_citations, extractive_answer, llm_answer, llm_messages, mermaid,
                     sources_for, with_titles)
from .retrieval import DEFAULT_MODE, Retriever

NO_LLM_NOTE = ("No LLM is configured (set OPENAI_BASE_URL and GRAPHRAG_LLM_MODEL); "
               "this answer quotes the most relevant sentences of the evidence.")


def ask(graph, embedder, settings, question: str, mode: str = DEFAULT_MODE, k: int = 5, corpus: str | None = None,
        date_from: str | None = None, date_to: str | None = None, use_llm: bool = True, history=(),
        on_token: Callable[[str], None] | None = None, today=None) -> dict:
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
    graph_context = retriever.context_graph(evidence)
    context = build_context(sources, graph_context)
    timings = dict(retriever.timings)
    llm_used = bool(use_llm and settings.llm_configured)
    answer_started = time.perf_counter()
    if llm_used:
        raw = llm_answer(settings, llm_messages(question, context, analysis.language, history), on_token)
        note = None
    else:
        raw = extractive_answer(analysis.search_text, sources, embedder.embed if embedder else None)
        note = NO_LLM_NOTE
    checked = check_citations(raw, sources)
    timings["answer_ms"] = (time.perf_counter() - answer_started) * 1000
    timings["total_ms"] = (time.perf_counter() - started) * 1000
    cited = [s for s in sources if s.cite in checked.cited]
    return {
        "question": question,
        "answer": checked.text,
        "answer_with_titles": with_titles(checked.text, sources),
        "citations": [s.to_dict() for s in cited],
        "dropped_citations": checked.dropped,
        "sources": [s.to_dict() for s in sources],
        "evidence": [dict(ev.to_dict(), source=_cite_of(sources, ev.document_id)) for ev in evidence],
        "mode": mode if route_used == "search" else "relation",
        "route": route_used,
        "paths": paths,
        "filters": analysis.filters.to_dict(),
        "entities": analysis.entities,
        "keywords": analysis.keywords,
        "language": analysis.language,
        "llm": {"used": llm_used, "model": settings.llm_model if llm_used else None, "note": note},
        "context": context,
        "mermaid": mermaid(graph_context, sources),
        "timings_ms": {key: round(value, 1) for key, value in timings.items()},
    }


def _cite_of(sources, document_id: str) -> str | None:
    return next((s.cite for s in sources if s.document_id == document_id), None)


def _today():
    """Today, or GRAPHRAG_TODAY (YYYY-MM-DD) to make relative dates reproducible."""
    import os
    from datetime import date

    value = os.environ.get("GRAPHRAG_TODAY")
    return date.fromisoformat(value) if value else date.today()
