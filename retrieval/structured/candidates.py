"""Lookups directed by the graph: when no phrase of a schema names the question's relation, the
candidates are the relations the question's entity actually has (both ways, read from the graph),
and the question chooses among them by

- the **answer type** it asks for ("which house/team/publisher …" → that entity type; "where" →
  a place-like type, "who"/"whom" → a person-like one, "when"/"what year" → a date-like one),
  matched against the labels at each candidate's far end and the schema's descriptions of them;
- the **lemma** of its predicate against the relation's name, phrases and description
  ("taught" ~ TAUGHT_BY, "born" ~ BORN_IN, "publish" ~ PUBLISHED_BY);
- the **similarity** of the masked question with each candidate's name and description.

A single candidate of the right answer type wins even with no wording match ("Which team does X
coach?" when COACHES is X's only edge to a Team). `--explain` lists the candidates and their
scores. Nothing here knows a data set: the words that say "a person", "a place" or "a date" are
the lexicon's (structured_person_kinds, structured_place_kinds, structured_date_kinds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_cypher import lexicon

from ..question.lemmas import lemma_set, lemmas
from .graph_catalog import Catalog, _edges
from .plans import MAX_ROWS, Hop
from .words import _X

EDGE_SAMPLE = 1000  # edges of one type read per entity for its far labels (the count stops there too)
SIMILARITY_FLOOR = 0.35  # a candidate may win on similarity alone from this cosine up ...
SIMILARITY_MARGIN = 0.06  # ... and this much above every other candidate relation
NOUN_FLOOR = 0.3  # "which <noun>" with no label of that name: the nearest label from this cosine up ...
NOUN_MARGIN = 0.1  # ... and this much nearer than the next label, is the type asked for
DESCRIPTION_WEIGHT = 0.6
PAST_WEIGHT = 1.5  # "before" ~ PREVIOUSLY_AT outweighs "play" ~ PLAYS_FOR: the qualifier is the more telling word  # a predicate lemma found only in the relation's description
KIND_LISTS = {"person": "structured_person_kinds", "place": "structured_place_kinds", "date": "structured_date_kinds"}
_WH_KIND = {"who": "person", "whom": "person", "whose": "person", "where": "place", "when": "date"}
_PREPOSITIONS = r"(?:in|from|at|to|of|by|for|with|on|under)"


@dataclass
class Candidate:
    """One relation the entity has, one way, and how well the question fits it."""

    relation: str
    x_is_source: bool
    far: frozenset[str]  # the labels at its far ends
    edges: int
    fits: bool | None = None  # its far side is of the asked-for type (None: the question asks none)
    lemma: float = 0.0  # the best predicate lemma's weight in its name, phrases or description
    matched: str = ""  # that lemma
    similarity: float = 0.0  # cosine of the masked question with its name and description
    at: int | None = None  # where the matched word is in the question's tokens

    def to_dict(self) -> dict:
        return {
            "relation": self.relation,
            "direction": "out" if self.x_is_source else "in",
            "far": sorted(self.far),
            "edges": self.edges,
            "fits": self.fits,
            "lemma": round(self.lemma, 3),
            "matched": self.matched,
            "similarity": round(self.similarity, 3),
        }


@dataclass
class Asks:
    """What answer the question asks for: a kind (person, place, date), a noun, or nothing said."""

    kind: str | None = None
    noun: str | None = None

    def describe(self) -> str:
        if self.noun:
            return repr(self.noun) + (f" ({self.kind})" if self.kind else "")
        return f"a {self.kind}" if self.kind else "no type"


def answer_asked(question: str) -> Asks:
    """The answer type of "which house …", "who …", "where …", "in which city …", "what year …"."""
    text = " ".join(question.lower().split())
    m = re.match(rf"^\s*(?:{_PREPOSITIONS}\s+)?(which|what|how\s+many|whose)\s+(?:of\s+the\s+|the\s+)?([a-z]+)", text)
    if m and m.group(1) != "whose":
        noun = m.group(2)
        if noun in lexicon.function_words() or noun in ("kind", "sort", "type"):
            return Asks()
        if noun in lexicon.words("structured_generic_nouns"):
            return Asks("person")
        return Asks(_kind_of_word(noun), noun)
    m = re.match(rf"^\s*(?:{_PREPOSITIONS}\s+)?(who|whom|whose|where|when)\b", text)
    if m:
        return Asks(_WH_KIND[m.group(1)])
    return Asks()


def _kind_of_word(word: str) -> str | None:
    stem = lexicon.stem(word.lower())
    for kind, name in KIND_LISTS.items():
        if stem in {lexicon.stem(w) for w in lexicon.words(name)}:
            return kind
    return None


def type_fits(asks: Asks, labels: frozenset[str], cat: Catalog) -> bool | None:
    """Whether entities of these labels answer what the question asks (None: it asks no type)."""
    if asks.noun is None and asks.kind is None:
        return None
    named = asks.noun is not None and any(_noun_fits(asks.noun, label, cat) for label in _labels_of(cat))
    for label in labels:
        words = _label_words(label)
        if asks.noun is not None and _noun_fits(asks.noun, label, cat):
            return True
        if named:
            continue  # "which city": a City, not any place
        if asks.kind is not None:
            kinds = {lexicon.stem(w) for w in lexicon.words(KIND_LISTS[asks.kind])}
            if words & kinds or _first_nouns(cat.types.get(label, "")) & kinds:
                return True
    return False


def _noun_fits(noun: str, label: str, cat: Catalog) -> bool:
    """Whether the noun names the label: its words, or the head noun of its description."""
    stem = lexicon.stem(noun)
    return stem in _label_words(label) or stem == _head_noun(cat.types.get(label, ""))


def _labels_of(cat: Catalog) -> set[str]:
    return {label for rel in cat.relations.values() for label in rel.sources | rel.targets} | set(cat.types)


def _label_words(label: str) -> set[str]:
    """The stems of a label's words: "PublishingHouse" → publish, hous."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", label) or [label]
    return {lexicon.stem(p.lower()) for p in parts}


