"""Every face reads the place links, and the confidence cut for drawing (issue: entities a reader
would trust). On a small real graph (the linker fixtures' Pleiades places and two articles, `link
places`, `extract --extractor ner`): a chunk linked to a Pleiades place by `link places`, or by NER's
gazetteer rule, is found by `--about`, by "Which articles mention …?" and in the evidence graph; an
entity below GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE stays in the graph but is neither drawn nor named
unless the question asks for it; a second `link places` / `extract` changes nothing."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"
BABYLON = "pleiades:893951"
LONDINIUM = "pleiades:79574"  # "London" is stop-listed for `link places`: only the gazetteer link reaches it
PENGUIN = "organization:penguin"  # a publisher NER took for an organisation, with its type's low precision
TYPED = "person:typed person"  # an entity whose confidence is a word (infobox typing's High / Medium / Low)


def _cli(env: dict, *args: str):
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    return CliRunner().invoke(cli, list(args), env=env, prog_name="graphrag", catch_exceptions=False)


def _mentions(driver) -> dict:
    """MENTIONS edges by rule, and entities in all: what a second run must leave as it is."""
    rows = driver.execute_query("MATCH (:Chunk)-[m:MENTIONS]->() RETURN m.rule AS rule, count(*) AS n").records
    entities = driver.execute_query("MATCH (e:__Entity__) RETURN count(e) AS n").records[0]["n"]
    return {"entities": entities, **{r["rule"]: r["n"] for r in rows}}


@pytest.fixture(scope="module")
def faces_graph(neo4j_server):
    """The faces' graph, built once per module."""
    return build_faces_graph(neo4j_server)


def build_faces_graph(neo4j_server) -> dict:
    """Pleiades places and the two articles, embedded, places linked and names recognised; then one
    gazetteer link and one low-confidence organisation written by Cypher."""
    pytest.importorskip("spacy", reason="spaCy is not installed: make setup installs it")
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.kg.ner import load_pipeline

    from ..conftest import _LOADED, wipe

    try:
        load_pipeline()
    except GraphragError as exc:
        pytest.skip(str(exc))
    with neo4j_server.driver() as driver:
        wipe(driver)
    _LOADED.pop(neo4j_server.uri, None)  # the sample graph of other modules is gone
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    assert _cli(env, "apply-schema").exit_code == 0
    loaded = _cli(env, "load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl"), "--json")
    assert loaded.exit_code == 3 and json.loads(loaded.stdout)["places"]["created"] == 12  # one bad line
    result = _cli(env, "load", "files", str(FIXTURES / "articles"), "--corpus", "isaw")
    assert result.exit_code == 0, result.output
    for command in (["link", "places"], ["extract", "--extractor", "ner"]):
        result = _cli(env, *command)
        assert result.exit_code == 0, result.output
    again = []  # a second `link places` and `extract` on the unchanged corpus, with the counts around them
    with neo4j_server.driver() as driver:
        before = _mentions(driver)
        for command in (["link", "places", "--json"], ["extract", "--extractor", "ner", "--json"]):
            result = _cli(env, *command)
            assert result.exit_code == 0, result.output
            again.append(json.loads(result.stdout))
        after = _mentions(driver)
    with neo4j_server.driver() as driver:
        egypt = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document {title: 'Roman Egypt'}) RETURN c.id AS id"
        ).records[0]["id"]
        # NER's gazetteer link (rule ner-gazetteer) and its low-precision types: written here where the
        # recogniser does not write them yet
        driver.execute_query(
            "MATCH (c:Chunk {id: $chunk}), (p:Place {id: $londinium}) "
            "MERGE (c)-[m:MENTIONS]->(p) ON CREATE SET m.rule = 'ner-gazetteer', m.matched = ['London'] "
            "MERGE (o:__Entity__ {id: $penguin}) SET o:Organization, o.name = 'Penguin', o.normName = 'penguin', "
            "o.type = 'Organization', o.typedBy = 'ner', o.confidence = 0.27 "
            "MERGE (c)-[n:MENTIONS]->(o) ON CREATE SET n.rule = 'ner', n.confidence = 0.27 "
            # infobox typing writes its confidence as a word: no number, no cut
            "MERGE (t:__Entity__ {id: $typed}) SET t:Person, t.name = 'Typed Person', t.type = 'Person', "
            "t.typedBy = 'infobox', t.confidence = 'Medium' "
            "MERGE (c)-[:MENTIONS {rule: 'infobox-test'}]->(t)",
            chunk=egypt,
            londinium=LONDINIUM,
            penguin=PENGUIN,
            typed=TYPED,
        )
        driver.execute_query(
            "MATCH (e:__Entity__) WHERE e.typedBy = 'ner' AND e.confidence IS NULL AND e.type IN ['Organization', 'Work'] "
            "SET e.confidence = CASE e.type WHEN 'Organization' THEN 0.27 ELSE 0.33 END"
        )
        babylon = [
            r["id"]
            for r in driver.execute_query(
                "MATCH (c:Chunk)-[m:MENTIONS]->(:Place {id: $babylon}) WHERE m.rule <> 'ner' RETURN c.id AS id",
                babylon=BABYLON,
            ).records
        ]
    assert babylon, "link places linked no chunk to Babylon"
    return {
        "server": neo4j_server,
        "env": env,
        "egypt": egypt,
        "babylon": babylon,
        "again": again,
        "before": before,
        "after": after,
    }


