"""The structured route on a small graph of our own: relation lookups both ways, inverse and
symmetric pairs, counts, every document that mentions a term, Chinese, and the questions
that must stay on the search route. Gold answers come from the fixture files, not from the
system's output."""

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kg" / "structured"


@pytest.fixture(scope="module")
def graph(neo4j_server):
    from ..conftest import STRUCTURED_GRAPH, load_sample_graph

    load_sample_graph(
        neo4j_server,
        *STRUCTURED_GRAPH,
    )
    return neo4j_server


@pytest.fixture
def ask(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)

    def run(question: str, *extra: str) -> dict:
        result = run_cli("ask", question, "--json", "--no-llm", *extra)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


def records() -> dict[str, dict]:
    return {r["characterName"]: r for r in json.loads((FIXTURES / "characters.json").read_text())["characters"]}


def names(answer: dict) -> set[str]:
    return {r["name"] for r in answer["rows"]}


def test_who_killed_reads_the_edge_forward_and_cites_the_record(ask):
    out = ask("Who killed Aldric Vane?")
    assert out["route"] == "structured" and out["structured"]["family"] == "lookup"
    assert names(out) == set(records()["Aldric Vane"]["killedBy"]) == {"Mira Holt"}
    assert "Mira Holt" in out["answer"]
    cited = {c["id"]: c for c in out["citations"]}
    assert out["rows"][0]["cite"] in cited and "characters.json" in cited[out["rows"][0]["cite"]]["title"]
    assert out["structured"]["hops"][0] == {
        "relation": "KILLED_BY",
        "direction": "out",
        "phrase": "killed",
        "matched_by": "phrase",
        "score": 1.0,
    }


@pytest.mark.parametrize(
    "question",
    ["Whom did Bera Vane kill?", "Who were the victims of Bera Vane?", "Who was killed by Bera Vane?"],
)
def test_the_other_direction(ask, question):
    # Bera's record lists whom she killed; Sela's lists Bera as her killer: both edges count
    gold = set(records()["Bera Vane"]["killed"]) | {
        n for n, r in records().items() if "Bera Vane" in r.get("killedBy", [])
    }
    out = ask(question)
    assert out["route"] == "structured", out["structured"]
    assert names(out) == gold == {"Dunstan Roe", "Edda Pike", "Sela Holt"}
    assert out["structured"]["hops"][0]["direction"] == "in"


def test_passive_with_by_first(ask):
    out = ask("By whom was Aldric Vane slain?")
    assert names(out) == {"Mira Holt"}


def test_count_gives_the_number_first_and_the_list(ask):
    out = ask("How many people did Bera Vane kill?")
    assert out["structured"]["family"] == "count"
    assert re.search(r"\d+", out["answer"]).group(0) == "3"
    assert all(n in out["answer"] for n in ("Dunstan Roe", "Edda Pike", "Sela Holt"))


def test_members_of_a_house_and_inverse_pairs(ask):
    members = {
        n
        for n, r in records().items()
        if "Holt" in ([r["houseName"]] if isinstance(r["houseName"], str) else r["houseName"])
    }
    assert names(ask("Which characters belong to House Holt?")) == members == {"Cole Vane", "Mira Holt", "Sela Holt"}
    assert names(ask("Who are the members of House Holt?")) == members
    # PARENT_OF on Aldric's record and CHILD_OF on Cole's are one fact read both ways
    assert names(ask("Who are the parents of Cole Vane?")) == {"Aldric Vane", "Sela Holt"}
    assert names(ask("Whose son is Cole Vane?")) == {"Aldric Vane", "Sela Holt"}
    assert names(ask("Who are the children of Aldric Vane?")) == {"Cole Vane"}
    # symmetric
    assert names(ask("Who is Dunstan Roe married to?")) == {"Mira Holt"}
    assert names(ask("Who are the siblings of Bera Vane?")) == {"Aldric Vane"}


def test_actors_both_ways(ask):
    assert names(ask("Who played Cole Vane?")) == {"Ravi Lune", "Otto Brisk"}
    assert names(ask("Which character did Jun Arden play?")) == {"Mira Holt"}


