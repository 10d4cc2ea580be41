"""The structured route: questions about the graph itself, answered from its structure.

Three families, in English and Chinese:

- **lookup** — "Who killed Eddard Stark?", "Whom did Arya Stark kill?", "Which characters
  belong to House Tully?", "Who played Tyrion?": the entities on the far side of one relation
  (or a chain of two: "Who killed the father of Jon Snow?") from the question's entity;
- **count** — "How many people did Arya Stark kill?": the same, counted ("3: A, B and C");
- **documents** — "Which tales mention a fox?", "How many of the ISAW articles mention
  Alexandria?": every document of the scope that mentions the term (on word boundaries, over
  the whole corpus, and through MENTIONS links to the entity it names), not the top k;
- **authored** — "Which articles did Sebastian Heath write?", "How many papers has Heath
  written?", "Who wrote Linked Coins?": the documents a person authored, or the authors of a
  document, read from ``(:Person)-[:AUTHORED]->(:Document)`` (the documents' metadata), each
  document cited.

Nothing here knows a data set. The relations come from the graph (its relationship types
and the labels at their ends) and their phrases from the schema that loaded them (recorded in
the graph as ``:__Schema``), or from built-in schemas, or from the type's name ("KILLED_BY" →
"killed by" / "killed"). A question is matched to a relation and a direction by those phrases:
lexically, on word stems around the masked entity ("who killed [X]" has "killed" before X, so
X is its object: the one killed), and else by embedding similarity of the masked question with
each phrase's sentences. Anything that does not match well, or matches and finds no edge, goes
back to the search route; `--explain` says why.
"""

from __future__ import annotations

import json
import re
import threading
import time
import weakref
from dataclasses import dataclass, field

from ..schema import RelationType, builtin_schemas, default_phrases, load_schema
from ..text import fold, word_regex
from .base import Evidence, Filters, lucene_phrase, lucene_query

