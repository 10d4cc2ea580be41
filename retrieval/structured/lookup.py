"""Relation lookups: "Who killed Eddard Stark?", "Which characters belong to House Tully?". The
question is matched to a relation and a direction by the relation's phrases around the masked
entity (lexically, on word stems), else by embedding similarity of the masked question with each
phrase's sentences, else by the one relation that joins the entity to the asked-for label; the
plan then reads the far side of one relation, or a chain of two."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_cypher import lexicon

from ...text import fold, word_regex
from .candidates import (
    Asks,
    answer_asked,
    choose,
    entity_candidates,
    far_fits,
    firm_type,
    named_by_noun,
    named_elsewhere,
    next_hop,
    predicate_lemmas,
    score,
)
from .entities import _entity_spans, choose_entity
from .graph_catalog import Catalog, _edges, catalog
from .plans import MAX_ROWS, Hop, Plan, Refusal, Row
from .shape import _COUNT, _LIST, _WH, looks_structured
from .words import _GAP, _X, _find, _stems, tokens

EMBED_FLOOR = 0.65  # a masked question this close to a relation's phrase sentence matches it
EMBED_MARGIN = 0.02  # ... and this much closer than to any other relation


def _lookup_plan(graph, analysis, cat: Catalog, embedder, counting: bool) -> Plan | Refusal:
    """The relation lookup the question asks for ("who killed X?"), or why it is not one."""
    question = analysis.search_text or analysis.question
    if not (_WH.search(question) or counting or re.match(r"^\s*(?:where|when)\b", question, re.I)):
        return Refusal(
            "not a question about the graph's relations (no who/which/what/how many)", looks_structured(question, cat)
        )
    if not cat.relations:
        return Refusal("the graph has no typed relations between entities", looks_structured(question, cat))
    spans = _entity_spans(analysis.entities + list(getattr(analysis, "ambiguous", [])), question)
    if not spans:
        return Refusal("the question names no entity of the graph", looks_structured(question, cat))
    if len(spans) > 1:
        # "Did Arya kill Meryn?" or "How are A and B related?": not one entity's neighbours
        names = ", ".join(repr(s[0]) for s in spans)
        return Refusal(
            f"the question names {len(spans)} entities ({names}); a lookup reads one", looks_structured(question, cat)
        )
    matched, candidates = spans[0]
    masked = _mask(question, matched)
    words = tokens(masked)
    open_stems = lexicon.words("structured_open_stems") - {"where", "when"}  # "what happened to X?": a story
    ids = [e["id"] for e in candidates]
    has = entity_candidates(graph, ids, cat)
    named = {lexicon.stem(w) for c in has for w in c.relation.lower().split("_")}  # "about" of an ABOUT relation
    open_words = [w for w in words if lexicon.stem(w) in open_stems and lexicon.stem(w) not in named]
    open_words += [w for i, w in enumerate(words) if w == "how" and words[i + 1 : i + 2] not in (["many"], ["much"])]
    if open_words:
        return Refusal(f"an open question ({open_words[0]!r}), not a lookup of {matched!r}'s relations")
    hops, directed, answer_labels = _find_hops(graph, analysis, question, masked, words, candidates, has, cat, embedder)
    if not hops:
        seen = directed.to_dict() if directed is not None else None
        if re.match(r"^\s*(?:where|when|why)\b", question, re.I):
            return Refusal(f"an open question, not a lookup of {matched!r}'s relations" + _why(directed), False, seen)
        return Refusal(
            f"no relation of the graph matches the question's words around {matched!r}" + _why(directed),
            looks_structured(question, cat),
            seen,
        )
    chosen, others, why = choose_entity(graph, candidates, cat, hops[0], analysis.filters)
    listing = bool(_LIST.search(question))
    family = (
        "count"
        if counting
        else ("list" if listing and not re.match(r"^\s*(?:who|whom)\b", question, re.I) else "lookup")
    )
    first = hops[0]
    reason = (
        f"{family}: {first.relation} ({'out of' if first.x_is_source else 'into'} {chosen['name']}), "
        f"matched by {first.by} {first.phrase!r} (phrases of {cat.relations[first.relation].phrases_from})"
        + (f"; then {hops[1].relation}" if len(hops) > 1 else "")
    )
    if why:
        reason += f"; {why}"
    found = Plan(family, reason, chosen, others, hops, answer_labels=answer_labels, entity_ids=[chosen["id"]])
    if directed is not None:
        found.candidates = directed.to_dict()
    return found


@dataclass
class _Directed:
    """What the graph-directed choice saw: the answer type asked, the candidates, the choice."""

    asks: Asks
    candidates: list
    hop: Hop | None
    why: str

    def to_dict(self) -> dict:
        return {
            "asks": self.asks.describe(),
            "chosen": self.hop.relation if self.hop else None,
            "why": self.why,
            "candidates": [c.to_dict() for c in self.candidates],
        }


def _find_hops(graph, analysis, question, masked, words, candidates, has, cat, embedder):
    """(hops, the graph-directed choice or None, the asked-for labels): the schema's phrases
    first, then the entity's own relations, then similarity with every relation's phrases; a
    chain goes on hop by hop while the question's words name the next one."""
    counting = bool(_COUNT.search(question))
    hops = _lexical_hops(words, cat, fits=_fits_entity(graph, candidates, has, cat), noun_at=_noun_at(words))
    if hops:
        hops = _with_edges(graph, candidates, hops, _lexical_hops(words, cat, every=True), cat)
    answer_labels = _answer_labels(question, cat, counting)
    directed = None
    named = len(hops) == 1 and "its name" in cat.relations[hops[0].relation].phrases_from
    if (not hops or named) and analysis.language != "zh":
        types = {t for e in candidates for t in e.get("labels") or [e.get("type")] if t}
        directed = _graph_directed(question, masked, words, cat, embedder, has, types)
        if not hops:
            hops = [directed.hop] if directed.hop else []
        elif _outranks(directed, hops[0]):  # a phrase read off a name ("plays for") is one clue, not the answer
            hops = [directed.hop]
        else:
            directed = None
    if len(hops) == 1 and not hops[0].also and analysis.language != "zh":
        hops = _chained(graph, hops, [e["id"] for e in candidates], question, masked, words, cat, embedder)
    if not hops and _content_words(words) and analysis.language != "zh":
        hops = _embedding_hops(masked, cat, embedder, candidates, answer_labels)
        if hops and not _one_way(graph, candidates, hops[0], cat, answer_labels):
            hops = []
    if not hops and answer_labels:
        hops = _only_relation(graph, candidates, answer_labels, cat)
    return hops, directed, answer_labels