def test_which_tales_mention_every_document_on_word_boundaries(ask):
    stories = [json.loads(line) for line in (FIXTURES / "tales.jsonl").read_text().splitlines()]
    gold = {s["title"] for s in stories if re.search(r"\b(?:witch|witches)\b", s["text"], re.I)}
    out = ask("Which tales mention a witch?")
    assert out["structured"]["family"] == "documents"
    # every inflection counts ("Three witches sat …"); "The Switchman" does not
    assert {c["title"] for c in out["citations"]} == gold
    assert gold == {"The Witch of the Fen", "The Miller's Daughter", "Three Witches"}
    assert all(title in out["answer"] for title in gold)
    assert out["answer"].startswith("3 tales mention “witch” (2 “witch”, 1 only “witches”): ")
    plural = ask("Which tales mention witches?")
    assert {c["title"] for c in plural["citations"]} == gold, "one answer for the singular and the plural"
    assert plural["answer"].startswith("3 tales mention “witches” (1 “witches”, 2 only “witch”): ")
    counted = ask("How many of the tales mention witches?")
    assert counted["answer"].startswith("3 of the 5 tales mention “witches”")
    count = ask("How many of the tales mention a fox?")
    assert count["structured"]["family"] == "count_documents"
    assert count["answer"].startswith("2 of the 5 tales")
    none = ask("How many tales mention a dragon?")
    assert re.search(r"\d+", none["answer"]).group(0) == "0" and none["route"] == "structured"


def test_irregular_plurals_and_possessive_plurals_count_as_the_term(ask):
    """ "geese" finds "a golden goose", "millers' daughters" finds "The miller's daughter" (s5, s3):
    the number first, then how the documents write it."""
    geese = ask("How many tales mention geese?")
    assert geese["answer"].startswith("1 of the 5 tales mentions “geese” (written “goose”): The Golden Goose")
    assert {c["title"] for c in geese["citations"]} == {"The Golden Goose"}
    daughters = ask("Which tales mention millers' daughters?")
    assert daughters["structured"]["family"] == "documents"
    assert {c["title"] for c in daughters["citations"]} == {"The Miller's Daughter"}
    assert "(written “miller's daughter”)" in daughters["answer"]
    assert "miller's daughter" in daughters["structured"]["reason"], "--explain names the forms searched"
    assert daughters["structured"]["scope"]["forms"]["other_documents"] == 1
    same = ask("Which tales mention the miller’s daughter?")
    assert {c["title"] for c in same["citations"]} == {"The Miller's Daughter"}
    assert "(" not in same["answer"].split(":")[0], "written as asked: no breakdown"


@pytest.mark.parametrize(
    "question",
    [
        "How many tales have a fox in them?",
        "How many tales is a fox mentioned in?",
        "What number of tales mention foxes?",
        "What is the number of tales that mention a fox?",
    ],
)
def test_more_ways_to_ask_how_many_documents(ask, question):
    out = ask(question)
    assert out["route"] == "structured" and out["structured"]["family"] == "count_documents"
    assert out["answer"].startswith("2 of the 5 tales mention “fox")
    assert {c["title"] for c in out["citations"]} == {"The Witch of the Fen", "The Miller's Daughter"}


def test_chinese_with_the_schemas_own_phrases(ask):
    companies = {c["名称"]: c for c in json.loads((FIXTURES / "zh-companies.json").read_text())["companies"]}
    out = ask("谁创办了星河科技？")
    assert out["route"] == "structured", out["structured"]
    assert names(out) == set(companies["星河科技"]["创办人"])
    assert names(ask("星河科技的创办人是谁？")) == set(companies["星河科技"]["创办人"])
    founded = ask("张伟创办了几家公司？")
    assert re.search(r"\d+", founded["answer"]).group(0) == "2"
    docs = [p for p in (FIXTURES / "zh-docs").iterdir() if "深圳" in p.read_text()]
    mention = ask("哪些文章提到了深圳？")
    assert mention["structured"]["family"] == "documents" and len(mention["rows"]) == len(docs) == 2
    count = ask("有多少篇文章提到了人工智能？")
    assert re.search(r"\d+", count["answer"]).group(0) == "2"


def test_questions_that_are_not_structured_stay_on_search(ask):
    for question in (
        "What did the fox watch every night?",
        "Who is Aldric Vane?",
        "What happened to Aldric Vane at the mill?",
        "How are Aldric Vane and Mira Holt related?",
    ):
        out = ask(question)
        assert out["route"] in ("search", "relation"), (question, out["structured"])


