"""A copied document named as "also in" by every face of `graphrag serve`: the JSON and the stream
of POST /chat, MCP's ask and search, and the page's sources list."""

import json

import anyio
import pytest

from ...browser import browser_context
from ..test_ask_copies import COPY, QUESTION, load_sample_with_a_copy
from .conftest import KEY, llm_reply, sse_events, start_server, stop_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    from ...llm_server import LLMServer

    folder = tmp_path_factory.mktemp("copies")
    load_sample_with_a_copy(neo4j_server, folder)
    tmp = tmp_path_factory.mktemp("serve-copies")
    llm = LLMServer(llm_reply)
    served = start_server(neo4j_server, tmp, KEY, llm)
    yield served
    stop_server(served)
    llm.close()


def names_the_other(item: dict) -> bool:
    """Whether an evidence chunk or a source of Ephesus names the other of its two documents."""
    other = [c["document_id"] for c in item.get("also_in") or []]
    return len(other) == 1 and item["document_id"].endswith(COPY) != other[0].endswith(COPY)


def test_chat_json_and_stream_name_the_copy(served):
    with served.client() as http:
        out = http.post("/chat", json={"question": QUESTION, "mode": "hybrid", "llm": False}).json()
        with http.stream(
            "POST", "/chat", json={"question": QUESTION, "mode": "hybrid"}, headers={"Accept": "text/event-stream"}
        ) as response:
            events = sse_events(response)
    ephesus = [s for s in out["sources"] if (s["title"] or "").startswith("Ephesus")]
    assert len(ephesus) == 1 and names_the_other(ephesus[0])
    assert all(names_the_other(e) for e in out["evidence"] if e["document_id"] == ephesus[0]["document_id"])
    streamed = dict((name, data) for name, data in events if name in ("evidence", "answer"))
    assert any(names_the_other(e) for e in streamed["evidence"]["evidence"])
    cited = [c for c in streamed["answer"]["citations"] if (c["title"] or "").startswith("Ephesus")]
    assert cited and names_the_other(cited[0])


def test_mcp_ask_and_search_name_the_copy(served):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from .test_mcp import structured

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                answer = structured(await client.call_tool("ask", {"question": QUESTION, "mode": "hybrid"}))
                search = structured(await client.call_tool("search", {"query": QUESTION, "mode": "hybrid"}))
                return answer, search

    answer, search = anyio.run(main)
    cited = [c for c in answer["citations"] if (c["title"] or "").startswith("Ephesus")]
    assert cited and names_the_other(cited[0]), json.dumps(answer["citations"])
    assert any(names_the_other(e) for e in search["evidence"])


@pytest.mark.browser
def test_the_page_lists_the_copy_beside_its_source(served):
    with browser_context(1280, 720) as context:
        page = context.new_page()
        page.goto(served.url + "/")
        page.click("#settings summary")
        page.fill("#key", KEY)
        page.dispatch_event("#key", "change")
        page.fill("#question", QUESTION)
        page.click("#send")
        page.wait_for_selector(".turn ul.sources .also-in", timeout=120_000)
        text = page.locator(".turn ul.sources li").filter(has_text="also in").first.inner_text()
    assert text.startswith("Ephesus: A Greek and Roman City on the Aegean also in: Ephesus: A Greek and Roman City")
    assert "(file:" in text
