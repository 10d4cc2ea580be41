"""Knowledge-graph extraction on the bundled sample: infobox heuristics, the LLM extractor
against a real local OpenAI-compatible server (429, a malformed reply, an interruption),
hostile LLM output, and fuzzy resolution."""

import json

import pytest

from ..kg_llm_replies import TaleReplies
from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e


@pytest.fixture
def sample(schema, run_cli):
    result = run_cli("load", "sample", "--no-embed")
    assert result.exit_code == 0, result.output
    return schema


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def extract_json(run_cli, *args, env=None, code=0):
    result = run_cli("extract", *args, "--json", env=env)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_infobox_extraction_types_pages_and_respects_the_schema(sample, run_cli):
    out = extract_json(run_cli, "--schema", "got", "--extractor", "infobox")
    assert out["nodesByType"]["Character"] >= 4 and out["nodesByType"]["House"] == 2
    assert out["skipped"]["schema: CHILD_OF not allowed from Object to Character"] == 1  # the sword's "father"
    assert out["edgesSkippedBySchema"] == 1 and out["edgesBuilt"] > 20
    rows = cypher(
        sample,
        "MATCH (e:Character {id: 'got:edric varn'}) RETURN e.confidence AS c, e.typeScores AS s, "
        "e.reason AS r, [(e)-[:CHILD_OF]->(p) | p.name] AS parents, "
        "[(d:WikiPage)-[:DESCRIBES]->(e) | d.title] AS pages, COUNT { (:Chunk)-[:MENTIONS]->(e) } AS m",
    )
    assert rows[0]["c"] == "High" and json.loads(rows[0]["s"])["Character"] > 5 and "template" in rows[0]["r"]
    assert (
        sorted(rows[0]["parents"]) == ["Hild Moray", "Osgar Varn"]
        and rows[0]["pages"] == ["Edric Varn"]
        and rows[0]["m"] >= 1
    )
    assert cypher(sample, "MATCH (:Object {id: 'got:dawnfang'})-[r:CHILD_OF]->() RETURN r") == []
    again = extract_json(run_cli, "--schema", "got", "--extractor", "infobox")
    assert again["written"] == {"nodesCreated": 0, "relationshipsCreated": 0, "labelsAdded": 0}


def llm_env(server):
    return {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "recorded-tales"}


def test_llm_extraction_end_to_end_with_429_malformed_reply_and_resume(sample, run_cli):
    replies = TaleReplies(broken={"T4"})
    server = LLMServer(reply=replies, fail_first=1)  # the first request gets a 429
    try:
        out = extract_json(run_cli, "--schema", "folktale", "--extractor", "llm", env=llm_env(server), code=3)
        assert out["stories"]["extracted"] == 5 and out["stories"]["failed"] == 1 and out["stories"]["repaired"] == 1
        assert out["errors"][0]["story"] == "story:sample:T4"
        assert out["entitiesRejected"] == 2 and out["relationsRejected"] == 3
        assert server.requests[0]["body"]["response_format"]["type"] == "json_schema"
        # interrupted (T4 failed): --resume asks only for what is missing
        replies.broken.clear()
        replies.asked.clear()
        out = extract_json(run_cli, "--schema", "folktale", "--extractor", "llm", "--resume", env=llm_env(server))
        assert replies.asked == ["T4"] and out["stories"] == {
            "extracted": 1,
            "skipped": 5,
            "failed": 0,
            "repaired": 0,
            "total": 6,
        }
        replies.asked.clear()
        out = extract_json(run_cli, "--schema", "folktale", "--extractor", "llm", "--resume", env=llm_env(server))
        assert replies.asked == [] and out["stories"]["skipped"] == 6
    finally:
        server.close()
    rows = cypher(
        sample,
        "MATCH (e:__Entity__ {id: 'T2::E3'}) RETURN e.name AS name, e.documentId AS doc, "
        "labels(e) AS labels, [(e)-[:INSTANCE_OF]->(c {canonical: true}) | c.id] AS canon, "
        "[(c:Chunk)-[:MENTIONS]->(e) | c.id] AS chunks, COUNT { (e)-[:FROM_CHUNK]->(:Chunk) } AS fc",
    )
    assert rows[0]["name"] == "Old Maren" and rows[0]["doc"] == "story:sample:T2"
    assert "CHARACTER" in rows[0]["labels"] and rows[0]["canon"] == ["folktale:old maren"]
    assert rows[0]["chunks"] and rows[0]["fc"] == len(rows[0]["chunks"])
    # the lantern of T2 and of T5 are one canonical entity
    lanterns = cypher(
        sample, "MATCH (s)-[:INSTANCE_OF]->(:__Entity__ {id: 'folktale:silver lantern'}) RETURN s.id AS id"
    )
    assert {r["id"] for r in lanterns} == {"T2::E4", "T5::E2"}
    assert (
        cypher(sample, "MATCH ()-[r:MARRIES]->() RETURN r") == [] and cypher(sample, "MATCH (n:PERSON) RETURN n") == []
    )


