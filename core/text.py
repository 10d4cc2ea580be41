"""Small text helpers shared by the parsers and the chunker (pure Python, no dependencies)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from datetime import datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache

from graphrag_cypher import lexicon

# --- sentences -----------------------------------------------------------------------

# Words that end in a period without ending the sentence. Lower-case, without the dot.
ABBREVIATIONS = lexicon.words("abbreviations")

# A candidate end: one or more terminators, optional closing quotes/brackets, then space. It
# starts only where a run of terminators starts: from inside a run ("....") it would scan the
# rest of the run again at every dot, quadratic in the run.
_BOUNDARY = re.compile(r"""(?<![.!?…])([.!?…]+)(["'”’)\]]*)(\s+)""")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_WORD_BEFORE = re.compile(r"([\w.'’-]+)$")
_WORD_WINDOW = 64


def _word_before(text: str, end: int) -> re.Match | None:
    """`_WORD_BEFORE.search(text, 0, end)`, in time proportional to the word, not to `end`.

    Searching from 0 tries every start position before `end`, which made splitting a
    section quadratic in its length. The leftmost match inside a window that starts past
    the window's edge is the leftmost match overall (the run cannot extend further left),
    so the window only grows when the word reaches its edge.
    """
    window = _WORD_WINDOW
    while True:
        pos = max(0, end - window)
        match = _WORD_BEFORE.search(text, pos, end)
        if match is None or pos == 0 or match.start() > pos:
            return match
        window *= 4


def _is_sentence_end(text: str, match: re.Match) -> bool:
    after = text[match.end() : match.end() + 1]
    if not after:
        return True
    # The next sentence starts with a capital, a digit, a quote or a bracket; a lower-case
    # continuation ("e.g. the", "... and then") means the period was not an end.
    if not (after.isupper() or after.isdigit() or after in "\"'“‘([¿¡"):
        return False
    if match.group(1) != ".":
        return True
    word = _word_before(text, match.start())
    if not word:
        return True
    token = word.group(1).lower().strip("'’")
    if token in ABBREVIATIONS:
        return False
    # An initial ("J. R. R. Tolkien") or a dotted abbreviation such as "U.S.A".
    if len(token) == 1 and token.isalpha():
        return False
    if "." in token and all(len(part) <= 2 for part in token.split(".")):
        return False
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences in `text`, whitespace excluded.

    A regex splitter that knows common abbreviations (e.g., Dr., St.), initials,
    decimals (no space after the dot) and ellipses followed by lower case. Blank lines
    always end a sentence, so headings and list items do not run into the next text.
    """
    spans: list[tuple[int, int]] = []
    for para_start, para_end in _paragraph_spans(text):
        start = para_start
        for match in _BOUNDARY.finditer(text, para_start, para_end):
            if _is_sentence_end(text, match):
                end = match.end(2)
                spans.append((start, end))
                start = match.end()
        if start < para_end:
            spans.append((start, para_end))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _PARAGRAPH.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    result = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            result.append((s, e))
    return result


def split_sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


# --- whitespace and names ------------------------------------------------------------

_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_MANY_NEWLINES = re.compile(r"\n\s*\n\s*")


def collapse_whitespace(text: str) -> str:
    """All whitespace runs to one space (for one-line values and pre-chunked text)."""
    return " ".join(text.split())


def clean_paragraphs(text: str) -> str:
    """Lines joined into paragraphs, paragraphs separated by one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = (collapse_whitespace(p) for p in _MANY_NEWLINES.split(text))
    return "\n\n".join(p for p in paragraphs if p)


def tidy_lines(text: str) -> str:
    """Spaces collapsed within lines, at most one blank line in a row (keeps line structure)."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.replace("\r\n", "\n").split("\n")]
    text = "\n".join(lines)
    return _MANY_NEWLINES.sub("\n\n", text).strip()


def slugify(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-") or "untitled"


_SMALL_WORDS = lexicon.words("title_small_words")


def title_case(text: str) -> str:
    """'THE STRAW, THE COAL, AND THE BEAN' -> 'The Straw, the Coal, and the Bean'."""
    words = text.lower().split()
    out = []
    for i, word in enumerate(words):
        if i > 0 and word.strip(",;:.!?'\"") in _SMALL_WORDS:
            out.append(word)
        else:
            out.append("-".join(_capitalise(part) for part in word.split("-")))
    return " ".join(out)


def _capitalise(word: str) -> str:
    for i, ch in enumerate(word):
        if ch.isalpha():
            return word[:i] + ch.upper() + word[i + 1 :]
    return word


# --- dates ---------------------------------------------------------------------------

_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?")
_TEXT_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %Y", "%d.%m.%Y", "%m/%d/%Y")


def iso_date(value: str | None) -> str | None:
    """yyyy-mm-dd when the value is a recognisable date, else the trimmed original."""
    if not value or not value.strip():
        return None
    value = value.strip()
    for pattern in (_ISO_DATE, _PDF_DATE):
        match = pattern.match(value)
        if match:
            year, month, day = (int(g) if g else 1 for g in match.groups())
            try:
                return datetime(year, month, day).date().isoformat()
            except ValueError:
                return value
    if re.fullmatch(r"\d{4}", value) or _YEAR_MONTH.match(value):
        return value
    for fmt in _TEXT_FORMATS:
        try:
            return datetime.strptime(value, fmt).date().isoformat()
        except ValueError:
            continue
    try:
        return parsedate_to_datetime(value).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return value


# --- accent folding: the one definition (the Java procedures implement the same rule) ---


def is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or is_mark(ch)


@lru_cache(maxsize=65536)
def fold_char(ch: str) -> str:
    """The folded form of one character: "" for combining marks, else lower-case base letters.

    The rule (the Java `graphrag.fold` implements it too): canonical decomposition (NFD),
    combining marks dropped, each remaining character through its upper case and back to
    lower case when that stays one character, else its lower case. No compatibility
    decomposition and no ß → ss: a character never becomes more than its decomposition, so
    positions in folded text map back to the original, and a folded name matches exactly
    what Java's case-insensitive regex matches."""
    out = []
    for part in unicodedata.normalize("NFD", ch):
        if is_mark(part):
            continue
        # Java's case-insensitive match treats characters with the same upper case as equal
        # (ı ~ i, ς ~ σ, ſ ~ s), so fold through the upper case; ß → SS is not one character.
        folded = part.upper().lower()
        out.append(folded if len(folded) == 1 else part.lower())
    return "".join(out)


class CharTable(dict):
    """A `str.translate` table (code point → text) that fills itself as characters are met."""

    def __init__(self, make: Callable[[str], str]):
        super().__init__()
        self._make = make

    def __missing__(self, code: int) -> str:
        value = self[code] = self._make(chr(code))
        return value


# fold_char of each character.
FOLDS = CharTable(fold_char)


def fold(text: str) -> str:
    """Accent- and case-folded text ("Alexandría" → "alexandria")."""
    if text.isascii():
        return text.lower()
    return text.translate(FOLDS)


_NAME_JOINERS = re.compile(r"[\-‐‑‒–—'’`´]")
_NAME_PUNCT = re.compile(r"[^\w\s]|_")


def norm_name(name: str | None) -> str:
    """The `normName` of an entity, from its name: folded, joiners (hyphens, dashes, apostrophes)
    removed, other punctuation as spaces, whitespace collapsed ("Dawn-Fang" ~ "dawnfang",
    "Zoë" ~ "zoe"). The Java function `graphrag.normName` computes the same value."""
    text = _NAME_JOINERS.sub("", fold(str(name or "")))
    return " ".join(_NAME_PUNCT.sub(" ", text).split())


def name_key(name: str) -> str:
    """A name folded and without a leading article: "the silver lantern" and "Silver Lantern" are one."""
    return re.sub(r"^(?:the|a|an)\s+", "", " ".join(fold(name).split()))


# --- gazetteer names ------------------------------------------------------------------

_PAREN = re.compile(r"\([^()]*\)$")  # on a stripped name; no leading \s*, which rescanned runs of spaces
_EDGE_JUNK = "*?‘’'\"“”[]!. \t"


def clean_names(raw: Iterable[str]) -> list[str]:
    """Gazetteer name strings as matchable names, in first-seen order, without duplicates.

    "Contestania (region)" → "Contestania"; "Perinthus/Heraclea" → both; "Medeon?",
    "*Kalasyrta", "‘Abone’" lose their editorial marks; names with inner brackets
    ("A(n)dros") are dropped — which reading the text uses is unknowable.
    """
    seen: dict[str, None] = {}
    for value in raw:
        if not isinstance(value, str):
            continue
        value = unicodedata.normalize("NFC", value).strip()
        value = _PAREN.sub("", value).rstrip()
        for part in value.split("/"):
            part = " ".join(part.split()).strip(_EDGE_JUNK)
            if part and not any(c in part for c in "()[]") and any(c.isalpha() for c in part):
                seen.setdefault(part, None)
    return list(seen)


_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


def word_regex(name: str) -> str:
    """A regular expression for `name` on word boundaries, where a Han character is no word
    character (Chinese is written without spaces: "谁杀了张伟" holds "张伟", and "谁杀了Eddard
    Stark" holds "Eddard Stark"); a side of the name that is a Han character needs no boundary."""
    body = re.escape(name)
    before = "" if re.match(f"[{_HAN}]", name) else rf"(?<![^\W{_HAN}])"
    after = "" if re.search(f"[{_HAN}]$", name) else rf"(?![^\W{_HAN}])"
    return f"{before}{body}{after}"


def _han(ch: str) -> bool:
    o = ord(ch)
    return 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF


def _bounds(ch: str) -> bool:
    """Whether a neighbouring character leaves a word boundary: not a word character (`\\w`:
    alphanumeric or "_"), or a Han character."""
    return not (ch.isalnum() or ch == "_") or _han(ch)


def contains_word(text: str, name: str) -> bool:
    """Whether `name` occurs in `text` on word boundaries: what ``re.search(word_regex(name), text)``
    finds, without compiling a pattern per name (a question is checked against a hundred names,
    and a large catalogue's names do not fit the regex cache, so each one would be compiled anew)."""
    if not name:
        return False
    free_before, free_after = _han(name[0]), _han(name[-1])
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if (free_before or start == 0 or _bounds(text[start - 1])) and (
            free_after or end == len(text) or _bounds(text[end])
        ):
            return True
        start = text.find(name, start + 1)
    return False
