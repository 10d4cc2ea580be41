"""An abstention on every face of `graphrag serve`: `/chat` (JSON and server-sent events),
`/v1/chat/completions` (whole and streamed), MCP `ask` over HTTP, and the page in Chromium. Each
shows the same: the sentence that the graph holds no answer, nothing cited, and apart, under
"Closest, not an answer:", the passages nearest the question (a title with markup and escape
sequences among them, shown as text). The graph: three small documents; the recorded judge calls
every passage off the question unless the question is about the lantern."""

import json
import re

import anyio
import pytest

from ...conftest import load_sample_graph
from ...llm_server import LLMServer
from .conftest import KEY, MARKUP, sse_events, start_server, stop_server
from .test_mcp import structured
from .test_page import OUTPUT, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = pytest.mark.e2e
HEADING = "Closest, not an answer:"
OFF_TOPIC = "What is the boiling point of tungsten in kelvin?"
ON_TOPIC = "Who made the silver lantern, and who stole it?"
HOSTILE_TITLE = f"Tide Tables \x1b[31m{MARKUP}"
DOCS = {
    "lantern.md": "# The Silver Lantern\n\nOld Maren the smith made the silver lantern for the harbour of Carrow. "
    "On a foggy night the ferryman stole the silver lantern and rowed away with it.\n",
    "tides.md": "# Tide Ledger\n\nThe harbour master of Portus kept a ledger of the tides, high water and low water, "
    "every day for forty years.\n",
    "tables.md": f"# {HOSTILE_TITLE}\n\nThe tide tables \x1b]0;pwned\x07list the hours of high and low water "
    "at the quay of Portus.\n",
}


