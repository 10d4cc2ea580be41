"""Crawl tests against a real HTTP server on 127.0.0.1 (no mocks)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphrag_cypher.loaders.web import fetch_pages, normalise_url
from graphrag_cypher.model import ItemError, ParsedDocument

PAGES = {
    "robots.txt": "User-agent: *\nDisallow: /private/\n",
    "index.html": """<html><head><title>Harbour Guide</title></head><body>
        <nav><a href="/a.html">A</a></nav><main><h1>Harbour Guide</h1><p>Welcome to the harbour.</p>
        <a href="a.html#top">Tides</a> <a href="/private/secret.html">Secret</a> <a href="tides.pdf">PDF</a>
        <a href="missing.html">Gone</a> <a href="http://other.invalid/x.html">Elsewhere</a></main></body></html>""",
    "a.html": """<html><head><title>Tides</title></head><body><p>Two tides a day.</p>
        <a href="deep/b.html">Deeper</a></body></html>""",
    "deep/b.html": "<html><body><p>Deep page.</p><a href='/deep/c.html'>c</a></body></html>",
    "deep/c.html": "<html><body><p>Too deep to reach with max_depth=2.</p></body></html>",
    "private/secret.html": "<html><body><p>Robots may not read this.</p></body></html>",
}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def site(tmp_path):
    import pymupdf

    for name, content in PAGES.items():
        path = tmp_path / "site" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    with pymupdf.open() as pdf:
        pdf.new_page().insert_text((72, 72), "Tide table for May.")
        (tmp_path / "site" / "tides.pdf").write_bytes(pdf.tobytes())
    handler = functools.partial(QuietHandler, directory=str(tmp_path / "site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_single_page_fetch(site):
    (page,) = fetch_pages([site + "/index.html"], delay=0, allow_local=True)
    assert isinstance(page, ParsedDocument)
    assert page.id == page.uri == f"{site}/index.html" and page.kind == "web" and page.labels == ("WebPage",)
    assert page.title == "Harbour Guide" and "Welcome to the harbour." in page.text


@pytest.mark.process
def test_crawl_same_site_respects_robots_depth_and_content_types(site):
    results = list(fetch_pages([site + "/index.html"], crawl=True, max_depth=2, delay=0, allow_local=True))
    documents = {r.id.removeprefix(site): r for r in results if isinstance(r, ParsedDocument)}
    errors = {r.item.removeprefix(site): r.error for r in results if isinstance(r, ItemError)}
    assert set(documents) == {"/index.html", "/a.html", "/tides.pdf", "/deep/b.html"}
    assert documents["/tides.pdf"].sections[0].page == 1 and "Tide table" in documents["/tides.pdf"].text
    assert errors == {"/private/secret.html": "disallowed by robots.txt, skipped", "/missing.html": "HTTP 404"}


def test_max_pages_bounds_the_crawl(site):
    results = list(fetch_pages([site + "/index.html"], crawl=True, max_pages=2, delay=0, allow_local=True))
    assert len([r for r in results if isinstance(r, ParsedDocument)]) == 2


def test_unreachable_server_is_an_item_error():
    (error,) = fetch_pages(["http://127.0.0.1:9/x.html"], delay=0, timeout=2, allow_local=True)
    assert isinstance(error, ItemError) and "fetch failed" in error.error


def test_normalise_url():
    assert normalise_url("HTTP://Example.ORG:80/a?b=1#frag") == "http://example.org/a?b=1"
    assert normalise_url("https://example.org") == "https://example.org/"
