"""Question in, evidence out: the retrieval modes, each a Cypher file in cypher/queries/retrieval/.

- vector   — `db.index.vector.queryNodes` on chunk embeddings
- fulltext — `db.index.fulltext.queryNodes` on chunk text (query escaped)
- hybrid   — weighted reciprocal-rank fusion of the two
- graph    — hybrid, then each top seed followed by the chunk it leads to through a shared
             rare phrase or a topic it names, and the chunks about the question's entities
- ppr      — Open GDS personalized PageRank over the chunk–entity graph, seeded by the
             question's entities and the top hybrid chunks

Filters (corpus, date range) hold in every mode. Everything runs in read transactions.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from .errors import GraphragError
from .text import fold, name_key

MODES = ("vector", "fulltext", "hybrid", "graph", "ppr")
DEFAULT_MODE = "graph"
# MENTIONS rules that mean "this chunk is about the entity" rather than "names it in passing".
ABOUT_RULES = {"own-title"}
PPR_GRAPH = "graphrag_ppr"
MAX_PATH_ENDS = 20  # entities per side of a relation question (each pair is one shortest-path search)

# Fusion and expansion weights. Full-text is weaker than vectors on the measured sets, so
# its votes count less (see DESIGN.md "Fusion can hurt"); `graphrag eval` tunes these.
WEIGHTS = {
    "vectorWeight": 1.0,
    "fulltextWeight": 0.5,
    "rrfK": 60,
    # graph mode
    "graphCandidates": 30,  # hybrid seeds per question
    "linkSeeds": 10,  # the top seeds whose neighbours are followed
    "linksPerSeed": 1,  # passages placed after each seed
    "linkWeight": 0.3,  # neighbour strength = similarity to the question + linkWeight x link weight
    "maxPhraseChunks": 50,  # a phrase shared by more chunks than this links nothing
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


def lucene_query(words: list[str], operator: str = " ") -> str:
    """Words joined into a Lucene query, each escaped; "" when there is no word to search for."""
    terms = [escape_lucene(w.strip()) for w in words if w and re.search(r"\w", w)]
    return operator.join(terms)


@dataclass
class Filters:
    corpus: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    time_expression: str | None = None
    ignored_time_expression: str | None = None

    def params(self) -> dict:
        return {"corpus": self.corpus, "from": self.date_from, "to": self.date_to}

    def to_dict(self) -> dict:
        return {"corpus": self.corpus, "from": self.date_from, "to": self.date_to,
                "time_expression": self.time_expression, "ignored_time_expression": self.ignored_time_expression}


@dataclass
class Analysis:
    question: str
    search_text: str  # the question without its time expression
    keywords: list[str]
    entities: list[dict]  # {id, name, labels}
    route: object
    language: str
    filters: Filters
    embedding: list[float] | None = None


@dataclass
class Evidence:
    chunk_id: str
    document_id: str
    title: str | None
    uri: str | None
    text: str
    score: float
    via: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"chunk_id": self.chunk_id, "document_id": self.document_id, "title": self.title, "uri": self.uri,
                "score": round(float(self.score), 6), "text": self.text, "via": self.via}


def _evidence(row: dict, via: list[str] | None = None) -> Evidence:
    return Evidence(row["chunkId"], row["documentId"], row.get("title"), row.get("uri"), row.get("text") or "",
                    float(row.get("score") or 0.0), via or list(row.get("via") or []))


class Retriever:
    def __init__(self, graph, embedder, weights: dict | None = None):
        self.graph = graph
        self.embedder = embedder
        self.weights = {**WEIGHTS, **(weights or {})}
        self.timings: dict[str, float] = {}
        self._dated: dict[str | None, bool] = {}

    # -- question analysis --------------------------------------------------------------
    def analyze(self, question: str, corpus: str | None = None, date_from: str | None = None,
                date_to: str | None = None, today: date | None = None) -> Analysis:
        from .question import detect_language, keywords, parse_time_range, route, strip_time_expression

        started = time.perf_counter()
        rng = parse_time_range(question, today or date.today())
        filters = Filters(corpus=corpus, date_from=date_from, date_to=date_to)
        if rng is not None and (date_from or date_to or not self._has_dates(corpus)):
            # Explicit --from/--to win; and in a corpus without dated documents a year in the
            # question is content ("born in 1990"), not a filter that would exclude everything.
            filters.ignored_time_expression = rng.expression
            rng = None
        if rng is not None:
            filters.date_from = rng.start.isoformat() if rng.start else None
            filters.date_to = rng.end.isoformat() if rng.end else None
            filters.time_expression = rng.expression
        search_text = strip_time_expression(question, rng) if rng else question
        words = keywords(search_text)
        analysis = Analysis(question, search_text, words, self.question_entities(search_text, keywords(search_text, 40)),
                            route(question),
                            detect_language(question), filters)
        self.timings["analyze_ms"] = (time.perf_counter() - started) * 1000
        return analysis

    def _has_dates(self, corpus: str | None) -> bool:
        if corpus not in self._dated:
            self._dated[corpus] = bool(self.graph.read("retrieval/has_dates", corpus=corpus)[0]["dated"])
        return self._dated[corpus]

    def question_entities(self, text: str, words: list[str]) -> list[dict]:
        """Known entities whose name or an alias occurs in the question.

        Names are compared accent- and case-folded, on word boundaries ("Edric" does not find
        "Edrick"). Each entity comes with its type (from the graph) and the name that found it
        (`matched`); where one name found holds another ("Mount Greyhorn", "Greyhorn"), only
        the longer one counts.
        """
        query = lucene_query(words, " OR ")
        if not query:
            return []
        folded = fold(text)
        found: dict[str, dict] = {}
        for row in self.graph.read("retrieval/question_entities", query=query, limit=100):
            hits = [name for name in dict.fromkeys(row["names"] or [row["name"]])
                    if isinstance(name, str) and len(name.strip()) >= 3
                    and re.search(rf"(?<!\w){re.escape(fold(name.strip()))}(?!\w)", folded)]
            if hits and row["id"] not in found:
                found[row["id"]] = {"id": row["id"], "name": row["name"], "type": row.get("type"),
                                    "matched": max(hits, key=len).strip(), "documentId": row.get("documentId"),
                                    "labels": [l for l in row["labels"] if l != "__Entity__"]}
        kept = list(found.values())
        keys = {e["id"]: name_key(e["matched"]) for e in kept}
        kept = [e for e in kept if not any(keys[e["id"]] != keys[o["id"]] and keys[e["id"]] in keys[o["id"]]
                                           for o in kept if o is not e)]
        # in the order the question names them; one name's entities together, by id
        return sorted(kept, key=lambda e: (folded.find(fold(e["matched"])), e["id"]))

    # -- modes ----------------------------------------------------------------------------
    def retrieve(self, analysis: Analysis, mode: str = DEFAULT_MODE, k: int = 5) -> list[Evidence]:
        if mode not in MODES:
            raise GraphragError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
        started = time.perf_counter()
        results = getattr(self, f"_{mode}")(analysis, k)
        self.timings["retrieve_ms"] = (time.perf_counter() - started) * 1000
        return results

    def _embedding(self, analysis: Analysis) -> list[float]:
        """The question's vector, computed once per analysis (graph and ppr modes reuse it)."""
        if analysis.embedding is None:
            started = time.perf_counter()
            analysis.embedding = self.embedder.embed([analysis.search_text])[0]
            self.timings["embed_ms"] = (time.perf_counter() - started) * 1000
        return analysis.embedding

    def _fetch(self, k: int, filters: Filters) -> int:
        # Filters are applied after the index lookup, so ask the index for more when filtering.
        return max(50, k * (20 if (filters.corpus or filters.date_from or filters.date_to) else 10))

    def _fulltext_query(self, analysis: Analysis) -> str:
        return lucene_query(analysis.keywords or analysis.search_text.split())

    def _vector(self, analysis: Analysis, k: int) -> list[Evidence]:
        rows = self.graph.read("retrieval/vector", embedding=self._embedding(analysis), k=k,
                               fetch=self._fetch(k, analysis.filters), **analysis.filters.params())
        return [_evidence(r, [f"vector#{i + 1}"]) for i, r in enumerate(rows)]

    def _fulltext(self, analysis: Analysis, k: int) -> list[Evidence]:
        rows = self.graph.read("retrieval/fulltext", query=self._fulltext_query(analysis), k=k,
                               fetch=self._fetch(k, analysis.filters), **analysis.filters.params())
        return [_evidence(r, [f"fulltext#{i + 1}"]) for i, r in enumerate(rows)]

    def _hybrid(self, analysis: Analysis, k: int) -> list[Evidence]:
        w = self.weights
        rows = self.graph.read(
            "retrieval/hybrid", embedding=self._embedding(analysis), query=self._fulltext_query(analysis), k=k,
            fetch=self._fetch(k, analysis.filters), vectorWeight=w["vectorWeight"],
            fulltextWeight=w["fulltextWeight"], rrfK=w["rrfK"], **analysis.filters.params())
        return [_evidence(r) for r in rows]

    def _graph(self, analysis: Analysis, k: int) -> list[Evidence]:
        """Hybrid seeds, each followed by the passage it leads to.

        The second hop of a multi-hop question rarely resembles the question, but the first
        hop names it. From each of the top seeds the graph offers neighbours: chunks sharing
        a rare phrase with it (`graphrag link phrases`, weight 1 / chunks sharing it) and the
        chunk about a topic it names (`graphrag link titles`). The neighbour with the best
        similarity to the question plus `linkWeight` × link weight is placed right after its
        seed, inheriting the seed's score. Chunks about the question's own entities join
        the candidates. No LLM at index or query time; nothing per question.
        """
        w = self.weights
        seeds = self._hybrid(analysis, max(k, w["graphCandidates"]))
        if not seeds:
            return seeds
        embedding = self._embedding(analysis)
        params = analysis.filters.params()
        top = [s.chunk_id for s in seeds[: w["linkSeeds"]]]
        leads: dict[str, list[tuple[float, str, dict]]] = {}
        for row in self.graph.read("retrieval/seed_neighbours", seedIds=top, embedding=embedding,
                                   maxPhraseChunks=w["maxPhraseChunks"], aboutRules=sorted(ABOUT_RULES),
                                   aboutWeight=w["aboutWeight"], **params):
            strength = float(row["similarity"] or 0.0) + w["linkWeight"] * float(row["weight"] or 0.0)
            leads.setdefault(row["seedId"], []).append((-strength, row["chunkId"], row))
        ranked: list[Evidence] = []
        placed: set[str] = set()

        def place(evidence: Evidence) -> None:
            if evidence.chunk_id not in placed:
                placed.add(evidence.chunk_id)
                ranked.append(evidence)

        for seed in seeds:
            place(seed)
            followed = 0
            for _, chunk_id, row in sorted(leads.get(seed.chunk_id, []), key=lambda item: item[:2]):
                if followed >= w["linksPerSeed"]:
                    break
                if chunk_id in placed:
                    continue
                place(_evidence(dict(row, score=seed.score), [f"linked by {', '.join(row['via'])} from {seed.chunk_id}"]))
                followed += 1
        if analysis.entities:
            for row in self.graph.read("retrieval/entity_chunks", entityIds=[e["id"] for e in analysis.entities],
                                       embedding=embedding, perEntity=w["perEntity"], **params):
                if row["chunkId"] not in placed and row["rule"] in ABOUT_RULES:
                    # the passage about an entity the question names: just after the first seed
                    ranked.insert(1, _evidence(dict(row, score=seeds[0].score), [f"about question entity {row['entity']}"]))
                    placed.add(row["chunkId"])
        return ranked[:k]

    def _ppr(self, analysis: Analysis, k: int) -> list[Evidence]:
        seeds = self._hybrid(analysis, k)
        sources = [s.chunk_id for s in seeds] + [e["id"] for e in analysis.entities]
        if not sources or not self._ensure_projection():
            return seeds  # nothing to walk from, or no entities linked yet: hybrid is the answer
        rows = self.graph.read("retrieval/ppr", name=PPR_GRAPH, sourceIds=sources, k=max(k * 3, 15), damping=0.5,
                               **analysis.filters.params())
        ranked = {r["chunkId"]: _evidence(r, ["ppr"]) for r in rows}
        # Seeds keep their place; PPR adds what the graph walk reaches; rank fusion of both lists.
        fused: dict[str, Evidence] = {}
        for weight, items in ((1.0, seeds), (1.0, list(ranked.values()))):
            for rank, ev in enumerate(items):
                target = fused.setdefault(ev.chunk_id, Evidence(ev.chunk_id, ev.document_id, ev.title, ev.uri, ev.text, 0.0, []))
                target.score += weight / (60 + rank + 1)
                target.via += ev.via
        return sorted(fused.values(), key=lambda e: -e.score)[:k]

    def _ensure_projection(self) -> bool:
        """A current GDS projection of the chunk–entity graph, made once and reused."""
        expected = self.graph.read("retrieval/ppr_graph_size")[0]["relationships"]
        if not expected:
            return False
        info = self.graph.read("retrieval/ppr_graph_info", name=PPR_GRAPH)
        # Undirected projection stores each relationship twice.
        if info and info[0]["relationshipCount"] == 2 * expected:
            return True
        if info:
            self.graph.read("retrieval/ppr_drop", name=PPR_GRAPH)
        self.graph.read("retrieval/ppr_project", name=PPR_GRAPH)
        return True

    # -- routing: how are A and B related --------------------------------------------------
    def relation(self, analysis: Analysis, k: int = 5) -> tuple[list[dict], list[Evidence]] | None:
        """Paths between the two entities a relation question names, and the chunks they rest on.

        Each side is every entity found by that name (a story's entity and its canonical one
        alike). Typed relations come first: a path such as Reynold -[DEFEATS]-> Brannock is
        evidence in itself, and its evidence is the chunks its entities came from. Only when
        no typed path joins the two are paths through shared chunks searched.
        None when a side names no known entity.
        """
        started = time.perf_counter()
        ends = []
        for phrase in (analysis.route.a, analysis.route.b):
            match = self.question_entities(phrase, re.findall(r"\w+", phrase))
            if not match:
                return None
            ends.append([e["id"] for e in match][:MAX_PATH_ENDS])
        a, b = ends[0], [x for x in ends[1] if x not in ends[0]]
        if not b:
            return None
        params = analysis.filters.params()
        paths = [dict(p, kind="typed") for p in self.graph.read("retrieval/relation_paths", a=a, b=b, limit=k)]
        if paths:
            entity_ids = list(dict.fromkeys(n["id"] for p in paths for n in p["nodes"]))
            rows = self.graph.read("retrieval/path_chunks", entityIds=entity_ids, k=k, **params)
            evidence = [_evidence(r, [f"path: {', '.join(r['entities'][:4])}"]) for r in rows]
        else:
            paths = [dict(p, kind="via chunks") for p in
                     self.graph.read("retrieval/chunk_paths", a=a, b=b, maxHops=3, limit=k)]
            chunk_ids = list(dict.fromkeys(cid for p in paths for cid in p["support"]))[: k * 2]
            rows = self.graph.read("retrieval/chunks_by_id", ids=chunk_ids) if chunk_ids else []
            evidence = [_evidence(dict(r, score=1.0 / (i + 1)), ["path"]) for i, r in enumerate(rows)]
        self.timings["relation_ms"] = (time.perf_counter() - started) * 1000
        return paths, evidence

    @staticmethod
    def path_graph(paths: list[dict]) -> dict:
        """The nodes and relationships of typed paths, for the context's NODES / RELATIONSHIPS."""
        nodes: dict[str, dict] = {}
        relationships: dict[tuple, dict] = {}
        for path in paths:
            if path.get("kind") != "typed":
                continue
            for node in path["nodes"]:
                nodes.setdefault(node["id"], node)
            for rel in path["relationships"]:
                relationships.setdefault((rel["start"], rel["type"], rel["end"]), rel)
        return {"nodes": list(nodes.values()), "relationships": list(relationships.values()), "mentions": []}

    def context_graph(self, evidence: list[Evidence], limit: int = 40) -> dict:
        if not evidence:
            return {"nodes": [], "relationships": [], "mentions": []}
        rows = self.graph.read("retrieval/context_graph", chunkIds=[e.chunk_id for e in evidence], limit=limit)
        return rows[0] if rows else {"nodes": [], "relationships": [], "mentions": []}
