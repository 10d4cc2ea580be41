"""The LLM extractor over documents that are not stories (a folder of notes), against the
scripted OpenAI-compatible server: requests in flight at once build the same graph as one at a
time, a second run asks nothing and changes nothing, and a 429's Retry-After is waited out."""

import json
import os
import re

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

PEOPLE = ["Ada Marsh", "Bram Holt", "Cora Vell", "Dane Ruske", "Edda Fane", "Finn Oake", "Gwen Lark", "Hugo Tarn"]
PLACES = ["Saltmere", "Kestrel Hill", "Oldwick", "Brackenford"]
NOTE_NAMES = re.compile("|".join(map(re.escape, PEOPLE + PLACES)))


def note(i: int) -> str:
    """Three paragraphs, each naming a person and a place: with a small --max-chars each is a unit."""
    return "\n\n".join(
        f"{PEOPLE[(i + k) % len(PEOPLE)]} was born in {PLACES[(i + k) % len(PLACES)]} (register {i}.{k}). "
        + "".join(f"The parish register of {1700 + 10 * i + k} records the baptism, witness {j}. " for j in range(3))
        for k in range(3)
    )


def reply(body: dict) -> str:
    """Entities are the known names in the text, in order; a person is BORN_IN the place after it."""
    text = body["messages"][-1]["content"]
    names = list(dict.fromkeys(NOTE_NAMES.findall(text)))
    ids = {name: f"E{n}" for n, name in enumerate(names, 1)}
    entities = [
        {
            "id": ids[name],
            "type": "Person" if name in PEOPLE else "Place",
            "name": name,
            "original_name": name,
            "description": f"named in {len(text)} characters",
        }
        for name in names
    ]
    relations = [
        {"source": ids[a], "target": ids[b], "type": "BORN_IN", "description": "the register says so"}
        for a, b in zip(names, names[1:], strict=False)
        if a in PEOPLE and b in PLACES
    ]
    return json.dumps({"entities": entities, "relations": relations})


