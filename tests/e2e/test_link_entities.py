"""`graphrag link entities`: chunks and known entities linked both ways, CO_OCCURS counted."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"


def query(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text, params).records]


@pytest.fixture
def entities(schema, run_cli):
    assert run_cli("load", "files", str(FIXTURES / "articles"), "--no-embed").exit_code == 0
    query(
        schema,
        "CREATE (:__Entity__:Person {id: 'person:cleopatra', name: 'Cleopatra', aliases: ['Cleopatra VII']}), "
        "(:__Entity__:Person {id: 'person:arsinoe', name: 'Arsinoe', aliases: []}), "
        "(:__Entity__:Deity {id: 'deity:memphis', name: 'Memphis'}), "
        "(:__Entity__:Thing {id: 'thing:road', name: 'the road'})",
    )
    doc = query(schema, "MATCH (d:Document {title: 'Cities of Mesopotamia'}) RETURN d.id AS id")[0]["id"]
    query(schema, "CREATE (:__Entity__:Character {id: 'story::uruk', name: 'Uruk', documentId: $doc})", doc=doc)
    return schema


def test_links_mentions_and_co_occurrences(entities, run_cli):
    result = run_cli("link", "entities", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    got = {
        (r["doc"], r["entity"], tuple(r["matched"]))
        for r in query(
            entities,
            "MATCH (d:Document)<-[:FROM_DOCUMENT]-(c:Chunk)-[m:MENTIONS]->(e:__Entity__) "
            "RETURN d.title AS doc, e.id AS entity, m.matched AS matched",
        )
    }
    assert got == {
        ("Roman Egypt", "person:cleopatra", ("Cleopatra",)),
        ("Roman Egypt", "person:arsinoe", ("Arsinoe",)),
        ("Roman Egypt", "deity:memphis", ("Memphis",)),
        ("Cities of Mesopotamia", "story::uruk", ("Uruk",)),
    }, "lower-case 'the road' is not a name; the story-scoped Uruk only counts in its document"
    assert out["mentions_created"] == 4 and out["co_occurs"] == 3 and out["co_occurs_created"] == 3
    pairs = query(entities, "MATCH (a)-[r:CO_OCCURS]->(b) RETURN a.id AS a, b.id AS b, r.count AS n ORDER BY a, b")
    assert pairs[0] == {"a": "deity:memphis", "b": "person:arsinoe", "n": 1}
    # both ways: from the entity to its chunks and back
    back = query(entities, "MATCH (e:__Entity__ {id: 'person:cleopatra'})<-[:MENTIONS]-(c:Chunk) RETURN count(c) AS n")
    assert back[0]["n"] == 1

    again = json.loads(run_cli("link", "entities", "--json").stdout)
    assert again["mentions_created"] == again["mentions_removed"] == again["co_occurs_created"] == 0


def test_removed_entity_links_drop_their_co_occurrences(entities, run_cli):
    run_cli("link", "entities")
    query(entities, "MATCH (e:__Entity__ {id: 'person:arsinoe'}) SET e.name = 'Nobody'")
    out = json.loads(run_cli("link", "entities", "--json").stdout)
    assert out["mentions_removed"] == 1 and out["co_occurs_removed"] == 2
    assert query(entities, "MATCH ()-[r:CO_OCCURS]->() RETURN count(r) AS n")[0]["n"] == 1


def test_incremental_runs_match_full_ones(entities, run_cli, tmp_path):
    def run(*extra):
        result = run_cli("link", "entities", *extra, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def unchanged(out):
        return out["mentions_created"] == out["mentions_removed"] == out["mentions_updated"] == 0

    assert run()["full"], "the first run is a full one"
    nothing = run()
    assert not nothing["full"] and nothing["documents"] == 0 and unchanged(nothing)
    # A second Arsinoe makes the name ambiguous where it was not: its documents are decided again.
    query(entities, "CREATE (:__Entity__:Person {id: 'person:arsinoe-ii', name: 'Arsinoe', aliases: []})")
    dry = run("--dry-run")
    assert dry["entities_changed"] == 1 and dry["documents"] >= 1
    out = run()
    assert not out["full"] and out["entities_changed"] == 1 and out["documents"] >= 1
    assert unchanged(run("--full")), "the incremental run made what a full one makes"
    # A new document naming Cleopatra is linked without --full, and only it is decided.
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "queen.md").write_text("# The queen\n\nCleopatra ruled from Alexandria.\n", "utf-8")
    assert run_cli("load", "files", str(tmp_path / "new"), "--no-embed").exit_code == 0
    added = run()
    assert not added["full"] and added["documents"] == 1 and added["mentions_created"] == 1
    assert unchanged(run("--full"))
    query(entities, "MATCH (e:__Entity__ {id: 'person:arsinoe-ii'}) DETACH DELETE e")
    after = run()
    assert after["full"], "an entity linked before is gone: a full run"
    assert unchanged(run("--full")) and unchanged(run())
