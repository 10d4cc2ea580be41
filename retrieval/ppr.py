"""ppr — personalised PageRank from weighted seeds over the chunk–phrase–entity graph, fused
with the hybrid list by reciprocal rank.

The seeds are the top hybrid chunks, each weighted by its hybrid score, and the question's
entities (`pprEntityWeight` × the best seed's weight). The walk covers their two-hop
neighbourhood along `HAS_PHRASE` (shared phrases, `graphrag link phrases`) and `MENTIONS`
(places, title topics, extracted entities), never entering a hub of more than
`pprMaxDegree` relationships. With the graphrag plugin it is one procedure call
(`graphrag.ppr`, cypher/queries/retrieval/ppr_procedure.cypher); without it (Aura, a plain
Docker image) the same neighbourhood is read through retrieval/ppr_subgraph.cypher and
:func:`weighted_ppr` walks it in Python, to the same ranking. Open GDS cannot do this:
its PageRank takes source nodes but not their weights.
"""

from __future__ import annotations

import math
from collections import defaultdict

from graphrag_cypher.admin import plugin
from graphrag_cypher.errors import GraphragError

from .base import Analysis, Evidence
from .hybrid import HybridRetriever
from .retriever import Retriever

PROCEDURE = "graphrag.ppr"
# The walk's settings (tuned with `graphrag eval retrieval` on MuSiQue and HotpotQA).
PPR_WEIGHTS = {
    "pprSeeds": 10,  # hybrid chunks that seed the walk
    "pprDamping": 0.5,  # probability of walking on rather than jumping back to the seeds
    "pprMaxDegree": 50,  # a node with more relationships than this is a hub the walk never enters
    "pprPhraseWeight": 1.0,  # relationship type weights
    "pprMentionWeight": 1.0,
    "pprEntityWeight": 1.0,  # a question entity's seed weight, relative to the best chunk seed
    "pprListWeight": 1.0,  # the walked list's weight in the fusion with the hybrid list
    "pprIterations": 30,
}
TOLERANCE = 1e-10
# The most iterations of the walk, in the plugin (ProcedureConfig.MAX_PPR_ITERATIONS) and here.
MAX_ITERATIONS = 100_000
ABOUT_WALK = 500  # chunks of the walk read when only chunks about an entity count


def fuse(lists: list[tuple[float, list[Evidence]]], rrf_k: float) -> list[Evidence]:
    """Weighted reciprocal-rank fusion: an item at rank r (from 1) of a list adds weight / (rrf_k + r)."""
    fused: dict[str, Evidence] = {}
    for weight, items in lists:
        for rank, ev in enumerate(items):
            target = fused.setdefault(
                ev.chunk_id, Evidence(ev.chunk_id, ev.document_id, ev.title, ev.uri, ev.text, 0.0, [])
            )
            target.score += weight / (rrf_k + rank + 1)
            target.via += ev.via
    return sorted(fused.values(), key=lambda e: -e.score)