@pytest.fixture
def notes(schema, run_cli, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(8):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\n{note(i)}\n", encoding="utf-8")
    result = run_cli("load", "files", str(folder), "--corpus", "notes", "--chunk-size", "300", "--no-embed")
    assert result.exit_code == 0, result.output
    return schema


def env_for(server, **extra):
    return {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "scripted-notes", **extra}


def extract(run_cli, server, *args, code=0, **env):
    result = run_cli(
        "extract", "--extractor", "llm", "--schema", "generic", "--corpus", "notes", *args, "--json",
        env=env_for(server, **env),
    )  # fmt: skip
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def cypher(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def fingerprint():
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.kg import llm_extract

    with connect(load_settings()) as graph:
        return llm_extract.graph_fingerprint(graph)


def reset():
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.kg import llm_extract

    settings = load_settings(dict(os.environ, GRAPHRAG_LLM_MODEL="scripted-notes"))
    with connect(settings) as graph:
        return llm_extract.reset(graph, settings)


def test_a_folder_of_notes_is_extracted_as_documents(notes, run_cli):
    server = LLMServer(reply=reply)
    try:
        refused = run_cli("extract", "--extractor", "llm", "--corpus", "notes", env=env_for(server))
        assert refused.exit_code != 0 and "8 file document(s): pass --kind KIND, or --kind all" in refused.output
        out = extract(run_cli, server, "--kind", "file", "--max-chars", "400", "--concurrency", "4")
    finally:
        server.close()
    assert out["documents"]["extracted"] == 8 and out["documents"]["failed"] == 0
    assert out["requests"] == len(server.requests) > 16, "several units per note"
    assert out["cacheHits"] == 0 and out["concurrency"] == 4
    system, user = server.requests[0]["body"]["messages"]
    assert "from a document." in system["content"] and "from a story" not in system["content"]
    assert user["content"].startswith("Document:\n\n")
    rows = cypher(
        notes,
        "MATCH (d:Document) WHERE d.id ENDS WITH ':note0.md' "
        "MATCH (e:Person {documentId: d.id, name: 'Ada Marsh'})-[:BORN_IN]->(p:Place {name: 'Saltmere'}) "
        "RETURN e.id AS id, d.id AS doc, d.extractedBy AS by, "
        "[(e)-[:INSTANCE_OF]->(c {canonical: true}) | c.id] AS canon, "
        "[(c:Chunk)-[:MENTIONS]->(e) | c.id] AS chunks",
    )
    assert len(rows) == 1, rows
    row = rows[0]
    assert row["id"] == f"{row['doc']}::E1" and row["canon"] == ["generic:ada marsh"]
    assert row["by"] == "llm:scripted-notes generic kg-extract-document-1"
    assert row["chunks"] and all(c.startswith(row["doc"] + "::") for c in row["chunks"])
    # Ada is born in Saltmere in note0 and note4 (and named in note6, note7): one canonical entity
    assert cypher(notes, "MATCH (:Person)-[:INSTANCE_OF]->(c {id: 'generic:ada marsh'}) RETURN count(*) AS n")[0][
        "n"
    ] == len([i for i in range(8) if "Ada Marsh" in note(i)])


def test_one_document_by_id(notes, run_cli):
    doc = cypher(notes, "MATCH (d:Document) WHERE d.id ENDS WITH ':note3.md' RETURN d.id AS id")[0]["id"]
    server = LLMServer(reply=reply)
    try:
        out = extract(run_cli, server, "--document", doc)
    finally:
        server.close()
    assert out["documents"]["total"] == 1 and out["documents"]["extracted"] == 1 and out["requests"] == 1
    assert cypher(notes, "MATCH (e:__Entity__ {scope: 'story'}) RETURN DISTINCT e.documentId AS d") == [{"d": doc}]


def test_concurrency_8_builds_the_graph_concurrency_1_builds(notes, run_cli):
    server = LLMServer(reply=reply, delay=0.05)
    try:
        one = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--concurrency", "1", "--no-cache")
        assert server.most_in_flight == 1
        first = fingerprint()
        assert reset() == 8 and fingerprint() != first
        server.most_in_flight = 0
        eight = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--concurrency", "8", "--no-cache")
        assert server.most_in_flight > 2, "requests were in flight at once"
    finally:
        server.close()
    assert one["requests"] == eight["requests"] > 16
    assert fingerprint() == first
    assert {k: one[k] for k in ("nodesByType", "edgesBuilt", "written")} == {
        k: eight[k] for k in ("nodesByType", "edgesBuilt", "written")
    }


def test_a_second_run_sends_nothing_and_changes_nothing(notes, run_cli):
    server = LLMServer(reply=reply)
    try:
        first = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--concurrency", "8")
        before, sent = fingerprint(), len(server.requests)
        again = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--concurrency", "8")
        assert len(server.requests) == sent == first["requests"] > 16 and fingerprint() == before
        resumed = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--resume")
        # other units are other text: asked for once
        whole = extract(run_cli, server, "--kind", "all", "--max-chars", "20000")
        twice = extract(run_cli, server, "--kind", "all", "--max-chars", "20000")
    finally:
        server.close()
    assert again["requests"] == 0 and again["cacheHits"] == sent and again["documents"]["extracted"] == 8
    assert again["written"]["nodesCreated"] == 0 and again["written"]["relationshipsCreated"] == 0
    assert resumed["requests"] == 0 and resumed["documents"]["skipped"] == 8
    assert whole["requests"] == 8 and twice["requests"] == 0 and twice["cacheHits"] == 8


def test_a_429_is_retried_after_its_retry_after_while_others_go_on(notes, run_cli):
    server = LLMServer(reply=reply, fail_first=1, retry_after="1")
    try:
        out = extract(run_cli, server, "--kind", "all", "--max-chars", "400", "--concurrency", "8")
    finally:
        server.close()
    assert out["documents"]["extracted"] == 8 and len(server.requests) == out["requests"] + 1
    refused = next(r for r in server.requests if r["status"] == 429)
    retried = [r for r in server.requests if r["body"] == refused["body"] and r is not refused]
    assert len(retried) == 1 and retried[0]["status"] == 200
    assert retried[0]["at"] - refused["at"] >= 0.95, "the client waited for Retry-After"
    others = [r for r in server.requests if refused["at"] < r["at"] < retried[0]["at"]]
    assert others, "the other requests went on meanwhile"
