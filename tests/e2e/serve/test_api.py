"""`graphrag serve` over real HTTP: chat (JSON and SSE), graph, documents, health, the key, limits."""

import json

import httpx
import pytest

from .conftest import FORGED, KEY, MARKUP, sse_events

pytestmark = pytest.mark.e2e
QUESTION = "Who made the silver lantern?"


def test_health_reports_neo4j_and_schema(served):
    with served.client() as http:
        body = http.get("/health").json()
    assert body["status"] == "ok" and body["neo4j"] == "ok"
    assert body["schema"]["up_to_date"] is True and body["schema"]["pending"] == []
    assert body["writes"] is True and body["llm"] is True


def test_liveness_names_the_server_without_the_schema(served):
    with served.client() as http:
        live = http.get("/health/live").json()
        ready = http.get("/health").json()
    assert live["status"] == "ok" and "schema" not in live and "neo4j" not in live
    for key in ("version", "llm", "writes", "query_embedder", "instance"):
        assert live[key] == ready[key], key


def test_chat_json_is_what_ask_json_prints(served, run_cli, monkeypatch):
    served.neo4j.point_env(monkeypatch)
    with served.client() as http:
        out = http.post("/chat", json={"question": QUESTION, "mode": "fulltext", "llm": False}).json()
    cli = json.loads(run_cli("ask", QUESTION, "--mode", "fulltext", "--no-llm", "--json").stdout)
    for key in ("answer", "answer_with_titles", "citations", "sources", "mode", "route", "filters"):
        assert out[key] == cli[key], key
    assert [e["chunk_id"] for e in out["evidence"]] == [e["chunk_id"] for e in cli["evidence"]]
    assert "context" not in out and out["answer_id"] and out["llm"]["used"] is False
    assert out["citations"] and all({"id", "title", "uri", "document_id"} <= set(c) for c in out["citations"])


def test_chat_streams_checked_pieces_then_citations_evidence_and_timings(served):
    with (
        served.client() as http,
        http.stream("POST", "/chat", json={"question": QUESTION}, headers={"Accept": "text/event-stream"}) as response,
    ):
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response)
    names = [name for name, _ in events]
    assert names[0] == "question" and names[-1] == "done"
    assert names.index("citations") < names.index("evidence") < names.index("answer")
    tokens = [data["text"] for name, data in events if name == "token"]
    result = dict(events)["answer"]
    assert len(tokens) > 1, "the answer arrives in pieces"
    assert "".join(tokens) == result["answer_with_titles"]
    # the forged citation never reached the stream; the real one arrived as its title
    assert FORGED not in "".join(tokens) and result["dropped_citations"] == ["FAKE9"]
    title = result["citations"][0]["title"]
    assert f"[{title}]" in "".join(tokens)
    assert dict(events)["citations"]["citations"] == result["citations"]
    assert result["timings_ms"]["total_ms"] > 0 and dict(events)["evidence"]["evidence"] == result["evidence"]
    # markup from the LLM is data: JSON-escaped in the event, never raw in the wire format
    assert MARKUP in "".join(tokens)


def test_sse_wire_format_cannot_be_broken_by_text(served):
    with served.client() as http:
        raw = http.post("/chat", json={"question": QUESTION, "stream": True}).text
    for block in raw.replace("\r\n", "\n").strip().split("\n\n"):
        lines = block.split("\n")
        assert all(line.startswith(("event:", "data:", "id:", ":", "retry:")) for line in lines), block
        assert sum(line.startswith("data:") for line in lines) <= 1


def test_history_is_rewritten_into_a_standalone_question(served):
    history = [{"question": QUESTION, "answer": "Old Maren made it.", "entities": ["silver lantern"]}]
    with served.client() as http:
        out = http.post("/chat", json={"question": "And who stole it?", "history": history}).json()
    assert out["question"] == "Who stole the silver lantern?" and out["standalone"] is True
    assert out["said"] == "And who stole it?"
    # without an LLM, the previous turn's entities carry over as `chat` does
    with served.client() as http:
        out = http.post("/chat", json={"question": "And who stole it?", "history": history, "llm": False}).json()
    assert "silver lantern" in out["question"].lower()


def test_graph_of_an_answer_and_a_neighbourhood(served):
    with served.client() as http:
        out = http.post("/chat", json={"question": QUESTION, "llm": False}).json()
        graph = http.get("/graph", params={"answer": out["answer_id"]}).json()
        ids = {n["id"] for n in graph["nodes"]}
        assert {e["chunk_id"] for e in out["evidence"]} <= ids
        assert {e["document_id"] for e in out["evidence"]} <= ids
        assert all(e["source"] in ids and e["target"] in ids for e in graph["edges"])
        assert {"FROM_DOCUMENT"} <= {e["type"] for e in graph["edges"]}
        labels = {n["label"] for n in graph["nodes"]}
        assert {"Chunk", "Document"} <= labels
        document = out["evidence"][0]["document_id"]
        around = http.get("/graph", params={"id": document, "limit": 5}).json()
        assert around["nodes"][0]["id"] == document and 1 < len(around["nodes"]) <= 6
        assert all(e["type"] for e in around["edges"])
        missing = http.get("/graph", params={"id": "no-such-node"})
        assert missing.status_code == 404 and "no-such-node" in missing.json()["error"]
        assert http.get("/graph", params={"answer": "forgotten"}).status_code == 404
        assert http.get("/graph").status_code == 422


