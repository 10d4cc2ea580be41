"""What the words around a matched name say: overlaps, not-a-place contexts, kind cues.

Both engines hand over the same thing for every accepted match of a name: where it starts
and ends (in the engine's own text: the fast engine reads the chunk, the reference engine
its NFD form, so positions only compare within one engine), the text as written, and a
window of the text before and after it (:func:`window`, NFC, at most ``WINDOW`` characters).
Everything here reads only those, so the two engines decide alike.

* :func:`longest_matches` — of overlapping names the longest wins ("Asia Minor", not
  "Asia"; "Deir el-Medina", not "el-Medina"); equal lengths: the earlier.
* :func:`not_a_place` — contexts where a place name names something else: a person's
  epithet ("Heron of Alexandria"), a papyrological or epigraphic siglum ("P. Cairo",
  "I. Ephesos"), an institution, a collection or a project ("American School at Athens",
  "Vienna, K 9323", "the Claros project"), a title in italics
  (*Libya Antiqua*, the game *Thebes*: the document's emphasis spans), or a name that is
  usually a person's ("Berenice", "Arsinoe") without a word that makes it a place.
* :func:`kind_cues` — the kind of place the words around ask for ("the province of",
  "the island of", "the port of", "modern").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from graphrag_cypher import lexicon
from graphrag_cypher.name_contexts import INSTITUTION_AFTER as _INSTITUTION_AFTER
from graphrag_cypher.name_contexts import INSTITUTION_BEFORE as _INSTITUTION_BEFORE
from graphrag_cypher.name_contexts import PERSON_OF as _PERSON_OF
from graphrag_cypher.name_contexts import PLACE_CUE as _PLACE_CUE
from graphrag_cypher.name_contexts import ROYAL_TITLE as _QUEEN
from graphrag_cypher.name_contexts import SIGLUM as _SIGLUM

WINDOW = 120  # characters of context kept on each side (NFC)
NEAR = 50  # characters before a name that the context rules read (an institution's: twice as many)
RAW_WINDOW = 4 * WINDOW  # characters taken from the text first: NFD text has more code points than NFC


def window(before: str, after: str) -> tuple[str, str]:
    """The context windows of a match from raw slices ending / starting at the match."""
    before = before[-WINDOW:] if before[-RAW_WINDOW:].isascii() else unicodedata.normalize("NFC", before)[-WINDOW:]
    after = after[:WINDOW] if after[:RAW_WINDOW].isascii() else unicodedata.normalize("NFC", after)[:WINDOW]
    return before, after


@dataclass(frozen=True)
class Occurrence:
    """One accepted match of a name in a chunk."""

    chunk: str
    key: str  # the folded name
    start: int  # in the engine's text of the chunk
    end: int
    surface: str
    before: str  # WINDOW characters before, NFC
    after: str


def longest_matches(found: list[Occurrence]) -> list[Occurrence]:
    """Of overlapping occurrences (one chunk), the longest names, then the earlier; in text order."""
    kept: list[Occurrence] = []
    taken: list[tuple[int, int]] = []
    for occ in sorted(found, key=lambda o: (-len(o.key), o.start, o.key)):
        if any(occ.start < e and s < occ.end for s, e in taken):
            continue
        kept.append(occ)
        taken.append((occ.start, occ.end))
    return sorted(kept, key=lambda o: (o.start, o.key))


# --- not-a-place contexts ---------------------------------------------------------------

# Words before "of <Place>" that keep it a place: "the Gulf of Corinth", "Bishop of Edessa".
PLACE_OF_WORDS = lexicon.words("place_of_words")

# "Ptolemy XII Auletes": a ruler's epithet after his numeral.
_COGNOMEN = re.compile(r"\b[A-Z][a-z]+\s+[IVX]+\s+$")
# Common nouns a monument's name starts with: written in lower case ("the sanctuary of
# Demeter at Cyrene") they name one of many, not the one Pleiades calls so.
GENERIC = lexicon.words("place_generic")
# A collection's inventory number after its city: "Vienna, K 9323", "Berlin, P. 13534" (not "Rome, AD 64").
_SHELFMARK = re.compile(r"^,\s*(?!(?:AD|BC|BCE|CE)\b)[A-Z]{1,3}\.?\s?[0-9]")
_SPACES = re.compile(r"\s+")
_LINK_WORDS = lexicon.words("place_link_words")


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text)


def in_emphasis(occ: Occurrence, spans: Sequence[str]) -> bool:
    """The occurrence lies inside one of the document's italic spans (a title, as written there)."""
    before, after = _squash(occ.before), _squash(occ.after)
    surface = _squash(occ.surface)
    for span in spans:
        span = _squash(span)
        if len(span) > WINDOW or span.strip() == surface:
            # The bare name in italics is as often a ship, a term or the place itself: only
            # a longer title says that the name is part of one.
            continue
        at = span.find(surface)
        while at >= 0:
            if before.endswith(span[:at]) and after.startswith(span[at + len(surface) :]):
                return True
            at = span.find(surface, at + 1)
    return False


