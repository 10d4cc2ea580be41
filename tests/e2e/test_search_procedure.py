"""`graphrag.search(question, config)`: a question typed in Neo4j Browser retrieves what
`graphrag ask` retrieves, with no Python (the question embedded in Java, its keywords and
entities found in Java), on the sample after knowledge-graph extraction."""

from __future__ import annotations

import json

import pytest

from .test_ask_graph import graph  # noqa: F401  (the module fixture: the sample, extracted)

pytestmark = pytest.mark.e2e

QUESTIONS = [
    "who stole the lantern?",
    "Who made the silver lantern, and who stole it?",
    "Who is Edric Varn?",
    "Who is Edric the Young Stag?",
    "what did ÉDRIC VARN carry?",
    "Where does the giant Brannock live?",
    "Who lit the copper lantern of Dunmere?",
    "Which river's silt filled the harbour of Ephesus?",
    "What linked the Pharos island of Alexandria to the mainland?",
    "Why did the wheel of Tansy Mill stop turning?",
    "Who are the Edricsons of Varnholt?",
    "银灯是谁做的？",
]


@pytest.fixture
def kg(graph, monkeypatch, onnx_export):  # noqa: F811
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")
    graph.point_env(monkeypatch)
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.onnx_embedder import make_query_embedder

    settings = load_settings()
    with connect(settings) as g:
        yield g, make_query_embedder(settings)


def _search(g, question: str, config: dict) -> list[dict]:
    with g.driver.session(database=g.database) as session:
        return session.run(
            "CALL graphrag.search($q, $config) YIELD rank, chunkId, documentId, title, uri, text, score, via "
            "RETURN rank, chunkId, documentId, title, uri, text, score, via",
            q=question,
            config=config,
        ).data()


def _python(g, embedder, question: str, mode: str, k: int):
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    analysis = QuestionAnalyzer(g).analyze(question)
    return analysis, retriever(mode, g, embedder).retrieve(analysis, k)


def test_the_question_is_analysed_as_python_does(kg):
    g, _ = kg
    entities_seen = 0
    for question in QUESTIONS:
        from graphrag_cypher.retrieval.base import fulltext_query
        from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

        analysis = QuestionAnalyzer(g).analyze(question)
        with g.driver.session(database=g.database) as session:
            row = session.run(
                "CALL graphrag.search.analysis($q) YIELD keywords, query, entityIds, entities "
                "RETURN keywords, query, entityIds, entities",
                q=question,
            ).single()
        assert row["keywords"] == analysis.keywords, question
        assert row["query"] == fulltext_query(analysis), question
        assert row["entityIds"] == [e["id"] for e in analysis.entities], question
        assert [e["matched"] for e in row["entities"]] == [e["matched"] for e in analysis.entities], question
        entities_seen += len(analysis.entities)
    assert entities_seen >= 4  # the questions name entities, so that part is exercised


@pytest.mark.parametrize("mode", ["graph", "hybrid", "vector"])
def test_search_ranks_as_the_python_retriever(kg, mode):
    g, embedder = kg
    for question in QUESTIONS:
        for k in (5, 8):
            _, evidence = _python(g, embedder, question, mode, k)
            rows = _search(g, question, {"mode": mode, "k": k})
            assert [r["chunkId"] for r in rows] == [e.chunk_id for e in evidence], (question, k)
            assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
            for r, e in zip(rows, evidence, strict=True):
                # the question vector is Java's, not Python's: equal to float rounding
                assert r["score"] == pytest.approx(e.score, abs=1e-5), (question, r["chunkId"])
                assert (r["documentId"], r["title"], r["text"]) == (e.document_id, e.title, e.text)
                if mode == "graph":
                    assert r["via"] == e.via, (question, r["chunkId"])


def test_search_filters_and_says_what_is_wrong(kg):
    g, embedder = kg
    with g.driver.session(database=g.database) as session:
        corpora = [r["c"] for r in session.run("MATCH (d:Document) RETURN DISTINCT d.corpus AS c").data() if r["c"]]
    assert corpora
    for c in corpora[:2]:
        rows = _search(g, "Who made the silver lantern?", {"mode": "graph", "k": 5, "corpus": c})
        with g.driver.session(database=g.database) as session:
            allowed = {
                r["id"]
                for r in session.run(
                    "MATCH (ch:Chunk)-[:FROM_DOCUMENT]->(:Document {corpus: $c}) RETURN ch.id AS id", c=c
                ).data()
            }
        assert {r["chunkId"] for r in rows} <= allowed
    from neo4j.exceptions import ClientError

    with pytest.raises(ClientError, match="unknown mode 'ppr': choose one of graph, hybrid, vector"):
        _search(g, "who stole the lantern?", {"mode": "ppr"})
    assert _search(g, "   ", {}) == []


def test_search_gives_the_evidence_of_ask(kg, run_cli):
    g, _ = kg
    question = "Who made the silver lantern, and who stole it?"
    result = run_cli("ask", question, "--json", "--mode", "graph", "--no-gate", "-k", "5")
    assert result.exit_code == 0, result.output
    evidence = [e["chunk_id"] for e in json.loads(result.stdout)["evidence"]]
    assert [r["chunkId"] for r in _search(g, question, {"mode": "graph", "k": 5})] == evidence
