"""Text-to-Cypher's results stay bounded and its citations stay true, through a real Neo4j and a
scripted LLM: rows of 1 MB each are cut (rows, bytes, long values) with a note in the answer and
the JSON; a row that returns literal text beside a real node id never puts that text under the
node's citation; and the server remembers answers for GET /graph?answer= within a byte budget,
saying why one too big to remember is not."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from ..conftest import STRUCTURED_GRAPH, load_sample_graph
from ..e2e.serve.conftest import KEY, start_server, stop_server
from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

QUESTION = "Which characters killed more than one person?"  # the templates leave it to text-to-Cypher
# 60 rows of a 1 MiB string each (twenty doublings of "x"), built in Neo4j
HUGE = "UNWIND range(1, 60) AS i RETURN i AS n, reduce(s = 'x', k IN range(1, 20) | s + s) AS blob"
LIE = "FORGED: the moon is cheese"


@pytest.fixture(scope="module")
def graph(neo4j_server):
    """The structured route's test graph (records and tales), shared with test_ask_structured."""
    load_sample_graph(
        neo4j_server,
        *STRUCTURED_GRAPH,
    )
    return neo4j_server


def statement_reply(statement: str):
    def reply(body: dict) -> str:
        text = json.dumps(body.get("messages"), ensure_ascii=False)
        return f"```cypher\n{statement}\n```" if "<question>" in text else "The graph does not say."

    return reply


@pytest.fixture
def recorded(graph, monkeypatch):
    """recorded(statement): a scripted LLM whose text-to-Cypher reply is `statement`."""
    servers: list[LLMServer] = []

    def start(statement: str) -> LLMServer:
        server = LLMServer(reply=statement_reply(statement))
        servers.append(server)
        graph.point_env(monkeypatch)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("GRAPHRAG_LLM_MODEL", "recorded-cypher")
        return server

    yield start
    for server in servers:
        server.close()


def ask_json(run_cli, question: str = QUESTION) -> tuple[dict, int]:
    result = run_cli("ask", question, "--json", "--no-gate")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), len(result.stdout.encode())


def read(graph, text: str, **params) -> list[dict]:
    with graph.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


# --- 1. rows of 1 MB each ----------------------------------------------------------------------


def test_huge_rows_are_cut_at_the_row_budget_with_a_note(recorded, run_cli):
    recorded(HUGE)
    out, size = ask_json(run_cli)
    assert out["route"] == "structured" and out["structured"]["method"] == "text2cypher"
    cut = out["structured"]["cut"]
    assert "more than 50 rows: the first 50 are shown (GRAPHRAG_CYPHER_MAX_ROWS)" in cut
    assert "values longer than 1000 characters are cut (GRAPHRAG_CYPHER_MAX_VALUE_CHARS)" in cut
    assert len(out["rows"]) == 50 and [r["returned"]["n"] for r in out["rows"]] == list(range(1, 51))
    blob = out["rows"][0]["returned"]["blob"]
    assert blob == "x" * 999 + "…"
    assert "The result was cut" in out["answer"] and "GRAPHRAG_CYPHER_MAX_ROWS" in out["answer"]
    # 60 MiB of rows in the database; the whole answer (text, rows, trace) stays small
    assert size < 1024 * 1024, size

    printed = run_cli("ask", QUESTION, "--no-gate")
    assert printed.exit_code == 0, printed.output
    assert "The result was cut" in printed.stdout and len(printed.stdout) < 1024 * 1024


def test_the_byte_budget_cuts_the_rows_once_their_json_passes_it(recorded, run_cli, monkeypatch):
    recorded(HUGE)
    monkeypatch.setenv("GRAPHRAG_CYPHER_MAX_BYTES", "4096")
    monkeypatch.setenv("GRAPHRAG_CYPHER_MAX_VALUE_CHARS", "200")
    out, _ = ask_json(run_cli)
    cut = out["structured"]["cut"]
    kept = len(out["rows"])
    assert f"the rows passed 4 KiB of JSON: the first {kept} are shown (GRAPHRAG_CYPHER_MAX_BYTES)" in cut
    # each row is {"n": i, "blob": 199 x's and "…"}: about 220 bytes, so 4096 bytes hold 18 of them
    assert 15 <= kept <= 19, kept
    assert all(len(r["returned"]["blob"]) == 200 for r in out["rows"])
    row_bytes = sum(len(json.dumps(r["returned"], ensure_ascii=False).encode()) + 1 for r in out["rows"])
    assert row_bytes <= 4096


