"""Simplified and Traditional Chinese: which script a question is in, and answers converted to it.

OpenCC does the converting (phrase tables, not character by character). A question is
Traditional when more of its characters change under t2s than under s2t (characters both
scripts share change under neither), and the same way round for Simplified; a question with
kana is Japanese and is never converted. Citations (`[T1]`, `[T1, W2]`) are left exactly as
written: only text outside square brackets is converted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

CONVERSIONS = ("s2t", "s2tw", "s2twp", "t2s")  # OpenCC configurations offered by --convert
CHOICES = ("auto", *CONVERSIONS, "none")
# patterns as strings, compiled (and cached by `re`) when first used: `graphrag ask` imports this
# module for --convert's choices, and compiling the Han class costs 2 ms
_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_KANA = r"[\u3040-\u30ff]"
# a streamed answer is converted a clause at a time, so phrases are converted whole
_CLAUSE_END = r"[。！？；：，、\n.!?;]"


@functools.lru_cache(maxsize=8)
def _opencc(config: str):
    import opencc

    return opencc.OpenCC(config)


def convert_text(text: str, config: str) -> str:
    """`text` converted with the OpenCC configuration `config`, square-bracketed spans untouched."""
    if not text or not re.search(_HAN, text):
        return text
    converter = _opencc(config)
    parts = re.split(r"(\[[^\[\]]*\])", text)
    return "".join(part if part.startswith("[") and part.endswith("]") else converter.convert(part) for part in parts)


def script_of(text: str) -> str | None:
    """ "traditional", "simplified", or None (no Chinese, Japanese, or nothing telling them apart)."""
    if not text or re.search(_KANA, text):
        return None
    han = "".join(re.findall(_HAN, text))
    if not han:
        return None
    traditional = sum(a != b for a, b in zip(han, _opencc("t2s").convert(han), strict=False))
    simplified = sum(a != b for a, b in zip(han, _opencc("s2t").convert(han), strict=False))
    if traditional > simplified:
        return "traditional"
    if simplified > traditional:
        return "simplified"
    return None


@dataclass
class Conversion:
    """What --convert asked for, what was applied to the answer (None: nothing), and why."""

    requested: str
    applied: str | None
    reason: str

    def to_dict(self) -> dict:
        return {"requested": self.requested, "applied": self.applied, "reason": self.reason}


def choose(question: str, requested: str = "auto") -> Conversion:
    """The conversion for an answer to `question` (`requested`: one of CHOICES)."""
    if requested not in CHOICES:
        raise ValueError(f"unknown conversion {requested!r}: use one of {', '.join(CHOICES)}")
    if requested == "none":
        return Conversion(requested, None, "--convert none")
    if requested != "auto":
        return Conversion(requested, requested, f"--convert {requested}")
    script = script_of(question)
    if script == "traditional":
        return Conversion(requested, "s2t", "the question is in Traditional Chinese")
    if script == "simplified":
        return Conversion(requested, "t2s", "the question is in Simplified Chinese")
    return Conversion(requested, None, "the question is not in Chinese, or its script cannot be told")


class StreamConverter:
    """Converts a stream of answer pieces a clause at a time and hands them on to `feed`; a
    citation is never split from its brackets (nothing is converted inside them)."""

    def __init__(self, config: str | None, feed: Callable[[str], None]):
        self.config, self._feed, self._held = config, feed, ""

    def feed(self, piece: str) -> None:
        if not self.config:
            self._feed(piece)
            return
        self._held += piece
        cut = _last_clause_end(self._held)
        if cut:
            ready, self._held = self._held[:cut], self._held[cut:]
            self._feed(convert_text(ready, self.config))

    def close(self) -> None:
        if self._held:
            held, self._held = self._held, ""
            self._feed(convert_text(held, self.config) if self.config else held)


def _last_clause_end(text: str) -> int:
    """Where the held text may be cut: after its last clause end outside an open bracket."""
    depth, cut = 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0 and re.match(_CLAUSE_END, ch):
            cut = i + 1
    return cut
