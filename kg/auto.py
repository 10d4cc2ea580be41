"""Entities for what a learn added, when GRAPHRAG_EXTRACT asks for them (ner or llm; off by default).

`learn`, chat `learn:`, uploads (POST /documents), crawls (POST /crawl) and the MCP `learn`
tool pass :func:`extractor` to the load; it reads only the documents the load created or
updated. A failed extraction (no spaCy pipeline, no LLM) is one line in the learn's summary
(``extraction.error``): what was learned stays.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..db import Graph
from ..errors import GraphragError


@lru_cache(maxsize=2)
def _pipeline(model: str):
    from .ner import load_pipeline

    return load_pipeline(model)  # a server learns many times: the pipeline loads once


def extractor(settings) -> Callable[[Graph, list[str]], dict] | None:
    """The extraction GRAPHRAG_EXTRACT names as a function of (graph, document ids); None when off."""
    if settings.extract == "off":
        return None

    def run(graph: Graph, document_ids: list[str]) -> dict:
        from ..schema import load_schema

        try:
            schema = load_schema(settings.extract_schema)
            if settings.extract == "ner":
                from . import ner

                return ner.run(  # one process: a server's threads must not fork
                    graph,
                    schema,
                    ner.Selection(document_ids=document_ids),
                    pipeline=_pipeline(settings.ner_model),
                    processes=1,
                )
            import os

            from . import llm_extract

            concurrency = int(os.environ.get("GRAPHRAG_EXTRACT_CONCURRENCY") or 4)
            return llm_extract.run(
                graph,
                settings,
                schema,
                llm_extract.Selection(kinds=None, ids=tuple(document_ids)),
                resume=True,
                concurrency=max(1, min(concurrency, 64)),
                cache=llm_extract.ReplyCache(llm_extract.cache_path()),
            )
        except GraphragError as exc:
            return {"extractor": settings.extract, "error": str(exc)}

    return run
