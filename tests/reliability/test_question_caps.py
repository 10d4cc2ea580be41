"""One question cap (2,000 characters) for every face, refused in one line before any work: POST
/v1/chat/completions, the MCP ask and search tools, `graphrag ask` and `chat`, `graphrag.search` in
Neo4j. And the full-text query made from a question bounded in clauses, so Lucene's TooManyClauses
cannot happen. A real `graphrag serve` on the session's Neo4j, the real CLI and the real plugin."""

from __future__ import annotations

import os
import subprocess
import time

import httpx
import pytest
from neo4j.exceptions import ClientError

from ..conftest import graphrag_exe, wipe
from ..e2e.serve.conftest import KEY, start_server, stop_server

pytestmark = pytest.mark.e2e

LUCENE = ["AND", "OR", "NOT", "w~", "x~2", "y^3", "z*", "(a:b)", '"q"', "-v", "+u", "[a TO b]", "{c TO d}", "\\", "/r/"]


def lucene_question(size: int) -> str:
    """`size` characters: distinct words and Lucene syntax, with one word that the analyzer cuts
    into 20,000 tokens (the shape of the 640 KB question that failed with TooManyClauses)."""
    parts = ["Who stole the lantern? ", "-".join(f"w{i}" for i in range(20000))]
    i = 0
    while sum(map(len, parts)) < size:
        parts.append(f" t{i} {LUCENE[i % len(LUCENE)]} u{i}")
        i += 1
    return "".join(parts)[:size]


def distinct_words(count: int, size: int) -> str:
    """A question of `size` characters: `count` distinct words and `AND OR ~ ^ *` between them."""
    words = [f"{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}{i}" for i in range(count)]
    syntax = ["AND", "OR", "~", "^2", "*"]
    text = " ".join(f"{w} {syntax[i % len(syntax)]}" for i, w in enumerate(words))
    while len(text) < size:
        text += " " + text
    return text[:size].strip()


HAN = "".join(chr(0x4E00 + 200 + i) for i in range(400)) * 5  # 2,000 Han characters, 400 distinct


