"""The graph as the recogniser's gazetteer: the names of what the graph already knows as patterns.

Every global person and place of the schema's person and place types that the recogniser did not
create itself — Pleiades places with all their names, the persons of records and the authors of
articles, wiki characters, canonical LLM entities, and the aliases `resolve` gave them — is read
from Neo4j (``ner/gazetteer_names``) into a name table: folded name → type → entity ids. A name
becomes a pattern only when it could name something in running text: at least three letters,
not a stop word or a function word, not on the place linker's stoplist (``linkers/stoplist.txt``)
and not a name the text usually means as a person when it is only a place's (``persons.txt``: a
place there only after "at", "city of"...). spaCy's :class:`~spacy.matcher.PhraseMatcher` finds the
patterns in each parsed chunk, case-insensitively and also with accents folded; a match must
still be written with a capital ("Rome", not "rome"; not a short acronym) and pass the place
linker's context rules (:func:`graphrag_cypher.linkers.contexts.not_a_place`: not "Heron of
Alexandria", a siglum "P. Cairo", an institution "American School at Athens").

The table is kept on disk under ``.graphrag/cache/`` with the fingerprint of the entities it was
built from (``ner/gazetteer_fingerprint``): while the gazetteer is unchanged a run reads no names,
and a changed gazetteer is never matched with an old table. The fingerprint is part of every
chunk's checkpoint, so a changed gazetteer has the chunks read again, an unchanged one nothing.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from graphrag_cypher import lexicon
from graphrag_cypher.db import Graph, query
from graphrag_cypher.name_contexts import (
    INSTITUTION_AFTER,
    INSTITUTION_BEFORE,
    PERSON_OF,
    PLACE_CUE,
    ROYAL_TITLE,
    SIGLUM,
    capitalised,
)
from graphrag_cypher.text import fold

from .ner_rules import RULED, Mention

RULE = "ner-gazetteer"  # the MENTIONS rule of a name the gazetteer decided
CACHE_DIR = Path(".graphrag") / "cache"
MIN_LENGTH = 2  # folded characters ("Ur"; written with a capital and a small letter, see capitalised)
BUILT_BY = ("ner_gazetteer.py",)


@dataclass(frozen=True)
class Hit:
    """A gazetteer name found in a parsed chunk."""

    start: int  # character offsets in the chunk
    end: int
    first: int  # token offsets
    last: int  # exclusive
    text: str
    key: str  # the folded name
    kinds: dict  # "person" / "place" -> the ids of the gazetteer's entities of that kind with this name


def load_stoplist(shipped: str = "stoplist.txt") -> frozenset[str]:
    """The place linker's folded name lists (its data files, read as data: kg does not import linkers):
    `stoplist.txt`, names never looked for; `persons.txt`, names a text usually means as people."""
    text = resources.files("graphrag_cypher.linkers").joinpath(shipped).read_text("utf-8")
    return frozenset(fold(line.split("#", 1)[0].strip()) for line in text.splitlines() if line.split("#", 1)[0].strip())


@cache
def _person_words() -> frozenset[str]:
    return load_stoplist("persons.txt")


def not_a_place(text: str, start: int, end: int, key: str) -> bool:
    """The words around a place's name in `text` say it names something else here."""
    before, after = text[max(0, start - 100) : start], text[end : end + 60]
    near = before[-50:]
    if near.rstrip().endswith(".") and SIGLUM.search(near):
        return True
    if INSTITUTION_BEFORE.search(before) or INSTITUTION_AFTER.match(after):
        return True
    person = PERSON_OF.search(near)
    if person and person.group(1).lower() not in lexicon.words("place_of_words") and not person.group(1).isupper():
        return True
    return key in _person_words() and (bool(ROYAL_TITLE.search(near)) or not PLACE_CUE.search(near))


def unusable(key: str, stop: frozenset[str]) -> bool:
    """A folded name that is never a pattern: too short, a stop word, stop-listed."""
    return len(key.replace(" ", "")) < MIN_LENGTH or key in stop or not any(ch.isalpha() for ch in key)


