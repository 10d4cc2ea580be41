"""One question, end to end: analyse it, offer it to the routes in order (routes/), and let the
first that answers hand its evidence to the shared tail: the gate, the web, the context, the
answer and its citation check.

`ask` returns an :class:`Answer`; ``Answer.to_dict()`` is the JSON of ``graphrag ask --json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag_cypher.retrieval.web import WebFound, WebTrace, learn_pages, learned_nothing, web_question

from .. import llm, telemetry
from ..chinese import Conversion, StreamConverter, choose
from ..config import question_too_long
from ..errors import GraphragError
from .about import About, resolve_about
from .abstain import Abstention, closest_of, not_in_sources, uncovered
from .answer import (
    CitationFilter,
    Context,
    Source,
    build_context,
    extractive_answer,
    llm_messages,
    mermaid,
    sources_for,
)
from .base import Analysis, Evidence, Filters
from .context import evidence_graph, merge_graphs
from .gate import GateTrace, apply_gate, passage_judge, thresholds_for
from .options import AskOptions
from .question.analyzer import QuestionAnalyzer
from .rerank import RerankTrace
from .routes import ROUTES, Asked, Decline, Found, LLMUse, RouteTrace, empty_fields, explain_lines
from .shown import shown_for

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

__all__ = ["Answer", "LLMUse", "ask"]


@dataclass
class Answer:
    """A checked answer, the sources it may cite and how it was found: `trace` is the route
    that answered, `declined` the routes that looked at the question first and why they left it."""

    question: str
    text: str  # citations as ids ([D1])
    text_with_titles: str  # citations as their sources' titles
    citations: list[Source]  # the sources the answer cites
    dropped_citations: list[str]  # ids the answer wrote that the context never gave
    sources: list[Source]
    evidence: list[Evidence]
    mode: str  # the retrieval mode, or the route ("relation", "structured", "global")
    route: str  # the name of the route that answered (routes.ROUTES)
    analysis: Analysis
    llm: LLMUse
    context: str  # the text the answer was written from
    mermaid: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    conversion: Conversion | None = None  # simplified <-> traditional, applied to the answer text
    reranked: RerankTrace | None = None  # what --rerank did (None: not asked for, or not the search route)
    gate: GateTrace | None = None  # what the score gate and the relevance judge did (None: off)
    web: WebTrace | None = None  # whether the web was searched, and what became of each result
    about: About | None = None  # what --about resolved to (None: not asked for)
    trace: RouteTrace | None = None  # what the answering route did (its --json keys)
    declined: list[RouteTrace] = field(default_factory=list)  # the routes that left the question, and why
    abstained: Abstention | None = None  # the graph holds no answer: the text says so, nothing is cited

    @property
    def filters(self) -> Filters:
        return self.analysis.filters

    @property
    def fields(self) -> dict:
        """Every route's --json keys: the answering route's, the declining routes' reasons, else empty."""
        out = empty_fields()
        for trace in [*self.declined, *([self.trace] if self.trace else [])]:
            out.update(trace.to_dict())
        return out

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
            **self.fields,
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
            "abstained": self.abstained.to_dict() if self.abstained else None,
        }
        out["trace"] = {"route": self.route, "explain": explain_lines(out)}  # any route, rendered by itself
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
    """Answer `question` as `options` say (``**changes`` alter some of them: ``use_llm=False``).
    Each route in ``routes.ROUTES`` is offered the question in turn; the first that answers
    does, and the shared tail (`_finish`) gates its evidence, searches the web when the graph
    has nothing (`web`, a web.WebFallback), and writes the answer; with an LLM and
    `on_token` it streams there as it is checked: a citation is held back until it closes and
    an unknown one never reaches `on_token`. `reranker` reorders the search route's passages."""
    options = options or AskOptions()
    if changes:
        options = options.but(**changes)
    if not question or not question.strip():
        raise GraphragError('the question is empty: ask something, e.g. graphrag ask "Who made the silver lantern?"')
    if too_long := question_too_long(question):
        raise GraphragError(too_long)
    with telemetry.span("graphrag.ask", **telemetry.question_attrs(question), k=options.k) as traced:
        asked = _analysed(graph, embedder, settings, question, options)
        asked.history, asked.on_token, asked.reranker, asked.web = history, on_token, reranker, web
        return _told(traced, _routed(asked))


def _routed(asked: Asked) -> Answer:
    """Each route in ``routes.ROUTES`` offered the question in turn (each in its span); the first
    that answers hands its evidence to the shared tail."""
    declined: list[RouteTrace] = []
    for route in ROUTES:
        with telemetry.span("graphrag.route", route=route.name) as traced:
            claim = route.claim(asked)
            found = claim if isinstance(claim, Decline) else route.answer(asked, claim)
            telemetry.annotate(traced, answered=isinstance(found, Found))
        if isinstance(found, Found):
            return _finish(asked, route.name, found, declined)
        if found.trace is not None:
            declined.append(found.trace)
    raise AssertionError("the search route answers every question")