def test_a_first_row_past_the_byte_budget_leaves_the_question_to_search_saying_why(recorded, run_cli, monkeypatch):
    recorded("RETURN reduce(s = 'y', k IN range(1, 12) | s + s) AS blob, 1 AS one")
    monkeypatch.setenv("GRAPHRAG_CYPHER_MAX_BYTES", "1024")
    monkeypatch.setenv("GRAPHRAG_CYPHER_MAX_VALUE_CHARS", "5000")
    out, _ = ask_json(run_cli)
    assert out["route"] == "search"
    assert "its rows were cut (the rows passed 1 KiB of JSON: the first 0 are shown" in out["structured"]["reason"]


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GRAPHRAG_CYPHER_MAX_ROWS", "0"),
        ("GRAPHRAG_CYPHER_MAX_ROWS", "lots"),
        ("GRAPHRAG_CYPHER_MAX_BYTES", "10"),
        ("GRAPHRAG_CYPHER_MAX_VALUE_CHARS", "-5"),
    ],
)
def test_a_bad_budget_is_one_line(variable, value):
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval.structured.cypher_rows import ResultBudget

    with pytest.raises(GraphragError) as caught:
        ResultBudget.from_env({variable: value})
    assert str(caught.value).startswith(f"{variable}={value!r}: give a whole number from ")
    assert "\n" not in str(caught.value)
    assert ResultBudget.from_env({}) == ResultBudget(rows=50, bytes=65536, value_chars=1000)


# --- 2. citations are never forged --------------------------------------------------------------


def assert_not_cited(out: dict, lie: str) -> None:
    """`lie` is nowhere an answer shows under a citation: not in its text, sources, citations or evidence."""
    assert lie not in out["answer"] and lie not in out["answer_with_titles"]
    for key in ("sources", "citations", "evidence", "mermaid"):
        assert lie not in json.dumps(out[key], ensure_ascii=False), key
    for row in out["rows"]:
        assert lie not in row["name"] and lie not in str(row.get("title"))


def test_literal_text_beside_a_real_chunk_id_is_never_quoted_under_its_citation(graph, recorded, run_cli):
    recorded(f"MATCH (c:Chunk) RETURN c.id AS id, '{LIE}' AS text ORDER BY c.id LIMIT 1")
    out, _ = ask_json(run_cli)
    assert out["route"] == "structured" and out["structured"]["method"] == "text2cypher"
    assert_not_cited(out, LIE)
    (row,) = out["rows"]
    # cited to the chunk's document, and shown by the document's title as the graph holds it
    (truth,) = read(
        graph,
        "MATCH (c:Chunk {id: $id})-[:FROM_DOCUMENT]->(d:Document) RETURN d.id AS doc, d.title AS title, c.text AS text",
        id=row["id"],
    )
    (source,) = [s for s in out["sources"] if s["id"] == row["cite"]]
    assert source["document_id"] == truth["doc"] and source["title"] == truth["title"]
    assert row["name"] == truth["title"] and truth["title"] in out["answer"]
    assert [ev["text"] for ev in out["evidence"]] == [truth["text"]]
    # the literal may be shown as a row: apart from the citation, and said so
    assert row["uncited"] == [LIE] and row["returned"] == {"id": row["id"], "text": LIE}
    assert "not read from a cited source" in out["answer"]

    printed = run_cli("ask", QUESTION, "--no-gate", "--explain")
    assert printed.exit_code == 0, printed.output
    # the statement itself is shown (--explain's "cypher:" line); no other line holds the literal
    lines = [line for line in printed.stdout.splitlines() if LIE in line]
    assert [line.strip().split(":", 1)[0] for line in lines] == ["cypher"], lines
    assert truth["title"] in printed.stdout


