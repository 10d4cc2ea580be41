"""`graphrag load pleiades` and `graphrag link places` on fixtures and on the real data:
both engines give the same links, a second run creates nothing, the precision rules hold."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"
DATA = Path(os.environ.get("GRAPHRAG_DATA_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "data")


def run_json(run_cli, *args):
    result = run_cli(*args, "--json")
    return result.exit_code, json.loads(result.stdout)


def query(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text, params).records]


def links(neo4j):
    return {
        (r["doc"], r["chunk"], r["place"], tuple(r["matched"]), r["rule"], r["confidence"], tuple(r["candidates"]))
        for r in query(
            neo4j,
            "MATCH (c:Chunk)-[m:MENTIONS]->(p:Place), (c)-[:FROM_DOCUMENT]->(d) "
            "RETURN d.title AS doc, c.id AS chunk, p.pleiadesId AS place, m.matched AS matched, m.rule AS rule, "
            "m.confidence AS confidence, m.candidates AS candidates",
        )
    }


def delete_links(neo4j):
    query(neo4j, "MATCH (:Chunk)-[m:MENTIONS]->(:Place) DELETE m")


@pytest.fixture
def loaded(schema, run_cli):
    code, out = run_json(run_cli, "load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl"))
    assert code == 3 and out["places"] == {"created": 12, "updated": 0, "unchanged": 0, "failed": 1}
    assert "pleiades-sample.geojsonl:14" in out["errors"][0]["item"]
    result = run_cli("load", "files", str(FIXTURES / "articles"), "--no-embed", "--json")
    assert result.exit_code == 0, result.output
    return schema


def test_load_pleiades_twice_changes_nothing(loaded, run_cli):
    code, out = run_json(run_cli, "load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl"))
    assert out["places"]["created"] == 0 and out["places"]["unchanged"] == 12
    [babylon] = query(loaded, "MATCH (p:Place:__Entity__ {pleiadesId: '893951'}) RETURN p {.*} AS p")
    p = babylon["p"]
    assert p["id"] == "pleiades:893951" and p["name"] == "Babylon" and p["normName"] == "babylon"
    assert p["uri"] == "https://pleiades.stoa.org/places/893951" and p["source"] == "pleiades"
    assert p["names"] == ["Babylon", "Bābil"] and abs(p["lat"] - 32.542272) < 1e-9


def test_fast_engine_links_with_provenance_and_precision(loaded, run_cli):
    code, out = run_json(run_cli, "link", "places")
    assert code == 0, out
    assert {
        "engine",
        "names",
        "chunks_scanned",
        "mentions_created",
        "mentions_total",
        "undecided",
        "not_a_place",
        "overlapped",
        "rules",
    } <= set(out)
    assert out["engine"] == "fast" and out["chunks_skipped"] == 1, "the bibliography section is not scanned"
    assert out["stoplisted"] == 3, "This (Lucene stop word), Well and London (stop-list)"
    assert out["too_short"] == 1, "Ur"
    got = {(doc, place, matched, rule) for doc, _, place, matched, rule, *_ in links(loaded)}
    assert got == {
        ("Cities of Mesopotamia", "893951", ("Babylon", "Bābil"), "context-nearest"),
        ("Cities of Mesopotamia", "912986", ("Uruk", "Warka"), "unique-name"),
        ("Cities of Mesopotamia", "727070", ("Alexandría",), "record"),
        ("Cities of Mesopotamia", "599588", ("Délos",), "unique-name"),
        ("Roman Egypt", "736963", ("Memphis",), "exonym"),  # the list gives Memphis its primary record
        ("Roman Egypt", "727082", ("Babylon",), "context-nearest"),
        ("Roman Egypt", "727070", ("Alexandria",), "context-nearest"),
        ("Roman Egypt", "648710", ("Meydancıkkale",), "unique-name"),
    }, "one place per mention: the described Alexandria, not both candidates"
    assert out["mentions_created"] == out["mentions_total"] == 8 and out["undecided"] == 0
    edge = query(
        loaded,
        "MATCH (c:Chunk)-[m:MENTIONS]->(:Place {pleiadesId: '727070'}), (c)-[:FROM_DOCUMENT]->(d) "
        "WHERE d.title = 'Cities of Mesopotamia' RETURN m {.*} AS m",
    )[0]["m"]
    assert edge["source"] == "aho-corasick" and edge["linker"] == "places"
    assert edge["candidates"] == ["pleiades:727070", "pleiades:501338"] and 0.5 <= edge["confidence"] < 1
    assert edge["at"] is not None and edge["keys"] == ["alexandria"]
    per_mention = query(
        loaded,
        "MATCH (c:Chunk)-[m:MENTIONS]->(:Place) UNWIND m.keys AS key "
        "WITH c, key, count(m) AS edges WHERE edges > 1 RETURN count(*) AS n",
    )
    assert per_mention[0]["n"] == 0, "no mention has more than one edge"

    code, strict = run_json(run_cli, "link", "places", "--min-confidence", "0.99", "--dry-run")
    assert strict["mentions"] < 8 and strict["undecided"] > 0, "unsure decisions link nothing and are counted"

    code, again = run_json(run_cli, "link", "places")
    assert again["mentions_created"] == again["mentions_removed"] == 0 and again["mentions_total"] == 8
    assert again["mentions_updated"] == 0, "a second run writes nothing"


def test_both_engines_give_the_same_links(loaded, run_cli):
    run_json(run_cli, "link", "places", "--engine", "fast")
    fast = links(loaded)
    delete_links(loaded)
    code, out = run_json(run_cli, "link", "places", "--engine", "cypher")
    assert code == 0 and out["engine"] == "cypher" and out["mentions_created"] == 8
    assert links(loaded) == fast
    edge = query(loaded, "MATCH (:Chunk)-[m:MENTIONS]->(:Place) RETURN DISTINCT m.source AS s")
    assert edge == [{"s": "fulltext+regex"}]
    code, again = run_json(run_cli, "link", "places", "--engine", "cypher", "--names-per-query", "50")
    assert again["mentions_created"] == 0 and links(loaded) == fast


def comparable(out):
    """A run's --json counts, less what differs by engine (its name, timings, the name cache)."""
    return {k: v for k, v in out.items() if k not in ("engine", "seconds", "names_cached")}


