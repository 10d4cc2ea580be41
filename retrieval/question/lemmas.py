"""Lemmas of a question's words and of a relation's name ("taught" and TAUGHT_BY both read
"teach", "born" reads "bear"), by spaCy's English lemmatizer: the tagger and lemmatizer of the
pipeline `extract --extractor ner` uses (kg/ner-pipeline.txt), loaded once, on first use, with
everything else switched off. Where spaCy or its pipeline is not installed, the Snowball stem
stands in (lexicon.stem), which reads "taught" and "teach" as two words."""

from __future__ import annotations

import threading
from functools import lru_cache

from graphrag_cypher import lexicon

from ...config import NER_DEFAULT_MODEL, NER_PINNED_FALLBACK

_lock = threading.Lock()
_state: dict = {}


def _pipeline():
    """The tagger + lemmatizer pipeline, or None where it cannot be loaded (then stems are used)."""
    with _lock:
        if "nlp" not in _state:
            _state["nlp"] = None
            try:
                import spacy
            except ImportError:
                return None
            for name in (NER_DEFAULT_MODEL, NER_PINNED_FALLBACK):
                try:
                    nlp = spacy.load(name, exclude=["ner", "parser", "senter"])
                except (OSError, ValueError):
                    continue
                _state["nlp"] = nlp
                break
        return _state["nlp"]


@lru_cache(maxsize=4096)
def lemmas(text: str) -> tuple[str, ...]:
    """The lower-case lemmas of the words of `text` (punctuation left out), each with its stem
    where the two differ, so that a word matches either way."""
    nlp = _pipeline()
    words: list[str] = []
    if nlp is None:
        return tuple(lexicon.stem(w.lower()) for w in text.split() if any(c.isalnum() for c in w))
    with _lock:  # one pipeline, shared by request threads
        doc = nlp(text)
    for token in doc:
        if token.is_punct or token.is_space:
            continue
        words.append((token.lemma_ or token.text).lower())
    return tuple(words)


def lemma_set(text: str) -> frozenset[str]:
    """The lemmas of `text` and their stems: what a word of it may match."""
    out: set[str] = set()
    for lemma in lemmas(text):
        out.add(lemma)
        out.add(lexicon.stem(lemma))
    return frozenset(out)


def available() -> bool:
    """Whether spaCy's lemmatizer is loaded (else stems stand in)."""
    return _pipeline() is not None


@lru_cache(maxsize=4096)
def nouns(text: str) -> frozenset[str] | None:
    """The lower-case words of `text` spaCy's tagger reads as nouns, proper nouns or numbers
    (what a question asks about, where its verbs are often worded otherwise in the answer);
    None where spaCy is not loaded."""
    nlp = _pipeline()
    if nlp is None:
        return None
    with _lock:
        doc = nlp(text)
    return frozenset(t.text.lower() for t in doc if t.pos_ in {"NOUN", "PROPN", "NUM"})