_HEAD_END = re.compile(r"[,.;:(]|\b(?:who|which|that|where|whose|of|for|in|at|from|with|on|by)\b")


def _first_nouns(description: str) -> set[str]:
    """The stems of a description's first words, up to its first comma, preposition or relative
    clause ("A person who writes books" → a, person; "Head coach / manager of a club" → head,
    coach, manager): what the type is, not what it does."""
    head = _HEAD_END.split(description.lower(), maxsplit=1)[0]
    return {lexicon.stem(w) for w in re.findall(r"[a-z]+", head)}


def _head_noun(description: str) -> str | None:
    """The stem of the last of those words ("A football club" → club): the noun that names the type."""
    head = re.findall(r"[a-z]+", _HEAD_END.split(description.lower(), maxsplit=1)[0])
    return lexicon.stem(head[-1]) if head else None


def entity_candidates(graph, ids: list[str], cat: Catalog) -> list[Candidate]:
    """The relations of the catalog that the entities `ids` have, each way, with their far labels."""
    merged: dict[tuple[str, bool], Candidate] = {}
    for row in graph.read("structured/entity_relations", ids=ids, types=sorted(cat.relations), sample=EDGE_SAMPLE):
        if row["type"] not in cat.relations:
            continue
        key = (row["type"], bool(row["outgoing"]))
        found = merged.setdefault(key, Candidate(row["type"], bool(row["outgoing"]), frozenset(), 0))
        found.far |= frozenset(row["far"])
        found.edges += int(row["edges"])
    return list(merged.values())


def predicate_lemmas(words: list[str], asks: Asks) -> list[tuple[int, str, set[str]]]:
    """(position, word, its lemmas and stems) of the masked question's content words: not the
    entity, not a function word, not the asked-for noun."""
    out = []
    skip = set(lexicon.function_words()) | {"where", "when", "why", "whose"}
    noun_stem = lexicon.stem(asks.noun) if asks.noun else None
    for i, word in enumerate(words):
        if word == _X or word in skip or not word.isalpha() or not word.isascii():
            continue
        if noun_stem is not None and lexicon.stem(word) == noun_stem:
            continue
        out.append((i, word, set(lemma_set(word)) | _tense(word)))
    return out


