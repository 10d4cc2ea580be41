"""The search route: every question no other route answered, answered from passages the
retrieval mode finds (modes.py), reranked when asked; the shared tail gates them, may search
the web, and writes the answer from them."""

from __future__ import annotations

from typing import ClassVar

from ..modes import DEFAULT_MODE, GLOBAL_MODE, retriever
from ..rerank import rerank
from .base import Asked, Found, RouteTrace


class SearchRoute:
    name: ClassVar[str] = "search"
    fields: ClassVar[dict] = {}
    drawn: ClassVar[tuple[str, ...]] = ()

    def claim(self, asked: Asked) -> bool:
        return True  # the route of last resort

    def answer(self, asked: Asked, claim) -> Found:
        # "global" asked for, and the global route could not answer: the default mode does
        mode = DEFAULT_MODE if asked.options.mode == GLOBAL_MODE else asked.options.mode
        k = asked.options.k
        fetch = max(k, asked.options.rerank_candidates) if asked.reranker is not None else k
        evidence = retriever(mode, asked.graph, asked.embedder, timings=asked.timings).retrieve(asked.analysis, fetch)
        reranked = None
        if asked.reranker is not None:
            evidence, reranked = rerank(asked.reranker, asked.analysis.search_text or asked.question, evidence, k)
            asked.timings["rerank_ms"] = reranked.ms
        return Found(RouteTrace(self.name), mode, evidence, gate=True, reranked=reranked)

    def draw(self, answer: dict, nodes: dict, edges: dict, limit: int) -> None:
        pass  # its evidence is chunks: the evidence subgraph has them already

    def notes(self, answer: dict) -> list[str]:
        return []

    def explain(self, answer: dict) -> list[str]:
        return []  # the evidence, gate, web and rerank lines are the shared tail's
