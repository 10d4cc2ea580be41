"""A structured answer's rows on every face of `graphrag serve`: `/chat` (JSON and server-sent
events), `/v1/chat/completions` (whole and streamed), MCP `ask` over HTTP, and the page in
Chromium. The graph: the bundled sample, a few records loaded with the `got-characters`
mapping and a few tales (tests/fixtures/structured/)."""

import json

import anyio
import pytest

from ...conftest import REPO, load_sample_graph
from ...llm_server import LLMServer
from .conftest import KEY, llm_reply, sse_events, start_server, stop_server
from .test_page import OUTPUT, drawn, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = pytest.mark.e2e
FIXTURE = REPO / "tests" / "fixtures" / "structured"
HOUSE = "Which characters belong to House Tully?"
TALES = "Which tales mention a witch?"
COUNT = "How many of the tales mention a witch?"
OPEN = "Who made the silver lantern?"
TULLYS = {"Edmure Tully", "Catelyn Stark", "Brynden Tully"}
WITCH_TALES = {"The Heron and the Witch", "The Oak at the Crossroads"}
MARKUP_TITLE = 'The Witch\'s Mirror <img src=x onerror="document.body.dataset.pwned=1">'


def reply(body: dict) -> str:
    """The serve tests' LLM fake, except that a follow-up is its own standalone question (the
    page sends its history with each question)."""
    if body["messages"][0]["content"].startswith("Rewrite the user's last message"):
        return body["messages"][-1]["content"].rsplit("User: ", 1)[-1]
    return llm_reply(body)


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """`graphrag serve` (with a key and the LLM fake) on the sample, the records and the tales."""
    load_sample_graph(
        neo4j_server,
        ["load", "sample"],
        ["link", "phrases"],
        ["load", "records", str(FIXTURE / "characters.json"), "--mapping", "got-characters"],
        ["load", "stories", str(FIXTURE / "tales.jsonl"), "--corpus", "structured-tales"],
    )
    tmp = tmp_path_factory.mktemp("serve-structured")
    llm = LLMServer(reply)
    served = start_server(neo4j_server, tmp, KEY, llm)
    served.tmp = tmp
    yield served
    stop_server(served)
    llm.close()


def plan(structured: dict | None) -> dict | None:
    """The structured plan without its timing (which differs from one ask to the next)."""
    return None if structured is None else {k: v for k, v in structured.items() if k != "ms"}


def chat(served, question: str) -> dict:
    with served.client() as http:
        response = http.post("/chat", json={"question": question})
    assert response.status_code == 200, response.text
    return response.json()


def chat_stream(served, question: str) -> dict:
    with (
        served.client() as http,
        http.stream("POST", "/chat", json={"question": question}, headers={"Accept": "text/event-stream"}) as response,
    ):
        assert response.status_code == 200
        events = sse_events(response)
    assert [name for name, _ in events][-1] == "done"
    return dict(events)["answer"]


def openai_whole(served, question: str) -> dict:
    from openai import OpenAI

    client = OpenAI(base_url=served.url + "/v1", api_key=KEY, max_retries=0)
    reply = client.chat.completions.create(model="graphrag-graph", messages=[{"role": "user", "content": question}])
    return dict(reply.model_extra, text=reply.choices[0].message.content)


def openai_streamed(served, question: str) -> dict:
    from openai import OpenAI

    client = OpenAI(base_url=served.url + "/v1", api_key=KEY, max_retries=0)
    stream = client.chat.completions.create(
        model="graphrag-graph", stream=True, messages=[{"role": "user", "content": question}]
    )
    pieces, last = [], None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        extra = chunk.model_extra or {}
        if extra.get("citations") is not None:
            assert chunk.choices[0].finish_reason == "stop"
            last = extra
    assert last is not None, "the last chunk carries the citations and rows"
    return dict(last, text="".join(pieces))


