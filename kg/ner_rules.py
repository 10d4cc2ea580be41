"""What graphrag adds to spaCy's recogniser so that its names mean what the text means.

A small pipeline such as ``en_core_web_sm`` finds most name spans but often gives them the
wrong label on text unlike its training news: a fantasy character who "asks" becomes an
organisation, a castle someone marches to a person, the surname of a cited author a place.
These rules read the span and its parse (the recogniser and the dependency parser run; no
tagger, lemmatizer or LLM) and decide, in order:

* lists inside one span are split ("Tyrion and Varys", "Freeth, Jones, Steele, & Bitsakis"),
  trailing years and numbers dropped ("Bitsakis 2008"), a leading title removed ("Ser Jaime
  Lannister" → Jaime Lannister) and the title makes the name a person;
* author-year citations ("Gadotti 2011: 196", "(Smith-Yoshimura and Michelson 2013)",
  "Mittermayer (2009: 376)") and bibliography entries ("Farber, Walter. 2014.") name people, and so
  do the initialled names of reference lists ("J. Andreau, P. Briant and A. Descat (eds.)",
  "Carrié, J.-M. 1994", "Walker S., Higgs, P. (eds)"); their places of publication ("(Wetteren,
  2000)", "Leiden: Brill, 2003", "(London 2001)") are places;
* a ruler's regnal number the recogniser missed makes a person ("Ptolemy V"), a name cut at a
  hyphen is whole again ("Anu-bēlšunu"), and "the city of X", "the land of X" make X a place;
* a name that is the subject of a verb of saying, thinking or doing with the body ("Catelyn
  asks", "Viserys grabs") is a person, unless the recogniser called it a person or a place;
* a name after a preposition of place, governed by a verb of motion or a noun of place
  ("marching north to Harrenhal", "the harbour of Ostia", "settled on Delos"), is a place;
* celestial bodies are not places; single common words at the start of a sentence
  ("Library name authorities ...") and reference words (Fig., Table, Vol.) are not names.

Then :func:`vote` makes one document consistent: a name keeps the type most of its mentions
there were given ("Daenerys" three times a person, once an organisation: a person).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from graphrag_cypher import lexicon

# --- word lists (lower case: graphrag_cypher.lexicon's ner_* files) ----------------------------------

TITLES = lexicon.words("ner_titles")
PLURAL_TITLES = lexicon.words("ner_plural_titles")
PLACE_NOUNS = lexicon.words("ner_place_nouns")
LOCATIVE_PREPS = lexicon.words("ner_locative_preps")
# Spans after these prepositions may be re-read as places even when the recogniser says person
# ("await the army at Moat Cailin"); "to", "from", "of" and "on" take people as often as places.
PERSON_TO_PLACE_PREPS = lexicon.words("ner_person_to_place_preps")
# nouns whose "at X", "in X" is where they are ("the army at Moat Cailin", "the battle at Delium")
GATHERING_NOUNS = lexicon.words("ner_gathering_nouns")
NOT_PLACES = lexicon.words("ner_not_places")
REFERENCE_WORDS = lexicon.words("ner_reference_words")
# words that make a name an organisation's, never re-read as a person's
ORG_WORDS = lexicon.words("ner_org_words")
MONTHS_DAYS = lexicon.words("ner_months_days")
NOT_SURNAMES = lexicon.words("ner_not_surnames")
# labels the rules may turn into a person or a place (the recogniser's person and place labels
# stay, but for the place rule's person case above)
RELABEL = {"ORG", "PRODUCT", "NORP", "WORK_OF_ART", "EVENT", "LAW", "LANGUAGE"}
PLACE_LABELS = {"GPE", "LOC", "FAC"}


def _forms(stems: frozenset[str]) -> set[str]:
    """A verb's common forms from its stem: say → say, says, said?, saying, sayed (close enough),
    and the irregular past forms of the stems (lexicon ner_irregular_past)."""
    out = set()
    for stem in stems:
        out |= {stem, stem + "s", stem + "es", stem + "ed", stem + "d", stem + "ing"}
        if stem.endswith("e"):
            out |= {stem[:-1] + "ing", stem + "d"}
        if stem.endswith("y"):
            out |= {stem[:-1] + "ies", stem[:-1] + "ied"}
    return out | lexicon.words("ner_irregular_past")


PERSON_VERBS = _forms(lexicon.words("ner_person_verb_stems")) | {"understand", "understands"}
MOTION_VERBS = _forms(lexicon.words("ner_motion_verb_stems"))
# words before "at X" that make X an organisation ("researchers at ISAW", "works at Google")
WORKPLACE_WORDS = _forms(lexicon.words("ner_workplace_stems")) | lexicon.words("ner_workplace_words")
PLAIN_SURNAME = r"[A-Z][^\W\d_][\w’'\-]*"
# "Gadotti 2011", "Bitsakis & Jones 2016a", "Evans, Carman, & Thorndike 2010", "Mittermayer (2009",
# "Smith et al. 1999": names, then a year with no comma before it (a place of publication has one:
# "Utrecht, 2003")
CITATION = re.compile(
    rf"(?P<names>{PLAIN_SURNAME}(?:(?:,\s*|\s+(?:and|&)\s+|,\s*(?:and|&)\s+){PLAIN_SURNAME})*)"
    r"(?:\s+et\s+al\.?)?\s+\(?(?:1[5-9]\d\d|20\d\d)[a-z]?\b"
)
# "Farber, Walter. 2014." / "Edzard, Dietz Otto. 1972–1975." at the start of a line or after a full stop
BIBLIOGRAPHY = re.compile(
    rf"(?:^|(?<=\n)|(?<=\.\s)|(?<=\bIn\s))(?P<last>{PLAIN_SURNAME}),\s+(?P<given>(?:[A-Z][^\W\d_]*\.?\s?){{1,3}}?)"
    r"(?:\.?\s+(?:1[5-9]\d\d|20\d\d)\b|\s*\(eds?\.\))"
)
# editors or authors separated by slashes: "Corò, Paola/Devecchi, Elena/De Zorzi, Nicla (eds.)"
_INVERTED = r"(?!In\s)[A-Z][^\W\d_][\w’'\-]*(?:\s[A-Z][^\W\d_][\w’'\-]*)?,\s[A-Z][^\W\d_][\w\-]*(?:\s[A-Z]\.)?"
SLASHED = re.compile(rf"(?P<names>{_INVERTED}(?:/{_INVERTED})+)(?=\s*\(eds?\.\)|\.\s)")
# numbered references with the authors in capitals: "MANGANARO [239]", "HUSTON and LORBER [178]"
CAPS_SURNAME = r"[A-ZÀ-Þ][A-ZÀ-Þ'’\-]{2,}"
CAPS_CITATION = re.compile(
    rf"(?P<names>{CAPS_SURNAME}(?:(?:,\s*|\s+(?:and|AND|&)\s+|,\s*(?:and|AND|&)\s+){CAPS_SURNAME})*)"
    r"(?:\s+et\s+al\.?)?\s+\[\d+\]"
)
# a footnote that starts with its author: "7 Bruno Faidutti, “Postcolonial Catan,”", "9 Faidutti, “..."
NOTE_AUTHOR = re.compile(
    rf"(?m)^\s*\d{{1,3}}\s+(?P<name>{PLAIN_SURNAME}(?:\s+(?:[A-Z]\.|{PLAIN_SURNAME})){{0,3}}),\s+[“\"]"
)
# names with initials in a reference list: "J. Andreau, P. Briant and A. Descat (eds.)", "J.-H. d’Arms",
# "D.C Goodman", and inverted "Carrié, J.-M. 1994", "Walker S., Higgs, P. (eds)", "De Callataÿ, F., Les ..."
INITIALS = r"[A-Z]\.(?:\s?-?[A-Z](?:\.|(?=\s)))*"
PARTICLE = r"(?:(?:[Dd]e|[Dd]i|[Dd]el|[Dd]u|[Vv]an|[Vv]on|[Ll]e|[Ll]a)\s|[Dd][’'])?"
_INITIALLED = rf"{INITIALS}\s?{PARTICLE}{PLAIN_SURNAME}(?![\w’'.-]|\.\s*\d)"
_JOIN = r"(?:,\s*(?:and\s+|&\s+)?|\s+(?:and|&)\s+)"
# two or more, or one before "(eds.)" or after "in"/"by": a list of authors, not a siglum ("P. Cairo")
INITIALLED = re.compile(
    rf"(?P<names>{_INITIALLED}(?:{_JOIN}{_INITIALLED})+|{_INITIALLED}(?=\s*,?\s*\(?eds?\.?\)?[\s,.;:])"
    rf"|(?:(?<=\bin\s)|(?<=\bby\s)|(?<=\band\s)|(?<=&\s)){_INITIALLED})"
)
# "Surname, I." (a comma, or none before an initial followed by one), then a comma, "and", "(eds" or a year
INVERTED_INITIALS = re.compile(
    rf"(?<![\w’'-])(?P<last>{PARTICLE}{PLAIN_SURNAME}(?:\s{PLAIN_SURNAME})?)(?:,\s|\s(?={INITIALS},))(?P<given>{INITIALS})"
    r"(?=,|\s+(?:and|&)\s|\s*\(eds?\b|\s+(?:1[5-9]\d\d|20\d\d)\b)"
)
# a place of publication: "(Erlangen, 1998)", "(Jerusalem, 2003), pp.", "Leiden: Brill, 2003" (a person's
# citation has no comma before its year: "(Kessler 2004)")
PUBLISHED_AT = re.compile(
    r"\((?P<place>[A-Z][^\W\d_][\w’'-]*(?:[ /-][A-Z][^\W\d_][\w’'-]*){0,3}),\s*(?:1[5-9]\d\d|20\d\d)\)"
    r"|(?:^|(?<=[.)]\s))(?P<city>[A-Z][^\W\d_][\w’'-]*(?:[ /][A-Z][^\W\d_][\w’'-]*)?):\s[A-Z][^:\n]{2,60}?,\s(?:1[5-9]\d\d|20\d\d)\b",
    re.M,
)
_PUBLISHED_YEAR = re.compile(r"\)|[–-]\d{4}")  # after the year of a city's "(London 2001)"
# verbs of saying and arguing: their subject is a person even when the recogniser says place
# ("As Iversen has shown", "Gadotti argues")
SAYING_VERBS = _forms(lexicon.words("ner_saying_verb_stems"))
TIME_WORDS = lexicon.words("ner_time_words")
# a quoted title ("“Forms of Time and of the Chronotope in the Novel”"): the names in it are the
# title's words, not places or organisations of the text
QUOTED = re.compile(r"“([^”]{3,200})”")
_OF_PLACE = {"city", "land", "town", "island", "kingdom", "province", "region"}  # "the city of X": X a place
RULED = 10  # a label a rule of the text gave outweighs ten the recogniser gave alone
_SPLIT = re.compile(r"\s*(?:,\s*(?:and|&)\s+|,\s*|\s+(?:and|&)\s+|/)\s*")


@dataclass
class Mention:
    name: str
    label: str
    start: int  # character offset of the name in the text
    end: int = -1  # for a citation: where the names it covers end
    weight: int = 1  # in the document's vote: RULED when a rule of the text decided the label
    ids: tuple = ()  # the gazetteer's entities of this name and kind, when the gazetteer decided it


def _is_name_token(text: str) -> bool:
    return bool(text) and text[0].isupper() and text.lower() not in NOT_SURNAMES


def citation_people(text: str) -> list[Mention]:
    """People named by author-year citations and bibliography entries."""
    found: list[Mention] = []
    for match in CITATION.finditer(text):
        base, end = match.start("names"), match.end("names")
        for part in re.finditer(PLAIN_SURNAME, match.group("names")):
            if part.group(0).lower() in PUBLICATION_CITIES and _PUBLISHED_YEAR.match(text, match.end()):
                # "(London 2001)", "in Jerusalem 1968–1978": where a book was published, not "Berlin 1979: 87"
                found.append(Mention(part.group(0), "GPE", base + part.start(), end, RULED))
            elif _is_name_token(part.group(0)) and not part.group(0).isupper():
                found.append(Mention(part.group(0), "PERSON", base + part.start(), end, RULED))
    for match in BIBLIOGRAPHY.finditer(text):
        last, given = match.group("last"), " ".join(match.group("given").split()).rstrip(".")
        if _is_name_token(last) and given and all(_is_name_token(w.rstrip(".")) for w in given.split()):
            found.append(Mention(f"{given} {last}", "PERSON", match.start("last"), match.end("given"), RULED))
    for match in SLASHED.finditer(text):
        base, end = match.start("names"), match.end("names")
        at = 0
        for entry in match.group("names").split("/"):
            surname, _, first = entry.partition(",")
            if _is_name_token(surname.strip()) and _is_name_token(first.strip()):
                found.append(Mention(f"{first.strip()} {surname.strip()}", "PERSON", base + at, end, RULED))
            at += len(entry) + 1
    for match in CAPS_CITATION.finditer(text):
        base, end = match.start("names"), match.end("names")
        for part in re.finditer(CAPS_SURNAME, match.group("names")):
            if part.group(0).lower() not in NOT_SURNAMES | {"and"}:
                found.append(Mention(part.group(0).title(), "PERSON", base + part.start(), end, RULED))
    for match in INITIALLED.finditer(text):
        base, end = match.start("names"), match.end("names")
        for part in re.finditer(_INITIALLED, match.group("names")):
            surname = re.sub(rf"^{INITIALS}\s?{PARTICLE}", "", part.group(0))
            if _is_name_token(surname) and surname.lower() not in SIGLA:
                found.append(Mention(part.group(0), "PERSON", base + part.start(), end, RULED))
    for match in INVERTED_INITIALS.finditer(text):
        last = match.group("last")
        if all(
            _is_name_token(w) or w.lower() in ("de", "di", "del", "du", "van", "von", "le", "la") for w in last.split()
        ):
            name = f"{match.group('given')} {last}"
            found.append(Mention(name, "PERSON", match.start("last"), match.end("given"), RULED))
    for match in NOTE_AUTHOR.finditer(text):
        words = match.group("name").split()
        if all(_is_name_token(w.rstrip(".")) for w in words):
            found.append(Mention(match.group("name"), "PERSON", match.start("name"), match.end("name"), RULED))
    return found


def publication_places(text: str) -> list[Mention]:
    """The places of publication of a reference list's entries ("(Wetteren, 2000)", "Leiden: Brill, 2003")."""
    found = []
    for match in PUBLISHED_AT.finditer(text):
        group = "place" if match.group("place") else "city"
        at = match.start(group)
        for part in match.group(group).split("/"):
            if part.lower() not in NOT_SURNAMES and not is_junk(part):
                found.append(Mention(part, "GPE", at, at + len(part), RULED))
            at += len(part) + 1
    return found


