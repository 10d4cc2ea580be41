"""Questions answered inside Neo4j against the Python path, side by side in one run.

    python bench/search_procedure.py [--json]

On MuSiQue-100 (the evaluation instance of its passages):

* embed: a question's vector by `graphrag.embed` (ONNX Runtime in Neo4j, `RETURN size(...)` over
  Bolt, so the 384 floats do not travel) against the Python ONNX embedder in process, p50/p95;
* search: `CALL graphrag.search(question, {mode: 'graph', k: 5})` (analysis, embedding and the
  graph mode inside Neo4j, one call) against what `graphrag ask --json` does to retrieve
  (question analysis, ONNX embedding, `GraphRetriever`), p50/p95, and how many questions get the
  same top 5.

The two paths alternate which runs first; 10 questions warm both up first.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import data_dir  # noqa: E402

EMBED = "RETURN size(graphrag.embed($q)) AS n"
SEARCH = "CALL graphrag.search($q, $config) YIELD chunkId RETURN chunkId"


def pct(values: list[float], q: float) -> float:
    return round(sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)


def main() -> dict:
    from graphrag_cypher import onnx_embedder
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.evaluation import CORPUS, EvalInstance, read_questions
    from graphrag_cypher.retrieval.graph import GraphRetriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    qa = data_dir() / "qa"
    passages, questions_file = qa / "musique_train_corpus.json", qa / "musique_train.json"
    if not passages.exists():
        return {"skipped": f"real data not found at {qa} (set GRAPHRAG_DATA_DIR)"}
    usable, why = onnx_embedder.check()
    if not usable:
        return {"skipped": why}
    _, questions = read_questions(questions_file)
    texts = [q.text for q in questions]
    python = onnx_embedder.OnnxEmbedder()
    with EvalInstance(load_settings(), passages) as run:
        graph = run.graph
        with graph.driver.session(database=graph.database) as session:

            def java_embed(q: str) -> None:
                session.run(EMBED, q=q).consume()

            def java_search(q: str) -> list[str]:
                return [r["chunkId"] for r in session.run(SEARCH, q=q, config={"k": 5, "corpus": CORPUS})]

            def python_search(q: str) -> list[str]:
                analysis = QuestionAnalyzer(graph).analyze(q, corpus=CORPUS)
                return [e.chunk_id for e in GraphRetriever(graph, python).retrieve(analysis, 5)]

            for q in texts[:10]:  # warm-up: the model loads, query plans, caches
                java_embed(q), python.embed_query(q), java_search(q), python_search(q)
            embed = {"java": [], "python": []}
            search = {"java": [], "python": []}
            same = 0
            for i, q in enumerate(texts):
                order = ("java", "python") if i % 2 else ("python", "java")
                for path in order:
                    started = time.perf_counter()
                    java_embed(q) if path == "java" else python.embed_query(q)
                    embed[path].append((time.perf_counter() - started) * 1000)
                ranked = {}
                for path in order:
                    started = time.perf_counter()
                    ranked[path] = java_search(q) if path == "java" else python_search(q)
                    search[path].append((time.perf_counter() - started) * 1000)
                same += ranked["java"] == ranked["python"]
            started = time.perf_counter()
            for _ in range(len(texts)):
                session.run("RETURN 1 AS n").consume()
            bolt = (time.perf_counter() - started) * 1000 / len(texts)
    return {
        "questions": len(texts),
        "embed_ms": {path: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for path, v in embed.items()},
        "search_ms": {path: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for path, v in search.items()},
        "bolt_round_trip_ms": round(bolt, 1),
        "same_top5": f"{same}/{len(texts)}",
    }


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("graphrag.embed / graphrag.search", "skipped", result["skipped"])]
    e, s = result["embed_ms"], result["search_ms"]
    return [
        (
            "question embed Java vs Python ONNX",
            f"p50 {e['java']['p50']} ms",
            f"graphrag.embed over Bolt p50/p95 {e['java']['p50']}/{e['java']['p95']} ms (Bolt RETURN 1: "
            f"{result['bolt_round_trip_ms']} ms), Python OnnxEmbedder in process {e['python']['p50']}/"
            f"{e['python']['p95']} ms; MuSiQue-100 questions",
        ),
        (
            "graphrag.search vs ask retrieval",
            f"p50 {s['java']['p50']} ms",
            f"CALL graphrag.search (analysis + embed + graph mode in Neo4j) p50/p95 {s['java']['p50']}/"
            f"{s['java']['p95']} ms, Python analysis + ONNX embed + graph mode {s['python']['p50']}/"
            f"{s['python']['p95']} ms, k 5; same top 5: {result['same_top5']}",
        ),
    ]


if __name__ == "__main__":
    out = main()
    if "--json" in sys.argv:
        print(json.dumps(out, indent=2))
    else:
        for name, value, detail in rows(out):
            print(f"{name:<36}  {value:<14}  {detail}")