def mcp_ask(served, questions: list[str]) -> list[dict]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from .test_mcp import structured

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                return [structured(await client.call_tool("ask", {"question": q})) for q in questions]

    return anyio.run(main)


def test_every_face_gives_the_same_rows_each_citing_a_source(served):
    answers = {question: chat(served, question) for question in (HOUSE, TALES, OPEN)}
    house, tales, open_ = answers[HOUSE], answers[TALES], answers[OPEN]
    # /chat: the rows of a relation lookup, each citing the record it was read from
    assert house["route"] == "structured" and house["structured"]["family"] == "list"
    assert {r["name"] for r in house["rows"]} == TULLYS and house["structured"]["count"] == 3
    assert all(r["type"] == "Character" and r["relation"] == "BELONGS_TO" for r in house["rows"])
    # every document that mentions the term, the tales of the sample among them
    assert tales["structured"]["family"] == "documents" and tales["structured"]["term"] == "witch"
    titles = {r["title"] for r in tales["rows"]}
    assert WITCH_TALES | {MARKUP_TITLE} <= titles and "The Miller's Daughter" not in titles
    assert all(r["chunks"] >= 1 and r["document_id"] == r["id"] for r in tales["rows"])
    for answer in (house, tales):
        sources = {s["id"] for s in answer["sources"]}
        cited = {c["id"] for c in answer["citations"]}
        assert all(r["cite"] in sources and r["cite"] in cited for r in answer["rows"]), answer["rows"]
    # the evidence graph of a lookup answered from records: the entity, its rows, the relation
    with served.client() as http:
        drawn = http.get("/graph", params={"answer": house["answer_id"]}).json()
    tully = house["structured"]["entity"]["id"]
    assert {n["name"] for n in drawn["nodes"]} == TULLYS | {"House Tully"}
    assert sorted((e["source"], e["type"], e["target"]) for e in drawn["edges"]) == sorted(
        (r["id"], "BELONGS_TO", tully) for r in house["rows"]
    )
    # an open question takes the search route: no rows, and why it did not take the structured one
    assert open_["route"] == "search" and open_["rows"] == []
    assert open_["structured"]["family"] is None and open_["structured"]["reason"]

    mcp = dict(zip((HOUSE, TALES, OPEN), mcp_ask(served, [HOUSE, TALES, OPEN]), strict=True))
    for question, expected in answers.items():
        faces = {
            "/chat stream": chat_stream(served, question),
            "/v1 whole": openai_whole(served, question),
            "/v1 streamed": openai_streamed(served, question),
            "mcp ask": mcp[question],
        }
        for face, got in faces.items():
            assert got["rows"] == expected["rows"], (face, question)
            # the answering route's trace, the same on every face (the route renders itself)
            assert got["trace"] == expected["trace"] and got["trace"]["route"] == expected["route"], (face, question)
            assert plan(got["structured"]) == plan(expected["structured"]), (face, question)
            if expected["rows"]:  # the citations the rows name are the answer's own on that face too
                ids = {c["id"] for c in got.get("citations") or got.get("sources")}
                assert {r["cite"] for r in got["rows"]} <= ids, face
        assert mcp[question]["rows_left_off"] == 0
        # the text of the OpenAI answer names every row, by the title of its citation
        text = faces["/v1 whole"]["text"]
        assert all((r.get("title") or r["name"]).split(" <")[0] in text for r in expected["rows"]), text
    assert "Sources: " in faces["/v1 streamed"]["text"]


