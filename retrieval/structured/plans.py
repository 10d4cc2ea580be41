"""What a structured question asks and what answers it: a Plan (its family, its entity and the
relation hops from it), a Refusal saying why the route declines, and the Rows a plan reads."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_CANDIDATES = 20  # entities of one name checked for the relation's edges
MAX_ROWS = 500  # far-side entities read per lookup


@dataclass
class Hop:
    relation: str
    x_is_source: bool  # the known end is the relation's source: the answer is its targets
    phrase: str
    by: str  # "phrase", "embedding" or "only relation"
    score: float = 1.0
    phrase_span: tuple[int, int] | None = None  # where the phrase is in the question's tokens
    also: list[Hop] = field(default_factory=list)  # "married or engaged to": read with this one, as a union

    def to_dict(self) -> dict:
        out: dict = {
            "relation": self.relation,
            "direction": "out" if self.x_is_source else "in",
            "phrase": self.phrase,
            "matched_by": self.by,
            "score": round(self.score, 3),
        }
        if self.also:
            out["or"] = [h.to_dict() for h in self.also]
        return out


@dataclass
class Plan:
    family: str  # "lookup", "list", "count", "documents", "count_documents"
    reason: str
    entity: dict | None = None
    others: list[dict] = field(default_factory=list)
    hops: list[Hop] = field(default_factory=list)
    term: str | None = None
    answer_labels: list[str] | None = None
    scope: dict = field(default_factory=dict)  # {noun, labels, corpus}
    entity_ids: list[str] = field(default_factory=list)
    candidates: dict | None = None  # the graph-directed choice: answer type, candidates, why (candidates.py)

    def to_dict(self) -> dict:
        out: dict = {
            "family": self.family,
            "reason": self.reason,
            "entity": self.entity,
            "others": self.others,
            "hops": [h.to_dict() for h in self.hops],
            "term": self.term,
            "answer_labels": self.answer_labels,
            "scope": self.scope,
        }
        if self.candidates is not None:
            out["candidates"] = self.candidates
        return out


@dataclass
class Refusal:
    """Why a question is not answered from the structure (it goes to the search route)."""

    reason: str
    looks_structured: bool = False  # a count or list question: text-to-Cypher may try it
    candidates: dict | None = None  # the graph-directed choice that found none (candidates.py)

    def to_dict(self) -> dict:
        out: dict = {"family": None, "reason": self.reason}
        if self.candidates is not None:
            out["candidates"] = self.candidates
        return out


@dataclass
class Row:
    name: str
    id: str
    labels: list[str]
    relation: str | None = None
    via: str = ""
    document_id: str | None = None
    chunk_id: str | None = None
    title: str | None = None
    uri: str | None = None
    text: str = ""
    chunks: int = 0
    record: str | None = None
    uncited: list[str] = field(default_factory=list)  # a text-to-Cypher row's values not read from its source
    returned: dict | None = None  # a text-to-Cypher row as the statement returned it

    def to_dict(self, cite: str | None) -> dict:
        out: dict = {"name": self.name, "id": self.id, "type": self.labels[0] if self.labels else None, "cite": cite}
        if self.relation:
            out["relation"] = self.relation
        if self.title is not None or self.chunks:
            out.update(title=self.title, document_id=self.document_id, chunks=self.chunks)
        if self.via:
            out["via"] = self.via
        if self.returned is not None:  # shown as a row, never as the citation's text
            out.update(uncited=self.uncited, returned=self.returned)
        return out