@pytest.fixture(scope="module")
def graph(neo4j_server):
    """The session's Neo4j, emptied, with the shipped schema (its full-text indexes) applied."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    with neo4j_server.driver() as driver:
        wipe(driver)
    result = CliRunner().invoke(cli, ["apply-schema"], env=dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/none.env"))
    assert result.exit_code == 0, result.output
    return neo4j_server


@pytest.fixture(scope="module")
def served(graph, tmp_path_factory):
    served = start_server(graph, tmp_path_factory.mktemp("caps"), KEY)
    yield served
    stop_server(served)


def completions(served, messages, stream: bool = False) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    with served.client() as client:
        response = client.post(
            "/v1/chat/completions", json={"model": "graphrag-graph", "messages": messages, "stream": stream}
        )
    return response, time.perf_counter() - started


def one_line(response: httpx.Response) -> str:
    message = response.json()["error"]["message"]
    assert "\n" not in message and len(message) < 300, message
    return message


# --- /v1/chat/completions -------------------------------------------------------------------


@pytest.mark.parametrize("size", [3000, 640 * 1024])
def test_v1_refuses_a_question_over_the_cap_at_once(served, size):
    for stream in (False, True):
        question = lucene_question(size)
        response, seconds = completions(served, [{"role": "user", "content": question}], stream)
        assert response.status_code == 422, response.text[:300]
        said = f"the question is {len(question.strip())} characters long; at most 2000 are taken"
        assert said in one_line(response)
        assert seconds < 1.0, seconds


def test_v1_takes_a_question_of_the_caps_length(served):
    response, _ = completions(served, [{"role": "user", "content": distinct_words(400, 2000)}])
    assert response.status_code == 200, response.text[:300]


def test_v1_refuses_a_text_part_that_is_not_text(served):
    for content, where in (
        ([{"type": "text", "text": {"nested": "object"}}], "messages.0.content.0.text"),
        (
            [{"type": "text", "text": "Who made it?"}, {"type": "text", "text": ["a", "list"]}],
            "messages.0.content.1.text",
        ),
        (["Who made it?"], "messages.0.content.0"),
    ):
        response, _ = completions(served, [{"role": "user", "content": content}])
        assert response.status_code == 422, response.text[:300]
        assert one_line(response).startswith(f"invalid {where}:"), response.text


def test_v1_caps_the_other_messages_and_all_of_them_together(served):
    long_answer = [
        {"role": "user", "content": "Who made the lantern?"},
        {"role": "assistant", "content": "x" * 20001},
        {"role": "user", "content": "And who stole it?"},
    ]
    response, _ = completions(served, long_answer)
    assert response.status_code == 422 and "messages.1: 20001 characters" in one_line(response)
    long_turn = [{"role": "user", "content": "y" * 2001}, {"role": "assistant", "content": "ok"}]
    response, _ = completions(served, [*long_turn, {"role": "user", "content": "And who stole it?"}])
    assert response.status_code == 422 and "a user message takes at most 2000" in one_line(response)
    many = [{"role": "system", "content": "z" * 19000} for _ in range(6)]
    response, seconds = completions(served, [*many, {"role": "user", "content": "Who stole it?"}])
    assert response.status_code == 422 and "at most 100000 are taken" in one_line(response)
    assert seconds < 1.0


# --- MCP ------------------------------------------------------------------------------------


def test_the_mcp_tools_refuse_rather_than_cut(served):
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                asked = await client.call_tool("ask", {"question": "lantern " * 375})
                searched = await client.call_tool("search", {"query": lucene_question(640 * 1024)})
                fine = await client.call_tool("search", {"query": distinct_words(400, 2000), "mode": "fulltext"})
                return asked, searched, fine

    asked, searched, fine = anyio.run(main)
    assert asked.is_error and searched.is_error
    # the SDK puts "Error executing tool ask: " before the tool's one line
    assert asked.content[0].text.endswith(
        ": the question is 2999 characters long; at most 2000 are taken: ask a shorter question"
    )
    assert "the question is 655359 characters long; at most 2000" in searched.content[0].text
    assert not fine.is_error, fine.content


# --- the CLI --------------------------------------------------------------------------------


def test_graphrag_ask_refuses_in_one_line_without_neo4j(graph, run_exe):
    for env in (graph.env(GRAPHRAG_ENV_FILE="/none.env"), {"NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_PASSWORD": "x"}):
        started = time.perf_counter()
        result = run_exe("ask", "--no-llm", lucene_question(3000), env=env)
        assert result.returncode == 2, result.stdout[-500:] + result.stderr[-500:]
        lines = result.stderr.strip().splitlines()
        assert lines == ["Error: the question is 3000 characters long; at most 2000 are taken: ask a shorter question"]
        assert result.stdout == "" and time.perf_counter() - started < 30


def test_graphrag_chat_refuses_a_long_line_and_goes_on(graph):
    env = dict(graph.env(GRAPHRAG_ENV_FILE="/none.env"))
    result = subprocess.run(
        [graphrag_exe(), "chat", "--no-llm", "--mode", "fulltext"],
        input=lucene_question(5000) + "\nWho stole the lantern?\n",
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert "error: the question is 5000 characters long; at most 2000 are taken" in result.stderr
    # the next question is answered: from an empty graph, that the graph holds no answer
    assert "The graph holds no answer to this" in result.stdout


def test_qa_ask_enforces_the_cap_for_every_caller(graph, monkeypatch):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval import qa

    graph.point_env(monkeypatch)
    settings = load_settings()
    with connect(settings) as g, pytest.raises(GraphragError, match="^the question is 2001 characters long"):
        qa.ask(g, None, settings, "q" * 2001, mode="fulltext", use_llm=False, judge="off")


# --- the full-text query --------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [distinct_words(400, 2000), HAN, "-".join("abcdefghij"[i % 10] for i in range(1000)), " ".join("a" * 1000)],
    ids=["400-distinct-words-and-syntax", "2000-han-characters", "one-word-of-1000-tokens", "1000-short-words"],
)
def test_the_fulltext_query_of_a_question_at_the_cap_never_has_too_many_clauses(graph, monkeypatch, question):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.retrieval import qa

    assert len(question) <= 2000
    graph.point_env(monkeypatch)
    settings = load_settings()
    from graphrag_cypher.onnx_embedder import make_query_embedder

    embedder = make_query_embedder(settings)
    with connect(settings) as g:
        for mode in ("fulltext", "hybrid", "graph"):
            answer = qa.ask(g, embedder, settings, question, mode=mode, use_llm=False, judge="off")
            assert answer.sources == []  # an empty graph: nothing found, and no TooManyClauses


def test_graphrag_search_refuses_a_long_question_and_bounds_its_query(graph):
    with graph.driver() as driver, driver.session() as session:
        with pytest.raises(ClientError) as refused:
            session.run("CALL graphrag.search($q, {k: 3}) YIELD chunkId RETURN chunkId", q="lantern " * 300).consume()
        message = refused.value.message
        assert "graphrag.search: the question is 2399 characters long; at most 2000 are taken" in message
        assert "\n" not in message
        for question in (HAN, distinct_words(400, 2000), " ".join("a" * 1000)):
            query = session.run("CALL graphrag.search.analysis($q) YIELD query RETURN query", q=question).single()[0]
            session.run(
                "CALL db.index.fulltext.queryNodes('chunk_text', $q) YIELD node RETURN count(node)", q=query
            ).consume()
