"""How many sentences the extractive answer embeds, and what that does to its answers.

    python bench/extractive.py [--json] [--caps 1000000,12,10,8]

Loads the MuSiQue corpus of ../shared/data/qa (else the bundled sample) into a throw-away Neo4j
as bench/serve.py does, answers every question without an LLM (graph mode, the query embedder)
once per cap on the sentences embedded (`max_embedded`; 1000000 embeds every sentence, as it was)
and counts the answers that contain the gold answer or one of its aliases (word-normalised),
with the answer step's mean time. Not part of `make bench` (the MuSiQue load takes minutes).
"""

from __future__ import annotations

import functools
import json
import re
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j, data_dir  # noqa: E402
from serve import load  # noqa: E402


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKD", text).lower()))


def _gold(data: str) -> list[dict]:
    if data.startswith("MuSiQue"):
        questions = json.loads((data_dir() / "qa" / "musique_train.json").read_text())
        return [
            {"question": q["question"], "answers": [q["answer"], *(q.get("answer_aliases") or [])]} for q in questions
        ]
    questions = json.loads((REPO / "loaders" / "sample" / "questions.json").read_text())
    return [{"question": q["question"], "answers": []} for q in questions]


def main(caps: tuple[int, ...] = (10**6, 12, 10, 8)) -> dict:
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.retrieval import qa
    from graphrag_cypher.retrieval.answer import extractive_answer

    out: dict = {"caps": {}}
    with bench_neo4j() as (settings, graph):
        data, _, corpus = load(settings, graph, make_embedder(settings))
        embedder = make_query_embedder(settings)
        questions = _gold(data)
        out.update(data=data, questions=len(questions), query_embedder=embedder.backend)
        original = qa.extractive_answer
        try:
            for cap in caps:
                qa.extractive_answer = functools.partial(extractive_answer, max_embedded=cap)
                hits, answer_ms = 0, 0.0
                for q in questions:
                    answer = qa.ask(graph, embedder, settings, q["question"], corpus=corpus, use_llm=False)
                    text = f" {_norm(answer.text)} "
                    hits += any(_norm(g) and f" {_norm(g)} " in text for g in q["answers"])
                    answer_ms += answer.timings_ms["answer_ms"]
                out["caps"][cap] = {"gold_in_answer": hits, "answer_ms_mean": round(answer_ms / len(questions), 1)}
        finally:
            qa.extractive_answer = original
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    caps = tuple(int(c) for c in args[args.index("--caps") + 1].split(",")) if "--caps" in args else (10**6, 12, 10, 8)
    result = main(caps)
    if "--json" in args:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['data']}, {result['questions']} questions, query embedder {result['query_embedder']}")
        for cap, r in result["caps"].items():
            print(
                f"  at most {cap:>7} sentences embedded: gold answer in {r['gold_in_answer']:>3}, "
                f"answer step {r['answer_ms_mean']} ms mean"
            )