def test_a_made_up_node_map_and_a_mixed_row_quote_only_what_the_graph_holds(graph, recorded, run_cli):
    recorded(
        "MATCH (c:Character) WHERE c.name = 'Bera Vane' "
        f"RETURN {{id: c.id, name: '{LIE}', labels: ['Character']}} AS who, c.id AS id, c.name AS name, "
        "'dragon' AS claim, 7 AS n"
    )
    out, _ = ask_json(run_cli)
    assert_not_cited(out, LIE)
    assert "dragon" not in out["answer"] and not re.search(r"\b7\b", out["answer"])
    (row,) = out["rows"]
    assert row["cite"] and row["name"] == "Bera Vane" and "Bera Vane" in out["answer"]
    assert row["uncited"] == [LIE, "dragon", "7"]
    # a real value of the node the row names stays quoted beside its citation
    recorded("MATCH (c:Character) WHERE c.name = 'Bera Vane' RETURN c.id AS id, c.name AS name")
    out, _ = ask_json(run_cli)
    (row,) = out["rows"]
    assert row["name"] == "Bera Vane" and row["uncited"] == [] and "not read from" not in out["answer"]
    assert f"Bera Vane [{row['cite']}]" in out["answer"]


def test_a_row_naming_no_node_of_the_graph_is_shown_without_a_citation(recorded, run_cli):
    recorded(f"RETURN 'nope:404' AS id, '{LIE}' AS text")
    out, _ = ask_json(run_cli)
    (row,) = out["rows"]
    assert row["cite"] is None and out["citations"] == [] and out["sources"] == []
    assert LIE in out["answer"] and "[" not in out["answer"]


# --- 3. the server's answer cache is bounded by bytes --------------------------------------------


def test_answer_cache_keeps_the_newest_within_its_bytes():
    from graphrag_cypher.server.common import AnswerCache

    def answer(i: int, text: str) -> dict:
        return {"evidence": [{"chunk_id": f"c{i}", "text": text}], "answer": text, "rows": [], "paths": []}

    cache = AnswerCache(2000)
    for i in range(40):
        assert cache.put(f"a{i}", answer(i, "x" * 10_000))  # the text is not what /graph reads
        assert cache.used <= 2000
    kept = [i for i in range(40) if cache.get(f"a{i}") is not None]
    assert kept and kept == list(range(40 - len(kept), 40)) and len(kept) < 40
    assert cache.get("a39") == {
        "paths": [],
        "structured": None,
        "rows": [],
        "evidence": [{"chunk_id": "c39"}],
        "question": "",  # what the confidence cut reads: the question and the entities it names
        "entities": [],
    }

    big = {"evidence": [{"chunk_id": "c" * 5000}], "rows": [], "paths": []}
    assert not cache.put("big", big)
    assert cache.get("big") is None and cache.too_big("big") > 2000
    assert cache.get("a39") is not None  # nothing else was pushed out for it


def test_the_server_says_why_a_too_big_answer_is_not_remembered(graph, tmp_path):
    llm = LLMServer(statement_reply(HUGE))
    served = start_server(graph, tmp_path, KEY, llm, env_extra={"GRAPHRAG_ANSWER_CACHE_BYTES": "20000"})
    try:
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=120) as http:
            response = http.post("/chat", json={"question": QUESTION})
            assert response.status_code == 200, response.text
            big = response.json()
            assert big["structured"]["cut"] and "The result was cut" in big["answer"]
            drawn = http.get("/graph", params={"answer": big["answer_id"]})
            assert drawn.status_code == 404
            message = drawn.json()["error"]
            assert f"answer '{big['answer_id']}' was not remembered" in message
            assert "more than the 20000 the server keeps for answers (GRAPHRAG_ANSWER_CACHE_BYTES)" in message

            small = http.post("/chat", json={"question": "Who killed Aldric Vane?", "llm": False}).json()
            drawn = http.get("/graph", params={"answer": small["answer_id"]})
            assert drawn.status_code == 200 and drawn.json()["nodes"], drawn.text
            unknown = http.get("/graph", params={"answer": "0123456789abcdef"})
            assert (
                unknown.status_code == 404 and "no answer '0123456789abcdef' is remembered" in unknown.json()["error"]
            )
    finally:
        stop_server(served)
        llm.close()
