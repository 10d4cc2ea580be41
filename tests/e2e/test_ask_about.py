"""`--about`: evidence only from chunks that mention an entity or place, in every retrieval mode and
every face (CLI, /chat, the OpenAI-compatible endpoint, `graphrag.search`), on the sample with three
entities named Alexandria: a place most chunks mention, a second place of the same name (accented)
that one lantern chunk mentions, and a story's own Alexandria, an instance of the first."""

from __future__ import annotations

import json

import pytest

from graphrag_cypher.retrieval.modes import MODES

pytestmark = pytest.mark.e2e

EGYPT, TROAS, STORY = "test:alexandria", "test:alexandria-troas", "test:alexandria-story"
QUESTION = "Who stole the silver lantern?"  # about the lantern, not Alexandria: unfiltered, other chunks win


@pytest.fixture(scope="module")
def about_graph(neo4j_server):
    """The sample, then the three Alexandrias and the chunks that mention each (once per module)."""
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server)
    with neo4j_server.driver() as driver, driver.session() as session:
        alexandria = [
            r["id"]
            for r in session.run(
                "MATCH (c:Chunk) WHERE toLower(c.text) CONTAINS 'alexandria' RETURN c.id AS id ORDER BY id"
            )
        ]
        lantern = [
            r["id"]
            for r in session.run(
                "MATCH (c:Chunk) WHERE toLower(c.text) CONTAINS 'lantern' AND NOT toLower(c.text) CONTAINS "
                "'alexandria' RETURN c.id AS id ORDER BY id"
            )
        ]
        assert len(alexandria) >= 3 and len(lantern) >= 2
        session.run(
            "CREATE (:Place:__Entity__ {id: $egypt, name: 'Alexandria', normName: 'alexandria', type: 'Place'}), "
            "(:Place:__Entity__ {id: $troas, name: 'Alexandría', names: ['Alexandria Troas', 'Alexandría'], "
            "normName: 'alexandria', type: 'Place'}), "
            "(:__Entity__ {id: $story, name: 'alexandria', type: 'LOCATION'})",
            egypt=EGYPT,
            troas=TROAS,
            story=STORY,
        ).consume()
        session.run(
            "MATCH (s:__Entity__ {id: $story}), (e:__Entity__ {id: $egypt}) CREATE (s)-[:INSTANCE_OF]->(e)",
            story=STORY,
            egypt=EGYPT,
        ).consume()
        links = [(c, EGYPT) for c in alexandria] + [(lantern[0], TROAS), (lantern[1], STORY)]
        session.run(
            "UNWIND $links AS l MATCH (c:Chunk {id: l[0]}), (e:__Entity__ {id: l[1]}) "
            "CREATE (c)-[:MENTIONS {rule: 'test'}]->(e)",
            links=[list(link) for link in links],
        ).consume()
    return {
        "server": neo4j_server,
        "egypt": set(alexandria),
        "family": set(alexandria) | {lantern[1]},
        "troas": {lantern[0]},
    }


@pytest.fixture
def about(about_graph, monkeypatch):
    about_graph["server"].point_env(monkeypatch)
    return about_graph


@pytest.fixture
def connected(about):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.onnx_embedder import make_query_embedder

    settings = load_settings()
    with connect(settings) as graph:
        yield settings, graph, make_query_embedder(settings)


