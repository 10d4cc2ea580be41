"""The shape of a question: whether it counts, lists, ranks or asks who/which/what, and whether
it is about kinds of things the graph holds (then text-to-Cypher may try it)."""

from __future__ import annotations

import re

from graphrag_cypher import lexicon

from .graph_catalog import Catalog
from .words import _DOC_NOUNS, _ZH_DOC_NOUNS, tokens

_WH = re.compile(
    r"\b(?:who|whom|whose|what|which)\b|^\s*(?:name|list|show|give|tell|find)\b|[谁誰哪]|什么|什麼|多少|几|幾", re.I
)

_COUNT = re.compile(
    r"^\s*(?:in\s+|for\s+|of\s+)?(?:how\s+many|what\s+(?:is\s+the\s+)?number\s+of|(?:the\s+)?number\s+of|count\s+(?:the\s+)?)\b"
    r"|多少|[几幾](?:个|個|位|篇|名|人|部|本|次|家)",
    re.I,
)

_LIST = re.compile(
    r"^\s*(?:which|what)\s+\w+|^\s*(?:list|name|show|give|find|tell\s+me)\b|哪些|哪几|哪幾|列出|有哪",
    re.I,
)

_SUPERLATIVE = re.compile(
    r"\b(?:most|least|fewest|largest|smallest|biggest|top\s+\d+|more\s+than|fewer\s+than|at\s+least)\b|最多|最少",
    re.I,
)


def looks_structured(question: str, cat: Catalog | None = None) -> bool:
    """A question about counts, lists or rankings of things the graph holds ("How many houses
    …?", "Which house has the most members?"): text-to-Cypher may answer it when the templates
    do not. It must name a kind of node of the graph (an entity label, a document noun), so
    "What is the boiling point of tungsten?" is not one."""
    if not (_COUNT.search(question) or _LIST.search(question) or _SUPERLATIVE.search(question)):
        return False
    if cat is None:
        return True
    kinds = {lexicon.stem(label.lower()) for rel in cat.relations.values() for label in rel.sources | rel.targets}
    kinds |= {lexicon.stem(label.lower()) for label in cat.document_labels} | {lexicon.stem(n) for n in _DOC_NOUNS}
    words = {lexicon.stem(w) for w in tokens(question) if w.isascii()}
    han = any(noun in question for noun in _ZH_DOC_NOUNS)
    return bool(words & kinds) or han
