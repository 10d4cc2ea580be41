"""Multi-turn state: bounded history and follow-ups rewritten into standalone questions."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable

from ..config import MAX_QUESTION

_ELLIPTICAL = re.compile(
    r"^(and|but|what about|how about|also|then|so)\b|\b(it|its|he|she|him|her|his|they|them|their|that|this|those|there)\b",
    re.IGNORECASE,
)

REWRITE_PROMPT = (
    "Rewrite the user's last message as one standalone question that can be understood without the "
    "conversation. Keep names, places and time expressions. Reply with the question only."
)


class Conversation:
    def __init__(self, settings, max_turns: int = 8, use_llm: bool = True):
        self.settings = settings
        self.use_llm = use_llm and settings.llm_configured
        self.turns: deque = deque(maxlen=max_turns)

    def messages(self) -> list[dict]:
        """The recent turns as chat messages (questions and checked answers)."""
        out = []
        for turn in self.turns:
            out += [{"role": "user", "content": turn["question"]}, {"role": "assistant", "content": turn["answer"]}]
        return out

    def add(self, said: str, question: str, answer) -> None:
        """Remember a turn: what was said, the standalone question and its `qa.Answer`."""
        self.add_turn(
            said,
            question,
            answer.text,
            [e.get("matched") or e["name"] for e in answer.analysis.entities],
            answer.filters.time_expression,
        )

    def add_turn(
        self, said: str, question: str, answer: str, entities: Iterable[str] = (), time: str | None = None
    ) -> None:
        """Remember a turn given as plain values (a client sending its history, as the HTTP API does)."""
        self.turns.append(
            {"said": said, "question": question, "answer": answer, "entities": _distinct(entities), "time": time}
        )

    def standalone(self, line: str) -> str:
        """`line` as a question that needs no history. A rewrite longer than the question cap
        (MAX_QUESTION) is not taken: the line itself is, and a line over the cap is not rewritten."""
        if not self.turns or len(line) > MAX_QUESTION:
            return line
        rewritten = self._rewrite(line)
        return rewritten if len(rewritten) <= MAX_QUESTION else line

    def _rewrite(self, line: str) -> str:
        if self.use_llm:
            from .. import llm

            history = "\n".join(f"User: {t['question']}\nAssistant: {t['answer'][:300]}" for t in self.turns)
            rewritten = llm.complete(
                self.settings,
                [
                    {"role": "system", "content": REWRITE_PROMPT},
                    {"role": "user", "content": f"{history}\nUser: {line}"},
                ],
            ).strip()
            return rewritten or line
        return carry_over(line, self.turns[-1])


def carry_over(line: str, previous: dict) -> str:
    """Without an LLM: an elliptical follow-up inherits the previous turn's entities and time."""
    from graphrag_cypher.retrieval.question.dates import parse_time_range

    words = len(line.split())
    if not (_ELLIPTICAL.search(line) or words <= 4):
        return line
    if not _ELLIPTICAL.search(line) and re.search(r"\s[A-Z][\w'’-]+", line):
        return line  # short, but it names what it asks about: "Who killed Jon Snow?"
    from ..text import fold, name_key

    said = fold(line)
    # one name once, however many entities it found (a story's lantern and the canonical one)
    extra = [name for name in _distinct(previous.get("entities", [])) if name_key(name) not in said]
    question = line.rstrip("?")
    if extra:
        question += " (" + ", ".join(extra) + ")"
    from datetime import date

    if previous.get("time") and parse_time_range(line, date.today()) is None:
        question += f" {previous['time']}"
    return question + ("?" if line.endswith("?") else "")


def _distinct(names) -> list[str]:
    """Names without repeats, compared accent- and case-folded and without a leading article
    ("the silver lantern" = "Silver Lantern"); the first spelling is kept."""
    from ..text import name_key

    seen: dict[str, str] = {}
    for name in names:
        if name and name.strip():
            seen.setdefault(name_key(name), " ".join(name.split()))
    return list(seen.values())