def test_a_name_cannot_forge_a_citation(ask):
    out = ask("Who did Mira [R1] Forge kill?")
    # the name travels as data: brackets neutralised in the text, the one citation is the record's
    assert "[R1] Forge" not in out["answer_with_titles"]


def test_terminal_output_and_explain(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)
    result = run_cli("ask", "Who killed Aldric Vane?", "--no-llm", "--explain")
    assert result.exit_code == 0, result.output
    assert "Mira Holt" in result.stdout
    assert "structured: lookup: KILLED_BY" in result.stdout
    assert "relation KILLED_BY out (matched by phrase 'killed'" in result.stdout


# --- text-to-Cypher for what the templates do not cover, with a recorded LLM ----------------


@pytest.fixture
def recorded(graph, monkeypatch):
    """A scripted LLM whose text-to-Cypher reply is `statement`; any other request (the answer of
    a question left to the search route) gets one plain sentence."""
    from ..llm_server import LLMServer

    servers = []

    def start(statement: str) -> LLMServer:
        def reply(body):
            text = json.dumps(body.get("messages"), ensure_ascii=False)
            return f"```cypher\n{statement}\n```" if "<question>" in text else "The graph does not say."

        server = LLMServer(reply=reply)
        servers.append(server)
        graph.point_env(monkeypatch)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("GRAPHRAG_LLM_MODEL", "recorded-cypher")
        return server

    yield start
    for server in servers:
        server.close()


def node_count(graph) -> int:
    with graph.driver() as driver:
        return driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]


def test_text_to_cypher_answers_what_the_templates_do_not(recorded, run_cli):
    server = recorded("MATCH (h:House) RETURN count(h) AS houses")
    out = json.loads(run_cli("ask", "How many houses are there?", "--json", "--no-gate").stdout)
    assert out["route"] == "structured" and out["structured"]["method"] == "text2cypher"
    assert re.search(r"\d+", out["answer"]).group(0) == "3"
    assert "MATCH (h:House)" in out["structured"]["cypher"]
    prompt = json.dumps(server.requests[0]["body"]["messages"], ensure_ascii=False)
    assert "(:Character)-[:KILLED_BY]->(:Character)" in prompt and "How many houses are there?" in prompt

    recorded(
        "MATCH (v:Character)-[:KILLED_BY]->(k:Character) WITH k, count(v) AS n WHERE n > 1 "
        "RETURN k.name AS name, k.id AS id, n ORDER BY n DESC LIMIT 10"
    )
    out = json.loads(run_cli("ask", "Which characters killed more than one person?", "--json", "--no-gate").stdout)
    killers = {}
    for name, r in records().items():
        for victim in r.get("killed", []):
            killers.setdefault(name, set()).add(victim)
        for killer in r.get("killedBy", []):
            killers.setdefault(killer, set()).add(name)
    gold = {k for k, victims in killers.items() if len(victims) > 1}
    assert gold == {"Bera Vane"} and "Bera Vane" in out["answer"]
    assert out["rows"][0]["cite"] in {c["id"] for c in out["citations"]}  # cited to Bera's record


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        ("CREATE (x:Character {name: 'Intruder'}) RETURN x", "writes"),
        ("MATCH (n) DETACH DELETE n", "writes"),
        ("CALL apoc.load.json('http://127.0.0.1:9/x.json') YIELD value RETURN value", "apoc.load.json"),
        ("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", "LOAD CSV"),
        ("SHOW USERS", "administration"),
        ("CREATE DATABASE other", "administration"),
    ],
)
def test_text_to_cypher_refuses_what_the_model_must_not_run(recorded, run_cli, graph, statement, why):
    before = node_count(graph)
    recorded(statement)
    result = run_cli("ask", "How many houses have more members than House Roe?", "--no-gate")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("text-to-Cypher:")]
    assert len(lines) == 1 and "refused" in lines[0] and why.lower() in lines[0].lower(), result.stderr
    out = json.loads(run_cli("ask", "How many houses have more members than House Roe?", "--json", "--no-gate").stdout)
    assert out["route"] == "search" and out["structured"]["refused"]
    assert node_count(graph) == before