def test_a_partial_run_resumes_where_it_stopped(sample, run_cli):
    replies = TaleReplies()
    server = LLMServer(reply=replies)
    try:
        out = extract_json(run_cli, "--extractor", "llm", "--limit", "2", env=llm_env(server))
        assert out["stories"]["extracted"] == 2
        first = list(replies.asked)
        replies.asked.clear()
        out = extract_json(run_cli, "--extractor", "llm", "--resume", env=llm_env(server))
        assert out["stories"]["extracted"] == 4 and not set(first) & set(replies.asked)
    finally:
        server.close()


HOSTILE = "Eve`}) DETACH DELETE n //\" ' MATCH (m) SET m:Owned RETURN m; " + "x" * 10_000


def test_hostile_llm_output_is_stored_as_data_and_changes_nothing_else(sample, run_cli):
    reply = json.dumps(
        {
            "entities": [
                {
                    "id": "E1",
                    "type": "CHARACTER",
                    "name": HOSTILE,
                    "original_name": "`backtick`",
                    "description": HOSTILE,
                },
                {"id": "E2", "type": "CHARACTER`) DETACH DELETE n //", "name": "Mallory", "description": "bad type"},
                {
                    "id": "E3 }) MATCH (n) DETACH DELETE n //",
                    "type": "CREATURE",
                    "name": "Trudy",
                    "description": "bad id",
                },
                {"id": "E4", "type": "CREATURE", "name": "Trent", "description": "'; CALL dbms.killQueries([]) //"},
            ],
            "relations": [
                {"source": "E1", "target": "E4", "type": "FIGHTS]->(x) DETACH DELETE x //", "description": "bad type"},
                {"source": "E1", "target": "E4", "type": "FIGHTS", "description": HOSTILE},
            ],
        }
    )
    labels_before = {r["l"] for r in cypher(sample, "CALL db.labels() YIELD label RETURN label AS l")}
    types_before = {
        r["t"]
        for r in cypher(sample, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType AS t")
    }
    docs_before = cypher(sample, "MATCH (d:Document) RETURN count(d) AS n")[0]["n"]
    server = LLMServer(reply=reply)
    try:
        out = extract_json(run_cli, "--extractor", "llm", env=llm_env(server))
    finally:
        server.close()
    assert out["skipped"]["entity type not in schema"] == 6 and out["skipped"]["entity id malformed"] == 6
    assert out["skipped"]["relation type not in schema"] == 6
    stored = cypher(sample, "MATCH (e:CHARACTER {id: 'T1::E1'}) RETURN e.name AS name, e.description AS d")
    assert stored[0]["name"] == HOSTILE[:500] and stored[0]["d"] == HOSTILE[:2000]
    rel = cypher(
        sample, "MATCH (:__Entity__ {id: 'T1::E1'})-[r:FIGHTS]->(:__Entity__ {id: 'T1::E4'}) RETURN r.description AS d"
    )
    assert rel[0]["d"] == HOSTILE[:2000]
    labels_after = {r["l"] for r in cypher(sample, "CALL db.labels() YIELD label RETURN label AS l")}
    types_after = {
        r["t"]
        for r in cypher(sample, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType AS t")
    }
    # and the schema's own record (:__Schema, its relations and phrases for questions)
    assert labels_after - labels_before <= {"__Entity__", "CHARACTER", "CREATURE", "__Schema"}
    assert types_after - types_before <= {"FIGHTS", "INSTANCE_OF", "MENTIONS", "FROM_CHUNK"}
    assert "Owned" not in labels_after
    assert cypher(sample, "MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == docs_before


def test_resolve_merges_fuzzy_duplicates_and_keeps_aliases(sample, run_cli):
    assert run_cli("extract", "--schema", "got").exit_code == 0
    cypher(
        sample,
        "MATCH (h:__Entity__ {id: 'got:house varn'}) "
        "CREATE (:__Entity__:Character {id: 'got:edrick varn', name: 'Edrick Varn', normName: 'edrick varn', "
        "type: 'Character', schema: 'got'})-[:SWORN_TO]->(h)",
    )
    dry = run_cli("resolve", "--dry-run", "--json")
    pairs = json.loads(dry.stdout)["candidates"]
    assert [(p["keep"]["id"], p["merge"]["id"]) for p in pairs] == [("got:edric varn", "got:edrick varn")]
    assert cypher(sample, "MATCH (e {id: 'got:edrick varn'}) RETURN e")  # dry run changed nothing
    out = json.loads(run_cli("resolve", "--json").stdout)
    assert out["merged"] == 1
    row = cypher(
        sample,
        "MATCH (e {id: 'got:edric varn'}) RETURN e.aliases AS a, e.mergedIds AS m, "
        "COUNT { (e)-[:SWORN_TO]->() } AS sworn",
    )[0]
    assert "Edrick Varn" in row["a"] and row["m"] == ["got:edrick varn"] and row["sworn"] >= 1
    assert json.loads(run_cli("resolve", "--json").stdout)["candidates"] == []


BEAST_PAGE = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
  <siteinfo><sitename>Beasts</sitename><dbname>beastswiki</dbname>
    <base>https://beasts.example.org/wiki/Main_Page</base>
    <namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>
  <page><title>Ashfang</title><ns>0</ns><id>1</id>
    <revision><id>10</id><timestamp>2024-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>
      <text xml:space="preserve">{{Infobox beast
| owner  = [[Edric Varn]]
| father = Smoke
}}
'''Ashfang''' follows [[Edric Varn]] everywhere; Smoke sired it.</text>
    </revision>
  </page>
</mediawiki>
"""
OBJECT_CHILD = "schema: CHILD_OF not allowed from Object to Character"


def test_validated_types_decide_which_edges_are_built(sample, run_cli, tmp_path):
    """A Low-confidence page typed Object is retyped Creature by `--validate`: its CHILD_OF edge,
    refused for an Object, is built in that run, and a later `extract` keeps it."""
    wiki = tmp_path / "beasts.xml"
    wiki.write_text(BEAST_PAGE, encoding="utf-8")
    assert run_cli("load", "mediawiki", str(wiki), "--no-embed").exit_code == 0
    before = extract_json(run_cli, "--schema", "got")
    assert before["skipped"][OBJECT_CHILD] == 2  # the sample's sword, and Ashfang typed Object by its fields

    def validator(body):
        items = json.loads(body["messages"][-1]["content"])
        return json.dumps(
            {
                "results": [
                    {
                        "id": i["id"],
                        "type": "Creature" if i["name"] == "Ashfang" else i["guessed_type"],
                        "reason": "a wolf",
                    }
                    for i in items
                ]
            }
        )

    server = LLMServer(reply=validator)
    try:
        out = extract_json(run_cli, "--schema", "got", "--validate", env=llm_env(server))
    finally:
        server.close()
    asked = [i for r in server.requests for i in json.loads(r["body"]["messages"][-1]["content"])]
    # the one doubtful page; the names infoboxes give (Longbow, Hild Moray ...) are asked about too
    assert [i["name"] for i in asked if "named_in" not in i] == ["Ashfang"]
    assert {"Longbow", "Hild Moray"} <= {i["name"] for i in asked if "named_in" in i}
    assert out["validation"]["retyped"] == 1
    assert out["skipped"][OBJECT_CHILD] == 1 and out["nodesByType"]["Creature"] == 1
    again = extract_json(run_cli, "--schema", "got")
    assert again["skipped"][OBJECT_CHILD] == 1, "only the sword's 'father' is refused now"
    assert "CHILD_OF not allowed from Object" not in run_cli("extract", "--schema", "got").stdout.replace(
        "skipped 1: " + OBJECT_CHILD, ""
    )
    rows = cypher(
        sample,
        "MATCH (a:__Entity__ {id: 'got:ashfang'}) RETURN labels(a) AS labels, a.type AS type, "
        "[(a)-[:CHILD_OF]->(p) | p.name] AS parents",
    )
    assert rows[0]["type"] == "Creature" and "Object" not in rows[0]["labels"] and rows[0]["parents"] == ["Smoke"]


MARSH_PAGES = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10">
  <siteinfo><sitename>Marsh</sitename><dbname>marshwiki</dbname>
    <base>https://marsh.example.org/wiki/Main_Page</base></siteinfo>
  <page><title>House Reed</title><ns>0</ns><id>1</id>
    <revision><id>10</id><timestamp>2024-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>
      <text xml:space="preserve">{{Infobox house
| seat = [[Greywater Keep]]
}}
'''House Reed''' rules the marshes from [[Greywater Keep]].</text></revision></page>
  <page><title>Greywater Keep</title><ns>0</ns><id>2</id>
    <revision><id>11</id><timestamp>2024-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>
      <text xml:space="preserve">'''Greywater Keep''' moves through the marsh, and few have found it.</text></revision></page>
</mediawiki>
"""
LORE_SEAT = "schema: SEATED_AT not allowed from House to Lore"


def test_a_page_without_infobox_is_typed_and_its_validated_type_reaches_the_edges(sample, run_cli, tmp_path):
    """Greywater Keep has no infobox and no cue: it gets the fallback type Lore, so House Reed's
    seat edge is refused; `--validate` retypes it Location, and the edge is built, then and later."""
    wiki = tmp_path / "marsh.xml"
    wiki.write_text(MARSH_PAGES, encoding="utf-8")
    assert run_cli("load", "mediawiki", str(wiki), "--no-embed").exit_code == 0
    before = extract_json(run_cli, "--schema", "got")
    assert before["skipped"][LORE_SEAT] == 1
    row = cypher(
        sample,
        "MATCH (e:__Entity__ {id: 'got:greywater keep'}) RETURN e.type AS type, e.confidence AS c, "
        "e.reason AS reason, e.typedBy AS typedBy, e.needsReview AS review",
    )[0]
    assert row == {
        "type": "Lore",
        "c": "Low",
        "reason": "no rule matched: fallback Lore",
        "typedBy": "page",
        "review": True,
    }

    def validator(body):
        items = json.loads(body["messages"][-1]["content"])
        return json.dumps(
            {
                "results": [
                    {
                        "id": i["id"],
                        "type": "Location" if i["name"] == "Greywater Keep" else i["guessed_type"],
                        "reason": "a castle",
                    }
                    for i in items
                ]
            }
        )

    server = LLMServer(reply=validator)
    try:
        out = extract_json(run_cli, "--schema", "got", "--validate", env=llm_env(server))
    finally:
        server.close()
    asked = [i for r in server.requests for i in json.loads(r["body"]["messages"][-1]["content"])]
    keep = next(i for i in asked if i["name"] == "Greywater Keep")
    assert keep["guessed_type"] == "Lore" and "moves through the marsh" in keep["start_of_page"]
    assert out["validation"]["retyped"] >= 1 and LORE_SEAT not in out["skipped"]
    again = extract_json(run_cli, "--schema", "got")
    assert LORE_SEAT not in again["skipped"]
    rows = cypher(
        sample,
        "MATCH (h:House {id: 'got:house reed'})-[:SEATED_AT]->(k:__Entity__) RETURN k.type AS type, labels(k) AS labels",
    )
    assert [(r["type"], sorted(r["labels"])) for r in rows] == [("Location", ["Location", "__Entity__"])]
