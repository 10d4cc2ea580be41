"""graph — hybrid seeds and the passages about the question's entities, each followed by the
passage it leads to through a shared rare phrase or a topic it names, that passage chosen by
what the question asks beyond its seed
(cypher/queries/retrieval/entity_chunks.cypher, seed_neighbours.cypher; where Neo4j has the
graphrag plugin, all of it in one call of `graphrag.retrieve.graph`, which ranks the same)."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from .. import telemetry
from ..text import fold
from .base import ABOUT_RULES, MAX_COPIES, Analysis, Evidence, copy_spare, fetch_size, fulltext_query
from .hybrid import HybridRetriever
from .procedures import graph_via_procedure, has_graph_procedure
from .retriever import Retriever

_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    """The folded words of a text (accents and case folded), for term coverage."""
    return set(_WORD.findall(fold(text)))


@lru_cache(maxsize=4096)
def term_words(term: str) -> frozenset[str]:
    """A question term's folded words, computed once per term (it is compared with every candidate)."""
    return frozenset(words(term))


def term_weights(terms: list[str], texts: list[set[str]]) -> dict[str, float]:
    """Each term's inverse document frequency over the candidate passages (their word sets).

    A term most candidates hold tells little about which of them is the next hop; a rare one
    (a name) tells much. Counted over this question's candidates, so no corpus statistics are kept.
    """
    n = len(texts)
    return {t: math.log((n + 1) / (sum(term_words(t) <= ws for ws in texts) + 0.5)) for t in terms}


def coverage(weights: dict[str, float], seed_words: set[str], text_words: set[str]) -> float:
    """The weighted share of the question's terms the seed lacks that the neighbour has.

    The second hop of a question answers the part the first hop does not: of the terms the
    seed misses, the neighbour that holds more (rare ones counting more) is the likelier next
    step. A term of several words (a CJK run) counts when all its words are there.
    """
    missing = {t: w for t, w in weights.items() if not term_words(t) <= seed_words}
    total = sum(missing.values())
    if total <= 0:
        return 0.0
    return sum(w for t, w in missing.items() if term_words(t) <= text_words) / total


