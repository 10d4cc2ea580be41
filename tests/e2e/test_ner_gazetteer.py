"""`extract --extractor ner` reads the graph as its gazetteer: known names link to their nodes,
junk never becomes an entity, confidences are written, and an unchanged graph is read once."""

import json

import pytest

pytestmark = pytest.mark.e2e
spacy = pytest.importorskip("spacy", reason="spaCy is not installed: make setup installs it")

NOTES = {
    "ephesus.md": (
        "# Ephesus\n\nIn 133 BCE the city of Ephesus passed to Rome. Maria Lopez read IG II² 1234 and "
        "P.Oxy. 2332 (ed. Smith, vol. IV) at the British Museum, then sailed from Ephesus to Alexandria."
    ),
    "harbour.md": "# Harbour\n\nThe grain ships left Alexandria for the harbour of Puteoli, as Maria Lopez showed in her study.",
}
PLACES = [
    {"id": "pleiades:1", "names": ["Ephesos", "Ephesus"]},
    {"id": "pleiades:2", "names": ["Alexandria"]},
    {"id": "pleiades:3", "names": ["Alexandria"]},
    {"id": "pleiades:4", "names": ["Puteoli", "Dikaiarcheia"]},
]


def _pipeline_or_skip():
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.kg.ner import load_pipeline

    try:
        load_pipeline()
    except GraphragError as exc:
        pytest.skip(str(exc))


def _mentions(driver):
    return driver.execute_query(
        "MATCH (c:Chunk)-[m:MENTIONS]->(e:__Entity__) WHERE m.rule STARTS WITH 'ner' "
        "MATCH (c)-[:FROM_DOCUMENT]->(d) "
        "RETURN d.title AS doc, e.id AS entity, e.name AS name, m.rule AS rule, m.confidence AS confidence, "
        "e.confidence AS entityConfidence ORDER BY doc, entity"
    ).records


def test_ner_links_gazetteer_names_and_leaves_junk_out(schema, run_cli, tmp_path):
    _pipeline_or_skip()
    with schema.driver() as driver:
        for place in PLACES:
            driver.execute_query(
                "CREATE (p:__Entity__:Place {id: $id, name: $names[0], names: $names, title: $names[0], "
                "source: 'pleiades', contentHash: 'gazetteer'})",
                id=place["id"],
                names=place["names"],
            )
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    assert run_cli("load", "files", str(folder), "--corpus", "notes", "--no-embed").exit_code == 0
    with schema.driver() as driver:  # the place linker decided the harbour note's Alexandria
        driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {title: 'Harbour'}), (p:Place {id: 'pleiades:3'}) "
            "MERGE (c)-[:MENTIONS {rule: 'place', source: 'test'}]->(p)"
        )
    out = run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json")
    assert out.exit_code == 0, out.output
    first = json.loads(out.stdout)
    assert first["chunks"] >= 2
    with schema.driver() as driver:
        rows = _mentions(driver)
        by_doc = {(r["doc"], r["entity"]): r for r in rows}
        ephesus = by_doc[("Ephesus", "pleiades:1")]
        assert ephesus["rule"] == "ner-gazetteer" and ephesus["confidence"] >= 0.8
        assert ephesus["entityConfidence"] is None  # a gazetteer node is a record: no confidence from NER
        assert by_doc[("Harbour", "pleiades:4")]["rule"] == "ner-gazetteer"
        # "Alexandria" names two places: the one the place linker decided here, no guess elsewhere
        harbour = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {title: 'Harbour'}) MATCH (c)-[m:MENTIONS]->(e) "
            "RETURN collect(e.id) AS ids"
        ).records[0]["ids"]
        assert "pleiades:3" in harbour and "pleiades:2" not in harbour and "place:alexandria" not in harbour
        assert ("Ephesus", "pleiades:2") not in by_doc and ("Ephesus", "pleiades:3") not in by_doc
        names = {r["name"] for r in rows}
        assert not {"BCE", "IG", "IG II² 1234", "P.Oxy.", "P.Oxy. 2332", "IV", "ed.", "vol."} & names
        junk = driver.execute_query(
            "MATCH (e:__Entity__) WHERE e.source STARTS WITH 'ner:' AND e.normName IN ['bce', 'ig', 'iv', 'poxy'] "
            "RETURN count(e) AS n"
        ).records[0]["n"]
        assert junk == 0
        lopez = by_doc[("Harbour", "person:maria lopez")]
        assert lopez["rule"] == "ner" and lopez["entityConfidence"] == pytest.approx(0.88)
        orgs = [r for r in rows if r["entity"].startswith("organization:")]
        assert orgs and all(r["confidence"] < 0.8 for r in orgs)  # kept, with a confidence too low to draw
        before = _mentions(driver)
    again = json.loads(run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json").stdout)
    assert again["chunks"] == 0 and again["mentionsCreated"] == 0 and again["entitiesCreated"] == 0
    with schema.driver() as driver:
        assert _mentions(driver) == before
        # the gazetteer changes (a new name of a place): every chunk is read again, and finds it
        driver.execute_query("MATCH (p:Place {id: 'pleiades:4'}) SET p.names = p.names + ['Grain Ships']")
    third = json.loads(run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json").stdout)
    assert third["chunks"] == first["chunks"]
