"""The retrieval modes, in one registry that every face reads.

The CLI's ``--mode`` choices, the HTTP API's validation and ``GET /modes`` (the page's mode
list), the MCP tools' schema, the OpenAI-compatible endpoint's models and the benchmarks all
take the names from :data:`REGISTRY`. Adding a mode touches its module (a :class:`Retriever`
subclass in ``retrieval/<name>.py``), its Cypher (``cypher/queries/retrieval/``), one
:class:`Mode` here, and its tests.

This module imports nothing heavy, so a command's ``--help`` does not load the driver; the
retriever classes are imported when one is made.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import GraphragError

if TYPE_CHECKING:
    from .retriever import Retriever


@dataclass(frozen=True)
class Mode:
    """One way to answer a question: a retriever, or a route that is not one (``global``)."""

    name: str
    summary: str  # one line: --help, GET /modes, the page's tooltip, MCP's tool description
    retriever: str | None = None  # "module:Class" in graphrag_cypher.retrieval; None for a route

    def to_dict(self) -> dict:
        return {"name": self.name, "summary": self.summary, "retriever": self.retriever is not None}


REGISTRY: tuple[Mode, ...] = (
    Mode("vector", "db.index.vector.queryNodes on chunk embeddings", "vector:VectorRetriever"),
    Mode("fulltext", "db.index.fulltext.queryNodes on chunk text, the question escaped", "fulltext:FulltextRetriever"),
    Mode("hybrid", "weighted reciprocal-rank fusion of vector and full-text", "hybrid:HybridRetriever"),
    Mode(
        "graph",
        "hybrid seeds, then the passages their shared rare phrases, topics and entities lead to",
        "graph:GraphRetriever",
    ),
    Mode(
        "ppr",
        "personalized PageRank over the chunk-entity graph, seeded by the question's entities",
        "ppr:PPRRetriever",
    ),
    Mode("global", "the whole corpus: community reports mapped and reduced (graphrag communities build)"),
)
BY_NAME = {mode.name: mode for mode in REGISTRY}
DEFAULT_MODE = "graph"
GLOBAL_MODE = "global"
# the modes that rank chunks (a retriever each), and every mode a question can be asked in
MODES: tuple[str, ...] = tuple(mode.name for mode in REGISTRY if mode.retriever)
ANSWER_MODES: tuple[str, ...] = tuple(mode.name for mode in REGISTRY)


def retriever_class(mode: str) -> type[Retriever]:
    """The :class:`Retriever` subclass of `mode` (one of :data:`MODES`), imported now."""
    entry = BY_NAME.get(mode)
    if entry is None or entry.retriever is None:
        raise GraphragError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
    module, name = entry.retriever.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


def retriever(mode: str, graph, embedder, weights: dict | None = None, timings: dict | None = None) -> Retriever:
    """The retriever of `mode` (one of :data:`MODES`) over `graph`."""
    return retriever_class(mode)(graph, embedder, weights, timings)


def describe() -> list[dict]:
    """The registry as the API serves it (``GET /modes``): name, summary, whether it ranks chunks,
    and which one is the default."""
    return [{**mode.to_dict(), "default": mode.name == DEFAULT_MODE} for mode in REGISTRY]