# relationship types of the lexical graph and the linkers: not relations a question asks about
STRUCTURAL = [
    "FROM_CHUNK",
    "FROM_DOCUMENT",
    "NEXT_CHUNK",
    "MENTIONS",
    "INSTANCE_OF",
    "DESCRIBES",
    "SAME_AS",
    "CO_OCCURS",
    "HAS_PHRASE",
    "IN_COMMUNITY",
    "PARENT",
    "AUTHORED",
    "LINKS_TO",
]
CATALOG_SECONDS = 30.0  # how long the relation catalog of a graph is reused
MAX_CANDIDATES = 20  # entities of one name checked for the relation's edges
MAX_ROWS = 500  # far-side entities read per lookup
MAX_DOCUMENT_HITS = 20000  # chunks the full-text shortlist of a documents question may give
EMBED_FLOOR = 0.65  # a masked question this close to a relation's phrase sentence matches it
EMBED_MARGIN = 0.02  # ... and this much closer than to any other relation

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|['’]s\b|[^\W_{_CJK}]+|…")
_X = "\x00"  # the masked entity in a token list
_GAP = "…"  # in a phrase: up to four tokens ("被…杀" reads "被谁杀")
_BE = {"is", "was", "were", "are", "been", "be", "being", "get", "got"}
_AUX = {"did", "does", "do", "has", "have", "had", "will", "would", "can", "could"}
_ARTICLES = {"a", "an", "the", "any", "some", "all", "every"}
_WH = re.compile(
    r"\b(?:who|whom|whose|what|which)\b|^\s*(?:name|list|show|give|tell|find)\b|[谁誰哪]|什么|什麼|多少|几|幾", re.I
)
_COUNT = re.compile(
    r"^\s*(?:in\s+|for\s+|of\s+)?(?:how\s+many|what\s+is\s+the\s+number\s+of|(?:the\s+)?number\s+of|count\s+(?:the\s+)?)\b"
    r"|多少|[几幾](?:个|個|位|篇|名|人|部|本|次|家)",
    re.I,
)
_LIST = re.compile(
    r"^\s*(?:which|what)\s+\w+|^\s*(?:list|name|show|give|find|tell\s+me)\b|哪些|哪几|哪幾|列出|有哪",
    re.I,
)
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
# the noun must be what the question asks for: "which tales", "how many of the ISAW articles",
# "in which documents", "every story", "list the papers" ("which book features X?" is not one)
_DOC_NOUN = re.compile(
    r"(?:\b(?:which|what|how\s+many|every|all|each|any|list|name|show|find|count)\b(?:\s+of)?(?:\s+(?:the|our|these|those|my))?"
    r"(?:\s+(?!(?:mention|mentions|mentioned|that|which|who)\b)[\w-]+){0,2}?\s+)"
    r"(documents?|docs|pages?|passages?|tales?|stories|story|fables?|articles?|papers?)\b",
    re.I,
)
_ZH_DOC_NOUN = re.compile("|".join(sorted(_ZH_DOC_NOUNS, key=len, reverse=True)))
_MENTION = re.compile(
    r"\b(?:mention(?:s|ed|ing)?|refer(?:s|red|ring)?\s+to|talk(?:s|ed|ing)?\s+about|speak(?:s|ing)?\s+(?:of|about)"
    r"|discuss(?:es|ed|ing)?|name[sd]?|naming|cite[sd]?|citing|feature[sd]?|featuring|contain(?:s|ed|ing)?"
    r"|include[sd]?|including|(?:is|are|was|were)\s+about|deal(?:s|t)?\s+with|appear(?:s|ed|ing)?(?:\s+in)?"
    r"|occur(?:s|red|ring)?(?:\s+in)?|show(?:s|ed)?\s+up(?:\s+in)?)\b",
    re.I,
)
_ZH_MENTION = re.compile(r"提到|提及|提起|涉及|谈到|談到|说到|說到|讲到|講到|包含|出现|出現|有关|有關|关于|關於")
_FILLER_TAIL = re.compile(
    r"(?:\s+(?:at\s+all|in\s+them|anywhere|in\s+(?:the|this|our)\s+(?:corpus|graph|collection)|in\s+total|altogether))+$",
    re.I,
)
_GENERIC_NOUNS = {"people", "person", "persons", "men", "man", "women", "woman", "one", "ones", "someone", "thing"}


# --- the catalog: relations and what questions call them ---------------------------------


@dataclass
class RelationSpec(RelationType):
    """A schema's relation type as the graph holds it: with its edge count, the labels seen at
    its ends, and where its phrases came from."""

    edges: int = 0
    phrases_from: str = "its name"


@dataclass
class Catalog:
    relations: dict[str, RelationSpec]
    scopes: list[dict]  # {labels, corpus, documents}
    templates: dict = field(default_factory=dict)  # (relation, x_is_source) -> [template sentences]
    vectors: dict = field(default_factory=dict)  # sentence -> vector, filled on first use
    # a catalog is shared by request threads: its templates and vectors are filled under this lock
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def template_vectors(self, embedder) -> tuple[dict, dict]:
        """(templates, vectors): the relations' template sentences and their vectors, made on
        first use (once, whichever request thread comes first; the others wait for them)."""
        with self.lock:
            if not self.templates:
                templates: dict = {}
                for rel, side, phrase in self.phrase_list():
                    if not phrase.isascii():
                        continue
                    for x_subject, sentence in ((True, f"X {phrase} someone"), (False, f"someone {phrase} X")):
                        templates.setdefault((rel.name, (side == "forward") == x_subject), []).append(sentence)
                self.templates = templates
            sentences = [s for group in self.templates.values() for s in group if s not in self.vectors]
            if sentences:
                self.vectors.update(zip(sentences, embedder.embed(sentences), strict=True))
            return self.templates, self.vectors

    def phrase_list(self):
        """(relation, side, phrase) for every phrase, the inverse type's phrases read the other way."""
        for rel in self.relations.values():
            for side in ("forward", "inverse"):
                for phrase in getattr(rel, side):
                    yield rel, side, phrase

    @property
    def corpora(self) -> list[str]:
        return sorted({s["corpus"] for s in self.scopes if s.get("corpus")})

    @property
    def document_labels(self) -> set[str]:
        return {label for s in self.scopes for label in s["labels"]}


# Kept per graph object, and gone with it: keyed by id(), a new connection that reused a dead
# one's id was given the other graph's relations.
_catalogs: weakref.WeakKeyDictionary[object, tuple[float, Catalog]] = weakref.WeakKeyDictionary()
_catalog_lock = threading.Lock()


def catalog(graph) -> Catalog:
    """The graph's relations with their phrases, reused for CATALOG_SECONDS."""
    now = time.monotonic()
    with _catalog_lock:
        held = _catalogs.get(graph)
        if held is not None and now - held[0] < CATALOG_SECONDS:
            return held[1]
    built = _build_catalog(graph)
    with _catalog_lock:
        _catalogs[graph] = (now, built)
    return built


def _schema_specs(graph) -> list[tuple[str, dict]]:
    """(where, relation dict) of the schemas the graph recorded, then the built-in ones."""

    out: list[tuple[str, dict]] = []
    builtin = set(builtin_schemas())
    for row in graph.read("structured/schemas"):
        if row["path"] in builtin:  # the installed package's copy of a built-in schema is the one in force
            continue
        try:
            relations = json.loads(row["relations"] or "{}")
        except ValueError:
            continue
        out.extend((f"schema {row['name']}", spec) for spec in relations.values() if isinstance(spec, dict))
    for name in builtin_schemas():
        try:
            schema = load_schema(name)
        except Exception:  # noqa: BLE001 - a broken built-in schema must not stop questions
            continue
        out.extend((f"schema {name}", rel.to_dict()) for rel in schema.relation_types.values())
    return out


def _build_catalog(graph) -> Catalog:

    specs: dict[str, tuple[str, dict]] = {}
    for where, spec in _schema_specs(graph):
        specs.setdefault(spec.get("name", ""), (where, spec))
    relations: dict[str, RelationSpec] = {}
    for row in graph.read("structured/relation_types", sample=200, skip=STRUCTURAL):
        if not row["edges"]:
            continue
        name = row["type"]
        where, spec = specs.get(name, ("its name", {}))
        forward, inverse = (tuple(spec.get("forward") or ()), tuple(spec.get("inverse") or ()))
        if not spec:
            forward, inverse = default_phrases(name)
        relations[name] = RelationSpec(
            name,
            sources=frozenset(row["sources"]) | frozenset(spec.get("source") or ()),
            targets=frozenset(row["targets"]) | frozenset(spec.get("target") or ()),
            forward=forward,
            inverse=inverse,
            inverse_of=spec.get("inverseOf"),
            symmetric=bool(spec.get("symmetric")),
            edges=int(row["edges"]),
            phrases_from=where,
        )
    return Catalog(relations, graph.read("structured/document_scopes"))


# --- words ---------------------------------------------------------------------------------

# snowballstemmer's stemmer keeps the word it works on in the instance: shared by request
# threads it fails or returns another word's stem, so each thread has its own (measured: as fast
# as one thread's, where a lock made 8 threads stemming at once 25% slower)
_stemmers = threading.local()


def _stem(token: str) -> str:
    if not token.isascii() or not token.isalpha():
        return token
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(token)


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
    return [w if w in (_X, _GAP) else _stem(w) for w in words]


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


# --- what a question asks -------------------------------------------------------------------


@dataclass
class Hop:
    relation: str
    x_is_source: bool  # the known end is the relation's source: the answer is its targets
    phrase: str
    by: str  # "phrase", "embedding" or "only relation"
    score: float = 1.0
    phrase_span: tuple[int, int] | None = None  # where the phrase is in the question's tokens

    def to_dict(self) -> dict:
        return {
            "relation": self.relation,
            "direction": "out" if self.x_is_source else "in",
            "phrase": self.phrase,
            "matched_by": self.by,
            "score": round(self.score, 3),
        }


@dataclass
class Plan:
    family: str  # "lookup", "list", "count", "documents", "count_documents"
    reason: str
    entity: dict | None = None
    others: list[dict] = field(default_factory=list)
    hops: list[Hop] = field(default_factory=list)
    term: str | None = None
    answer_labels: list[str] | None = None
    scope: dict = field(default_factory=dict)  # {noun, labels, corpus}
    entity_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "reason": self.reason,
            "entity": self.entity,
            "others": self.others,
            "hops": [h.to_dict() for h in self.hops],
            "term": self.term,
            "answer_labels": self.answer_labels,
            "scope": self.scope,
        }


@dataclass
class Refusal:
    """Why a question is not answered from the structure (it goes to the search route)."""

    reason: str
    looks_structured: bool = False  # a count or list question: text-to-Cypher may try it

    def to_dict(self) -> dict:
        return {"family": None, "reason": self.reason}


_SUPERLATIVE = re.compile(
    r"\b(?:most|least|fewest|largest|smallest|biggest|top\s+\d+|more\s+than|fewer\s+than|at\s+least)\b|最多|最少",
    re.I,
)


def looks_structured(question: str, cat: Catalog | None = None) -> bool:
    """A question about counts, lists or rankings of things the graph holds ("How many houses
    …?", "Which house has the most members?"): text-to-Cypher may answer it when the templates
    do not. It must name a kind of node of the graph (an entity label, a document noun), so
    "What is the boiling point of tungsten?" is not one."""
    if not (_COUNT.search(question) or _LIST.search(question) or _SUPERLATIVE.search(question)):
        return False
    if cat is None:
        return True
    kinds = {_stem(label.lower()) for rel in cat.relations.values() for label in rel.sources | rel.targets}
    kinds |= {_stem(label.lower()) for label in cat.document_labels} | {_stem(n) for n in _DOC_NOUNS}
    words = {_stem(w) for w in tokens(question) if w.isascii()}
    han = any(noun in question for noun in _ZH_DOC_NOUNS)
    return bool(words & kinds) or han


