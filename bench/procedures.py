"""graphrag's own procedures against the paths they replace, side by side in one run.

    python bench/procedures.py [--json] [--linking]   (--linking: the linking rows only)

* linking: `graphrag.link.places` (`link places --engine procedure`: matching, deciding and
  writing inside Neo4j) against the Python fast engine (texts over Bolt) on Pleiades + ISAW,
  end to end: dry runs (medians of 5, after one warm-up run each), whether the decided edges
  are identical (every property but `source`), and a written run of each then a second one,
  which must change nothing;
* graph mode: `GraphRetriever.rank` through `graphrag.retrieve.graph` (one call) against the
  Cypher files and Python's placing (three queries), each MuSiQue question's embedding computed
  once before both, p50/p95, and how many questions get the same ranking;
* graph neighbours: `graphrag.retrieve.neighbours` against `retrieval/seed_neighbours.cypher`
  for the top 10 hybrid seeds of each MuSiQue question, p50/p95 of the same calls;
* ppr: recall@5 of the `ppr` mode (weighted seeds, `graphrag.ppr`) and of hybrid on MuSiQue,
  and whether the Python walk (no plugin) ranks the same.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_neo4j, data_dir  # noqa: E402


def _linking() -> dict:
    from graphrag_cypher.linkers.mentions import read_mentions
    from graphrag_cypher.linkers.places import PlaceLinkOptions, link_places, link_set
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.gazetteers import GazetteerError, parse_pleiades
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    data = data_dir()
    pleiades, isaw = data / "pleiades" / "pleiades-places.geojsonl.gz", data / "isaw-papers"
    if not pleiades.exists() or not isaw.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    with bench_neo4j() as (_, graph):
        rows = [r for r in parse_pleiades(pleiades) if not isinstance(r, GazetteerError)]
        for i in range(0, len(rows), 2000):
            graph.write("places/upsert_places", rows=rows[i : i + 2000])
        Loader(graph, None, LoadOptions(loader="files", source_root=str(isaw), corpus="isaw")).run(
            parse_folder(isaw, extensions=frozenset({".xhtml"}))
        )
        timed: dict[str, list[float]] = {"fast": [], "procedure": []}
        sets = {}
        for engine in timed:  # warm-up: the name cache, the JVM's compiled code
            link_places(graph, PlaceLinkOptions(engine=engine, dry_run=True))
        for i in range(5):
            for engine in ("fast", "procedure") if i % 2 else ("procedure", "fast"):  # neither always first
                started = time.perf_counter()
                result = link_places(graph, PlaceLinkOptions(engine=engine, dry_run=True))
                timed[engine].append(time.perf_counter() - started)
                sets[engine] = link_set(result.edges)
        written: dict[str, dict] = {}
        graph_sets = {}
        for engine in timed:  # from an empty graph each: a first run writes every edge, a second nothing
            graph.write("linkers/delete_mentions", linker="places")
            runs = []
            for _ in range(2):
                started = time.perf_counter()
                result = link_places(graph, PlaceLinkOptions(engine=engine))
                runs.append((round(time.perf_counter() - started, 2), result.created, result.updated, result.removed))
            written[engine] = {
                "first_s": runs[0][0],
                "created": runs[0][1],
                "second_s": runs[1][0],
                "second": runs[1][1:],
            }
            graph_sets[engine] = {
                (c, t, *(tuple(v) if isinstance(v, list) else v for k, v in sorted(p.items()) if k != "source"))
                for c, t, p in read_mentions(graph, "places")
            }
        fast, proc = statistics.median(timed["fast"]), statistics.median(timed["procedure"])
        return {
            "fast_s": round(fast, 2),
            "procedure_s": round(proc, 2),
            "ratio": round(fast / proc, 2),
            "links": len(sets["fast"]),
            "identical": sets["fast"] == sets["procedure"] and graph_sets["fast"] == graph_sets["procedure"],
            "written": written,
        }


def _retrieval() -> dict:
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.evaluation import CORPUS, EvalInstance, evaluate_modes, read_questions
    from graphrag_cypher.retrieval.graph import GraphRetriever
    from graphrag_cypher.retrieval.hybrid import HybridRetriever
    from graphrag_cypher.retrieval.ppr import PPR_WEIGHTS, PPRRetriever
    from graphrag_cypher.retrieval.procedures import neighbour_config, neighbours_via_procedure
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    qa = data_dir() / "qa"
    passages, questions_file = qa / "musique_train_corpus.json", qa / "musique_train.json"
    if not passages.exists():
        return {"skipped": f"real data not found at {qa} (set GRAPHRAG_DATA_DIR)"}
    _, questions = read_questions(questions_file)
    with EvalInstance(load_settings(), passages) as run:
        graph, embedder = run.graph, run.embedder
        analyzer = QuestionAnalyzer(graph)
        times: dict[str, list[float]] = {"cypher": [], "procedure": []}
        graph_times: dict[str, list[float]] = {"cypher": [], "procedure": []}
        same_walk = same_graph = same_neighbours = 0
        analyses = [analyzer.analyze(q.text, corpus=CORPUS) for q in questions]
        retriever = GraphRetriever(graph, embedder)
        for analysis in analyses:
            retriever.embedding(analysis)  # embedded once, outside the timings
        for analysis in analyses[:10]:  # warm-up: query plans, caches
            retriever.rank(analysis, 5)
            _without_plugin(graph, partial(retriever.rank, analysis, 5))
        for i, analysis in enumerate(analyses):
            ranked = {}
            for path in ("procedure", "cypher") if i % 2 else ("cypher", "procedure"):  # neither always first
                started = time.perf_counter()
                if path == "procedure":
                    ranked[path] = retriever.rank(analysis, 5)
                else:
                    ranked[path] = _without_plugin(graph, partial(retriever.rank, analysis, 5))
                graph_times[path].append((time.perf_counter() - started) * 1000)
            same_graph += [e.to_dict() for e in ranked["procedure"]] == [e.to_dict() for e in ranked["cypher"]]
        for q, analysis in zip(questions, analyses, strict=True):
            seeds = HybridRetriever(graph, embedder).rank(analysis, 10)
            ids, vector = [s.chunk_id for s in seeds], analysis.embedding or embedder.embed_query(q.text)
            started = time.perf_counter()
            cypher = graph.read(
                "retrieval/seed_neighbours", seedIds=ids, embedding=vector, **neighbour_config(corpus=CORPUS)
            )
            times["cypher"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            proc = neighbours_via_procedure(graph, ids, vector, corpus=CORPUS)
            times["procedure"].append((time.perf_counter() - started) * 1000)
            same_neighbours += sorted(cypher, key=_row_key) == sorted(proc, key=_row_key)
            ppr = PPRRetriever(graph, embedder)
            weights = {s.chunk_id: s.score for s in seeds}
            filters = {"corpus": CORPUS, "from": None, "to": None}
            walked = [e.chunk_id for e in ppr.walk(weights, PPR_WEIGHTS, 15, filters)]
            same_walk += walked == [
                e.chunk_id for e in _without_plugin(graph, partial(ppr.walk, weights, PPR_WEIGHTS, 15, filters))
            ]
        scores = evaluate_modes(graph, embedder, questions, ["hybrid", "ppr", "graph"], 5, CORPUS)

    def pct(values: list[float], q: float) -> float:
        return round(sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)

    return {
        "graph_ms": {name: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for name, v in graph_times.items()},
        "graph_same": f"{same_graph}/{len(questions)}",
        "graph_recall@5": scores["graph"]["recall@5"],
        "neighbours_ms": {name: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for name, v in times.items()},
        "neighbours_same": f"{same_neighbours}/{len(questions)}",
        "ppr_recall@5": scores["ppr"]["recall@5"],
        "hybrid_recall@5": scores["hybrid"]["recall@5"],
        "python_walk_same": f"{same_walk}/{len(questions)}",
    }


def _without_plugin(graph, call):
    """`call()` as on a server without the graphrag jar: the Cypher files and Python."""
    graph._graphrag_plugin = {"version": None, "names": []}
    try:
        return call()
    finally:
        del graph._graphrag_plugin


def _row_key(row: dict) -> tuple:
    return (row["seedId"], row["chunkId"])


def main() -> dict:
    return {"linking": _linking(), "retrieval": _retrieval()}


def rows(result: dict) -> list[tuple[str, str, str]]:
    out = []
    link = result["linking"]
    if "skipped" in link:
        out.append(("link places procedure vs fast", "skipped", link["skipped"]))
    else:
        w = link["written"]
        out.append(
            (
                "link places in-database (graphrag.link.places) vs fast",
                f"{link['ratio']}x",
                f"graphrag.link.places {link['procedure_s']} s, Python fast engine {link['fast_s']} s (end to end, "
                f"dry run, median of 5); {link['links']} links, identical sets: {'yes' if link['identical'] else 'no'}; "
                f"written from empty: {w['procedure']['first_s']} s vs {w['fast']['first_s']} s "
                f"({w['procedure']['created']} vs {w['fast']['created']} created), second run "
                f"{w['procedure']['second_s']} s vs {w['fast']['second_s']} s, created/updated/removed "
                f"{w['procedure']['second']} vs {w['fast']['second']}",
            )
        )
    ret = result["retrieval"]
    if "skipped" in ret:
        return out + [("graph neighbours / ppr", "skipped", ret["skipped"])]
    g = ret["graph_ms"]
    out.append(
        (
            "graph p50/p95 procedure vs cypher",
            f"p50 {g['procedure']['p50']} ms",
            f"graph mode on MuSiQue-100, k 5: graphrag.retrieve.graph p50/p95 {g['procedure']['p50']}/"
            f"{g['procedure']['p95']} ms, Cypher files + Python {g['cypher']['p50']}/{g['cypher']['p95']} ms "
            f"(question embedded before both; goal p50 <= 30 ms); same ranking: {ret['graph_same']}; "
            f"recall@5 {ret['graph_recall@5']}",
        )
    )
    n = ret["neighbours_ms"]
    out.append(
        (
            "graph neighbours procedure vs cypher",
            f"p50 {n['procedure']['p50']} ms",
            f"procedure p50/p95 {n['procedure']['p50']}/{n['procedure']['p95']} ms, cypher "
            f"{n['cypher']['p50']}/{n['cypher']['p95']} ms, 10 seeds per MuSiQue question; "
            f"same rows: {ret['neighbours_same']}",
        )
    )
    out.append(
        (
            "ppr weighted seeds recall@5",
            f"{ret['ppr_recall@5']}",
            f"MuSiQue-100: ppr {ret['ppr_recall@5']} vs hybrid {ret['hybrid_recall@5']} (GDS unweighted ppr: 58); "
            f"Python walk ranks as the procedure: {ret['python_walk_same']}",
        )
    )
    return out


if __name__ == "__main__":
    found = {"linking": _linking(), "retrieval": {"skipped": "--linking"}} if "--linking" in sys.argv else main()
    print(json.dumps(found, indent=2) if "--json" in sys.argv else "\n".join(" | ".join(r) for r in rows(found)))
