"""What the fallback did, for `--explain` and `--json`: each result's fate and the pages used."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_cypher.model import ParsedDocument

from .search import Dates


@dataclass
class ResultTrace:
    title: str
    url: str
    snippet: str = ""
    id: str | None = None  # W1, W2, … when the result gave evidence
    fetched: bool = False  # its page was fetched and parsed
    blocked: str | None = None  # the blocklist entry that kept it from being fetched
    error: str | None = None  # why its page could not be used
    snippet_used: bool = False  # its search snippet stands in for the page
    final_url: str | None = None  # where redirects led
    chunks: int = 0  # chunks of the page compared with the question
    best_similarity: float | None = None
    note: str | None = None  # why a fetched result gave no evidence
    dropped: str | None = None  # why it gave no evidence, in a few words (blocked, robots, gate, judge…)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "url": self.url,
            "final_url": self.final_url,
            "fetched": self.fetched,
            "blocked": self.blocked is not None,
            "blocked_by": self.blocked,
            "error": self.error,
            "snippet_used": self.snippet_used,
            "chunks": self.chunks,
            "best_similarity": None if self.best_similarity is None else round(self.best_similarity, 4),
            "note": self.note,
            "dropped": None if self.id else self.why_dropped(),
        }

    def why_dropped(self) -> str | None:
        """Why this result gave no evidence: blocked, not fetched (robots.txt, HTTP errors, local
        addresses), under the gate, judged off-topic, or outranked."""
        if self.blocked:
            return f"blocked: {self.blocked} is on the web blocklist"
        if self.dropped:
            return self.dropped
        if self.error and not self.snippet_used:
            return f"not fetched: {self.error}"
        return self.note


@dataclass
class WebTrace:
    """Whether the web was searched, why, and what became of each result."""

    provider: str | None
    searched: bool = False
    reason: str = ""
    query: str | None = None  # the standalone question, a relative time expression taken out
    dates: Dates | None = None  # the date range stated with it (from, to)
    results: list[ResultTrace] = field(default_factory=list)
    error: str | None = None  # the search itself failed
    min_similarity: float | None = None  # chunks under it were not used (None with a judge)
    judged_by: str | None = None  # the LLM that judged the pages, if one did
    learned: dict | None = None  # --learn-web: what storing the pages did
    ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "provider": self.provider,
            "searched": self.searched,
            "reason": self.reason,
            "query": self.query,
            "dates": {"from": self.dates[0], "to": self.dates[1]} if self.dates else None,
            "results": [r.to_dict() for r in self.results],
            "error": self.error,
            "min_similarity": self.min_similarity,
            "judged_by": self.judged_by,
            "learned": self.learned,
            "ms": round(self.ms, 1),
        }


@dataclass
class WebPage:
    """A result that gave evidence: its id, the parsed page (None: only the snippet), its chunks."""

    cite: str
    result: ResultTrace
    document: ParsedDocument | None
    chunks: list[WebChunk]


@dataclass
class WebChunk:
    chunk_id: str
    text: str
    similarity: float
    vector: list[float]
    embedded_text: str


@dataclass
class WebFound:
    pages: list[WebPage]
    trace: WebTrace
    vectors: dict[str, list[float]] = field(default_factory=dict)  # embedded text -> vector, for learning