def _outranks(directed, hop: Hop) -> bool:
    """Whether the graph-directed choice names another relation by more of the question's words
    than the one whose name-made phrase matched ("played for before": PREVIOUSLY_AT, not PLAYS_FOR)."""
    if directed.hop is None or directed.hop.relation == hop.relation or directed.hop.by != "graph (lemma)":
        return False
    scores = {c.relation: c.lemma for c in directed.candidates}
    return directed.hop.score > scores.get(hop.relation, 0.0)


def _chained(graph, hops: list[Hop], ids: list[str], question, masked, words, cat: Catalog, embedder) -> list[Hop]:
    """One hop, and a second when the question's other words name it ("who wrote the books
    [published by X]?"); none when the question asks for a type the one hop does not reach and
    no second hop does."""
    asks = answer_asked(question)
    second, _why = next_hop(graph, hops[0], ids, words, asks, masked, cat, embedder)
    wrong_type = firm_type(asks, cat) and far_fits(graph, hops[0], ids, asks, cat) is False
    if second is not None and (second.by == "graph (lemma)" or wrong_type):
        return [hops[0], second]
    return [] if wrong_type else hops


def _graph_directed(question: str, masked: str, words: list[str], cat: Catalog, embedder, has, types) -> _Directed:
    """The entity's own relations, ranked by answer type, lemma and similarity (candidates.py);
    "the author of X" is first the relation "author" names."""
    asks = answer_asked(question)
    predicate = predicate_lemmas(words, asks)
    at = named_by_noun(words)
    if at is not None:
        by_noun = [p for p in predicate if p[0] == at]
        score(has, cat, Asks(), by_noun, masked, embedder)
        hop, why = choose(has, Asks(), words, cat, by_noun)
        if hop is not None and hop.by == "graph (lemma)":
            _of_x(hop, has, cat)
            return _Directed(asks, sorted(has, key=lambda c: (-c.lemma, -c.similarity)), hop, f"{why} (of X)")
        for c in has:
            c.lemma, c.matched, c.at = 0.0, "", None
        typed = _to_type(has, words[at], predicate, cat, words, masked, embedder)
        if typed is not None:
            return _Directed(asks, has, typed, f"'{words[at]} of X' is X's relation to a {words[at]} (of X)")
    score(has, cat, asks, predicate, masked, embedder)
    hop, why = choose(has, asks, words, cat, predicate)
    if hop is None or hop.by != "graph (lemma)":
        missing = named_elsewhere(predicate, cat, has, types, asks)
        if missing is not None:
            hop = Hop(missing.relation, missing.x_is_source, missing.matched, "graph (lemma)", missing.lemma)
            why = f"the question's words {missing.matched!r} name {missing.relation}, which the entity has no edge of"
    ranked = sorted(has, key=lambda c: (c.fits is False, -c.lemma, -c.similarity))
    return _Directed(asks, ranked, hop, why)


