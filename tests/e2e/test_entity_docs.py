"""Entity documents on the bundled sample's wiki: generated from properties and relations,
a second run changes nothing, a changed entity regenerates only its own document, removed
entities lose theirs, and the project's vector search finds an entity by its document."""

import json

import pytest

pytestmark = pytest.mark.e2e


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def entity_docs(run_cli, *args, code=0):
    result = run_cli("entity-docs", *args, "--json")
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


@pytest.fixture
def kg(schema, run_cli):
    for args in (("load", "sample", "--no-embed"), ("extract", "--schema", "got")):
        result = run_cli(*args)
        assert result.exit_code == 0, result.output
    return schema


def doc(neo4j, entity_id):
    rows = cypher(
        neo4j,
        "MATCH (d:EntityDocument {entityId: $id}) "
        "RETURN d.id AS id, labels(d) AS labels, d.kind AS kind, d.corpus AS corpus, d.entityType AS type, "
        "d.updatedAt AS updatedAt, "
        "[(c:Chunk)-[:FROM_DOCUMENT]->(d) | c] AS chunks, "
        "[(c:Chunk)-[:FROM_DOCUMENT]->(d) | c.text] AS texts, "
        "[(c:Chunk)-[m:MENTIONS]->(e:__Entity__) WHERE (c)-[:FROM_DOCUMENT]->(d) | [e.id, m.rule, m.source]] AS about",
        id=entity_id,
    )
    if not rows:
        return None
    row = rows[0]
    row["text"] = "\n".join(row.pop("texts"))
    return row


def snapshot(neo4j):
    return cypher(
        neo4j,
        "MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() WITH nodes, count(r) AS rels "
        "MATCH (d:EntityDocument) RETURN nodes, rels, collect([d.id, toString(d.updatedAt)]) AS docs",
    )[0]


def updated_at(neo4j):
    return {r["id"]: r["at"] for r in cypher(neo4j, "MATCH (d:EntityDocument) RETURN d.id AS id, d.updatedAt AS at")}


def test_entity_documents_are_rendered_linked_and_a_second_run_changes_nothing(kg, run_cli):
    out = entity_docs(run_cli, "--no-embed")
    assert out["entities"] == 19 and out["entitiesByType"] == {"Character": 10, "House": 2, "Location": 4, "Object": 3}
    assert out["documents"]["created"] == 19 and out["chunks"]["created"] == 19 and out["mentionsCreated"] == 19
    edric = doc(kg, "got:edric varn")
    assert set(edric["labels"]) == {"Document", "EntityDocument"} and edric["kind"] == "entity"
    assert edric["id"] == "entity:got:edric varn" and edric["type"] == "Character"
    assert edric["corpus"] == "sample"  # the corpus of the page that describes it
    text = edric["text"]
    assert text.startswith("Edric Varn\nEdric Varn is a Character.\nAlso known as: Edric the Young Stag.")
    assert "Edric Varn child of Osgar Varn (Character)." in text  # outgoing, with the other's type
    assert "Dawnfang (Object) wielded by Edric Varn." in text  # incoming
    assert "confidence" not in text and "typeScores" not in text.replace(" ", "")  # bookkeeping stays out
    assert edric["about"] == [["got:edric varn", "own-title", "entity-document"]]
    assert "Dawnfang is an Object." in doc(kg, "got:dawnfang")["text"]
    before = snapshot(kg)
    again = entity_docs(run_cli, "--no-embed")
    assert again["documents"] == {"created": 0, "updated": 0, "unchanged": 19, "failed": 0, "pruned": 0}
    assert again["chunks"]["created"] == 0 and again["chunks"]["deleted"] == 0 and again["mentionsCreated"] == 0
    assert snapshot(kg) == before


def test_a_changed_entity_regenerates_only_its_document_and_removed_ones_go(kg, run_cli):
    entity_docs(run_cli, "--no-embed")
    first = updated_at(kg)
    # a relation removed: the documents of its two ends change, no other
    cypher(kg, "MATCH (:__Entity__ {id: 'got:edric varn'})-[r:CHILD_OF]->(:__Entity__ {id: 'got:hild moray'}) DELETE r")
    out = entity_docs(run_cli, "--no-embed")
    assert out["documents"]["updated"] == 2 and out["documents"]["unchanged"] == 17 and out["mentionsCreated"] == 2
    second = updated_at(kg)
    assert {i for i in first if first[i] != second[i]} == {"entity:got:edric varn", "entity:got:hild moray"}
    edric, hild = doc(kg, "got:edric varn"), doc(kg, "got:hild moray")
    assert "Hild Moray" not in edric["text"] and "Edric" not in hild["text"]
    assert edric["about"] == [["got:edric varn", "own-title", "entity-document"]]  # linked again
    # a property changed: that entity's document only
    cypher(kg, "MATCH (e:__Entity__ {id: 'got:longbow'}) SET e.madeOf = ['yew', 'flax string'], e.lengthFeet = 6.5")
    out = entity_docs(run_cli, "--no-embed")
    assert out["documents"]["updated"] == 1 and out["documents"]["unchanged"] == 18
    assert "made of: yew; flax string" in doc(kg, "got:longbow")["text"]
    assert "length feet: 6.5" in doc(kg, "got:longbow")["text"]
    # an entity removed: its document and chunks go, and its neighbour's document no longer names it
    cypher(kg, "MATCH (e:__Entity__ {id: 'got:warhammer'}) DETACH DELETE e")
    out = entity_docs(run_cli, "--no-embed")
    assert out["documents"]["pruned"] == 1 and out["documents"]["updated"] == 1 and out["chunks"]["deleted"] == 2
    assert doc(kg, "got:warhammer") is None and "Warhammer" not in doc(kg, "got:corwen lisle")["text"]
    assert cypher(kg, "MATCH (c:Chunk) WHERE c.id STARTS WITH 'entity:got:warhammer' RETURN c") == []


