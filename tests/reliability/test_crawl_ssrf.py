"""Crawls never fetch loopback, private or link-local addresses unless told to: every spelling
of 127.0.0.1 (short, decimal, unspecified, IPv6, IPv4-mapped, a name that resolves to it) is one
refused line, nothing reaches the server (not even a robots.txt request), through the fetcher,
`load url`, POST /crawl and MCP `learn`; GRAPHRAG_CRAWL_ALLOW_LOCAL=1 (or the flags) allows them.
The check is repeated at connect time on the resolved addresses. A real server on this machine."""

from __future__ import annotations

import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from graphrag_cypher.loaders.web import fetch_pages
from graphrag_cypher.model import ItemError, ParsedDocument

ALLOW_LOCAL_ENV = "GRAPHRAG_CRAWL_ALLOW_LOCAL"  # the one setting, as documented

PAGE = b"<html><head><title>Internal console</title></head><body><p>Admin token: s3cret.</p></body></html>"
# host spellings that all reach this machine
LOCAL_HOSTS = [
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0.0.0.0",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "localhost",
    "wiki.localhost",
]
# those the resolver of this machine connects (wiki.localhost resolves only where systemd-resolved runs)
REACHABLE = ["127.0.0.1", "127.1", "2130706433", "0.0.0.0", "[::1]", "[::ffff:127.0.0.1]", "localhost"]


class _Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # IPv4 and IPv6 both
        super().server_bind()


class Internal:
    """An 'internal' page on all local addresses, counting every request it gets."""

    def __init__(self):
        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.hits.append(self.path)
                body = b"" if self.path == "/robots.txt" else PAGE
                self.send_response(404 if self.path == "/robots.txt" else 200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = _Server(("::", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, host: str) -> str:
        return f"http://{host}:{self.port}/console.html"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def internal(monkeypatch):
    monkeypatch.delenv(ALLOW_LOCAL_ENV, raising=False)
    server = Internal()
    yield server
    server.close()


@pytest.mark.parametrize("host", LOCAL_HOSTS)
def test_the_fetcher_refuses_a_local_target_by_default(internal, host):
    (result,) = fetch_pages([internal.url(host)], delay=0, timeout=5)
    assert isinstance(result, ItemError) and "a local or private address" in result.error, result
    assert "\n" not in result.error and ALLOW_LOCAL_ENV in result.error
    assert internal.hits == []


@pytest.mark.parametrize("host", REACHABLE)
def test_the_setting_allows_local_targets(internal, monkeypatch, host):
    monkeypatch.setenv(ALLOW_LOCAL_ENV, "1")
    (page,) = fetch_pages([internal.url(host)], delay=0, timeout=5)
    assert isinstance(page, ParsedDocument) and page.title == "Internal console", page
    (explicit,) = fetch_pages([internal.url(host)], delay=0, timeout=5, allow_local=True)
    assert isinstance(explicit, ParsedDocument)


def test_other_private_and_link_local_addresses_are_refused(internal):
    urls = ["http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/"]
    results = list(fetch_pages(urls, delay=0, timeout=2))
    assert [r.item for r in results] == urls
    assert all(isinstance(r, ItemError) and "a local or private address" in r.error for r in results)


@pytest.mark.parametrize("host", REACHABLE)
def test_the_connection_itself_goes_only_to_public_addresses(internal, host):
    """The check at connect time, on the addresses the name resolves to, without the check before
    it: what a name that resolves to a public address first and to 127.0.0.1 next would meet."""
    from graphrag_cypher.loaders.web import _client, _Fetcher

    with _client("test", allow_local=False) as client:
        with pytest.raises(httpx.ConnectError, match="a local or private address"):
            client.get(internal.url(host))
        fetcher = _Fetcher(client, "test", 5, float("inf"), 1 << 20, 5, False, allow_local=False)
        result, _ = fetcher.page(internal.url(host))
    assert isinstance(result, ItemError) and "a local or private address" in result.error, result
    assert "\n" not in result.error
    assert internal.hits == []


def test_a_redirect_to_a_local_target_is_refused():
    """A local site may redirect within itself when allowed, but not hop to another local host
    when local targets are refused (checked hop by hop)."""
    from graphrag_cypher.loaders.web import _Fetcher

    fetcher = _Fetcher(None, "test", 5, float("inf"), 1 << 20, 5, False, allow_local=False)
    why = fetcher._refuse_hop("https://example.org/", "https://example.org/a", "http://127.1:8080/admin")
    assert why == "a local or private address (127.0.0.1)"


@pytest.mark.e2e
def test_load_url_refuses_then_allows_with_the_flag_or_the_setting(schema, run_cli, internal):
    refused = run_cli("load", "url", internal.url("127.0.0.1"), internal.url("localhost"), "--no-embed", "--json")
    out = json.loads(refused.stdout)
    assert refused.exit_code == 3 and out["documents"]["created"] == 0
    assert [e["error"].split(" (")[0] for e in out["errors"]] == ["a local or private address"] * 2
    assert internal.hits == []
    flag = json.loads(run_cli("load", "url", internal.url("127.1"), "--no-embed", "--allow-local", "--json").stdout)
    assert flag["documents"]["created"] == 1
    setting = run_cli("load", "url", internal.url("2130706433"), "--no-embed", "--json", env={ALLOW_LOCAL_ENV: "1"})
    assert json.loads(setting.stdout)["documents"]["created"] == 1


@pytest.mark.e2e
def test_post_crawl_refuses_local_targets(neo4j_server, tmp_path, internal):
    from ..e2e.serve.conftest import KEY, start_server, stop_server
    from ..e2e.serve.test_jobs import wait

    served = start_server(neo4j_server, tmp_path, KEY)  # no --crawl-allow-local
    try:
        with served.client() as http:
            for host in LOCAL_HOSTS:
                accepted = http.post("/crawl", json={"url": internal.url(host), "delay": 0})
                assert accepted.status_code == 202, accepted.text
                job = wait(http, accepted.json())
                (error,) = job["summary"]["errors"]
                assert "a local or private address" in error["error"] and job["summary"]["documents"]["created"] == 0
        assert internal.hits == []
    finally:
        stop_server(served)


@pytest.mark.e2e
def test_mcp_learn_refuses_local_targets_unless_allowed(schema, tmp_path, internal):
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from ..conftest import graphrag_exe
    from ..e2e.serve.test_mcp import structured

    env = dict(os.environ, **schema.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"))
    for name in ("OPENAI_BASE_URL", "GRAPHRAG_LLM_MODEL", "GRAPHRAG_API_KEY", ALLOW_LOCAL_ENV):
        env.pop(name, None)

    async def learn(*args: str, **extra: str) -> dict:
        params = StdioServerParameters(
            command=graphrag_exe(), args=["mcp", "--allow-writes", *args], env={**env, **extra}, cwd=str(tmp_path)
        )
        async with Client(params, read_timeout_seconds=180) as client:
            return structured(await client.call_tool("learn", {"request": f"internal | url: {internal.url('127.1')}"}))

    refused = anyio.run(learn)
    assert refused["documents"]["created"] == 0 and internal.hits == []
    assert "a local or private address" in refused["errors"][0]["error"]
    assert anyio.run(learn, "--crawl-allow-local")["documents"]["created"] == 1
