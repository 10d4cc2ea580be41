"""Neo4j Browser, as the session's Neo4j serves it, with graphrag's plugin and the sample loaded:
Debian's headless Chromium (driven by Playwright) connects over Bolt, runs `graphrag.search` in
the editor and draws a graph result; the screenshots are the docs' pictures of Browser."""

from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from ..browser import browser_context
from ..conftest import load_sample_graph

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "tests" / "output"  # ignored by git
DOCS_IMG = ROOT / "docs" / "img"
# Set to 1 to refresh the docs' pictures (docs/img/) as well; by default a run leaves the tree as it was.
DOCS_SCREENSHOTS = "GRAPHRAG_DOCS_SCREENSHOTS"

# The docs' own examples (docs/browser.md): a question retrieved with no Python, and the graph
# `link phrases` builds, stories joined through the rare phrases their chunks share.
SEARCH = (
    "CALL graphrag.search('who stole the lantern?', {mode: 'graph'}) "
    "YIELD rank, title, score, via, text RETURN rank, title, score, via, left(text, 100) AS text"
)
PATHS = (
    "MATCH p=(:Document)<-[:FROM_DOCUMENT]-(:Chunk)-[:HAS_PHRASE]->(:Phrase)<-[:HAS_PHRASE]-(:Chunk)"
    "-[:FROM_DOCUMENT]->(:Document) RETURN p LIMIT 25"
)


@pytest.fixture(scope="module")
def browser_url(neo4j_server) -> str:
    """The sample loaded, and the address of the Browser this Neo4j serves."""
    instance = neo4j_server.instance
    if instance is None or instance.http_port is None:
        pytest.skip("the session's Neo4j was not started by the tests with HTTP on: its Browser address is unknown")
    url = f"http://127.0.0.1:{instance.http_port}/browser/"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            bundled = response.status == 200
    except urllib.error.HTTPError:
        bundled = False
    if not bundled:
        pytest.skip(f"this Neo4j serves no Browser at {url} (neo4j-browser is not in its lib/)")
    load_sample_graph(neo4j_server, ["load", "sample"], ["link", "phrases"])  # the served tests' graph
    return url


def _local_only(route) -> None:
    """Requests to anything but this machine (fonts, telemetry, update checks) are refused:
    the test must not depend on the internet, nor tell it anything."""
    if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
        route.continue_()
    else:
        route.abort()


@pytest.fixture(scope="module")
def browser_page(browser_url, neo4j_server):
    """Browser, connected to the session's Neo4j as neo4j with the session's password."""
    with browser_context(1400, 900) as context:
        context.route("**/*", _local_only)
        page = context.new_page()
        page.goto(browser_url, timeout=120_000)
        page.wait_for_selector('input[data-testid="boltaddress"]', timeout=120_000)
        page.fill('input[data-testid="boltaddress"]', neo4j_server.uri)
        page.fill('input[data-testid="username"]', neo4j_server.username)
        page.fill('input[data-testid="password"]', neo4j_server.password)
        page.click('button[data-testid="connect"]')
        page.wait_for_selector('input[data-testid="boltaddress"]', state="detached", timeout=120_000)
        dismiss_usage_banner(page)
        yield page


def dismiss_usage_banner(page) -> None:
    """Close the notice about usage data, so that it is not in the pictures (nothing is sent: see `_local_only`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    close = page.locator('div:has(> span:has-text("we collect information on product usage")) > span:last-child')
    try:
        close.wait_for(timeout=15_000)
    except PlaywrightTimeout:  # a Browser that does not show it
        return
    close.click()
    close.wait_for(state="detached", timeout=15_000)


def run_in_editor(page, statement: str):
    """Type a statement into Browser's editor, run it, and return its result frame once loaded."""
    page.click("#monaco-main-editor")
    page.keyboard.insert_text(statement)
    page.keyboard.press("Escape")  # close any completion list
    page.click('[data-testid="editor-Run"]')
    frame = page.locator('[data-testid="frame"]').filter(has_text=statement[:40]).first
    frame.locator('[data-testid="frame-loaded-contents"]').wait_for(timeout=120_000)
    return frame


def clear(page) -> None:
    """An empty stream, so that the picture shows the editor and one result."""
    page.click("#monaco-main-editor")
    page.keyboard.insert_text(":clear")
    page.click('[data-testid="editor-Run"]')
    page.locator('[data-testid="frame"]').first.wait_for(state="detached", timeout=60_000)


def save(page, frame, name: str) -> Path:
    """A picture of Browser down to the end of `frame`, in tests/output/ (and docs/img/ when asked)."""
    page.wait_for_timeout(500)
    box = frame.bounding_box()
    assert box is not None
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / name
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    bottom = min(box["y"] + box["height"] + 12, height)
    page.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": width, "height": bottom})
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    if os.environ.get(DOCS_SCREENSHOTS) == "1":
        DOCS_IMG.mkdir(exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG / name)
    return shot


def test_graphrag_search_runs_in_browser_and_shows_its_rows(browser_page, neo4j_server, onnx_export):
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")
    with neo4j_server.driver() as driver:
        rows = driver.execute_query(SEARCH).records
    assert len(rows) >= 3
    clear(browser_page)
    frame = run_in_editor(browser_page, SEARCH)
    table = frame.locator('[data-testid="frameContents"]').inner_text()
    assert '"The Silver Lantern"' in table
    # the procedure's rows are Browser's table, in its order (a row reads: rank, "title", score)
    cells = [f'{row["rank"]}\t"{row["title"]}"\t{row["score"]}\t' for row in rows]
    positions = [table.find(cell) for cell in cells]
    assert -1 not in positions and positions == sorted(positions), (cells, table)
    assert f"Started streaming {len(rows)} records" in frame.inner_text()
    save(browser_page, frame, "neo4j-browser.png")


def test_a_path_query_is_drawn_as_a_graph(browser_page, neo4j_server):
    with neo4j_server.driver() as driver:
        paths = [record["p"] for record in driver.execute_query(PATHS).records]
    nodes = {node.element_id for path in paths for node in path.nodes}
    assert len(nodes) >= 4
    clear(browser_page)
    frame = run_in_editor(browser_page, PATHS)
    drawn = frame.locator("svg g.node")
    drawn.first.wait_for(timeout=60_000)
    # the whole window for the drawing: full screen, then run again so that the layout fits the window
    frame.locator('button[title="Fullscreen"]').click()
    frame.locator('[data-testid="rerunFrameButton"]').click()
    browser_page.wait_for_timeout(5000)  # the force layout settles before the picture
    assert drawn.count() == len(nodes)
    assert frame.locator("svg g.relationship").count() >= len(nodes) - 1  # a connected picture
    save(browser_page, frame, "neo4j-browser-graph.png")