def _tokens_of(span) -> list:
    tokens = list(span)
    while len(tokens) > 1 and tokens[0].lower_ in {"the", "a", "an"}:
        tokens = tokens[1:]
    while len(tokens) > 1 and (tokens[-1].text in ("'s", "’s", "'", "’") or tokens[-1].like_num or tokens[-1].is_punct):
        tokens = tokens[:-1]
    return tokens


def _hyphenated(tokens) -> list:
    """A name the tokenizer cut at a hyphen inside a word whole again ("Anu-bēlšunu", not "Anu")."""
    doc = tokens[0].doc
    j = tokens[-1].i
    while (
        j + 2 < len(doc)
        and not doc[j].whitespace_
        and doc[j + 1].text in ("-", "‑")
        and not doc[j + 1].whitespace_
        and doc[j + 2].is_alpha
    ):
        j += 2
    return list(tokens) + [doc[k] for k in range(tokens[-1].i + 1, j + 1)]


def _text_of(tokens) -> str:
    if not tokens:
        return ""
    doc = tokens[0].doc
    return doc.text[tokens[0].idx : tokens[-1].idx + len(tokens[-1].text)]


def _parts(span) -> list[tuple[list, bool]]:
    """The names in a span: (tokens, titled) each; a list span split at its commas, ands and
    line breaks."""
    lines: list[list] = [[]]
    for t in span:
        if t.is_space and "\n" in t.text or "\n" in t.whitespace_:
            if not t.is_space:
                lines[-1].append(t)
            lines.append([])
        else:
            lines[-1].append(t)
    lines = [line for line in lines if line]
    if len(lines) > 1:
        return [part for line in lines for part in _parts(span.doc[line[0].i : line[-1].i + 1])]
    tokens = _tokens_of(span)
    titled = False
    while len(tokens) > 1 and tokens[0].lower_.rstrip(".") in TITLES | PLURAL_TITLES and tokens[1].text[:1].isupper():
        titled = True
        tokens = tokens[1:]
        if tokens and tokens[0].lower_ == "commander":  # "Lord Commander Mormont"
            tokens = tokens[1:]
    text = _text_of(tokens)
    pieces = [p for p in _SPLIT.split(text) if p] if _SPLIT.search(text) else [text]
    if len(pieces) < 2 or not all(p[0].isupper() and len(p.split()) <= 4 for p in pieces):
        return [(tokens, titled)]
    out, i = [], 0
    for piece in pieces:  # the tokens of each piece, in order
        words = piece.split()
        while i < len(tokens) and tokens[i].text != words[0].rstrip(",&"):
            i += 1
        chosen = tokens[i : i + len(piece.split())] if i < len(tokens) else []
        chosen = [t for t in chosen if not t.is_punct and t.lower_ not in ("and", "&")]
        if chosen:
            out.append((chosen, titled))
        i += len(words)
    return out or [(tokens, titled)]


