"""Recorded LLM replies for the six sample tales (tests/fixtures/kg/tales/T*.json), served by
tests/llm_server.py: the reply is chosen by the story text in the request."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "kg"
# A phrase from each tale's text that picks its recorded reply.
MARKERS = {
    "T1": "Tansy Mill. It belonged",
    "T2": "Pell was a shepherd boy",
    "T3": "It was an iron key",
    "T4": "bronze bell that rang",
    "T5": "a troll called Grumhold",
    "T6": "sat alone in the dark",
}


def recorded(story_id: str) -> str:
    return (FIXTURES / "tales" / f"{story_id}.json").read_text(encoding="utf-8")


def story_of(body: dict) -> str | None:
    text = " ".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user")
    return next((sid for sid, marker in MARKERS.items() if marker in text), None)


class TaleReplies:
    """reply(body) for LLMServer: T3's first answer is malformed (the repair gets the real one);
    stories in `broken` always get malformed answers."""

    def __init__(self, broken: set[str] | None = None):
        self.broken = set(broken or ())
        self.malformed_sent: set[str] = set()
        self.asked: list[str] = []

    def __call__(self, body: dict) -> str:
        sid = story_of(body)
        repair = len(body.get("messages", [])) > 2
        if not repair:
            self.asked.append(sid)
        if sid in self.broken:
            return (FIXTURES / "malformed.txt").read_text(encoding="utf-8")
        if sid == "T3" and "T3" not in self.malformed_sent:
            self.malformed_sent.add("T3")
            return (FIXTURES / "malformed.txt").read_text(encoding="utf-8")
        if sid is None:
            return json.dumps({"entities": [], "relations": []})
        return recorded(sid)
