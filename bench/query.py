"""Query latency benchmark: p50/p95 of analysis + retrieval per mode, in-process, no LLM.

    python bench/query.py [--json]

Loads the MuSiQue corpus of ../shared/data/qa into a throw-away Neo4j (passages embedded by
sentence-transformers, as `load` does), then runs its 100 questions through every mode (one warm-up
pass first), the question embedded by the embedder `ask` uses (ONNX Runtime when the export is
there), the graph mode inside Neo4j when the graphrag plugin is installed. Goal: p50 <= 50 ms for
hybrid and graph. The same questions against the union of the three shared corpora (about 9,000
passages, the evaluation's instance of `bench/evaluation.py`): the vector, hybrid and graph modes,
same goal.

Then the structured route beside it in the same Neo4j: characters.json (`load records`, the
got-characters mapping) and the Grimm tales are added, and questions about the graph itself
(lookups both ways, members, actors, counts, which/how many tales mention X) are answered end
to end by `qa.ask` without an LLM, rows and all. Goal: p50 <= 100 ms. The MuSiQue questions are
also routed against that graph: `musique_structured` counts those that would leave the search
route (goal 0).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_neo4j, data_dir  # noqa: E402

from graphrag_cypher.retrieval.modes import MODES  # noqa: E402  (every retrieval mode of the registry)

STRUCTURED = (
    "Who killed Eddard Stark?",
    "Who killed Jon Snow?",
    "Whom did Arya Stark kill?",
    "How many people did Arya Stark kill?",
    "Which characters belong to House Tully?",
    "Who are the members of House Lannister?",
    "Who played Tyrion Lannister?",
    "Which character did Emilia Clarke play?",
    "Who are the parents of Robb Stark?",
    "Who was Sansa Stark married to?",
    "How many of the tales mention a witch?",
    "Which tales mention a fox?",
    "Which stories talk about a golden bird?",
    "How many tales mention a king?",
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_modes(graph, embedder, questions: list[str], k: int = 5, corpus: str | None = None, modes=MODES) -> dict:
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    analyzer = QuestionAnalyzer(graph)
    results = {}
    for mode in modes:
        search = retriever(mode, graph, embedder)
        for question in questions[:10]:  # warm-up: query plans, caches, the PPR projection
            search.retrieve(analyzer.analyze(question, corpus=corpus), k)
        latencies = []
        for question in questions:
            started = time.perf_counter()
            search.retrieve(analyzer.analyze(question, corpus=corpus), k)
            latencies.append((time.perf_counter() - started) * 1000)
        results[mode] = {
            "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(percentile(latencies, 0.95), 1),
            "questions": len(latencies),
        }
    return results


def main() -> dict:
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.linkers.titles import link_titles
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    data = data_dir() / "qa"
    corpus, questions_file = data / "musique_train_corpus.json", data / "musique_train.json"
    if not corpus.exists() or not questions_file.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    questions = [q["question"] for q in json.loads(questions_file.read_text())]
    with bench_neo4j() as (settings, graph):
        embedder = make_embedder(settings)
        Loader(graph, embedder, LoadOptions(loader="qa-corpus", source_root="musique", corpus="musique")).run(
            parse_qa_corpus(corpus, corpus="musique")
        )
        link_titles(graph, corpus="musique")  # the graph and ppr modes walk these links
        link_phrases(graph)
        query_embedder = make_query_embedder(settings)
        results = run_modes(graph, query_embedder, questions, corpus="musique")
        for r in results.values():
            r["query_embedder"] = getattr(query_embedder, "backend", type(query_embedder).__name__)
        structured = run_structured(graph, query_embedder, settings, questions)
        if structured is not None:
            results["structured"] = structured
    union = run_union(questions)
    if union is not None:
        results["union"] = union
    return results


def run_union(questions: list[str]) -> dict | None:
    """p50/p95 of the vector, hybrid and graph modes against the union of the three shared corpora
    (about 9,000 passages; the instance `bench/evaluation.py` built, reused, else built here)."""
    from evaluation import UNION
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.evaluation import CORPUS, EvalInstance
    from graphrag_cypher.onnx_embedder import make_query_embedder

    files = [data_dir() / "qa" / name for name in UNION]
    if not all(f.exists() for f in files):
        return None
    settings = load_settings()
    with EvalInstance(settings, files) as run:
        embedder = make_query_embedder(settings)
        results = run_modes(run.graph, embedder, questions, corpus=CORPUS, modes=("vector", "hybrid", "graph"))
        for r in results.values():
            r["query_embedder"] = getattr(embedder, "backend", type(embedder).__name__)
            r["passages"] = run.loaded
        return results


def run_structured(graph, embedder, settings, musique: list[str]) -> dict | None:
    """p50/p95 of structured answers (`qa.ask`, no LLM) over the GoT records and the Grimm tales."""
    from graphrag_cypher.kg import records
    from graphrag_cypher.loaders.stories import parse_story_book
    from graphrag_cypher.retrieval import structured as structure
    from graphrag_cypher.retrieval.qa import ask
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    characters, tales = data_dir() / "got" / "characters.json", data_dir() / "tales" / "grimm-pg2591.txt"
    if not characters.exists() or not tales.exists():
        return None
    records.run(graph, records.load_mapping("got-characters"), characters)
    Loader(graph, None, LoadOptions(loader="stories", source_root="grimm", corpus="grimm")).run(
        parse_story_book(tales, corpus="grimm")
    )
    for question in STRUCTURED:  # warm-up: the relation catalog, the phrase stems
        ask(graph, embedder, settings, question, use_llm=False)
    times, rows, routes = [], 0, 0
    for question in STRUCTURED:
        started = time.perf_counter()
        answer = ask(graph, embedder, settings, question, use_llm=False)
        times.append((time.perf_counter() - started) * 1000)
        rows += len(answer.rows)
        routes += answer.route == "structured"
    analyzer = QuestionAnalyzer(graph)
    leaving, matched = [], 0
    for question in musique:  # what `ask` would answer from the structure: a plan whose rows exist
        analysis = analyzer.analyze(question)
        plan = structure.plan(graph, analysis, embedder)
        if isinstance(plan, structure.Refusal):
            continue
        matched += 1
        rows_found, _ = structure.run(graph, plan, analysis.filters)
        if rows_found or plan.family in ("documents", "count_documents"):
            leaving.append(question)
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "questions": len(STRUCTURED),
        "structured": routes,
        "rows": rows,
        "musique_structured": len(leaving),
        "musique_matched_without_edges": matched - len(leaving),
        "musique_examples": leaving[:3],
    }


if __name__ == "__main__":
    print(json.dumps(main(), indent=2 if "--json" in sys.argv else None))