_PAST = "\x00past"  # one token for every word of the past: "before" matches "former", "previously"


def _tense(text: str) -> set[str]:
    """{_PAST} when the text has a word that puts a relation in the past, else nothing."""
    past = lexicon.words("structured_past_words")
    return {_PAST} if any(w in past for w in re.findall(r"[a-z]+", text.lower())) else set()


def _relation_words(cat: Catalog, name: str) -> tuple[set[str], set[str]]:
    """(lemmas of its name and phrases, lemmas of its description), function words left out."""
    rel = cat.relations[name]
    function = lexicon.function_words()
    own: set[str] = set()
    for text in [name.replace("_", " ").lower(), *rel.forward, *rel.inverse]:
        if text.isascii():
            own |= {w for w in lemma_set(text.lower()) if w not in function} | _tense(text)
    described = set()
    if rel.description:
        described = {w for w in lemma_set(rel.description.lower()) if w not in function} | _tense(rel.description)
    return own, described - own


def score(candidates: list[Candidate], cat: Catalog, asks: Asks, predicate, masked: str, embedder) -> None:
    """Fill each candidate's fit, lemma match and similarity to the question. A predicate word
    counts 1 where the relation's name or phrases have its lemma, DESCRIPTION_WEIGHT where only
    its description does; a word every candidate has ("book" in each description of a book's
    relations) tells them apart from none and is not counted."""
    for c in candidates:
        c.fits = type_fits(asks, c.far, cat)
    if asks.noun and asks.kind is None and not any(c.fits for c in candidates) and not _names_a_type(asks, cat):
        _fit_by_similarity(candidates, cat, asks.noun, embedder)
    words = {c.relation: _relation_words(cat, c.relation) for c in candidates}
    for i, word, forms in predicate:
        weights = {
            name: (1.0 if forms & own else (DESCRIPTION_WEIGHT if forms & described else 0.0))
            * (PAST_WEIGHT if _PAST in forms else 1.0)
            for name, (own, described) in words.items()
        }
        if len(weights) > 1 and min(weights.values()) > 0:
            continue
        for c in candidates:
            if weights[c.relation] > 0:
                c.lemma += weights[c.relation]
                c.matched = f"{c.matched} {word}".strip()
                c.at = i if c.at is None else c.at
    if embedder is None or not candidates:
        return
    sentences = {c.relation: _sentence(cat, c.relation) for c in candidates}
    vectors = cat.vectors_of(embedder, [masked.replace(_X, "X"), *sentences.values()])
    q = vectors[masked.replace(_X, "X")]
    for c in candidates:
        c.similarity = _cosine(q, vectors[sentences[c.relation]])


def _names_a_type(asks: Asks, cat: Catalog) -> bool:
    """Whether the asked-for noun is a type the graph has ("houses" where House is a label): then
    a relation to another type is no answer to it, however near."""
    return asks.noun is not None and any(_noun_fits(asks.noun, label, cat) for label in _labels_of(cat))


def _fit_by_similarity(candidates: list[Candidate], cat: Catalog, noun: str, embedder) -> None:
    """ "Which family …" where no label is Family: the far label nearest the noun (by its name
    and description) fits when clearly nearest; with none, the question is read as asking no type."""
    labels = sorted({label for c in candidates for label in c.far})
    best: list[tuple[float, str]] = []
    if embedder is not None and labels:
        texts = {label: f"{label}: {cat.types.get(label, '')}".rstrip(": ") for label in labels}
        vectors = cat.vectors_of(embedder, [noun, *texts.values()])
        best = sorted(((_cosine(vectors[noun], vectors[texts[label]]), label) for label in labels), reverse=True)
    clear = best and best[0][0] >= NOUN_FLOOR and (len(best) == 1 or best[0][0] - best[1][0] >= NOUN_MARGIN)
    for c in candidates:
        c.fits = (best[0][1] in c.far) if clear else None