def test_the_page_shows_the_rows_their_citations_and_the_count(served, page):  # noqa: F811
    expected = {question: chat(served, question) for question in (HOUSE, COUNT)}
    # a relation lookup: one row per character, each citing its record
    page.fill("#question", HOUSE)
    page.click("#send")
    page.wait_for_selector(".turn .structured table.rows tbody tr", timeout=120_000)
    turn = page.locator(".turn").last
    table = turn.locator("table.rows")
    assert table.locator("th").all_inner_texts() == ["Name", "Type", "Source"]
    rows = expected[HOUSE]["rows"]
    assert table.locator("td.name").all_inner_texts() == [r["name"] for r in rows]
    assert table.locator("td.type").all_inner_texts() == ["Character"] * len(rows)
    buttons = table.locator("td.cite button.citation")
    assert [buttons.nth(i).get_attribute("data-source") for i in range(buttons.count())] == [r["cite"] for r in rows]
    titles = {s["id"]: s["title"] for s in expected[HOUSE]["sources"]}
    assert buttons.all_inner_texts() == [titles[r["cite"]] for r in rows]
    assert expected[HOUSE]["structured"]["reason"] in turn.locator(".structured .reason").inner_text()
    # how it was found, from the route's own trace (the page knows no route by name for it)
    trace = turn.locator("details.trace")
    assert trace.locator("summary").inner_text() == "route: structured"
    trace.locator("summary").click()
    shown = trace.locator("pre").inner_text().splitlines()
    assert shown == [line.strip() for line in expected[HOUSE]["trace"]["explain"]] and len(shown) > 3
    # the evidence graph: the house and its members, joined by the relation
    until(page, lambda: len(drawn(page)["ids"]) == len(rows) + 1)
    assert len(drawn(page)["edges"]) == len(rows)
    # a record's citation opens the panel with where it comes from
    buttons.first.click()
    page.wait_for_selector("#passage:not([hidden])")
    assert page.inner_text("#passage-title") == titles[rows[0]["cite"]]
    assert "From the loaded record" in page.inner_text("#passage-text")

    # a count of documents: how many of how many, and every tale as a row with its chunks
    page.fill("#question", COUNT)
    page.click("#send")
    until(page, lambda: page.locator(".turn").count() == 2 and page.locator(".turn").last.locator("tbody tr").count())
    turn = page.locator(".turn").last
    counted = expected[COUNT]["structured"]
    assert counted["family"] == "count_documents" and counted["count"] == len(expected[COUNT]["rows"])
    assert turn.locator(".structured .count").inner_text() == f"{counted['count']} of {counted['total']} tales"
    table = turn.locator("table.rows")
    assert table.locator("th").all_inner_texts() == ["Title", "Chunks", "Source"]
    shown = table.locator("td.name").all_inner_texts()
    assert shown == [r["title"] for r in expected[COUNT]["rows"]] and MARKUP_TITLE in shown
    assert table.locator("td.chunks").all_inner_texts() == [str(r["chunks"]) for r in expected[COUNT]["rows"]]
    cites = table.locator("td.cite button.citation")
    assert [cites.nth(i).get_attribute("data-source") for i in range(cites.count())] == [
        r["cite"] for r in expected[COUNT]["rows"]
    ]
    # a title with markup is text in the table, never an element
    assert page.locator(".turn img").count() == 0 and page.evaluate("document.body.dataset.pwned") is None
    # a document's citation opens its passage; the graph draws the matching chunks and their tales
    cites.first.click()
    until(page, lambda: "witch" in page.inner_text("#passage-text").lower())
    until(page, lambda: len(drawn(page)["ids"]) >= 2 * len(expected[COUNT]["rows"]))
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "serve-page-structured.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_a_structured_answer_reaches_the_page_as_one_json_object_too(served, page, tmp_path):  # noqa: F811
    """A server that answers /chat with JSON (no stream): the page shows the same table."""
    expected = chat(served, HOUSE)
    page.route("**/chat", lambda route: route.continue_(post_data=_no_stream(route.request.post_data)))
    page.fill("#question", HOUSE)
    page.click("#send")
    page.wait_for_selector(".turn .structured table.rows tbody tr", timeout=120_000)
    assert page.locator(".turn td.name").all_inner_texts() == [r["name"] for r in expected["rows"]]
    shot = tmp_path / "serve-page-structured-json.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def _no_stream(body: str | None) -> str:
    request = json.loads(body or "{}")
    request["stream"] = False
    return json.dumps(request)
