"""`link places` decides one place per mention: longest match, not-a-place contexts, italic
titles from the XHTML markup, exonyms and modern countries and continents; both engines
agree and a second run writes nothing."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers" / "contexts"


def run_json(run_cli, *args):
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def edges(neo4j):
    with neo4j.driver() as driver:
        records = driver.execute_query(
            "MATCH (:Chunk)-[m:MENTIONS]->(p:Place) RETURN p.id AS place, m {.*, at: null} AS m"
        ).records
    return {r["place"]: r["m"] for r in records}


@pytest.fixture
def loaded(schema, run_cli):
    run_json(run_cli, "load", "pleiades", str(FIXTURES / "pleiades.geojsonl"))
    out = run_json(run_cli, "load", "geonames", "--countries-only")
    assert out["places"]["created"] == 259, "countries and the seven continents"
    run_json(run_cli, "load", "files", str(FIXTURES / "article"), "--no-embed")
    return schema


def test_one_place_per_mention_in_context(loaded, run_cli):
    out = run_json(run_cli, "link", "places")
    got = edges(loaded)
    assert {place: (m["matched"], m["rule"]) for place, m in got.items()} == {
        "pleiades:727070": (
            ["Alexandria"],
            "document-sense",
        ),  # as the harbour of Alexandria; "Heron of Alexandria" is a person
        "pleiades:981503": (["Egypt"], "exonym"),  # Egypt → Ancient Egypt, not the modern country
        "geonames:357994": (["Egypt"], "modern-name"),  # "modern Egypt"
        "pleiades:736963": (["Memphis"], "exonym"),
        "pleiades:786017": (["Thebes"], "context-nearest"),  # Egyptian Thebes, near Memphis
        "pleiades:785986": (["Berenike"], "unique-name"),  # "the port of Berenike"; "Queen Berenice" is not
        "pleiades:837": (["Asia Minor"], "unique-name"),  # not "Asia" inside it
        "geonames:6255148": (["Europe"], "modern-name"),  # the continent, not a Barrington Atlas label
        "geonames:390903": (["Greece"], "unique-name"),
    }
    assert out["not_a_place"] == {"institution": 1, "person-epithet": 1, "person-name": 1, "siglum": 1, "title": 1}
    assert out["chunks_skipped"] == 1, "the 'Bibliography.' section"
    assert out["overlapped"] == 1 and out["linked"] == sum(m["mentions"] for m in got.values())
    alexandria = got["pleiades:727070"]
    assert alexandria["candidates"] == ["pleiades:727070", "pleiades:29457"] and alexandria["mentions"] == 2
    assert 0.5 <= alexandria["confidence"] <= 1 and got["pleiades:786017"]["candidates"][1] == "pleiades:541138"

    again = run_json(run_cli, "link", "places")
    assert again["mentions_created"] == again["mentions_updated"] == again["mentions_removed"] == 0

    ref = run_json(run_cli, "link", "places", "--engine", "cypher")
    assert ref["mentions_updated"] == len(got) and ref["mentions_created"] == ref["mentions_removed"] == 0
    assert {p: {k: v for k, v in m.items() if k != "source"} for p, m in edges(loaded).items()} == {
        p: {k: v for k, v in m.items() if k != "source"} for p, m in got.items()
    }, "the reference decides alike"

    strict = run_json(run_cli, "link", "places", "--min-confidence", "0.95", "--dry-run")
    assert strict["mentions"] < len(got) and strict["undecided"] > 0
