"""Search providers' JSON, the domain blocklist, the configuration and the fallback's ranking."""

import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.model import ItemError, ParsedDocument, Section
from graphrag_cypher.retrieval.web import (
    Blocklist,
    WebConfig,
    WebFallback,
    WebResult,
    parse_brave,
    parse_searxng,
)

SEARXNG = {
    "query": "tungsten",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://en.wikipedia.org/wiki/Tungsten",
            "title": "Tungsten - Wikipedia",
            "content": "Tungsten, or wolfram, is a chemical element &amp; a metal.",
            "engine": "wikipedia",
            "parsed_url": ["https", "en.wikipedia.org", "/wiki/Tungsten", "", "", ""],
            "engines": ["wikipedia", "duckduckgo"],
            "positions": [1],
            "score": 2.0,
            "category": "general",
        },
        {"url": "ftp://files.example.org/w.txt", "title": "FTP", "content": "not http"},
        {"url": "https://en.wikipedia.org/wiki/Tungsten", "title": "again", "content": "a repeat"},
        {"url": "https://www.rsc.org/periodic-table/element/74/tungsten", "title": "", "content": None},
        "not an object",
    ],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": [],
    "unresponsive_engines": [],
}


def test_searxng_results_in_order_without_repeats_or_other_schemes():
    results = parse_searxng(SEARXNG)
    assert [r.url for r in results] == [
        "https://en.wikipedia.org/wiki/Tungsten",
        "https://www.rsc.org/periodic-table/element/74/tungsten",
    ]
    assert results[0].title == "Tungsten - Wikipedia" and results[0].engine == "wikipedia"
    assert results[0].snippet == "Tungsten, or wolfram, is a chemical element & a metal."
    assert results[1].title == results[1].url and results[1].snippet == ""  # no title: the URL stands in
    assert parse_searxng({}) == [] and parse_searxng({"results": "x"}) == []


def test_brave_results_and_their_marked_up_descriptions():
    data = {
        "type": "search",
        "web": {
            "type": "search",
            "results": [
                {
                    "title": "Tungsten <strong>boiling</strong> point",
                    "url": "https://example.org/w",
                    "description": "It boils at <strong>5,828 K</strong>.",
                    "type": "search_result",
                },
                {"title": "No URL", "description": "x"},
            ],
        },
    }
    [hit] = parse_brave(data)
    assert hit == WebResult("Tungsten boiling point", "https://example.org/w", "It boils at 5,828 K.", None)
    assert parse_brave({"web": None}) == [] and parse_brave({}) == []


@pytest.mark.parametrize(
    "url, blocked",
    [
        ("https://pinterest.com/pin/1", "pinterest.com"),
        ("https://www.pinterest.com/pin/1", "pinterest.com"),
        ("https://a.b.pinterest.com:8443/x", "pinterest.com"),
        ("https://PINTEREST.COM./x", "pinterest.com"),
        ("https://notpinterest.com/", None),
        ("https://pinterest.com.evil.org/", None),
        ("https://news.example.org/a", "news.example.org"),
        ("https://example.org/a", None),  # a subdomain entry does not block its parent
        ("http://127.0.0.1:8000/x", "127.0.0.1"),
        ("http://127.0.0.10/x", None),
        ("http://localhost:9/x", "localhost"),
        ("http://[::1]:80/", "::1"),
        ("not a url", None),
    ],
)
def test_the_blocklist_blocks_a_domain_and_its_subdomains_only(url, blocked):
    entries = ["pinterest.com", "*.news.example.org", "127.0.0.1:8000", "http://localhost/path", "[::1]", " ", "#x"]
    assert Blocklist(entries).match(url) == blocked


def test_the_blocklist_from_a_list_and_a_file(tmp_path):
    listed = tmp_path / "blocked.txt"
    listed.write_text("# spam farms\nspam.example  # the worst\n\n.quora.com\n")
    blocklist = Blocklist.from_env(
        {"GRAPHRAG_WEB_BLOCKLIST": "pinterest.com, Medium.com", "GRAPHRAG_WEB_BLOCKLIST_FILE": str(listed)}
    )
    assert blocklist.domains == {"pinterest.com", "medium.com", "spam.example", "quora.com"}
    with pytest.raises(GraphragError, match="GRAPHRAG_WEB_BLOCKLIST_FILE"):
        Blocklist.from_env({"GRAPHRAG_WEB_BLOCKLIST_FILE": str(tmp_path / "missing.txt")})


