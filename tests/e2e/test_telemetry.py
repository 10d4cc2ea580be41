"""The spans of an ask on the sample (real Neo4j, a scripted LLM and a real `/rerank` server on
127.0.0.1), read with the SDK's in-memory exporter: one tree from the ask down to each Neo4j
read, the attributes each step carries, and nothing of a document's text, the question or a key."""

from __future__ import annotations

import json

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphrag_cypher import telemetry

from ..llm_server import LLMServer
from ..rerank_server import RerankServer

pytestmark = pytest.mark.e2e
QUESTION = "Who stole the silver lantern?"
SECRET = "sk-telemetry-0123456789"


@pytest.fixture(scope="module")
def sample_graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server, ["load", "sample"], ["link", "phrases"])
    return neo4j_server


@pytest.fixture
def sample(sample_graph, monkeypatch):
    sample_graph.point_env(monkeypatch)
    return sample_graph


def traced_ask(run_cli, *args: str, env: dict | None = None):
    """The spans of one `graphrag ask --json` run in this process, and its answer."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with telemetry.tracing_to(provider):
        result = run_cli("ask", QUESTION, "--json", *args, env=env)
    assert result.exit_code == 0, result.output
    return exporter.get_finished_spans(), json.loads(result.stdout)


def first_cite(body: dict) -> str:
    """The first citation id the prompt's context gives (what a model answering from it cites)."""
    return body["messages"][-1]["content"].split("[", 1)[1].split("]", 1)[0]


def chunk_texts(server) -> list[str]:
    with server.driver() as driver:
        return [r["text"] for r in driver.execute_query("MATCH (c:Chunk) RETURN c.text AS text").records]


def test_an_ask_is_one_tree_of_its_steps(sample, run_cli):
    llm = LLMServer(lambda body: f"Old Maren made the lantern [{first_cite(body)}].")
    reranker = RerankServer(lambda query, text: float(len(text)))
    env = {
        "OPENAI_BASE_URL": llm.url,
        "OPENAI_API_KEY": SECRET,
        "GRAPHRAG_LLM_MODEL": "test-model",
        "GRAPHRAG_RERANKER": reranker.url,
        "GRAPHRAG_RERANK_API_KEY": SECRET,
    }
    try:
        spans, answer = traced_ask(run_cli, "--mode", "graph", "--rerank", "--rerank-candidates", "6", env=env)
    finally:
        llm.close()
        reranker.close()
    by_id = {s.context.span_id: s for s in spans}

    def parent(span):
        return by_id.get(span.parent.span_id) if span.parent else None

    def only(name: str):
        found = [s for s in spans if s.name == name]
        assert len(found) == 1, [s.name for s in spans]
        return found[0]

    ask = only("graphrag.ask")
    assert ask.parent is None and {s.context.trace_id for s in spans} == {ask.context.trace_id}
    assert ask.attributes["graphrag.route"] == answer["route"] == "search"
    assert ask.attributes["graphrag.mode"] == "graph" and ask.attributes["graphrag.question.chars"] == len(QUESTION)
    assert ask.attributes["graphrag.evidence"] == len(answer["evidence"]) and ask.attributes["graphrag.llm"] is True
    analysis = only("graphrag.analysis")
    assert parent(analysis) is ask and analysis.attributes["graphrag.language"] == answer["language"]
    routes = [s for s in spans if s.name == "graphrag.route"]
    assert all(parent(r) is ask for r in routes)
    assert [r.attributes["graphrag.route"] for r in sorted(routes, key=lambda s: s.start_time)][-1] == "search"
    search = next(r for r in routes if r.attributes["graphrag.route"] == "search")
    assert search.attributes["graphrag.answered"] is True
    assert all(not r.attributes["graphrag.answered"] for r in routes if r is not search)
    retrieve = only("graphrag.retrieve")
    assert parent(retrieve) is search and retrieve.attributes["graphrag.mode"] == "graph"
    steps = {s.name for s in spans if parent(s) is retrieve}
    # the graph mode's steps as bench/query.py names them: through the Cypher files, or the plugin
    assert {"graphrag.retrieve.seeds", "graphrag.retrieve.neighbours"} <= steps or (
        "graphrag.retrieve.seeds_and_neighbours" in steps
    ), steps
    reads = {s.attributes["db.query.name"] for s in spans if s.name == "neo4j.read"}
    assert {"retrieval/chunk_copies"} & reads or "graphrag.retrieve.seeds_and_neighbours" in steps, reads
    rerank = only("graphrag.rerank")
    assert parent(rerank) is search and rerank.attributes["graphrag.candidates"] == 6
    gate, written = only("graphrag.gate"), only("graphrag.answer")
    assert parent(gate) is ask and parent(written) is ask
    llm_span = next(s for s in spans if s.name == "graphrag.llm" and parent(s) is written)
    assert llm_span.attributes["gen_ai.request.model"] == "test-model" and llm_span.attributes["graphrag.streamed"]
    assert all(s.status.is_ok for s in spans)

    values = [
        str(v)
        for s in spans
        for value in s.attributes.values()
        for v in ([value] if isinstance(value, str) else value if isinstance(value, tuple) else [])
    ]
    texts = chunk_texts(sample)
    leaked = [v for v in values if len(v) >= 12 and any(v in text for text in texts)]
    assert not leaked  # no passage text, nor a piece of one
    assert QUESTION not in values and not any(SECRET in v for v in values)


def test_the_question_text_only_when_asked_for(sample, run_cli, monkeypatch):
    monkeypatch.setenv(telemetry.QUESTIONS_ENV, "1")
    spans, _ = traced_ask(run_cli, "--mode", "vector", "--no-llm")
    ask = next(s for s in spans if s.name == "graphrag.ask")
    assert ask.attributes["graphrag.question"] == QUESTION