def _cosine(a, b) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=False)))


def _sentence(cat: Catalog, name: str) -> str:
    rel = cat.relations[name]
    words = name.replace("_", " ").lower()
    return f"X {words} Y. {rel.description}".strip()


def choose(candidates: list[Candidate], asks: Asks, masked_words: list[str], cat: Catalog, predicate):
    """(hop, why) of the candidate the question asks for, or (None, why not). A noun the question
    asks for ("which city") rules out relations to other types; "who", "where" and "when" only
    prefer theirs (a publisher answers "who published X?"). Then: the question's own words (the
    lemma score), else the only relation of the asked-for type, else similarity by a margin."""
    if not candidates:
        return None, "the entity has no relations in the graph"
    pool = [c for c in candidates if c.fits is not False] if asks.noun else list(candidates)
    if not pool:
        return None, f"none of the entity's relations leads to {asks.describe()}"
    best = max(c.lemma for c in pool)
    if best > 0:
        top = [c for c in pool if c.lemma == best]
        typed = [c for c in top if c.fits]
        top = typed or top
        if len({_canonical(cat, c.relation) for c in top}) == 1:
            pick = _one_way(top, masked_words, predicate, cat)
            if pick is not None:
                return _hop(pick, "lemma", pick.matched, best), f"the question's words {pick.matched!r} name it"
    typed = [c for c in pool if c.fits]
    if typed and len({_canonical(cat, c.relation) for c in typed}) == 1 and not any(c.lemma for c in pool):
        pick = _one_way(typed, masked_words, predicate, cat)
        if pick is not None:
            return _hop(pick, "answer type", asks.describe()), f"the only relation of the entity to {asks.describe()}"
    ranked = sorted(typed or pool, key=lambda c: (-c.lemma, -c.similarity))
    first = ranked[0]
    runner = next((c for c in ranked[1:] if _canonical(cat, c.relation) != _canonical(cat, first.relation)), None)
    margin = first.similarity - (runner.similarity if runner else 0.0)
    if first.similarity >= SIMILARITY_FLOOR and margin >= SIMILARITY_MARGIN:
        pick = _one_way([c for c in pool if c.relation == first.relation], masked_words, predicate, cat)
        if pick is not None:
            return _hop(pick, "similarity", pick.relation.lower().replace("_", " "), first.similarity), (
                f"nearest the question by similarity ({first.similarity:.2f}, next {margin:.2f} behind)"
            )
    return None, "the question's words do not tell which of the entity's relations it asks for"


def _canonical(cat: Catalog, name: str) -> str:
    """A relation and its inverse type (CHILD_OF / PARENT_OF) as one."""
    inverse = cat.relations[name].inverse_of
    return min(name, inverse) if inverse else name


def _one_way(options: list[Candidate], masked_words: list[str], predicate, cat: Catalog) -> Candidate | None:
    """Of one relation's candidates, the one that reads the question's way: the only one, else
    the way the entity's place around the predicate says (agent or patient); None when unclear."""
    ways = {c.x_is_source == (c.relation == _canonical(cat, c.relation)) for c in options}
    if len(ways) == 1 or cat.relations[options[0].relation].symmetric:
        return options[0]
    at = next((c.at for c in options if c.at is not None), None)
    if at is None and predicate:
        at = predicate[0][0]
    agent = None if at is None else _entity_is_agent(masked_words, at)
    if agent is None:
        return None
    for c in options:
        passive = c.relation.lower().endswith("_by")
        if c.x_is_source == (agent != passive):
            return c
    return None


def _entity_is_agent(words: list[str], v: int) -> bool | None:
    """Whether the masked entity does what the predicate at `v` says ("whom did X kill": yes;
    "who killed X", "by whom was X killed": no)."""
    if _X not in words:
        return None
    x = words.index(_X)
    if x > 0 and words[x - 1] == "by":
        return True
    forms = lemmas(words[v])
    participle = bool(forms) and forms[0] != words[v]
    if participle and any(w in lexicon.words("structured_passive_be") for w in words[:v]):
        return False
    return x < v