def _to_type(has: list, noun: str, predicate, cat: Catalog, words, masked, embedder) -> Hop | None:
    """ "X's club" / "the team of X" where Club is a type: X's one relation to it, or of several
    the one the question's words name ("the club X plays for")."""
    to_noun = Asks(None, noun)
    score(has, cat, to_noun, [p for p in predicate if p[1] != noun], masked, embedder)
    fitting = [c for c in has if c.fits]
    if not fitting:
        return None
    hop, _why = choose(fitting, to_noun, words, cat, predicate)
    for c in has:
        c.lemma, c.matched, c.at = 0.0, "", None
    return hop if hop is not None and hop.by != "graph (similarity)" else None


def _of_x(hop: Hop, has: list, cat: Catalog) -> None:
    """ "The author of X" / "X's teacher" (AUTHOR, or STUDIED_UNDER described as "the person's
    teacher") reads out of X: the noun names the far end. A name that ends in a preposition
    reads the other way: "the child of X" is the source of CHILD_OF, X its target."""
    ways = {c.x_is_source for c in has if c.relation == hop.relation}
    if len(ways) < 2 or cat.relations[hop.relation].symmetric:
        return
    named = any(c.relation == hop.relation and c.lemma >= 1.0 for c in has)
    prepositional = hop.relation.lower().rsplit("_", 1)[-1] in (
        "of",
        "by",
        "to",
        "in",
        "from",
        "with",
        "under",
        "at",
        "for",
    )
    hop.x_is_source = not (named and prepositional)


def _why(directed: _Directed | None) -> str:
    return f"; of the entity's own relations: {directed.why}" if directed is not None else ""


def _fits_entity(graph, candidates: list[dict], has: list, cat: Catalog):
    """Whether a phrase's relation, read with the entity on one side, can be about this entity:
    it has such edges, or its type is one the relation joins on that side (a phrase of another
    schema's relation is not applied to it)."""
    types = {t for e in candidates for t in e.get("labels") or [e.get("type")] if t}
    have = {(c.relation, c.x_is_source) for c in has}
    schemas = {r["schema"] for r in graph.read("structured/entity_schemas", ids=[e["id"] for e in candidates])}

    def fits(name: str, x_is_source: bool) -> bool:
        rel = cat.relations[name]
        if (name, x_is_source) in have or (rel.inverse_of, not x_is_source) in have:
            return True
        if rel.symmetric and (name, not x_is_source) in have:
            return True
        source = re.match(r"schema (\S+)", rel.phrases_from)
        if schemas and source and source.group(1) not in schemas:
            return False  # two schemas may both have a City: a phrase is its own schema's
        near = rel.sources if x_is_source else rel.targets
        return not types or not near or bool(types & near)

    return fits


