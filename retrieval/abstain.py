"""Abstention: the answer that says the graph holds no answer, instead of quoting passages about
something else.

An :class:`Abstention` is carried by an Answer (``ask --json`` key ``"abstained"``, null when
the question was answered). Its answer text is one plain sentence, it cites nothing and has no
sources; the passages nearest the question may be listed apart, in ``closest``, as "closest,
not an answer". Every face shows it the same way: the sentence, then those passages under that
heading.

Who abstains (``by``):

- ``"gate"``: the score gate or the relevance judge left no evidence;
- ``"coverage"``: without an LLM, the evidence does not cover what the question asks about
  (its named entities and content terms);
- ``"lookup"``: the question asks for a relation of an entity the graph holds, and that
  entity has no such edge ("The graph has no record of who killed Jaime Lannister.");
- ``"llm"``: the LLM answered that the sources do not say.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLOSEST_HEADING = "Closest, not an answer:"
MAX_CLOSEST = 3  # passages listed apart under CLOSEST_HEADING
CLOSEST_CHARS = 240  # of each one's text


@dataclass
class Abstention:
    """Why the answer is "the graph holds no answer", and the passages nearest the question."""

    reason: str  # one line: what the graph lacks
    by: str  # "gate", "coverage", "lookup" or "llm"
    closest: list[dict] = field(default_factory=list)  # {document_id, title, uri, text, score}

    def to_dict(self) -> dict:
        return {"by": self.by, "reason": self.reason, "closest": self.closest, "heading": CLOSEST_HEADING}


def closest_of(evidence, limit: int = MAX_CLOSEST) -> list[dict]:
    """The first `limit` evidence chunks (best first) as "closest, not an answer" entries."""
    out: list[dict] = []
    for ev in evidence[:limit]:
        text = " ".join((ev.text or "").split())
        out.append(
            {
                "document_id": ev.document_id,
                "title": ev.title,
                "uri": ev.uri,
                "text": text[:CLOSEST_CHARS] + ("…" if len(text) > CLOSEST_CHARS else ""),
                "score": None if ev.score is None else round(float(ev.score), 4),
            }
        )
    return out
