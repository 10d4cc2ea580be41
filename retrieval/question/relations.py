"""Relation phrases: whether a question asks how two things are related, and which two.

Routing (``route``)
===================
"relation" for "how are A and B related|connected|linked", "how is A related to B",
"how do A and B relate", "what connects|links A and|to|with B", "(the) relationship|
relation|link|connection between A and B" (anywhere), "what do A and B have in common",
and Chinese "A和B(之間)有什麼關係 / A与B的关系". Questions about what two did to each other
take it too: "what did A and B do to each other", "what happened between A and B", "how did
A treat B", "what did A do to B", "how did A and B get along", "were A and B friends", "what
is A's relationship to B", Chinese "A和B之間發生了什麼 / A對B做了什麼 / A和B互相…", Japanese
"AとBはお互いに…". In any language, "A <and> B" (and, és, und, et, y, e, i, a, en, och, …)
with a word for "each other" (egymás…, einander, l'un l'autre, el uno al otro, nawzajem,
navzájem, друг друга, …), for a relationship (viszony, kapcsolat, Beziehung, relación,
relação, związek, vztah, отношения, …) or "happened between" (mi történt … között, was
geschah zwischen, …) does, where A and B are written as names (capitalised, next to the
conjunction): "Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?".
Everything else is "search". The retrieval takes the route only when both names are known
entities (`relation.relation`); otherwise the question is searched. Entities are returned
as written, without surrounding quotes, leading articles (the/a/an), trailing punctuation
or a trailing time expression ("... in 2023").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...lexicon import words
from .date_rules import Date
from .dates import _find_time
from .keywords import _STOP

__all__ = ["Route", "route"]

_I = re.IGNORECASE


@dataclass(frozen=True)
class Route:
    kind: str  # "relation" or "search"
    a: str | None = None
    b: str | None = None


_ENT = r"(?P<a>.+?)"
_ENT_B = r"(?P<b>.+?)"
_EACH_OTHER = r"(?:each\s+other|one\s+another)\b"
_TREAT = (
    r"treat|treated|deal\s+with|dealt\s+with|behave\s+(?:to|towards?)|behaved\s+(?:to|towards?)|"
    r"get\s+(?:along|on)\s+with|got\s+(?:along|on)\s+with|feel\s+about|felt\s+about|think\s+of|thought\s+of|"
    r"regard|regarded|view|viewed|wrong|wronged|betray|betrayed|trick|tricked|help|helped"
)
_ROUTES = [
    re.compile(
        rf"^\s*how\s+(?:are|were|is|was)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        r"(?:related|connected|linked|associated|interrelated)\b",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:are|were|is|was)\s+{_ENT}\s+(?:related|connected|linked|associated)\s+"
        rf"(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(rf"^\s*how\s+(?:do|does|did)\s+{_ENT}\s+and\s+{_ENT_B}\s+(?:relate|connect)\b", _I),
    re.compile(rf"^\s*how\s+(?:do|does|did)\s+{_ENT}\s+(?:relate|connect)\s+(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$", _I),
    re.compile(
        rf"^\s*what\s+(?:connects|connected|links|linked|relates|related|ties|tied)\s+{_ENT}\s+"
        rf"(?:and|to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"\b(?:relationships?|relations?|links?|connections?|associations?|ties)\s+between\s+"
        rf"{_ENT}\s+and\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(rf"^\s*what\s+(?:do|did|does)\s+{_ENT}\s+and\s+{_ENT_B}\s+have\s+in\s+common\b", _I),
    re.compile(
        rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)?\s*(?:有|存在)?\s*"
        r"(?:什麼|什么|何|怎樣的|怎样的|哪些|甚麼)?\s*(?:樣的|样的)?\s*的?\s*"
        r"(?:關係|关系|關聯|关联|聯繫|联系)"
    ),
    # what two did to each other
    re.compile(
        rf"^\s*what\s+(?:did|do|does|have|had|has)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        rf"(?:do|done|did|say|said|give|given|owe|owed|mean|meant|promise|promised)\s+"
        rf"(?:to|for|with|about|against)?\s*{_EACH_OTHER}",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:(?:has|had)\s+)?(?:(?:is|was)\s+going\s+on|happened|happens|happen|went\s+on|goes\s+on|"
        rf"passed|occurred|took\s+place|came\s+to\s+pass)\s+between\s+{_ENT}\s+and\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:did|does|do|has|had|have)\s+{_ENT}\s+(?:do|done)\s+(?:to|for|against|with)\s+{_ENT_B}"
        r"\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:did|does|do|has|had|have|was|is|were)\s+{_ENT}\s+(?:{_TREAT})\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:did|does|do|have|had|were|are)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        rf"(?:{_TREAT}|get\s+(?:along|on)|got\s+(?:along|on)|interact(?:ed)?|meet|met|know|knew|"
        rf"come\s+to\s+know|become\s+(?:friends|enemies))\b",
        _I,
    ),
    re.compile(
        rf"^\s*(?:were|are|was|is|did|do|have|had)\s+{_ENT}\s+and\s+{_ENT_B}\s+(?:ever\s+)?"
        r"(?:friends|enemies|allies|rivals|foes|kin|relatives|married|lovers|partners|"
        r"(?:fight|fought|quarrel|quarrell?ed|meet|met|know|known|help|helped|betray|betrayed)\s+"
        rf"(?:{_EACH_OTHER}))\b",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:is|was|are|were)\s+{_ENT}(?:'s|’s|s'|s’)\s+(?:relationship|relation|connection|tie|"
        rf"link|bond)\s+(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"\b(?:relationship|relation|connection|bond)\s+of\s+{_ENT}\s+(?:to|with|and)\s+{_ENT_B}\s*[?.!]*\s*$", _I
    ),
    re.compile(
        rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)\s*(?:發生|发生|有過|有过)了?\s*"
        r"(?:什麼|什么|甚麼|哪些|何)"
    ),
    re.compile(rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)?\s*.{{0,8}}(?:互相|彼此|相互)"),
    re.compile(rf"^\s*{_ENT}\s*(?:對|对)\s*{_ENT_B}\s*(?:做|幹|干)了\s*(?:什麼|什么|甚麼|哪些)"),
    re.compile(rf"^\s*{_ENT}\s*(?:怎麼|怎么|如何|怎樣|怎样)\s*(?:對待|对待|對|对)\s*{_ENT_B}\s*[？?。]*\s*$"),
    re.compile(rf"^\s*{_ENT}\s*と\s*{_ENT_B}\s*(?:は|の|との|が)\s*.{{0,12}}?(?:お互い|互い|関係|間に何|あいだに何)"),
]

# The cross-language rule: "A <and> B" (A and B written as names) with a word of the family.
_AND_WORDS = words("question_and_words")
_MUTUAL_WORDS = re.compile(
    r"(?:\beach\s+other\b|\bone\s+another\b|\begymás|\beinander\b|\bgegenseitig|\bl['’]une?\s+(?:à\s+|de\s+|avec\s+)?"
    r"l['’]autre\b|\bles\s+uns\s+(?:aux|les|des)\s+autres\b|\bmutuel|\bel\s+uno\s+(?:al|del|con\s+el|contra\s+el)\s+"
    r"otro\b|\bmutua|\bum\s+(?:ao|do|com\s+o)\s+outro\b|\buno\s+(?:all['’]|dell['’]|con\s+l['’])altro\b|\ba\s+vicenda\b|"
    r"\belkaar\b|\bvarandra\b|\bhverandre\b|\btoisiaan\b|\bnawzajem\b|\bwzajemn|\bnavzájem\b|\bvzájem|\bvzájom|"
    r"\bunul\s+(?:pe|cu|altuia)|\bbirbir|\bдруг\s+(?:друга|другу|другом|о\s+друге|с\s+другом)|\bвзаимн|"
    # words for a relationship
    r"\bviszony|\bkapcsolat|\bbeziehung|\bverhältnis|\brelations?\b|\brelationship|\brapports?\b|\brelaci[óo]n|"
    r"\brela[çc](?:[ãa]o|[õo]es)\b|\brelazion|\brapport[oi]\b|\brelatie\b|\bverhouding|\bförhållande|\brelacj|\bzwiąz|"
    r"\bstosun[ek]|\bvztah|\brelați|\brelati[ei]|\bilişki|\bilişk|\bотношени|\bстосунк|\bвідносин)",
    _I,
)
_BETWEEN = re.compile(
    r"\b(?:között|zwischen|entre|tra|fra|tussen|mellan|mellom|między|mezi|medzi|între|arasında|между|між)\b", _I
)
_HAPPENED = re.compile(
    r"\b(?:történt|zajlott|geschah|geschehen|passiert|vorgefallen|pass[ée]|passou|pasó|pasado|ocurri[óo]|sucedi[óo]|"
    r"aconteceu|acontecido|successo|accaduto|gebeurd|hände|hendte|stało|wydarzyło|stalo|odehrálo|stalo\s+se|"
    r"întâmplat|oldu|yaşandı|произошло|случилось|сталося|відбулося)",
    _I,
)
_NAME_CONNECTORS = words("question_name_connectors")
_LEADING_ARTICLES = words("question_leading_articles")
_QUESTION_WORDS = words("question_interrogatives")
_WORD_AT = re.compile(r"[^\W\d_][\w'’.-]*|&")
_CLAUSE_END = re.compile(r"[,;:?!¿¡()\[\]\"“”«»]|[.](?=\s|$)")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", _I)
_QUOTES = "\"'“”‘’`«»「」『』"


def _clean_entity(text: str) -> str:
    text = text.strip().strip(_QUOTES + " ").rstrip("?!.,;:？！。，；：").strip().strip(_QUOTES + " ")
    # a trailing time expression is not part of the entity ("B in 2023")
    found = _find_time(text, Date(2000, 1, 1))
    if found is not None:
        start, end, rng = found
        if end == len(text) and start > 0 and not rng.expression.lower().startswith("of "):
            text = text[:start].rstrip(" ,")
    text = _ARTICLE.sub("", text, count=1)
    return text.strip().strip(_QUOTES + " ").rstrip("?!.,;:？！。，；：").strip()


def route(question: str) -> Route:
    """ "relation" with the two entity phrases for relation questions, else "search"."""
    for regex in _ROUTES:
        m = regex.search(question or "")
        if not m:
            continue
        a, b = _clean_entity(m.group("a")), _clean_entity(m.group("b"))
        if a and b and a.lower() != b.lower():
            return Route("relation", a, b)
    pair = _named_pair(question or "")
    if pair is not None:
        return Route("relation", *pair)
    return Route("search")


def _named_pair(question: str) -> tuple[str, str] | None:
    """The two names joined by "and" (in any of _AND_WORDS) in a question with a word for "each
    other", for a relationship, or "happened between": the cross-language relation rule. Each name is
    the capitalised run of words next to the conjunction (inner "of", "von", "de" … allowed), a
    question word or article at its edge left out; None unless both sides have one."""
    if not (_MUTUAL_WORDS.search(question) or (_BETWEEN.search(question) and _HAPPENED.search(question))):
        return None
    for clause in _CLAUSE_END.split(question):
        words = _WORD_AT.findall(clause)
        for i, word in enumerate(words):
            if word.lower() not in _AND_WORDS or i == 0 or i == len(words) - 1:
                continue
            a = _name_run(list(reversed(words[:i])), leftward=True)
            b = _name_run(words[i + 1 :], leftward=False)
            if a and b and a.lower() != b.lower():
                return a, b
    return None


def _name_run(words: list[str], leftward: bool) -> str:
    """The name that starts `words`, read outwards from the conjunction (leftward: the words before
    it, nearest first): capitalised words, a connector between two of them ("Mount of Greyhorn");
    after the conjunction an article or two first is skipped ("und der Riese"). A question word or
    function word at its outer edge is not part of it ("Did Reynold and …")."""
    i = 0
    if not leftward:
        while i < min(2, len(words)) and words[i].lower() in _LEADING_ARTICLES:
            i += 1
    run: list[str] = []
    while i < len(words):
        word = words[i].rstrip(".'’-")
        if word[:1].isupper():
            run.append(word)
        elif run and word.lower() in _NAME_CONNECTORS and i + 1 < len(words) and words[i + 1][:1].isupper():
            run.append(word)
        else:
            break
        i += 1
    if leftward:
        run.reverse()
    edge = 0 if leftward else -1
    while run and (run[edge].lower() in _QUESTION_WORDS or run[edge].lower() in _STOP):
        run.pop(edge)
    return " ".join(run)