def _mask(question: str, name: str) -> str:
    folded = fold(question)
    m = re.search(word_regex(name), " ".join(folded.split()))
    text = " ".join(folded.split())
    if not m:
        return folded
    masked = text[: m.start()] + _X + text[m.end() :]
    # "X's father" reads "father of X"; "whose son is X" reads "X is son of whom"
    masked = re.sub(rf"{_X}\s*['’]s?\s+(\w+)", rf"\1 of {_X}", masked)
    masked = re.sub(rf"^\s*whose\s+(\w+)\s+(is|was|are|were)\s+{_X}", rf"{_X} \2 \1 of whom", masked)
    # "what children did X have", "how many siblings does X have" read "children of X"
    return re.sub(
        rf"^\s*(which|what|how\s+many)\s+(\w+)\s+(?:did|does|do|has|have|had)\s+{_X}\s+(?:have|has|had|got)\b",
        rf"\1 \2 of {_X}",
        masked,
    )


def _with_edges(graph, candidates: list[dict], hops: list[Hop], every: list[Hop], cat: Catalog) -> list[Hop]:
    """The matched hops, the first one replaced by another relation one of the same phrases
    names when only that one has edges at the entity (two schemas may both say "works at")."""
    first = hops[0]
    for hop in [first] + [h for h in every if h.relation != first.relation and h.phrase_span == first.phrase_span]:
        if _edges(graph, [e["id"] for e in candidates], cat.relations[hop.relation], hop.x_is_source):
            return [hop] + hops[1:]
    return hops


def _noun_at(words: list[str]) -> int | None:
    """Where the asked-for noun of "which authors …" / "how many books …" is: a type, not a relation."""
    for i, w in enumerate(words[:4]):
        if w in ("which", "what") and i + 1 < len(words):
            return i + 1
        if w == "many" and i > 0 and words[i - 1] == "how" and i + 1 < len(words):
            return i + 1
    return None


def _lexical_hops(
    words: list[str], cat: Catalog, every: bool = False, fits=None, noun_at: int | None = None
) -> list[Hop]:
    """The relation phrases around the entity: the one nearest to it first, then one more
    further out on the same side ("who killed [the father of X]"), or, joined to the first by
    "or"/"and" ("married or engaged to"), one more read as a union. With `every`, each phrase
    match as a hop of its own (the alternatives to the first). `fits(relation, x_is_source)`
    says which relations the first hop may be (those of the entity's schema)."""
    if _X not in words:
        return []
    x = words.index(_X)
    stems = _stems(words)
    matches = []
    for rel, side, phrase in cat.phrase_list():
        for variant in _variants(phrase):
            p = _stems(tokens(variant))
            if not p:
                continue
            for start, end in _find(p, stems):
                if start <= x < end and _GAP not in p:
                    continue
                if noun_at is not None and (start, end) == (noun_at, noun_at + 1):
                    continue  # "which authors were born in X?": "authors" is what is asked for
                matches.append((rel, side, phrase, start, end, sum(1 for t in p if t != _GAP)))
    if not matches:
        return []
    # the longest phrase wins where two overlap ("killed by" over "killed")
    matches.sort(key=lambda m: (-m[5], abs((m[3] if m[3] > x else m[4]) - x)))
    kept: list[tuple] = []
    for m in matches:
        if every or all(m[4] <= k[3] or m[3] >= k[4] for k in kept):
            kept.append(m)
    kept.sort(key=lambda m: 0 if m[3] <= x < m[4] else (m[3] - x if m[3] > x else x - m[4]))
    passive = _passive(words)
    hops: list[Hop] = []
    side_of_x = None
    for rel, side, phrase, start, end, _n in kept:
        x_subject = x < start
        here = "before" if x_subject else "after"
        if start <= x < end:  # the entity fills the phrase's gap: it is its second argument
            x_subject, here = False, "inside"
        if side_of_x is not None and here != side_of_x:
            continue
        if passive and not _ends_in_preposition(phrase) and len(hops) == 0 and x_subject:
            x_subject = False  # "By whom was X killed?": X is what "killed" acts on
        hop = Hop(rel.name, (side == "forward") == x_subject, phrase, "phrase", phrase_span=(start, end))
        if (not hops or every) and fits is not None and not fits(hop.relation, hop.x_is_source):
            continue
        if hops and not every and _joined(words, hops[0], hop):
            if (hop.relation, hop.x_is_source) != (hops[0].relation, hops[0].x_is_source):
                hops[0].also.append(hop)
            continue
        if hops and not every and not _chains(cat, hops[0], hop):
            continue
        hops.append(hop)
        if every:
            continue
        side_of_x = here
        if len(hops) == 2:
            break
    return hops


