"""Find known names in text: accent-folded, case-insensitive, on word boundaries.

One rule, written down once and implemented twice — by :class:`Matcher` (an Aho–Corasick
automaton over folded text, the fast engine) and by :func:`java_pattern` +
:func:`fulltext_query` (a full-text shortlist and a Java regex run inside Neo4j, the
reference engine). A name matches the text at ``[start, end)`` when

* the folded text there equals the folded name (:func:`fold`: canonical decomposition,
  combining marks dropped, lower case; so "Alexandría" ~ "alexandria");
* the characters just outside are not word characters (letters, digits, combining marks,
  "_"), and the match does not follow a letter joined to it by ``. : ' ’ ·`` — "l'Égypte"
  is one word to a reader and to Lucene's tokenizer alike;
* the matched text contains an upper-case letter ("Rome", not "rome") and is not a short
  all-capitals acronym ("URI", "LOD": at most 4 characters, no lower-case letter) when
  ``require_capital`` is on;
* it is not followed by a tail that makes it something else, when ``skip_tails`` is on:
  a publisher's ``London: Routledge``, ``Oxford, UK: Blackwell`` or ``Paris 1998`` (a modern
  year, not "2000 BC"),
  or a ruler's numeral, ``Arsinoe II``, ``Constantine VII``.

Names shorter than ``min_length`` (folded) and stop-listed names are never looked for.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from graphrag_cypher import lexicon
from graphrag_cypher.name_contexts import capitalised
from graphrag_cypher.text import FOLDS, CharTable, fold, fold_char, is_mark, is_word_char

# Lucene's English stop words: the `standard-folding` analyzer drops them from the
# full-text index, so the reference engine could never shortlist a name that is one.
LUCENE_STOP_WORDS = lexicon.words("lucene_stop_words")

JOINERS = frozenset(".:'\u2018\u2019\u00b7\u0387\u2024")  # join two letters into one token (UAX #29)
_SPACE = " \\t\\n\\x0B\\f\\r\\u00A0"  # the same set in Java and Python regex syntax
# After a name: "London: Routledge" or "Paris 1998" / "York, 2004" (a modern year, not "2000 BC"),
# with the country between ("Cyrene, Libya: Final Reports", "Oxford, UK: Blackwell").
_COUNTRY = rf"(?:,[{_SPACE}]*[A-Z][A-Za-z]+[{_SPACE}]*)?"
_PUBLISHER_TAIL_PY = re.compile(
    rf"[{_SPACE}]*{_COUNTRY}(?::[{_SPACE}]*(\w)|,?[{_SPACE}]*(?:19|20)[0-9][0-9](?![0-9])(?![{_SPACE}]*(?:BCE?|B\.C\.)))"
)
_REGNAL_PY = re.compile(r" +[IVX]+")
_WORD_JAVA = r"[\p{L}\p{N}\p{M}_]"
_TAILS_JAVA = (
    rf"(?![{_SPACE}]*{_COUNTRY}(?::[{_SPACE}]*\p{{Lu}}|,?[{_SPACE}]*(?:19|20)[0-9][0-9](?![0-9])(?![{_SPACE}]*(?:BCE?|B\.C\.))))"
    rf"(?! +[IVX]+(?!{_WORD_JAVA}))"
)
_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


BOUNDARY = "\x00"
IRREGULAR = "\x01"
# The same folds with every character that is not a word character replaced by BOUNDARY:
# the text the automaton reads, so that it only reports names that start and end on word
# boundaries (a text has thousands of names inside words — "Rome" in "chromosome" — for
# every one that stands alone). A character and the characters it folds to are word
# characters alike, and a folded character folds to itself (a unit test checks every code
# point). A character that does not fold to exactly one (a combining mark, "ǅ" → "dž")
# becomes IRREGULAR: text with one has no position-for-position bounded form.
_BOUNDED = CharTable(
    lambda ch: IRREGULAR if len(fold_char(ch)) != 1 else BOUNDARY if not is_word_char(fold_char(ch)) else fold_char(ch)
)


def fold_with_offsets(text: str) -> tuple[str, list[int] | None]:
    """Folded text and, per folded character, the index of the original character it came from
    (None when folding kept every position: ASCII text, or text whose every character folds
    to exactly one character, like most accented text in NFC)."""
    if text.isascii():
        return text.lower(), None
    if IRREGULAR not in text.translate(_BOUNDED):
        return text.translate(FOLDS), None
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        folded = fold_char(ch)
        if folded:
            chars.append(folded)
            origin.extend([i] * len(folded))
    return "".join(chars), origin


_NON_ASCII = re.compile(r"([^\x00-\x7f]+)")


def _bounded_text(text: str) -> str:
    """``text.translate(_BOUNDED)``, sooner: `str.translate` is fast on ASCII text only, so the
    ASCII stretches between non-ASCII characters are translated on their own."""
    if text.isascii():
        return text.translate(_BOUNDED)
    return "".join([part.translate(_BOUNDED) for part in _NON_ASCII.split(text)])


def bounded(folded: str) -> str:
    """Folded text (each character folds to itself) with each character that is not a word
    character replaced by BOUNDARY."""
    return folded.translate(_BOUNDED)


def load_stoplist(
    paths: Iterable[str | Path] = (), default: bool = True, shipped: str = "stoplist.txt"
) -> frozenset[str]:
    """Folded names, one a line: the shipped list (`stoplist.txt` unless `shipped` says another;
    none when default=False) plus files."""
    lines: list[str] = []
    if default:
        lines += resources.files("graphrag_cypher.linkers").joinpath(shipped).read_text("utf-8").splitlines()
    for path in paths:
        lines += Path(path).read_text("utf-8").splitlines()
    return frozenset(fold(line.split("#", 1)[0].strip()) for line in lines if line.split("#", 1)[0].strip())


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    surface: str  # the text as written (NFC)
    key: str  # the folded name
    targets: tuple


@dataclass
class NameTable:
    """Folded name → targets, after the length and stop-list rules; what both engines look for."""

    targets: dict[str, tuple] = field(default_factory=dict)
    too_short: int = 0
    stoplisted: int = 0
    unsearchable: int = 0  # no letters or digits a full-text index could shortlist on


def build_name_table(
    names: Mapping[str, Iterable[Any]], *, min_length: int = 3, stoplist: frozenset[str] = frozenset()
) -> NameTable:
    table = NameTable()
    merged: dict[str, dict[Any, None]] = {}
    for name, targets in names.items():
        key = fold(unicodedata.normalize("NFC", name)).strip()
        if not key:
            continue
        merged.setdefault(key, {}).update(dict.fromkeys(targets))
    for key in sorted(merged):
        if len(key) < min_length:
            table.too_short += 1
        elif key in stoplist or key in LUCENE_STOP_WORDS:
            table.stoplisted += 1
        elif not (key.isascii() and key.isalnum() or shortlist_tokens(key)):  # one plain word: searchable
            table.unsearchable += 1
        else:
            table.targets[key] = tuple(merged[key])
    return table


class Matcher:
    """All occurrences of known names in a text, by one Aho–Corasick pass.

    ``Matcher({"Babylon": ["pleiades:893951"]}).find("At Babylon's gate")`` →
    ``[Match(3, 10, "Babylon", "babylon", ("pleiades:893951",))]``.
    """

    def __init__(
        self,
        names: Mapping[str, Iterable[Any]] | NameTable,
        *,
        min_length: int = 3,
        stoplist: frozenset[str] = frozenset(),
        require_capital: bool = True,
        skip_tails: bool = True,
        saved: dict | None = None,
    ):
        import ahocorasick

        self.table = (
            names if isinstance(names, NameTable) else build_name_table(names, min_length=min_length, stoplist=stoplist)
        )
        self.require_capital, self.skip_tails = require_capital, skip_tails
        self._empty = not self.table.targets
        if saved is not None:  # what save() gave for this very table: nothing to build
            self._forms = saved["forms"]
            self._automaton = ahocorasick.Automaton(*saved["automaton"])
            fits = len(self._automaton) == len(self._forms) and (
                self._empty or (bool(self._forms) and self._automaton.kind == ahocorasick.AHOCORASICK)
            )
            if not fits:
                raise ValueError("the saved automaton does not fit its names")
            return
        # Each name between two BOUNDARY characters, read in bounded text: names that fold to
        # the same bounded form ("tell el-amarna", "tell el amarna") share an entry.
        by_form: dict[str, list[str]] = {}
        for key in self.table.targets:
            by_form.setdefault(BOUNDARY + key.translate(_BOUNDED) + BOUNDARY, []).append(key)
        self._forms = []  # (length, names, exact) per form, in the automaton by position
        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for form, keys in by_form.items():
            exact = len(keys) == 1 and BOUNDARY not in form[1:-1]  # the form says which name it is
            self._automaton.add_word(form, len(self._forms))
            self._forms.append((len(form) - 2, tuple(keys), exact))
        if not self._empty:
            self._automaton.make_automaton()

    def save(self) -> dict:
        """The built automaton as plain data (lists, bytes, numbers: `marshal` can store it);
        ``Matcher(table, saved=matcher.save())`` is the same matcher, without building it again.
        It holds pyahocorasick's own pickling arguments, so it fits that build of pyahocorasick."""
        return {"forms": self._forms, "automaton": list(self._automaton.__reduce__()[1])}

    def __len__(self) -> int:
        return len(self.table.targets)

    def find(self, text: str) -> list[Match]:
        if self._empty or not text:
            return []
        marked = _bounded_text(text)
        if IRREGULAR not in marked:
            # One folded character per character: positions in the text are positions in
            # the bounded text, less the BOUNDARY put in front.
            return self._found(text, BOUNDARY + marked + BOUNDARY, None)
        folded, origin = fold_with_offsets(text)
        assert origin is not None  # an IRREGULAR character is one that does not fold to exactly one
        return self._found(text, BOUNDARY + bounded(folded) + BOUNDARY, (folded, origin))

    def _found(self, text: str, marked: str, offsets: tuple[str, list[int]] | None) -> list[Match]:
        found = []
        forms = self._forms
        for last, form in self._automaton.iter(marked):
            length, keys, exact = forms[form]
            first = last - length - 1  # in the folded text: the marked text has BOUNDARY in front
            if offsets is None:
                start, end = first, first + length
                if exact:
                    key = keys[0]
                else:
                    folded = text[start:end].translate(FOLDS)
                    key = next((k for k in keys if k == folded), None)
            else:
                folded, origin = offsets
                key = next((k for k in keys if folded.startswith(k, first)), None)
                start = origin[first]
                if first > 0 and origin[first - 1] == start:
                    continue  # starts inside one character's expansion
                end = origin[first + length - 1] + 1
                if first + length < len(origin) and origin[first + length] == end - 1:
                    continue  # ends inside one
                while end < len(text) and is_mark(text[end]):
                    end += 1
            if key is None or not self._accept(text, start, end):
                continue
            surface = unicodedata.normalize("NFC", text[start:end])
            found.append(Match(start, end, surface, key, self.table.targets[key]))
        return found

    def _accept(self, text: str, start: int, end: int) -> bool:
        if start > 0:
            before = text[start - 1]
            if is_word_char(before):
                return False
            if before in JOINERS and start > 1 and (text[start - 2].isalpha() or is_mark(text[start - 2])):
                return False
        if end < len(text) and is_word_char(text[end]):
            return False
        if self.require_capital and not capitalised(text[start:end]):
            return False
        if self.skip_tails:
            tail = _PUBLISHER_TAIL_PY.match(text, end)
            if tail and (tail.group(1) is None or unicodedata.category(tail.group(1)) == "Lu"):
                return False
            regnal = _REGNAL_PY.match(text, end)
            if regnal and (regnal.end() == len(text) or not is_word_char(text[regnal.end()])):
                return False
        return True


