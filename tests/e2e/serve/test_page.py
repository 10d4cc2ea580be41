"""The page in a real browser: Debian's headless Chromium driven by Playwright's Python package."""

from pathlib import Path

import pytest

from ...browser import browser_context
from .conftest import KEY, MARKUP

pytestmark = pytest.mark.e2e
OUTPUT = Path(__file__).resolve().parents[2] / "output"  # tests/output/, ignored by git


@pytest.fixture
def page(served):
    with browser_context(1100, 1300) as context:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(served.url + "/")
        page.click("#settings summary")
        page.fill("#key", KEY)
        page.dispatch_event("#key", "change")
        yield page
        assert not errors, errors


def until(page, condition, seconds: float = 60) -> None:
    """Poll a condition from Python (the page's CSP rightly refuses the evaluated strings of wait_for_function)."""
    for _ in range(int(seconds * 4)):
        if condition():
            return
        page.wait_for_timeout(250)
    raise AssertionError("the page did not get there in time")


# The evidence graph as Cytoscape.js drew it (the page exposes it as window.__graph): its nodes,
# their types, how many pairs of label boxes intersect (model coordinates, each box the node and
# its label), how many nodes' boxes fall outside the view, the zoom, the nodes ringed as evidence.
MEASURE = """() => {
  const cy = window.__graph;
  const nodes = cy.nodes();
  const boxes = nodes.map((n) => n.boundingBox({includeLabels: true, includeOverlays: false}));
  const overlapping = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) overlapping.push([nodes[i].id(), nodes[j].id()]);
    }
  }
  const w = cy.width(), h = cy.height();
  const outside = nodes.filter((n) => {
    const r = n.renderedBoundingBox({includeLabels: true, includeOverlays: false});
    return r.x1 < 0 || r.y1 < 0 || r.x2 > w || r.y2 > h;
  }).map((n) => n.id());
  return {
    ids: nodes.map((n) => n.id()), names: nodes.map((n) => n.data("name")),
    types: [...new Set(nodes.map((n) => n.data("type")))].sort(),
    edges: cy.edges().map((e) => [e.data("source"), e.data("type"), e.data("target")]),
    overlapping, outside, zoom: cy.zoom(), marked: cy.nodes(".marked").map((n) => n.id()),
    answer: cy.container().dataset.answer || null,
  };
}"""


def drawn(page) -> dict:
    """The evidence graph as the page drew it (see MEASURE)."""
    return page.evaluate(MEASURE)


def legend(page) -> list[str]:
    return page.locator("#legend li[data-type]").evaluate_all("items => items.map(i => i.dataset.type)")


def scroll_to_graph(page) -> None:
    """The graph in view, and the scroll over: Cytoscape ignores the wheel while the page scrolls
    (250 ms) and reads its container's place again only after the scroll event."""
    page.locator("#graph").scroll_into_view_if_needed()
    page.wait_for_timeout(600)


def click_node(page, node_id: str) -> None:
    """A real mouse click on a node where Cytoscape drew it."""
    scroll_to_graph(page)
    box = page.locator("#graph").bounding_box()
    at = page.evaluate("(id) => window.__graph.getElementById(id).renderedPosition()", node_id)
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])


def test_the_mode_list_is_the_servers_registry(page):
    from graphrag_cypher.retrieval.modes import ANSWER_MODES, BY_NAME, DEFAULT_MODE

    until(page, lambda: page.locator("#mode option").count() == len(ANSWER_MODES))
    options = page.locator("#mode option")
    assert [options.nth(i).get_attribute("value") for i in range(len(ANSWER_MODES))] == list(ANSWER_MODES)
    assert page.input_value("#mode") == DEFAULT_MODE
    assert page.locator("#mode option[value=ppr]").get_attribute("title") == BY_NAME["ppr"].summary


def test_ask_stream_cite_open_passage_and_draw_the_graph(page):
    page.fill("#question", "Who made the silver lantern, and who stole it?")
    page.click("#send")
    answer = page.locator(".turn .answer").last
    # the answer streams in, then is shown with citations as buttons bearing their titles
    page.wait_for_selector(".turn .answer button.citation", timeout=120_000)
    citations = answer.locator("button.citation")
    titles = citations.all_inner_texts()
    assert titles and all(t and not t.startswith(("T", "D")) or len(t) > 3 for t in titles)
    assert "FAKE9" not in answer.inner_text()
    # markup from the model is shown as text, never run
    assert MARKUP in answer.inner_text()
    assert page.evaluate("document.body.dataset.pwned") is None
    assert page.locator(".turn .answer img").count() == 0
    # a citation opens its source passage
    citations.first.click()
    page.wait_for_selector("#passage:not([hidden])")
    assert page.inner_text("#passage-title") == titles[0]
    assert len(page.inner_text("#passage-text")) > 40
    # the evidence graph (Cytoscape.js) has drawn nodes, coloured by type with a legend, labels
    # apart, all in view, the cited passages ringed; a click on a node expands its neighbours
    until(page, lambda: drawn(page)["ids"])
    graph = drawn(page)
    before = len(graph["ids"])
    assert before >= 3 and len(graph["edges"]) >= 2
    assert sorted(legend(page)) == graph["types"] and len(graph["types"]) >= 2
    assert graph["overlapping"] == [] and graph["outside"] == [], graph
    assert graph["marked"], "the cited chunks and documents are ringed"
    assert page.locator("script[src='/static/vendor/cytoscape.min.js']").count() == 1
    click_node(page, graph["ids"][-1])
    until(page, lambda: len(drawn(page)["ids"]) > before)
    assert page.inner_text("#graph-node")  # the clicked node's type and name, as text
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "serve-page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    # the conversation is kept per tab: a reload shows it again
    page.reload()
    assert "silver lantern" in page.inner_text("#conversation")
    # a follow-up goes out with the history and is answered as a standalone question
    page.fill("#question", "And who stole it?")
    page.click("#send")
    until(page, lambda: "Who stole the silver lantern?" in page.locator(".turn .rewritten").last.inner_text())
    until(page, lambda: page.locator(".turn").last.locator("button.citation").count() > 0)


def test_the_graph_library_is_served_from_the_package(served):
    """The page draws offline: Cytoscape.js and its layout come from the package, not a CDN."""
    import httpx

    from graphrag_cypher.server.routes.page import SECURITY_HEADERS

    vendor = OUTPUT.parents[1] / "server" / "page" / "vendor"
    index = httpx.get(served.url + "/").text
    scripts = [line.split('"')[1] for line in index.splitlines() if "<script src=" in line]
    assert scripts[-1] == "/static/app.js" and all(s.startswith("/static/") for s in scripts), scripts
    for src in scripts[:-1]:
        response = httpx.get(served.url + src)  # no key: the page's files are open
        name = src.rsplit("/", 1)[1]
        assert response.status_code == 200 and response.content == (vendor / name).read_bytes(), src
        assert response.headers["content-type"].startswith("text/javascript")
        assert response.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
        assert (vendor / (name.removesuffix(".min.js").removesuffix(".js") + ".LICENSE")).is_file(), name
    for missing in ("/static/vendor/cytoscape.LICENSE", "/static/vendor/nothing.js", "/static/vendor/..%2Fapp.js"):
        assert httpx.get(served.url + missing).status_code == 404, missing
