"""`graphrag load feed` against a real HTTP server on 127.0.0.1 serving an RSS 2.0 and an Atom
feed, shaped like real news feeds (content:encoded, dc:creator, guid isPermaLink, Atom
summaries only), and the article pages they link to."""

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.e2e

LONG = " ".join(["The harbour board met again to weigh the dredging contract for the inner basin."] * 10)

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Portus Daily</title>
  <link>{site}/</link>
  <description>News from the harbour</description>
  <language>en-gb</language>
  <atom:link href="{site}/rss.xml" rel="self" type="application/rss+xml"/>
  <item>
    <title>Dredging contract signed</title>
    <link>{site}/news/dredging.html</link>
    <guid isPermaLink="false">portus-2024-0412</guid>
    <pubDate>Fri, 12 Apr 2024 09:30:00 +0200</pubDate>
    <dc:creator>Livia Marsh</dc:creator>
    <category>harbour</category>
    <description>The board signed the dredging contract.</description>
    <content:encoded><![CDATA[<p>{long}</p><p>Work on the inner basin starts in May.</p>]]></content:encoded>
  </item>
  <item>
    <title>Lighthouse lamp replaced</title>
    <link>{site}/news/lighthouse.html</link>
    <guid>{site}/news/lighthouse.html</guid>
    <pubDate>Mon, 05 Feb 2024 18:00:00 GMT</pubDate>
    <dc:creator>Tomas Reed</dc:creator>
    <description>&lt;p&gt;The old lamp is gone.&lt;/p&gt;</description>
  </item>
  <item>
    <title>Old wreck found</title>
    <link>{site}/private/wreck.html</link>
    <guid>{site}/private/wreck.html</guid>
    <pubDate>Wed, 10 Jan 2024 07:00:00 GMT</pubDate>
    <description>Divers found a wreck near the mole.</description>
  </item>
</channel>
</rss>
"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Ostia Notes</title>
  <id>tag:ostia.example,2024:feed</id>
  <updated>2024-03-20T10:00:00Z</updated>
  <author><name>Ostia Desk</name></author>
  <link rel="self" href="{site}/atom.xml"/>
  <entry>
    <title>Grain ships delayed by storms</title>
    <id>tag:ostia.example,2024:grain</id>
    <link rel="alternate" href="/notes/grain.html"/>
    <published>2024-03-18T06:00:00Z</published>
    <updated>2024-03-20T10:00:00Z</updated>
    <summary>Storms held the grain fleet.</summary>
  </entry>
