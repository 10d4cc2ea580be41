"""graph — hybrid seeds, each followed by the passage it leads to through a shared rare phrase
or a topic it names, and the chunks about the question's entities
(cypher/queries/retrieval/seed_neighbours.cypher, entity_chunks.cypher)."""

from __future__ import annotations

from .base import ABOUT_RULES, Analysis, Evidence, Retriever
from .hybrid import HybridRetriever


class GraphRetriever(Retriever):
    """Hybrid seeds, each followed by the passage it leads to.

    The second hop of a multi-hop question rarely resembles the question, but the first
    hop names it. From each of the top seeds the graph offers neighbours: chunks sharing
    a rare phrase with it (`graphrag link phrases`, weight 1 / chunks sharing it) and the
    chunk about a topic it names (`graphrag link titles`). The neighbour with the best
    similarity to the question plus `linkWeight` × link weight is placed right after its
    seed, inheriting the seed's score. Chunks about the question's own entities join
    the candidates. No LLM at index or query time; nothing per question.
    """

    name = "graph"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        w = self.weights
        seeds = HybridRetriever(self.graph, self.embedder, w, self.timings).rank(analysis, max(k, w["graphCandidates"]))
        if not seeds:
            return seeds
        embedding = self.embedding(analysis)
        params = analysis.filters.params()
        top = [s.chunk_id for s in seeds[: w["linkSeeds"]]]
        leads: dict[str, list[tuple[float, str, dict]]] = {}
        for row in self.graph.read(
            "retrieval/seed_neighbours",
            seedIds=top,
            embedding=embedding,
            maxPhraseChunks=w["maxPhraseChunks"],
            aboutRules=sorted(ABOUT_RULES),
            aboutWeight=w["aboutWeight"],
            **params,
        ):
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
                place(
                    Evidence.from_row(
                        dict(row, score=seed.score), [f"linked by {', '.join(row['via'])} from {seed.chunk_id}"]
                    )
                )
                followed += 1
        if analysis.entities:
            for row in self.graph.read(
                "retrieval/entity_chunks",
                entityIds=[e["id"] for e in analysis.entities],
                embedding=embedding,
                perEntity=w["perEntity"],
                **params,
            ):
                if row["chunkId"] not in placed and row["rule"] in ABOUT_RULES:
                    # the passage about an entity the question names: just after the first seed
                    ranked.insert(
                        1,
                        Evidence.from_row(dict(row, score=seeds[0].score), [f"about question entity {row['entity']}"]),
                    )
                    placed.add(row["chunkId"])
        return ranked[:k]