def test_configuration_defaults_and_one_line_errors():
    assert WebConfig.from_env({}).provider == "off" and WebConfig.from_env({}).provider_object() is None
    config = WebConfig.from_env(
        {"GRAPHRAG_WEB_SEARCH": "SearxNG", "GRAPHRAG_SEARXNG_URL": "http://127.0.0.1:8888/search"}
    )
    provider = config.provider_object()
    assert provider.name == "searxng" and provider.base_url == "http://127.0.0.1:8888"
    assert (config.results, config.timeout, config.delay, config.corpus) == (5, 10.0, 0.5, "web")
    brave = WebConfig.from_env({"GRAPHRAG_WEB_SEARCH": "brave", "GRAPHRAG_BRAVE_API_KEY": "k"}).provider_object()
    assert brave.base_url == "https://api.search.brave.com/res/v1/web/search" and brave.api_key == "k"
    for env, message in [
        ({"GRAPHRAG_WEB_SEARCH": "google"}, "use off, searxng, brave"),
        ({"GRAPHRAG_WEB_SEARCH": "searxng"}, "needs GRAPHRAG_SEARXNG_URL"),
        ({"GRAPHRAG_WEB_SEARCH": "searxng", "GRAPHRAG_SEARXNG_URL": "127.0.0.1:8888"}, "not an http"),
        ({"GRAPHRAG_WEB_SEARCH": "brave"}, "needs GRAPHRAG_BRAVE_API_KEY"),
        ({"GRAPHRAG_WEB_RESULTS": "many"}, "not a whole number"),
        ({"GRAPHRAG_WEB_RESULTS": "0"}, "from 1 to 20"),
        ({"GRAPHRAG_WEB_TIMEOUT": "-1"}, "GRAPHRAG_WEB_TIMEOUT"),
    ]:
        with pytest.raises(GraphragError, match=message):
            WebConfig.from_env(env)


class Provider:
    name = "fixed"

    def __init__(self, hits):
        self.hits = hits

    def search(self, query, n):
        return self.hits[:n]


class Pages:
    """A page client serving parsed pages from a dict (what PoliteClient.page returns)."""

    def __init__(self, pages, seen):
        self.pages, self.seen = pages, seen

    def __call__(self, **kwargs):
        assert callable(kwargs["blocked"]) and kwargs["max_bytes"] > 0 and kwargs["allow_local"] is False
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def page(self, url):
        self.seen.append(url)
        return self.pages.get(url) or ItemError(url, "HTTP 404")


def embed(texts):
    """A vector per text: how often it says 'tungsten' and 'lantern'."""
    return [[t.lower().count("tungsten") + 0.01, t.lower().count("lantern") + 0.01] for t in texts]


def page(url, title, *paragraphs):
    return ParsedDocument(
        id=url, title=title, kind="web", source=url, uri=url, sections=[Section(p) for p in paragraphs]
    )


def test_the_fallback_keeps_the_closest_chunks_falls_back_to_snippets_and_never_fetches_blocked_pages():
    hits = [
        WebResult("Lanterns", "https://a.example/lantern", "about lanterns"),
        WebResult("Tungsten", "https://b.example/w", "snippet"),
        WebResult("Gone", "https://c.example/gone", "Tungsten tungsten tungsten, says the snippet."),
        WebResult("Blocked", "https://spam.example/w", "tungsten tungsten"),
        WebResult("Gone, no snippet", "https://c.example/nothing", ""),
    ]
    pages = {
        "https://a.example/lantern": page("https://a.example/lantern", "Lanterns", "A lantern of silver."),
        "https://b.example/w": page("https://b.example/w", "Tungsten", "Tungsten boils at 5,828 K. A lantern too."),
    }
    seen: list[str] = []
    config = WebConfig(provider="fixed", blocklist=Blocklist(["spam.example"]))
    fallback = WebFallback(config, Pages(pages, seen), provider=Provider(hits))
    found = fallback.find("tungsten?", [1.0, 0.0], embed, k=3, min_similarity=0.5, reason="test")
    assert "https://spam.example/w" not in seen and sorted(seen) == sorted(
        ["https://a.example/lantern", "https://b.example/w", "https://c.example/gone", "https://c.example/nothing"]
    )
    assert [p.result.url for p in found.pages] == ["https://c.example/gone", "https://b.example/w"]
    assert found.pages[0].document is None and found.pages[0].chunks[0].chunk_id == "https://c.example/gone::snippet"
    assert found.pages[1].chunks[0].chunk_id == "https://b.example/w::0"
    by_url = {r.url: r for r in found.trace.results}
    assert by_url["https://spam.example/w"].blocked == "spam.example"
    assert by_url["https://c.example/gone"].snippet_used and by_url["https://c.example/gone"].error == "HTTP 404"
    assert "below the gate" in by_url["https://a.example/lantern"].dropped
    assert (
        by_url["https://c.example/nothing"].error == "HTTP 404" and not by_url["https://c.example/nothing"].snippet_used
    )
    assert set(found.vectors) and found.trace.searched and found.trace.reason == "test"


def test_a_failed_search_is_a_trace_not_an_exception():
    class Broken:
        name = "broken"

        def search(self, query, n):
            raise GraphragError("broken search at http://x answered HTTP 500")

    found = WebFallback(WebConfig(provider="x"), Pages({}, []), provider=Broken()).find("q", [1.0], embed)
    assert found.pages == [] and found.trace.error == "broken search at http://x answered HTTP 500"


def test_a_result_page_is_parsed_within_the_page_timeout_and_a_smaller_character_budget(monkeypatch):
    from graphrag_cypher.retrieval.web import PAGE_CHARS, page_budget

    budget = page_budget(10)
    assert budget.seconds == 10 and budget.chars == PAGE_CHARS
    monkeypatch.setenv("GRAPHRAG_PARSE_SECONDS", "2")
    monkeypatch.setenv("GRAPHRAG_PARSE_MAX_CHARS", "5000")
    assert (page_budget(10).seconds, page_budget(10).chars) == (2, 5000)
