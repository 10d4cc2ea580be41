"""The one lexicon: the word lists and the English inflection every part of graphrag reads.

The lists are data, one file per list in this folder (``<name>.txt``: words separated by spaces or
lines, ``#`` starts a comment); the plugin's Java code reads the very same files from its jar. Here
they are read once and cached:

* :func:`words` — any list by name; :func:`stop_words` — a language's question stop words;
  :func:`function_words` — the words of a question that say nothing about what it asks;
* :func:`singular`, :func:`plural`, :func:`forms`, :func:`possessives` — English number, possessive
  and British/American spelling (-our/-or, -re/-er, -ise/-ize, -yse/-yze), by one rule set and the
  exceptions of ``irregular_plurals.txt``;
* :func:`stem` — the English Snowball stem.
"""

from __future__ import annotations

import re
import threading
from functools import cache
from importlib import resources

_NAME = re.compile(r"[a-z][a-z0-9_]*")


@cache
def rows(name: str) -> tuple[tuple[str, ...], ...]:
    """The lines of the lexicon's file `name` as tuples of words, comments and blank lines left out."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a word list's name: {name!r}")
    path = resources.files(__name__).joinpath(f"{name}.txt")
    if not path.is_file():
        raise ValueError(f"no word list {name!r} in the lexicon")
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = re.sub(r"(?:^|\s)#.*", "", line)
        if line.split():
            out.append(tuple(line.split()))
    return tuple(out)


@cache
def words(name: str) -> frozenset[str]:
    """The word list `name` (the file ``core/lexicon/<name>.txt``), as written."""
    return frozenset(w for row in rows(name) for w in row)


# the question stop word lists there are, by language code
STOP_LANGUAGES = ("en", "de", "fr", "es", "zh")


def stop_words(language: str) -> frozenset[str]:
    """The question stop words of a language (en, de, fr, es, zh); empty for a language without a list."""
    if language not in STOP_LANGUAGES:
        return frozenset()
    return words(f"stop_{language}")


def function_words() -> frozenset[str]:
    """The words of a question that say nothing about what it asks ("who is X?"), lower case; "'s"
    stands for the possessive."""
    return words("function_words")


# --- English number ------------------------------------------------------------------------


@cache
def _irregular() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """(singular → its plurals, plural → its singular) of irregular_plurals.txt; a noun with one
    form for both is its own plural."""
    plurals: dict[str, tuple[str, ...]] = {}
    singulars: dict[str, str] = {}
    for row in rows("irregular_plurals"):
        head, tail = row[0], row[1:] or row[:1]
        plurals[head] = tail
        for form in tail:
            singulars.setdefault(form, head)
    return plurals, singulars


_POSSESSIVE = re.compile(r"(?:['’]s|(?<=s)['’])$", re.I)


def _bare(word: str) -> str:
    """The word without a possessive ending ("giant's", "giants'" → giant, giants)."""
    return _POSSESSIVE.sub("", word)


def _inflectable(word: str) -> bool:
    return word.isascii() and word.isalpha()


def _like(word: str, form: str) -> str:
    """`form` (lower case) in the case of `word`: the letters the two share keep the word's own
    case and the rest follow it ("Wolves" → "Wolf", "CrossEncoder" → "CrossEncoders"); a word
    in capitals ("NASA"-like) gives capitals."""
    if len(word) > 1 and word.isupper():
        return form.upper()
    shared = 0
    while shared < min(len(word), len(form)) and word[shared].lower() == form[shared]:
        shared += 1
    if shared == 0 and word[:1].isupper():
        return form[:1].upper() + form[1:]
    return word[:shared] + form[shared:]


def _looks_plural(lower: str) -> bool:
    return lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(lower) > 3


def _singular(lower: str) -> str:
    plurals, singulars = _irregular()
    if lower in singulars:
        return singulars[lower]
    if lower in plurals:
        return lower
    if lower.endswith("men") and len(lower) > 5 and not lower.endswith("humen"):
        return lower[:-3] + "man"  # huntsmen, fishermen
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith("ves") and len(lower) > 4:
        stem = lower[:-3]
        # wolves, halves, leaves, loaves, thieves, scarves; gloves, caves, archives keep their e
        return stem + "f" if stem.endswith(("l", "ea", "oa", "ie", "ar")) else stem + "ve"
    if lower.endswith(("sses", "zzes", "ches", "shes", "xes")):
        return lower[:-2]
    if _looks_plural(lower):
        return lower[:-1]
    return lower


def _plurals(lower: str) -> tuple[str, ...]:
    """The plurals of a singular, the usual one first."""
    plurals, singulars = _irregular()
    if lower in plurals:
        return plurals[lower]
    if lower in singulars:
        return (lower,)
    if re.search(r"[^u]man$", lower) and len(lower) > 5:
        return (lower[:-3] + "men",)  # huntsman, fisherman
    if re.search(r"[^aeiou]y$", lower):
        return (lower[:-1] + "ies",)
    if lower.endswith("is") and len(lower) > 3:
        return (lower[:-2] + "es",)  # crisis, crises
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return (lower + "es",)
    if lower.endswith("ife"):
        return (lower[:-2] + "ves",)  # knife, wife
    if lower.endswith("f") and lower[:-1].endswith(("l", "ea", "oa", "ie", "ar")):
        return (lower[:-1] + "ves",)  # wolf, half, leaf, loaf, thief, scarf
    return (lower + "s",)


def singular(word: str) -> str:
    """The English singular of a noun, in its case ("wolves" → wolf, "Stories" → Story, "men" → man,
    "giants'" → giant); a word that is not plural, not English letters, or a one-form noun ("news")
    is returned without its possessive ending."""
    bare = _bare(word)
    if not _inflectable(bare):
        return bare
    return _like(bare, _singular(bare.lower()))


def plural(word: str) -> str:
    """The English plural of a noun, in its case ("witch" → witches, "story" → stories, "wolf" →
    wolves, "man" → men); a word that is plural already ("giants", "men") is returned as it is, and
    so is one that is not English letters."""
    bare = _bare(word)
    if not _inflectable(bare):
        return bare
    lower = bare.lower()
    if _singular(lower) != lower or (_looks_plural(lower) and lower not in _irregular()[0]):
        return bare
    return _like(bare, _plurals(lower)[0])


def number_forms(word: str) -> list[str]:
    """The word, then its other number's forms, then their British/American spellings, in lower case
    ("witch" → witch, witches; "wolves" → wolves, wolf; "harbours" → harbours, harbour, harbors,
    harbor). A word shorter than 3 letters (but an irregular one, "ox") or not of English letters
    is only itself."""
    if not word:
        return []
    lower = word.lower()
    if not _inflectable(lower) or (len(lower) < 3 and lower not in _irregular()[0]):
        return [word]
    one = _singular(lower)
    out = [lower, one, *_plurals(one)]
    out += [v for w in out for v in _spellings(w)]
    return list(dict.fromkeys(out))


def forms(word: str) -> set[str]:
    """The word's singular, plural and possessive forms and their British/American spellings, in its
    case: "giant" → giant, giants, giant's, giants'; "colour" → colour, colours, color, colors,
    colour's, ...; "man" → man, men, man's, men's. Of words of more than one, the last is inflected,
    and so is a possessive before it, in its two possessives ("kings' daughters" → king's daughter,
    kings' daughters, king's daughters, ...); a word shorter than 3 letters (but an irregular one,
    "ox") or not of English letters is only itself."""
    head, _, last = " ".join(word.split()).rpartition(" ")
    if not last:
        return set()
    heads = [""]
    for part in head.split():
        heads = [f"{h}{w} " for h in heads for w in possessives(part)]
    return {h + f for h in heads for f in _word_forms(last)}


def possessives(word: str) -> list[str]:
    """A possessive noun in its singular and plural possessive, the singular first ("kings'" →
    king's, kings'; "man's" → man's, men's); any other word is only itself."""
    bare = _bare(word)
    if bare == word or not _inflectable(bare) or len(bare) < 3:
        return [word]
    one = _singular(bare.lower())
    many = [p for p in _plurals(one) if p != one]
    out = [_like(bare, one + "'s")] + [_like(bare, p + "'" if p.endswith("s") else p + "'s") for p in many]
    return list(dict.fromkeys(out))


def _word_forms(last: str) -> set[str]:
    bare = _bare(last)
    lower = bare.lower()
    if not _inflectable(bare) or (len(bare) < 3 and lower not in _irregular()[0]):
        return {last, bare}
    one = _singular(lower)
    nouns = [one, *_spellings(one)]
    many = [p for n in nouns for p in _plurals(n)]
    many = list(dict.fromkeys(many + [v for p in many for v in _spellings(p)]))
    out = {lower, *nouns, *many}
    out |= {n + "'s" for n in nouns}
    out |= {p + "'" if p.endswith("s") else p + "'s" for p in many if p not in nouns}
    return {_like(bare, f) for f in out}


# --- British and American spelling ---------------------------------------------------------------

_OUR = re.compile(r"^([a-z]{3,})our(s?)$")  # harbour, colour, labours
_OR = re.compile(r"^([a-z]{2,}[^aeiou])or(s?)$")  # harbor, colors
_TRE = re.compile(r"^([a-z]{2,}[tb])re(s?)$")  # centre, theatres, fibre
_TER = re.compile(r"^([a-z]{2,}[tb])er(s?)$")  # center, theaters, fiber
# organise, civilisations, realised; analyse: a vowel before -ise (praise, noise, cruise) never takes -ize
_ISE = re.compile(r"^([a-z]{2,}[^aeiouy])is(e|es|ed|ing|ation|ations)$")
_IZE = re.compile(r"^([a-z]{2,}[^aeiouy])iz(e|es|ed|ing|ation|ations)$")
_YSE = re.compile(r"^([a-z]{3,})ys(e|es|ed|ing)$")
_YZE = re.compile(r"^([a-z]{3,})yz(e|es|ed|ing)$")


def _spellings(word: str) -> list[str]:
    """The other spelling of a lower-case word, British ↔ American: harbour ↔ harbor, centre ↔
    center. A variant no document writes finds nothing, so a made-up one ("authour") costs nothing."""
    for pattern, ending in ((_OUR, "or"), (_OR, "our"), (_TRE, "er"), (_TER, "re")):
        found = pattern.match(word)
        if found:
            return [found.group(1) + ending + found.group(2)]
    for pattern, middle in ((_ISE, "iz"), (_IZE, "is"), (_YSE, "yz"), (_YZE, "ys")):
        found = pattern.match(word)
        if found:
            return [found.group(1) + middle + found.group(2)]
    return []


def spellings(word: str) -> list[str]:
    """The word's other British/American spelling, in its case ("Harbour" → Harbor), or none."""
    return [_like(word, v) for v in _spellings(word.lower())]


# --- stems ---------------------------------------------------------------------------------------

# snowballstemmer's stemmer keeps the word it works on in the instance: shared by request
# threads it fails or returns another word's stem, so each thread has its own (measured: as fast
# as one thread's, where a lock made 8 threads stemming at once 25% slower)
_stemmers = threading.local()


def stem(word: str) -> str:
    """The English Snowball stem of a word ("stories" → stori); a word not of ASCII letters stays."""
    if not word.isascii() or not word.isalpha():
        return word
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)
