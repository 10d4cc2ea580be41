"""Quoting stored text: how well a sentence reads alone, and a long one cut around its match."""

from __future__ import annotations

import re

from ..answer import neutral


def _cjk(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff\uf900-\ufaff]", text))


_REFERENCE = re.compile(
    r"\(eds?\.?\)|\beds?\.\s|\bpp?\.\s*\d|https?://|\bdoi\b|\bvol\.\s*\d|\b(?:1[5-9]|20)\d\d[a-z]?\)?[.,:;]\s*\d"
    r"|^\W*(?:fig(?:ure)?|table|plate|map)\.?\s*\d|(?:;[^;]*){3,}|\bsubjects?:",
    re.I,
)


def _readable(sentence: str) -> int:
    """How well a sentence reads quoted alone: a fair length, and a start that is a start (a
    capital or an opening quote, not the middle of a dialogue the splitter cut, nor the tail of a
    sentence that began in the chunk before)."""
    text = sentence.strip()
    size = len(text)
    score = 1 if 40 <= size <= 350 else (0 if size >= 20 else -2)
    if text[:1].isupper() or text[:1] in "'\"‘“«(" or _cjk(text[:1]):
        score += 1
    elif text[:1].islower() or text[:1] in ",;:)-–—":
        score -= 2  # the tail of a sentence a chunk boundary cut ("rod, and smote the dragon")
    if _REFERENCE.search(text) or re.fullmatch(r"[“\"].*[”\"]\W*", text):  # a reference, a caption, a title
        score -= 3
    return score


def _excerpt(text: str, at: int, width: int = 360) -> str:
    """The sentence as one line; a long one cut to `width` characters around the match."""
    line = neutral(text)
    if len(line) <= width:
        return line
    at = min(at, len(line))
    start = max(0, at - width // 2)
    end = min(len(line), start + width)
    start = max(0, end - width)
    cut = line[start:end]
    return ("…" if start else "") + cut.strip() + ("…" if end < len(line) else "")
