"""Wiki infoboxes into the `got` graph, on a shipped sample shaped like A Wiki of Ice and Fire
(tests/fixtures/kg/wiki/awoiaf-sample.xml): LLM validation of every doubtful node (pages and
the names infobox values give) in batches, the battle / object / house / character fields
that carry PARTICIPANT_IN, COMMANDED_BY, CREATED_BY, VASSAL_OF and APPEARED_IN_SEASON, places
relative to another ("Near Meereen"), and `resolve` merging unique short names ("Tyrion")."""

import json
import math
from pathlib import Path

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "kg" / "wiki" / "awoiaf-sample.xml"
MODEL = "validator-model"


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def extract_json(run_cli, *args, env=None):
    result = run_cli("extract", "--schema", "got", *args, "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def wiki(schema, run_cli):
    result = run_cli("load", "mediawiki", str(SAMPLE), "--corpus", "awoiaf", "--no-embed")
    assert result.exit_code == 0, result.output
    return schema


def items_of(request) -> list[dict]:
    return json.loads(request["body"]["messages"][-1]["content"])


def validator(body):
    """Night's Watch is an order, not a house; everything else is confirmed, sure of it."""
    items = json.loads(body["messages"][-1]["content"])
    results = []
    for i in items:
        watch = i["name"] == "Night's Watch"
        results.append(
            {
                "id": i["id"],
                "type": "Organization" if watch else i["guessed_type"],
                "confidence": "High",
                "reason": "a sworn brotherhood" if watch else "as named",
            }
        )
    return json.dumps({"results": results})


def test_validate_sends_every_doubtful_node_in_batches_and_records_who_decided(wiki, run_cli):
    first = extract_json(run_cli)
    values = cypher(wiki, "MATCH (e:__Entity__ {typedBy: 'relation'}) RETURN count(e) AS n")[0]["n"]
    assert values >= 25  # Riverrun, Tobho Mott, Night's Watch ... known only as infobox values
    assert first["written"]["nodesCreated"] > values

    server = LLMServer(reply=validator)
    env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": MODEL}
    try:
        out = extract_json(run_cli, "--validate", "--batch-size", "7", env=env)
        sent = [i for r in server.requests for i in items_of(r)]
        again = extract_json(run_cli, "--validate", "--batch-size", "7", env=env)
        asked_again = len(server.requests)
    finally:
        server.close()
    v = out["validation"]
    # every name an infobox value gave is sent, in batches of 7, with the edges that name it
    assert v["candidates"]["relation"] == values and v["batchSize"] == 7
    assert v["requests"] == math.ceil(v["checked"] / 7) and all(len(items_of(r)) <= 7 for r in server.requests)
    meereen = next(i for i in sent if i["name"] == "Meereen")
    assert meereen["guessed_type"] == "Location"
    assert {"source": "A Dance with Dragons-Chapter 2", "relation": "SET_IN", "target": "Meereen"}.items() <= (
        meereen["named_in"][0].items()
    )
    assert v["retyped"] == 1 and v["unanswered"] == 0
    # the checkpoint: the same model is asked nothing twice
    assert again["validation"]["checked"] == 0 and asked_again == len(server.requests)

    rows = cypher(
        wiki,
        "MATCH (e:__Entity__ {name: 'Riverrun'}) RETURN e.confidence AS c, e.heuristicConfidence AS h, "
        "e.confidenceBy AS by, e.validatedBy AS vb, e.validatedAt IS NOT NULL AS at, e.needsReview AS review",
    )
    assert rows == [{"c": "High", "h": "Low", "by": f"llm:{MODEL}", "vb": f"llm:{MODEL}", "at": True, "review": False}]
    heuristic = cypher(
        wiki, "MATCH (e:Battle {name: 'Battle of the Green Fork'}) RETURN e.confidence AS c, e.confidenceBy AS by"
    )
    assert heuristic == [{"c": "High", "by": "heuristic"}]  # not doubtful: the heuristic decided, and says so
    # Night's Watch was retyped: Jon Snow's SWORN_TO edge, allowed to a House only, is gone
    watch = cypher(
        wiki,
        'MATCH (w:__Entity__ {name: "Night\'s Watch"}) RETURN w.type AS t, labels(w) AS l, '
        "w.heuristicType AS h, COUNT { (:Character)-[:SWORN_TO]->(w) } AS sworn",
    )[0]
    assert watch["t"] == "Organization" and "House" not in watch["l"] and watch["h"] == "House"
    assert watch["sworn"] == 0
    later = extract_json(run_cli)
    assert later["written"] == {"nodesCreated": 0, "relationshipsCreated": 0, "labelsAdded": 0}
    assert cypher(wiki, "MATCH (e:__Entity__ {name: 'Riverrun'}) RETURN e.confidence AS c") == [{"c": "High"}]


def test_batch_size_is_checked_in_one_line(wiki, run_cli):
    result = run_cli("extract", "--schema", "got", "--validate", "--batch-size", "0")
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert errors == ["Error: Invalid value for '--batch-size': 0 is not in the range 1<=x<=500."]


NEW_FAMILIES = ("PARTICIPANT_IN", "COMMANDED_BY", "CREATED_BY", "APPEARED_IN_SEASON", "VASSAL_OF")


def test_battle_object_house_and_character_fields_become_typed_edges(wiki, run_cli):
    from graphrag_cypher.schema import load_schema

    out = extract_json(run_cli)
    edges = out["edgesByType"]
    assert {rel: edges.get(rel, 0) for rel in NEW_FAMILIES} == {
        "PARTICIPANT_IN": 5,  # combatants1/combatants2 (a <br> list), combatant1/combatant2
        "COMMANDED_BY": 5,
        "CREATED_BY": 1,
        "APPEARED_IN_SEASON": 3,  # "Season 1, 2, 3"
        "VASSAL_OF": 1,
    }
    green = cypher(
        wiki,
        "MATCH (b:Battle {name: 'Battle of the Green Fork'}) RETURN "
        "[(b)-[:COMMANDED_BY]->(c) | c.name + ':' + c.type] AS commanders, "
        "[(h)-[:PARTICIPANT_IN]->(b) | h.name + ':' + h.type] AS sides, [(b)-[:LOCATED_IN]->(p) | p.name] AS place",
    )[0]
    assert sorted(green["commanders"]) == [
        "Roose Bolton:Character",
        "Tyrion Lannister:Character",
        "Tywin Lannister:Character",
    ]
    assert sorted(green["sides"]) == ["House Bolton:House", "House Lannister:House", "House Stark:House"]
    assert green["place"] == ["Green Fork"]  # `place` of a battle: LOCATED_IN (SET_IN is for chapters)
    assert cypher(wiki, "MATCH (:House {name: 'House Bolton'})-[:VASSAL_OF]->(h) RETURN h.name AS n") == [
        {"n": "House Stark"}
    ]
    assert cypher(wiki, 'MATCH (:Object {name: "Widow\'s Wail"})-[:CREATED_BY]->(c) RETURN c.name AS n') == [
        {"n": "Tobho Mott"}
    ]
    seasons = cypher(wiki, "MATCH (:Character {name: 'Jon Snow'})-[:APPEARED_IN_SEASON]->(s:Season) RETURN s.name AS n")
    assert sorted(r["n"] for r in seasons) == ["Season 1", "Season 2", "Season 3"]
    # a sword is nobody's child
    assert out["skipped"]["schema: CHILD_OF not allowed from Object to Character"] == 1
    # every edge of the new families joins types the schema allows
    schema = load_schema("got")
    for row in cypher(
        wiki,
        "MATCH (a)-[r]->(b) WHERE type(r) IN $types RETURN a.type AS s, type(r) AS t, b.type AS o",
        types=list(NEW_FAMILIES),
    ):
        assert schema.allows(row["s"], row["t"], row["o"]), row


def test_a_place_relative_to_another_is_an_edge_to_it_with_the_preposition(wiki, run_cli):
    # a graph extracted before: "Near Meereen" was a Location of its own
    extract_json(run_cli)
    cypher(
        wiki,
        "MATCH (c:Chapter {name: 'A Dance with Dragons-Chapter 2'}) "
        "CREATE (c)-[:SET_IN {source: 'infobox:got', property: 'place', documentId: $doc}]->"
        "(:__Entity__:Location {id: 'got:near meereen', name: 'Near Meereen', normName: 'near meereen', "
        "type: 'Location', typedBy: 'relation', source: 'infobox:got', schema: 'got', confidence: 'Low'})",
        doc=cypher(wiki, "MATCH (d:WikiPage {title: 'A Dance with Dragons-Chapter 2'}) RETURN d.id AS id")[0]["id"],
    )
    out = extract_json(run_cli)
    assert out["pruned"] == {"edges": 1, "entities": 1}
    rows = cypher(
        wiki,
        "MATCH (c:Chapter)-[r:SET_IN]->(p:Location) WHERE r.qualifier IS NOT NULL "
        "RETURN c.name AS c, r.qualifier AS q, p.name AS p, r.value AS v ORDER BY c",
    )
    assert rows == [
        {"c": "A Dance with Dragons-Chapter 2", "q": "near", "p": "Meereen", "v": "Near Meereen"},
        {"c": "A Storm of Swords-Chapter 7", "q": "north of", "p": "Castle Black", "v": "North of Castle Black"},
    ]
    wood = cypher(
        wiki,
        "MATCH (:Battle {name: 'Battle in the Whispering Wood'})-[r:LOCATED_IN]->(p) RETURN r.qualifier AS q, p.name AS p",
    )
    assert wood == [{"q": "near", "p": "Riverrun"}]
    names = {r["n"] for r in cypher(wiki, "MATCH (e:Location) RETURN e.name AS n")}
    assert not [n for n in names if n.lower().startswith(("near ", "north of ", "outside "))], names
    assert {"Meereen", "Castle Black", "Riverrun"} <= names
    # a piped link names its page: the chapter's pov is Jon Snow, also called Jon
    pov = cypher(
        wiki,
        "MATCH (:Chapter {name: 'A Storm of Swords-Chapter 7'})-[:POV_CHARACTER]->(p) RETURN p.name AS n, p.aliases AS a",
    )
    assert pov == [{"n": "Jon Snow", "a": ["Jon"]}]


def test_resolve_merges_unique_short_names_within_a_corpus_and_lists_ambiguous_ones(wiki, run_cli, tmp_path):
    other = tmp_path / "other.xml"
    other.write_text(
        SAMPLE.read_text(encoding="utf-8").split("<page>")[0]
        + """<page><title>Robb chapter</title><ns>0</ns><id>99</id><revision><id>990</id>
<timestamp>2024-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>
<text xml:space="preserve">{{Infobox Chapter
| pov = Robb
}}
Robb rides south.</text></revision></page></mediawiki>""",
        encoding="utf-8",
    )
    assert run_cli("load", "mediawiki", str(other), "--corpus", "other", "--no-embed").exit_code == 0
    extract_json(run_cli)
    before = {r["n"] for r in cypher(wiki, "MATCH (e:Character) RETURN e.name AS n")}
    assert {"Jon", "Tyrion", "Ned", "Daenerys", "Catelyn", "Robb"} <= before

    shown = run_cli("resolve", "--schema", "got")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert "prefix  Character: 'Daenerys Targaryen' <- 'Daenerys'" in lines  # the one "Daenerys …"
    assert " alias  Character: 'Jon Snow' <- 'Jon'" in lines  # [[Jon Snow|Jon]] elsewhere
    assert " alias  Character: 'Eddard Stark' <- 'Ned'" in lines
    assert " alias  Character: 'Tyrion Lannister' <- 'Tyrion'" in lines
    assert "ambiguous  Character: 'Catelyn' could be 'Catelyn Stark' or 'Catelyn Tully': not merged" in lines
    assert lines[-1] == "4 candidate pair(s), 4 of them short names; merged 4; 1 ambiguous short name(s) left"
    after = {r["n"] for r in cypher(wiki, "MATCH (e:Character) RETURN e.name AS n")}
    assert before - after == {"Jon", "Tyrion", "Ned", "Daenerys"}
    assert "Robb" in after  # "Robb Stark" is in another corpus: not the same scope
    jon = cypher(
        wiki,
        "MATCH (j:Character {name: 'Jon Snow'}) RETURN j.mergedIds AS m, "
        "[(c)-[:POV_CHARACTER]->(j) | c.name] AS chapters",
    )[0]
    assert jon["m"] == ["got:jon"] and sorted(jon["chapters"]) == [
        "A Dance with Dragons-Chapter 4",
        "A Storm of Swords-Chapter 7",
    ]
    # a second run changes nothing, and neither does extracting again
    again = json.loads(run_cli("resolve", "--json").stdout)
    assert again["merged"] == 0 and again["candidates"] == [] and len(again["ambiguous"]) == 1
    later = extract_json(run_cli)
    assert later["written"] == {"nodesCreated": 0, "relationshipsCreated": 0, "labelsAdded": 0}
    assert later["pruned"] == {"edges": 0, "entities": 0}
    assert json.loads(run_cli("resolve", "--json").stdout)["merged"] == 0