def _joined(words: list[str], first: Hop, other: Hop) -> bool:
    """Whether two phrases are joined by "or"/"and" ("married or engaged to"): one question about
    either relation, not a chain of the two."""
    if first.phrase_span is None or other.phrase_span is None:
        return False
    (a0, a1), (b0, b1) = sorted([first.phrase_span, other.phrase_span])
    between = words[a1:b0]
    return bool(between) and all(w in ("or", "and", ",", "/") for w in between)


def _content_words(words: list[str]) -> list[str]:
    """What the masked question says besides the entity and question words ("who is X?" says nothing)."""
    function_words = lexicon.function_words()
    return [w for w in words if w != _X and w not in function_words and not w.isdigit()]


def _chains(cat: Catalog, first: Hop, second: Hop) -> bool:
    """Whether the second hop can start where the first ends (the types meet)."""
    a, b = cat.relations[first.relation], cat.relations[second.relation]
    far = a.targets if first.x_is_source else a.sources
    near = b.sources if second.x_is_source else b.targets
    return bool(far & near)


def _variants(phrase: str) -> list[str]:
    """A phrase, and for a Chinese one also without a closing 是 or 了: "创办人是" also finds
    "星河科技有几位创办人"."""
    out = [phrase]
    if not phrase.isascii():
        trimmed = re.sub("[是了]$", "", phrase)
        if trimmed != phrase and len(trimmed) >= 2 and trimmed not in out:
            out.append(trimmed)
    return out


def _passive(words: list[str]) -> bool:
    x = words.index(_X)
    be = lexicon.words("structured_passive_be")
    return any(w in be for w in words[:x]) and "by" in words and words[-1] != "by" and words.index("by") < x


def _ends_in_preposition(phrase: str) -> bool:
    last = phrase.split()[-1].lower() if phrase.split() else ""
    return last in {"by", "of", "to", "in", "at", "with", "for", "from", "as"} or not phrase.isascii()


def _answer_labels(question: str, cat: Catalog, counting: bool) -> list[str] | None:
    """The entity label the question asks for: "which characters" → Character."""
    m = re.search(r"^\s*(?:which|what|how\s+many|list|name|all)\s+(?:the\s+|of\s+the\s+)?(\w+)", question, re.I)
    if not m:
        return None
    noun = m.group(1).lower()
    if noun in lexicon.words("structured_generic_nouns"):
        return None
    labels = {label for rel in cat.relations.values() for label in rel.sources | rel.targets}
    stem = lexicon.stem(noun)
    hits = sorted(label for label in labels if lexicon.stem(label.lower()) == stem)
    return hits or None


