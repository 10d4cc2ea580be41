"""`graphrag load mediawiki-api` against a real MediaWiki (Debian's packages, SQLite, PHP's
built-in server): the same documents as the XML loader, a stopped run resumes, an edited page
is the only one fetched again, and a throttling proxy (429, maxlag) is waited out."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ..mediawiki_server import MediaWiki, ThrottlingProxy, missing

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]  # the session's wikis hold the AWOIAF export

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
AWOIAF = DATA / "got" / "awoiaf-chapters-export.xml"

BEASTS = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
  <siteinfo><sitename>Beasts</sitename><dbname>beastswiki</dbname>
    <base>https://beasts.example.org/wiki/Main_Page</base><generator>MediaWiki 1.39.0</generator>
    <case>first-letter</case>
    <namespaces><namespace key="0" case="first-letter" /><namespace key="14" case="first-letter">Category</namespace>
    </namespaces></siteinfo>
{pages}
</mediawiki>
"""
PAGE = """  <page><title>{title}</title><ns>{ns}</ns><id>{id}</id>{redirect}
    <revision><id>{rev}</id><timestamp>2024-01-0{day}T00:00:00Z</timestamp><contributor><username>Keeper</username><id>1</id></contributor>
      <model>wikitext</model><format>text/x-wiki</format><text xml:space="preserve">{text}</text></revision></page>"""
PAGES = [
    (
        "Ashfang",
        0,
        "{{Infobox creature\n| owner = [[Edric Varn]]\n}}\n'''Ashfang''' is a grey wolf. [[Category:Wolves]]",
    ),
    ("Smoke", 0, "'''Smoke''' was the old wolf of the Greymoor, sire of [[Ashfang]].\n== Legends ==\nHe ran."),
    ("House Varn", 0, "'''House Varn''' is a noble house of the Northmarch. [[Category:Houses]]"),
    ("The Greymoor", 0, "The '''Greymoor''' is a range of hills.\n\n== History ==\nOld."),
    ("Grey wolf", 0, "#REDIRECT [[Ashfang]]"),
    ("Wolves", 14, "Wolves of the Northmarch."),
]


def beasts_xml() -> str:
    pages = []
    for i, (title, ns, text) in enumerate(PAGES, start=1):
        redirect = '<redirect title="Ashfang" />' if text.startswith("#REDIRECT") else ""
        if ns == 14:
            title = f"Category:{title}"
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        pages.append(PAGE.format(title=title, ns=ns, id=i, rev=100 + i, day=i, redirect=redirect, text=escaped))
    return BEASTS.format(pages="\n".join(pages))


@pytest.fixture(scope="session")
def wikis(tmp_path_factory):
    """Two real wikis for the session: the AWOIAF chapters export and a small one of our own."""
    why = missing()
    if why:
        pytest.skip(why)
    if not AWOIAF.is_file():
        pytest.skip(f"real data not found: {AWOIAF}")
    root = tmp_path_factory.mktemp("mediawiki")
    awoiaf = MediaWiki(root / "westeros", "westeros", "A Wiki of Ice and Fire").install()
    awoiaf.import_seconds = awoiaf.import_xml(AWOIAF, updates=False)
    beasts = MediaWiki(root / "beasts", "beastswiki", "Beasts").install()
    (root / "beasts.xml").write_text(beasts_xml(), encoding="utf-8")
    beasts.import_xml(root / "beasts.xml")
    beasts.xml = root / "beasts.xml"
    try:
        yield awoiaf.serve(), beasts.serve()
    finally:
        awoiaf.close()
        beasts.close()


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def load_api(run_cli, url, *args, code=0):
    result = run_cli("load", "mediawiki-api", url, "--no-embed", "--delay", "0", "--json", *args)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


DOCS = (
    "MATCH (d:Document:WikiPage) RETURN d.id AS id, d.title AS title, d.infoboxType AS infobox, "
    "d.categories AS categories, d.aliases AS aliases, d.date AS date, "
    "[(c:Chunk)-[:FROM_DOCUMENT]->(d) | [c.index, c.text]] AS chunks ORDER BY id"
)


def snapshot(neo4j):
    return {r["id"]: {**r, "chunks": sorted(r["chunks"])} for r in cypher(neo4j, DOCS)}


