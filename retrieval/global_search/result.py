"""A global answer as it is built: `GlobalResult`, and the citation check every answer goes through."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..answer import CitationFilter, Source, build_context
from ..base import Evidence
from .scope import Scope


@dataclass
class GlobalResult:
    """A global answer, or (family None) why the question went to the local route."""

    family: str | None
    reason: str
    method: str = "extractive"
    term: str | None = None
    level: int | None = None
    text: str = ""
    titled: str = ""
    cited: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    communities: list[dict] = field(default_factory=list)
    documents_total: int = 0
    shown: int = 0
    rest: int = 0
    budget: int = 0
    scope: Scope | None = None
    scope_total: int = 0
    map_requests: int = 0
    map_points: int = 0
    map_dropped: list[str] = field(default_factory=list)
    llm_used: bool = False
    ms: float = 0.0
    quotes: dict[str, str] = field(default_factory=dict)  # chunk id -> the sentence quoted from it
    mentions: dict[str, int] = field(default_factory=dict)  # document id -> mentions of the term
    groups: dict[str | None, list[Evidence]] = field(default_factory=dict)  # community id -> its documents
    chosen: list[dict] = field(default_factory=list)  # the themes shown, ranked
    picks: dict[str, list[tuple[dict, str]]] = field(default_factory=dict)  # theme -> (chunk row, sentence)
    candidates: dict[str, list[dict]] = field(default_factory=dict)  # theme -> its nearest in-scope chunks

    def to_dict(self) -> dict:
        if self.family is None:
            return {"family": None, "reason": self.reason}
        out: dict = {
            "family": self.family,
            "method": self.method,
            "term": self.term,
            "level": self.level,
            "reason": self.reason,
            "documents_total": self.documents_total,
            "shown": self.shown,
            "rest": self.rest,
            "budget": self.budget,
            "ms": round(self.ms, 1),
            "scope": dict(self.scope.to_dict(), documents=self.scope_total) if self.scope else None,
        }
        if self.method == "map-reduce":
            out.update(map_requests=self.map_requests, map_points=self.map_points, map_dropped=self.map_dropped)
        return out


def _check(result: GlobalResult, write, emit=None, convert: str | None = None) -> None:
    """Run `write(feed)` through the citation check (and the Chinese conversion, `convert`): the
    answer keeps only ids its sources gave, and `emit` sees the checked text as it comes."""
    from ...chinese import StreamConverter

    checker = CitationFilter(build_context(result.sources).cites, emit=emit)
    writer = StreamConverter(convert, checker.feed)
    write(writer.feed)
    writer.close()
    checked = checker.close()
    result.text, result.titled = checked.text, checked.titled
    result.cited, result.dropped = checked.cited, checked.dropped


def _community(r: dict, documents: int, score: float, used: bool, why: str) -> dict:
    return {
        "id": r["id"],
        "level": r["level"],
        "title": r.get("title"),
        "phrases": list(r.get("phrases") or []),
        "size": r.get("size"),
        "chunks": r.get("chunks"),
        "documents": documents,
        "score": score,
        "used": used,
        "why": why,
    }
