"""`graphrag ask` and `graphrag chat` on the sample after knowledge-graph extraction (recorded
LLM replies for the tales, infobox heuristics for the wiki): entities found by every name,
relation questions answered from typed paths, node citations checked, chat follow-ups."""

import re

import pytest

from ..kg_llm_replies import TaleReplies
from ..llm_server import LLMServer, cite_of
from .test_ask import ask_json

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def graph(neo4j_server):
    """The sample, its tales extracted by the recorded LLM replies and its wiki by the infobox
    extractor, as the docs' knowledge-graph page does it (once per module)."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    from ..conftest import wipe

    with neo4j_server.driver() as driver:
        wipe(driver)
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    runner = CliRunner()
    assert runner.invoke(cli, ["apply-schema"], env=env).exit_code == 0
    assert runner.invoke(cli, ["load", "sample"], env=env).exit_code == 0
    server = LLMServer(reply=TaleReplies())
    try:
        llm = dict(env, OPENAI_BASE_URL=server.url, GRAPHRAG_LLM_MODEL="recorded-tales")
        result = runner.invoke(cli, ["extract", "--schema", "folktale", "--extractor", "llm"], env=llm)
        assert result.exit_code == 0, result.output
    finally:
        server.close()
    assert runner.invoke(cli, ["extract", "--schema", "got"], env=env).exit_code == 0
    return neo4j_server


@pytest.fixture
def kg(graph, monkeypatch):
    graph.point_env(monkeypatch)
    return graph


@pytest.mark.parametrize(
    "question, entity_id, matched",
    [
        ("Who is Edric Varn?", "got:edric varn", "Edric Varn"),  # an entity with aliases, by its name
        ("Who is Edric the Young Stag?", "got:edric varn", "Edric the Young Stag"),  # by an alias (a redirect)
        ("what did ÉDRIC VARN carry?", "got:edric varn", "Edric Varn"),  # accents and case folded
        ("Where does the giant Brannock live?", "T3::E4", "the giant Brannock"),
    ],
)
def test_entities_are_found_by_every_name_with_their_types(kg, run_cli, question, entity_id, matched):
    out = ask_json(run_cli, question)
    found = {e["id"]: e for e in out["entities"]}
    assert entity_id in found, out["entities"]
    assert found[entity_id]["matched"] == matched
    assert found[entity_id]["type"] == ("Character" if entity_id.startswith("got:") else "CREATURE")


@pytest.mark.parametrize(
    "question", ["What stood at the harbour of Alexandria?", "Where did Hannibal's final defeat take place?"]
)
def test_ppr_walks_from_seeds_outside_the_entity_graph(kg, run_cli, question):
    # the top hybrid chunks of an article mention no extracted entity, so the PPR projection
    # does not hold them: they seed nothing (GDS refused the whole query before)
    out = ask_json(run_cli, question, "--mode", "ppr")
    assert out["mode"] == "ppr" and out["evidence"]


def test_ppr_fusion_uses_the_configured_rrf_k(kg):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.retrieval.ppr import PPRRetriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    settings = load_settings()
    with connect(settings) as graph:
        embedder = make_embedder(settings)
        analysis = QuestionAnalyzer(graph).analyze("Who made the silver lantern?")
        default = PPRRetriever(graph, embedder).rank(analysis, 5)
        sharp = PPRRetriever(graph, embedder, {"rrfK": 1}).rank(analysis, 5)
    assert "ppr" in default[0].via, "the walk reached the top chunk"
    # a chunk at rank r1 of the hybrid list and r2 of the walk scores 1/(rrfK + r1) + 1/(rrfK + r2)
    assert 1 / 61 < default[0].score <= 2 / 61
    assert 1 / 2 <= sharp[0].score <= 1.0 and sharp[0].score > default[0].score


def test_the_analyzer_reads_the_shortlist_graphrag_search_reads(kg):
    """The analyzer reads the entity shortlist as one record (retrieval/question_entity_list); the
    plugin's graphrag.search reads retrieval/question_entities row by row: the same entities, names
    and scores in the same order."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.retrieval.base import lucene_query

    checked = 0
    with connect(load_settings()) as graph:
        for words in (["Edric", "Varn"], ["Young", "Stag"], ["giant", "Brannock"], ["silver", "lantern"], ["zzzq"]):
            query = lucene_query(words, " OR ")
            rows = graph.read("retrieval/question_entities", query=query, limit=100)
            listed = graph.read_row("retrieval/question_entity_list", query=query, limit=100)["rows"]
            assert listed == rows, words
            checked += len(rows)
    assert checked >= 4, "the names were found"


def test_names_are_found_on_word_boundaries_only(kg, run_cli):
    out = ask_json(run_cli, "Who are the Edricsons of Varnholt?")
    assert not [e for e in out["entities"] if e["id"] == "got:edric varn"]


