"""The global route's answer to an analysed question: its scope, the family's evidence, then
the extractive lines or the map-reduce."""

from __future__ import annotations

import time

from .detect import GlobalQuestion
from .extractive import _extractive
from .mapreduce import _map_reduce
from .result import GlobalResult
from .scope import scope_of
from .themes import _themes
from .topic import _topic


def answer(
    graph, settings, analysis, found: GlobalQuestion, use_llm: bool, on_token=None, convert=None
) -> GlobalResult:
    """The global answer to an analysed question (`found` says which family); a GlobalResult
    with family None when it cannot be answered globally (then the local route answers)."""
    from .. import structured as structure

    started = time.perf_counter()
    question = analysis.search_text or analysis.question
    scope = scope_of(question, structure.catalog(graph), analysis.filters)
    total = graph.read("structured/scope_total", **{k: v for k, v in scope.params().items()})[0]["total"]
    llm = bool(use_llm and settings is not None and settings.llm_configured)
    if found.family == "topic" and found.term:
        result = _topic(graph, analysis, found, scope)
    else:
        result = _themes(graph, found, scope)
    result.scope, result.scope_total = scope, total
    if result.family is not None:
        zh = analysis.language == "zh"
        if llm and result.evidence:
            _map_reduce(graph, settings, analysis, result, on_token, convert)
        else:
            _extractive(result, zh)
    result.ms = (time.perf_counter() - started) * 1000
    return result