def not_a_place(
    occ: Occurrence,
    *,
    is_place=lambda word: False,
    person_names: frozenset[str] = frozenset(),
    emphasis: Sequence[str] = (),
) -> str | None:
    """Why this occurrence is not a place mention (a rule name), or None.

    `is_place(folded word)`: whether a word is a place's name (so "Antioch of Pisidia" keeps Pisidia);
    `person_names`: folded names usually meant as people; `emphasis`: the italic spans of the
    document that contain this name."""
    before, after = occ.before[-NEAR:], occ.after
    # The patterns are anchored at the name; a look at the last word first spares most searches.
    last = before.rstrip()[-3:]
    if last[-1:] == "." and _SIGLUM.search(before):
        return "siglum"
    if (last[-2:] in _LINK_WORDS and _INSTITUTION_BEFORE.search(occ.before[-2 * NEAR :])) or (
        (after[:1].isspace() or after[:1] in "'’") and _INSTITUTION_AFTER.match(after)
    ):
        return "institution"
    if after[:1] == "," and _SHELFMARK.match(after):
        return "institution"  # the collection, not the city
    person = _PERSON_OF.search(before) if last == " of" else None
    if person:
        word = person.group(1)
        if word.lower() not in PLACE_OF_WORDS and not word.isupper() and not is_place(word.lower()):
            return "person-epithet"
    if last[-1:] in ("I", "V", "X") and _COGNOMEN.search(before):
        return "person-epithet"
    if occ.surface[:1].islower() and occ.surface.split(" ", 1)[0] in GENERIC:
        return "common-noun"  # "the sanctuary of Demeter" at some other place than the one Pleiades names so
    if occ.key in person_names and (_QUEEN.search(before) or not _PLACE_CUE.search(before)):
        return "person-name"
    if emphasis and in_emphasis(occ, emphasis):
        return "title"
    return None


# A name the document sets in italics on its own is a title there when it is also called a
# game, a book or a film, or dated like one: "a game like Thebes", "played Thebes (2007)".
_TITLE_BEFORE = re.compile(
    r"\b(?:game|games|played|playing|novel|film|movie|book|journal|series|magazine)"
    r"(?:\s+(?:like|called|named|titled|entitled))?\s+$",
    re.I,
)
_TITLE_AFTER = re.compile(
    r"^\s*\((?:[^()]{0,30}?\b)?(?:1[6-9]|20)\d\d\b|^\s+(?:is|was)\s+(?:only\s+)?(?:a|one)\s+"
    r"(?:\w+\s+)?(?:game|novel|film|book)\b",
    re.I,
)


def title_cue(occ: Occurrence) -> bool:
    """The words around call the name a game, book or film, or date it like a title."""
    return bool(_TITLE_BEFORE.search(occ.before[-NEAR:]) or _TITLE_AFTER.match(occ.after))


# --- kind cues --------------------------------------------------------------------------

KINDS = ("province", "region", "island", "port", "settlement", "river", "mountain", "diocese", "sanctuary")
_CUES_BEFORE = [
    (
        "province",
        re.compile(r"\b(?:province|provinces|provincia|proconsul|governor|conventus)\s+(?:of\s+)?(?:the\s+)?$", re.I),
    ),
    ("diocese", re.compile(r"\bdiocese\s+of\s+$", re.I)),
    ("island", re.compile(r"\b(?:island|isle)\s+of\s+$", re.I)),
    ("island", re.compile(r"\b(?:on|off)\s+$")),  # "struck on Cyprus", "off Rhodes"
    ("port", re.compile(r"\b(?:port|harbou?r|anchorage)\s+(?:town\s+|city\s+)?(?:of|at)\s+$", re.I)),
    ("settlement", re.compile(r"\b(?:city|town|village|polis|colony|site)\s+of\s+$", re.I)),
    ("region", re.compile(r"\b(?:region|land|territory|country|kingdom|area)\s+of\s+$", re.I)),
    ("river", re.compile(r"\briver\s+$", re.I)),
    ("mountain", re.compile(r"\b(?:Mount|Mt\.?|mountain)\s+$")),
    ("modern", re.compile(r"\b(?:modern|today'?s?|present-day|contemporary)\s+(?:-day\s+)?$", re.I)),
    (
        "ancient",
        re.compile(
            r"\b(?:ancient|classical|archaic|hellenistic|late antique|byzantine|ptolemaic|pharaonic"
            r"|roman|greek)\s+$",
            re.I,
        ),
    ),
]
_CUES_AFTER = [
    ("island", re.compile(r"^\s+(?:island|isl\.)", re.I)),
    ("river", re.compile(r"^\s+(?:river|valley)\b", re.I)),
    ("port", re.compile(r"^\s+(?:harbou?r|port)\b", re.I)),
    ("province", re.compile(r"^\s+(?:province|provincia)\b", re.I)),
    ("modern", re.compile(r"^\s*\(\s*modern\b|^,\s*(?:modern|today)\b", re.I)),
]


_QUALIFIER = re.compile(r"^,?\s+(?:in|of|at)\s+([A-Z][\w-]+)|^\s+\(([A-Z][\w-]+)\)")
# "Pisidian Antioch", "Cilician Seleucia": the region's adjective (its name less -ia, plus -ian) before the name.
_ADJECTIVE = re.compile(r"(?:^|[^\w-])([A-Z][a-z]+)ian\s+$")


def qualifier(occ: Occurrence) -> str | None:
    """The region a name is qualified with: "Antioch in Pisidia", "Edessa (Macedonia)", "Pisidian Antioch"."""
    found = _QUALIFIER.match(occ.after)
    if found:
        return found.group(1) or found.group(2)
    adjective = _ADJECTIVE.search(occ.before[-NEAR:])
    return adjective.group(1) + "ia" if adjective else None


def kind_cues(occ: Occurrence) -> set[str]:
    """The kinds of place the words around ask for (see KINDS, plus "modern" and "ancient")."""
    before = occ.before[-NEAR:]
    cues = {kind for kind, pattern in _CUES_BEFORE if pattern.search(before)}
    cues |= {kind for kind, pattern in _CUES_AFTER if pattern.search(occ.after)}
    return cues
