"""Query latency benchmark: p50/p95 of analysis + retrieval per mode, in-process, no LLM.

    python bench/query.py [--json]

Loads the MuSiQue corpus of ../shared/data/qa into a throw-away Neo4j (passages embedded by
sentence-transformers, as `load` does), then runs its 100 questions through every mode (one warm-up
pass first), the question embedded by the embedder `ask` uses (ONNX Runtime when the export is
there), the graph mode inside Neo4j when the graphrag plugin is installed. Goal: p50 <= 50 ms for
hybrid and graph. The same questions against the union of the three shared corpora (about 9,000
passages, the evaluation's instance of `bench/evaluation.py`): the vector, hybrid and graph modes,
same goal, and the graph mode's budget per step (`union.graph.steps`, printed as a table too):
p50/p95 of analysis (a fresh analyzer per question, as `ask` makes), question embedding, the two
together (goal <= 15 ms; with the CPU time of each, which a busy machine does not inflate), hybrid
seeds (the reads named *hybrid* or *seeds* in the mode's first ranking), neighbours (the rest of
that ranking: entity chunks, seed neighbours, placing, and copies where the ranking reads them),
copies and re-rank (what `retrieve` adds to the first ranking) and the total. They are timed from
outside the mode, over a graph whose named reads are timed: through the Cypher files (as a Neo4j
without the plugin), and through the plugin, where seeds and neighbours are one call.

Then the structured route beside it in the same Neo4j: characters.json (`load records`, the
got-characters mapping) and the Grimm tales are added, and questions about the graph itself
(lookups both ways, members, actors, counts, which/how many tales mention X) are answered end
to end by `qa.ask` without an LLM, rows and all. Goal: p50 <= 100 ms. The MuSiQue questions are
also routed against that graph: `musique_structured` counts those that would leave the search
route (goal 0).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

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
    (about 9,000 passages; the instance `bench/evaluation.py` built, reused, else built here), and
    the graph mode's per-step budget (`graph.steps`)."""
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
        results["graph"]["steps"] = all_graph_steps(run.graph, embedder, questions, CORPUS)
        return results


# a read that ranks the hybrid seeds (retrieval/hybrid.cypher, or a seeds query of its own)
SEED_READ = re.compile(r"hybrid|seeds\b")
# analysis_and_embedding: the two added per question (goal <= 15 ms)
CYPHER_STEPS = (
    "analysis",
    "embedding",
    "analysis_and_embedding",
    "hybrid_seeds",
    "neighbours",
    "copies_rerank",
    "total",
)
PLUGIN_STEPS = ("analysis", "embedding", "analysis_and_embedding", "seeds_and_neighbours", "copies_rerank", "total")
CPU_STEPS = ("analysis", "embedding", "analysis_and_embedding")


class TimedGraph:
    """`graph` with each named read timed (query name, ms; in call order), seen with or without the
    graphrag plugin (a graph without it takes the Cypher path; nothing else differs)."""

    def __init__(self, graph, plugin: bool):
        from graphrag_cypher.admin.plugin import installed

        self._graph = graph
        self.reads: list[tuple[str, float]] = []
        # admin.plugin reads what is installed from this attribute once per connection
        self._graphrag_plugin = installed(graph) if plugin else {"version": None, "names": []}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)

    def read(self, name: str, /, **params: Any) -> list[dict]:
        started = time.perf_counter()
        try:
            return self._graph.read(name, **params)
        finally:
            self.reads.append((name, (time.perf_counter() - started) * 1000))