def _title_case(text: str) -> bool:
    """Most of the longer words capitalised: a title, not a quoted sentence."""
    words = [w for w in re.findall(r"[^\W\d_][\w’'\-]*", text) if len(w) > 3]
    return len(words) >= 2 and sum(w[0].isupper() for w in words) >= 0.6 * len(words)


def relabel(span, tokens, label: str) -> tuple[str, bool]:
    """The label the parse gives the name, or the recogniser's; and whether a rule decided it."""
    root = tokens[-1] if tokens else span.root
    for t in tokens:  # the token of the name that the rest of the sentence hangs on
        if t.head not in tokens or t.head is t:
            root = t
            break
    doc = tokens[0].doc
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    org_like = any(t.lower_.rstrip(".") in ORG_WORDS for t in tokens)
    if before is not None and before.lower_.rstrip(".") in TITLES and before.text[:1].isupper() and not org_like:
        return "PERSON", True  # "Lord Commander Mormont", "Maester Aemon" with the title outside the span
    articled = before is not None and before.lower_ == "the" or span[0].lower_ == "the"
    if label in RELABEL and not org_like and root.dep_ in ("nsubj", "nsubjpass") and root.head.lower_ in PERSON_VERBS:
        return "PERSON", True
    if label in PLACE_LABELS and root.dep_ == "nsubj" and root.head.lower_ in SAYING_VERBS and not org_like:
        return "PERSON", True
    if (
        not org_like
        and root.dep_ == "pobj"
        and root.head.lower_ == "of"
        and root.head.head.lower_ in _OF_PLACE
        and any(t.lower_ in ("the", "a") for t in root.head.head.lefts)
    ):
        return "GPE", True  # "the foreign city of Aratta", "the land of Hamazu" (not "a son of ...")
    if label in PLACE_LABELS and org_like:  # "the Golden Company", "the British Museum": the organisation
        return "ORG", True
    if root.dep_ == "conj" and not org_like:  # "Athens and Rhodes", "Beric and Thoros": one kind
        head = root.head
        if (
            head.ent_type_ in ("PERSON", *PLACE_LABELS)
            and head.ent_type_ != label
            and label not in PLACE_LABELS | {"PERSON"} | {""}
        ):
            return head.ent_type_, True
        if head.ent_type_ == "PERSON" and label in PLACE_LABELS:
            return "PERSON", True
        if head.ent_type_ in PLACE_LABELS and label == "PERSON":
            return head.ent_type_, True
    if (label in RELABEL or label == "PERSON") and not org_like:
        if root.dep_ == "pobj":
            prep = root.head
            governor = prep.head
            preps = PERSON_TO_PLACE_PREPS if label == "PERSON" and not articled else LOCATIVE_PREPS
            if prep.lower_ in preps and (
                governor.lower_ in MOTION_VERBS
                or governor.lower_ in PLACE_NOUNS | GATHERING_NOUNS
                or (prep.lower_ == "at" and governor.ent_type_ == "PERSON" and label != "PERSON")
            ):
                return "GPE", True
            if label in RELABEL and prep.lower_ == "at" and not articled and governor.lower_ not in WORKPLACE_WORDS:
                return "GPE", True  # "ransom Arya at Riverrun", "heard rumors at Harrenhal"
        if label == "PERSON" and articled:  # "the Wall", "the Blackwater": not a person's name
            return "FAC", False
    return label, False