@dataclass
class Gazetteer:
    """The name table of the graph's gazetteer, and the spaCy matcher built from it on first use."""

    fingerprint: list  # [entities, MD5] of what it was built from
    types: dict[str, str]  # entity type -> "person" or "place"
    names: dict[str, dict[str, list[str]]]  # folded or lower-cased name -> kind -> entity ids
    rules: str = ""  # the name rules it was built by (rules_key): a chunk read by others is read again
    _matcher: object = field(default=None, repr=False)
    _vocab: object = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """What a chunk's checkpoint records of the gazetteer."""
        return f"{self.fingerprint[0]}:{self.fingerprint[1]}:{self.rules}"

    @classmethod
    def from_rows(cls, ids: list, types: list, names: list, fingerprint: list, kinds: dict[str, str]) -> Gazetteer:
        """The table from ner/gazetteer_names's lists (entity ids, their types, their names)."""
        stop = (
            load_stoplist()
            | lexicon.words("stop_en")
            | lexicon.words("function_words")
            | lexicon.words("ner_junk_tokens")
            | lexicon.words("ner_sigla")
        )
        table: dict[str, dict[str, list[str]]] = {}
        for entity, type_name, aliases in zip(ids, types, names, strict=True):
            kind = kinds.get(type_name)
            if kind is None:
                continue
            for name in {a for a in aliases or [] if isinstance(a, str)}:
                if not capitalised(name) and name.lower() == name and kind == "person":
                    continue  # a person's alias in lower case is resolve's normName: folded below anyway
                for key in {fold(" ".join(name.split())), " ".join(name.split()).lower()}:
                    if unusable(key, stop):
                        continue
                    found = table.setdefault(key, {}).setdefault(kind, [])
                    if entity not in found:
                        found.append(entity)
        return cls(list(fingerprint), dict(kinds), table)

    def matcher(self, nlp):
        """spaCy's PhraseMatcher over the lower-cased tokens, every name a pattern (built once per vocab)."""
        if self._matcher is None or self._vocab is not nlp.vocab:
            from spacy.matcher import PhraseMatcher

            matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
            keys = sorted(self.names)
            for i in range(0, len(keys), 5000):
                matcher.add("GAZETTEER", list(nlp.tokenizer.pipe(keys[i : i + 5000])))
            self._matcher, self._vocab = matcher, nlp.vocab
        return self._matcher

    def merge(self, doc, found: list, hits: list[Hit], protected: list[tuple[int, int]]) -> list:
        """:func:`merge`: the recogniser's names of a chunk with this gazetteer's."""
        return merge(doc, found, hits, protected)

    def hits(self, doc, nlp) -> list[Hit]:
        """The gazetteer's names in a parsed chunk, written with a capital; of overlapping
        names the longest (then the earlier)."""
        matcher = self.matcher(nlp)
        found: list[Hit] = []
        spans = [(s, e) for _, s, e in matcher(doc)]
        folded_doc = None
        if not doc.text.isascii():  # "Alexandría" written with its accent: match the folded text too
            folded_doc = nlp.make_doc(fold(doc.text))
            if len(folded_doc) == len(doc):
                spans += [(s, e) for _, s, e in matcher(folded_doc)]
        for s, e in spans:
            span = doc[s:e]
            text = span.text
            key = fold(" ".join(text.split()))
            kinds = self.names.get(key) or self.names.get(" ".join(text.split()).lower())
            if not kinds or not capitalised(text) or not text[:1].isupper():
                continue
            found.append(Hit(span.start_char, span.end_char, s, e, text, key, kinds))
        kept: list[Hit] = []
        for hit in sorted(found, key=lambda h: (-(h.end - h.start), h.start)):
            if all(hit.end <= k.start or hit.start >= k.end for k in kept):  # also the same name found twice
                kept.append(hit)
        return sorted(kept, key=lambda h: h.start)


def kinds_of(schema) -> dict[str, str]:
    """The schema's entity types the gazetteer reads: the person type (PERSON's) and the place types (GPE, LOC, FAC's)."""
    out: dict[str, str] = {}
    for label, type_name in schema.ner_labels.items():
        if label == "PERSON":
            out[type_name] = "person"
        elif label in ("GPE", "LOC", "FAC"):
            out.setdefault(type_name, "place")
    return out


def rules_key(kinds: dict[str, str]) -> str:
    """The cache file of a name table: one per set of types and version of the code and queries that build it."""
    code = hashlib.sha256()
    for module in BUILT_BY:
        code.update(resources.files("graphrag_cypher.kg").joinpath(module).read_bytes())
    code.update(resources.files("graphrag_cypher").joinpath("name_contexts.py").read_bytes())  # the shared contexts
    for name in ("ner/gazetteer_names", "ner/gazetteer_fingerprint"):
        code.update(query(name).encode())
    for name in ("stop_en", "function_words", "ner_junk_tokens", "ner_sigla"):
        code.update(" ".join(sorted(lexicon.words(name))).encode())
    code.update(" ".join(sorted(load_stoplist())).encode())
    code.update(" ".join(sorted(load_stoplist("persons.txt"))).encode())  # read by merge
    return hashlib.sha256(json.dumps([sorted(kinds.items()), code.hexdigest()]).encode()).hexdigest()[:32]