def test_relation_question_answers_from_the_typed_path(kg, run_cli):
    out = ask_json(run_cli, "How are Reynold and Brannock related?")
    assert out["route"] == "relation" and out["paths"][0]["kind"] == "typed"
    steps = [(r["start"], r["type"], r["end"]) for p in out["paths"] for r in p["relationships"]]
    assert ("T1::E1", "DEFEATS", "T1::E4") in steps
    # it cites the story the path's nodes came from (its only source, D1), with the path's node ids
    assert [c["document_id"] for c in out["citations"]] == ["story:sample:T1"]
    assert out["answer"].startswith("In the graph: Reynold defeats Brannock [D1::E1, D1::E4].")
    assert all(e["document_id"] == "story:sample:T1" for e in out["evidence"])
    shown = run_cli("ask", "How are Reynold and Brannock related?", "--explain")
    assert shown.exit_code == 0
    assert shown.stdout.startswith("In the graph: Reynold defeats Brannock [The Fox Who Moved the Boulder].")
    assert "route relation" in shown.stdout
    assert "path 1 (typed, 1 step(s)): Reynold (T1::E1) -[DEFEATS]-> Brannock (T1::E4)" in shown.stdout
    assert 'Brannock (T3::E4, CREATURE) found by "Brannock"' in shown.stdout


def test_relation_context_and_node_citations_with_an_llm(kg, run_cli):
    fox: list[str] = []

    def reply(body):
        # D9 was not given (fewer sources); E1 and E4 are the tale's own entities (T1::E1, T1::E4)
        fox.append(cite := cite_of(body, "The Fox Who Moved the Boulder"))
        return (
            f"Reynold tricked the giant into throwing the boulder away [{cite}::E1]; "
            f"the giant was his enemy [{cite}::E99] [D9::E4] [{cite}]."
        )

    server = LLMServer(reply)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = ask_json(run_cli, "How are Reynold and Brannock related?", env=env)
        prompt = server.requests[-1]["body"]["messages"][-1]["content"]
        shown = run_cli("ask", "How are Reynold and Brannock related?", env=env)
    finally:
        server.close()
    assert re.search(r"^NODES$", prompt, re.MULTILINE) and re.search(r"^RELATIONSHIPS$", prompt, re.MULTILINE)
    cite = fox[0]
    assert f"  {cite}::E1 -[DEFEATS]-> {cite}::E4: " in prompt and f"  {cite}::E4 Brannock (CREATURE)" in prompt
    # node ids are checked whole: E99 and D9::E4 were not given, though the tale's id was
    assert out["dropped_citations"] == [f"{cite}::E99", "D9::E4"]
    assert out["answer"] == (
        f"Reynold tricked the giant into throwing the boulder away [{cite}::E1]; the giant was his enemy [{cite}]."
    )
    assert shown.stdout.startswith(
        "Reynold tricked the giant into throwing the boulder away "
        "[The Fox Who Moved the Boulder]; the giant was his enemy [The Fox Who Moved the Boulder]."
    )
    assert "E99" not in shown.stdout and "D9::E4" not in shown.stdout


def test_chat_follow_up_carries_names_once_and_finds_the_second_hop(kg):
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    result = CliRunner().invoke(
        cli, ["chat"], input="Who made the silver lantern?\nAnd who stole it?\n/explain\n/quit\n"
    )
    assert result.exit_code == 0, result.output
    assert "(And who stole it (the silver lantern)?)" in result.stderr
    trace = result.stdout.split("Retrieval trace")[-1]
    assert "found by" in trace and re.search(r"\[D\d+\] story:sample:T5::", trace)
    second = result.stdout.split("Sources:")[1]  # the second turn's answer
    assert "stole the silver lantern. [The Troll Who Stole the Light]" in second


@pytest.mark.parametrize(
    "question",
    [
        "What did Reynold and Brannock do to each other?",
        "Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?",
        "Mi történt Reynold és Brannock között?",
        "What happened between Reynold and Brannock?",
        "How did Reynold treat Brannock?",
        "Was haben Reynold und Brannock einander angetan?",
    ],
)
def test_mutual_action_questions_take_the_relation_route(kg, run_cli, question):
    out = ask_json(run_cli, question)
    assert out["route"] == "relation", (out["route"], out["entities"])
    steps = [(r["start"], r["type"], r["end"]) for p in out["paths"] for r in p["relationships"]]
    assert ("T1::E1", "DEFEATS", "T1::E4") in steps
    assert [c["document_id"] for c in out["citations"]] == ["story:sample:T1"]


@pytest.mark.parametrize(
    "question",
    [
        "What did Reynold promise Ilsa?",  # two names, no mutual phrasing
        "Where does the giant Brannock live?",
        "What did Reynold and the weather do to each other?",  # "the weather" is no entity: searched
        "What happened between Reynold and Zebulon?",  # no such name in the graph
    ],
)
def test_other_questions_are_searched(kg, run_cli, question):
    out = ask_json(run_cli, question)
    assert out["route"] != "relation" and not out["paths"]


def test_the_hungarian_relation_question_answers_from_the_path(kg, run_cli):
    shown = run_cli("ask", "Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?", "--explain")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith("In the graph: Reynold defeats Brannock [The Fox Who Moved the Boulder].")
    assert "route relation" in shown.stdout
    assert "  question language: Hungarian (hu)" in shown.stdout
