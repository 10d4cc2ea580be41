"""The interface every retrieval mode implements: :class:`Retriever`, a neo4j-graphrag retriever.

A mode is a :class:`Retriever` with one method, :meth:`Retriever.rank` (analysed question in,
ranked evidence out). It is also a neo4j-graphrag retriever: ``search(query_text=..., top_k=...)``
returns a ``neo4j_graphrag.types.RetrieverResult`` (one item per chunk: its text as ``content``,
the chunk and document ids, title, score and trace as ``metadata``), so a neo4j-graphrag pipeline
can use our modes where it expects its own ``Retriever``.
"""

from __future__ import annotations

import time
from abc import abstractmethod

import neo4j
from neo4j_graphrag.retrievers.base import Retriever as GraphragRetriever
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem

from .. import telemetry
from .about import resolve_about
from .base import WEIGHTS, Analysis, Evidence, one_per_content
from .question.analyzer import QuestionAnalyzer


class Retriever(GraphragRetriever):
    """One retrieval mode over our graph; subclasses implement :meth:`rank`.

    ``timings`` (shared with the analysis when given) collects ``embed_ms`` and ``retrieve_ms``.
    """

    name: str = ""
    VERIFY_NEO4J_VERSION = False

    def __init__(self, graph, embedder=None, weights: dict | None = None, timings: dict[str, float] | None = None):
        # neo4j-graphrag's constructor would check the server version and change the driver's
        # user agent; the graph is ours and already verified, so only its attributes are set.
        self.graph = graph
        self.driver = graph.driver
        self.neo4j_database = graph.database
        self.embedder = embedder
        self.weights = {**WEIGHTS, **(weights or {})}
        self.timings: dict[str, float] = timings if timings is not None else {}
        self._analyzer: QuestionAnalyzer | None = None

    @abstractmethod
    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        """The best `k` chunks for an analysed question, best first, filters held."""

    @telemetry.traced(
        "graphrag.retrieve",
        lambda self, analysis, k=5: {"mode": self.name, "k": k},
        lambda found: {"found": len(found)},
    )
    def retrieve(self, analysis: Analysis, k: int = 5) -> list[Evidence]:
        """The mode's best `k` chunks, one per content hash (copies listed as `also_in`)."""
        started = time.perf_counter()
        results = one_per_content(self.graph, lambda n: self.ranked(analysis, n), k, analysis.filters)
        self.timings["retrieve_ms"] = (time.perf_counter() - started) * 1000
        return results

    def ranked(self, analysis: Analysis, n: int) -> list[Evidence]:
        """`rank`'s best `n` for :meth:`retrieve`. A mode may give rows past `n` (the same ranking's
        next ones) and each row's copies, so that copies are settled without asking again."""
        return self.rank(analysis, n)

    def embedding(self, analysis: Analysis) -> list[float]:
        """The question's vector, computed once per analysis (graph and ppr modes reuse it)."""
        if analysis.embedding is None:
            started = time.perf_counter()
            with telemetry.span("graphrag.retrieve.embedding", model=getattr(self.embedder, "name", None)):
                analysis.embedding = self.embedder.embed_query(analysis.search_text)
            self.timings["embed_ms"] = (time.perf_counter() - started) * 1000
        return analysis.embedding

    # -- neo4j-graphrag's retriever interface -------------------------------------------------
    def get_search_results(
        self,
        query_text: str,
        top_k: int = 5,
        corpus: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        about: str | None = None,
    ) -> RawSearchResult:
        """Analyse `query_text` (entities, time expressions) and rank its `top_k` chunks.

        Args:
            query_text (str): the question.
            top_k (int): how many chunks.
            corpus (str, optional): only documents of this corpus.
            date_from, date_to (str, optional): only documents dated in this range (YYYY-MM-DD).
            about (str, optional): only chunks that mention this entity (an id or a name, as
                ``graphrag ask --about`` takes it).

        Returns:
            RawSearchResult: one record per chunk (the fields of :class:`Evidence`), and the
            mode, filters and question entities as metadata.
        """
        if self._analyzer is None:
            self._analyzer = QuestionAnalyzer(self.graph, self.timings)
        analysis = self._analyzer.analyze(query_text, corpus=corpus, date_from=date_from, date_to=date_to)
        if about is not None:
            analysis.filters.about = resolve_about(self.graph, about, corpus).ids
        evidence = self.retrieve(analysis, top_k)
        return RawSearchResult(
            records=[neo4j.Record(ev.to_dict()) for ev in evidence],
            metadata={"mode": self.name, "filters": analysis.filters.to_dict(), "entities": analysis.entities},
        )

    def default_record_formatter(self, record: neo4j.Record) -> RetrieverResultItem:
        """The chunk's text as content; ids, title, uri, score and trace as metadata."""
        metadata = {key: record[key] for key in record.keys() if key != "text"}
        return RetrieverResultItem(content=record["text"], metadata=metadata)
