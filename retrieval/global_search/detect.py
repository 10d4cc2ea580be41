"""Which questions are global: the family (topic or themes) and the term a question's wording asks
for, read with the pattern table of `patterns`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text import fold
from .patterns import (
    _ADJ,
    _COLLECTION,
    _IN,
    _OBJECT_TAIL,
    _TERM_CUT,
    _TERM_LEAD,
    _TERM_TAIL,
    _THEME_ANY,
    _ZH_SCOPE,
    _ZH_SCOPE_SAYS,
    _ZH_THEMES,
    _ZH_TOPIC,
    _scope,
    patterns,
)


@dataclass
class GlobalQuestion:
    """A question about the whole corpus: its family, the term of a topic, and why."""

    family: str  # "themes" or "topic"
    term: str | None
    reason: str


def classify(question: str, corpora: tuple[str, ...] | list[str] = ()) -> GlobalQuestion | None:
    """The global family a question asks for by its wording, or None (a local question).

    `corpora` are the corpus names of the graph: "What does isaw say about harbours?" names one."""
    text = " ".join((question or "").split())
    if not text:
        return None
    pats = patterns(tuple(sorted(corpora)))
    if re.search(r"[\u3400-\u9fff]", text):
        return _classify_chinese(text)
    for pattern in pats["topic"]:
        m = pattern.search(text)
        if m:
            term = _clean_term(m.group("term"), pats)
            if term:
                return GlobalQuestion("topic", term, f"topic: the question asks what the corpus says about {term!r}")
    scoped = any(p.search(text) for p in pats["scope"])
    for pattern in pats["themes"]:
        if pattern.search(text):
            return GlobalQuestion("themes", None, "themes: the question asks for the corpus's themes")
    if any(p.search(text) for p in pats["what_themes"]) and (scoped or not _names_something(text)):
        return GlobalQuestion("themes", None, "themes: the question asks which themes the corpus has")
    if any(p.search(text) for p in pats["overview"]):
        m = pats["overview_of"][0].search(text)
        obj = (m.group("object") or m.group("object2")) if m else None
        if obj:
            obj = _OBJECT_TAIL.sub("", obj.strip())
        if obj and not re.fullmatch(_scope(tuple(sorted(corpora))), obj, re.I):
            term = _clean_term(obj, pats)
            if term and len(term.split()) <= 4 and not re.match(r"(?:it|this|that|them|everything|all)\b", term, re.I):
                return GlobalQuestion("topic", term, f"topic: the question asks for an overview of {term!r}")
        if obj is None and not scoped and _names_something(text):
            return None  # "a summary judgment in the Smith case": not a corpus
        return GlobalQuestion("themes", None, "themes: the question asks for an overview or summary of the corpus")
    return None


def _names_something(text: str) -> bool:
    """A capitalised word after the first: the question names a thing (a local question)."""
    words = re.findall(r"[\w'’-]+", text)
    return any(w[:1].isupper() for w in words[1:])


def _clean_term(raw: str | None, pats: dict) -> str | None:
    if not raw:
        return None
    term = _TERM_CUT.sub("", raw.strip())
    scope = pats["scope"][0]
    # "harbours in the ISAW papers": the scope after the term is not part of it
    m = re.search(rf"\s+{_IN}\s+(?={scope.pattern})", term, re.I)
    if m and scope.search(term[m.end() :]):
        term = term[: m.start()]
    term = _TERM_TAIL.sub("", _TERM_LEAD.sub("", term.strip())).strip(" \"'“”‘’`,:")
    if not term or len(term.split()) > 6 or not re.search(r"\w", term):
        return None
    if re.fullmatch(rf"{_scope()}|it|them|this|that|these|those", term, re.I):
        return None
    return term


def _classify_chinese(text: str) -> GlobalQuestion | None:
    for pattern in _ZH_TOPIC:
        m = pattern.search(text)
        if m:
            term = re.sub(r"^(?:这些|這些|所有|那些)", "", m.group("term").strip(" “”\"'「」"))
            term = re.sub(rf"^.*?{_ZH_SCOPE}(?:中|里|裡)?(?:关于|關於|对|對)?", "", term) or term
            if term and len(term) <= 12:
                return GlobalQuestion("topic", term, f"topic: the question asks what the corpus says about {term!r}")
    if _ZH_THEMES.search(text) or _ZH_SCOPE_SAYS.search(text):
        return GlobalQuestion("themes", None, "themes: the question asks for the corpus's themes or a summary")
    return None


def forced(question: str, corpora: tuple[str, ...] | list[str], keywords: list[str]) -> GlobalQuestion:
    """`ask --mode global`: the family the wording asks for, else a topic when the question has
    one content word or name left besides its scope (else themes)."""
    found = classify(question, corpora)
    if found is not None:
        return GlobalQuestion(found.family, found.term, f"--mode global; {found.reason}")
    generic = re.compile(rf"^(?:{_COLLECTION}|{_THEME_ANY}|{_ADJ}|corpus|overview|summary|say|said|about)$", re.I)
    names = {fold(c) for c in corpora}
    left = [k for k in keywords if not generic.match(k) and fold(k) not in names]
    if len(left) == 1:
        return GlobalQuestion("topic", left[0], f"--mode global: a topic, the question's one content word {left[0]!r}")
    return GlobalQuestion("themes", None, "--mode global: themes (no single topic word in the question)")