def plan(graph, analysis, embedder=None) -> Plan | Refusal:
    """What the question asks of the graph's structure, or why it does not."""
    question = analysis.search_text or analysis.question
    counting = bool(_COUNT.search(question))
    listing = bool(_LIST.search(question))
    authored = _authored_question(question)
    if authored is not None:
        found = _authored_plan(graph, authored, counting)
        if found is not None:
            return found
    cat = catalog(graph)
    docs = _documents_question(question, cat)
    if docs is not None:
        return _documents_plan(graph, analysis, cat, docs, counting)
    if not (_WH.search(question) or counting):
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
    open_words = [w for w in words if _stem(w) in _OPEN_STEMS]
    open_words += [w for i, w in enumerate(words) if w == "how" and words[i + 1 : i + 2] not in (["many"], ["much"])]
    if open_words:
        return Refusal(f"an open question ({open_words[0]!r}), not a lookup of {matched!r}'s relations")
    hops = _lexical_hops(words, cat)
    if hops:
        hops = _with_edges(graph, candidates, hops, _lexical_hops(words, cat, every=True), cat)
    answer_labels = _answer_labels(question, cat, counting)
    if not hops and _content_words(words) and analysis.language != "zh":
        hops = _embedding_hops(masked, cat, embedder, candidates, answer_labels)
        if hops and not _one_way(graph, candidates, hops[0], cat, answer_labels):
            hops = []
    if not hops and answer_labels:
        hops = _only_relation(graph, candidates, answer_labels, cat)
    if not hops:
        return Refusal(
            f"no relation of the graph matches the question's words around {matched!r}", looks_structured(question, cat)
        )
    chosen, others, why = choose_entity(graph, candidates, cat, hops[0], analysis.filters)
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
    return Plan(family, reason, chosen, others, hops, answer_labels=answer_labels, entity_ids=[chosen["id"]])


def _entity_spans(entities: list[dict], question: str) -> list[tuple[str, list[dict]]]:
    """The question's entities grouped by the name that found them (one name may find several)."""
    spans: dict[str, list[dict]] = {}
    for e in entities:
        spans.setdefault(" ".join(fold(e["matched"]).split()), []).append(e)
    # a name that is also a document noun or a corpus name is not what the question is about
    return [(name, group) for name, group in spans.items() if name]


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


def _edges(graph, ids: list[str], rel: RelationSpec, out: bool, labels=None, limit: int = 1) -> list[dict]:
    """The far ends of `rel` from the entities `ids` (out: they are its source), `limit` of them."""
    return graph.read(
        "structured/lookup",
        ids=ids,
        type=rel.name,
        inverse=rel.inverse_of,
        symmetric=rel.symmetric,
        out=out,
        labels=labels,
        limit=limit,
    )


def _with_edges(graph, candidates: list[dict], hops: list[Hop], every: list[Hop], cat: Catalog) -> list[Hop]:
    """The matched hops, the first one replaced by another relation one of the same phrases
    names when only that one has edges at the entity (two schemas may both say "works at")."""
    first = hops[0]
    for hop in [first] + [h for h in every if h.relation != first.relation and h.phrase_span == first.phrase_span]:
        if _edges(graph, [e["id"] for e in candidates], cat.relations[hop.relation], hop.x_is_source):
            return [hop] + hops[1:]
    return hops


def _lexical_hops(words: list[str], cat: Catalog, every: bool = False) -> list[Hop]:
    """The relation phrases around the entity: the one nearest to it first, then one more
    further out on the same side ("who killed [the father of X]"). With `every`, each phrase
    match as a hop of its own (the alternatives to the first)."""
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
        if hops and not every and not _chains(cat, hops[0], hop):
            continue
        hops.append(hop)
        if every:
            continue
        side_of_x = here
        if len(hops) == 2:
            break
    return hops


# words of questions that ask for a story, not a neighbour: "what happened to X at the wedding?"
_OPEN_STEMS = {
    "happen",
    "why",
    "describ",
    "explain",
    "say",
    "said",
    "think",
    "feel",
    "mean",
    "known",
    "famous",
    "look",
    "like",
    "about",
    "when",
    "where",
    "fate",
    "histori",
    "stori",
    "summar",
    "summari",
}
_FUNCTION_WORDS = (
    _BE
    | _AUX
    | _ARTICLES
    | {
        "who",
        "whom",
        "whose",
        "what",
        "which",
        "how",
        "many",
        "much",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "and",
        "or",
        "'s",
        "me",
        "tell",
        "list",
        "name",
        "show",
        "give",
        "find",
        "there",
        "that",
        "this",
        "these",
        "those",
        "it",
        "they",
        "he",
        "she",
        "his",
        "her",
        "their",
        "its",
    }
)


def _content_words(words: list[str]) -> list[str]:
    """What the masked question says besides the entity and question words ("who is X?" says nothing)."""
    return [w for w in words if w != _X and w not in _FUNCTION_WORDS and not w.isdigit()]


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
    return any(w in _BE for w in words[:x]) and "by" in words and words[-1] != "by" and words.index("by") < x


def _ends_in_preposition(phrase: str) -> bool:
    last = phrase.split()[-1].lower() if phrase.split() else ""
    return last in {"by", "of", "to", "in", "at", "with", "for", "from", "as"} or not phrase.isascii()


def _answer_labels(question: str, cat: Catalog, counting: bool) -> list[str] | None:
    """The entity label the question asks for: "which characters" → Character."""
    m = re.search(r"^\s*(?:which|what|how\s+many|list|name|all)\s+(?:the\s+|of\s+the\s+)?(\w+)", question, re.I)
    if not m:
        return None
    noun = m.group(1).lower()
    if noun in _GENERIC_NOUNS:
        return None
    labels = {label for rel in cat.relations.values() for label in rel.sources | rel.targets}
    stem = _stem(noun)
    hits = sorted(label for label in labels if _stem(label.lower()) == stem)
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