def reply(body: dict) -> str:
    """The judge: a passage is relevant only to a question about the lantern; an answer cites the
    first source; a follow-up is its own standalone question."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("Rewrite the user's last message"):
        return user.rsplit("User: ", 1)[-1]
    if "judge whether passages are relevant" in system:
        about_lantern = "lantern" in user.split("PASSAGES:", 1)[0].lower()
        verdicts = [
            {"id": pid, "relevant": about_lantern and "Lantern" in title, "reason": "judged"}
            for pid, title in re.findall(r"^\[(P\d+)\] (.*)$", user, flags=re.M)
        ]
        return json.dumps({"verdicts": verdicts})
    return f"Old Maren made it [{user.split('[', 1)[1].split(']', 1)[0]}]."


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """`graphrag serve` (with a key and the recorded judge) on the three documents."""
    folder = tmp_path_factory.mktemp("abstain-docs")
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    load_sample_graph(neo4j_server, ["load", "files", str(folder)])
    tmp = tmp_path_factory.mktemp("serve-abstain")
    llm = LLMServer(reply)
    served = start_server(neo4j_server, tmp, KEY, llm)
    yield served
    stop_server(served)
    llm.close()


def chat(served, question: str, **extra) -> dict:
    with served.client() as http:
        response = http.post("/chat", json={"question": question, "mode": "vector", **extra})
    assert response.status_code == 200, response.text
    return response.json()


def chat_stream(served, question: str) -> tuple[list, dict]:
    with (
        served.client() as http,
        http.stream(
            "POST", "/chat", json={"question": question, "mode": "vector"}, headers={"Accept": "text/event-stream"}
        ) as response,
    ):
        assert response.status_code == 200
        events = sse_events(response)
    assert [name for name, _ in events][-1] == "done"
    return events, dict(events)["answer"]


def openai_client(served):
    from openai import OpenAI

    return OpenAI(base_url=served.url + "/v1", api_key=KEY, max_retries=0)


def openai_whole(served, question: str) -> dict:
    reply = openai_client(served).chat.completions.create(
        model="graphrag-vector", messages=[{"role": "user", "content": question}]
    )
    return dict(reply.model_extra, text=reply.choices[0].message.content)


def openai_streamed(served, question: str) -> dict:
    stream = openai_client(served).chat.completions.create(
        model="graphrag-vector", stream=True, messages=[{"role": "user", "content": question}]
    )
    pieces, last = [], None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        extra = chunk.model_extra or {}
        if extra.get("citations") is not None:
            assert chunk.choices[0].finish_reason == "stop"
            last = extra
    assert last is not None, "the last chunk carries the citations and the abstention"
    return dict(last, text="".join(pieces))


def mcp_ask(served, questions: list[str]) -> list[dict]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                return [structured(await client.call_tool("ask", {"question": q, "mode": "vector"})) for q in questions]

    return anyio.run(main)


def closest_text(abstained: dict) -> list[str]:
    """The lines a text face shows under the heading: each passage's title and its snippet, one
    line of data (no control characters or line breaks, brackets made round)."""
    from graphrag_cypher.retrieval.abstain_text import closest_lines

    return closest_lines(abstained)[1:]


def test_every_face_shows_the_sentence_then_the_closest_passages_apart(served):
    expected = chat(served, OFF_TOPIC)
    abstained = expected["abstained"]
    assert abstained["by"] == "gate" and abstained["heading"] == HEADING and abstained["reason"]
    assert expected["citations"] == [] and expected["sources"] == [] and expected["evidence"] == []
    assert expected["llm"]["used"] is False, "no answer is written from passages judged off the question"
    sentence = expected["answer_with_titles"]
    assert sentence and "[" not in sentence
    titles = {c["title"] for c in abstained["closest"]}
    assert {"The Silver Lantern", "Tide Ledger"} <= titles and len(abstained["closest"]) == 3
    hostile = next(c for c in abstained["closest"] if c["title"].startswith("Tide Tables"))
    assert MARKUP in hostile["title"], "the title is data, kept as it was written"
    lines = closest_text(abstained)
    assert len(lines) == 3 and all(line.startswith("- ") for line in lines)
    assert all("\x1b" not in line and "\x07" not in line for line in lines)
    # without an LLM the gate alone drops the passages: the same abstention, the same closest
    alone = chat(served, OFF_TOPIC, llm=False)
    assert alone["abstained"]["by"] == "gate" and alone["abstained"]["closest"] == abstained["closest"]

    # /chat streamed: the sentence as tokens, no citations, the abstention in the final event
    events, streamed = chat_stream(served, OFF_TOPIC)
    tokens = "".join(data["text"] for name, data in events if name == "token")
    assert tokens == sentence and dict(events)["citations"]["citations"] == []
    assert streamed["abstained"] == abstained

    # /v1 whole and streamed: the sentence, then the heading and the closest lines as Markdown
    # whose markup is entities; no Sources line; `abstained` beside `trace`
    markdown = [line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for line in lines]
    content = sentence + "\n\n" + HEADING + "\n" + "\n".join(markdown)
    for face, got in {"whole": openai_whole(served, OFF_TOPIC), "streamed": openai_streamed(served, OFF_TOPIC)}.items():
        assert got["text"] == content, face
        assert "Sources:" not in got["text"] and "<img" not in got["text"], face
        assert got["abstained"] == abstained and got["citations"] == [] and got["trace"] == expected["trace"], face

    # MCP ask: `abstained` in the result, and its text says it the same way
    mcp, answered = mcp_ask(served, [OFF_TOPIC, ON_TOPIC])
    assert mcp["abstained"] == abstained and mcp["citations"] == []
    assert mcp["answer"] == sentence + "\n\n" + HEADING + "\n" + "\n".join(lines)

    # answered questions carry no abstention on any face
    assert answered["abstained"] is None and answered["citations"] and HEADING not in answered["answer"]
    assert chat(served, ON_TOPIC)["abstained"] is None
    on_topic = openai_whole(served, ON_TOPIC)
    assert on_topic["abstained"] is None and HEADING not in on_topic["text"] and "Sources: " in on_topic["text"]


def test_the_page_shows_an_abstention_in_a_box_of_its_own(served, page):  # noqa: F811
    expected = chat(served, OFF_TOPIC)
    abstained = expected["abstained"]
    until(page, lambda: page.locator("#mode option[value=vector]").count() == 1)
    page.select_option("#mode", "vector")
    page.fill("#question", OFF_TOPIC)
    page.click("#send")
    page.wait_for_selector(".turn .closest li", timeout=120_000)
    turn = page.locator(".turn").last
    box = turn.locator(".answer.abstained")
    assert box.get_attribute("data-by") == "gate"
    assert box.locator(".abstained-label").text_content() == "No answer in the graph"
    assert expected["answer_with_titles"] in box.inner_text()
    assert box.locator("button.citation").count() == 0 and turn.locator("ul.sources").count() == 0
    assert turn.locator(".abstained-why").inner_text() == f"Abstained (gate): {abstained['reason']}"
    # the closest passages apart, under their heading: titles and snippets as text
    apart = turn.locator(".closest")
    assert apart.locator(".closest-heading").inner_text() == HEADING
    assert apart.locator(".closest-title").all_text_contents() == [c["title"] for c in abstained["closest"]]
    assert apart.locator(".closest-text").all_text_contents() == [c["text"] for c in abstained["closest"]]
    assert page.locator(".turn img").count() == 0 and page.evaluate("document.body.dataset.pwned") is None
    # styled apart from an answer: the abstention's box and the closest list look unlike an answer
    styles = page.evaluate(
        "() => [...document.querySelectorAll('.turn .answer.abstained, .turn .closest')]"
        ".map((e) => getComputedStyle(e).borderLeftStyle + ' ' + getComputedStyle(e).backgroundColor)"
    )
    assert len(styles) == 2 and all(not s.startswith("none") for s in styles), styles
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "serve-page-abstained.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000

    # an answered question next to it: an answer with its sources, no abstention box
    page.fill("#question", ON_TOPIC)
    page.click("#send")
    until(page, lambda: page.locator(".turn").count() == 2 and page.locator(".turn").last.locator("ul.sources").count())
    answered = page.locator(".turn").last
    assert answered.locator(".answer.abstained").count() == 0 and answered.locator(".closest").count() == 0
    turn.screenshot(path=str(OUTPUT / "serve-page-abstained-turn.png"))