class GraphRetriever(Retriever):
    """Seeds, each followed by the passage it leads to.

    The seeds are the hybrid list with the passages about the entities the question names
    (`graphrag link titles`: a title's own chunk) placed right after its first item: the
    question names them, so they are evidence and starting points both. The second hop of a
    multi-hop question rarely resembles the question, but the first hop names it. From each
    of the top `linkSeeds` seeds (at most k/2 + 2: a seed further down cannot bring its
    neighbour into the top k) the graph offers neighbours: chunks sharing a rare phrase with
    it (weight 1 / chunks sharing it, at most `phraseCap` for all its phrases together) and the
    chunk about a topic it names (`aboutWeight`). Only its `leadPool` most strongly linked
    neighbours and those among the question's `leadHits` nearest chunks are scored (their vectors
    the only ones read, however many chunks share a phrase with it). A neighbour's
    strength is its similarity to what the question asks beyond the seed (the question vector
    less its projection on the seed), plus `linkWeight` × link weight (in Cypher), plus
    `coverWeight` × the share of the question's terms missing from the seed that it holds,
    each term weighted by its rarity among the candidates (here). The strongest is placed right after its seed, inheriting the seed's score.
    No LLM at index or query time; nothing per question.

    Where Neo4j has the graphrag plugin, the procedure `graphrag.retrieve.graph` does all of this
    inside the database (the same rows, in the same order); otherwise the Cypher files and the
    placing below do.
    """

    name = "graph"

    def rank(self, analysis: Analysis, k: int, spare: int = 0, copies: bool = False) -> list[Evidence]:
        """The best `k`, then up to `spare` more of the same ranking (the seeds followed are those
        of k, so the first k are the same); with `copies` and the plugin, each row's copies in scope."""
        # A seed and the passage it leads to take two places, so the neighbours of a seed past
        # place k/2 (and one spare, for neighbours already placed) cannot reach the top k.
        w = {**self.weights, "linkSeeds": min(self.weights["linkSeeds"], k // 2 + 2)}
        if has_graph_procedure(self.graph):
            return self._rank_in_neo4j(analysis, k, w, spare, copies)
        with telemetry.span("graphrag.retrieve.seeds"):
            seeds = HybridRetriever(self.graph, self.embedder, w, self.timings).rank(
                analysis, max(k, w["graphCandidates"])
            )
        if not seeds:
            return seeds
        embedding = self.embedding(analysis)
        with telemetry.span("graphrag.retrieve.neighbours", seeds=len(seeds)):
            return self._followed(analysis, embedding, seeds, w)[: k + spare]

    def _followed(self, analysis: Analysis, embedding: list[float], seeds: list[Evidence], w: dict) -> list[Evidence]:
        """The seeds (the passages about the question's entities after the first), each followed by
        the neighbours it leads to, strongest first."""
        params = analysis.filters.params()
        order = seeds[:1] + self._about_entities(analysis, embedding, seeds[0]) + seeds[1:]
        sequence: list[Evidence] = []
        for evidence in order:
            if all(evidence.chunk_id != e.chunk_id for e in sequence):
                sequence.append(evidence)
        top = [s.chunk_id for s in sequence[: w["linkSeeds"]]]
        leads: dict[str, list[dict]] = {}
        for row in self.graph.read(
            "retrieval/seed_neighbours",
            seedIds=top,
            embedding=embedding,
            maxPhraseChunks=w["maxPhraseChunks"],
            phraseChunksShare=float(w["phraseChunksShare"]),
            phraseCap=w["phraseCap"],
            aboutRules=sorted(ABOUT_RULES),
            aboutWeight=w["aboutWeight"],
            linkWeight=w["linkWeight"],
            leadPool=w["leadPool"],
            leadHits=w["leadHits"],
            perSeed=w["leadsPerSeed"],
            **params,
        ):
            leads.setdefault(row["seedId"], []).append(row)
        texts = {e.chunk_id: words(e.text) for e in sequence}
        for rows in leads.values():
            for row in rows:
                texts.setdefault(row["chunkId"], words(row["text"] or ""))
        weights = term_weights(analysis.keywords, list(texts.values()))
        ranked: list[Evidence] = []
        placed: set[str] = set()

        def place(evidence: Evidence) -> None:
            if evidence.chunk_id not in placed:
                placed.add(evidence.chunk_id)
                ranked.append(evidence)

        for seed in sequence:
            place(seed)
            rows = [r for r in leads.get(seed.chunk_id, []) if r["chunkId"] not in placed]
            if not rows:
                continue
            seed_words = texts[seed.chunk_id]
            scored = sorted(
                (
                    (-(float(r["strength"]) + w["coverWeight"] * coverage(weights, seed_words, texts[r["chunkId"]])), r)
                    for r in rows
                ),
                key=lambda item: (item[0], item[1]["chunkId"]),
            )
            for _, row in scored[: w["linksPerSeed"]]:
                place(
                    Evidence.from_row(
                        dict(row, score=seed.score), [f"linked by {', '.join(row['via'])} from {seed.chunk_id}"]
                    )
                )
        return ranked

    def ranked(self, analysis: Analysis, n: int) -> list[Evidence]:
        return self.rank(analysis, n, spare=copy_spare(n), copies=True)

    @telemetry.traced("graphrag.retrieve.seeds_and_neighbours", lambda self, *args: {"plugin": True})
    def _rank_in_neo4j(self, analysis: Analysis, k: int, weights: dict, spare: int, copies: bool) -> list[Evidence]:
        """The same ranking by one call of `graphrag.retrieve.graph` (with the rows' copies, one round trip)."""
        rows = graph_via_procedure(
            self.graph,
            self.embedding(analysis),
            fulltext_query(analysis),
            k=k,
            weights=weights,
            entity_ids=[e["id"] for e in analysis.entities],
            terms=analysis.keywords,
            filters=analysis.filters.params(),
            fetch=fetch_size(max(k, self.weights["graphCandidates"]), analysis.filters),
            spare=spare,
            max_copies=MAX_COPIES if copies else None,
        )
        return [Evidence.from_row(r) for r in rows]

    def _about_entities(self, analysis: Analysis, embedding: list[float], first: Evidence) -> list[Evidence]:
        """The chunks about the entities the question names, in the question's order."""
        if not analysis.entities:
            return []
        found: list[Evidence] = []
        for row in self.graph.read(
            "retrieval/entity_chunks",
            entityIds=[e["id"] for e in analysis.entities],
            embedding=embedding,
            perEntity=self.weights["perEntity"],
            aboutRules=sorted(ABOUT_RULES),
            **analysis.filters.params(),
        ):
            if row["rule"] in ABOUT_RULES:
                found.append(
                    Evidence.from_row(dict(row, score=first.score), [f"about question entity {row['entity']}"])
                )
        return found