def _told(traced, answer: Answer) -> Answer:
    """The answer's route, mode and counts on the ask's span; its latency by route and mode."""
    seconds = answer.timings_ms.get("total_ms", 0.0) / 1000
    counts = {"evidence": len(answer.evidence), "sources": len(answer.sources), "llm": answer.llm.used}
    telemetry.answered(traced, answer.route, answer.mode, seconds, abstained=answer.abstained is not None, **counts)
    return answer


def _analysis_attrs(asked: Asked) -> dict:
    analysis = asked.analysis
    return {"entities": len(analysis.entities), "keywords": len(analysis.keywords), "language": analysis.language}


@telemetry.traced("graphrag.analysis", result=_analysis_attrs)
def _analysed(graph, embedder, settings, question: str, options: AskOptions) -> Asked:
    """The question analysed (entities, keywords, language, dates), with --about resolved first."""
    started = time.perf_counter()
    conversion = choose(question, options.convert)
    timings: dict[str, float] = {}
    found_about = resolve_about(graph, options.about, options.corpus) if options.about is not None else None
    if options.use_llm and settings.local_model_path is not None:
        # a local model is loaded once per process, before retrieval: a missing file fails first
        timings["llm_load_ms"] = llm.prepare(settings)
    today = options.today or _today()
    analyzer = QuestionAnalyzer(graph, timings)
    analysis = analyzer.analyze(
        question, corpus=options.corpus, date_from=options.date_from, date_to=options.date_to, today=today
    )
    if found_about is not None:
        analysis.filters.about = found_about.ids
    return Asked(
        graph,
        embedder,
        settings,
        question,
        options,
        analysis,
        analyzer,
        conversion,
        today,
        timings,
        started,
        found_about,
    )


def _finish(asked: Asked, route: str, found: Found, declined: list[RouteTrace]) -> Answer:
    """The shared tail: a finished answer as it is, or the evidence gated, the web searched, the
    context built and the answer written (by the LLM, or quoted) with its citations checked."""
    if found.done is not None:
        return _done(asked, route, found, declined)
    options, timings = asked.options, asked.timings
    evidence, retrieved = found.evidence, len(found.evidence)
    gated = uncovers = None
    if found.gate and options.judge != "off":
        evidence, gated = _gate(asked, evidence)
        uncovers = uncovered(asked, found, evidence, gated)  # no LLM, and the evidence is no answer
        evidence = [] if uncovers else evidence
    sources = sources_for(evidence)
    web_trace, web_found = _search_web(asked, route, retrieved, evidence)
    web_sources = _web_sources(web_found, sources) if web_found else []
    if web_trace.searched:
        timings["web_ms"] = web_trace.ms
    graph_context = merge_graphs(found.graph_context or {}, evidence_graph(asked.graph, evidence, shown_for(asked)))
    evidence = evidence + [ev for s in web_sources for ev in s.chunks]
    sources = sources + web_sources
    context = build_context(sources, graph_context)
    nothing = gated is not None and not evidence and (retrieved > 0 or uncovers is not None)
    abstained = uncovers if nothing and not web_sources else None
    if nothing and not web_sources and abstained is None:
        reason = f"the gate left none of the {retrieved} retrieved passage(s) as evidence"
        abstained = Abstention(reason, "gate", closest_of(found.evidence))
    said = None
    if nothing:
        said = (NOTHING_ANYWHERE if web_trace.searched else NOTHING_RELEVANT).format(n=retrieved)
        said = abstained.sentence if abstained and abstained.by == "coverage" else said
    checked, llm_used, note = _write(asked, found, sources, context, said)
    abstained = abstained or not_in_sources(checked, llm_used, evidence)
    sources, evidence = ([], []) if abstained else (sources, evidence)
    if options.learn_web:
        _learn(asked, web_trace, web_found)
    timings["total_ms"] = (time.perf_counter() - asked.started) * 1000
    settings = asked.settings
    return Answer(
        question=asked.question,
        text=checked.text,
        text_with_titles=checked.titled,
        citations=[s for s in sources if s.cite in checked.cited],
        dropped_citations=checked.dropped,
        sources=sources,
        evidence=evidence,
        mode=found.mode,
        route=route,
        analysis=asked.analysis,
        llm=LLMUse(
            llm_used, settings.llm_label if llm_used else None, note, llm.describe(settings) if llm_used else {}
        ),
        context=context.text,
        mermaid=mermaid(graph_context, sources),
        timings_ms={key: round(value, 1) for key, value in timings.items()},
        conversion=asked.conversion,
        reranked=found.reranked,
        gate=gated,
        web=web_trace,
        about=asked.about,
        trace=found.trace.complete(context),
        declined=declined,
        abstained=abstained,
    )


