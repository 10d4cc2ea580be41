"""Which entities the evidence graph draws and an answer names: those NER is sure enough of.

NER writes a `confidence` on the entities it creates (its type's measured precision); a gazetteer
record has none and counts as 1.0. An entity below the cut (`Settings.entity_draw_min_confidence`,
GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE, default 0.8) stays in the graph, and chunks still link to it,
but the evidence graph does not draw it and the answer's NODES do not name it, unless the question
names it (one of its entities, or `--about`) or asks for its type ("which organisations ...").
The cut itself is in Cypher (`$minConfidence`, `$askedIds`, `$askedTypes`).
"""

from __future__ import annotations

import re
from functools import cache

from graphrag_cypher import lexicon

from ..config import ENTITY_DRAW_MIN_CONFIDENCE

# a plural asks for a type ("organisations"); a singular only after a question word ("which book")
_ASKING = r"(?:which|what|any|list|name|every|each)\s+(?:\w+\s+)?"


@cache
def _type_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    patterns = []
    for row in lexicon.rows("entity_type_words"):
        type_name, words = row[0].capitalize(), row[1:]
        singulars = sorted({s for w in words for s in lexicon.spellings(w)} | set(words))
        plurals = sorted({p for s in singulars for p in lexicon.forms(s)} - set(singulars))
        alternatives = [re.escape(p) for p in plurals] + [_ASKING + re.escape(s) for s in singulars]
        patterns.append((type_name, re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)))
    return tuple(patterns)


def asked_types(question: str) -> list[str]:
    """The entity types the question asks for by name ("Which organisations funded it?": Organization)."""
    return [type_name for type_name, pattern in _type_patterns() if pattern.search(question or "")]


def draw_params(settings, question: str = "", asked_ids=()) -> dict:
    """The Cypher parameters of the cut: the least confidence drawn, and the entities (ids) and
    types the question asks for, drawn whatever their confidence."""
    cut = getattr(settings, "entity_draw_min_confidence", ENTITY_DRAW_MIN_CONFIDENCE)
    return {
        "minConfidence": float(cut),
        "askedIds": sorted({i for i in asked_ids if isinstance(i, str)}),
        "askedTypes": asked_types(question),
    }


def asked_fields(result: dict) -> dict:
    """What the cut reads of an answer (`ask --json`'s dict): its question, the ids of its entities
    and of its `--about` family; what a remembered answer keeps for drawing it later."""
    return {
        "question": result.get("question") or "",
        "entities": [{"id": i} for i in answer_asks(result)],
    }


def answer_asks(result: dict) -> list[str]:
    """The entity ids an answer's question named: its entities and its `--about` family."""
    about = (result.get("filters") or {}).get("about") or {}
    return [e.get("id") for e in result.get("entities") or [] if isinstance(e, dict)] + list(about.get("ids") or [])


def shown_for(asked) -> dict:
    """The cut's parameters for a question on its way through the routes (routes.base.Asked)."""
    analysis = asked.analysis
    named = [e.get("id") for e in analysis.entities] + list(analysis.filters.about or [])
    return draw_params(asked.settings, asked.question, named)