def test_procedure_engine_gives_the_fast_engine_links(loaded, run_cli):
    for flags in ((), ("--keep-bibliographies", "--any-case", "--no-default-stoplist"), ("--min-confidence", "0.9")):
        delete_links(loaded)
        code, first = run_json(run_cli, "link", "places", "--engine", "fast", *flags)
        fast = links(loaded)
        delete_links(loaded)
        code, out = run_json(run_cli, "link", "places", "--engine", "procedure", *flags)
        assert code == 0 and out["engine"] == "procedure" and out["mentions_created"] == len(fast) > 0
        assert links(loaded) == fast, flags
        assert comparable(out) == comparable(first), "the same counts: matches, contexts, rules, undecided"
    edge = query(loaded, "MATCH (:Chunk)-[m:MENTIONS]->(:Place) RETURN DISTINCT m.source AS s")
    assert edge == [{"s": "aho-corasick-in-neo4j"}]
    code, again = run_json(run_cli, "link", "places", "--engine", "procedure", *flags)
    assert again["mentions_created"] == again["mentions_updated"] == again["mentions_removed"] == 0


def test_dry_run_writes_nothing_and_options_change_the_rules(loaded, run_cli, tmp_path):
    code, out = run_json(run_cli, "link", "places", "--dry-run")
    assert out["mentions"] == 8 and out["mentions_created"] == 0 and out["mentions_total"] == 0
    stop = tmp_path / "stop.txt"
    stop.write_text("Uruk\nWarka\n", encoding="utf-8")
    run_json(run_cli, "link", "places")
    code, out = run_json(run_cli, "link", "places", "--stoplist", str(stop))
    assert out["mentions_removed"] == 1 and out["mentions_total"] == 7, "a newly stop-listed place loses its links"
    code, out = run_json(run_cli, "link", "places", "--keep-bibliographies", "--any-case", "--no-default-stoplist")
    places = {p for _, _, p, *_ in links(loaded)}
    assert {"912986", "79574", "123456"} <= places, "Uruk back, London and 'well' linked without the rules"


def test_link_places_without_places_is_one_line(schema, run_cli):
    result = run_cli("link", "places")
    assert result.exit_code == 1 and "load a gazetteer first" in result.output and "Traceback" not in result.output