def choose_entity(graph, candidates: list[dict], cat: Catalog, hop: Hop | None, filters: Filters):
    """(chosen, others, why): of several entities a name finds, the one the question means:
    of the type the relation needs, with edges of that relation, then the one most chunks of the
    scope link to."""
    if len(candidates) == 1:
        weights = graph.read("retrieval/entity_weights", ids=[candidates[0]["id"]], corpus=filters.corpus)
        return _public(candidates[0], weights[0] if weights else {}), [], ""
    weights = {
        w["id"]: w
        for w in graph.read("retrieval/entity_weights", ids=[e["id"] for e in candidates], corpus=filters.corpus)
    }
    need: frozenset[str] = frozenset()
    with_edges: set[str] = set()
    if hop is not None and hop.relation in cat.relations:
        rel = cat.relations[hop.relation]
        need = rel.sources if hop.x_is_source else rel.targets
        with_edges = {e["id"] for e in candidates[:MAX_CANDIDATES] if _edges(graph, [e["id"]], rel, hop.x_is_source)}

    def key(e):
        w = weights.get(e["id"], {})
        fits = bool(need & set(e.get("labels") or [])) if need else True
        edged = e["id"] in with_edges if hop is not None else True
        return (not edged, not fits, -(w.get("chunks") or 0), -(w.get("relations") or 0), e["id"])

    ranked = sorted(candidates, key=key)
    chosen = ranked[0]
    w = weights.get(chosen["id"], {})
    why = (
        f"{chosen['matched']!r} names {len(candidates)} entities; chose {chosen['id']} "
        f"({chosen.get('type') or 'entity'}, {w.get('chunks') or 0} chunks link to it"
        + (f", with {hop.relation} edges" if hop and chosen["id"] in with_edges else "")
        + ")"
    )
    return _public(chosen, w), [_public(e, weights.get(e["id"], {})) for e in ranked[1:]], why


def _public(e: dict, weight: dict) -> dict:
    return {
        "id": e["id"],
        "name": e["name"],
        "type": e.get("type"),
        "chunks": weight.get("chunks", 0),
        "relations": weight.get("relations", 0),
    }


# --- documents that mention something -----------------------------------------------------


# documents that are never what "which documents mention X" counts (generated from the graph),
# and, for articles and papers, documents that are plainly something else
_NOT_DOCUMENTS = ["EntityDocument"]
_NOT_ARTICLES = ["EntityDocument", "Story", "WikiPage", "Passage", "FeedEntry"]


@dataclass
class _DocsQuestion:
    noun: str
    label: str | None
    corpus: str | None
    term: str
    exclude: list[str] = field(default_factory=lambda: list(_NOT_DOCUMENTS))


def _documents_question(question: str, cat: Catalog) -> _DocsQuestion | None:
    """ "Which tales mention a fox?" → (tales, Story, fox); None when it is not that kind."""
    noun_m = _DOC_NOUN.search(question)
    zh_noun = _ZH_DOC_NOUN.search(question)
    verb = (_MENTION.search(question, noun_m.end()) or _MENTION.search(question)) if noun_m else None
    zh_verb = _ZH_MENTION.search(question)
    if noun_m and verb:
        noun, label = noun_m.group(1), _DOC_NOUNS.get(_singular(noun_m.group(1).lower()))
        term = _english_term(question, verb, noun_m)
    elif zh_noun and zh_verb:
        noun, label = zh_noun.group(0), _ZH_DOC_NOUNS[zh_noun.group(0)]
        term = _chinese_term(question, zh_verb, zh_noun)
    else:
        return None
    if not term:
        return None
    corpus = None
    for name in cat.corpora:
        if re.search(word_regex(name), question, re.I):
            corpus = name
            term = re.sub(word_regex(name), "", term, flags=re.I).strip() or term
    exclude = list(_NOT_ARTICLES) if label == "Article" else list(_NOT_DOCUMENTS)
    if label == "Article" or (label is not None and label not in cat.document_labels):
        # "articles" are whatever is not plainly something else: files of papers are articles too
        label = None
    return _DocsQuestion(_plural(noun), label, corpus, term, exclude)


def _plural(noun: str) -> str:
    lower = noun.lower()
    if not noun.isascii() or lower.endswith("s") or lower == "news":
        return noun
    return noun[:-1] + "ies" if lower.endswith("y") else noun + "s"


def _singular(noun: str) -> str:
    if noun == "stories":
        return "story"
    if noun == "entries":
        return "entry"
    if noun in ("news", "docs"):
        return noun.rstrip("s") if noun == "docs" else noun
    return noun[:-1] if noun.endswith("s") else noun