def _possessive_place(span, tokens):
    """ "Griffin's Roost", "King's Landing": a name, 's and a capitalised word make one place name."""
    doc = tokens[0].doc
    last = tokens[-1]
    if last.i + 2 < len(doc) + 1 and last.i + 2 <= len(doc) - 1:
        apostrophe, word = doc[last.i + 1], doc[last.i + 2]
        if apostrophe.text in ("'s", "’s") and word.is_title and word.lower_ not in TITLES and not word.is_sent_start:
            return list(tokens) + [apostrophe, word]
    return None


def _lone_names(doc, taken: set[int]) -> list[Mention]:
    """A capitalised word in mid-sentence that the recogniser missed, the subject of a verb of
    saying or doing: a character's name ("Chanticleer got upon the box", "Heinel bore all")."""
    found = []
    for token in doc:
        if token.i in taken or token.is_sent_start or not token.is_title or not token.is_alpha or len(token) < 3:
            continue
        if token.lower_ in NOT_SURNAMES | TITLES | MONTHS_DAYS | ORG_WORDS | PLACE_NOUNS or token.ent_type_:
            continue
        neighbours = [doc[j] for j in (token.i - 1, token.i + 1) if 0 <= j < len(doc)]
        if any(n.is_title and not n.is_sent_start for n in neighbours):
            continue  # a word of a longer name ("the Golden Company")
        if token.dep_ in ("nsubj", "nsubjpass") and token.head.lower_ in PERSON_VERBS:
            found.append(Mention(token.text, "PERSON", token.idx, weight=RULED))
    return found


