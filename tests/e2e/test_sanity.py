"""`graphrag sanity`: counts, coverage, alignment, orphans, duplicates; exit 1 on a violation."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"


def query(neo4j, text):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text).records]


@pytest.fixture
def linked(schema, run_cli):
    run_cli("load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl"))
    assert run_cli("load", "files", str(FIXTURES / "articles"), "--no-embed").exit_code == 0
    assert run_cli("link", "places").exit_code == 0
    return schema


def test_reports_coverage_and_passes(linked, run_cli):
    result = run_cli("sanity", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["violations"] == []
    assert report["labels"]["Place"] == 12 and report["labels"]["Chunk"] >= 3
    assert report["relationships"]["MENTIONS"] == 8  # one place per mention: Alexandría links one of its two
    docs = {d["title"]: d for d in report["coverage"]["documents"]}
    assert docs["Roman Egypt"]["places"] == 4 and docs["Roman Egypt"]["links"] == 4
    assert docs["Cities of Mesopotamia"]["chunksWithPlaces"] == 2
    assert report["wikidata"] == {"pleiadesPlaces": 12, "alignedPlaces": 0, "wikidataEntities": 0, "sameAs": 0}
    assert report["duplicates"]["sharedNames"] == 1 and report["duplicates"]["duplicateMentions"] == 0
    human = run_cli("sanity")
    assert human.exit_code == 0 and "Coverage" in human.output and "ok" in human.output


def test_orphans_and_duplicates_fail(linked, run_cli):
    query(linked, "CREATE (:Chunk {id: 'orphan', text: 'Babylon'})")
    query(linked, "MATCH (c:Chunk)-[m:MENTIONS]->(p:Place {pleiadesId: '736963'}) CREATE (c)-[:MENTIONS]->(p)")
    result = run_cli("sanity", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert not report["ok"] and report["orphans"]["chunksWithoutDocument"] == 1
    assert report["duplicates"]["duplicateMentions"] == 1
    assert "chunksWithoutDocument: 1" in report["violations"]