# --- the same rule for the reference engine (full-text shortlist + Java regex in Neo4j) ---


def shortlist_tokens(key: str) -> list[str]:
    """Lucene wildcard terms that every chunk containing the folded name must match.

    Each word of the name becomes a prefix query (``babylon*`` also finds "Babylon's",
    which the tokenizer keeps as one token). Characters the index folds differently
    from us become ``*``; Lucene stop words, which the index never holds, are left out.
    """
    terms = []
    # A joiner keeps two letters in one token ("ba'albek"), nothing else ("vii.8" is two).
    key = "".join(
        ch if ch not in JOINERS or (0 < i < len(key) - 1 and key[i - 1].isalpha() and key[i + 1].isalpha()) else " "
        for i, ch in enumerate(key)
    )
    for word in re.split(r"[^\w.:'\u2018\u2019\u00b7\u0387\u2024]+|_", key):
        word = word.strip("".join(JOINERS))
        if not word or word in LUCENE_STOP_WORDS:
            continue
        out = []
        for ch in word:
            if ch.isascii() and ch.isalnum():
                out.append(ch)
            elif ch in "'\u2018\u2019":
                out.append("'")
            elif ch in JOINERS:
                out.append("\\" + ch if ch in _LUCENE_SPECIAL else ch)
            elif not out or out[-1] != "*":
                out.append("*")
        term = "".join(out)
        if any(c.isalnum() for c in term):
            terms.append(term if term.endswith("*") else term + "*")
    return terms


def fulltext_query(key: str) -> str:
    """The full-text shortlist query for a folded name: all its words, as prefixes."""
    return " AND ".join(shortlist_tokens(key))


def java_pattern(key: str, *, skip_tails: bool = True) -> str:
    """A Java regex, for `apoc.text.regexGroups` on NFD text, whose group 1 is each match of
    the folded name under the rule above (the capital check is made on the group)."""
    body = []
    for ch in key:
        body.append((ch if ch.isalnum() else "\\" + ch if ch.isascii() else ch) + r"\p{M}*")
    joined = "".join(sorted(JOINERS))
    return rf"(?<!{_WORD_JAVA})(?<![\p{{L}}\p{{M}}][{re.escape(joined)}])((?iu:{''.join(body)}))(?!{_WORD_JAVA})" + (
        _TAILS_JAVA if skip_tails else ""
    )