def _hop(c: Candidate, by: str, phrase: str, score: float = 1.0) -> Hop:
    return Hop(c.relation, c.x_is_source, phrase, f"graph ({by})", score)


def named_elsewhere(predicate, cat: Catalog, has: list[Candidate], types: set[str], asks: Asks) -> Candidate | None:
    """A relation of the graph the question's words name ("which books did X *write*?") that the
    entity could have by its type (on one side only) and has no edge of: then the question asks
    for that relation, and the graph has no record of it for X; another relation of the right
    type (X translated books) is no answer."""
    present = {c.relation for c in has}
    best: Candidate | None = None
    for name, rel in cat.relations.items():
        if name in present or (rel.inverse_of and rel.inverse_of in present):
            continue
        ways = [out for out, near in ((True, rel.sources), (False, rel.targets)) if types & near]
        if len(ways) != 1 or type_fits(asks, rel.targets if ways[0] else rel.sources, cat) is False:
            continue  # "which clubs are based in C?": a relation to publishers is no answer
        own, described = _relation_words(cat, name)
        found = [(w, 1.0 if f & own else DESCRIPTION_WEIGHT) for _i, w, f in predicate if f & (own | described)]
        weight = sum(x for _w, x in found)
        if found and (best is None or weight > best.lemma):
            best = Candidate(name, ways[0], frozenset(), 0, lemma=weight, matched=" ".join(w for w, _x in found))
    return best


def named_by_noun(words: list[str]) -> int | None:
    """Where the noun of "the author of X" (or "X's teacher", masked as "teacher of X") is: the
    first hop of a chain is the entity's relation that noun names."""
    if _X not in words:
        return None
    x = words.index(_X)
    if x >= 2 and words[x - 1] == "of" and words[x - 2].isalpha() and words[x - 2] not in lexicon.function_words():
        return x - 2
    return None


def next_hop(graph, first: Hop, ids: list[str], words: list[str], asks: Asks, masked: str, cat: Catalog, embedder):
    """(hop, why): the second hop of a chain ("where was [the author of X] born?"), read from the
    far ends of `first` by the question's words that `first` did not use; None unless those words
    name it (a lemma) or it is the only way to the asked-for type."""
    own, described = _relation_words(cat, first.relation)
    predicate = [p for p in predicate_lemmas(words, asks) if not p[2] & (own | described)]
    if not predicate and not firm_type(asks, cat):
        return None, "no words are left for a second hop"
    far = [r["id"] for r in _edges(graph, ids, cat.relations[first.relation], first.x_is_source, limit=MAX_ROWS)]
    if not far:
        return None, "the first hop leads nowhere"
    back = {(first.relation, not first.x_is_source)}
    inverse = cat.relations[first.relation].inverse_of
    if inverse:
        back.add((inverse, first.x_is_source))
    has = [c for c in entity_candidates(graph, far, cat) if (c.relation, c.x_is_source) not in back]
    score(has, cat, asks, predicate, masked, embedder)
    hop, why = choose(has, asks, words, cat, predicate)
    if hop is None or hop.by == "graph (similarity)":
        return None, why
    return hop, why


def far_fits(graph, hop: Hop, ids: list[str], asks: Asks, cat: Catalog) -> bool | None:
    """Whether the far ends of `hop` are of the type the question asks for (None: it asks none)."""
    far = _edges(graph, ids, cat.relations[hop.relation], hop.x_is_source, limit=MAX_ROWS)
    labels = frozenset(label for r in far for label in r["labels"] or [])
    return type_fits(asks, labels, cat) if labels else None


def firm_type(asks: Asks, cat: Catalog) -> bool:
    """Whether an answer of another type is no answer: a noun the graph has as a type, a place or a date."""
    return asks.kind in ("place", "date") or (asks.noun is not None and _names_a_type(asks, cat))