# a ruler with a regnal number the recogniser missed: "Ptolemy V", "Ptolemy VIII [152]" (not "Ur III period",
# not the pronoun: "Surely I must")
REGNAL = re.compile(
    r"(?<![\w.])(?P<name>[A-Z][a-zà-ÿ]{3,} (?:II|III|IV|VI{0,3}|IX|XI{0,3}|XIV|XV))\b(?![.\w-]|\s+(?:[Pp]eriod|[Dd]ynasty|[Pp]hase))"
)


def _rulers(doc, taken: set[int]) -> list[Mention]:
    """A capitalised name and a regnal number in mid-sentence, not already a recognised name."""
    found = []
    for match in REGNAL.finditer(doc.text):
        span = doc.char_span(match.start(), match.end())
        if span is None or span[0].is_sent_start or any(t.i in taken for t in span):
            continue
        word = span[0].lower_
        if (
            any(t.text == word for t in doc)
            or word in NOT_SURNAMES | TITLES | ORG_WORDS | PLACE_NOUNS | REFERENCE_WORDS | MONTHS_DAYS
        ):
            continue
        found.append(Mention(match.group("name"), "PERSON", match.start(), weight=RULED))
    return found


NAME_LINE = re.compile(
    r"^(?:[A-Z][^\W\d_][\w'’\-]*|[A-Z]\.)(?:\s+(?:[A-Z][\w'’\-]*\.?|of|the|de|du|van|von|der|le|la|II|III|IV|V|VI))"
    r"{0,4}$"
)


