"""The structured route's words: the question's tokens and their stems, phrases found in them,
and the nouns that name documents. Word lists, stems and English noun number are the lexicon's
(graphrag_cypher.lexicon)."""

from __future__ import annotations

import re

from graphrag_cypher import lexicon

from ...text import fold

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

_TOKEN = re.compile(rf"[{_CJK}]|['’]s\b|[^\W_{_CJK}]+|…")

_X = "\x00"  # the masked entity in a token list

_GAP = "…"  # in a phrase: up to four tokens ("被…杀" reads "被谁杀")

# nouns for documents, each with the document label it most likely means (when the graph has it)
_DOC_NOUNS = {
    "document": None,
    "doc": None,
    "page": "WikiPage",
    "passage": "Passage",
    "tale": "Story",
    "story": "Story",
    "fable": "Story",
    "article": "Article",
    "paper": "Article",
}

_ZH_DOC_NOUNS = {
    "文章": "Article",
    "论文": "Article",
    "論文": "Article",
    "故事": "Story",
    "童话": "Story",
    "童話": "Story",
    "文档": None,
    "文檔": None,
    "文件": None,
    "文献": None,
    "文獻": None,
    "资料": None,
    "資料": None,
    "新闻": "FeedEntry",
    "新聞": "FeedEntry",
    "报道": "FeedEntry",
    "報道": "FeedEntry",
    "报导": "FeedEntry",
    "報導": "FeedEntry",
}


def tokens(text: str) -> list[str]:
    """Folded tokens: words, each CJK character, "'s", and the masked entity."""
    out = []
    for piece in re.split(f"({_X})", fold(text)):
        if piece == _X:
            out.append(_X)
        else:
            out.extend(m.group(0).replace("’", "'") for m in _TOKEN.finditer(piece))
    return out


def _stems(words: list[str]) -> list[str]:
    return [w if w in (_X, _GAP) else lexicon.stem(w) for w in words]


def _find(phrase: list[str], question: list[str]) -> list[tuple[int, int]]:
    """Where the phrase's stems occur in the question's, as (start, end); a gap takes 0-4 tokens."""
    found = []
    for start in range(len(question)):
        end = _match_at(phrase, question, start)
        if end is not None:
            found.append((start, end))
    return found


def _match_at(phrase: list[str], question: list[str], at: int) -> int | None:
    if not phrase:
        return at
    head, rest = phrase[0], phrase[1:]
    if head == _GAP:
        for skip in range(0, 5):
            gap = question[at : at + skip]
            if at + skip > len(question) or (_X in gap and gap != [_X]):
                break  # the entity may fill a gap on its own: "在[X]工作"
            end = _match_at(rest, question, at + skip)
            if end is not None:
                return end
        return None
    if at < len(question) and question[at] == head and head != _X:
        return _match_at(rest, question, at + 1)
    return None


def mention_forms(term: str) -> list[str]:
    """The ways a document may write the term of a documents question, the term first: every
    inflection the lexicon knows (`lexicon.forms`: singular, plural, possessive, British/American
    spelling; of the last word, and of a possessive before it: "kings' sons" → king's son, kings'
    sons, ...). A name (its last word capitalised), Chinese and a term not of English letters are
    only themselves. Apostrophes are straight ones: the patterns take either."""
    term = " ".join(term.replace("’", "'").split())
    words = term.split()
    if not words:
        return []
    bare = re.sub(r"'s?$", "", words[-1])
    if not (bare.isascii() and bare.isalpha()) or bare[:1].isupper():
        return [term]
    return [term, *sorted(lexicon.forms(term) - {term}, key=lambda f: (len(f), f))]
