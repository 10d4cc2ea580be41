"""What every retrieval mode shares: the evidence it returns, the filters and the analysed
question it reads, the full-text query syntax, and the fusion weights. The interface itself is
:class:`~graphrag_cypher.retrieval.retriever.Retriever`; the list of modes is ``modes.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import telemetry

# MENTIONS rules that mean "this chunk is about the entity" rather than "names it in passing".
ABOUT_RULES = {"own-title"}

# Fusion and expansion weights. Full-text is weaker than vectors on the measured sets (README
# "Evaluation", the table per mode), so its votes count less; the graph mode's weights sit on the
# plateau that section reports. `graphrag eval retrieval` measures a change.
WEIGHTS = {
    "vectorWeight": 1.0,
    "fulltextWeight": 0.5,
    "rrfK": 60,  # reciprocal-rank fusion: a list's item at rank r counts weight / (rrfK + r)
    # graph mode
    "graphCandidates": 30,  # hybrid seeds per question
    "linkSeeds": 10,  # the top seeds whose neighbours are followed
    "linksPerSeed": 1,  # passages placed after each seed
    "leadsPerSeed": 20,  # the strongest neighbours per seed read from the graph, then ranked here
    # the neighbours of a seed that are scored (their vectors read; bounded at any corpus size): its
    # leadPool most strongly linked, and those among the question's leadHits nearest chunks
    "leadPool": 60,
    "leadHits": 300,
    # neighbour strength = cosine with the question less the seed's part + linkWeight x link weight
    # + coverWeight x share of the question's terms the seed lacks and the neighbour has
    "linkWeight": 0.4,
    "coverWeight": 0.4,
    "phraseCap": 1.0,  # shared phrases together weigh at most one topic link
    # a phrase shared by more chunks than max(maxPhraseChunks, phraseChunksShare x all chunks) links
    # nothing: how common a name is depends on the size of the corpus (README "Evaluation")
    "maxPhraseChunks": 50,
    "phraseChunksShare": 0.02,
    "aboutWeight": 1.0,  # link weight of "the seed names a topic; this chunk is about it"
    "perEntity": 20,
}

# Lucene's classic query syntax: special characters are escaped one by one, and the operator
# words (AND, OR, NOT, and TO of ranges) are operators only in capitals.
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|<>=])')
_LUCENE_WORDS = re.compile(r"\b(?:AND|OR|NOT|TO)\b")


def escape_lucene(text: str) -> str:
    """`text` as literal words in a Lucene query: no operator, group, range or wildcard survives."""
    return _LUCENE_WORDS.sub(lambda m: m.group(0).lower(), _LUCENE_SPECIAL.sub(r"\\\1", text))


# The most clauses one query built from a question may cost: Lucene refuses a query of more than
# 1024 (TooManyClauses), one word can be many ("a-b-c-…", a run of Han characters), and the chunk
# and entity indexes search each term in two fields (text and title, name and aliases).
MAX_QUERY_CLAUSES = 256
_MAX_TOKEN = 255  # the standard tokenizer cuts longer tokens
_ASCII_RUN = re.compile(r"[A-Za-z0-9_]+")


def lucene_clauses(term: str) -> int:
    """At least as many clauses as the standard analyzer makes of `term`: each run of ASCII letters,
    digits and underscores (one for every 255 characters), and each character outside ASCII (a Han
    character or an emoji is a token of its own)."""
    runs = sum(-(-len(run) // _MAX_TOKEN) for run in _ASCII_RUN.findall(term))
    return runs + sum(1 for ch in term if ord(ch) >= 0x80)


def lucene_query(words: list[str], operator: str = " ") -> str:
    """Words joined into a Lucene query, each escaped; "" when there is no word to search for (Neo4j
    refuses an empty query: callers skip the index then). A word whose clauses would take the query
    past MAX_QUERY_CLAUSES is left out (the later ones may fit)."""
    terms, budget = [], MAX_QUERY_CLAUSES
    for word in words:
        if word and re.search(r"\w", word):
            term = word.strip()
            cost = lucene_clauses(term)
            if cost <= budget:
                budget -= cost
                terms.append(escape_lucene(term))
    return operator.join(terms)


def lucene_phrase(words: list[str]) -> str:
    """The words as one Lucene phrase, each escaped; "" when no word of it has a word character (an
    empty phrase is no query) or it would cost more than MAX_QUERY_CLAUSES terms."""
    words = [w.strip() for w in words if w and w.strip()]
    if not any(re.search(r"\w", w) for w in words) or lucene_clauses(" ".join(words)) > MAX_QUERY_CLAUSES:
        return ""
    return '"' + " ".join(escape_lucene(w) for w in words) + '"'


@dataclass
class Filters:
    corpus: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    time_expression: str | None = None
    ignored_time_expression: str | None = None
    # only chunks that MENTION one of these entities (`--about`, resolved by about.resolve_about)
    about: list[str] | None = None

    def params(self) -> dict:
        return {"corpus": self.corpus, "from": self.date_from, "to": self.date_to, "about": self.about or None}

    def to_dict(self) -> dict:
        return {
            "corpus": self.corpus,
            "from": self.date_from,
            "to": self.date_to,
            "about": self.about,
            "time_expression": self.time_expression,
            "ignored_time_expression": self.ignored_time_expression,
        }


@dataclass
class Analysis:
    question: str
    search_text: str  # the question without its time expression
    keywords: list[str]
    entities: list[dict]  # {id, name, type, matched, documentId, labels}
    route: Any  # graphrag_cypher.retrieval.question.relations.Route
    language: str
    filters: Filters
    embedding: list[float] | None = None
    ambiguous: list[dict] = field(default_factory=list)  # entities a shared name also found, set aside


@dataclass
class Evidence:
    chunk_id: str
    document_id: str
    title: str | None
    uri: str | None
    text: str
    score: float
    via: list[str] = field(default_factory=list)
    # other documents holding a chunk with the same content hash ({document_id, title, uri}): the
    # copies one_per_content set aside
    also_in: list[dict] = field(default_factory=list)
    # the chunk's content hash and its copies in scope (chunk_copies.cypher's columns) when the
    # ranking query read them (None: not read, one_per_content asks)
    content_hash: str | None = None
    copies: list[dict] | None = None

    @classmethod
    def from_row(cls, row: dict, via: list[str] | None = None) -> Evidence:
        """A chunk row of a retrieval query (chunkId, documentId, title, uri, text, score, via)."""
        return cls(
            row["chunkId"],
            row["documentId"],
            row.get("title"),
            row.get("uri"),
            row.get("text") or "",
            float(row.get("score") or 0.0),
            via or list(row.get("via") or []),
            content_hash=row.get("contentHash"),
            copies=row.get("copies"),
        )

    def to_dict(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "title": self.title,
            "uri": self.uri,
            "score": round(float(self.score), 6),
            "text": self.text,
            "via": self.via,
            "also_in": self.also_in,
        }


# Index hits asked for when only chunks about an entity count: the full-text index cannot be asked for
# them, so its hits are filtered, and an entity's chunks are a small share of a large corpus.
ABOUT_FETCH = 1000


def fetch_size(k: int, filters: Filters) -> int:
    """How many index hits to ask for: filters apply after the index lookup, so more when filtering
    (and many more with `about`: SearchProcedure.fetchSize computes the same)."""
    from graphrag_cypher.principal import current

    if filters.about:
        return max(ABOUT_FETCH, k * 100)
    scoped = current().corpora is not None  # a key's corpora filter the hits as a corpus does
    return max(50, k * (20 if (filters.corpus or filters.date_from or filters.date_to or scoped) else 10))


# Documents named as "also in" per chunk, and how many times a ranking is widened to refill the top k
# after copies were set aside.
MAX_COPIES = 10
MAX_WIDENINGS = 3


def copy_spare(k: int) -> int:
    """Rows a mode that reads copies with its ranking (graph, hybrid) gives past `k`: a copy set aside
    is replaced from them, so the ranking is not run again unless more than k of its rows are copies
    (a copied file's chunks pair with the original's: at most half of them)."""
    return k


def one_per_content(graph, rank: Callable[[int], list[Evidence]], k: int, filters: Filters) -> list[Evidence]:
    """The best `k` of `rank(n)` (a mode's top n, best first) with one chunk per content hash.

    A copied file is a second document whose chunks have the same `contentHash`: both would take
    places in the top k with the same text. The first of them stays, with every other document in
    scope that holds the same chunk as `also_in` (retrieval/chunk_copies.cypher); the others are set
    aside and the next rows take their places: the rows a mode gives past k (copy_spare), else the
    ranking asked for that many more, so the top k stays full. A chunk whose copy
    is in a document already kept is given as that document's, so a copied file is one source, not
    two (not with `about`: the copy's chunk may not mention the entity). A ranking without copies
    is returned as it came (one indexed lookup more, none when its rows carry their copies)."""
    want, ranked = k, rank(k)
    if not ranked:
        return ranked
    kept: list[Evidence] = []
    for _ in range(MAX_WIDENINGS + 1):
        found = _copies(graph, ranked, filters)
        kept = []
        seen: set[str | None] = set()
        documents: set[str] = set()
        for ev in ranked:
            row = found.get(ev.chunk_id) or {}
            digest = row.get("contentHash")
            if digest is not None and digest in seen:
                continue
            seen.add(digest)
            kept.append(_as_kept(ev, row.get("copies") or [], set() if filters.about else documents))
            documents.add(kept[-1].document_id)
        if len(kept) >= k or len(kept) == len(ranked) or len(ranked) < want:
            break  # full, no copy set aside, or the mode has nothing more to give
        want += k - len(kept)
        ranked = rank(want)
    return kept[:k]


@telemetry.traced("graphrag.retrieve.copies", lambda graph, ranked, filters: {"chunks": len(ranked)})
def _copies(graph, ranked: list[Evidence], filters: Filters) -> dict[str, dict]:
    """chunk_copies.cypher's rows by chunk id: those the ranking read with its rows, else asked."""
    if all(ev.copies is not None for ev in ranked):
        return {ev.chunk_id: {"contentHash": ev.content_hash, "copies": ev.copies} for ev in ranked}
    rows = graph.read(
        "retrieval/chunk_copies",
        ids=[ev.chunk_id for ev in ranked],
        corpus=filters.corpus,
        to=filters.date_to,
        maxCopies=MAX_COPIES,
        **{"from": filters.date_from},
    )
    return {row["chunkId"]: row for row in rows}


def _as_kept(ev: Evidence, copies: list[dict], documents: set[str]) -> Evidence:
    """`ev` with its copies as `also_in`; as the copy in one of `documents` (kept already) when it
    has one there and is not of one of them itself."""
    also = [{"document_id": c["documentId"], "title": c["title"], "uri": c["uri"]} for c in copies]
    home = next((c for c in copies if c["documentId"] in documents), None) if ev.document_id not in documents else None
    if home is None:
        ev.also_in = also
        return ev
    own = {"document_id": ev.document_id, "title": ev.title, "uri": ev.uri}
    others = [own] + [a for a in also if a["document_id"] != home["documentId"]]
    return Evidence(home["chunkId"], home["documentId"], home["title"], home["uri"], ev.text, ev.score, ev.via, others)


def fulltext_query(analysis: Analysis) -> str:
    return lucene_query(analysis.keywords or analysis.search_text.split())