def _name_lines(text: str) -> list[tuple[int, int]]:
    """Lines that are each one name, in runs of three or more (blank lines between allowed):
    a list of characters, of places, of authors ("Appearing: / Arya Stark / Barristan Selmy")."""
    runs: list[list[tuple[int, int]]] = [[]]
    at = 0
    for line in text.split("\n"):
        stripped = line.strip()
        start = at + len(line) - len(line.lstrip())
        at += len(line) + 1
        if not stripped:
            continue
        if NAME_LINE.match(stripped) and stripped.lower() not in NOT_SURNAMES | TITLES:
            runs[-1].append((start, start + len(stripped)))
        else:
            runs.append([])
    return [line for run in runs if len(run) >= 3 for line in run]


def _in_lists(doc, found: list[Mention]) -> list[Mention]:
    """Each line of a list of names as one name, typed as most of the list's recognised names are."""
    lines = _name_lines(doc.text)
    if not lines:
        return found
    inside = [m for m in found if any(a <= m.start < b for a, b in lines)]
    labels = Counter(m.label for m in inside if m.label in ("PERSON", *PLACE_LABELS, "ORG"))
    if not labels or labels.most_common(1)[0][1] * 2 < len(inside):
        return found  # no clear kind: leave the recogniser's names
    label = labels.most_common(1)[0][0]
    kept = [m for m in found if m not in inside]
    kept += [Mention(doc.text[a:b], label, a, weight=RULED) for a, b in lines]
    return sorted(kept, key=lambda m: m.start)


