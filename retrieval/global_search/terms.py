"""A topic's term as the documents may write it (singular or plural, British or American
spelling: the lexicon's), and as the patterns and full-text query that find it."""

from __future__ import annotations

import re

from graphrag_cypher.lexicon import number_forms, possessives, singular

from ..base import lucene_phrase, lucene_query
from .quotes import _cjk


def forms(term: str) -> list[str]:
    """The term and its singular or plural ("witch" → witch, witches; "wolves" → wolves, wolf),
    each in British and American spelling ("harbours" → harbours, harbour, harbors, harbor), by the
    lexicon's English number; a name (capitalised) and Chinese stay as written. Of a phrase, the
    last word changes, and a possessive before it takes its two numbers: "kings' daughters" →
    kings' daughters, king's daughter, king's daughters, kings' daughter (the second form is the
    all-singular one, as the documents mostly write it)."""
    term = " ".join(term.replace("’", "'").split())
    if not term:
        return []
    words = term.split()
    last = words[-1]
    if not last.isascii() or not last.isalpha() or last[:1].isupper() or len(last) < 3:
        return [term]
    heads = [""]
    for word in words[:-1]:
        heads = [f"{h}{w} " for h in heads for w in possessives(word)]
    out = [term, heads[0] + singular(last)] + [h + w for w in number_forms(last) for h in heads]
    return list(dict.fromkeys(out))


def java_pattern(term_forms: list[str]) -> str:
    """The forms as one Java regular expression on word boundaries (Unicode word characters,
    any case), for apoc.text.regexGroups; Chinese forms match anywhere."""
    bodies = [_body(f) for f in term_forms]
    alternatives = "|".join(sorted(bodies, key=len, reverse=True))
    if any(_cjk(f) for f in term_forms):
        return f"(?iU)(?:{alternatives})"
    return rf"(?iU)(?<!\w)(?:{alternatives})(?!\w)"


def python_pattern(term_forms: list[str]) -> re.Pattern:
    bodies = [_body(f) for f in term_forms]
    alternatives = "|".join(sorted(bodies, key=len, reverse=True))
    if any(_cjk(f) for f in term_forms):
        return re.compile(f"(?:{alternatives})", re.I)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I)


def _body(form: str) -> str:
    """A form as a regular expression: any run of spaces between its words, either apostrophe."""
    return r"\s+".join("['’]".join(map(re.escape, re.split("['’]", w))) for w in form.split())


def _fulltext(term_forms: list[str]) -> str:
    """The forms as a full-text query, with their possessives: the standard analyzer keeps
    "king's" one token, so "king" alone would not find it."""
    parts = []
    for f in term_forms:
        words = f.split()
        if not words:
            continue
        if _cjk(f):
            parts.append(lucene_phrase([f]))
            continue
        for tail in ("", "'s", "’s") if not words[-1].lower().endswith("s") else ("",):
            phrase = words[:-1] + [words[-1] + tail]
            parts.append(lucene_phrase(phrase) if len(phrase) > 1 else lucene_query(phrase))
    # a form with no searchable word ("*", "the") adds nothing: a query of none is no query
    return " OR ".join(p for p in parts if p)