def test_load_geonames(schema, run_cli):
    code, out = run_json(run_cli, "load", "geonames", "--min-population", "5000000")
    assert code == 0 and out["places"]["created"] > 200 and out["places"]["failed"] == 0
    code, again = run_json(run_cli, "load", "geonames", "--min-population", "5000000")
    assert again["places"]["created"] == 0 and again["places"]["unchanged"] == out["places"]["created"]
    [row] = query(schema, "MATCH (p:Place {source: 'geonames', title: 'Cairo'}) RETURN p.id AS id, p.geonameId AS g")
    assert row["id"] == f"geonames:{row['g']}"


@pytest.mark.real_data
@pytest.mark.scale
def test_real_data_fast_twice_parity_and_babylon(schema, run_cli):
    pleiades, isaw = DATA / "pleiades" / "pleiades-places.geojsonl.gz", DATA / "isaw-papers"
    if not pleiades.exists() or not isaw.exists():
        pytest.skip(f"real data not available: {DATA} (set GRAPHRAG_DATA_DIR to the shared data folder)")
    code, out = run_json(run_cli, "load", "pleiades", str(pleiades))
    assert code == 0 and out["places"]["created"] == 41157, "41,158 lines less Pleiades' 404 placeholder"
    assert run_cli("load", "files", str(isaw), "--ext", ".xhtml", "--no-embed", "--corpus", "isaw").exit_code == 0

    assert run_json(run_cli, "load", "geonames", "--countries-only")[0] == 0

    code, first = run_json(run_cli, "link", "places")
    assert code == 0 and first["mentions_created"] > 2000 and first["chunks_scanned"] > 3000
    assert first["undecided"] > 0 and first["not_a_place"]["person-epithet"] > 0 and first["overlapped"] > 0
    [row] = query(
        schema,
        "MATCH (:Chunk)-[m:MENTIONS]->(:Place) RETURN sum(m.mentions) AS linked, "
        "count(m) AS edges, sum(size(m.candidates)) >= count(m) AS listed",
    )
    assert row["linked"] == first["linked"] and row["edges"] == first["mentions_created"] and row["listed"]
    code, second = run_json(run_cli, "link", "places")
    assert second["mentions_created"] == second["mentions_removed"] == 0
    assert second["mentions_total"] == first["mentions_total"]
    babylon = query(
        schema,
        "MATCH (d:Document)<-[:FROM_DOCUMENT]-(:Chunk)-[:MENTIONS]->(p:Place {pleiadesId: '893951'}) "
        "RETURN count(DISTINCT d) AS docs",
    )
    assert babylon[0]["docs"] >= 1, "an ISAW article on Babylon links Pleiades 893951"
    bad = query(
        schema,
        "MATCH (:Chunk)-[m:MENTIONS]->(:Place) WHERE any(s IN m.matched WHERE toLower(s) IN "
        "['this', 'are', 'well', 'same', 'london', 'paris', 'york', 'van', 'die', 'coin', 'school', "
        "'cleopatra', 'isis', 'hermes', 'saros', 'taurus']) RETURN count(m) AS n",
    )
    assert bad[0]["n"] == 0

    fast = links(schema)
    delete_links(schema)
    code, ref = run_json(run_cli, "link", "places", "--engine", "cypher", "--names-per-query", "200")
    assert code == 0 and ref["mentions_created"] == len(fast)
    assert links(schema) == fast, "the reference engine makes exactly the fast engine's links"
    delete_links(schema)
    code, proc = run_json(run_cli, "link", "places", "--engine", "procedure")
    assert code == 0 and proc["mentions_created"] == len(fast)
    assert links(schema) == fast, "the in-database engine makes exactly the fast engine's links"
    assert comparable(proc) == comparable(first), "and counts the same matches, contexts, rules and undecided"
    code, again = run_json(run_cli, "link", "places", "--engine", "procedure")
    assert again["mentions_created"] == again["mentions_updated"] == again["mentions_removed"] == 0

    code, report = run_json(run_cli, "sanity", "--corpus", "isaw")
    assert code == 0 and report["ok"] and len(report["coverage"]["documents"]) == 77
    assert report["coverage"]["summary"]["documents_with_places"] >= 60