</feed>
"""

PAGES = {
    "robots.txt": "User-agent: *\nDisallow: /private/\n",
    "news/lighthouse.html": "<html><head><title>Lighthouse | Portus Daily</title></head><body><nav>Home</nav>"
    "<main><h1>Lighthouse lamp replaced</h1><p>The keeper Aldo Venn fitted a brass lamp from Massalia "
    "after the old lamp cracked in the January frost.</p></main></body></html>",
    "notes/grain.html": "<html><head><title>Grain</title></head><body><main><h1>Grain ships delayed</h1>"
    "<p>Storms off Sicily held the grain fleet for nine days; bakers in Ostia rationed flour.</p>"
    "</main></body></html>",
    "private/wreck.html": "<html><body><p>Never fetched.</p></body></html>",
}


class Quiet(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".xml": "application/rss+xml"}

    def log_message(self, *args):
        pass


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    files = {**PAGES, "rss.xml": RSS.format(site=url, long=LONG), "atom.xml": ATOM.format(site=url)}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield url
    server.shutdown()


def documents(neo4j):
    with neo4j.driver() as driver:
        records = driver.execute_query(
            "MATCH (d:Document:FeedEntry) OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) "
            "WITH d, collect(c.text) AS texts RETURN d {.*} AS d, texts"
        ).records
    return {r["d"]["title"]: dict(r["d"], text=" ".join(r["texts"])) for r in records}


def test_rss_and_atom_load_dated_entries_once(schema, run_cli, site):
    args = ("load", "feed", f"{site}/rss.xml", f"{site}/atom.xml", "--delay", "0", "--no-embed", "--json")
    first = run_cli(*args)
    assert first.exit_code == 3, first.output  # the wreck's page is disallowed: reported, summary loaded
    out = json.loads(first.stdout)
    assert out["documents"]["created"] == 4
    assert out["feeds"] == {
        "feeds": 2,
        "entries": 4,
        "unchanged": 0,
        "pages_fetched": 2,
        "summary_only": 1,
        "undated": 0,
    }
    assert [e["item"] for e in out["errors"]] == [f"{site}/private/wreck.html"]
    assert "robots.txt" in out["errors"][0]["error"] and "summary" in out["errors"][0]["error"]

    docs = documents(schema)
    dredging = docs["Dredging contract signed"]
    assert dredging["date"] == "2024-04-12" and dredging["published"] == "2024-04-12T07:30:00Z"  # in UTC
    assert dredging["author"] == "Livia Marsh" and dredging["feed"] == "Portus Daily"
    assert dredging["id"] == f"{site}/rss.xml#portus-2024-0412"  # a bare guid is scoped by its feed
    assert dredging["uri"] == f"{site}/news/dredging.html" and dredging["tags"] == ["harbour"]
    assert "inner basin starts in May" in dredging["text"] and dredging["fullText"] is True  # content:encoded
    light = docs["Lighthouse lamp replaced"]
    assert "Aldo Venn" in light["text"] and "Home" not in light["text"]  # the article page, not the teaser
    assert light["id"] == f"{site}/news/lighthouse.html" and light["date"] == "2024-02-05"
    grain = docs["Grain ships delayed by storms"]
    assert grain["id"] == "tag:ostia.example,2024:grain" and grain["uri"] == f"{site}/notes/grain.html"
    assert grain["author"] == "Ostia Desk" and "rationed flour" in grain["text"] and grain["kind"] == "feed"
    wreck = docs["Old wreck found"]
    assert wreck["text"] == "Divers found a wreck near the mole." and wreck["fullText"] is False

    # a second run fetches no page of an unchanged entry and writes nothing; the wreck is tried again
    again = json.loads(run_cli(*args).stdout)
    assert again["documents"]["created"] == 0 and again["documents"]["updated"] == 0
    assert again["documents"]["unchanged"] == 4 and again["chunks"]["created"] == 0
    assert again["feeds"]["unchanged"] == 3 and again["feeds"]["pages_fetched"] == 0


def test_relative_dates_filter_feed_entries(schema, run_cli, site, monkeypatch):
    assert run_cli("load", "feed", f"{site}/rss.xml", f"{site}/atom.xml", "--delay", "0", "--no-embed").exit_code == 3
    monkeypatch.setenv("GRAPHRAG_TODAY", "2024-04-20")
    for question, titles in (
        (
            "What news of the harbour board, the lamp or the grain ships in the past 2 months?",
            {"Dredging contract signed", "Grain ships delayed by storms"},
        ),
        ("上個月 grain ships 和 lamp 怎麼了?", {"Grain ships delayed by storms"}),  # March 2024
    ):
        result = run_cli("ask", question, "--mode", "fulltext", "--no-llm", "--json")
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out["filters"]["time_expression"], out["filters"]
        assert {s["title"] for s in out["sources"]} == titles, (question, out["filters"], out["abstained"])
    # without a time in the question, every entry the words match
    out = json.loads(
        run_cli(
            "ask", "the harbour board, the lamp, the grain ships", "--mode", "fulltext", "--no-llm", "--json"
        ).stdout
    )
    assert "Lighthouse lamp replaced" in {s["title"] for s in out["sources"]}


def test_a_page_or_a_file_that_is_no_feed_is_one_error(schema, run_cli, site, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<html><body>not a feed</body></html>")
    result = run_cli("load", "feed", f"{site}/news/lighthouse.html", str(bad), str(tmp_path / "missing.xml"), "--json")
    assert result.exit_code == 3
    errors = {e["item"]: e["error"] for e in json.loads(result.stdout)["errors"]}
    assert "not a feed" in errors[f"{site}/news/lighthouse.html"]
    assert "feed" in errors[str(bad)] and "no such file" in errors[str(tmp_path / "missing.xml")]
