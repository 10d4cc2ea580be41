"""Request threads share nothing they can spoil: the structured, global and search routes asked
from 8 threads at once give, answer for answer, what one thread gives (the answer text, its
sources, citations, rows and evidence), and the structured route's stemmer gives every thread
the stems one thread gets. The graph: the structured route's records and tales, with
communities built (the global route's themes), embedded by the model the server uses for
questions, behind the lock the server puts around it."""

from __future__ import annotations

import random
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ..conftest import REPO, STRUCTURED_GRAPH, load_sample_graph

pytestmark = pytest.mark.e2e

THREADS = 8
QUESTIONS = {
    "structured": [
        "Who killed Aldric Vane?",
        "Whom did Bera Vane kill?",
        "Who were the victims of Bera Vane?",
        "By whom was Aldric Vane slain?",
        "How many people did Bera Vane kill?",
        "Which characters belong to House Holt?",
        "Who are the parents of Cole Vane?",
        "Which character did Jun Arden play?",
        "Which tales mention a witch?",
        "How many of the tales mention a fox?",
        "谁创办了星河科技？",
    ],
    "global": ["What do the tales say about witches?", "What are the main themes of the tales?"],
    # (Aldric Vane is in the records and in no tale: "What happened to him at the mill?" abstains)
    "search": ["What did the fox watch every night?", "What did the miller's daughter spin at the mill?"],
}


@pytest.fixture(scope="module")
def asker(neo4j_server):
    """ask(question) -> what must not differ between threads, through qa.ask as the server calls it."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.retrieval import qa
    from graphrag_cypher.server.engine import LockedEmbedder

    load_sample_graph(
        neo4j_server,
        *STRUCTURED_GRAPH,
        ["communities", "build"],
    )
    settings = load_settings(dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env"))
    graph = connect(settings)
    embedder = LockedEmbedder(make_query_embedder(settings))

    def ask(question: str) -> dict:
        out = qa.ask(graph, embedder, settings, question, use_llm=False).to_dict()
        return {
            "route": out["route"],
            "answer": out["answer"],
            "answer_with_titles": out["answer_with_titles"],
            "sources": out["sources"],
            "citations": out["citations"],
            "rows": out["rows"],
            "evidence": [(e["chunk_id"], e["source"]) for e in out["evidence"]],
        }

    yield ask
    graph.close()


def test_every_route_answers_from_8_threads_as_from_one(asker):
    questions = [q for group in QUESTIONS.values() for q in group]
    alone = {q: asker(q) for q in questions}
    # the questions take the routes this test is about
    for route, group in QUESTIONS.items():
        assert {alone[q]["route"] for q in group} == {route}, {q: alone[q]["route"] for q in group}
    assert all(alone[q]["sources"] or alone[q]["rows"] for q in questions), [
        (q, alone[q]) for q in questions if not (alone[q]["sources"] or alone[q]["rows"])
    ]
    assert alone == {q: asker(q) for q in questions}, "one thread asking twice gets the same answers"

    def worker(seed: int) -> list[str]:
        order = questions * 3
        random.Random(seed).shuffle(order)
        differences = []
        for question in order:
            try:
                got = asker(question)
            except Exception as exc:  # noqa: BLE001 - a request that fails is what this test looks for
                differences.append(f"{question}: {type(exc).__name__}: {exc}")
                continue
            for key, value in got.items():
                if value != alone[question][key]:
                    differences.append(f"{question}: {key} {value!r} != {alone[question][key]!r}")
        return differences

    with ThreadPoolExecutor(THREADS) as pool:
        found = [d for result in pool.map(worker, range(THREADS)) for d in result]
    assert not found, f"{len(found)} answers differ from one thread's, e.g. {found[:3]}"


def test_the_stemmer_gives_every_thread_the_stems_of_one():
    from graphrag_cypher import lexicon

    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").rglob("*.md"))).lower()
    words = list(dict.fromkeys(re.findall(r"[a-z]{3,}", text)))[:4000]
    assert len(words) >= 2000
    expected = [lexicon.stem(w) for w in words]
    assert sum(s != w for s, w in zip(expected, words, strict=True)) > len(words) // 4  # it does stem
    start = threading.Barrier(THREADS)

    def stem_all(seed: int) -> int:
        order = list(range(len(words))) * 5
        random.Random(seed).shuffle(order)
        start.wait()
        return sum(lexicon.stem(words[i]) != expected[i] for i in order)

    with ThreadPoolExecutor(THREADS) as pool:
        wrong = list(pool.map(stem_all, range(THREADS)))
    assert wrong == [0] * THREADS
