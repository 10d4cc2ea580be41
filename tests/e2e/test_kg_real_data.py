"""Knowledge graphs from the real data in ../shared/data: characters.json through the shipped
mapping, and the infobox extractor on the AWOIAF chapter export and the enwiki sample.
Each run twice: the second creates nothing."""

import json

import pytest

from .test_load_real_data import real

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]


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


def awoiaf_extracted(run_cli):
    assert run_cli("load", "mediawiki", str(real("got/awoiaf-chapters-export.xml")), "--no-embed").exit_code == 0
    return twice(run_cli, "extract", "--schema", "got", "--extractor", "infobox")


def test_awoiaf_relative_places_and_piped_pov_links(schema, run_cli):
    out = awoiaf_extracted(run_cli)
    assert out["edgesByType"]["POV_CHARACTER"] == 352
    places = {r["n"] for r in cypher(schema, "MATCH (l:Location) RETURN l.name AS n")}
    assert not [p for p in places if p.lower().startswith(("near ", "north of ", "outside ", "somewhere "))], places
    near = cypher(
        schema,
        "MATCH (c:Chapter {name: 'Tyrion II (The Winds of Winter)'})-[r:SET_IN]->(p) "
        "RETURN p.name AS p, p.type AS t, r.qualifier AS q, r.value AS v",
    )
    assert near == [{"p": "Meereen", "t": "Location", "q": "near", "v": "Near Meereen"}]
    qualified = cypher(schema, "MATCH ()-[r:SET_IN]->() WHERE r.qualifier IS NOT NULL RETURN count(r) AS n")[0]["n"]
    assert qualified >= 15
    # [[Jon Snow|Jon]]: one Jon Snow, also called Jon, the POV of all his 42 chapters
    jon = cypher(
        schema,
        "MATCH (j:Character {name: 'Jon Snow'}) RETURN j.aliases AS a, COUNT { (:Chapter)-[:POV_CHARACTER]->(j) } AS n",
    )
    assert jon == [{"a": ["Jon"], "n": 42}]
    assert not cypher(schema, "MATCH (e:Character) WHERE e.name IN ['Jon', 'Arya', 'Tyrion'] RETURN e")


def test_awoiaf_values_are_validated_in_batches(schema, run_cli):
    from ..llm_server import LLMServer

    awoiaf_extracted(run_cli)
    values = cypher(schema, "MATCH (e:__Entity__ {typedBy: 'relation', confidence: 'Low'}) RETURN count(e) AS n")
    assert values[0]["n"] > 100

    def confirm(body):
        items = json.loads(body["messages"][-1]["content"])
        return json.dumps(
            {
                "results": [
                    {"id": i["id"], "type": i["guessed_type"], "confidence": "Medium", "reason": "-"} for i in items
                ]
            }
        )

    server = LLMServer(reply=confirm)
    env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "confirming"}
    try:
        first = run_cli("extract", "--schema", "got", "--validate", "--batch-size", "50", "--json", env=env)
        second = run_cli("extract", "--schema", "got", "--validate", "--batch-size", "50", "--json", env=env)
    finally:
        server.close()
    v = json.loads(first.stdout)["validation"]
    assert v["candidates"].get("relation") == values[0]["n"] and v["confirmed"] == v["checked"]
    assert v["requests"] == len(server.requests) == -(-v["checked"] // 50)
    assert json.loads(second.stdout)["validation"]["checked"] == 0
    left = cypher(schema, "MATCH (e:__Entity__ {typedBy: 'relation'}) WHERE e.confidence = 'Low' RETURN count(e) AS n")
    assert left == [{"n": 0}]
    decided = cypher(
        schema,
        "MATCH (e:__Entity__ {typedBy: 'relation'}) RETURN DISTINCT e.confidence AS c, e.heuristicConfidence AS h, "
        "e.confidenceBy AS by",
    )
    assert decided == [{"c": "Medium", "h": "Low", "by": "llm:confirming"}]
