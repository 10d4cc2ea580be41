"""`--rerank`: the top candidates of any mode reordered by a cross-encoder, the best `k` kept."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from graphrag_cypher.retrieval.rerank import Reranker

from .base import Evidence

DEFAULT_CANDIDATES = 20  # how many of the mode's top chunks the reranker scores


@dataclass
class RerankTrace:
    """What the reranker did, for --explain and --json."""

    reranker: str
    candidates: int
    kept: int
    moves: list[dict] = field(default_factory=list)  # {chunk_id, before, after, score}, in the new order
    ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "reranker": self.reranker,
            "candidates": self.candidates,
            "kept": self.kept,
            "order": self.moves,
            "ms": round(self.ms, 1),
        }


def rerank(reranker: Reranker, question: str, candidates: list[Evidence], k: int) -> tuple[list[Evidence], RerankTrace]:
    """The `k` candidates the reranker scores highest (ties keep the mode's order); each keeps its
    mode's trace in `via` plus "rerank", and its score becomes the reranker's."""
    started = time.perf_counter()
    scores = reranker.score(question, [ev.text for ev in candidates])
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:k]
    kept = []
    moves = []
    for after, i in enumerate(order, 1):
        ev = candidates[i]
        kept.append(Evidence(ev.chunk_id, ev.document_id, ev.title, ev.uri, ev.text, scores[i], [*ev.via, "rerank"]))
        moves.append({"chunk_id": ev.chunk_id, "before": i + 1, "after": after, "score": round(scores[i], 6)})
    trace = RerankTrace(reranker.name, len(candidates), len(kept), moves, (time.perf_counter() - started) * 1000)
    return kept, trace