def load(graph: Graph, schema, cache_dir: Path | None = CACHE_DIR) -> Gazetteer:
    """The gazetteer of the graph now: from the cache file when the graph's fingerprint is the file's,
    else read from Neo4j (and the file written). No person or place type in the schema: an empty one."""
    kinds = kinds_of(schema)
    types = sorted(kinds)
    if not types:
        return Gazetteer([0, ""], kinds, {})
    rules = rules_key(kinds)
    path = Path(cache_dir) / f"ner-gazetteer-{rules}.marshal" if cache_dir else None
    now = graph.read_row("ner/gazetteer_fingerprint", types=types)
    fingerprint = [now["entities"], now["fingerprint"]]
    if path is not None and path.exists():
        try:
            data = marshal.loads(path.read_bytes())
            if list(data["fingerprint"]) == fingerprint:
                return Gazetteer(fingerprint, kinds, data["names"], rules)
        except (EOFError, ValueError, TypeError, KeyError):
            pass  # a damaged file: built again
    row = graph.read_row("ner/gazetteer_names", types=types)
    gazetteer = Gazetteer.from_rows(
        row["ids"], row["types"], row["names"], [len(row["ids"]), row["fingerprint"]], kinds
    )
    gazetteer.rules = rules
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(marshal.dumps({"fingerprint": gazetteer.fingerprint, "names": gazetteer.names}))
            tmp.replace(path)
        except OSError:
            pass  # a cache that cannot be written only costs time
    return gazetteer


# --- the gazetteer's names among the recogniser's ------------------------------------------------

_REGNAL = re.compile(r"^ +[IVX]+\b")  # "Arsinoe II", "Antiochus IV": a ruler, not the place
_ADJECTIVE = re.compile(r"^[A-Z][a-z]+(?:ian|an|ic|ine|ene|ite|ote)$")  # "Pisidian Antioch", "Seleucid Syria"
LABELS = {"person": "PERSON", "place": "GPE"}
PLACE_LABELS = {"GPE", "LOC", "FAC", "NORP"}


def _kind_of(label: str) -> str | None:
    return "person" if label == "PERSON" else "place" if label in PLACE_LABELS else None


def merge(doc, found: list, hits: list[Hit], protected: list[tuple[int, int]]) -> list:
    """The recogniser's names with the gazetteer's: a name the gazetteer knows is typed and linked
    by it (rule ner-gazetteer), unless a longer name the recogniser found holds it ("Heron of
    Alexandria", "University of Chicago"), a rule of the text typed it otherwise ("Tyre argues"),
    or the words around say it is not a place here. A one-word name the recogniser did not see is
    taken only in mid-sentence and when the chunk never writes it in lower case."""
    if not hits:
        return found
    lower = {t.lower_ for t in doc if t.is_lower}
    out = list(found)
    # where the recogniser itself calls two or more of the gazetteer's places places, the text is
    # about such places: there a known place's name is a place even where it says person ("Rhodes")
    agreed = sum(
        1
        for hit in hits
        if "place" in hit.kinds
        and any(_kind_of(m.label) == "place" and m.start < hit.end and hit.start < m.start + len(m.name) for m in found)
    )
    for hit in hits:
        if any(a <= hit.start < b for a, b in protected):
            continue  # inside a citation or a quoted title
        kinds = dict(hit.kinds)
        if "place" in kinds:
            if not_a_place(doc.text, hit.start, hit.end, hit.key) or _REGNAL.match(doc.text[hit.end : hit.end + 8]):
                kinds.pop("place")
        if not kinds:
            continue
        over = [m for m in out if m.start < hit.end and hit.start < m.start + len(m.name)]
        if not over and hit.last - hit.first == 1:
            token = doc[hit.first]
            if token.is_sent_start or token.lower_ in lower or fold(token.text) in lower:
                continue  # "Reading the text ...", "the Tower ... a tower": a common word
        if any(_holds(m, hit) for m in over):
            continue
        said = {_kind_of(m.label) for m in over} - {None}
        if len(kinds) > 1:  # a person's and a place's name: the recogniser's label decides, or nothing
            if len(said) != 1:
                continue
            kind = next(iter(said))
        else:
            kind = next(iter(kinds))
        if kind is None:
            continue
        if any(m.weight >= RULED and _kind_of(m.label) not in (None, kind) for m in over):
            continue  # a rule of the text said otherwise
        cued = kind == "place" and bool(PLACE_CUE.search(doc.text[max(0, hit.start - 30) : hit.start]))
        if any(m.label == "PERSON" for m in over) and kind == "place" and agreed < 2 and not cued:
            continue  # the recogniser's person ("Lysa", "Pylos" the maester), unless the text is about such places
        # in the document's vote a name the recogniser also saw counts as a rule's, one only the
        # gazetteer saw as one mention (a character a rule of the text names elsewhere stays a person)
        weight = RULED if over or cued else 1
        out = [m for m in out if m not in over]
        out.append(Mention(hit.text, LABELS[kind], hit.start, weight=weight, ids=tuple(sorted(kinds[kind]))))
    return sorted(out, key=lambda m: m.start)


def _holds(mention, hit: Hit) -> bool:
    """The recogniser's mention is a longer name around the hit, not just an adjective before it."""
    end = mention.start + len(mention.name)
    if not (mention.start <= hit.start and end >= hit.end and len(mention.name) > len(hit.text)):
        return False
    rest = (mention.name[: hit.start - mention.start] + " " + mention.name[hit.end - mention.start :]).split()
    return not (len(rest) == 1 and _ADJECTIVE.match(rest[0]) and mention.name.endswith(hit.text))