@telemetry.traced("graphrag.gate", lambda asked, evidence: {"candidates": len(evidence), "judge": asked.options.judge})
def _gate(asked: Asked, evidence: list[Evidence]):
    """The score gate and the relevance judge over the evidence (gate.py)."""
    started = time.perf_counter()
    analysis = asked.analysis
    if analysis.embedding is None and asked.embedder is not None:
        analysis.embedding = asked.embedder.embed_query(analysis.search_text)
    kept = apply_gate(
        asked.graph,
        asked.settings,
        analysis.search_text or asked.question,
        analysis.embedding,
        evidence,
        asked.options.judge,
        asked.options.use_llm,
    )
    asked.time("gate_ms", started)
    return kept


@telemetry.traced("graphrag.answer", lambda asked, found, sources, context, said: {"sources": len(sources)})
def _write(asked: Asked, found: Found, sources, context: Context, said: str | None):
    """(checked answer, whether the LLM wrote it, the note): `said` when the graph holds no answer,
    else the answer written into the citation check, streamed to on_token with an LLM; without
    one, the best sentences of the evidence."""
    started = time.perf_counter()
    streaming = asked.llm_ready  # the caller shows only what on_token gets
    checker = CitationFilter(context.cites, emit=asked.on_token if streaming else None)
    writer = StreamConverter(asked.conversion.applied, checker.feed)
    llm_used = bool(asked.llm_ready and said is None)
    note = None
    if said is not None:
        writer.feed(said)
    elif llm_used:
        messages = llm_messages(asked.question, context.text, asked.analysis.language, asked.history)
        llm.stream(asked.settings, messages, writer.feed)
    else:
        analysis, embedder = asked.analysis, asked.embedder
        lead = found.lead(context) if found.lead else ""
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
    asked.time("answer_ms", started)
    return checked, llm_used, note


def _done(asked: Asked, route: str, found: Found, declined: list[RouteTrace]) -> Answer:
    """A route's finished answer (global, structured) as an Answer."""
    done = found.done
    assert done is not None
    if done.emit and asked.on_token is not None:
        asked.on_token(done.titled)
    asked.timings["total_ms"] = (time.perf_counter() - asked.started) * 1000
    return Answer(
        question=asked.question,
        text=done.text,
        text_with_titles=done.titled,
        citations=[s for s in done.sources if s.cite in done.cited],
        dropped_citations=done.dropped,
        sources=done.sources,
        evidence=found.evidence,
        mode=found.mode,
        route=route,
        analysis=asked.analysis,
        llm=done.llm,
        context=build_context(done.sources).text,
        mermaid=mermaid({}, done.sources),
        timings_ms={key: round(value, 1) for key, value in asked.timings.items()},
        conversion=asked.conversion,
        web=WebTrace(None, reason=done.web_reason),
        about=asked.about,
        trace=found.trace,
        declined=declined,
        abstained=done.abstained,
    )


def _search_web(asked: Asked, route: str, retrieved: int, evidence: list[Evidence]):
    """(trace, found): whether the web is searched for this question, and what it gave. The web
    is asked the standalone question with its date range stated (web.web_question); with
    an LLM, the relevance judge decides which pages are about it (else the cosine floor)."""
    web, options, analysis, embedder = asked.web, asked.options, asked.analysis, asked.embedder
    name = getattr(web, "name", None)
    if web is None or name is None:
        return WebTrace(None, reason="no web-search fallback is configured"), None
    if options.web_mode == "off":
        return WebTrace(name, reason="the web search is off for this question (--no-web)"), None
    if options.web_mode == "always":
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
        analysis.embedding = embedder.embed_query(analysis.search_text or asked.question)
    floor = None if options.judge == "off" else thresholds_for(asked.settings)[1]
    text, dates = web_question(analysis, asked.today)
    found = web.find(
        text,
        analysis.embedding,
        embedder.embed,
        k=options.k,
        keywords=analysis.keywords,
        min_similarity=floor,
        reason=reason,
        dates=dates,
        judge=passage_judge(asked.settings, asked.question, options.judge, options.use_llm),
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


def _learn(asked: Asked, trace: WebTrace, found: WebFound | None) -> None:
    """--learn-web: the pages used stored as documents; what happened goes into the trace."""
    if not found or not any(p.document is not None for p in found.pages):
        trace.learned = learned_nothing("no fetched page gave evidence: nothing to learn")
        return
    started = time.perf_counter()
    try:
        trace.learned = learn_pages(
            asked.graph, asked.embedder, found, corpus=asked.web.config.corpus, today=asked.today
        )
    except GraphragError as exc:
        trace.learned = learned_nothing(error=str(exc))
    asked.time("learn_ms", started)


def _today():
    """Today, or GRAPHRAG_TODAY (YYYY-MM-DD) to make relative dates reproducible."""
    import os
    from datetime import date

    value = os.environ.get("GRAPHRAG_TODAY")
    return date.fromisoformat(value) if value else date.today()