def test_type_and_corpus_select_and_scope_the_pruning(kg, run_cli):
    out = entity_docs(run_cli, "--no-embed", "--type", "House")
    assert out["entities"] == 2 and out["documents"]["created"] == 2
    out = entity_docs(run_cli, "--no-embed")
    assert out["documents"]["created"] == 17 and out["documents"]["unchanged"] == 2
    out = entity_docs(run_cli, "--no-embed", "--type", "House")  # other types' documents are left alone
    assert out["documents"]["pruned"] == 0 and cypher(kg, "MATCH (d:EntityDocument) RETURN count(d) AS n")[0]["n"] == 19
    out = entity_docs(run_cli, "--no-embed", "--corpus", "elsewhere")
    assert out["entities"] == 0 and out["documents"]["pruned"] == 0
    bad = run_cli("entity-docs", "--type", "House`) DETACH DELETE n //")
    assert bad.exit_code == 2 and "is not a type name" in bad.output


HOSTILE = "Eve`}) DETACH DELETE n //\" ' MATCH (m) SET m:Owned RETURN m; {{Infobox}} <script>"


def test_text_from_data_stays_data(kg, run_cli):
    cypher(
        kg,
        "CREATE (e:__Entity__:Character {id: 'x:eve', name: $v, type: 'Character', motto: $v}) "
        "WITH e MATCH (h:__Entity__ {id: 'got:house varn'}) CREATE (e)-[:SWORN_TO {description: $v}]->(h)",
        v=HOSTILE,
    )
    before = cypher(kg, "MATCH (n) WHERE NOT n:__Audit RETURN count(n) AS n")[0]["n"]
    out = entity_docs(run_cli, "--no-embed")
    assert out["documents"]["created"] == 20
    eve = doc(kg, "x:eve")
    assert eve["text"].startswith(HOSTILE) and f"motto: {HOSTILE.strip()}" in eve["text"]
    assert f"{HOSTILE} (Character) sworn to House Varn: " in doc(kg, "got:house varn")["text"]
    assert cypher(kg, "MATCH (n:Owned) RETURN n") == []
    nodes = cypher(kg, "MATCH (n) WHERE NOT n:__Audit RETURN count(n) AS n")[0]["n"]
    assert nodes == before + 20 * 2  # 20 documents, one chunk each (and the load's audit record)


def test_vector_search_finds_an_entity_by_its_document(kg, run_cli):
    out = entity_docs(run_cli)
    assert out["chunks"]["embedded"] == 19
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.retrieval.modes import retriever

    settings = load_settings()
    with connect(settings) as graph:
        vector = retriever("vector", graph, make_embedder(settings))
        hits = vector.search(query_text="Whom did Ysolde Fenwright marry, and who is her daughter?", top_k=3).items
        assert hits[0].metadata["document_id"] == "entity:got:ysolde fenwright"
        # the corpus filter sees entity documents as it sees the pages they came from
        found = vector.search(query_text="Which weapon does Sera Lisle wield?", top_k=3, corpus="sample").items
        assert "entity:got:sera lisle" in [h.metadata["document_id"] for h in found]


def test_entity_documents_keep_no_entity_alive_when_its_sources_are_forgotten(kg, run_cli):
    entity_docs(run_cli, "--no-embed")
    gone = run_cli("forget", "entity:got:edric varn", "--json")  # an entity document is no source
    assert gone.exit_code == 0 and json.loads(gone.stdout)["forgotten"][0]["entities"] == 0, gone.output
    assert entity_docs(run_cli, "--no-embed")["documents"]["created"] == 1
    pages = [r["id"] for r in cypher(kg, "MATCH (d:WikiPage) RETURN d.id AS id")]
    gone = run_cli("forget", *pages, "--json")
    assert gone.exit_code == 0, gone.output
    assert cypher(kg, "MATCH (e:__Entity__) WHERE e.id STARTS WITH 'got:' RETURN count(e) AS n")[0]["n"] == 0
    out = entity_docs(run_cli, "--no-embed")
    assert out["entities"] == 0 and out["documents"]["pruned"] == 19
    assert cypher(kg, "MATCH (d:EntityDocument) RETURN count(d) AS n")[0]["n"] == 0
