"""The crawler against hostile HTTP servers on 127.0.0.1: trickled bytes, redirects that try to
escape robots.txt or the site, a robots.txt of 300 MB. Real sockets, no mocks."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphrag_cypher.loaders.web import MAX_ROBOTS_BYTES, fetch_pages
from graphrag_cypher.model import ItemError, ParsedDocument

PAGE = "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{text}</p>{links}</main></body></html>"
ROBOTS = b"User-agent: *\nDisallow: /private/\n"
HUGE_ROBOTS_BYTES = 300 * 1024 * 1024


def page(title: str, text: str = "Some words about harbours and ships.", links: str = "") -> bytes:
    return PAGE.format(title=title, text=text, links=links).encode()


class Site(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, routes):
        self.routes = routes  # path -> callable(handler)
        self.hits: list[str] = []
        self.sent = 0  # bytes of streamed bodies actually written to the socket
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.hits.append(self.path)
        route = self.server.routes.get(self.path)
        if route is None:
            return self.reply(404, b"not found", "text/plain")
        try:
            route(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    def reply(self, status: int, body: bytes = b"", content_type: str = "text/html", **headers):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, status: int = 302):
        self.reply(status, b"", Location=location)


def static(body: bytes, content_type: str = "text/html"):
    return lambda h: h.reply(200, body, content_type)


def trickle_body(h):
    """Headers at once, then one byte every 0.2 s for ever: each read succeeds in time."""
    h.send_response(200)
    h.send_header("Content-Type", "text/html")
    h.send_header("Content-Length", "100000000")
    h.end_headers()
    while True:
        h.wfile.write(b" ")
        h.wfile.flush()
        time.sleep(0.2)


def trickle_headers(h):
    """The status line, then a header byte every 0.2 s: the response never even starts."""
    h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
    h.wfile.flush()
    while True:
        h.wfile.write(b"X")
        h.wfile.flush()
        time.sleep(0.2)


def huge_robots(h):
    """300 MB of robots.txt, produced lazily; counts what was actually sent."""
    line = b"# " + b"x" * 1021 + b"\n"
    lines = HUGE_ROBOTS_BYTES // len(line)
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    h.send_header("Content-Length", str(len(ROBOTS) + lines * len(line)))
    h.end_headers()
    h.wfile.write(ROBOTS)
    h.server.sent += len(ROBOTS)
    for _ in range(lines):
        h.wfile.write(line)
        h.server.sent += len(line)


@pytest.fixture
def elsewhere():
    """Another server on 127.0.0.1 (think: Neo4j's HTTP port) that must never be reached by a crawl."""
    site = Site({"/": static(page("Internal console")), "/x.html": static(page("Internal console"))})
    yield site
    site.shutdown()


@pytest.fixture
def hostile(elsewhere):
    routes = {
        "/robots.txt": static(ROBOTS, "text/plain"),
        "/index.html": static(
            page("Start", links="<a href='/go'>go</a> <a href='/away'>away</a> <a href='/ok'>ok</a>")
        ),
        "/go": lambda h: h.redirect("/private/secret.html"),
        "/private/secret.html": static(page("Secret", "Robots may not read this.")),
        "/away": lambda h: h.redirect(elsewhere.url + "/x.html"),
        "/ok": lambda h: h.redirect("/public.html", 301),
        "/public.html": static(page("Public")),
        "/loop": lambda h: h.redirect("/loop"),
        "/file": lambda h: h.redirect("file:///etc/passwd"),
        "/slow-body": trickle_body,
        "/slow-headers": trickle_headers,
    }
    site = Site(routes)
    yield site
    site.shutdown()


def results(urls, **options):
    """The test sites are on 127.0.0.1: these crawls opt in to local addresses."""
    return list(fetch_pages(urls, delay=0, allow_local=True, **options))


def test_redirect_into_a_disallowed_path_is_refused(hostile):
    (result,) = results([hostile.url + "/go"])
    assert isinstance(result, ItemError) and "robots.txt" in result.error
    assert "/private/secret.html" not in hostile.hits


def test_crawl_redirect_off_the_site_is_refused(hostile, elsewhere):
    out = results([hostile.url + "/index.html"], crawl=True)
    titles = {r.title for r in out if isinstance(r, ParsedDocument)}
    assert titles == {"Start", "Public"}  # /ok -> /public.html is on the site and allowed
    errors = {r.item.rsplit("/", 1)[-1]: r.error for r in out if isinstance(r, ItemError)}
    assert "leaves the site" in errors["away"] and "robots.txt" in errors["go"]
    assert elsewhere.hits == [] and "/private/secret.html" not in hostile.hits


def test_redirect_loops_and_other_schemes_are_refused(hostile):
    loop, other = results([hostile.url + "/loop", hostile.url + "/file"])
    assert "more than 5 redirects" in loop.error
    assert "not an http(s) URL" in other.error
    assert hostile.hits.count("/loop") == 6  # the first request and five hops, then it stops


@pytest.mark.parametrize("path", ["/slow-body", "/slow-headers"])
def test_a_trickling_server_meets_the_deadline(hostile, path):
    started = time.monotonic()
    (result,) = results([hostile.url + path], timeout=1.5)
    elapsed = time.monotonic() - started
    assert isinstance(result, ItemError) and "within 1.5 s" in result.error
    assert elapsed < 5, f"took {elapsed:.1f} s"


def test_a_crawl_stops_at_its_own_deadline(hostile):
    started = time.monotonic()
    out = results(
        [hostile.url + "/slow-body", hostile.url + "/slow-headers", hostile.url + "/public.html"],
        timeout=30,
        crawl_timeout=2,
    )
    assert time.monotonic() - started < 6
    assert isinstance(out[0], ItemError) and "within 30 s" in out[0].error
    assert "crawl time limit of 2 s reached" in out[-1].error and "2 queued URL(s) not fetched" in out[-1].error


def test_a_huge_robots_txt_is_read_only_up_to_its_cap():
    site = Site(
        {"/robots.txt": huge_robots, "/page.html": static(page("Fine")), "/private/x.html": static(page("Hidden"))}
    )
    try:
        started = time.monotonic()
        ok, hidden = results([site.url + "/page.html", site.url + "/private/x.html"])
        elapsed = time.monotonic() - started
        time.sleep(0.2)  # let the server notice the closed socket
        assert isinstance(ok, ParsedDocument) and ok.title == "Fine"
        assert isinstance(hidden, ItemError) and "robots.txt" in hidden.error  # the rules before the cap hold
        # what left the server: the cap plus what the kernel's socket buffers took, not 300 MB
        assert site.sent < MAX_ROBOTS_BYTES + 32 * 1024 * 1024, site.sent
        assert elapsed < 10
    finally:
        site.shutdown()


@pytest.mark.e2e
def test_load_url_crawl_stores_only_what_it_may(schema, run_cli, hostile, elsewhere):
    result = run_cli(
        "load",
        "url",
        hostile.url + "/index.html",
        "--crawl",
        "--delay",
        "0",
        "--no-embed",
        "--timeout",
        "5",
        "--allow-local",  # the test sites are on 127.0.0.1
        "--json",
    )
    out = json.loads(result.stdout)
    assert result.exit_code == 3 and out["documents"]["created"] == 2
    assert sorted(e["item"].rsplit("/", 1)[-1] for e in out["errors"]) == ["away", "go"]
    with schema.driver() as driver:
        texts = [r["t"] for r in driver.execute_query("MATCH (c:Chunk) RETURN c.text AS t").records]
    assert not any("Robots may not read" in t or "Internal console" in t for t in texts)
    assert elsewhere.hits == []
