"""Knowledge graphs from the real data in ../shared/data: characters.json through the shipped
mapping, and the infobox extractor on the AWOIAF chapter export and the enwiki sample.
Each run twice: the second creates nothing."""

import json

import pytest

from .test_load_real_data import real

pytestmark = pytest.mark.e2e


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def twice(run_cli, *args):
    first = run_cli(*args, "--json")
    assert first.exit_code == 0, first.output
    second = run_cli(*args, "--json")
    out1, out2 = json.loads(first.stdout), json.loads(second.stdout)
    assert out2["written"] == {"nodesCreated": 0, "relationshipsCreated": 0, "labelsAdded": 0}
    return out1


def test_characters_json_with_the_shipped_mapping(schema, run_cli):
    out = twice(run_cli, "load", "records", str(real("got/characters.json")), "--mapping", "got-characters")
    assert out["records"] == 389 and out["nodesByType"]["Character"] > 350
    for rel in ("CHILD_OF", "PARENT_OF", "SIBLING_OF", "MARRIED_TO", "BELONGS_TO", "KILLED_BY", "PLAYED_BY"):
        assert out["edgesByType"][rel] > 10, rel
    assert out["edgesSkippedBySchema"] >= 1  # killed by "Old Age" / "Roof collapse": not a Character
    parents = cypher(schema, "MATCH (:Character {id: 'got:jon snow'})-[:CHILD_OF]->(p) RETURN p.name AS n")
    assert {r["n"] for r in parents} == {"Rhaegar Targaryen", "Lyanna Stark"}
    assert cypher(schema, "MATCH (:Character {id: 'got:jon snow'})-[:BELONGS_TO]->(h:House) RETURN h.name AS n")


def test_awoiaf_chapters_are_typed_and_linked_to_their_pov(schema, run_cli):
    assert run_cli("load", "mediawiki", str(real("got/awoiaf-chapters-export.xml")), "--no-embed").exit_code == 0
    out = twice(run_cli, "extract", "--schema", "got", "--extractor", "infobox")
    # 352 chapters with infoboxes, and the two portal pages without one ("Chapters", typed Lore by title)
    assert out["pages"] == 354 and out["nodesByType"]["Chapter"] == 352
    assert out["edgesByType"]["POV_CHARACTER"] == 352 and out["confidence"] == {"High": 354}
    rows = cypher(
        schema,
        "MATCH (c:Chapter {name: 'A Game of Thrones-Chapter 61'})-[:POV_CHARACTER]->(p:Character) RETURN p.name AS pov",
    )
    assert rows == [{"pov": "Daenerys Targaryen"}]


def test_enwiki_infobox_articles_with_the_generic_schema(schema, run_cli):
    assert run_cli("load", "mediawiki", str(real("wiki/enwiki-sample-pages-articles.xml")), "--no-embed").exit_code == 0
    out = twice(run_cli, "extract", "--schema", "generic", "--extractor", "infobox")
    assert out["pages"] == 106  # 45 articles with an infobox, 61 typed by title, categories and first sentence
    typed = cypher(
        schema,
        "MATCH (:WikiPage)-[:DESCRIBES]->(e:__Entity__) RETURN e.name AS n, e.type AS t, e.confidence AS c, "
        "e.typedBy AS by, e.reason AS r",
    )
    by_name = {r["n"]: r["t"] for r in typed}
    assert len(typed) == 106 and all(r["c"] in {"High", "Medium", "Low"} and r["r"] for r in typed)
    assert sum(r["by"] == "page" for r in typed) == 61
    assert by_name["Achilles"] == "Person" and by_name["An American in Paris"] == "Work"
    assert by_name["Atlantic Ocean"] == "Place" and by_name["Anarchism"] == "Concept"
    assert by_name["Abraham Lincoln"] == "Person" and by_name["Algeria"] == "Place"
    assert by_name["American Revolutionary War"] == "Event" and by_name["Animal Farm"] == "Work"
    assert by_name["American National Standards Institute"] == "Organization"