def _english_term(question: str, verb: re.Match, noun: re.Match) -> str | None:
    tail = question[verb.end() :]
    if verb.start() > noun.end() and not tail.strip(" ?!."):
        # "In which articles is Alexandria mentioned?": the term sits before the verb
        head = question[noun.end() : verb.start()]
        head = re.sub(r"^\s*(?:(?:in|of|at|on)\s+)?(?:which|that|where|whom?)\b", "", head, flags=re.I)
        head = re.sub(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", "", head, flags=re.I)
        tail = head
    tail = re.split(r"[?!;]|\.(?:\s|$)", tail)[0]
    tail = re.sub(r"^\s*(?:the\s+word|the\s+name|the\s+term)\s+", "", tail, flags=re.I)
    tail = _FILLER_TAIL.sub("", tail.strip())
    tail = re.sub(r"^(?:(?:a|an|the|any|some)\s+)+", "", tail.strip(), flags=re.I)
    tail = tail.strip(" \"'“”‘’`,:")
    if not tail or len(tail.split()) > 6:
        return None
    return tail


def _chinese_term(question: str, verb: re.Match, noun: re.Match) -> str | None:
    """ "哪些文章提到了深圳" → 深圳 (after the verb); "提到深圳的文章" → 深圳; "深圳在哪些新闻里被提到过" →
    深圳 (before the question word)."""
    after = re.sub(r"^[了过過]+", "", question[verb.end() :])
    term = re.split(r"[的？?。！!，,]|有哪|有多少|是哪", after)[0].strip(" “”\"'「」")
    if not term and verb.start() > 0:
        before = question[: verb.start()]
        before = re.split(r"(?:在|被|于|於)?(?:哪些|哪几|哪幾|多少|几|幾|哪)", before)[0]
        before = re.sub(r"(?:被|在|于|於)$", "", before)
        term = re.split(r"[，,。？?]", before)[-1].strip(" “”\"'「」")
        term = re.sub("^有", "", term)
    return term or None


def _documents_plan(graph, analysis, cat: Catalog, docs: _DocsQuestion, counting: bool) -> Plan:
    found = [
        e for e in analysis.entities if fold(docs.term) in fold(e["matched"]) or fold(e["matched"]) in fold(docs.term)
    ]
    spans = _entity_spans(found, docs.term)
    term = docs.term
    entity, others, why, ids = None, [], "", []
    if spans:
        name, candidates = max(spans, key=lambda s: len(s[0]))
        if fold(docs.term) == name or len(name) >= len(fold(docs.term)) - 4:
            entity, others, why = choose_entity(
                graph, candidates, cat, None, Filters(corpus=docs.corpus or analysis.filters.corpus)
            )
            ids = [r["id"] for r in graph.read("structured/family", ids=[entity["id"]])]
    scope = {
        "noun": docs.noun,
        "labels": [docs.label] if docs.label else None,
        "exclude": docs.exclude,
        "corpus": docs.corpus,
    }
    family = "count_documents" if counting else "documents"
    reason = f"{family}: {docs.noun} that mention {term!r}"
    if docs.label:
        reason += f" (documents labelled {docs.label})"
    if docs.corpus:
        reason += f" (corpus {docs.corpus!r}, named in the question)"
    if entity is not None:
        reason += f"; also chunks linked to {entity['id']}"
    if why:
        reason += f"; {why}"
    return Plan(family, reason, entity, others, [], term, None, scope, ids)


# --- documents by author, authors of a document --------------------------------------------

AUTHORED_FAMILIES = ("authored", "count_authored", "authors_of")
_WORKS = (
    r"(?:documents?|docs|articles?|papers?|works?|pieces?|publications?|essays?|chapters?|books?|texts?"
    r"|contributions?|studies|study|reports?|pages?)"
)
_WRITE = r"(?:write|wrote|written|writing|(?:co-?)?author(?:ed)?|publish(?:ed)?|pen(?:ned)?|contribute[d]?|produce[d]?)"
_ASK = r"^\s*(?:(?:in|of)\s+)?(?:which|what|list|name|show(?:\s+me)?|find|give\s+me|tell\s+me|how\s+many|count)\b"
_FILL = r"(?:\s+(?!(?:mention|mentions|mentioned|cite|cites|cited|refer|refers|about|on)\b)[\w-]+){0,3}?"
_NAME = r"(?P<name>(?:[^?!.;:]|(?<=\b[A-Z])\.)+?)"  # stops at punctuation, but not at an initial's dot
_END = r"\s*[?!.]*\s*$"
_BY_AUTHOR = [
    # "Which articles did Sebastian Heath write?", "How many papers has Heath written?"
    re.compile(
        _ASK
        + r"(?:\s+of)?(?:\s+(?:the|his|her|their))?"
        + _FILL
        + r"\s+"
        + _WORKS
        + r"\s+(?:did|does|do|has|have|had|will)\s+"
        + _NAME
        + r"\s+"
        + _WRITE
        + r"\b(?:\s+(?:in\s+total|altogether))?"
        + _END,
        re.I,
    ),
    # "Which papers were written by Sebastian Heath?", "List the articles by Heath, Sebastian"
    re.compile(
        _ASK
        + r"(?:\s+(?:are|were|of))?(?:\s+(?:the|all))?"
        + _FILL
        + r"\s+"
        + _WORKS
        + r"(?:\s+(?:that|which))?(?:\s+(?:is|are|was|were|has\s+been|have\s+been|did))?(?:\s+"
        + _WRITE
        + r")?\s+by\s+"
        + _NAME
        + _END,
        re.I,
    ),
    # "What did Sebastian Heath write?", "What has Heath published?"
    re.compile(r"^\s*what\s+(?:else\s+)?(?:did|does|has|have|had)\s+" + _NAME + r"\s+" + _WRITE + r"\b" + _END, re.I),
    # "What are Sebastian Heath's papers?", "Show me Heath's articles"
    re.compile(
        _ASK
        + r"(?:\s+(?:are|were|is))?(?:\s+all(?:\s+of)?)?\s+"
        + _NAME
        + r"['’]s?(?:\s+[\w-]+){0,2}?\s+"
        + _WORKS
        + _END,
        re.I,
    ),
]
_OF_DOCUMENT = [
    # "Who wrote Linked Coins?", "Who are the authors of 'Linked Coins'?", "Which author wrote the paper X?"
    re.compile(
        r"^\s*(?:who|which\s+(?:authors?|persons?|people|scholars?))\s+(?:(?:co-?)?wrote|(?:co-?)?authored|penned|(?:is|was|are|were)\s+(?:the\s+)?(?:co-?)?authors?\s+of|(?:has|have)\s+written)"
        r"\s+(?:the\s+" + _WORKS + r"\s+)?(?P<title>.+?)" + _END,
        re.I,
    ),
    # "Who was Linked Coins written by?"
    re.compile(
        r"^\s*who\s+(?:is|was|were)\s+(?:the\s+" + _WORKS + r"\s+)?(?P<title>.+?)\s+(?:written|authored)\s+by" + _END,
        re.I,
    ),
]
_QUOTES = " \"'“”‘’«»`"
_QUESTION_TAIL = re.compile(r"\s+(?:in|during|between|before|after|since|for|about|on)\s+[^?!.]*[?!.]?\s*$", re.I)
_NAME_TAIL = re.compile(r"\s+(?:in|during|between|before|after|since|for|at)\s+.*$", re.I)


@dataclass
class _AuthorQuestion:
    kind: str  # "by_author" or "of_document"
    text: str  # the author's name or the document's title, as the question writes it
    noun: str = "documents"
    ignored: str = ""  # words after the name the answer does not filter on ("in 2015")


def _authored_question(question: str) -> _AuthorQuestion | None:
    """ "Which articles did Sebastian Heath write?" → (by_author, Sebastian Heath, articles);
    "Who wrote Linked Coins?" → (of_document, Linked Coins); None when it is neither."""
    for pattern in _OF_DOCUMENT:
        m = pattern.search(question)
        if m:
            title = m.group("title").strip(_QUOTES)
            if title and title.lower() not in ("it", "this", "that", "them", "these", "those"):
                return _AuthorQuestion("of_document", title)
    tail_m = _QUESTION_TAIL.search(question)
    tries = [(question, "")] + ([(question[: tail_m.start()] + "?", tail_m.group(0).strip(" ?"))] if tail_m else [])
    for text, cut in tries:
        found = _by_author(text)
        if found is not None:
            found.ignored = found.ignored or cut
            return found
    return None


def _by_author(question: str) -> _AuthorQuestion | None:
    for pattern in _BY_AUTHOR:
        m = pattern.search(question)
        if m:
            name = m.group("name").strip(_QUOTES + ",")
            noun_m = re.search(r"\b" + _WORKS + r"\b", question, re.I)
            noun = _plural(noun_m.group(0).lower()) if noun_m else "documents"
            tail = _NAME_TAIL.search(name)
            ignored = ""
            if tail:
                ignored, name = tail.group(0).strip(), name[: tail.start()]
            name = re.sub(r"^(?:the\s+(?:author|scholar|writer)\s+)", "", name.strip(), flags=re.I)
            if name and len(name.split()) <= 6:
                return _AuthorQuestion("by_author", name, noun, ignored)
    return None


def _authored_plan(graph, q: _AuthorQuestion, counting: bool) -> Plan | None:
    """The plan for a question of who wrote what, or None when the graph has no author by that
    name (or no document by that title): the question goes on to the other families."""
    if q.kind == "of_document":
        title = " ".join(q.text.split()).lower()
        if not graph.read("structured/document_authors", title=title, limit=1):
            return None  # no authored document has that title: perhaps a relation ("who wrote the letter")
        reason = f"authors_of: the AUTHORED edges into the document titled {q.text!r}"
        return Plan("authors_of", reason, term=q.text, scope={"noun": "documents", "title": q.text})
    from graphrag_cypher.store.authors import split_names

    from ..text import norm_name

    names = split_names(q.text) or [q.text]
    key = norm_name(names[0])
    words = key.split()
    if not words:
        return None
    candidates = graph.read("structured/authors_named", normName=key, surname=words[-1])
    exact = [c for c in candidates if c["normName"] == key]
    why = ""
    if exact:
        chosen = exact
    elif len(words) == 1 and len(words[0]) > 1:
        chosen = candidates  # a surname alone: every author of that surname
        why = f"; {q.text!r} is the surname of {len(chosen)} author(s)" if chosen else ""
    else:
        from graphrag_cypher.store.authors import Resolver

        resolver = Resolver((c["id"], c["name"]) for c in candidates)
        pid = resolver.person(names[0])
        chosen = [c for c in candidates if pid and c["id"] == pid["id"]]
        why = f"; {q.text!r} read as {chosen[0]['name']!r}" if chosen else ""
    if not chosen:
        return None
    if len(chosen) > 3:
        return None  # a common surname: not one author
    family = "count_authored" if counting else "authored"
    who = " / ".join(c["name"] for c in chosen)
    reason = f"{family}: {q.noun} authored by {who} (AUTHORED edges, from the documents' metadata){why}"
    if q.ignored:
        reason += f"; {q.ignored!r} is not a filter of this route"
    entity = {"id": chosen[0]["id"], "name": who, "type": "Person"}
    return Plan(
        family,
        reason,
        entity,
        [{"id": c["id"], "name": c["name"]} for c in chosen[1:]],
        term=q.text,
        scope={"noun": q.noun},
        entity_ids=[c["id"] for c in chosen],
    )


def _authored(graph, p: Plan, filters: Filters) -> tuple[list[Row], int]:
    if p.family == "authors_of":
        title = " ".join((p.term or "").split()).lower()
        found = graph.read("structured/document_authors", title=title, limit=MAX_CANDIDATES)
        exact = [r for r in found if r["exact"]]
        found = exact or found[:3]
        rows = [
            Row(
                a["name"] or a["id"],
                a["id"],
                ["Person"],
                relation="AUTHORED",
                document_id=r["documentId"],
                chunk_id=r["chunkId"],
                title=r["title"],
                uri=r["uri"],
                text=r["text"] or "",
            )
            for r in found
            for a in r["authors"]
        ]
        return rows, len({r.document_id for r in rows})
    found = graph.read(
        "structured/authored_documents",
        ids=p.entity_ids,
        corpus=filters.corpus,
        exclude=_NOT_DOCUMENTS,
        **{"from": filters.date_from, "to": filters.date_to},
    )
    rows = [_document_row(r, relation="AUTHORED") for r in found]
    return rows, len(rows)


def _authored_text(p: Plan, rows: list[Row], cites: list[str | None]) -> str:
    """ "Sebastian Heath wrote 2 articles: A [D1]; B [D2]." / "“A” [D1] was written by X and Y."."""
    from .answer import neutral

    def cited(text: str, cite: str | None) -> str:
        return f"{text} [{cite}]" if cite else text

    if p.family == "authors_of":
        by_doc: dict[str, list[int]] = {}
        for i, row in enumerate(rows):
            by_doc.setdefault(row.document_id or "", []).append(i)
        parts = []
        for indexes in by_doc.values():
            names = [neutral(rows[i].name) for i in indexes]
            who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            first = rows[indexes[0]]
            parts.append(
                f"{cited('“' + neutral(first.title or first.document_id or '') + '”', cites[indexes[0]])} was written by {who}"
            )
        return "; ".join(parts) + "."
    who = neutral(p.entity["name"]) if p.entity else "?"
    noun = neutral(p.scope.get("noun") or "documents")
    if len(rows) == 1:
        noun = _singular(noun)
    listed = "; ".join(cited(neutral(r.title or r.name), c) for r, c in zip(rows, cites, strict=True))
    return f"{who} wrote {len(rows)} {noun}: {listed}."


# --- running a plan -------------------------------------------------------------------------


@dataclass
class Row:
    name: str
    id: str
    labels: list[str]
    relation: str | None = None
    via: str = ""
    document_id: str | None = None
    chunk_id: str | None = None
    title: str | None = None
    uri: str | None = None
    text: str = ""
    chunks: int = 0
    record: str | None = None
    uncited: list[str] = field(default_factory=list)  # a text-to-Cypher row's values not read from its source
    returned: dict | None = None  # a text-to-Cypher row as the statement returned it

    def to_dict(self, cite: str | None) -> dict:
        out: dict = {"name": self.name, "id": self.id, "type": self.labels[0] if self.labels else None, "cite": cite}
        if self.relation:
            out["relation"] = self.relation
        if self.title is not None or self.chunks:
            out.update(title=self.title, document_id=self.document_id, chunks=self.chunks)
        if self.via:
            out["via"] = self.via
        if self.returned is not None:  # shown as a row, never as the citation's text
            out.update(uncited=self.uncited, returned=self.returned)
        return out


def run(graph, p: Plan, filters: Filters, limit: int = MAX_ROWS) -> tuple[list[Row], int]:
    """(rows, total): the plan's answer rows and, for documents, how many the scope holds."""
    if p.family in ("documents", "count_documents"):
        return _documents(graph, p, filters)
    if p.family in AUTHORED_FAMILIES:
        return _authored(graph, p, filters)
    ids = [r["id"] for r in graph.read("structured/family", ids=p.entity_ids)]
    cat = catalog(graph)
    rows: list[Row] = []
    for hop in p.hops:
        rel = cat.relations[hop.relation]
        # the asked-for noun chose the relation; it does not filter its far side ("characters"
        # killed by Jon Snow include a White Walker: a record of the same file)
        rows = _lookup_rows(_edges(graph, ids, rel, hop.x_is_source, limit=limit))
        ids = [r.id for r in rows]
        if not ids:
            break
    return rows, len(rows)


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


def word_pattern(term: str) -> str:
    """A Java regular expression: the term on word boundaries (a plain substring for Chinese),
    any case, any run of spaces between its words."""
    words = [re.escape(w) for w in term.split()]
    body = r"\s+".join(words)
    if re.search(f"[{_CJK}]", term):
        return f"(?su).*{body}.*"
    return rf"(?isu).*(?<![\w]){body}(?![\w]).*"


def _documents(graph, p: Plan, filters: Filters) -> tuple[list[Row], int]:
    corpus = p.scope.get("corpus") or filters.corpus
    labels = p.scope.get("labels")
    exclude = p.scope.get("exclude") or []
    words = p.term.split() if p.term else []
    # "" when no word of the term is searchable ("*", "the"): the text branch then finds nothing
    query = lucene_phrase(words) if len(words) > 1 else lucene_query(words)
    params = {
        "corpus": corpus,
        "labels": labels,
        "exclude": exclude,
        "from": filters.date_from,
        "to": filters.date_to,
        "about": getattr(filters, "about", None),
    }
    found = graph.read(
        "structured/mentioning",
        query=query,
        pattern=word_pattern(p.term or ""),
        ids=p.entity_ids,
        fetch=MAX_DOCUMENT_HITS,
        **params,
    )
    scope = {key: value for key, value in params.items() if key != "about"}
    total = graph.read("structured/scope_total", **scope)[0]["total"]
    rows = [_document_row(r, via="+".join(r["via"])) for r in found]
    plural = _plural_of(p.term or "")
    if plural:
        others = graph.read(
            "structured/mentioning",
            query=lucene_query([plural]),
            pattern=word_pattern(plural),
            ids=[],
            fetch=MAX_DOCUMENT_HITS,
            **params,
        )
        have = {r.document_id for r in rows}
        extra = [r for r in others if r["documentId"] not in have]
        if extra:
            p.scope["plural"] = {"term": plural, "documents": len(extra)}
    return rows, total


def _plural_of(term: str) -> str | None:
    """The plain plural of a one-word English term ("witch" → "witches"), counted apart: the
    answer lists the documents that have the term as written."""
    if not term.isascii() or not term.isalpha() or len(term) < 3 or term.lower().endswith("s"):
        return None
    if re.search(r"(?:x|z|ch|sh)$", term, re.I):
        return term + "es"
    if re.search(r"[^aeiou]y$", term, re.I):
        return term[:-1] + "ies"
    return term + "s"


# --- text-to-Cypher's rows ------------------------------------------------------------------


def from_cypher(graph, question: str, result) -> tuple[Plan, list[Row], int | float]:
    """(plan, rows, total) of a text-to-Cypher answer: each row cited to where its first node came
    from (its document, its record), and shown by what the graph holds.

    Only text read from the graph goes under a citation: a value of the row is quoted when it is
    a value of a node the row names from the cited source (those nodes re-read by id in a read
    transaction); anything else the statement returned (a literal, a computed value) is kept in
    the row's `uncited` values and `returned` row, never in the cited text. A row with nothing
    to quote is shown by its node's name or title as the graph holds it; a row naming no node of
    the graph is shown as it came, without a citation."""
    found = {r["id"]: r for r in graph.read("structured/ref_sources", ids=result.refs)} if result.refs else {}
    held = {r["id"]: set(r["values"]) for r in graph.read("structured/ref_values", ids=list(found))} if found else {}
    rows: list[Row] = []
    for raw in result.rows:
        shown: list[str] = []
        ids: list[str] = []
        labels: list[str] = []
        _show_values(raw, shown, ids, labels)
        ref = next((i for i in ids if i in found), None)
        origin = found.get(ref or "", {})
        record = None
        if origin and not origin.get("documentId") and origin.get("recordSource"):
            record = f"{origin['recordSource']}#{origin.get('name') or ref}"
        source = _source_of(origin, ref) if ref else None
        if source is None:  # nothing to cite it to: the row as it came
            name, uncited = ", ".join(shown) or json.dumps(raw, ensure_ascii=False)[:200], []
        else:
            readable = set().union(
                *(held.get(i, set()) for i in dict.fromkeys(ids) if _source_of(found.get(i), i) == source)
            )
            quoted = [v for v in shown if _read_from(v, readable)]
            uncited = [v for v in shown if not _read_from(v, readable)]
            name = ", ".join(quoted) or str(origin.get("name") or ref)
        rows.append(
            Row(
                name,
                ref or "",
                labels,
                via="text2cypher",
                document_id=origin.get("documentId"),
                chunk_id=origin.get("chunkId"),
                title=origin.get("title"),
                uri=origin.get("uri"),
                text=origin.get("text") or "",
                record=record,
                uncited=uncited,
                returned=raw,
            )
        )
    number = _single_number(result.rows)
    plan = Plan(
        "cypher",
        f"text-to-Cypher: the templates did not cover the question; the model's statement gave {len(rows)} row(s)",
        term="number" if number is not None else None,
    )
    if number is not None:
        return plan, [], number
    return plan, rows, len(rows)


def _source_of(origin: dict | None, ref: str) -> tuple | None:
    """What a node found by ref_sources is cited to: its document, else its record."""
    if not origin:
        return None
    if origin.get("documentId"):
        return ("document", origin["documentId"])
    if origin.get("recordSource"):
        return ("record", origin["recordSource"], origin.get("name") or ref)
    return None


def _read_from(value: str, readable: set[str]) -> bool:
    """Whether a shown value is one the graph holds (a string cut by the result budget: its start)."""
    if value in readable or (value.lower() in ("true", "false") and value.lower() in readable):
        return True
    if value.endswith("…") and len(value) >= 16:  # the shortest cut (GRAPHRAG_CYPHER_MAX_VALUE_CHARS)
        start = value[:-1]
        return any(v.startswith(start) for v in readable)
    return False


def _single_number(rows: list[dict]) -> int | float | None:
    if len(rows) == 1 and len(rows[0]) == 1:
        value = next(iter(rows[0].values()))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    return None


_ID_LIKE = re.compile(r"(?i)^(?:id|ids|element_?id)$|_id$|Id$")


def _show_values(value, shown: list[str], ids: list[str], labels: list[str], column: str | None = None) -> None:
    if isinstance(value, dict):
        if "labels" in value and "id" in value:  # a node
            ids.append(str(value["id"]))
            labels.extend(label for label in value.get("labels") or [] if label != "__Entity__")
            shown.append(str(value.get("name") or value.get("title") or value["id"]))
            return
        for key, item in value.items():
            _show_values(item, shown, ids, labels, key)
        return
    if isinstance(value, list):
        for item in value[:50]:
            _show_values(item, shown, ids, labels, column)
        return
    if value is None:
        return
    if column is not None and _ID_LIKE.search(column):
        ids.append(str(value))
        return
    shown.append(str(value))


# --- the answer ----------------------------------------------------------------------------


@dataclass
class Structured:
    """A structured answer: the plan, its rows (each with the citation id it has) and the text."""

    plan: Plan
    rows: list[Row]
    total: int | float
    cites: list[str | None]
    text: str
    titled: str
    ms: float = 0.0
    method: str = "template"
    cypher: str | None = None
    cited: list[str] = field(default_factory=list)
    cut: str | None = None  # a text-to-Cypher answer: what of the statement's result was left out

    def to_dict(self) -> dict:
        out = dict(
            self.plan.to_dict(), method=self.method, count=len(self.rows), total=self.total, ms=round(self.ms, 1)
        )
        if self.cypher:
            out["cypher"] = self.cypher
        if self.cut:
            out["cut"] = self.cut
        return out

    def row_dicts(self) -> list[dict]:
        return [row.to_dict(cite) for row, cite in zip(self.rows, self.cites, strict=True)]


def evidence_of(rows: list[Row]) -> list[Evidence]:
    """One evidence chunk per row that has a document (its first matching chunk)."""
    out, seen = [], set()
    for row in rows:
        if row.document_id and row.chunk_id and row.chunk_id not in seen:
            seen.add(row.chunk_id)
            out.append(Evidence(row.chunk_id, row.document_id, row.title, row.uri, row.text, 1.0, ["structured"]))
    return out


def phrase_for(rel: RelationSpec, language: str, x_is_source: bool = True) -> tuple[str, bool]:
    """(phrase, x_first): how the answer says the relation with the question's entity first:
    "X <forward> names" when X is the source, "X <inverse> names" when it is the target and the
    relation has an inverse phrase, else (x_first False) "<forward> X: names"."""

    def pick(phrases) -> str | None:
        plain = [p for p in phrases if _GAP not in p]
        wanted = [p for p in plain if (not p.isascii()) == (language == "zh")]
        return (wanted or [p for p in plain if p.isascii()] or [None])[0]

    if not x_is_source and not rel.symmetric:
        inverse = pick(rel.inverse)
        if inverse and (language != "zh" or not inverse.isascii()):
            return inverse, True
        if language == "zh" and pick(rel.forward) and not (pick(rel.forward) or "").isascii():
            return pick(rel.forward) or "", False
    return pick(rel.forward) or rel.name.lower().replace("_", " "), x_is_source or rel.symmetric


def answer(graph, p: Plan, rows: list[Row], total: int | float, language: str) -> tuple[Structured, list]:
    """(structured, sources): the answer text over the rows, each name or title with its citation.

    A row from a document cites it (T2, D1, …); a row from a loaded record cites the record
    (R1, R2, …). Names and titles are written with `neutral`: no text from the data can open a
    citation or break a line."""
    from .answer import Source, neutral, sources_for

    sources = sources_for(evidence_of(rows))
    by_document = {s.document_id: s for s in sources}
    records: dict[str, Source] = {}
    cites: list[str | None] = []
    for row in rows:
        source = by_document.get(row.document_id or "")
        if source is None and row.record:
            source = records.get(row.record)
            if source is None:
                where, _, owner = row.record.partition("#")
                file = where.split(":", 1)[-1]
                source = records[row.record] = Source(f"R{len(records) + 1}", row.record, f"{file}: {owner}", None)
        cites.append(source.cite if source else None)
    sources = sources + list(records.values())
    labels = {s.cite: s.label for s in sources}
    zh = language == "zh"
    if p.family in AUTHORED_FAMILIES:
        cited = [c for c in dict.fromkeys(cites) if c]
        titled = _authored_text(p, rows, [None] * len(rows))  # the titles are in the text already
        return Structured(p, rows, total, cites, _authored_text(p, rows, cites), titled, cited=cited), sources
    documents = p.family in ("documents", "count_documents")

    def listed(with_titles: bool) -> str:
        # a run of rows with one citation cites it once, after the last of them
        parts = []
        for i, (row, cite) in enumerate(zip(rows, cites, strict=True)):
            name = neutral(row.title or row.name) if documents else neutral(row.name)
            last_of_run = i + 1 == len(rows) or cites[i + 1] != cite
            if cite is None or (not documents and not last_of_run):
                parts.append(name)
            elif with_titles:
                parts.append(name if documents else f"{name} [{labels[cite]}]")
            else:
                parts.append(f"{name} [{cite}]")
        if documents:
            return ("；" if zh else "; ").join(parts)
        if zh or len(parts) < 2:
            return "、".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def text(with_titles: bool) -> str:
        names = listed(with_titles)
        if p.family == "cypher":
            if p.term == "number":  # one number: the count itself
                return f"{total}" + ("。" if zh else ".")
            if not rows:
                return "查询没有结果。" if zh else "The query found nothing."
            return f"{len(rows)}：{names}。" if zh else f"{len(rows)}: {names}."
        if documents:
            term, noun = neutral(p.term), neutral(p.scope.get("noun") or "documents")
            if zh:
                lead = f"{len(rows)} 篇" + (f"（共 {total} 篇）" if p.family == "count_documents" else "")
                return f"{lead}{noun}提到“{term}”" + (f"：{names}。" if rows else "。")
            one = len(rows) == 1
            if p.family == "count_documents":
                lead = f"{len(rows)} of the {total} {noun}"
            elif one:
                lead = f"1 {_singular(noun.lower()) if noun.isascii() else noun}"
            else:
                lead = f"{len(rows)} {noun}" if rows else f"None of the {total} {noun}"
            verb = "mentions" if one else "mention"
            more = p.scope.get("plural")
            tail = ""
            if more:
                tail = (
                    f" {more['documents']} more {noun if more['documents'] > 1 else _singular(noun.lower())} "
                    f"{'mention' if more['documents'] > 1 else 'mentions'} only “{neutral(more['term'])}”."
                )
            return f"{lead} {verb} “{term}”" + (f": {names}." if rows else ".") + tail
        cat = catalog(graph)
        x = neutral(p.entity["name"]) if p.entity else "?"
        hop = p.hops[-1]
        phrase, x_first = phrase_for(cat.relations[hop.relation], language, hop.x_is_source)
        if len(p.hops) > 1:
            first = p.hops[0]
            between, _ = phrase_for(cat.relations[first.relation], language, first.x_is_source)
            x = f"{x} → {between} →"
        if zh:
            sentence = f"{x}{phrase}：{names}" if x_first else f"{phrase}{x}：{names}"
        elif x_first:
            sentence = f"{x} {phrase} {names}"
        else:
            sentence = f"{phrase[:1].upper()}{phrase[1:]} {x}: {names}"
        if p.family == "count":
            sentence = f"{len(rows)}: {sentence}"
        return sentence + ("。" if zh else ".")

    cited = [c for c in dict.fromkeys(cites) if c]
    return Structured(p, rows, total, cites, text(False), text(True), cited=cited), sources


def _document_row(r: dict, **extra) -> Row:
    """A document answering a documents question, cited by its title and best chunk."""
    return Row(
        r["title"] or r["documentId"],
        r["documentId"],
        [],
        document_id=r["documentId"],
        chunk_id=r["chunkId"],
        title=r["title"],
        uri=r["uri"],
        text=r["text"] or "",
        chunks=r["chunks"],
        **extra,
    )
