"""The documents a global question is about: its corpus, and the label its noun means."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_cypher.lexicon import plural, singular

from ..base import Filters
from .patterns import corpus_regex


@dataclass
class Scope:
    noun: str  # how the answer calls the documents ("tales", "documents")
    corpus: str | None
    labels: list[str] | None
    exclude: list[str]
    date_from: str | None = None
    date_to: str | None = None
    about: list[str] | None = None

    def params(self) -> dict:
        return {
            "corpus": self.corpus,
            "labels": self.labels,
            "exclude": self.exclude,
            "from": self.date_from,
            "to": self.date_to,
        }

    def to_dict(self) -> dict:
        return {"noun": self.noun, "corpus": self.corpus, "labels": self.labels}


def scope_of(question: str, cat, filters: Filters) -> Scope:
    """The documents a global question is about: a corpus the question names (else --corpus),
    and the label its noun means ("the tales" → Story, when the graph has stories)."""
    from .. import structured as structure

    corpus = None
    for name in sorted(cat.corpora, key=len):  # the longest name the question holds wins
        if name.strip() and re.search(rf"(?<![\w]){corpus_regex(name)}(?![\w])", question, re.I):
            corpus = name
    corpus = corpus or filters.corpus
    noun, label = "documents", None
    m = re.search(
        r"\b(documents?|docs|pages?|passages?|tales?|stories|story|fables?|articles?|papers?|chapters?)\b",
        question,
        re.I,
    )
    zh = structure._ZH_DOC_NOUN.search(question)
    if m:
        noun = plural(m.group(1).lower())
        label = structure._DOC_NOUNS.get(singular(noun))
    elif zh:
        noun, label = zh.group(0), structure._ZH_DOC_NOUNS[zh.group(0)]
    exclude = list(structure._NOT_ARTICLES) if label == "Article" else list(structure._NOT_DOCUMENTS)
    if label == "Article" or (label is not None and label not in cat.document_labels):
        label = None
    return Scope(
        noun, corpus, [label] if label else None, exclude, filters.date_from, filters.date_to, filters.about or None
    )
