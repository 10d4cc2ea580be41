"""Name normalisation shared by extraction and resolution."""

from __future__ import annotations

import re
import unicodedata

_JOINERS = re.compile(r"[\-‐‑‒–—'’`´]")
_PUNCT = re.compile(r"[^\w\s]|_")


def norm_name(name: str) -> str:
    """Case-, accent- and punctuation-folded: "Dawn-Fang" and "dawnfang", "Zoë" and "zoe" meet."""
    text = unicodedata.normalize("NFKD", str(name or ""))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = _JOINERS.sub("", text)
    text = _PUNCT.sub(" ", text)
    return " ".join(text.split())