@pytest.fixture
def faces(faces_graph, monkeypatch):
    faces_graph["server"].point_env(monkeypatch)
    return faces_graph


@pytest.fixture
def graph(faces):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    with connect(load_settings()) as opened:
        yield opened


def ask_json(run_cli, *args) -> dict:
    result = run_cli("ask", "--json", "--no-gate", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _drawn(graph, chunks: list[str], **result) -> tuple[dict, set]:
    from graphrag_cypher.server.engine import evidence_graph

    drawn = evidence_graph(graph, {"evidence": [{"chunk_id": c} for c in chunks], **result})
    return {n["id"]: n for n in drawn["nodes"]}, {(e["source"], e["type"], e["target"]) for e in drawn["edges"]}


def test_about_reads_place_links_of_the_linker_and_of_the_gazetteer(faces, run_cli):
    out = ask_json(run_cli, "What were the walls like?", "--about", BABYLON)
    assert out["filters"]["about"]["ids"] == [BABYLON]
    assert out["evidence"] and {e["chunk_id"] for e in out["evidence"]} <= set(faces["babylon"])
    out = ask_json(run_cli, "What did the museum catalogue list?", "--about", LONDINIUM)
    assert {e["chunk_id"] for e in out["evidence"]} == {faces["egypt"]}  # the gazetteer's link, no text match


def test_which_articles_mention_a_place_counts_its_links(faces, run_cli):
    out = ask_json(run_cli, "Which articles mention Babylon?")
    titles = {c["title"] for c in out["citations"]}
    assert "Cities of Mesopotamia" in titles, out["answer"]
    # "Londinium" is in no text: the article is found through the gazetteer's link alone
    out = ask_json(run_cli, "Which articles mention Londinium?")
    assert [c["title"] for c in out["citations"]] == ["Roman Egypt"], out["answer"]


def test_the_evidence_graph_draws_linked_places(faces, graph):
    nodes, edges = _drawn(graph, faces["babylon"] + [faces["egypt"]])
    assert all((c, "MENTIONS", BABYLON) in edges for c in faces["babylon"])
    assert nodes[BABYLON]["label"] == "Place" and nodes[BABYLON]["name"] == "Babylon"
    assert (faces["egypt"], "MENTIONS", LONDINIUM) in edges


@pytest.fixture
def java_embedder(onnx_export):
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")


@pytest.mark.usefixtures("java_embedder")
@pytest.mark.parametrize("mode", ["graph", "hybrid"])
def test_the_browser_procedure_reads_both_kinds_of_place_link(faces, graph, mode):
    def search(about: str) -> set[str]:
        with graph.driver.session(database=graph.database) as session:
            rows = session.run(
                "CALL graphrag.search($q, $config) YIELD chunkId RETURN chunkId",
                q="What was there?",
                config={"mode": mode, "k": 5, "about": about},
            ).data()
        return {r["chunkId"] for r in rows}

    assert search(BABYLON) and search(BABYLON) <= set(faces["babylon"])  # `link places`
    assert search(LONDINIUM) == {faces["egypt"]}  # NER's gazetteer link
    assert search("Londinium") == {faces["egypt"]}  # by name, as `ask --about` resolves it


def test_a_low_confidence_entity_is_kept_but_not_drawn(faces, graph, monkeypatch):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.server.engine import neighbourhood

    nodes, edges = _drawn(graph, [faces["egypt"]], question="Who ruled Egypt?")
    assert PENGUIN not in nodes and not any(PENGUIN in edge for edge in edges)
    assert LONDINIUM in nodes  # a gazetteer record has no confidence: 1.0
    assert TYPED in nodes  # a confidence that is no number is no cut
    kept = graph.read_row("retrieval/entity_weights", ids=[PENGUIN], corpus=None)
    assert kept is not None and kept["chunks"] == 1  # still in the graph, still linked
    # asked for: by type, by name (the question's entities), by --about
    assert PENGUIN in _drawn(graph, [faces["egypt"]], question="Which organisations published it?")[0]
    assert PENGUIN in _drawn(graph, [faces["egypt"]], question="Penguin?", entities=[{"id": PENGUIN}])[0]
    assert PENGUIN in _drawn(graph, [faces["egypt"]], filters={"about": {"ids": [PENGUIN]}})[0]
    # the page's neighbourhood of the chunk leaves it out; its own neighbourhood draws it
    around = {n["id"] for n in neighbourhood(graph, faces["egypt"], 25)["nodes"]}
    assert LONDINIUM in around and PENGUIN not in around
    assert neighbourhood(graph, PENGUIN, 5)["nodes"][0]["id"] == PENGUIN
    # community reports do not name it
    page = graph.read("communities/mentions", after="", limit=100, minConfidence=0.8)
    named = {e["id"] for row in page for e in row["entities"]}
    assert LONDINIUM in named and PENGUIN not in named
    # a cut of 0 draws everything
    monkeypatch.setenv("GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE", "0")
    with connect(load_settings()) as everything:
        assert PENGUIN in _drawn(everything, [faces["egypt"]], question="Who ruled Egypt?")[0]


def test_answers_do_not_name_a_low_confidence_entity_unless_asked(faces, run_cli):
    out = ask_json(run_cli, "What did the museum catalogue list?", "--about", LONDINIUM, "--mermaid")
    assert "Londinium" in out["mermaid"] and "Penguin" not in out["mermaid"]
    out = ask_json(run_cli, "Which organisations did the museum catalogue list?", "--about", LONDINIUM)
    assert "Penguin" in out["mermaid"]


def test_the_cut_is_a_setting_with_a_one_line_error():
    from graphrag_cypher.config import ENTITY_DRAW_MIN_CONFIDENCE, load_settings
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval.shown import asked_types

    assert load_settings({}).entity_draw_min_confidence == ENTITY_DRAW_MIN_CONFIDENCE == 0.8
    env = {"GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE": "0.5"}
    assert load_settings(env).entity_draw_min_confidence == 0.5
    with pytest.raises(GraphragError, match="GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE='2': give a number from 0 to 1"):
        load_settings({"GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE": "2"})
    assert asked_types("Which organisations funded the dig?") == ["Organization"]
    assert asked_types("Which book names Rome?") == ["Work"]
    assert asked_types("How does the mechanism work?") == []  # a verb, not the type


def test_a_second_link_places_and_extract_change_nothing(faces):
    places, extract = faces["again"]
    assert places["mentions_created"] == places["mentions_updated"] == places["mentions_removed"] == 0, places
    assert extract["chunks"] == extract["mentionsCreated"] == extract["mentionsRemoved"] == 0, extract
    assert faces["after"] == faces["before"]
    assert faces["before"].get("ner", 0) > 0 and faces["before"].get("unique-name", 0) > 0