def ask_json(run_cli, *args):
    result = run_cli("ask", "--json", "--no-gate", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def evidence_ids(out: dict) -> set[str]:
    return {e["chunk_id"] for e in out["evidence"]}


def test_a_name_resolves_to_the_entity_most_chunks_mention_and_lists_the_other(about, connected):
    from graphrag_cypher.retrieval.about import resolve_about

    _, graph, _ = connected
    found = resolve_about(graph, "ALEXANDRIA")  # case and accents folded: all three bear the name
    assert found.chosen == {"id": EGYPT, "name": "Alexandria", "type": "Place", "chunks": len(about["egypt"])}
    assert found.ids == [EGYPT, STORY]  # its INSTANCE_OF family comes with it
    assert found.others == [{"id": TROAS, "name": "Alexandría", "type": "Place", "chunks": 1}]
    assert found.reason.startswith(
        f'"ALEXANDRIA" names 3 entities; chose {EGYPT} (Alexandria, Place, {len(about["egypt"])} chunks in scope), '
        "the one most chunks link to"
    )
    assert "\n" not in found.reason and "INSTANCE_OF family, 2 entities" in found.reason
    # by an alias of the second place; by the story entity's id (its family is the canonical place)
    assert resolve_about(graph, "alexandria troas").ids == [TROAS]
    by_id = resolve_about(graph, STORY)
    assert by_id.chosen["id"] == STORY and by_id.ids == [STORY, EGYPT]
    assert by_id.reason.startswith(f'"{STORY}" is the id of {STORY}')
    assert [e["id"] for e in by_id.others] == [TROAS]
    # chunks are counted in scope: in a corpus with none of them, every count is 0 (then by id)
    assert resolve_about(graph, "Alexandria", corpus="no-such-corpus").chosen == {
        "id": EGYPT,
        "name": "Alexandria",
        "type": "Place",
        "chunks": 0,
    }


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_keeps_only_evidence_that_mentions_the_entity(about, run_cli, mode):
    plain = ask_json(run_cli, QUESTION, "--mode", mode, "-k", "5")
    assert evidence_ids(plain) - about["family"], "without --about, other chunks are evidence"
    out = ask_json(run_cli, QUESTION, "--mode", mode, "-k", "5", "--about", "Alexandria")
    assert out["evidence"] and evidence_ids(out) <= about["family"], out["evidence"]
    assert out["filters"]["about"]["chosen"]["id"] == EGYPT
    assert out["filters"]["about"]["value"] == "Alexandria"
    assert [e["id"] for e in out["filters"]["about"]["others"]] == [TROAS]
    assert out["filters"]["about"]["reason"].startswith('"Alexandria" names 3 entities')
    # by id: the second place, whose only chunk is about the lantern
    by_id = ask_json(run_cli, QUESTION, "--mode", mode, "--about", TROAS)
    assert evidence_ids(by_id) == about["troas"], by_id["evidence"]


@pytest.mark.parametrize("mode", ["graph", "ppr"])
def test_the_procedures_and_the_cypher_files_filter_alike(about, connected, monkeypatch, mode):
    """graph and ppr run inside Neo4j when the plugin is there; the Cypher files and Python do the same."""
    from graphrag_cypher.admin import plugin
    from graphrag_cypher.retrieval.about import resolve_about
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    _, graph, embedder = connected
    analysis = QuestionAnalyzer(graph).analyze(QUESTION)
    analysis.filters.about = resolve_about(graph, "Alexandria").ids
    assert plugin.has(graph, "graphrag.retrieve.graph") and plugin.has(graph, "graphrag.ppr")
    in_neo4j = retriever(mode, graph, embedder).retrieve(analysis, 6)
    monkeypatch.setattr(plugin, "has", lambda graph, name: False)
    in_python = retriever(mode, graph, embedder).retrieve(analysis, 6)
    assert in_neo4j and {e.chunk_id for e in in_neo4j} <= about["family"]
    assert [e.chunk_id for e in in_python] == [e.chunk_id for e in in_neo4j]
    assert [e.via for e in in_python] == [e.via for e in in_neo4j]


def test_explain_says_which_entity_and_an_unknown_one_is_one_line(about, run_cli):
    shown = run_cli("ask", QUESTION, "--about", "alexandria", "--explain", "--no-gate")
    assert shown.exit_code == 0, shown.output
    assert f'  about: "alexandria" names 3 entities; chose {EGYPT} (Alexandria, Place, ' in shown.stdout
    unknown = run_cli("ask", QUESTION, "--about", "Xyzzy")
    assert unknown.exit_code == 1
    assert unknown.stderr.strip().splitlines() == ['Error: --about "Xyzzy": no entity or place has this id or name']


def test_chat_keeps_to_the_entity_and_refuses_an_unknown_one_before_it_starts(about):
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    result = CliRunner().invoke(
        cli, ["chat", "--about", "Alexandria", "--no-gate"], input=f"{QUESTION}\n/explain\n/quit\n"
    )
    assert result.exit_code == 0, result.output
    assert f'(about: "Alexandria" names 3 entities; chose {EGYPT}' in result.stderr
    trace = result.stdout.split("Retrieval trace")[-1]
    shown = [line.split("] ", 1)[1].split(" via ")[0] for line in trace.splitlines() if " via " in line]
    assert shown and set(shown) <= about["family"], trace
    refused = CliRunner().invoke(cli, ["chat", "--about", "Xyzzy"], input="/quit\n")
    assert refused.exit_code == 1 and "no entity or place has this id or name" in refused.output


def test_chat_and_openai_endpoints_take_about(about, connected):
    from fastapi.testclient import TestClient

    from graphrag_cypher.server.app import create_app
    from graphrag_cypher.server.options import ServerOptions

    settings, graph, embedder = connected
    app = create_app(settings, ServerOptions(use_llm=False), graph=graph, embedder=embedder)
    with TestClient(app) as http:
        body = {"question": QUESTION, "mode": "hybrid", "llm": False, "about": "Alexandria"}
        out = http.post("http://127.0.0.1/chat", json=body).json()
        by_id = http.post("http://127.0.0.1/chat", json=dict(body, about=TROAS, mode="vector")).json()
        unknown = http.post("http://127.0.0.1/chat", json=dict(body, about="Xyzzy"))
        blank = http.post("http://127.0.0.1/chat", json=dict(body, about=""))
        completion = http.post(
            "http://127.0.0.1/v1/chat/completions",
            json={"model": "graphrag-vector", "messages": [{"role": "user", "content": QUESTION}], "about": TROAS},
        ).json()
    assert out["evidence"] and evidence_ids(out) <= about["family"]
    assert out["filters"]["about"]["chosen"]["id"] == EGYPT
    assert evidence_ids(by_id) == about["troas"]
    assert unknown.status_code == 400
    assert unknown.json() == {"error": '--about "Xyzzy": no entity or place has this id or name'}
    assert blank.status_code == 422 and "about" in blank.json()["error"]
    titles = {c["document_id"] for c in completion["citations"]}
    with graph.driver.session(database=graph.database) as session:
        allowed = {
            r["d"]
            for r in session.run(
                "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE c.id IN $ids RETURN d.id AS d",
                ids=sorted(about["troas"]),
            )
        }
    assert titles <= allowed


def _search(graph, config: dict) -> list[dict]:
    with graph.driver.session(database=graph.database) as session:
        return session.run(
            "CALL graphrag.search($q, $config) YIELD chunkId, score, via RETURN chunkId, score, via",
            q=QUESTION,
            config=config,
        ).data()


@pytest.fixture
def java_embedder(onnx_export):
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")


@pytest.mark.usefixtures("java_embedder")
@pytest.mark.parametrize("mode", ["graph", "hybrid", "vector"])
def test_the_search_procedure_obeys_about(about, connected, mode):
    from graphrag_cypher.retrieval.about import resolve_about
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    _, graph, embedder = connected
    rows = _search(graph, {"mode": mode, "k": 5, "about": "Alexandria"})
    assert rows and {r["chunkId"] for r in rows} <= about["family"]
    # as the Python retriever ranks them (the question is embedded in Java: scores to float rounding)
    analysis = QuestionAnalyzer(graph).analyze(QUESTION)
    analysis.filters.about = resolve_about(graph, "Alexandria").ids
    evidence = retriever(mode, graph, embedder).retrieve(analysis, 5)
    assert [r["chunkId"] for r in rows] == [e.chunk_id for e in evidence]
    # a list: chunks that mention any of them, each resolved (an id, a name)
    both = _search(graph, {"mode": mode, "k": 8, "about": [TROAS, "alexandria"]})
    assert {r["chunkId"] for r in both} <= about["family"] | about["troas"]
    assert about["troas"] <= {r["chunkId"] for r in _search(graph, {"mode": mode, "k": 3, "about": [TROAS]})}


def test_the_procedures_check_about(about, connected):
    from neo4j.exceptions import ClientError

    _, graph, _ = connected
    with graph.driver.session(database=graph.database) as session:
        for call in (
            "CALL graphrag.search('lantern', $config) YIELD chunkId RETURN chunkId",
            "CALL graphrag.retrieve.graph([0.1, 0.2], 'lantern', $config) YIELD chunkId RETURN chunkId",
            "CALL graphrag.retrieve.neighbours(['x'], [0.1, 0.2], $config) YIELD chunkId RETURN chunkId",
        ):
            for bad, shown in ((5, "5"), ([EGYPT, 7], "a list of 2"), ("x" * 201, "'" + "x" * 39)):
                with pytest.raises(ClientError) as refused:
                    session.run(call, config={"about": bad}).consume()
                message = refused.value.message
                assert "\n" not in message, message
                assert (
                    "config about must be text of at most 200 characters or a list of at most 1000 such texts, "
                    f"not {shown}"
                ) in message, message
        with pytest.raises(ClientError) as unknown:
            session.run("CALL graphrag.search('lantern', {about: 'Xyzzy'}) YIELD chunkId RETURN chunkId").consume()
        assert "graphrag.search: about 'Xyzzy': no entity or place has this id or name" in unknown.value.message
        # accepted: an id as text, a list of ids, null (absent)
        for good, chunks in ((TROAS, about["troas"]), ([EGYPT, TROAS], about["egypt"] | about["troas"]), (None, None)):
            rows = session.run(
                "MATCH (c:Chunk) WITH c ORDER BY c.id LIMIT 1 CALL graphrag.retrieve.graph(c.embedding, 'lantern', "
                "$config) YIELD chunkId RETURN chunkId",
                config={"about": good, "k": 3},
            ).data()
            assert rows and (chunks is None or {r["chunkId"] for r in rows} <= chunks)