JUNK_TOKENS = lexicon.words("ner_junk_tokens")
PUBLICATION_CITIES = {" ".join(row) for row in lexicon.rows("ner_publication_cities")}
SIGLA = lexicon.words("ner_sigla")
_ROMAN = re.compile(r"^M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$")
_WORDS = re.compile(r"[^\s.,;:()\[\]]+")
_RULER = re.compile(r"^[A-Z][^\W\d_]+ (?:[IVX]{1,5})$")


def _numbering(word: str) -> bool:
    """An era, a number, a roman numeral, a reference abbreviation ("BCE", "IV", "12a", "ibid")."""
    bare = word.strip("'’")
    return (
        bare.lower() in JUNK_TOKENS
        or (bare.isupper() and bool(_ROMAN.match(bare)))
        or any(ch.isdigit() for ch in bare)
        or not any(ch.isalpha() for ch in bare)
    )


def is_junk(name: str) -> bool:
    """A name that is never an entity: era and numbering tokens ("BCE", "IV", "§ 4"), bibliography
    abbreviations ("Ed.", "ibid."), the siglum of a corpus of inscriptions or papyri, alone or
    cited ("IG", "P.Oxy. 2332", "O. Claud.", "SEG XXXV")."""
    if "§" in name or "¶" in name:
        return True
    words = _WORDS.findall(name)
    bare = re.sub(r"[\d\s.]+", "", name).lower()  # "A.D.2": an era and a note's number
    if not words or all(_numbering(w) for w in words) or "".join(words).lower() in JUNK_TOKENS or bare in JUNK_TOKENS:
        return True  # also "A.D.", "B.C.E.": dotted letters
    for n in range(1, min(3, len(words)) + 1):  # a siglum of one to three words, then numbers or nothing
        siglum = "".join(words[:n])
        written = "." in name or siglum.isupper()  # "P.Oxy.", "IG", "SEG": not the name "Tam" or "Apis"
        if siglum.lower() in SIGLA and written and (n == len(words) or all(_numbering(w) for w in words[n:])):
            return True
    return False


# a papyrus's, ostracon's or tablet's siglum, not a person with an initial: "P. Cairo Zen. 59001",
# "P. Leiden I 384", "P. Berl. 9825", "P. Louvre E 3229", "P. Cairo.Masp.", "P.Tor.", "P. X+PSI" (but "P. Briant and",
# "O. Neugebauer 1975")
_DOCUMENT_SIGLUM = re.compile(r"[POT]\.\s?[A-Z][^\W\d_]*(?:\s[A-Z]|\s[IVX]+)?")
_SIGLUM_AFTER = re.compile(
    r"\.\s*\d|\.\s*[A-Za-z]{1,5}\.|\s*\+\s*[A-Z]|\s*[A-Z][a-z]{0,5}\.(?!\w)|\s+[IVX]+\b|\s+(?:[A-Z]\s)?(?!1[5-9]\d\d\b|20\d\d\b)\d"
)


