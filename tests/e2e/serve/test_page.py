"""The page in a real browser: Debian's headless Chromium driven by Playwright's Python package."""

import shutil
from pathlib import Path

import pytest

from .conftest import KEY, MARKUP

pytestmark = pytest.mark.e2e
INSTALL = "apt-get install -y chromium && .venv/bin/python -m pip install playwright"
OUTPUT = Path(__file__).resolve().parents[2] / "output"  # tests/output/, ignored by git


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def page(served):
    executable = chromium()
    if executable is None:
        pytest.skip(f"no chromium on this machine: {INSTALL}")
    sync_api = pytest.importorskip("playwright.sync_api", reason=f"playwright is not installed: {INSTALL}")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        context = browser.new_context(viewport={"width": 1100, "height": 1300})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(served.url + "/")
        page.click("#settings summary")
        page.fill("#key", KEY)
        page.dispatch_event("#key", "change")
        yield page
        assert not errors, errors
        context.close()
        browser.close()


def until(page, condition, seconds: float = 60) -> None:
    """Poll a condition from Python (the page's CSP rightly refuses the evaluated strings of wait_for_function)."""
    for _ in range(int(seconds * 4)):
        if condition():
            return
        page.wait_for_timeout(250)
    raise AssertionError("the page did not get there in time")


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
    # the evidence graph has drawn nodes, coloured by label, and a click expands a neighbour
    page.wait_for_selector("#graph g.node", timeout=60_000)
    before = page.locator("#graph g.node").count()
    assert before >= 3 and page.locator("#graph line.edge").count() >= 2
    assert page.locator("#legend span").count() >= 2
    page.locator("#graph g.node circle").last.click()
    until(page, lambda: page.locator("#graph g.node").count() > before)
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