def weighted_ppr(
    edges: list[dict], seeds: dict[str, float], type_weights: dict[str, float], damping: float, iterations: int
) -> dict[str, float]:
    """Personalised PageRank over `edges` (rows of retrieval/ppr_subgraph.cypher: `source`,
    `target` element ids, `type`), restarting at `seeds` (element id → weight): graphrag.ppr's
    walk. A seed without an edge has nowhere to walk and is left out. Element id → score.
    `iterations` is 1 to MAX_ITERATIONS, as the procedure takes."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise GraphragError(f"pprIterations must be a whole number from 1 to {MAX_ITERATIONS}, not {iterations}")
    out: dict[str, float] = defaultdict(float)
    pairs = []
    for e in edges:
        w = type_weights.get(e["type"], 0.0)
        if w > 0:
            pairs.append((e["source"], e["target"], w))
            out[e["source"]] += w
            out[e["target"]] += w
    restart = {n: w for n, w in seeds.items() if out.get(n, 0) > 0 and w > 0}
    total = sum(restart.values())
    if not total:
        return {}
    p = {n: w / total for n, w in restart.items()}
    x = {n: p.get(n, 0.0) for n in out}
    for _ in range(iterations):
        y = dict.fromkeys(out, 0.0)
        for a, b, w in pairs:
            y[b] += x[a] * w / out[a]
            y[a] += x[b] * w / out[b]
        delta = 0.0
        for n in y:
            v = (1 - damping) * p.get(n, 0.0) + damping * y[n]
            delta += abs(v - x[n])
            y[n] = v
        x = y
        if delta < TOLERANCE:
            break
    return x


class PPRRetriever(Retriever):
    name = "ppr"

    def rank(self, analysis: Analysis, k: int) -> list[Evidence]:
        w = {**PPR_WEIGHTS, **self.weights}
        seeds = HybridRetriever(self.graph, self.embedder, self.weights, self.timings).rank(
            analysis, max(k, w["pprSeeds"])
        )
        weights = {s.chunk_id: s.score for s in seeds[: w["pprSeeds"]] if s.score > 0}
        best = max(weights.values(), default=1.0)
        for entity in analysis.entities:
            weights.setdefault(entity["id"], w["pprEntityWeight"] * best)
        if not weights:
            return seeds[:k]
        # with `about` the walk's chunks are filtered afterwards, and few are the entity's: read more of them
        walked = self.walk(
            weights, w, max(k * 3, 15, ABOUT_WALK if analysis.filters.about else 0), analysis.filters.params()
        )
        return fuse([(1.0, seeds), (w["pprListWeight"], walked)], w["rrfK"])[:k]

    def walk(self, seeds: dict[str, float], w: dict, k: int, filters: dict) -> list[Evidence]:
        """The `k` chunks the weighted walk ranks highest, filters held (plugin or Python); `filters`
        as Filters.params gives them (`about` may be left out)."""
        filters = {"about": None, **filters}
        types = {"HAS_PHRASE": float(w["pprPhraseWeight"]), "MENTIONS": float(w["pprMentionWeight"])}
        config = {
            "relationshipTypes": types,
            "damping": float(w["pprDamping"]),
            "iterations": int(w["pprIterations"]),
            "tolerance": TOLERANCE,
            "maxDegree": int(w["pprMaxDegree"]),
            "labels": ["Chunk"],
            "k": k,
        }
        if plugin.has(self.graph, PROCEDURE):
            rows = self.graph.read("retrieval/ppr_procedure", seeds=seeds, config=config, **filters)
        else:
            rows = self.graph.read("retrieval/ppr_chunks", ids=python_ppr(self.graph, seeds, config), **filters)
        return [Evidence.from_row(r, ["ppr"]) for r in rows]


def python_ppr(graph, seeds: dict[str, float], config: dict, with_scores: bool = False) -> list:
    """graphrag.ppr without the plugin: the chunk ids it yields, best first (score, then id);
    (id, score) pairs when `with_scores`."""
    types = {t: w for t, w in config["relationshipTypes"].items() if w > 0}
    edges = graph.read(
        "retrieval/ppr_subgraph", seedIds=list(seeds), types=sorted(types), maxDegree=config["maxDegree"]
    )
    by_element: dict[str, float] = {}
    chunks: dict[str, str] = {}
    for e in edges:
        for end in ("source", "target"):
            if e[f"{end}Seed"]:
                by_element[e[end]] = seeds[e[f"{end}Id"]]
            if e[f"{end}Chunk"]:
                chunks[e[end]] = e[f"{end}Id"]
    scores = weighted_ppr(edges, by_element, types, config["damping"], config["iterations"])
    # Best first; scores equal to 12 decimals (ties, up to rounding) by id, as the procedure orders them.
    ranked = sorted(
        ((s, chunks[n]) for n, s in scores.items() if n in chunks and s > 0),
        key=lambda t: (-math.floor(t[0] * 1e12 + 0.5), t[1]),
    )
    top = ranked[: config["k"]]
    return [(chunk, score) for score, chunk in top] if with_scores else [chunk for _, chunk in top]
