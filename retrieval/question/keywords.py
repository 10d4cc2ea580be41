"""Search keywords: a question's content words for full-text search, without stop and question words."""

from __future__ import annotations

import re

from ...lexicon import stop_words
from .language import _CJK

__all__ = ["keywords"]

_CJK_RUN = re.compile(rf"[{_CJK}]+")

# the question stop words: English, with small German, French and Spanish lists
_STOP = stop_words("en") | stop_words("de") | stop_words("fr") | stop_words("es")

# longest first, so that a run is cut at "為什麼" before "什麼"
_CN_STOP = sorted(stop_words("zh"), key=lambda word: (-len(word), word))
_CN_SPLIT = re.compile("|".join(map(re.escape, _CN_STOP)))
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_](?:[\w'’.\-]*[^\W_])?)|(?P<end>[.!?](?=\s|$))")


def keywords(question: str, max_terms: int = 12) -> list[str]:
    """Content words for full-text search, in order, de-duplicated (case-insensitively).

    Stop words (English plus small German/French/Spanish lists) and question words are
    dropped, as are tokens shorter than 2 characters. Words that look like names keep
    their case (capitalised and not a sentence's first word, or with an inner capital
    such as "NASA"/"iPhone"); others are lowercased. A trailing possessive 's is dropped.
    Multiword names are not joined: "Ada Lovelace" gives "Ada", "Lovelace".
    Chinese runs are cut at common function words and kept when 2+ characters long.
    """
    if not question or max_terms <= 0:
        return []
    spaced = _CJK_RUN.sub(lambda m: f" {m.group(0)} ", question)
    out: list[str] = []
    seen: set[str] = set()
    sentence_start = True
    for m in _TOKEN.finditer(spaced):
        if m.group("end"):
            sentence_start = True
            continue
        is_first, sentence_start = sentence_start, False
        if m.group("cjk"):
            terms = [chunk for chunk in _CN_SPLIT.split(m.group("cjk")) if len(chunk) >= 2]
        else:
            token = re.sub(r"['’]s$", "", m.group("word")).strip(".-'’")
            lower = token.lower()
            if len(token) < 2 or lower in _STOP or lower.replace("’", "'") in _STOP:
                continue
            inner_cap = any(ch.isupper() for ch in token[1:])
            terms = [token if inner_cap or (token[:1].isupper() and not is_first) else lower]
        for term in terms:
            if term.lower() not in seen:
                seen.add(term.lower())
                out.append(term)
    return out[:max_terms]
