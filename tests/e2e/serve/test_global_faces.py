"""Questions about the whole corpus on every face of `graphrag serve`: `/chat` (JSON and server-sent
events), `/v1/chat/completions` (`graphrag-global`), MCP (`ask`, `communities`,
`community_report`), `GET /communities`, and the page in Chromium (the communities of an answer,
the corpus's themes panel, a community's report). The graph: the global route's story fixture
(tests/fixtures/global/, corpus `moor`) with its communities built by `graphrag communities build`."""

import anyio
import pytest

from ...conftest import REPO, load_sample_graph
from ...llm_server import LLMServer
from .conftest import KEY, sse_events, start_server, stop_server
from .test_mcp import structured
from .test_page import OUTPUT, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = pytest.mark.e2e
FIXTURE = REPO / "tests" / "fixtures" / "global"
THEMES = "What are the main themes of the tales?"
TOPIC = "What do the tales say about wolves?"
LOCAL = "Who fed the lame wolf bread?"
WOLF_STORIES = {f"story:moor:w{n}" for n in range(1, 6)}


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """`graphrag serve` (with a key, no LLM for answers) on the stories and their communities."""
    load_sample_graph(
        neo4j_server,
        ["load", "stories", str(FIXTURE / "tales.jsonl"), "--corpus", "moor"],
        ["link", "phrases"],
        ["communities", "build"],
    )
    tmp = tmp_path_factory.mktemp("serve-global")
    llm = LLMServer("unused")
    served = start_server(neo4j_server, tmp, KEY, llm, "--no-llm")
    yield served
    stop_server(served)
    llm.close()


def chat(served, question: str, **extra) -> dict:
    with served.client() as http:
        response = http.post("/chat", json={"question": question, "corpus": "moor", **extra})
    assert response.status_code == 200, response.text
    return response.json()


def chat_stream(served, question: str) -> dict:
    with (
        served.client() as http,
        http.stream(
            "POST", "/chat", json={"question": question, "corpus": "moor"}, headers={"Accept": "text/event-stream"}
        ) as response,
    ):
        assert response.status_code == 200
        events = sse_events(response)
    assert [name for name, _ in events][-1] == "done"
    return dict(events)["answer"]


def openai_global(served, question: str) -> dict:
    from openai import OpenAI

    client = OpenAI(base_url=served.url + "/v1", api_key=KEY, max_retries=0)
    assert "graphrag-global" in [m.id for m in client.models.list()]
    reply = client.chat.completions.create(model="graphrag-global", messages=[{"role": "user", "content": question}])
    return dict(reply.model_extra, text=reply.choices[0].message.content)


def mcp_calls(served, calls: list[tuple[str, dict]]) -> list[dict]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def used(answer: dict) -> list[str]:
    return [c["id"] for c in answer["communities"] if c["used"]]


def test_communities_and_global_answers_on_every_face(served):
    with served.client() as http:
        listed = http.get("/communities", params={"level": 0}).json()
        state = listed["state"]
        assert state["levels"] >= 1 and state["counts"][0] == len(listed["communities"]) >= 1
        first = listed["communities"][0]
        assert first["level"] == 0 and first["title"] and "moor" in first["corpora"]
        report = http.get(f"/communities/{first['id']}").json()
        assert report["id"] == first["id"] and report["sentences"] and "embedding" not in report
        assert report["children"] or state["levels"] == 1
        missing = http.get("/communities/L0-000000000000")
        assert missing.status_code == 404 and "GET /communities" in missing.json()["error"]

    themes, topic, local = chat(served, THEMES), chat(served, TOPIC), chat(served, LOCAL)
    assert themes["route"] == "global" and themes["global"]["family"] == "themes"
    assert used(themes) and themes["citations"]
    assert topic["route"] == "global" and topic["global"]["family"] == "topic"
    assert {c["document_id"] for c in topic["citations"]} == WOLF_STORIES
    assert local["route"] != "global" and local["communities"] == []
    # `mode: global` forces the route for any wording
    forced = chat(served, "wolves", mode="global")
    assert forced["route"] == "global" and forced["global"]["family"] == "topic"

    streamed = chat_stream(served, THEMES)
    assert streamed["answer"] == themes["answer"] and used(streamed) == used(themes)
    v1 = openai_global(served, THEMES)
    assert v1["global"]["family"] == "themes" and [c["id"] for c in v1["communities"] if c["used"]] == used(themes)
    assert "extractive" in v1["text"]

    *found, mcp_missing = mcp_calls(
        served,
        [
            ("ask", {"question": THEMES, "corpus": "moor"}),
            ("communities", {"level": 0, "corpus": "moor"}),
            ("community_report", {"community_id": first["id"]}),
            ("community_report", {"community_id": "L0-000000000000"}),
        ],
    )
    mcp_themes, mcp_list, mcp_report = (structured(result) for result in found)
    assert mcp_themes["global"]["family"] == "themes"
    assert [c["id"] for c in mcp_themes["communities"] if c["used"]] == used(themes)
    assert [c["id"] for c in mcp_list["communities"]] == [c["id"] for c in listed["communities"]]
    assert mcp_list["state"]["levels"] == state["levels"]
    assert mcp_report["id"] == first["id"] and mcp_report["sentences"] == report["sentences"]
    assert mcp_missing.is_error and "no community" in mcp_missing.content[0].text


def test_the_page_shows_the_communities_of_an_answer_and_the_themes(served, page):  # noqa: F811
    expected = chat(served, THEMES)
    page.fill("#question", THEMES)
    page.select_option("#mode", "global")
    page.click("#send")
    page.wait_for_selector(".turn .global ul.communities li", timeout=120_000)
    turn = page.locator(".turn").last
    assert "From the whole corpus" in turn.locator(".global .reason").inner_text()
    shown = turn.locator("ul.communities li.used").evaluate_all("items => items.map(i => i.dataset.id)")
    assert set(shown) <= {c["id"] for c in expected["communities"]} and shown
    assert turn.locator("button.citation").count() >= 1
    # a community opens its report in the panel
    turn.locator("ul.communities li.used button.community").first.click()
    page.wait_for_selector("#passage:not([hidden])")
    until(page, lambda: "level" in page.inner_text("#passage-title"))
    assert page.locator("#passage-text p.passage").count() >= 1
    # the corpus's top-level themes
    page.click("#themes summary")
    page.wait_for_selector("#themes-list ul.communities li", timeout=60_000)
    with served.client() as http:
        top = http.get("/communities", params={"level": 0, "limit": 20}).json()["communities"]
    listed = page.locator("#themes-list li").evaluate_all("items => items.map(i => i.dataset.id)")
    assert listed == [c["id"] for c in top]
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "serve-page-global.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
