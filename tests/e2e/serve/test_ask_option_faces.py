"""The ask options over HTTP and MCP, from one declaration: `POST /chat` sets what `graphrag ask`
sets (the judge, the conversion and the reranker included) with the same result, and `/chat`,
`/v1` and the MCP tools refuse the same out-of-bound values."""

import json

import anyio
import pytest

from ...rerank_server import RerankServer
from .conftest import load_sample, start_server, stop_server

pytestmark = pytest.mark.e2e
QUESTION = "Who stole the silver lantern?"


@pytest.fixture(scope="module")
def faces(neo4j_server, tmp_path_factory):
    """`graphrag serve` without a key (so no writes) and with GRAPHRAG_RERANKER: a local /rerank
    server that puts the shortest passage first."""
    load_sample(neo4j_server)
    reranker = RerankServer(lambda query, text: -float(len(text)))
    served = start_server(
        neo4j_server, tmp_path_factory.mktemp("faces"), None, None, env_extra={"GRAPHRAG_RERANKER": reranker.url}
    )
    served.reranker = reranker
    yield served
    stop_server(served)
    reranker.close()


def chat(faces, **body) -> dict:
    with faces.client() as http:
        response = http.post("/chat", json={"question": QUESTION, "llm": False, **body})
    assert response.status_code == 200, response.text
    return response.json()


def cli(run_cli, *args, env=None) -> dict:
    result = run_cli("ask", QUESTION, "--no-llm", "--direct", "--json", *args, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def chunks(answer: dict) -> list[str]:
    return [e["chunk_id"] for e in answer["evidence"]]


def test_chat_sets_the_judge_as_ask_does(faces, run_cli, monkeypatch):
    faces.neo4j.point_env(monkeypatch)
    gated = chat(faces, mode="vector")
    off = chat(faces, mode="vector", judge="off")
    assert gated["gate"] is not None and off["gate"] is None  # the gate ran, then did not
    assert chunks(off) == chunks(cli(run_cli, "--mode", "vector", "--no-gate"))


def test_chat_sets_the_conversion_as_ask_does(faces, run_cli, monkeypatch):
    faces.neo4j.point_env(monkeypatch)
    out = chat(faces, mode="fulltext", convert="s2t")
    assert out["convert"]["requested"] == "s2t"
    assert out["convert"] == cli(run_cli, "--mode", "fulltext", "--convert", "s2t")["convert"]
    assert chat(faces, mode="fulltext")["convert"]["requested"] == "auto"


def test_chat_reranks_with_the_servers_reranker_as_ask_does(faces, run_cli, monkeypatch):
    faces.neo4j.point_env(monkeypatch)
    out = chat(faces, mode="fulltext", k=2, rerank=True, rerank_candidates=8)
    assert out["rerank"]["reranker"].startswith(faces.reranker.url + "/rerank")
    assert all(e["via"][-1] == "rerank" for e in out["evidence"])
    env = {"GRAPHRAG_RERANKER": faces.reranker.url}
    here = cli(run_cli, "--mode", "fulltext", "-k", "2", "--rerank", "--rerank-candidates", "8", env=env)
    assert chunks(out) == chunks(here) and len(chunks(out)) == 2
    lengths = [len(e["text"]) for e in out["evidence"]]
    assert lengths == sorted(lengths)  # the reranker's order: the shortest first
    assert chat(faces, mode="fulltext")["rerank"] is None


@pytest.mark.parametrize(
    "body, message",
    [
        ({"k": 101}, "100"),
        ({"k": 0}, "1"),
        ({"judge": "sometimes"}, "always"),
        ({"convert": "s2x"}, "s2t"),
        ({"rerank_candidates": 201}, "200"),
        ({"from": "2024-02-30"}, "is not a date: write YYYY-MM-DD"),
        ({"from": "2024-06-01", "to": "2024-05-01"}, "from 2024-06-01 is after to 2024-05-01"),
        ({"learn_web": True}, "learn_web stores web pages, a write: start the server with GRAPHRAG_API_KEY"),
    ],
)
def test_chat_and_v1_refuse_the_same_values(faces, body, message):
    messages = [{"role": "user", "content": QUESTION}]
    with faces.client() as http:
        refused = http.post("/chat", json={"question": QUESTION, "llm": False, **body})
        completion = http.post(
            "/v1/chat/completions", json={"model": "graphrag-fulltext", "messages": messages, **body}
        )
    assert refused.status_code == 422 and message in refused.text, refused.text
    assert completion.status_code == 422 and message in completion.text, completion.text


def test_chat_takes_every_k_up_to_the_one_bound(faces):
    """k is bounded at 100 on every face: 60 is taken by /chat (its old cap was 50)."""
    assert len(chat(faces, mode="fulltext", k=60)["evidence"]) >= len(chat(faces, mode="fulltext", k=5)["evidence"])


def test_v1_takes_the_options_chat_takes(faces, run_cli, monkeypatch):
    faces.neo4j.point_env(monkeypatch)
    messages = [{"role": "user", "content": QUESTION}]
    with faces.client() as http:
        out = http.post(
            "/v1/chat/completions", json={"model": "graphrag-fulltext", "messages": messages, "k": 1, "corpus": "nope"}
        ).json()
        some = http.post("/v1/chat/completions", json={"model": "graphrag-fulltext", "messages": messages}).json()
    assert out["citations"] == [] and some["citations"]  # corpus `nope` holds nothing


def test_mcp_tools_take_every_option_with_the_same_bounds(faces):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(timeout=120) as http:
            transport = streamable_http_client(faces.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                query = {"query": "silver lantern", "mode": "fulltext"}
                wide = await client.call_tool("search", {**query, "k": 30})
                over = await client.call_tool("search", {**query, "k": 101})
                dated = await client.call_tool("ask", {"question": QUESTION, "date_from": "2024-02-30"})
                judged = await client.call_tool("ask", {"question": QUESTION, "mode": "fulltext", "judge": "off"})
                learn = await client.call_tool("ask", {"question": QUESTION, "learn_web": True})
                return wide, over, dated, judged, learn

    wide, over, dated, judged, learn = anyio.run(main)
    from .test_mcp import structured

    evidence = structured(wide)["evidence"]
    with_chat = chat(faces, question="silver lantern", mode="fulltext", k=30)
    assert [e["chunk_id"] for e in evidence] == chunks(with_chat)  # 30 asked, never cut to 20
    assert over.is_error and "100" in over.content[0].text
    assert dated.is_error and "is not a date: write YYYY-MM-DD" in dated.content[0].text
    assert structured(judged)["citations"]
    assert learn.is_error and "learn_web stores web pages" in learn.content[0].text


def test_a_served_ask_sends_the_judge_and_the_conversion(faces, run_cli, monkeypatch):
    """`ask --server` sends the gate and the conversion in /chat's body (it used to answer them
    only directly); the reranker and the web search stay this process's services."""
    faces.neo4j.point_env(monkeypatch)
    args = ("ask", QUESTION, "--server", faces.url, "--mode", "vector", "--no-llm", "--json")
    served = run_cli(*args, "--no-gate", "--convert", "s2t")
    assert served.exit_code == 0, served.output
    out = json.loads(served.stdout)
    assert out["served_by"] and out["gate"] is None and out["convert"]["requested"] == "s2t"
    assert json.loads(run_cli(*args).stdout)["gate"] is not None
    reranked = run_cli(*args, "--rerank", env={"GRAPHRAG_RERANKER": faces.reranker.url})
    assert reranked.exit_code == 1 and "ask without --rerank, --web, --no-web and --learn-web" in reranked.output
