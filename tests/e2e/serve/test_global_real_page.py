"""The done-when of questions about the whole corpus, on the real Grimm tales: after `graphrag
communities build`, "What are the main themes of the Grimm tales?" gives the same themed, cited
overview in the page (Chromium), through `/chat` and through MCP `ask`; a screenshot goes to
tests/output/serve-page-real-global.png."""

import anyio
import pytest

from ...conftest import load_sample_graph
from ..test_ask_global_grimm import GRIMM
from .conftest import KEY, start_server, stop_server
from .test_mcp import structured
from .test_page import OUTPUT, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]
QUESTION = "What are the main themes of the Grimm tales?"


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    if not GRIMM.exists():
        pytest.skip(f"{GRIMM} is not there (the shared data sets)")
    load_sample_graph(
        neo4j_server,
        ["load", "stories", str(GRIMM), "--corpus", "grimm"],
        ["link", "phrases"],
        ["communities", "build"],
    )
    served = start_server(neo4j_server, tmp_path_factory.mktemp("serve-real-global"), KEY, None, "--no-llm")
    yield served
    stop_server(served)


def mcp_ask(served, question: str) -> dict:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                return structured(await client.call_tool("ask", {"question": question}))

    return anyio.run(main)


def chat(served) -> dict:
    with served.client() as http:
        response = http.post("/chat", json={"question": QUESTION})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_themes_of_the_grimm_tales_through_chat_and_mcp(served):
    expected = chat(served)
    assert expected["route"] == "global" and expected["global"]["family"] == "themes"
    used = [c["id"] for c in expected["communities"] if c["used"]]
    cited = {c["document_id"] for c in expected["citations"]}
    assert len(used) >= 5 and len(cited) >= 8, (used, cited)
    assert expected["answer"].startswith("Themes of the 62 tales") and "extractive" in expected["answer"]
    by_mcp = mcp_ask(served, QUESTION)
    assert by_mcp["answer"] == expected["answer_with_titles"]
    assert [c["id"] for c in by_mcp["communities"] if c["used"]] == used


def test_the_themes_of_the_grimm_tales_in_the_page(served, page):  # noqa: F811
    expected = chat(served)
    used = [c["id"] for c in expected["communities"] if c["used"]]
    cited = {c["document_id"] for c in expected["citations"]}
    page.fill("#question", QUESTION)
    page.click("#send")
    page.wait_for_selector(".turn .global ul.communities li.used", timeout=240_000)
    turn = page.locator(".turn").last
    assert turn.locator("ul.communities li.used").evaluate_all("items => items.map(i => i.dataset.id)") == used
    buttons = turn.locator(".answer button.citation")
    until(page, lambda: buttons.count() >= len(cited))
    titles = {s["id"]: s["title"] for s in expected["sources"]}
    assert set(buttons.all_inner_texts()) == {titles[c["id"]] for c in expected["citations"]}
    # every theme line of the text is in the page, in order
    lines = [line for line in expected["answer_with_titles"].splitlines() if line[:1].isdigit()]
    shown = turn.locator(".answer").inner_text()
    assert len(lines) >= 5 and all(line.split(":", 1)[0] in shown for line in lines)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    turn.screenshot(path=str(OUTPUT / "serve-page-real-global.png"))
