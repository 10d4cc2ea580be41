"""How a question is answered: one options object that every face builds once.

``graphrag ask`` and ``graphrag chat`` build it from their flags, ``POST /chat`` from its
body, the OpenAI-compatible endpoint from the model name, the MCP tools from their arguments;
:func:`graphrag_cypher.retrieval.qa.ask` reads it (as neo4j-graphrag's retriever config or
LightRAG's ``QueryParam``). What is not a setting travels beside it: the reranker and the web
search (services), the conversation so far and the token callback.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date

from ..chinese import CHOICES as CONVERSIONS
from ..errors import GraphragError
from .modes import ANSWER_MODES, DEFAULT_MODE
from .reranking import DEFAULT_CANDIDATES

GATES = ("auto", "always", "off")  # the score gate and relevance judge (gate.py)
WEB_MODES = ("auto", "always", "off")  # the web fallback: when the graph has nothing, alongside, never
MAX_K = 100


@dataclass(frozen=True)
class AskOptions:
    """The settings of one question; checked when made, so every face refuses the same things."""

    mode: str = DEFAULT_MODE  # one of modes.ANSWER_MODES
    k: int = 5  # passages in the context
    corpus: str | None = None  # only documents of this corpus
    about: str | None = None  # only passages that mention this entity (id or name)
    date_from: str | None = None  # ISO dates, inclusive; the question's own time expression narrows them
    date_to: str | None = None
    use_llm: bool = True  # False: an extractive answer, even with an LLM configured
    convert: str = "auto"  # simplified/traditional Chinese conversion of the answer
    rerank_candidates: int = DEFAULT_CANDIDATES  # the mode's top chunks a reranker scores
    judge: str = "auto"  # one of GATES
    web_mode: str = "auto"  # one of WEB_MODES
    learn_web: bool = False  # store the web pages the answer used
    today: date | None = None  # "last month" is counted from it; None: today

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("mode", self.mode, ANSWER_MODES),
            ("conversion", self.convert, CONVERSIONS),
            ("judge", self.judge, GATES),
            ("web mode", self.web_mode, WEB_MODES),
        ):
            if value not in allowed:
                raise GraphragError(f"unknown {name} {value!r}: use one of {', '.join(allowed)}")
        if not 1 <= self.k <= MAX_K:
            raise GraphragError(f"k must be between 1 and {MAX_K}, not {self.k}")
        if self.rerank_candidates < 1:
            raise GraphragError(f"rerank candidates must be at least 1, not {self.rerank_candidates}")

    def but(self, **changes) -> AskOptions:
        """These options with some changed (checked again)."""
        return dataclasses.replace(self, **changes)