def _embedding_hops(masked: str, cat: Catalog, embedder, candidates: list[dict], labels) -> list[Hop]:
    """The relation whose phrase sentences are nearest the masked question, when near enough."""
    if embedder is None or not cat.relations:
        return []
    templates, vectors = cat.template_vectors(embedder)
    text = masked.replace(_X, "X")
    q = embedder.embed([text])[0]
    types = {t for e in candidates for t in e.get("labels") or [e.get("type")] if t}
    scored = []
    for (name, x_is_source), group in templates.items():
        rel = cat.relations[name]
        near = rel.sources if x_is_source else rel.targets
        far = rel.targets if x_is_source else rel.sources
        if types and near and not types & near:
            continue
        if labels and far and not set(labels) & far:
            continue
        best = max(group, key=lambda s: _dot(q, vectors[s]))
        scored.append((_dot(q, vectors[best]), name, x_is_source, best))
    if not scored:
        return []
    scored.sort(reverse=True)
    top = scored[0]
    runner = next((s for s in scored[1:] if s[1] != top[1]), None)
    if top[0] < EMBED_FLOOR or (runner is not None and top[0] - runner[0] < EMBED_MARGIN):
        return []
    phrase = top[3].replace("X ", "").replace(" someone", "").replace("someone ", "").replace(" X", "")
    return [Hop(top[1], top[2], phrase, "embedding", top[0])]


def _one_way(graph, candidates: list[dict], hop: Hop, cat: Catalog, labels) -> bool:
    """An embedding match tells the relation better than its direction: it stands only when the
    entity has edges of that relation one way and not the other (and then takes that way)."""
    rel = cat.relations[hop.relation]
    ids = [e["id"] for e in candidates]
    ways = [out for out in (True, False) if _edges(graph, ids, rel, out, labels)]
    if rel.symmetric:
        return bool(ways)
    if len(ways) != 1:
        return False
    hop.x_is_source = ways[0]
    return True


def _dot(a, b) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=False)))


def _only_relation(graph, candidates: list[dict], labels: list[str], cat: Catalog) -> list[Hop]:
    """ "Which characters are in House Tully?": the one relation that joins the entity to
    entities of the asked-for label, when there is exactly one."""
    options = []
    types = {t for e in candidates for t in e.get("labels") or [e.get("type")] if t}
    for rel in cat.relations.values():
        for x_is_source in (True, False):
            near, far = (rel.sources, rel.targets) if x_is_source else (rel.targets, rel.sources)
            if types & near and set(labels) & far:
                options.append((rel.name, x_is_source))
    ids = [e["id"] for e in candidates]
    live = [(name, out) for name, out in options if _edges(graph, ids, cat.relations[name], out, labels)]
    if len({name for name, _ in live}) != 1 or len(live) != 1:
        return []
    name, out = live[0]
    return [Hop(name, out, name.lower().replace("_", " "), "only relation")]


def _lookup(graph, p: Plan, limit: int = MAX_ROWS) -> list[Row]:
    """The far side of the plan's hops from its entity (and the entities of its family)."""
    ids = [r["id"] for r in graph.read("structured/family", ids=p.entity_ids)]
    cat = catalog(graph)
    rows: list[Row] = []
    for hop in p.hops:
        # the asked-for noun chose the relation; it does not filter its far side ("characters"
        # killed by Jon Snow include a White Walker: a record of the same file)
        found = []
        for one in [hop, *hop.also]:  # "married or engaged to": either relation
            found += _edges(graph, ids, cat.relations[one.relation], one.x_is_source, limit=limit)
        rows = _lookup_rows(found)
        ids = [r.id for r in rows]
        if not ids:
            break
    return rows


def _lookup_rows(found: list[dict]) -> list[Row]:
    rows: dict[str, Row] = {}
    seen_names: set[str] = set()
    for r in found:
        key = " ".join(fold(r["name"] or r["id"]).split())
        if r["id"] in rows or key in seen_names:
            continue
        seen_names.add(key)
        record = None
        if not r["documentId"] and r["recordSource"]:
            owner = r["record"] or r["entityName"]
            record = f"{r['recordSource']}#{owner}"
        rows[r["id"]] = Row(
            r["name"] or r["id"],
            r["id"],
            r["labels"],
            relation=r["relation"],
            via=r["property"] or "",
            document_id=r["documentId"],
            chunk_id=r["chunkId"],
            title=None,
            uri=r["uri"],
            text=r["text"] or "",
            record=record,
        )
        rows[r["id"]].title = r["title"]
    return list(rows.values())
