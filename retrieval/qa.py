"""One question, end to end: analyse, route, retrieve, build the context, answer, check citations.

`ask` returns an :class:`Answer`; ``Answer.to_dict()`` is the JSON of ``graphrag ask --json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag_cypher.retrieval.websearch import WebFound, WebTrace, learn_pages, learned_nothing, web_question

from .. import llm
from ..chinese import Conversion, StreamConverter, choose
from ..config import question_too_long
from ..errors import GraphragError
from . import global_search
from . import structured as structure
from .about import About, resolve_about
from .analysis import QuestionAnalyzer
from .answer import (
    CitationFilter,
    Source,
    build_context,
    describe_paths,
    extractive_answer,
    llm_messages,
    mermaid,
    neutral,
    sources_for,
)
from .base import Analysis, Evidence, Filters
from .context import evidence_graph, merge_graphs, path_graph
from .gate import GateTrace, apply_gate, passage_judge, thresholds_for
from .modes import DEFAULT_MODE, GLOBAL_MODE, retriever
from .options import AskOptions
from .relation import relation
from .reranking import RerankTrace, rerank

NOTHING_RELEVANT = (
    "I found nothing relevant to this question in the graph: {n} passage(s) were retrieved, "
    "and none of them is evidence for it (see --explain)."
)
NOTHING_ANYWHERE = (
    "I found nothing relevant to this question in the graph ({n} passage(s) were retrieved, none of them "
    "evidence for it) nor in the web search's results (see --explain)."
)
NO_LLM_NOTE = (
    "No LLM is configured (set OPENAI_BASE_URL and GRAPHRAG_LLM_MODEL); "
    "this answer quotes the most relevant sentences of the evidence."
)


@dataclass
class LLMUse:
    used: bool
    model: str | None = None  # `local:<file name>` for a local model
    note: str | None = None
    runtime: dict = field(default_factory=dict)  # backend, device, gpu_layers, device_reason (llm.describe)

    def to_dict(self) -> dict:
        runtime = {key: self.runtime.get(key) for key in ("backend", "device", "gpu_layers", "device_reason")}
        return {"used": self.used, "model": self.model, "note": self.note, **runtime}


@dataclass
class Answer:
    """A checked answer, the sources it may cite and how it was found."""

    question: str
    text: str  # citations as ids ([T2])
    text_with_titles: str  # citations as their sources' titles
    citations: list[Source]  # the sources the answer cites
    dropped_citations: list[str]  # ids the answer wrote that the context never gave
    sources: list[Source]
    evidence: list[Evidence]
    mode: str  # the retrieval mode, or "relation"
    route: str  # "search" or "relation"
    paths: list[dict]  # a relation question's paths, each node with its context id (`cite`)
    analysis: Analysis
    llm: LLMUse
    context: str  # the text the answer was written from
    mermaid: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    conversion: Conversion | None = None  # simplified <-> traditional, applied to the answer text
    reranked: RerankTrace | None = None  # what --rerank did (None: not asked for, or a relation answer)
    gate: GateTrace | None = None  # what the score gate and the relevance judge did (None: off)
    web: WebTrace | None = None  # whether the web was searched, and what became of each result
    structured: dict | None = None  # the structured route's plan, or why a question did not take it
    rows: list[dict] = field(default_factory=list)  # a structured answer's rows, each with its citation
    about: About | None = None  # what --about resolved to (None: not asked for)
    global_: dict | None = None  # the global route's family, level and counts, or why a global-looking question left it
    communities: list[dict] = field(default_factory=list)  # the communities a global answer used (and passed over)

    @property
    def filters(self) -> Filters:
        return self.analysis.filters

    def source_of(self, evidence: Evidence) -> str | None:
        """The citation id of the source an evidence chunk belongs to."""
        return next((s.cite for s in self.sources if s.document_id == evidence.document_id), None)

    def to_dict(self, context: bool = False) -> dict:
        """The answer as `graphrag ask --json` prints it (with `context`, also the context text)."""
        out = {
            "question": self.question,
            "answer": self.text,
            "answer_with_titles": self.text_with_titles,
            "citations": [s.to_dict() for s in self.citations],
            "dropped_citations": self.dropped_citations,
            "sources": [s.to_dict() for s in self.sources],
            "evidence": [dict(ev.to_dict(), source=self.source_of(ev)) for ev in self.evidence],
            "mode": self.mode,
            "route": self.route,
            "paths": self.paths,
            "filters": dict(self.filters.to_dict(), about=self.about.to_dict() if self.about else None),
            "entities": self.analysis.entities,
            "ambiguous": [
                {
                    "id": e["id"],
                    "name": e["name"],
                    "type": e.get("type"),
                    "matched": e["matched"],
                    "chunks": e.get("chunks", 0),
                    "chosen": e["chosen"],
                }
                for e in self.analysis.ambiguous
            ],
            "keywords": self.analysis.keywords,
            "language": self.analysis.language,
            "llm": self.llm.to_dict(),
            "convert": self.conversion.to_dict() if self.conversion else None,
            "rerank": self.reranked.to_dict() if self.reranked else None,
            "gate": self.gate.to_dict() if self.gate else None,
            "web": self.web.to_dict() if self.web else None,
            "structured": self.structured,
            "rows": self.rows,
            "global": self.global_,
            "communities": self.communities,
        }
        if context:
            out["context"] = self.context
        out["mermaid"] = self.mermaid
        out["timings_ms"] = self.timings_ms
        return out


def ask(
    graph,
    embedder,
    settings,
    question: str,
    options: AskOptions | None = None,
    *,
    history=(),
    on_token: Callable[[str], None] | None = None,
    reranker=None,
    web=None,
    **changes,
) -> Answer:
    """Answer `question` as `options` (an :class:`AskOptions`; ``**changes`` alter some of its
    fields, e.g. ``ask(..., use_llm=False)``) say. With an LLM and `on_token`, the answer streams to `on_token` as it is
    checked: each citation is held back until it closes, checked against the ids the context
    gave and written as its sources' titles; an unknown one never reaches `on_token`.
    `convert` (auto, s2t, s2tw, s2twp, t2s, none) converts the answer between simplified and
    traditional Chinese before its citations are checked; auto follows the question's script.
    With a `reranker` (graphrag_cypher.retrieval.rerank), the mode's top `rerank_candidates` chunks are
    reordered by it and the best `k` kept. `judge` (auto, always, off): the score gate and the
    relevance judge (gate.py); with nothing relevant left, the answer says so.
    `web` (a websearch.WebFallback) searches the web when the gate leaves nothing relevant
    (`web_mode` auto), alongside the graph (always) or never (off); its pages are cited W1, W2, …
    and, with `learn_web`, stored as documents after the answer (write transactions).
    `about` (an entity id or name, about.resolve_about) keeps only evidence that mentions it.
    A question about the whole corpus ("What are the main themes of the tales?", "What do the
    papers say about harbours?") or `mode` "global" takes the global route (global_search.py)."""
    options = options or AskOptions()
    if changes:
        options = options.but(**changes)
    mode, k, corpus, about, use_llm = options.mode, options.k, options.corpus, options.about, options.use_llm
    judge = options.judge
    if not question or not question.strip():
        raise GraphragError('the question is empty: ask something, e.g. graphrag ask "Who made the silver lantern?"')
    too_long = question_too_long(question)
    if too_long:
        raise GraphragError(too_long)
    started = time.perf_counter()
    conversion = choose(question, options.convert)
    today = options.today or _today()
    timings: dict[str, float] = {}
    found_about = resolve_about(graph, about, corpus) if about is not None else None  # an unknown one fails first
    if use_llm and settings.local_model_path is not None:
        # a local model is loaded once per process, before retrieval: a missing file fails first
        timings["llm_load_ms"] = llm.prepare(settings)
    analyzer = QuestionAnalyzer(graph, timings)
    analysis = analyzer.analyze(
        question, corpus=corpus, date_from=options.date_from, date_to=options.date_to, today=today
    )
    if found_about is not None:
        analysis.filters.about = found_about.ids
    route_used, paths = "search", list[dict]()
    evidence = None
    global_trace = None
    if mode == GLOBAL_MODE or getattr(analysis.route, "kind", "search") != "relation":
        found_global = _global(graph, settings, analysis, mode, use_llm, on_token, conversion, timings)
        if found_global is not None and found_global.family is not None:
            return _global_answer(question, found_global, analysis, settings, timings, started, conversion, found_about)
        global_trace = found_global.to_dict() if found_global is not None else None
        if mode == GLOBAL_MODE:
            mode = DEFAULT_MODE  # the local route answers what the global one could not
    if getattr(analysis.route, "kind", "search") == "relation":
        found = relation(analyzer, analysis, k)
        if found is not None and found[1]:
            paths, evidence = found
            route_used = "relation"
    structured_trace = None
    if route_used == "search":
        done, structured_trace = _structured(graph, embedder, settings, analysis, use_llm, timings)
        if done is not None:
            result, sources = done
            if on_token is not None and use_llm and settings.llm_configured:
                on_token(result.titled)
            return _structured_answer(
                question, result, sources, analysis, timings, started, conversion, found_about, global_trace
            )
    reranked = None
    if evidence is None:
        fetch = max(k, options.rerank_candidates) if reranker is not None else k
        evidence = retriever(mode, graph, embedder, timings=timings).retrieve(analysis, fetch)
        if reranker is not None:
            evidence, reranked = rerank(reranker, analysis.search_text or question, evidence, k)
            timings["rerank_ms"] = reranked.ms
    gated = None
    retrieved = len(evidence)
    if route_used == "search" and judge != "off":
        gate_started = time.perf_counter()
        if analysis.embedding is None and embedder is not None:
            analysis.embedding = embedder.embed_query(analysis.search_text)
        evidence, gated = apply_gate(
            graph, settings, analysis.search_text or question, analysis.embedding, evidence, judge, use_llm
        )
        timings["gate_ms"] = (time.perf_counter() - gate_started) * 1000
    sources = sources_for(evidence)
    web_trace, found = _search_web(
        web,
        options.web_mode,
        route_used,
        retrieved,
        evidence,
        analysis,
        question,
        embedder,
        settings,
        judge,
        k,
        use_llm,
        today,
    )
    web_sources = _web_sources(found, sources) if found else []
    if web_trace.searched:
        timings["web_ms"] = web_trace.ms
    graph_context = merge_graphs(path_graph(paths), evidence_graph(graph, evidence))
    evidence = evidence + [ev for s in web_sources for ev in s.chunks]
    sources = sources + web_sources
    context = build_context(sources, graph_context)
    nothing = gated is not None and retrieved > 0 and not evidence
    llm_used = bool(use_llm and settings.llm_configured and not nothing)
    answer_started = time.perf_counter()
    streaming = bool(use_llm and settings.llm_configured)  # the caller shows only what on_token gets
    checker = CitationFilter(context.cites, emit=on_token if streaming else None)
    writer = StreamConverter(conversion.applied, checker.feed)
    if nothing:
        writer.feed((NOTHING_ANYWHERE if web_trace.searched else NOTHING_RELEVANT).format(n=retrieved))
        note = None
    elif llm_used:
        llm.stream(settings, llm_messages(question, context.text, analysis.language, history), writer.feed)
        note = None
    else:
        lead = describe_paths(paths, context) if route_used == "relation" else ""
        quoted = extractive_answer(
            analysis.search_text,
            sources,
            embedder.embed if embedder else None,
            question_vector=analysis.embedding,
            keywords=analysis.keywords,
        )
        writer.feed(" ".join(part for part in (lead, quoted) if part))
        note = NO_LLM_NOTE
    writer.close()
    checked = checker.close()
    timings["answer_ms"] = (time.perf_counter() - answer_started) * 1000
    if options.learn_web:
        _learn(graph, embedder, web, web_trace, found, today, timings)
    timings["total_ms"] = (time.perf_counter() - started) * 1000
    return Answer(
        question=question,
        text=checked.text,
        text_with_titles=checked.titled,
        citations=[s for s in sources if s.cite in checked.cited],
        dropped_citations=checked.dropped,
        sources=sources,
        evidence=evidence,
        mode=mode if route_used == "search" else "relation",
        route=route_used,
        paths=[_path_with_ids(p, context.node_ids) for p in paths],
        analysis=analysis,
        llm=LLMUse(
            llm_used, settings.llm_label if llm_used else None, note, llm.describe(settings) if llm_used else {}
        ),
        context=context.text,
        mermaid=mermaid(graph_context, sources),
        timings_ms={key: round(value, 1) for key, value in timings.items()},
        conversion=conversion,
        reranked=reranked,
        gate=gated,
        web=web_trace,
        structured=structured_trace,
        about=found_about,
        global_=global_trace,
    )


def _global(graph, settings, analysis: Analysis, mode: str, use_llm: bool, on_token, conversion, timings: dict):
    """The global route's result (family None: why it did not answer), or None when the
    question is not global."""
    question = analysis.search_text or analysis.question
    corpora = structure.catalog(graph).corpora
    found: global_search.GlobalQuestion | None
    if mode == GLOBAL_MODE:
        found = global_search.forced(question, corpora, analysis.keywords)
    else:
        found = global_search.classify(question, corpora)
    if found is None:
        return None
    started = time.perf_counter()
    result = global_search.answer(graph, settings, analysis, found, use_llm, on_token, conversion)
    timings["global_ms"] = (time.perf_counter() - started) * 1000
    if result.family is None:
        result.reason = f"{found.reason}; but {result.reason}"
    return result


def _global_answer(question, result, analysis, settings, timings, started, conversion, about) -> Answer:
    timings["total_ms"] = (time.perf_counter() - started) * 1000
    used = result.llm_used
    return Answer(
        question=question,
        text=result.text,
        text_with_titles=result.titled,
        citations=[s for s in result.sources if s.cite in result.cited],
        dropped_citations=result.dropped,
        sources=result.sources,
        evidence=result.evidence,
        mode=GLOBAL_MODE,
        route="global",
        paths=[],
        analysis=analysis,
        llm=LLMUse(
            used,
            settings.llm_label if used else None,
            None if used else global_search.EXTRACTIVE_NOTES[result.family],
            llm.describe(settings) if used else {},
        ),
        context=build_context(result.sources).text,
        mermaid=mermaid({}, result.sources),
        timings_ms={key: round(value, 1) for key, value in timings.items()},
        conversion=conversion,
        web=WebTrace(None, reason="answered from the whole corpus (the global route)"),
        about=about,
        global_=result.to_dict(),
        communities=result.communities,
    )


STRUCTURED_NOTE = "Answered from the graph's structure (its relations and every matching document); no LLM was needed."
CUT_NOTE = "(The result was cut: {cut}.)"
UNCITED_NOTE = (
    "(Values the statement returned that are not read from a cited source are not quoted here: "
    "the rows in --json have them.)"
)


def _structured(graph, embedder, settings, analysis: Analysis, use_llm: bool, timings: dict):
    """((answer, sources) or None, trace): the structured route, when the question takes it."""
    started = time.perf_counter()
    plan = structure.plan(graph, analysis, embedder)
    if isinstance(plan, structure.Refusal):
        timings["structured_ms"] = (time.perf_counter() - started) * 1000
        if plan.looks_structured and use_llm and settings.llm_configured:
            return _text_to_cypher(graph, settings, analysis, plan.reason, timings)
        return None, plan.to_dict()
    rows, total = structure.run(graph, plan, analysis.filters)
    timings["structured_ms"] = (time.perf_counter() - started) * 1000
    if not rows and plan.family not in ("documents", "count_documents"):
        name = plan.entity["name"] if plan.entity else "the entity"
        reason = f"{plan.reason}; but no such edge of {name} is in the graph"
        question = analysis.search_text or analysis.question
        if use_llm and settings.llm_configured and structure.looks_structured(question, structure.catalog(graph)):
            return _text_to_cypher(graph, settings, analysis, reason, timings)
        return None, dict(plan.to_dict(), family=None, reason=reason)
    result, sources = structure.answer(graph, plan, rows, total, analysis.language)
    result.ms = timings["structured_ms"]
    return (result, sources), result.to_dict()


def _text_to_cypher(graph, settings, analysis: Analysis, why: str, timings: dict):
    """The LLM's one read-only statement for a question the templates did not cover; a refused
    or failed statement leaves the question to the search route, with the one line saying why."""
    from .text2cypher import text_to_cypher

    started = time.perf_counter()
    try:
        found = text_to_cypher(graph, settings, analysis.search_text or analysis.question, analysis.language)
    except llm.LLMError as exc:
        timings["text2cypher_ms"] = (time.perf_counter() - started) * 1000
        return None, {"family": None, "method": "text2cypher", "reason": f"{why}; text-to-Cypher failed: {exc}"}
    timings["text2cypher_ms"] = (time.perf_counter() - started) * 1000
    trace = {"family": None, "method": "text2cypher", "cypher": found.statement, "attempts": found.attempts}
    if found.refused or found.error:
        return None, dict(
            trace, refused=found.refused, error=found.error, reason=f"{why}; {found.refused or found.error}"
        )
    plan, rows, total = structure.from_cypher(graph, analysis.question, found)
    if not rows and plan.term != "number":
        nothing = f"its rows were cut ({found.cut})" if found.cut else "the model's statement found nothing"
        return None, dict(trace, reason=f"{why}; {nothing}", cut=found.cut)
    plan.reason = f"{why}; {plan.reason}"
    result, sources = structure.answer(graph, plan, rows, total, analysis.language)
    result.method, result.cypher, result.ms = "text2cypher", found.statement, timings["text2cypher_ms"]
    result.cut = found.cut
    notes = [CUT_NOTE.format(cut=neutral(found.cut))] if found.cut else []
    if any(row.uncited for row, cite in zip(result.rows, result.cites, strict=True) if cite):
        notes.append(UNCITED_NOTE)
    if notes:  # said after the rows, apart from every citation
        result.text, result.titled = (f"{text} {' '.join(notes)}" for text in (result.text, result.titled))
    return (result, sources), result.to_dict()


def _structured_answer(
    question, result, sources, analysis, timings, started, conversion, about, global_trace=None
) -> Answer:
    evidence = [ev for s in sources for ev in s.chunks]
    context = build_context(sources)
    timings["total_ms"] = (time.perf_counter() - started) * 1000
    return Answer(
        question=question,
        text=result.text,
        text_with_titles=result.titled,
        citations=[s for s in sources if s.cite in result.cited],
        dropped_citations=[],
        sources=sources,
        evidence=evidence,
        mode="structured",
        route="structured",
        paths=[],
        analysis=analysis,
        llm=LLMUse(False, None, STRUCTURED_NOTE),
        context=context.text,
        mermaid=mermaid({}, sources),
        timings_ms={key: round(value, 1) for key, value in timings.items()},
        conversion=conversion,
        web=WebTrace(None, reason="answered from the graph's structure"),
        structured=result.to_dict(),
        rows=result.row_dicts(),
        about=about,
        global_=global_trace,
    )


def _search_web(
    web, web_mode, route, retrieved, evidence, analysis, question, embedder, settings, judge, k, use_llm, today
):
    """(trace, found): whether the web is searched for this question, and what it gave. The web
    is asked the standalone question with its date range stated (websearch.web_question); with
    an LLM, the relevance judge decides which pages are about it (else the cosine floor)."""
    name = getattr(web, "name", None)
    if web is None or name is None:
        return WebTrace(None, reason="no web-search fallback is configured"), None
    if web_mode == "off":
        return WebTrace(name, reason="the web search is off for this question (--no-web)"), None
    if web_mode == "always":
        reason = "--web: searched alongside the graph"
    elif route != "search":
        return WebTrace(name, reason="answered from the graph's relations"), None
    elif evidence:
        return WebTrace(name, reason="the graph had relevant evidence (--web searches anyway)"), None
    elif retrieved:
        reason = "the gate left no relevant evidence in the graph"
    else:
        reason = "the graph returned no evidence"
    if embedder is None:
        return WebTrace(name, reason="no embedder to rank the web's pages with"), None
    if analysis.embedding is None:
        analysis.embedding = embedder.embed_query(analysis.search_text or question)
    floor = None if judge == "off" else thresholds_for(settings)[1]
    text, dates = web_question(analysis, today)
    found = web.find(
        text,
        analysis.embedding,
        embedder.embed,
        k=k,
        keywords=analysis.keywords,
        min_similarity=floor,
        reason=reason,
        dates=dates,
        judge=passage_judge(settings, question, judge, use_llm),
    )
    return found.trace, found


def _web_sources(found: WebFound, graph_sources: list[Source]) -> list[Source]:
    """The pages that gave evidence as sources W1, W2, … (best first); a page the graph already
    gave as a source is not cited twice."""
    used = {s.cite for s in graph_sources}
    in_graph = {s.document_id: s.cite for s in graph_sources}
    out, n = [], 0
    for page in found.pages:
        doc = page.document
        document_id = doc.id if doc else page.result.url
        if document_id in in_graph:
            page.result.note = f"already in the graph, cited as {in_graph[document_id]}"
            continue
        n += 1
        while f"W{n}" in used:
            n += 1
        page.cite = page.result.id = f"W{n}"
        title = doc.title if doc else page.result.title
        uri = (doc.uri if doc else None) or page.result.url
        via = ["web"] if doc else ["web snippet"]
        chunks = [Evidence(c.chunk_id, document_id, title, uri, c.text, c.similarity, list(via)) for c in page.chunks]
        out.append(Source(page.cite, document_id, title, uri, chunks, web=True))
    return out


def _learn(graph, embedder, web, trace: WebTrace, found: WebFound | None, today, timings: dict) -> None:
    """--learn-web: the pages used stored as documents; what happened goes into the trace."""
    if not found or not any(p.document is not None for p in found.pages):
        trace.learned = learned_nothing("no fetched page gave evidence: nothing to learn")
        return
    started = time.perf_counter()
    try:
        trace.learned = learn_pages(graph, embedder, found, corpus=web.config.corpus, today=today)
    except GraphragError as exc:
        trace.learned = learned_nothing(error=str(exc))
    timings["learn_ms"] = (time.perf_counter() - started) * 1000


def _path_with_ids(path: dict, node_ids: dict[str, str]) -> dict:
    """A path as --json shows it: each node also with the id it had in the context (`cite`)."""
    return dict(path, nodes=[dict(n, cite=node_ids.get(n["id"])) for n in path["nodes"]])


def _today():
    """Today, or GRAPHRAG_TODAY (YYYY-MM-DD) to make relative dates reproducible."""
    import os
    from datetime import date

    value = os.environ.get("GRAPHRAG_TODAY")
    return date.fromisoformat(value) if value else date.today()