def test_documents_list_and_one(served):
    with served.client() as http:
        docs = http.get("/documents", params={"limit": 3}).json()["documents"]
        assert len(docs) == 3 and all(d["chunks"] >= 1 for d in docs)
        one = http.get(f"/documents/{docs[0]['id']}").json()
        assert one["id"] == docs[0]["id"] and one["chunks"][0]["text"]
        gone = http.get("/documents/file:nope:nothing.md")
    assert gone.status_code == 404 and gone.json() == {"error": gone.json()["error"]}


def test_every_endpoint_needs_the_key_but_the_page_and_its_mode_list(served):
    anonymous = httpx.Client(base_url=served.url, timeout=30)
    wrong = httpx.Client(base_url=served.url, timeout=30, headers={"Authorization": "Bearer " + "x" * len(KEY)})
    for http in (anonymous, wrong):
        for method, path in [
            ("GET", "/health"),
            ("POST", "/chat"),
            ("GET", "/graph?id=x"),
            ("GET", "/documents"),
            ("DELETE", "/documents/x"),
            ("POST", "/crawl"),
            ("GET", "/jobs/x"),
            ("GET", "/v1/models"),
            ("POST", "/v1/chat/completions"),
            ("GET", "/docs"),
            ("GET", "/openapi.json"),
            ("POST", "/mcp"),
        ]:
            response = http.request(method, path, json={})
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
            body = response.json()
            message = body["error"]["message"] if path.startswith("/v1/") else body["error"]
            assert "API key" in message
    page = anonymous.get("/")
    assert page.status_code == 200 and '<form id="ask">' in page.text
    # the page's mode list loads before a key is typed: GET /modes is the registry, open to read
    from graphrag_cypher.retrieval.modes import ANSWER_MODES, DEFAULT_MODE

    modes = anonymous.get("/modes").json()["modes"]
    assert tuple(m["name"] for m in modes) == ANSWER_MODES
    assert [m["name"] for m in modes if m["default"]] == [DEFAULT_MODE] and all(m["summary"] for m in modes)
    assert anonymous.post("/modes", json={}).status_code == 405
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert anonymous.get("/static/app.js").status_code == 200


def test_openapi_docs_with_the_key(served):
    with served.client() as http:
        spec = http.get("/openapi.json").json()
        assert {
            "/chat",
            "/graph",
            "/crawl",
            "/documents",
            "/jobs/{job_id}",
            "/health",
            "/v1/chat/completions",
            "/v1/models",
        } <= set(spec["paths"])
        assert http.get("/docs").status_code == 200


def test_errors_are_one_json_message(served):
    with served.client() as http:
        cases = [
            http.post("/chat", json={"question": "   "}),
            http.post("/chat", json={"question": QUESTION, "mode": "nonsense"}),
            http.post("/chat", json={"question": QUESTION, "from": "2024-13-01x"}),
            http.post("/chat", json={"question": QUESTION, "from": "2024-05-01", "to": "2023-01-01"}),
            http.post("/chat", content=b"{not json", headers={"Content-Type": "application/json"}),
            http.get("/no/such/endpoint"),
            http.post("/chat", json={"question": "learn: ports | url: http://127.0.0.1:9/"}),
        ]
    for response in cases:
        assert 400 <= response.status_code < 500, response.text
        body = response.json()
        assert set(body) == {"error"} and isinstance(body["error"], str) and "\n" not in body["error"]
        assert "Traceback" not in body["error"]


def test_request_bodies_are_size_limited(served):
    with served.client() as http:
        big = http.post("/chat", json={"question": "x", "history": [{"question": "q", "answer": "a" * 1_100_000}]})
        assert big.status_code == 413 and "too large" in big.json()["error"]

        def chunks():  # no Content-Length: the limit is counted as the body arrives
            for _ in range(40):
                yield b" " * 50_000

        streamed = http.post("/chat", content=chunks(), headers={"Content-Type": "application/json"})
        assert streamed.status_code == 413
        upload = http.post("/documents", files={"files": ("big.txt", b"a" * 21_000_000, "text/plain")})
        assert upload.status_code == 413


def test_no_cors_unless_configured(served):
    with served.client() as http:
        response = http.options(
            "/chat", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
        )
        plain = http.get("/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-origin" not in plain.headers


def test_loopback_answers_only_loopback_names(served):
    """A page of another site that rebinds its name to 127.0.0.1 gets nothing (DNS rebinding)."""
    with served.client() as http:
        rebound = http.get("/documents", headers={"Host": "evil.example:8000"})
        assert rebound.status_code == 421 and "127.0.0.1" in rebound.json()["error"]
        assert http.get("/health", headers={"Host": "localhost"}).status_code == 200