def is_document_siglum(text: str, mention: Mention) -> bool:
    """The mention is a papyrus's, ostracon's or tablet's siglum, by its shape and the number after it."""
    end = mention.start + len(mention.name)
    if not _DOCUMENT_SIGLUM.fullmatch(mention.name):
        return False
    abbreviated = len(re.split(r"[\s.]+", mention.name)[-1]) <= 4 and text[end : end + 1] == "."  # "P.Tor.", "P. Duk."
    return abbreviated or bool(_SIGLUM_AFTER.match(text, end))


def mentions(doc, gazetteer=None, nlp=None) -> list[Mention]:
    """The names of one parsed chunk, after the rules above; with a gazetteer
    (:mod:`ner_gazetteer`), its names decide where they are found. Junk (:func:`is_junk`) is dropped."""
    cited = citation_people(doc.text) + publication_places(doc.text)
    ranges = [(m.start, m.end) for m in cited]
    titles = [(m.start(1), m.end(1)) for m in QUOTED.finditer(doc.text) if _title_case(m.group(1))]
    out: list[Mention] = []
    taken: set[int] = set()
    for span in doc.ents:
        taken.update(t.i for t in span)
        for parted, titled in _parts(span):
            tokens = _hyphenated(parted) if parted else parted
            taken.update(t.i for t in tokens)
            name = _text_of(tokens)
            if not name:
                continue
            start = tokens[0].idx
            low = name.lower()
            if any(a <= start < b for a, b in ranges):
                continue  # inside a citation: the citation rule names its people below
            if titled:
                label, ruled = "PERSON", True
            elif low in PUBLICATION_CITIES:
                label, ruled = "GPE", True  # "Oxford.", "Leiden/Boston": a bibliography's place, not a publisher
            else:
                label, ruled = relabel(span, tokens, span.label_)
            longer = _possessive_place(span, tokens) if label in PLACE_LABELS else None
            if longer is not None:
                name, label, ruled = _text_of(longer), "FAC", True
                taken.update(t.i for t in longer)
            if label in PLACE_LABELS and (low in NOT_PLACES or tokens[-1].lower_ in TIME_WORDS):
                continue
            if label != "PERSON" and _RULER.match(name):
                label, ruled = "PERSON", True  # "Ptolemy II", "Antiochus IV": a ruler
            if label != "PERSON" and any(a <= start < b for a, b in titles):
                continue  # a word of a quoted title
            if len(tokens) == 1 and low.rstrip(".") in REFERENCE_WORDS:
                continue
            if len(tokens) == 1 and tokens[0].is_sent_start and label in RELABEL:
                continue  # "Library name authorities ...": a common word that starts a sentence
            out.append(Mention(name, label, start, weight=RULED if ruled else 1))
    out += cited
    out += [m for m in _lone_names(doc, taken) + _rulers(doc, taken) if not any(a <= m.start < b for a, b in ranges)]
    out.sort(key=lambda m: m.start)
    out = _in_lists(doc, out)
    if gazetteer is not None and nlp is not None:
        out = gazetteer.merge(doc, out, gazetteer.hits(doc, nlp), ranges + titles)
    return [m for m in out if not is_junk(m.name) and not is_document_siglum(doc.text, m)]


def vote(found: list[tuple[str, str, int]]) -> dict[str, str]:
    """(normName, type, weight) of every mention in one document → the type each name takes
    there: the one with the most weight (a mention a rule of the text typed counts RULED, one
    the recogniser alone typed 1; ties: person, then place, then the first seen). A one-word name
    that starts or ends a person's name there ("Jaime" beside "Jaime Lannister") is that person,
    unless its mentions make it a place."""
    counts: dict[str, Counter] = {}
    order: dict[str, list[str]] = {}
    for norm, type_name, weight in found:
        counts.setdefault(norm, Counter())[type_name] += weight
        order.setdefault(norm, [])
        if type_name not in order[norm]:
            order[norm].append(type_name)
    rank = {"Person": 0, "Place": 1}
    return {norm: min(c, key=lambda t: (-c[t], rank.get(t, 2), order[norm].index(t))) for norm, c in counts.items()}
