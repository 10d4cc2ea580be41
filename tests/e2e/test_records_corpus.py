"""Records loaded into a corpus (`load records --corpus`) belong to it: a key scoped to the corpus
gets structured answers from them, a key of another corpus sees nothing of them (no row, no
name, no document), a second load changes nothing, and forgetting the file's document takes its
relations and the entities only it named away. Gold answers come from the fixture file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_cypher.principal import Principal, acting_as

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kg" / "structured"
CHARACTERS = FIXTURES / "characters.json"
DOCUMENT = "records:vane:characters.json"
LOAD = ["load", "records", str(CHARACTERS), "--mapping", "got-characters", "--corpus", "vane"]
VANE = Principal("vane-team", ("vane",))
FEN = Principal("fen-team", ("fen",))


@pytest.fixture(scope="module")
def graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server, LOAD, ["load", "stories", str(FIXTURES / "tales.jsonl"), "--corpus", "fen"])
    return neo4j_server


@pytest.fixture
def ask(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)

    def run(question: str, principal: Principal | None = None) -> dict:
        if principal is None:
            result = run_cli("ask", question, "--json", "--no-llm")
        else:
            with acting_as(principal):
                result = run_cli("ask", question, "--json", "--no-llm")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


def killers_of(name: str) -> set[str]:
    """Who killed `name`, from the fixture: its `killedBy` and everyone whose `killed` names it."""
    records = json.loads(CHARACTERS.read_text())["characters"]
    of = {r["characterName"]: r for r in records}
    return set(of[name].get("killedBy", [])) | {r["characterName"] for r in records if name in r.get("killed", [])}


def counts(server) -> tuple[int, int]:
    """Entities and documents, and the relationships that touch an entity (what records write;
    `forget` also links phrases afresh, which is not theirs)."""
    row = server.rows(
        "MATCH (n) WHERE n:__Entity__ OR n:Document WITH count(n) AS n "
        "MATCH (:__Entity__)-[r]-() RETURN n, count(DISTINCT r) AS r",
    )[0]
    return row["n"], row["r"]


def documents_seen_by(principal: Principal) -> set[str]:
    """The document ids GET /documents and MCP list for `principal` (the same scoped read)."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.store.documents import list_documents

    with connect(load_settings()) as graph, acting_as(principal):
        return {d["id"] for d in list_documents(graph, limit=500)}


def test_a_key_of_the_records_corpus_gets_the_structured_answer_and_the_record_cited(ask):
    gold = killers_of("Aldric Vane")
    assert gold == {"Mira Holt"}
    for principal in (VANE, None):  # the corpus's key, and the machine's own (every corpus)
        out = ask("Who killed Aldric Vane?", principal)
        assert out["route"] == "structured", out.get("trace")
        assert {r["name"] for r in out["rows"]} == gold
        cited = {c["id"]: c for c in out["citations"]}
        assert "characters.json" in cited[out["rows"][0]["cite"]]["title"]


def test_a_key_of_another_corpus_sees_nothing_of_the_records(ask, graph, monkeypatch):
    names = {r["characterName"] for r in json.loads(CHARACTERS.read_text())["characters"]}
    for question in ("Who killed Aldric Vane?", "Who are the parents of Cole Vane?", "Which house is Mira Holt in?"):
        out = ask(question, FEN)
        assert not out.get("rows"), (question, out["route"], out.get("rows"))
        shown = json.dumps(out, ensure_ascii=False)
        assert not [n for n in names if n in shown and n not in question], (question, out["answer"])
    graph.point_env(monkeypatch)
    assert DOCUMENT not in documents_seen_by(FEN)
    assert DOCUMENT in documents_seen_by(VANE)


def test_loading_again_changes_nothing_and_forgetting_the_file_takes_it_away(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)
    before = counts(graph)
    again = run_cli(*LOAD, "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["document"] == DOCUMENT
    assert counts(graph) == before, "a second load of the same file writes nothing new"
    [doc] = graph.rows(
        "MATCH (d:Document {id: $id}) RETURN d.corpus AS corpus, d.kind AS kind, d.records AS records,"
        " COUNT { (d)-[:DESCRIBES]->() } AS described",
        id=DOCUMENT,
    )
    records = json.loads(CHARACTERS.read_text())["characters"]
    assert (doc["corpus"], doc["kind"], doc["records"]) == ("vane", "records", len(records))
    assert doc["described"] >= len(records)  # every character, and the houses and actors they name
    sourced = graph.rows("MATCH ()-[r]->() WHERE r.documentId = $id RETURN count(r) AS n", id=DOCUMENT)[0]["n"]
    assert sourced > 0
    try:
        gone = run_cli("forget", DOCUMENT, "--json")
        assert gone.exit_code == 0, gone.output
        [report] = json.loads(gone.stdout)["forgotten"]
        assert report["relations"] == sourced
        left = graph.rows("MATCH (e:__Entity__) WHERE e.source = 'records:characters.json' RETURN count(e) AS n")[0][
            "n"
        ]
        assert left == 0, "the entities only the file named are gone with it"
        assert graph.rows("MATCH ()-[r]->() WHERE r.documentId = $id RETURN count(r) AS n", id=DOCUMENT)[0]["n"] == 0
    finally:
        assert run_cli(*LOAD).exit_code == 0
    assert counts(graph) == before, "loaded again after forgetting: the same graph"


def test_a_file_of_no_records_leaves_no_document_in_the_corpus(graph, run_cli, monkeypatch, tmp_path):
    graph.point_env(monkeypatch)
    empty = tmp_path / "nobody.json"
    empty.write_text('{"characters": []}')
    loaded = run_cli("load", "records", str(empty), "--mapping", "got-characters", "--corpus", "vane", "--json")
    assert loaded.exit_code == 0, loaded.output
    assert json.loads(loaded.stdout)["records"] == 0 and "document" not in json.loads(loaded.stdout)
    assert graph.rows("MATCH (d:Document {id: 'records:vane:nobody.json'}) RETURN d.id AS id") == []