def graph_steps(graph, embedder, questions: list[str], corpus: str | None, plugin: bool, k: int = 5) -> dict:
    """p50/p95 ms of each step of the graph mode over `questions` (10 warm-up questions first)."""
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    timed = TimedGraph(graph, plugin)
    search = retriever("graph", timed, embedder)
    first: list[tuple[float, int, int]] = []  # the first ranking of a question: ms, its reads' span
    rank = search.rank

    def timed_rank(analysis, n, *args, **kwargs):
        started, mark = time.perf_counter(), len(timed.reads)
        ranked = rank(analysis, n, *args, **kwargs)
        if not first:
            first.append(((time.perf_counter() - started) * 1000, mark, len(timed.reads)))
        return ranked

    search.rank = timed_rank  # retrieve() asks for its rankings through the instance (self.rank)
    names = PLUGIN_STEPS if plugin else CYPHER_STEPS
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in CPU_STEPS}
    for n, question in enumerate(questions[:10] + questions):
        timed.reads.clear()
        first.clear()
        started, started_cpu = time.perf_counter(), time.thread_time()
        analysis = QuestionAnalyzer(graph).analyze(question, corpus=corpus)
        analysed, analysed_cpu = time.perf_counter(), time.thread_time()
        search.embedding(analysis)
        embedded, embedded_cpu = time.perf_counter(), time.thread_time()
        search.retrieve(analysis, k)
        done = time.perf_counter()
        if n < 10:
            continue
        ranked_ms, start, end = first[0]
        step = {
            "analysis": (analysed - started) * 1000,
            "embedding": (embedded - analysed) * 1000,
            "analysis_and_embedding": (embedded - started) * 1000,
            "copies_rerank": (done - embedded) * 1000 - ranked_ms,
            "total": (done - started) * 1000,
        }
        if plugin:
            step["seeds_and_neighbours"] = ranked_ms
        else:
            seeds = sum(ms for name, ms in timed.reads[start:end] if SEED_READ.search(name))
            step["hybrid_seeds"], step["neighbours"] = seeds, ranked_ms - seeds
        for name in names:
            wall[name].append(step[name])
        cpu["analysis"].append((analysed_cpu - started_cpu) * 1000)
        cpu["embedding"].append((embedded_cpu - analysed_cpu) * 1000)
        cpu["analysis_and_embedding"].append((embedded_cpu - started_cpu) * 1000)
    out: dict[str, Any] = {
        "path": "plugin (graphrag.retrieve.graph)" if plugin else "cypher + python",
        "questions": len(questions),
    }
    for name in names:
        out[name] = {
            "p50_ms": round(statistics.median(wall[name]), 1),
            "p95_ms": round(percentile(wall[name], 0.95), 1),
        }
        if name in cpu:
            out[name]["cpu_p50_ms"] = round(statistics.median(cpu[name]), 1)
            out[name]["cpu_p95_ms"] = round(percentile(cpu[name], 0.95), 1)
    return out


def all_graph_steps(graph, embedder, questions: list[str], corpus: str | None, k: int = 5) -> dict:
    """The steps through the plugin (where it is installed) and through the Cypher files."""
    from graphrag_cypher.retrieval.procedures import has_graph_procedure

    paths = {"cypher": graph_steps(graph, embedder, questions, corpus, plugin=False, k=k)}
    if has_graph_procedure(graph):
        paths["plugin"] = graph_steps(graph, embedder, questions, corpus, plugin=True, k=k)
    return paths


def steps_table(paths: dict, passages: int | None = None) -> str:
    """The per-step budget as text: one line per step, p50 / p95 (and CPU time) per path."""
    where = f" at {passages} passages" if passages else ""
    lines = [f"graph mode, per step{where} (ms, p50 / p95; cpu: this thread's CPU time)"]
    for path, steps in paths.items():
        lines.append(f"  {path}: {steps['path']}, {steps['questions']} questions")
        for name, s in steps.items():
            if not isinstance(s, dict):
                continue
            cpu = f"   cpu {s['cpu_p50_ms']} / {s['cpu_p95_ms']}" if "cpu_p50_ms" in s else ""
            lines.append(f"    {name:<22}{s['p50_ms']:>8} / {s['p95_ms']:<8}{cpu}")
    return "\n".join(lines)


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
        rows += len(answer.fields.get("rows") or [])  # the structured route's rows, as --json has them
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
    found = main()
    if "--json" in sys.argv:
        print(json.dumps(found, indent=2))
    else:
        graph = (found.get("union") or {}).get("graph") or {}
        if "steps" in graph:
            print(steps_table(graph["steps"], graph.get("passages")))
        print(json.dumps(found))
