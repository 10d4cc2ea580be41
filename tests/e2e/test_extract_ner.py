"""`extract --extractor ner` and GRAPHRAG_EXTRACT=ner: spaCy's names in any documents' chunks."""

import json

import pytest

pytestmark = pytest.mark.e2e
spacy = pytest.importorskip("spacy", reason="spaCy is not installed: make setup installs it")

NOTES = {
    "harbour.md": (
        "# Harbours\n\nSebastian Heath visited the harbour of Ostia with Maria Lopez in the spring. "
        "They wrote a report for the Metropolitan Museum of Art about the ships of Alexandria."
    ),
    "river.md": (
        "# Rivers\n\nMaria Lopez mapped the Nile near Alexandria. The British Museum lent her the "
        "notebooks of Flinders Petrie, and she read The Histories of Herodotus on the way to Cairo."
    ),
}


def _pipeline_or_skip():
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.kg.ner import load_pipeline

    try:
        load_pipeline()
    except GraphragError as exc:
        pytest.skip(str(exc))


def _write(folder, files):
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _graph(driver):
    """Every ner entity and mention, as comparable rows."""
    return driver.execute_query(
        "MATCH (c:Chunk)-[m:MENTIONS {rule: 'ner'}]->(e:__Entity__) "
        "RETURN c.id AS chunk, e.id AS entity, e.type AS type, m.count AS count, m.offsets AS offsets, "
        "EXISTS { (e)-[:FROM_CHUNK]->(c) } AS back ORDER BY chunk, entity"
    ).records


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ner_finds_people_places_and_organisations_in_a_folder(schema, run_cli, tmp_path, monkeypatch, processes):
    _pipeline_or_skip()
    monkeypatch.setenv("GRAPHRAG_NER_PROCESSES", processes)  # one process, or two parsing workers
    folder = _write(tmp_path / "notes", NOTES)
    assert run_cli("load", "files", str(folder), "--corpus", "notes", "--no-embed").exit_code == 0
    out = run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json")
    assert out.exit_code == 0, out.output
    first = json.loads(out.stdout)
    assert first["chunks"] >= 2 and first["model"].startswith("en_core_web_sm")
    assert first["mentionsCreated"] >= 8
    assert "DATE" in first["skippedLabels"]  # "the spring": a label the schema does not map, counted
    with schema.driver() as driver:
        rows = _graph(driver)
        names = {r["entity"]: r["type"] for r in rows}
        assert names.get("person:sebastian heath") == "Person"
        assert names.get("person:maria lopez") == "Person"
        assert names.get("place:alexandria") == "Place"
        assert any(t == "Organization" for t in names.values())
        assert all(r["back"] for r in rows)  # FROM_CHUNK the other way
        # one entity across documents: Maria Lopez and Alexandria in both notes
        docs = driver.execute_query(
            "MATCH (e:__Entity__ {id: 'person:maria lopez'})<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d) "
            "RETURN count(DISTINCT d) AS n"
        ).records[0]["n"]
        assert docs == 2
        heath = driver.execute_query(
            "MATCH (c:Chunk)-[m:MENTIONS]->(:Person {id: 'person:sebastian heath'}) RETURN c.text AS text, m AS m"
        ).records[0]
        offset = heath["m"]["offsets"][0]
        assert heath["text"][offset : offset + len("Sebastian Heath")] == "Sebastian Heath"
        assert heath["m"]["count"] == 1 and heath["m"]["matched"] == "Sebastian Heath"
        before = _graph(driver)
    # a second run reads nothing and changes nothing
    again = json.loads(run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json").stdout)
    assert again["chunks"] == 0 and again["mentionsCreated"] == 0 and again["entitiesCreated"] == 0
    with schema.driver() as driver:
        assert _graph(driver) == before
    # a changed note: only its chunks are read again; a name it no longer holds goes with its mentions
    (folder / "harbour.md").write_text("# Harbours\n\nSebastian Heath visited the harbour of Ostia.", encoding="utf-8")
    assert run_cli("load", "files", str(folder), "--corpus", "notes", "--no-embed").exit_code == 0
    third = json.loads(run_cli("extract", "--extractor", "ner", "--corpus", "notes", "--json").stdout)
    assert 1 <= third["chunks"] < first["chunks"] + 1
    with schema.driver() as driver:
        left = {r["entity"] for r in _graph(driver)}
        assert "person:sebastian heath" in left and "person:maria lopez" in left  # still in river.md
        gone = driver.execute_query(
            "MATCH (e:__Entity__) WHERE e.name = 'Metropolitan Museum of Art' RETURN count(e) AS n"
        ).records[0]["n"]
        assert gone == 0  # mentioned only by the old text: the entity went too


def test_ner_reuses_a_known_entity_and_a_missing_pipeline_is_one_line(schema, run_cli, tmp_path):
    _pipeline_or_skip()
    with schema.driver() as driver:
        driver.execute_query(
            "CREATE (:__Entity__:Place {id: 'pleiades:422995', name: 'Ostia', normName: 'ostia', type: 'Place', "
            "contentHash: 'gazetteer'})"
        )
    folder = _write(tmp_path / "notes", {"harbour.md": NOTES["harbour.md"]})
    assert run_cli("load", "files", str(folder), "--no-embed").exit_code == 0
    assert run_cli("extract", "--extractor", "ner", "--json").exit_code == 0
    with schema.driver() as driver:
        linked = driver.execute_query(
            "MATCH (:Chunk)-[m:MENTIONS]->(p:Place) WHERE p.normName = 'ostia' "
            "RETURN collect(p.id) AS ids, collect(m.rule) AS rules"
        ).records[0]
    # the place is in the graph: the gazetteer's pattern finds it and links it (rule ner-gazetteer)
    assert linked["ids"] == ["pleiades:422995"] and linked["rules"] == ["ner-gazetteer"]
    bad = run_cli("extract", "--extractor", "ner", "--model", "xx_no_such_pipeline")
    assert bad.exit_code != 0
    assert "no spaCy pipeline 'xx_no_such_pipeline'" in bad.output and "spacy download" in bad.output
    assert "Traceback" not in bad.output


def test_learn_with_graphrag_extract_ner_links_entities(schema, run_cli, tmp_path, monkeypatch):
    _pipeline_or_skip()
    folder = _write(tmp_path / "notes", NOTES)
    monkeypatch.setenv("GRAPHRAG_EXTRACT", "ner")
    out = run_cli("learn", f"path: {folder}", "--no-embed")
    assert out.exit_code == 0, out.output
    assert "entities (en_core_web_sm" in out.stdout
    with schema.driver() as driver:
        people = driver.execute_query(
            "MATCH (e:Person)<-[:MENTIONS]-(:Chunk) RETURN collect(DISTINCT e.name) AS names"
        ).records[0]["names"]
    assert {"Sebastian Heath", "Maria Lopez"} <= set(people)
    again = json.loads(run_cli("learn", f"path: {folder}", "--no-embed", "--json").stdout)
    assert "extraction" not in again  # nothing changed: nothing read
    # the page's evidence graph draws the names beside the chunk that holds them
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.server.engine import evidence_graph

    with schema.driver() as driver:
        chunk = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE d.title = 'Rivers' RETURN c.id AS id"
        ).records[0]["id"]
    with connect(load_settings()) as graph:
        drawn = evidence_graph(graph, {"evidence": [{"chunk_id": chunk}]})
    edges = {(e["source"], e["type"], e["target"]) for e in drawn["edges"]}
    assert (chunk, "MENTIONS", "person:maria lopez") in edges
    assert any(n.get("label") == "Place" and n.get("name") == "Alexandria" for n in drawn["nodes"])
