"""What every question route shares: the question being asked (:class:`Asked`), the
:class:`Route` protocol, what a route found (:class:`Found`, with a finished answer as
:class:`Done`) or why it declined (:class:`Decline`), and the trace a route leaves
(:class:`RouteTrace`), which renders itself for ``--json`` and ``--explain``.

A route *claims* a question from its analysis (or declines, saying why) and *answers* a
claim with evidence, sources, optional text and a trace. The registry, in priority order,
is ``ROUTES`` in ``routes/__init__.py``; ``qa.ask`` takes the first route that answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ...chinese import Conversion
from ..about import About
from ..abstain import Abstention
from ..answer import Context, Source
from ..base import Analysis, Evidence
from ..options import AskOptions


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
class Asked:
    """One question on its way through the routes: the graph and models it is answered with,
    its options and analysis, and the timings every step adds to."""

    graph: Any
    embedder: Any
    settings: Any
    question: str
    options: AskOptions
    analysis: Analysis
    analyzer: Any  # analysis.QuestionAnalyzer: the relation route reads entities through it
    conversion: Conversion
    today: Any
    timings: dict[str, float]
    started: float
    about: About | None = None
    history: Any = ()
    on_token: Callable[[str], None] | None = None
    reranker: Any = None
    web: Any = None

    @property
    def llm_ready(self) -> bool:
        """An LLM is asked for and configured."""
        return bool(self.options.use_llm and self.settings.llm_configured)

    @property
    def text(self) -> str:
        """The question without its time expression (what the routes match and search)."""
        return self.analysis.search_text or self.analysis.question

    def time(self, key: str, since: float, add: bool = False) -> float:
        """Record the milliseconds since `since` under `key` (added to what is there with `add`)."""
        ms = (time.perf_counter() - since) * 1000
        self.timings[key] = self.timings.get(key, 0.0) + ms if add else ms
        return self.timings[key]


@dataclass
class RouteTrace:
    """What a route did with a question: `fields` are the keys it fills in ``ask --json``
    (e.g. ``{"structured": {...}, "rows": [...]}``), whether it answered or declined."""

    route: str
    fields: dict = field(default_factory=dict)

    def complete(self, context: Context) -> RouteTrace:
        """The trace once the answer's context is built (a relation path learns its node ids)."""
        return self

    def to_dict(self) -> dict:
        return dict(self.fields)


@dataclass
class Decline:
    """A route does not answer this question; `trace` (None: nothing to tell) says why."""

    route: str
    trace: RouteTrace | None = None


@dataclass
class Done:
    """A finished answer a route wrote itself (from the whole corpus, from the graph's structure):
    the shared tail neither gates, searches the web nor writes an answer for it."""

    text: str
    titled: str
    cited: list[str]
    sources: list[Source]
    llm: LLMUse
    web_reason: str  # why the web was not searched
    dropped: list[str] = field(default_factory=list)
    emit: bool = False  # hand `titled` to the caller's on_token (it did not stream)
    abstained: Abstention | None = None  # the text says the graph holds no answer (abstain.py)


@dataclass
class Found:
    """What a route found: its evidence and trace, and either a finished answer (`done`) or what
    the shared tail needs to write one (the gate, the web, extra graph context, a lead sentence)."""

    trace: RouteTrace
    mode: str  # the retrieval mode the answer reports ("relation", "structured", "global", a mode name)
    evidence: list[Evidence]
    done: Done | None = None
    gate: bool = False  # the score gate and relevance judge apply
    graph_context: dict | None = None  # more NODES / RELATIONSHIPS for the context
    lead: Callable[[Context], str] | None = None  # the sentence the extractive answer starts with
    reranked: Any = None  # rerank.RerankTrace


class Route(Protocol):
    """A way to answer a question. `fields` are the ``ask --json`` keys its trace fills, with
    their values when the route did not run. Every face renders those keys of any answer's JSON
    through the route: `explain` as ``--explain`` lines, `notes` as the one-line notes printed
    after an answer, `draw` as nodes and edges of the answer's subgraph."""

    name: ClassVar[str]
    fields: ClassVar[dict]
    drawn: ClassVar[tuple[str, ...]]  # the keys of `fields` that `draw` reads

    def claim(self, asked: Asked) -> Any:
        """A claim on the question (handed to `answer`), or a Decline saying why not."""
        ...

    def answer(self, asked: Asked, claim: Any) -> Found | Decline: ...

    def explain(self, answer: dict) -> list[str]: ...

    def notes(self, answer: dict) -> list[str]: ...

    def draw(self, answer: dict, nodes: dict, edges: dict, limit: int) -> None:
        """Add what the answer's JSON holds beyond its evidence chunks to its subgraph (GET /graph):
        `nodes` by id, `edges` by (source, type, target), at most `limit` nodes."""
        ...