def test_api_load_makes_the_documents_the_xml_loader_makes(wikis, schema, run_cli):
    awoiaf, _ = wikis
    assert awoiaf.import_seconds < 60, f"importDump took {awoiaf.import_seconds:.0f} s"
    assert run_cli("load", "mediawiki", str(AWOIAF), "--no-embed").exit_code == 0
    from_xml = snapshot(schema)
    out = load_api(run_cli, awoiaf.url)
    from_api = snapshot(schema)
    # the same nodes (same ids), the same text and chunks; only the wiki's own page and revision
    # ids differ (importDump numbers them afresh), and the new wiki's Main Page is new
    assert set(from_api) - set(from_xml) == {"wiki:westeros:Main Page"}
    assert len(from_xml) == 354 and all(from_api[k] == v for k, v in from_xml.items())
    assert out["documents"]["created"] == 1 and out["documents"]["updated"] == 354
    assert out["api"]["pagesFetched"] == 355 and out["api"]["requests"] <= 12
    again = load_api(run_cli, awoiaf.url)
    assert again["api"]["pagesFetched"] == 0 and again["documents"]["unchanged"] == 355
    assert again["api"]["requests"] == 2  # siteinfo and one listing batch


def test_a_stopped_run_resumes_where_it_stopped(wikis, schema, run_cli):
    awoiaf, _ = wikis
    # siteinfo, a listing of 100 pages and their content (2 requests), the next listing: then the wiki is gone
    proxy = ThrottlingProxy(awoiaf.url, fail_after=5)
    try:
        result = run_cli(
            "load", "mediawiki-api", proxy.url, "--no-embed", "--delay", "0", "--batch", "100", "--retries", "0"
        )
        assert result.exit_code == 1 and "HTTP 503" in result.output
        check_resume(schema, run_cli, proxy)
    finally:
        proxy.close()


def check_resume(schema, run_cli, proxy):
    stored = cypher(schema, "MATCH (d:WikiPage) RETURN count(d) AS n")[0]["n"]
    assert 0 < stored < 355
    sync = cypher(schema, "MATCH (s:__WikiSync) RETURN s.continue AS c, s.pagesListed AS n")
    assert len(sync) == 1 and json.loads(sync[0]["c"])["gapcontinue"] and sync[0]["n"] == stored
    # the wiki is back: the next run lists and fetches only what the stopped one had not stored
    proxy.fail_after = None
    out = load_api(run_cli, proxy.url, "--batch", "100")
    assert out["api"]["resumed"] is True and out["api"]["pagesFetched"] == 355 - stored
    assert out["documents"]["created"] == 355 - stored
    assert cypher(schema, "MATCH (d:WikiPage) RETURN count(d) AS n")[0]["n"] == 355
    assert cypher(schema, "MATCH (s:__WikiSync) RETURN s.continue AS c, s.finishedAt AS f")[0]["c"] is None


def test_an_edited_page_is_the_only_one_fetched_again(wikis, schema, run_cli):
    _, beasts = wikis
    first = load_api(run_cli, beasts.url)
    assert first["documents"]["created"] == 5  # four pages and the Main Page; not the redirect, not the category
    rows = {r["title"]: r for r in cypher(schema, DOCS)}
    assert rows["Ashfang"]["aliases"] == ["Grey wolf"] and rows["Ashfang"]["categories"] == ["Wolves"]
    assert rows["Ashfang"]["infobox"] == "Infobox creature"
    beasts.edit("Smoke", "'''Smoke''' was the old wolf of the Greymoor, who howled at the red comet.")
    out = load_api(run_cli, beasts.url)
    assert out["api"]["pagesFetched"] == 1 and out["documents"]["updated"] == 1
    assert out["documents"]["unchanged"] == 4
    text = cypher(schema, "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {title: 'Smoke'}) RETURN c.text AS t")
    assert "red comet" in text[0]["t"]
    # and the XML export of the same wiki loads onto the same nodes
    result = run_cli("load", "mediawiki", str(beasts.xml), "--no-embed", "--json")
    assert json.loads(result.stdout)["documents"]["created"] == 0


def test_a_throttling_wiki_is_waited_out_not_hammered(wikis, schema, run_cli):
    _, beasts = wikis
    proxy = ThrottlingProxy(beasts.url, script=["429", "maxlag", "503"])
    try:
        started = time.monotonic()
        out = load_api(run_cli, proxy.url, "--site", "beastswiki", "--title", "Ashfang")
        took = time.monotonic() - started
    finally:
        proxy.close()
    answers = [a for _, a, _ in proxy.log]
    assert answers[:4] == ["429", "maxlag", "503", "ok"] and len(answers) == 6  # + listing and content
    gaps = [b[0] - a[0] for a, b in zip(proxy.log, proxy.log[1:4], strict=False)]
    assert all(gap >= 0.95 for gap in gaps), f"retried after {gaps} s, not after the Retry-After of 1 s"
    assert "maxlag=5" in proxy.log[0][2] and took >= 3
    assert out["api"]["retries"] == 3 and out["api"]["waitedSeconds"] >= 3
    assert out["documents"]["created"] == 1
